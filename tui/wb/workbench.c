/*
 * workbench.c - the ncurses workbench: start-up, the loop and the keys.
 *
 * At once a first partition (the file's stages, else a fast search) with
 * its stage table; then the default search runs as an engine job and, when
 * it ends, the ladder of lower bounds, both filling in live.  The loop is
 * one poll() over the terminal and the engine's pipes with a timeout, so
 * the screen never waits for a job.  The terminal is opened with newterm,
 * which fails softly, so a bad TERM is an error message, not an exit inside
 * curses.
 */
#define _POSIX_C_SOURCE 200809L
#include <curses.h>
#include <limits.h>
#include <locale.h>
#include <signal.h>
#include <sys/stat.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <stdarg.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui/ui.h"
#include "core/cost.h"
#include "core/edit.h"
#include "core/load.h"
#include "core/partition.h"
#include "solvers/search.h"
#include "solvers/simple.h"
#include "tui/wb/wb.h"

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

static volatile sig_atomic_t hangup;

static void on_hangup(int sig)
{
	(void)sig;
	hangup = 1;
}

void wb_say(wb *w, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(w->msg, sizeof w->msg, fmt, ap);
	va_end(ap);
	w->msg_t = wb_now();
}

/* --- the recovery file ------------------------------------------------------
 * While the partition has unsaved edits it is written (at most every two
 * seconds, atomically) to $XDG_STATE_HOME/stagecut/ (default
 * ~/.local/state/stagecut/), under a name made from the graph's full path
 * and k; a save or a deliberate quit removes it.  A killed terminal or a
 * crash leaves it, and the next start on the same graph and k offers it. */

static void recover_path(wb *w)
{
	char full[PATH_MAX], dir[512];
	const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	if (state && *state)
		snprintf(dir, sizeof dir, "%s/stagecut", state);
	else if (home && *home)
		snprintf(dir, sizeof dir, "%s/.local/state/stagecut", home);
	else
		return;
	if (!realpath(w->path, full))
		return;
	/* mkdir -p */
	for (char *p = dir + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(dir, 0700);
			*p = '/';
		}
	mkdir(dir, 0700);
	char name[1024];
	size_t j = 0;
	for (const char *c = full; *c && j + 2 < sizeof name; c++)
		name[j++] = *c == '/' ? '%' : *c;
	name[j] = '\0';
	snprintf(w->recover, sizeof w->recover, "%s/%s-k%d.json", dir, name, w->set.k);
}

/* Recovery files are written on a thread of their own from a snapshot of
 * the stages, so a big graph's JSON never delays a key press. */
typedef struct recover_job {
	char path[4096];
	const sc_graph *g;
	sc_settings set;
	int *stage;
} recover_job;

static atomic_bool recover_busy;

static bool write_snapshot(recover_job *r)
{
	sc_error err;
	sc_costs *c = sc_costs_new(r->g, &r->set, &err);
	bool ok = c;
	if (c) {
		sc_costs_eval(c, r->stage);
		ok = sc_part_write(r->path, r->g, r->stage, r->set.k, c, &err) == SC_OK;
		sc_costs_free(c);
	}
	return ok;
}

static void *recover_main(void *arg)
{
	recover_job *r = arg;
	write_snapshot(r);
	free(r->stage);
	free(r);
	atomic_store(&recover_busy, false);
	return NULL;
}

static void recover_wait(void)
{
	while (atomic_load(&recover_busy)) {
		struct timespec t = {0, 5000000};
		nanosleep(&t, NULL);
	}
}

/* Writes the recovery file, in the background unless wait is set. */
static void recover_write(wb *w, bool wait)
{
	if (!w->recover[0] || !w->recover_due || atomic_load(&recover_busy))
		return;
	recover_job *r = malloc(sizeof *r);
	int *st = malloc((size_t)(w->g->n ? w->g->n : 1) * sizeof *st);
	if (!r || !st) {
		free(r);
		free(st);
		return;
	}
	memcpy(st, w->stage, (size_t)w->g->n * sizeof *st);
	snprintf(r->path, sizeof r->path, "%s", w->recover);
	r->g = w->g;
	r->set = w->set;
	r->stage = st;
	w->recover_due = false;
	w->recover_t = wb_now();
	atomic_store(&recover_busy, true);
	pthread_t th;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (wait || pthread_create(&th, &attr, recover_main, r) != 0)
		recover_main(r);
	pthread_attr_destroy(&attr);
}

static void recover_clear(wb *w)
{
	recover_wait();
	if (w->recover[0])
		unlink(w->recover);
	w->recover_due = false;
}

/* Marks the current partition as edited (unsaved). */
static void touched(wb *w)
{
	w->edited = true;
	w->recover_due = true;
}

void wb_changed(wb *w, bool by_hand)
{
	w->part_version++;
	w->stage = sc_editor_stages(w->ed);
	w->c = sc_editor_costs(w->ed);
	if (by_hand) {
		touched(w);
		snprintf(w->origin, sizeof w->origin, "edited by hand (%d edit%s to undo)",
			 sc_editor_undo_count(w->ed), sc_editor_undo_count(w->ed) == 1 ? "" : "s");
	}
	w->edited = sc_editor_dirty(w->ed);
	wb_nodes_refresh(w);
}

/* Makes stage the current partition (undoable).  Done by the program (a
 * search's result replacing the first partition) it is the new baseline,
 * not an unsaved edit; done by the engineer it is an edit. */
static void set_current(wb *w, const int *stage, const char *origin, bool by_hand)
{
	sc_editor_set(w->ed, stage, origin);
	if (!by_hand)
		sc_editor_mark_saved(w->ed);
	wb_changed(w, by_hand);
	snprintf(w->origin, sizeof w->origin, "%s", origin);
}

/* A new editor (undo history starts over) on stage. */
static bool new_editor(wb *w, const int *stage)
{
	sc_error err;
	sc_editor *ed = sc_editor_new(w->g, &w->set, stage, &err);
	if (!ed) {
		wb_say(w, "%s", err.msg);
		return false;
	}
	sc_editor_free(w->ed);
	w->ed = ed;
	wb_changed(w, false);
	return true;
}

static void offer_best(wb *w, const int *stage, double value, const char *from, bool optimal)
{
	if (!(value < w->best * (1 - 1e-12)) && !(optimal && value <= w->best * (1 + 1e-12)))
		return;
	bool better = value < w->best * (1 - 1e-12);
	w->best = value;
	w->best_optimal = optimal;
	snprintf(w->best_from, sizeof w->best_from, "%s", from);
	if (better)
		memcpy(w->best_stage, stage, (size_t)w->g->n * sizeof *stage);
}

static void start_search(wb *w, const char *method, const int *start)
{
	if (w->search >= 0)
		sc_engine_cancel(w->eng, w->search);
	sc_search_params p;
	sc_search_params_init(&p);
	p.method = method;
	p.time_limit = w->search_time;
	p.start = start;
	sc_error err;
	int id = sc_engine_add_search(w->eng, w->g, &w->set, &p, &err);
	if (id < 0) {
		wb_say(w, "cannot start the search: %s", err.msg);
		return;
	}
	w->search = id;
	snprintf(w->search_method, sizeof w->search_method, "%s", method);
	w->search_t0 = wb_now();
	w->nhist = 0;
	memset(&w->search_info, 0, sizeof w->search_info);
	wb_say(w, "search %s started", method);
}

static void start_ladder(wb *w)
{
	sc_ladder_free(w->ladder);
	double cur = sc_costs_objective(w->c);
	bool use_best = w->best < cur;
	sc_ladder_params lp = {.rungs = 0xf,
			       .time_limit = w->rung_time,
			       .upper = use_best ? w->best : cur,
			       .start = use_best ? w->best_stage : w->stage};
	if (!isfinite(lp.upper))
		lp.start = NULL;
	sc_error err;
	w->ladder = sc_ladder_new(w->eng, w->g, &w->set, &lp, &err);
	w->ladder_upper = lp.upper;
	if (!w->ladder)
		wb_say(w, "cannot start the ladder: %s", err.msg);
	else
		wb_say(w, "ladder started (%.0f s per rung at most)", w->rung_time);
}

/* Takes in what the jobs reported. */
static void follow_jobs(wb *w)
{
	if (w->search >= 0) {
		sc_job_info ji;
		sc_engine_info(w->eng, w->search, &ji);
		bool was_running = !sc_job_finished(w->search_info.state) || w->search_info.version == 0;
		w->search_info = ji;
		if (isfinite(ji.search.best) &&
		    (w->nhist == 0 || ji.search.best != w->hist_v[w->nhist - 1])) {
			if (w->nhist == WB_HISTORY) {
				memmove(w->hist_t, w->hist_t + 1, (WB_HISTORY - 1) * sizeof *w->hist_t);
				memmove(w->hist_v, w->hist_v + 1, (WB_HISTORY - 1) * sizeof *w->hist_v);
				w->nhist--;
			}
			w->hist_t[w->nhist] = ji.elapsed;
			w->hist_v[w->nhist++] = ji.search.best;
		}
		if (sc_job_finished(ji.state) && was_running) {
			bool optimal;
			double v = sc_engine_result(w->eng, w->search, w->best_stage == NULL ? NULL : NULL,
						    &optimal);
			int *tmp = malloc((size_t)(w->g->n ? w->g->n : 1) * sizeof *tmp);
			if (tmp && isfinite(v)) {
				sc_engine_result(w->eng, w->search, tmp, &optimal);
				offer_best(w, tmp, v, w->search_method, optimal);
				char b[32];
				double cur = sc_costs_objective(w->c);
				if (v < cur * (1 - 1e-12) && !w->edited && !w->from_file) {
					char origin[96];
					snprintf(origin, sizeof origin, "from the search (%s)", w->search_method);
					set_current(w, tmp, origin, false);
					wb_say(w, "search %s: %s%s, now the current partition", w->search_method,
					    ui_num(v, b, sizeof b), optimal ? " (proven optimal)" : "");
				} else if (v < cur * (1 - 1e-12)) {
					wb_say(w, "search %s found %s; a adopts it", w->search_method,
					    ui_num(v, b, sizeof b));
				} else {
					wb_say(w, "search %s: %s%s, no better than the current partition",
					    w->search_method, ui_num(v, b, sizeof b),
					    optimal ? " (proven optimal)" : "");
				}
			} else if (ji.state == SC_JOB_FAILED) {
				wb_say(w, "search failed: %s", ji.message);
			}
			free(tmp);
			if (!w->ladder && ji.state == SC_JOB_DONE)
				start_ladder(w);
		}
	}
	if (w->ladder) {
		sc_ladder_update(w->ladder);
		int *tmp = malloc((size_t)(w->g->n ? w->g->n : 1) * sizeof *tmp);
		if (tmp) {
			double u = sc_ladder_upper(w->ladder, tmp);
			sc_rung_info ri;
			sc_ladder_info(w->ladder, SC_RUNG_EXACT, &ri);
			if (u < w->ladder_upper * (1 - 1e-12))
				offer_best(w, tmp, u, "exact MIP", ri.state == SC_RS_DONE);
			else if (ri.state == SC_RS_DONE && isfinite(u) && u <= w->best * (1 + 1e-12) &&
				 !w->best_optimal)
				offer_best(w, tmp, u, "exact MIP", true);
			free(tmp);
		}
	}
}

static void adopt_best(wb *w)
{
	if (!isfinite(w->best)) {
		wb_say(w, "no partition found yet");
		return;
	}
	if (w->best >= sc_costs_objective(w->c) * (1 - 1e-12)) {
		wb_say(w, "the current partition is already as good as the best found");
		return;
	}
	char origin[96];
	snprintf(origin, sizeof origin, "adopted: best found (%s)", w->best_from);
	set_current(w, w->best_stage, origin, true);
	wb_say(w, "adopted the best partition found");
}

/* Reads a line at the bottom of the screen; false when cancelled (Esc). */
bool wb_prompt(wb *w, const char *question, char *buf, size_t size)
{
	int rows, cols;
	size_t len = strlen(buf);
	nodelay(stdscr, FALSE);
	curs_set(1);
	bool ok = false;
	for (;;) {
		getmaxyx(stdscr, rows, cols);
		attron(A_REVERSE);
		mvprintw(rows - 1, 0, "%-*.*s", cols, cols, "");
		mvprintw(rows - 1, 0, " %s %s", question, buf);
		attroff(A_REVERSE);
		refresh();
		int ch = getch();
		if (ch == ERR || hangup) {
			/* blocking input failed: the terminal is gone */
			hangup = 1;
			break;
		} else if (ch == 27) {
			break;
		} else if (ch == '\n' || ch == KEY_ENTER || ch == '\r') {
			ok = len > 0;
			break;
		} else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
			if (len)
				buf[--len] = '\0';
		} else if (ch >= 32 && ch < 127 && len + 1 < size) {
			buf[len++] = (char)ch;
			buf[len] = '\0';
		} else if (ch == KEY_RESIZE) {
			wb_draw(w);
		}
	}
	curs_set(0);
	nodelay(stdscr, TRUE);
	return ok;
}

static void save(wb *w)
{
	char path[1024];
	const char *base = w->g->name;
	const char *dot = strrchr(base, '.');
	int stem = dot ? (int)(dot - base) : (int)strlen(base);
	snprintf(path, sizeof path, "%.*s-k%d.partition.json", stem, base, w->set.k);
	if (!wb_prompt(w, "save the partition to:", path, sizeof path)) {
		wb_say(w, "not saved");
		return;
	}
	sc_error err;
	if (sc_part_write(path, w->g, w->stage, w->set.k, w->c, &err) != SC_OK) {
		wb_say(w, "not saved: %s", err.msg);
		return;
	}
	sc_editor_mark_saved(w->ed);
	w->edited = false;
	recover_clear(w);
	wb_say(w, "saved to %s", path);
}

static void load_partition(wb *w)
{
	char path[1024] = "";
	if (!wb_prompt(w, "load a partition file:", path, sizeof path))
		return;
	int k2;
	sc_error err;
	int *st = malloc((size_t)(w->g->n ? w->g->n : 1) * sizeof *st);
	if (!st) {
		wb_say(w, "out of memory");
		return;
	}
	if (sc_part_read(path, w->g, &k2, st, &err) != SC_OK) {
		wb_say(w, "not loaded: %s", err.msg);
	} else if (k2 != w->set.k) {
		wb_say(w, "not loaded: %s has k = %d; change k to %d first (o)", path, k2, k2);
	} else if (!sc_part_check(w->g, st, k2, NULL)) {
		wb_say(w, "not loaded: %s is not a valid partition of this graph", path);
	} else {
		char origin[160];
		snprintf(origin, sizeof origin, "loaded from %.140s", path);
		set_current(w, st, origin, true);
		wb_say(w, "loaded %s (u undoes)", path);
	}
	free(st);
}

/* True when the engineer really wants to quit. */
static bool confirm_quit(wb *w)
{
	if (!w->edited)
		return true;
	char answer[8] = "";
	wb_prompt(w, "the partition has unsaved changes: w saves, q quits anyway, Esc stays:", answer,
	       sizeof answer);
	if (answer[0] == 'q') {
		recover_clear(w);
		return true;
	}
	if (answer[0] == 'w') {
		save(w);
		return !w->edited;
	}
	return false;
}

/* Settings changed: cancel the jobs and start over for the new problem. */
static void restart_problem(wb *w, const sc_settings *ns)
{
	sc_ladder_free(w->ladder);
	w->ladder = NULL;
	sc_engine_cancel(w->eng, -1);
	bool k_changed = ns->k != w->set.k;
	int *st = malloc((size_t)(w->g->n ? w->g->n : 1) * sizeof *st);
	if (!st) {
		wb_say(w, "out of memory");
		return;
	}
	memcpy(st, w->stage, (size_t)w->g->n * sizeof *st);
	sc_settings old = w->set;
	w->set = *ns;
	if (k_changed) {
		/* a partition into the old k means nothing now */
		recover_clear(w);
		recover_path(w);
		first_partition(w->g, &w->set, st, w->origin, sizeof w->origin);
		w->from_file = false;
		w->stage_sel = w->stage_top = 0;
	}
	if (!new_editor(w, st)) {
		w->set = old;
		free(st);
		return;
	}
	free(st);
	w->simple = sc_bound_simple(w->g, w->set.k);
	w->best = sc_costs_objective(w->c);
	w->best_optimal = false;
	memcpy(w->best_stage, w->stage, (size_t)w->g->n * sizeof *w->best_stage);
	snprintf(w->best_from, sizeof w->best_from, "current");
	start_search(w, "best", NULL);
}

static void edit_setting(wb *w)
{
	char buf[64] = "", b[32];
	sc_settings ns = w->set;
	int i = w->settings_sel;
	switch (i) {
	case 0: snprintf(buf, sizeof buf, "%d", w->set.k); break;
	case 1: snprintf(buf, sizeof buf, "%s", ui_num(w->set.bandwidth, b, sizeof b)); break;
	case 2: snprintf(buf, sizeof buf, "%s", isinf(w->set.memory) ? "inf" : ui_num(w->set.memory, b, sizeof b)); break;
	case 3: snprintf(buf, sizeof buf, "%s", sc_mem_policy_name(w->set.policy)); break;
	case 4: snprintf(buf, sizeof buf, "%.0f", w->search_time); break;
	default: snprintf(buf, sizeof buf, "%.0f", w->rung_time); break;
	}
	if (!wb_prompt(w, "new value:", buf, sizeof buf))
		return;
	double x;
	char *end;
	switch (i) {
	case 0: {
		long k = strtol(buf, &end, 10);
		if (*end || k < 1 || k > 4096) {
			wb_say(w, "k must be a whole number from 1 to 4096");
			return;
		}
		ns.k = (int)k;
		break;
	}
	case 1:
		if (!sc_parse_weight(buf, &x) || x <= 0 || isinf(x)) {
			wb_say(w, "the bandwidth must be a number > 0");
			return;
		}
		ns.bandwidth = x;
		break;
	case 2:
		if (strcmp(buf, "inf") == 0 || strcmp(buf, "unlimited") == 0)
			x = INFINITY;
		else if (!sc_parse_weight(buf, &x)) {
			wb_say(w, "the memory must be a number of bytes >= 0, or inf");
			return;
		}
		ns.memory = x;
		break;
	case 3:
		if (!sc_mem_policy_parse(buf, &ns.policy)) {
			wb_say(w, "the policy is overflow or hard");
			return;
		}
		break;
	default:
		if (!sc_parse_weight(buf, &x) || x <= 0 || isinf(x)) {
			wb_say(w, "a time limit is a number of seconds > 0");
			return;
		}
		if (i == 4)
			w->search_time = x;
		else
			w->rung_time = x;
		wb_say(w, "the new budget applies to the next search or ladder");
		return;
	}
	restart_problem(w, &ns);
	wb_say(w, "settings changed: the search and the ladder start over");
}

static void settings_key(wb *w, int ch)
{
	switch (ch) {
	case 'j':
	case KEY_DOWN:
		if (w->settings_sel < 5)
			w->settings_sel++;
		break;
	case 'k':
	case KEY_UP:
		if (w->settings_sel > 0)
			w->settings_sel--;
		break;
	case '\n':
	case '\r':
	case KEY_ENTER:
		edit_setting(w);
		break;
	case 27:
	case 'o':
	case 'q':
		w->settings = false;
		break;
	default:
		break;
	}
}

/* Handles one key; false to quit. */
static bool key(wb *w, int ch)
{
	if (w->help) {
		w->help = false;
		return true;
	}
	if (w->settings) {
		settings_key(w, ch);
		return true;
	}
	if (w->tour && (ch == 't' || ch == '\n' || ch == '\r' || ch == KEY_ENTER || ch == 27)) {
		w->tour = ch == 27 || w->tour >= 5 ? 0 : w->tour + 1;
		if (w->tour == 2 && !w->ladder)
			start_ladder(w);
		return true;
	}
	if (w->view == WB_NODES && wb_nodes_key(w, ch))
		return true;
	switch (ch) {
	case 'q':
	case 'Q':
		return !confirm_quit(w);
	case 'u':
		if (sc_editor_undo(w->ed)) {
			wb_changed(w, true);
			wb_say(w, "undone; %d more to undo", sc_editor_undo_count(w->ed));
		} else {
			wb_say(w, "nothing to undo");
		}
		break;
	case 'U':
	case 18: /* ^R */
		if (sc_editor_redo(w->ed)) {
			wb_changed(w, true);
			wb_say(w, "redone; %d more to redo", sc_editor_redo_count(w->ed));
		} else {
			wb_say(w, "nothing to redo");
		}
		break;
	case '?':
		w->help = true;
		break;
	case 's':
		start_search(w, "best", NULL);
		break;
	case 'r':
		start_search(w, "refine", w->stage);
		break;
	case 'a':
		adopt_best(w);
		break;
	case 'l':
		start_ladder(w);
		break;
	case 'x':
		sc_engine_cancel(w->eng, -1);
		if (w->ladder)
			sc_ladder_cancel(w->ladder);
		wb_say(w, "cancelled the running jobs");
		break;
	case 'w':
		save(w);
		break;
	case 'o':
		w->settings = true;
		break;
	case 'L':
		load_partition(w);
		break;
	case 'e':
		wb_export(w);
		break;
	case 't':
		w->tour = 1;
		break;
	case '1':
	case '2':
	case '3':
		w->view = ch - '0';
		break;
	case '\t':
		w->pane = !w->pane;
		break;
	case 'j':
	case KEY_DOWN:
		if (w->stage_sel + 1 < w->set.k)
			w->stage_sel++;
		break;
	case 'k':
	case KEY_UP:
		if (w->stage_sel > 0)
			w->stage_sel--;
		break;
	case KEY_RESIZE:
		break;
	default:
		break;
	}
	return true;
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
	wb w = {.g = g, .search = -1, .best = INFINITY, .view = WB_OVERVIEW,
		.search_time = 30, .rung_time = 60};
	snprintf(w.path, sizeof w.path, "%s", path);
	w.set = g->settings;
	if (w.set.k < 1)
		w.set.k = 4;
	sc_error err;
	size_t n = (size_t)(g->n ? g->n : 1);
	int *first = malloc(n * sizeof *first);
	w.best_stage = malloc(n * sizeof *w.best_stage);
	w.eng = sc_engine_new(0, &err);
	if (!first || !w.best_stage || !w.eng) {
		ui_error("%s", first && w.best_stage ? err.msg : "out of memory");
		free(first);
		status = UI_EXIT_INPUT;
		goto out;
	}
	sc_violation viol = {SC_VIOL_NONE, -1, -1};
	if (o->partition) {
		/* the engineer's own partition: checked before the screen opens */
		int k2;
		if (sc_part_read(o->partition, g, &k2, first, &err) != SC_OK) {
			ui_error("%s", err.msg);
			free(first);
			status = UI_EXIT_INPUT;
			goto out;
		}
		if (o->k > 0 && k2 != o->k) {
			ui_error("%s: the partition has k = %d, but -k is %d", o->partition, k2, o->k);
			free(first);
			status = UI_EXIT_INPUT;
			goto out;
		}
		if (!sc_part_check(g, first, k2, &viol)) {
			char why[512];
			sc_part_describe(g, first, &viol, why, sizeof why);
			ui_error("%s: the partition is invalid: %s", o->partition, why);
			free(first);
			status = UI_EXIT_INPUT;
			goto out;
		}
		w.set.k = k2;
		snprintf(w.origin, sizeof w.origin, "from %s", o->partition);
		w.from_file = true;
	} else if (g->init_stage && sc_part_check(g, g->init_stage, w.set.k, &viol)) {
		memcpy(first, g->init_stage, n * sizeof *first);
		snprintf(w.origin, sizeof w.origin, "the file's own stages");
		w.from_file = true;
	} else {
		first_partition(g, &w.set, first, w.origin, sizeof w.origin);
		if (g->init_stage) {
			char why[160];
			sc_part_describe(g, g->init_stage, &viol, why, sizeof why);
			size_t used = strlen(w.origin);
			snprintf(w.origin + used, sizeof w.origin - used, "; the file's stages: %s", why);
		}
	}
	char origin[sizeof w.origin];
	memcpy(origin, w.origin, sizeof origin);
	bool made = new_editor(&w, first);
	free(first);
	if (!made) {
		ui_error("%s", w.msg);
		status = UI_EXIT_INPUT;
		goto out;
	}
	memcpy(w.origin, origin, sizeof origin);
	w.simple = sc_bound_simple(g, w.set.k);
	if (isfinite(sc_costs_objective(w.c))) {
		memcpy(w.best_stage, w.stage, n * sizeof *w.stage);
		w.best = sc_costs_objective(w.c);
		snprintf(w.best_from, sizeof w.best_from, "%s", w.from_file ? "file" : "first");
	}

	setlocale(LC_ALL, "");
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
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	w.color = has_colors() && !getenv("NO_COLOR");
	if (w.color) {
		start_color();
		use_default_colors();
		init_pair(1, COLOR_RED, -1);
		init_pair(2, COLOR_GREEN, -1);
		init_pair(3, COLOR_YELLOW, -1);
		init_pair(4, COLOR_BLUE, -1);
	}
	recover_path(&w);
	if (w.recover[0] && access(w.recover, R_OK) == 0) {
		int k2;
		int *rs = malloc(n * sizeof *rs);
		if (rs && sc_part_read(w.recover, g, &k2, rs, &err) == SC_OK && k2 == w.set.k &&
		    sc_part_check(g, rs, k2, NULL)) {
			wb_draw(&w);
			char answer[8] = "";
			wb_prompt(&w, "an unsaved partition from an earlier session was recovered: r "
				   "restores it, d discards it:", answer, sizeof answer);
			if (answer[0] == 'r') {
				set_current(&w, rs, "recovered from an earlier session (unsaved)", true);
				wb_say(&w, "restored the recovered partition; w saves it");
			} else {
				recover_clear(&w);
			}
		}
		free(rs);
	}
	wb_draw(&w);
	start_search(&w, "best", NULL);
	const char *times = getenv("STAGECUT_KEY_TIMES");
	FILE *timing = times && *times ? fopen(times, "a") : NULL;
	struct sigaction sa = {.sa_handler = on_hangup};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	double last = 0;
	int dead_polls = 0;
	for (bool go = true; go && !hangup;) {
		bool ready = false;
		int changed = sc_engine_poll(w.eng, 100, STDIN_FILENO, &ready);
		bool dirty = changed > 0;
		follow_jobs(&w);
		double t_key = 0;
		int first_key = 0, got = 0;
		for (int ch; go && (ch = getch()) != ERR;) {
			if (!t_key) {
				t_key = wb_now();
				first_key = ch;
			}
			go = key(&w, ch);
			dirty = true;
			got++;
		}
		/* a terminal that keeps polling readable with nothing to read has
		 * hung up (no SIGHUP reaches a process that lost it some other
		 * way): leave as on a hangup instead of spinning */
		dead_polls = ready && !got ? dead_polls + 1 : 0;
		if (dead_polls > 50)
			hangup = 1;
		double t = wb_now(), t_handled = t;
		if (w.recover_due && t - w.recover_t > 2)
			recover_write(&w, false);
		if (dirty || t - last > 0.25) {
			wb_draw(&w);
			last = t;
		}
		if (t_key && timing) {
			/* key press to redrawn screen, for the benchmark */
			fprintf(timing, "%.3f %d %.3f\n", (wb_now() - t_key) * 1e3, first_key,
				(t_handled - t_key) * 1e3);
			fflush(timing);
		}
	}
	if (timing)
		fclose(timing);
	if (hangup) {
		/* the terminal went away: keep the edits for the next start */
		w.recover_due = w.edited;
		recover_wait();
		recover_write(&w, true);
	}
	endwin();
	delscreen(scr);
out:
	recover_wait(); /* the graph must outlive the writer */
	wb_quotient_free();
	sc_ladder_free(w.ladder);
	sc_engine_free(w.eng);
	sc_editor_free(w.ed);
	free(w.best_stage);
	free(w.order);
	free(w.by_work);
	sc_graph_free(g);
	return status;
}
