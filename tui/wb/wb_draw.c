/*
 * wb_draw.c - the workbench's frame: the header, the footer and the modals
 * over the view.  Everything is drawn from the state in wb.h on every
 * redraw (curses sends only what changed), so a screen is a pure function
 * of the state and the terminal size.
 *
 * The header answers the practitioner's question about the partition on
 * screen (wb_answer_get): its objective (the bottleneck and its stage, or
 * under GPipe the GPipe objective), the best lower bound and the gap, or
 * why it is infeasible; and beside it the best partition found when that is
 * better.  A training graph adds its schedule to the header, and a status
 * message too long for one row is wrapped (the editor's refusals name an
 * edge and a rule).  The views are wb_overview.c, wb_nodes.c and
 * wb_quotient.c; the modals are in wb_keys.c (help), wb_settings.c,
 * wb_tour.c and wb_lineedit.c (prompts).
 *
 * Layer: a view's service (layer 4 in wb.h).  It calls the state, the jobs
 * (wb_answer_get), the key table (footers) and the prompt's ops
 * (wb_lineedit.c, to know when it is open); the views and the modals call
 * its wb_box, wb_attr and wb_short_num.
 */
#define _POSIX_C_SOURCE 200809L
#include "tui/wb/wb_draw.h"

#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/clock.h"
#include "tui/ui.h"
#include "tui/wb/wb_devices.h"
#include "tui/wb/wb_fit.h"
#include "tui/wb/wb_jobs.h"
#include "tui/wb/wb_keytab.h"
#include "tui/wb/wb_lineedit.h"
#include "viz/quotient.h"

void wb_attr(const wb *w, int pair, unsigned long fallback, bool on)
{
	if (w->color && on)
		attron(COLOR_PAIR(pair));
	else if (w->color)
		attroff(COLOR_PAIR(pair));
	else if (on)
		attron((attr_t)fallback);
	else
		attroff((attr_t)fallback);
}

static void on(const wb *w, int pair, attr_t fallback)
{
	wb_attr(w, pair, fallback, true);
}

static void off(const wb *w, int pair, attr_t fallback)
{
	wb_attr(w, pair, fallback, false);
}

const char *wb_short_num(double x, char *buf, size_t size)
{
	if (isinf(x))
		snprintf(buf, size, "inf");
	else if (fabs(x) < 1e5)
		snprintf(buf, size, x == floor(x) ? "%.0f" : "%.4g", x);
	else {
		/* 1.2e+09 without the sign and the zero: the exponent is >= 5 */
		char e[32];
		snprintf(e, sizeof e, "%.1e", x);
		char *p = strchr(e, 'e'), *q = p + 1;
		while (*q == '+' || (*q == '0' && q[1]))
			q++;
		snprintf(buf, size, "%.*s%s", (int)(p - e + 1), e, q);
	}
	return buf;
}

/* The header's third row: the practitioner's question about the partition
 * on screen (wb_answer_get): its objective (the bottleneck and its stage,
 * or under GPipe the GPipe objective with its terms where the row has
 * room), then the best lower bound and the gap, or why it is infeasible;
 * then the best partition found when it is better, on this row when it
 * fits, else on the next (returned in moved, "" when it fitted). */
static void answer_row(const wb *w, const wb_answer *a, int cols, char *moved, char *moved_short,
                       size_t size)
{
	char b1[32], b2[32], b3[32];
	char obj_long[160], obj_short[96], why_long[256], why_short[160], gap[32] = "";
	char best_long[160] = "", best_short[96] = "";
	ui_num(a->objective, b1, sizeof b1);
	if (strcmp(a->name, "bottleneck") == 0) {
		snprintf(obj_short, sizeof obj_short, "bottleneck %s (stage %d)", b1, a->at + 1);
		snprintf(obj_long, sizeof obj_long, "%s", obj_short);
	} else {
		int fa, ba;
		sc_costs_gpipe(w->c, &fa, &ba);
		snprintf(obj_short, sizeof obj_short, "%s %s", a->name, b1);
		snprintf(obj_long, sizeof obj_long, "%s = fw %s + bw %s", obj_short,
		         ui_num(fmax(0, w->c->st[fa].cost_fw), b2, sizeof b2),
		         ui_num(fmax(0, w->c->st[ba].cost_bw), b3, sizeof b3));
	}
	if (a->feasible) {
		ui_num(a->lower, b2, sizeof b2);
		snprintf(why_long, sizeof why_long, "  lower bound %s (%s)", b2, a->lower_by);
		snprintf(why_short, sizeof why_short, "  lower bound %s", b2);
		if (!isnan(a->gap))
			snprintf(gap, sizeof gap, "  gap %.2f%%", 100 * a->gap);
	} else {
		const sc_stage_cost *st = &w->c->st[a->over];
		char more[48] = "";
		if (a->nover > 1)
			snprintf(more, sizeof more, " (and %d more stage%s)", a->nover - 1,
			         a->nover > 2 ? "s" : "");
		/* eval's words and numbers, or in short */
		sc_mem_parts parts = sc_costs_memory_parts(w->c, a->over);
		snprintf(why_long, sizeof why_long,
		         "  infeasible: stage %d holds %.17g bytes of %s, over the hard memory "
		         "limit of %.17g%s%s%s",
		         a->over + 1, st->need, w->g->acts ? "memory" : "parameters",
		         sc_costs_stage_memory(w->c, a->over), w->g->acts ? "; largest part " : "",
		         w->g->acts ? sc_mem_parts_largest(&parts) : "", more);
		snprintf(why_short, sizeof why_short,
		         "  infeasible: stage %d holds %s B > limit %s B%s", a->over + 1,
		         wb_short_num(st->need, b2, sizeof b2),
		         wb_short_num(sc_costs_stage_memory(w->c, a->over), b3, sizeof b3),
		         a->nover > 1 ? " (+more)" : "");
		if (a->none_fits_by) {
			/* and no other partition would fit: the answer is k or M */
			size_t n = strlen(why_long);
			snprintf(why_long + n, sizeof why_long - n,
			         "; no %d-stage partition fits (proven by %s)",
			         sc_settings_stages(&w->set), a->none_fits_by);
			snprintf(why_short, sizeof why_short,
			         "  infeasible: no %d-stage partition fits (proven)",
			         sc_settings_stages(&w->set));
		} else if (!isfinite(w->best)) {
			/* not proven: nothing that fits was found, which is no
			 * proof that nothing does */
			size_t n = strlen(why_long);
			snprintf(why_long + n, sizeof why_long - n,
			         "; no feasible partition found yet");
			/* the short form keeps the reason too */
			n = strlen(why_short);
			snprintf(why_short + n, sizeof why_short - n, "; none feasible found yet");
		}
	}
	if (a->best_better) {
		ui_num(a->best, b3, sizeof b3);
		if (isnan(a->gain)) {
			snprintf(best_long, sizeof best_long,
			         "best found %s (%s) fits: a adopts it", b3, w->best_from);
			snprintf(best_short, sizeof best_short, "best found %s fits: a adopts", b3);
		} else {
			snprintf(best_long, sizeof best_long,
			         "best found %s (%s), %.1f%% better: a adopts it", b3, w->best_from,
			         100 * a->gain);
			snprintf(best_short, sizeof best_short,
			         "best found %s, %.1f%% better: a adopts", b3, 100 * a->gain);
		}
	}
	int room = cols - 1, lg = (int)strlen(gap),
	    lb = best_long[0] ? 2 + (int)strlen(best_long) : 0;
	const char *obj = obj_long, *why = why_long;
	moved[0] = moved_short[0] = '\0';
	if ((int)(strlen(obj) + strlen(why)) + lg + lb > room) {
		/* the best found goes to the next row; this one keeps what fits */
		snprintf(moved, size, "%s", best_long);
		snprintf(moved_short, size, "%s", best_short);
		lb = 0;
		if ((int)(strlen(obj) + strlen(why)) + lg > room)
			obj = obj_short;
		if ((int)(strlen(obj) + strlen(why)) + lg > room)
			why = why_short;
		/* what still does not fit is left out whole, never cut */
		if ((int)(strlen(obj) + strlen(why)) > room)
			why = "";
	}
	char fitted[160];
	mvprintw(2, 0, "%s", wb_fit_words(obj, room, fitted, sizeof fitted));
	if (!a->feasible)
		on(w, WB_PAIR_BOTTLENECK, A_BOLD);
	if (getcurx(stdscr) + (int)strlen(why) <= room)
		printw("%s", why);
	if (!a->feasible)
		off(w, WB_PAIR_BOTTLENECK, A_BOLD);
	if (gap[0] && getcurx(stdscr) + lg <= room) {
		bool zero = a->gap == 0;
		on(w, zero ? WB_PAIR_GOOD : WB_PAIR_TITLE, A_BOLD);
		printw("%s", gap);
		off(w, zero ? WB_PAIR_GOOD : WB_PAIR_TITLE, A_BOLD);
	}
	if (lb && getcurx(stdscr) + lb <= room)
		printw("  %s", best_long);
}

static void header(const wb *w, int cols)
{
	const sc_settings *s = &w->set;
	char b1[32], b2[32];
	attron(A_BOLD);
	mvprintw(0, 0, "stagecut  %s", w->g->name);
	attroff(A_BOLD);
	char right[64];
	int n = 0;
	right[0] = '\0';
	if (w->jobs->running || !(w->jobs->queued || w->jobs->paused))
		n += snprintf(right + n, sizeof right - (size_t)n,
		              w->jobs->running ? "%d job%s running" : "idle", w->jobs->running,
		              w->jobs->running == 1 ? "" : "s");
	if (w->jobs->paused)
		n += snprintf(right + n, sizeof right - (size_t)n, "%s%d paused", n ? ", " : "",
		              w->jobs->paused);
	if (w->jobs->queued)
		snprintf(right + n, sizeof right - (size_t)n, "%s%d queued", n ? ", " : "",
		         w->jobs->queued);
	if ((int)strlen(right) + 2 < cols - (int)strlen(w->g->name) - 10)
		mvprintw(0, cols - (int)strlen(right) - 1, "%s", right);
	/* with devices: "k 3 + 1 CPU", "devices h100:2,a100:2" */
	char kk[128];
	wb_devices_text(w, kk, sizeof kk);
	if (s->fleet && !sc_fleet_plain(&w->c->fleet)) {
		/* each kind its link and memory: "B h100 9e5 a100 6e5" */
		char bm[2][160] = {"B", "M"};
		for (int d = 0; d < w->c->fleet.n; d++)
			for (int i = 0; i < 2; i++) {
				const sc_kind *kd = &w->c->fleet.kind[d];
				double v = i ? kd->memory : kd->bandwidth;
				size_t at = strlen(bm[i]);
				snprintf(bm[i] + at, sizeof bm[i] - at, " %s %s", kd->name,
				         wb_short_num(v, i ? b2 : b1, 32));
			}
		mvprintw(1, 0, "%d ops  %d edges  %s  %s  %s (%s)", w->g->n, w->g->m, kk, bm[0],
		         bm[1], sc_mem_policy_name(s->policy));
	} else {
		mvprintw(1, 0, "%d ops  %d edges  %s  B %s  M %s (%s)", w->g->n, w->g->m, kk,
		         ui_num(s->bandwidth, b1, sizeof b1), ui_num(s->memory, b2, sizeof b2),
		         sc_mem_policy_name(s->policy));
	}
	if (w->g->cost_short) {
		/* where the work came from (measured, modelled), where it fits */
		char tag[64];
		int len = snprintf(tag, sizeof tag, "  costs %s", w->g->cost_short);
		if (getcurx(stdscr) + len <= cols - 1)
			printw("%s", tag);
	}
	if (sc_graph_is_training(w->g)) {
		/* what kind of graph, and the schedule whose objective row 2
		 * shows, where the row has room */
		char tag[64];
		int len = snprintf(tag, sizeof tag, "  training, %s",
		                   sc_quotient_schedule_name(s->schedule));
		if (getcurx(stdscr) + len <= cols - 1)
			printw("%s", tag);
	}
	wb_answer a;
	wb_answer_get(w, &a);
	char moved[200], moved_short[200];
	answer_row(w, &a, cols, moved, moved_short, sizeof moved);
	/* where the partition came from, and the best found when row 2 had no
	 * room for it (in short when both do not fit; the origin's last words
	 * go first, whole) */
	int room = cols - 1;
	const char *best = moved;
	if (moved[0] && (int)(strlen(w->origin) + 3 + strlen(moved)) > room)
		best = moved_short;
	int keep = (int)strlen(best);
	char origin[200];
	wb_fit_words(w->origin, keep ? room - keep - 3 : room, origin, sizeof origin);
	attron(A_DIM);
	mvprintw(3, 0, "%s", origin);
	attroff(A_DIM);
	int x = origin[0] ? (int)strlen(origin) + 3 : 0;
	if (keep && x + keep <= room)
		mvprintw(3, x, "%s", best);
}

void wb_box(int y0, int x0, int h, int wd, const char *title)
{
	for (int i = 0; i < h; i++) {
		move(y0 + i, x0);
		for (int j = 0; j < wd; j++)
			addch(' ');
	}
	attron(A_REVERSE);
	mvprintw(y0, x0, "%-*.*s", wd, wd, title);
	attroff(A_REVERSE);
}

/* A status message too long for one row, wrapped at spaces onto as many
 * rows as it needs (at most a third of the screen) ending on the last row,
 * over the bottom of the view: a refusal names an edge and the rule it
 * would break, and none of it may be cut off.  Only on training graphs,
 * whose rules make the long messages (inference screens stay as they
 * were). */
static void status_wrapped(const char *msg, int rows, int cols)
{
	enum { MAX_ROWS = 8 };
	int start[MAX_ROWS], len[MAX_ROWS], n = 0, most = rows / 3 > 1 ? rows / 3 : 1;
	if (most > MAX_ROWS)
		most = MAX_ROWS;
	const char *p = msg;
	while (*p && n < most) {
		int rest = (int)strlen(p), take = rest;
		if (rest > cols && n + 1 < most) {
			/* break at the last space that fits, else mid-word */
			take = cols;
			while (take > 0 && p[take] != ' ')
				take--;
			if (take == 0)
				take = cols;
		}
		start[n] = (int)(p - msg);
		len[n++] = take < cols ? take : cols;
		p += take;
		while (*p == ' ')
			p++;
	}
	for (int i = 0; i < n; i++)
		mvprintw(rows - n + i, 0, "%-*.*s", cols, len[i], msg + start[i]);
}

void wb_draw(wb *w)
{
	int rows, cols;
	getmaxyx(stdscr, rows, cols);
	erase();
	header(w, cols);
	/* the view gets the rows between the header and the footer */
	w->view->draw(w, 4, rows - 1 - 4, cols);
	char keys[256];
	snprintf(keys, sizeof keys, " ");
	wb_footer(w->view->footer, "  ", keys + 1, sizeof keys - 1);
	double now = sc_clock_now();
	w->msg_shown = wb_msg_fresh(w, now);
	attron(A_REVERSE);
	if (w->msg_shown && sc_graph_is_training(w->g) && (int)strlen(w->msg) > cols)
		status_wrapped(w->msg, rows, cols);
	else
		mvprintw(rows - 1, 0, "%-*.*s", cols, cols, w->msg_shown ? w->msg : keys);
	attroff(A_REVERSE);
	for (int i = 0; i < w->nmodal; i++)
		w->modal[i].ops->draw(w, rows, cols);
	/* a prompt on top shows the cursor at the end of its line */
	curs_set(wb_modal_top(w) == &wb_prompt_modal);
	refresh();
}
