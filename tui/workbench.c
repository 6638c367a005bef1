/*
 * workbench.c - the ncurses workbench (first version).
 *
 * Shows the loaded graph, a first partition (the file's stages, or the
 * greedy split) with its stage table, the bottleneck marked by '*' as well as
 * by highlighting, and the simple lower bound.  Searches, the ladder and
 * hand edits arrive with the workbench issue.  The terminal is opened with
 * newterm, which fails softly, so a bad TERM is an error message, not an exit
 * inside curses.
 */
#define _POSIX_C_SOURCE 200809L
#include <curses.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "core/cost.h"
#include "core/partition.h"
#include "solvers/search.h"
#include "solvers/simple.h"

#ifndef SC_DATADIR
#define SC_DATADIR "/usr/local/share/stagecut"
#endif
#define SC_DEFAULT_SAMPLE "samples/msr-fiddle/operator/bert_l-3_inference.json"

const char *ui_default_sample(char *buf, size_t size)
{
	/* beside the program in a source tree, then PREFIX/share relative to an
	 * installed program (so PREFIX may differ between build and install),
	 * then the compiled-in data directory */
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (len > 0) {
		exe[len] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			snprintf(buf, size, "%s/%s", exe, SC_DEFAULT_SAMPLE);
			if (access(buf, R_OK) == 0)
				return buf;
			snprintf(buf, size, "%s/../share/stagecut/%s", exe, SC_DEFAULT_SAMPLE);
			if (access(buf, R_OK) == 0)
				return buf;
		}
	}
	snprintf(buf, size, "%s/%s", SC_DATADIR, SC_DEFAULT_SAMPLE);
	return buf;
}

typedef struct wb_state {
	sc_graph *g;
	sc_costs *c;
	int *stage;
	double simple;
	char origin[200]; /* where the partition came from */
	bool color;
} wb_state;

static void draw(const wb_state *w)
{
	int rows, cols;
	getmaxyx(stdscr, rows, cols);
	erase();
	const sc_graph *g = w->g;
	const sc_settings *s = &w->c->set;
	char b1[32], b2[32], b3[32];
	int at;
	double bn = sc_costs_bottleneck(w->c, &at);
	attron(A_BOLD);
	mvprintw(0, 0, "stagecut  %s", g->name);
	attroff(A_BOLD);
	mvprintw(1, 0, "%d ops  %d edges  k %d  B %s  M %s (%s)", g->n, g->m, s->k,
	         ui_num(s->bandwidth, b1, sizeof b1), ui_num(s->memory, b2, sizeof b2),
	         sc_mem_policy_name(s->policy));
	mvprintw(2, 0, "bottleneck %s   simple bound %s   gap <= %.1f%%   (%s)",
	         ui_num(bn, b1, sizeof b1), ui_num(w->simple, b2, sizeof b2),
	         w->simple > 0 ? (bn / w->simple - 1) * 100 : 0.0, w->origin);
	(void)b3;
	if (!sc_costs_feasible(w->c)) {
		attron(A_BOLD);
		mvprintw(3, 0, "! stages marked ! hold more parameter bytes than the hard memory limit");
		attroff(A_BOLD);
	}
	int y = 4;
	mvprintw(y++, 0, "  %5s %6s %11s %11s %11s %11s %11s", "stage", "ops", "work", "io in",
	         "io out", "overflow", "cost");
	int barw = cols - 78;
	for (int i = 0; i < s->k && y < rows - 1; i++, y++) {
		const sc_stage_cost *st = &w->c->st[i];
		char a[32], b[32], c[32], d[32], e[32];
		if (i == at)
			attron(w->color ? (COLOR_PAIR(1) | A_BOLD) : A_REVERSE);
		mvprintw(y, 0, "%c %5d %6d %11s %11s %11s %11s %11s", i == at ? '*' : ' ', i + 1,
		         st->ops, ui_num(st->work, a, sizeof a), ui_num(st->io_in, b, sizeof b),
		         ui_num(st->io_out, c, sizeof c), ui_num(st->overflow, d, sizeof d),
		         ui_num(st->cost, e, sizeof e));
		if (i == at)
			attroff(w->color ? (COLOR_PAIR(1) | A_BOLD) : A_REVERSE);
		if (st->over_memory && s->policy == SC_MEM_HARD)
			mvaddch(y, 1, '!');
		if (barw > 4 && bn > 0) {
			int len = (int)lround(st->cost / bn * (barw - 1));
			move(y, 78);
			for (int j = 0; j < len; j++)
				addch(i == at ? '#' : '=');
		}
	}
	attron(A_REVERSE);
	mvprintw(rows - 1, 0, "%-*s", cols, " q quit   (searches, the ladder and edits: coming)");
	attroff(A_REVERSE);
	refresh();
}

/* A first partition at once: DPL (one sliced depth-first order) and
 * refinement for graphs small enough to take well under a second, else the
 * greedy equal-work split. */
static void first_partition(const sc_graph *g, const sc_settings *set, int *stage, char *origin,
			    size_t size)
{
	sc_error err;
	if (g->n <= 20000) {
		sc_search_params p;
		sc_search_params_init(&p);
		p.method = "dpl";
		p.time_limit = 0.5;
		sc_search *s = sc_search_new(g, set, &p, &err);
		if (s && sc_search_run(s, &err) == SC_OK && isfinite(sc_search_result(s, stage, NULL))) {
			sc_search_free(s);
			snprintf(origin, size, "first partition: dpl + refine");
			return;
		}
		sc_search_free(s);
	}
	sc_greedy_split(g, set->k, stage, &err);
	snprintf(origin, size, "first partition: greedy split");
}

int ui_workbench(const ui_opts *o)
{
	char sample[PATH_MAX + 64];
	const char *path = o->npos ? o->pos[0] : ui_default_sample(sample, sizeof sample);
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		ui_error("the workbench needs a terminal; for scripts use 'stagecut info', 'eval' "
		         "(see --help)");
		return UI_EXIT_INPUT;
	}
	int status = UI_EXIT_OK;
	sc_graph *g = ui_load(path, o, &status);
	if (!g)
		return status;
	wb_state w = {.g = g};
	sc_settings set = g->settings;
	if (set.k < 1)
		set.k = 4;
	sc_error err;
	w.stage = malloc((size_t)(g->n ? g->n : 1) * sizeof *w.stage);
	w.c = sc_costs_new(g, &set, &err);
	if (!w.stage || !w.c) {
		ui_error("%s", w.c ? "out of memory" : err.msg);
		status = UI_EXIT_INPUT;
		goto out;
	}
	sc_violation viol = {SC_VIOL_NONE, -1, -1};
	if (g->init_stage && sc_part_check(g, g->init_stage, set.k, &viol)) {
		memcpy(w.stage, g->init_stage, (size_t)g->n * sizeof *w.stage);
		snprintf(w.origin, sizeof w.origin, "stages from the file");
	} else {
		first_partition(g, &set, w.stage, w.origin, sizeof w.origin);
		if (g->init_stage) {
			char why[160];
			sc_part_describe(g, g->init_stage, &viol, why, sizeof why);
			size_t used = strlen(w.origin);
			snprintf(w.origin + used, sizeof w.origin - used, "; the file's stages: %s", why);
		}
	}
	sc_costs_eval(w.c, w.stage);
	w.simple = sc_bound_simple(g, set.k);

	SCREEN *scr = newterm(NULL, stdout, stdin);
	if (!scr) {
		ui_error("cannot open the terminal (TERM=%s)",
		         getenv("TERM") ? getenv("TERM") : "");
		status = UI_EXIT_INPUT;
		goto out;
	}
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	w.color = has_colors() && !getenv("NO_COLOR");
	if (w.color) {
		start_color();
		use_default_colors();
		init_pair(1, COLOR_RED, -1);
	}
	for (;;) {
		draw(&w);
		int ch = getch();
		if (ch == 'q' || ch == 'Q')
			break;
	}
	endwin();
	delscreen(scr);
out:
	sc_costs_free(w.c);
	free(w.stage);
	sc_graph_free(g);
	return status;
}
