/*
 * wb_draw.c - the workbench's screens.  Everything is drawn from the state
 * in wb.h on every redraw (curses sends only what changed), so a screen is a
 * pure function of the state and the terminal size.
 */
#define _POSIX_C_SOURCE 200809L
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tui/ui.h"
#include "tui/wb/wb.h"

double wb_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

enum { PAIR_BOTTLENECK = 1, PAIR_GOOD, PAIR_TITLE, PAIR_DIM };

static void on(const wb *w, int pair, attr_t fallback)
{
	if (w->color)
		attron(COLOR_PAIR(pair));
	else
		attron(fallback);
}

static void off(const wb *w, int pair, attr_t fallback)
{
	if (w->color)
		attroff(COLOR_PAIR(pair));
	else
		attroff(fallback);
}

double wb_lower_bound(const wb *w, const char **by)
{
	double lb = w->simple;
	*by = "simple";
	if (w->ladder) {
		for (int r = SC_RUNG_BOTTLENECK; r < SC_RUNG_COUNT; r++) {
			sc_rung_info ri;
			sc_ladder_info(w->ladder, (sc_rung)r, &ri);
			if (ri.state != SC_RS_OFF && ri.state != SC_RS_WAITING && ri.value > lb) {
				lb = ri.value;
				*by = sc_rung_name((sc_rung)r);
			}
		}
	}
	if (w->best_optimal && isfinite(w->best) && w->best > lb) {
		lb = w->best;
		*by = "exact DP";
	}
	return lb;
}

static int running_jobs(const wb *w)
{
	return w->eng ? sc_engine_busy(w->eng) : 0;
}

static void header(const wb *w, int cols)
{
	const sc_settings *s = &w->set;
	char b1[32], b2[32], b3[32];
	int at;
	double bn = sc_costs_bottleneck(w->c, &at);
	attron(A_BOLD);
	mvprintw(0, 0, "stagecut  %s", w->g->name);
	attroff(A_BOLD);
	int jobs = running_jobs(w);
	char right[48];
	snprintf(right, sizeof right, jobs ? "%d job%s running" : "idle", jobs, jobs == 1 ? "" : "s");
	if ((int)strlen(right) + 2 < cols - (int)strlen(w->g->name) - 10)
		mvprintw(0, cols - (int)strlen(right) - 1, "%s", right);
	mvprintw(1, 0, "%d ops  %d edges  k %d  B %s  M %s (%s)", w->g->n, w->g->m, s->k,
		 ui_num(s->bandwidth, b1, sizeof b1), ui_num(s->memory, b2, sizeof b2),
		 sc_mem_policy_name(s->policy));
	const char *by;
	double lb = wb_lower_bound(w, &by);
	double ub = fmin(bn, w->best);
	move(2, 0);
	printw("bottleneck %s", ui_num(bn, b1, sizeof b1));
	if (isfinite(w->best) && w->best < bn * (1 - 1e-12))
		printw("  best %s (%s)", ui_num(w->best, b2, sizeof b2), w->best_from);
	printw("  lower bound %s (%s)", ui_num(lb, b3, sizeof b3), by);
	if (isfinite(ub) && lb > 0) {
		double gap = ub / lb - 1;
		if (gap < 1e-9)
			gap = 0;
		on(w, gap == 0 ? PAIR_GOOD : PAIR_TITLE, A_BOLD);
		printw("  gap %.2f%%", 100 * gap);
		off(w, gap == 0 ? PAIR_GOOD : PAIR_TITLE, A_BOLD);
	}
	attron(A_DIM);
	mvprintw(3, 0, "%.*s", cols - 1, w->origin);
	attroff(A_DIM);
}

/* The stage table from row y, at most h rows (title included). */
static void stage_table(wb *w, int y, int h, int cols)
{
	int k = w->set.k, at;
	double bn = sc_costs_bottleneck(w->c, &at);
	bool hard = w->set.policy == SC_MEM_HARD;
	attron(A_BOLD);
	mvprintw(y, 0, "  %5s %6s %11s %11s %11s %11s %11s", "stage", "ops", "work", "io in",
		 "io out", "overflow", "cost");
	attroff(A_BOLD);
	int rows = h - 1;
	if (rows < 1)
		return;
	if (w->stage_sel < w->stage_top)
		w->stage_top = w->stage_sel;
	if (w->stage_sel >= w->stage_top + rows)
		w->stage_top = w->stage_sel - rows + 1;
	if (w->stage_top > k - rows)
		w->stage_top = k - rows > 0 ? k - rows : 0;
	int barx = 78, barw = cols - barx - 1;
	for (int r = 0; r < rows && w->stage_top + r < k; r++) {
		int i = w->stage_top + r;
		const sc_stage_cost *st = &w->c->st[i];
		char a[32], b[32], c[32], d[32], e[32];
		bool sel = w->view == WB_OVERVIEW && w->pane == 0 && i == w->stage_sel;
		if (i == at)
			on(w, PAIR_BOTTLENECK, A_BOLD);
		if (sel)
			attron(A_REVERSE);
		mvprintw(y + 1 + r, 0, "%c%c%5d %6d %11s %11s %11s %11s %11s", i == at ? '*' : ' ',
			 hard && st->over_memory ? '!' : ' ', i + 1, st->ops,
			 ui_num(st->work, a, sizeof a), ui_num(st->io_in, b, sizeof b),
			 ui_num(st->io_out, c, sizeof c), ui_num(st->overflow, d, sizeof d),
			 ui_num(st->cost, e, sizeof e));
		if (sel)
			attroff(A_REVERSE);
		if (i == at)
			off(w, PAIR_BOTTLENECK, A_BOLD);
		if (barw > 4 && bn > 0 && isfinite(bn)) {
			int len = (int)lround(st->cost / bn * barw);
			move(y + 1 + r, barx);
			if (i == at)
				on(w, PAIR_BOTTLENECK, A_BOLD);
			for (int j = 0; j < len && j < barw; j++)
				addch(i == at ? '#' : '=');
			if (i == at)
				off(w, PAIR_BOTTLENECK, A_BOLD);
		}
	}
	if (k > rows) {
		attron(A_DIM);
		mvprintw(y, cols - 22 > 64 ? 64 : cols - 22, " stages %d-%d of %d ", w->stage_top + 1,
			 w->stage_top + rows < k ? w->stage_top + rows : k, k);
		attroff(A_DIM);
	}
}

static const char *state_text(const sc_rung_info *ri, char *buf, size_t size)
{
	switch (ri->state) {
	case SC_RS_RUNNING:
		if (ri->rung == SC_RUNG_GUESS)
			snprintf(buf, size, "running %d/%d %.0fs", ri->parts_done, ri->parts,
				 ri->seconds);
		else
			snprintf(buf, size, "running %.0fs", ri->seconds);
		break;
	case SC_RS_DONE:
		snprintf(buf, size, "done %.1fs", ri->seconds);
		break;
	case SC_RS_STOPPED:
		snprintf(buf, size, "time limit %.0fs", ri->seconds);
		break;
	default:
		snprintf(buf, size, "%s", sc_rung_state_name(ri->state));
	}
	return buf;
}

/* The ladder from row y: one row per rung, its state, value, LB/UB and a bar
 * of LB/UB so the closing gap shows. */
static void ladder_panel(const wb *w, int y, int h, int cols)
{
	double ub = fmin(w->best, sc_costs_objective(w->c));
	attron(A_BOLD);
	mvprintw(y, 0, "ladder of lower bounds%s", w->ladder ? "" : "  (l runs it)");
	attroff(A_BOLD);
	if (h < 2)
		return;
	mvprintw(y + 1, 2, "%-11s %-17s %11s %7s", "rung", "state", "value", "LB/UB");
	int barx = 52, barw = cols - barx - 2;
	int row = y + 2;
	for (int r = 0; r < SC_RUNG_COUNT + 1 && row < y + h; r++, row++) {
		sc_rung_info ri = {.rung = (sc_rung)(r < SC_RUNG_COUNT ? r : 0)};
		char st[40], v[32], ratio[16];
		const char *name;
		if (r == SC_RUNG_COUNT) {
			/* the exact DP over ideals, when the search was it */
			name = "exact DP";
			if (!w->best_optimal || strcmp(w->best_from, "exact MIP") == 0) {
				mvprintw(row, 2, "%-11s %-17s", name, w->search >= 0 ? "if it applies" : "-");
				continue;
			}
			ri.state = SC_RS_DONE;
			ri.value = w->best;
			snprintf(st, sizeof st, "proved optimal");
		} else {
			name = sc_rung_name((sc_rung)r);
			if (w->ladder)
				sc_ladder_info(w->ladder, (sc_rung)r, &ri);
			else if (r == SC_RUNG_SIMPLE)
				ri.state = SC_RS_DONE, ri.value = w->simple;
			else
				ri.state = SC_RS_WAITING, ri.value = NAN;
			if (r == SC_RUNG_SIMPLE)
				snprintf(st, sizeof st, "done");
			else
				state_text(&ri, st, sizeof st);
		}
		bool known = ri.state != SC_RS_WAITING && ri.state != SC_RS_OFF && isfinite(ri.value);
		double q = known && ub > 0 && isfinite(ub) ? ri.value / ub : NAN;
		snprintf(ratio, sizeof ratio, isfinite(q) ? "%.4f" : "-", q);
		if (ri.state == SC_RS_FAILED)
			on(w, PAIR_BOTTLENECK, A_BOLD);
		mvprintw(row, 2, "%-11s %-17.17s %11s %7s", name, st,
			 known ? ui_num(ri.value, v, sizeof v) : "-", ratio);
		if (ri.state == SC_RS_FAILED)
			off(w, PAIR_BOTTLENECK, A_BOLD);
		if (barw > 6 && isfinite(q)) {
			int len = (int)lround(fmin(q, 1) * barw);
			move(row, barx);
			on(w, q >= 1 - 1e-9 ? PAIR_GOOD : PAIR_DIM, 0);
			for (int j = 0; j < barw; j++)
				addch(j < len ? '#' : '.');
			off(w, q >= 1 - 1e-9 ? PAIR_GOOD : PAIR_DIM, 0);
		}
	}
}

static void search_panel(const wb *w, int y, int h, int cols)
{
	attron(A_BOLD);
	mvprintw(y, 0, "search");
	attroff(A_BOLD);
	if (h < 2)
		return;
	const sc_job_info *ji = &w->search_info;
	char b[32];
	if (w->search < 0) {
		mvprintw(y + 1, 2, "none yet  (s searches, r refines from the current partition)");
		return;
	}
	char rate[24] = "-";
	if (ji->elapsed >= 0.05)
		snprintf(rate, sizeof rate, "%.0f", ji->search.evals / ji->elapsed);
	mvprintw(y + 1, 2, "%-12s %-9s %9ld evals %9s/s  best %s  %.1fs", w->search_method,
		 sc_job_finished(ji->state) ? sc_job_state_name(ji->state) : ji->search.phase,
		 ji->search.evals, rate, ui_num(ji->search.best, b, sizeof b), ji->elapsed);
	if (h < 3 || w->nhist < 2)
		return;
	/* best so far over time: one column per step, lower is better */
	int width = cols - 4 < WB_HISTORY ? cols - 4 : WB_HISTORY;
	double lo = INFINITY, hi = 0;
	for (int i = 0; i < w->nhist; i++) {
		lo = fmin(lo, w->hist_v[i]);
		hi = fmax(hi, w->hist_v[i]);
	}
	static const char *const bars[] = {"_", ".", "-", "=", "#"};
	move(y + 2, 2);
	printw("best over time ");
	int n = w->nhist < width - 16 ? w->nhist : width - 16;
	for (int i = w->nhist - n; i < w->nhist; i++) {
		int level = hi > lo ? (int)lround((w->hist_v[i] - lo) / (hi - lo) * 4) : 0;
		addstr(bars[level]);
	}
}

static void help_screen(int rows, int cols)
{
	static const char *const lines[] = {
	    "keys",
	    "  ?        this help (any key closes it)",
	    "  q        quit (asks when the partition has unsaved edits)",
	    "  s        start the default search; r refine from the current partition",
	    "  a        adopt the best partition found as the current one",
	    "  l        run the ladder of lower bounds; x cancel running jobs",
	    "  1 2 3    overview, node browser, quotient view; Tab switches panes",
	    "  j k, arrows   move the selection",
	    "  < >      move the selected op (and its group) one stage earlier or later",
	    "  [ ]      the same, taking along every op that must follow",
	    "  S        sort the node browser by stage, work or name",
	    "  r        refine from the current (edited) partition",
	    "  u U      undo, redo;  w save the partition;  L load one",
	    "  e        export the stage graph as an image (png, svg, pdf, ...)",
	    "  /        filter ops by name (node browser)",
	    "  o        settings: k, bandwidth, memory, policy, time budgets",
	    "  t        the tour: the practitioner's dilemma on this graph",
	    "",
	    "The bottleneck stage is marked *, a stage over a hard memory limit !.",
	    "gap = best partition / best lower bound - 1: how much better the",
	    "optimum could still be.",
	};
	int n = (int)(sizeof lines / sizeof *lines);
	int w = 74 < cols - 2 ? 74 : cols - 2, h = n + 2 < rows - 1 ? n + 2 : rows - 1;
	int y0 = (rows - h) / 2, x0 = (cols - w) / 2;
	for (int i = 0; i < h; i++) {
		move(y0 + i, x0);
		for (int j = 0; j < w; j++)
			addch(' ');
	}
	for (int i = 0; i < n && i < h - 2; i++)
		mvprintw(y0 + 1 + i, x0 + 2, "%.*s", w - 3, lines[i]);
	attron(A_REVERSE);
	mvprintw(y0, x0, "%-*.*s", w, w, " stagecut help");
	attroff(A_REVERSE);
}

static void box_at(int y0, int x0, int h, int wd, const char *title)
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

static const char *const setting_names[] = {"k (stages)", "bandwidth (bytes/time)",
					    "memory per stage (bytes)", "memory policy",
					    "search time limit (s)", "time per ladder rung (s)"};

static void settings_form(const wb *w, int rows, int cols)
{
	int n = 6, wd = 64 < cols - 2 ? 64 : cols - 2, h = n + 5;
	int y0 = (rows - h) / 2, x0 = (cols - wd) / 2;
	box_at(y0, x0, h, wd, " settings  (j/k select, Enter change, Esc or o close)");
	char b[32];
	for (int i = 0; i < n; i++) {
		char v[48];
		switch (i) {
		case 0: snprintf(v, sizeof v, "%d", w->set.k); break;
		case 1: snprintf(v, sizeof v, "%s", ui_num(w->set.bandwidth, b, sizeof b)); break;
		case 2: snprintf(v, sizeof v, "%s", ui_num(w->set.memory, b, sizeof b)); break;
		case 3: snprintf(v, sizeof v, "%s", sc_mem_policy_name(w->set.policy)); break;
		case 4: snprintf(v, sizeof v, "%.0f", w->search_time); break;
		default: snprintf(v, sizeof v, "%.0f", w->rung_time); break;
		}
		if (i == w->settings_sel)
			attron(A_REVERSE);
		mvprintw(y0 + 2 + i, x0 + 2, "%-28s %-20s", setting_names[i], v);
		if (i == w->settings_sel)
			attroff(A_REVERSE);
	}
	mvprintw(y0 + h - 2, x0 + 2, "%.*s", wd - 4,
		 "a change restarts the search and the ladder for the new problem");
}

/* The tour: the practitioner's dilemma on the loaded graph, step by step. */
static void tour_box(const wb *w, int rows, int cols)
{
	char b1[32], b2[32], l1[200], l2[200], l3[200];
	int at;
	double bn = sc_costs_bottleneck(w->c, &at);
	double ub = fmin(bn, w->best);
	sc_rung_info ri = {0};
	int step = w->tour;
	const char *title = "";
	l3[0] = '\0';
	if (step >= 2 && step <= 4 && w->ladder)
		sc_ladder_info(w->ladder, (sc_rung)(step - 1), &ri);
	double prev_gap = NAN;
	if (step >= 2 && step <= 4) {
		/* the gap before this rung: the best of the rungs below it */
		double lb = w->simple;
		for (int r = SC_RUNG_BOTTLENECK; r < step - 1 && w->ladder; r++) {
			sc_rung_info rj;
			sc_ladder_info(w->ladder, (sc_rung)r, &rj);
			if (rj.state >= SC_RS_DONE && rj.value > lb)
				lb = rj.value;
		}
		prev_gap = ub / lb - 1;
	}
	bool ready = ri.state == SC_RS_DONE || ri.state == SC_RS_STOPPED;
	switch (step) {
	case 1:
		title = " tour 1/5: the practitioner's dilemma";
		snprintf(l1, sizeof l1, "This partition's slowest stage is %d, costing %s. Is that good enough?",
			 at + 1, ui_num(bn, b1, sizeof b1));
		snprintf(l2, sizeof l2, "simple bound %s: some stage does >= total work / k, and a group is "
			 "indivisible.", ui_num(w->simple, b2, sizeof b2));
		snprintf(l3, sizeof l3, "So the optimum could still be up to %.1f%% faster. Each rung proves more.",
			 100 * (ub / w->simple - 1));
		break;
	case 2:
	case 3:
	case 4:
		title = step == 2 ? " tour 2/5: bottleneck (000 section 3.2)"
		      : step == 3 ? " tour 3/5: bottleneck-guess (000 section 3.3)"
				  : " tour 4/5: exact MIP (000 Figure 3)";
		snprintf(l1, sizeof l1, "%s",
			 step == 2 ? "Assumes one stage does >= the simple bound's work, with all stages before and"
			 : step == 3 ? "Also guesses that stage's position j, and averages the stages before and"
				     : "Assumes nothing: every op's stage is a variable, started from the best");
		snprintf(l2, sizeof l2, "%s",
			 step == 2 ? "after it merged into two superblocks; minimises that stage's cost (a MIP)."
			 : step == 3 ? "after it: k MIPs, the bound is the smallest. Tensors inside superblocks are free."
				     : "partition found and the other rungs as a floor. Optimal means proven.");
		if (!w->ladder)
			snprintf(l3, sizeof l3, "The ladder has not run yet: press l.");
		else if (!ready)
			snprintf(l3, sizeof l3, "Running... (%s so far)", ui_num(ri.value, b1, sizeof b1));
		else
			snprintf(l3, sizeof l3, "It proves %s: the gap goes from %.1f%% to %.1f%%%s.",
				 ui_num(ri.value, b1, sizeof b1), 100 * prev_gap,
				 100 * fmax(0, ub / ri.value - 1),
				 ri.state == SC_RS_STOPPED ? " (stopped by its time limit)" : "");
		break;
	default: {
		const char *by;
		double lb = wb_lower_bound(w, &by);
		double gap = fmax(0, ub / lb - 1);
		title = " tour 5/5: the answer";
		snprintf(l1, sizeof l1, "Best partition %s, best lower bound %s (%s): certified gap %.2f%%.",
			 ui_num(ub, b1, sizeof b1), ui_num(lb, b2, sizeof b2), by, 100 * gap);
		snprintf(l2, sizeof l2, "%s", gap < 0.01 ? "The partition is (within 1%) optimal: stop searching."
			 : "Search longer (s), refine by hand (2, < >), or let the exact MIP run longer (o).");
		break;
	}
	}
	int wd = cols < 100 ? cols : 100, h = 6;
	int y0 = rows - h - 1, x0 = (cols - wd) / 2;
	box_at(y0, x0, h, wd, title);
	mvprintw(y0 + 1, x0 + 1, "%.*s", wd - 2, l1);
	mvprintw(y0 + 2, x0 + 1, "%.*s", wd - 2, l2);
	mvprintw(y0 + 3, x0 + 1, "%.*s", wd - 2, l3);
	attron(A_DIM);
	mvprintw(y0 + 5, x0 + 1, "%.*s", wd - 2, "t or Enter: next   Esc: end the tour");
	attroff(A_DIM);
}

void wb_draw(wb *w)
{
	int rows, cols;
	getmaxyx(stdscr, rows, cols);
	erase();
	header(w, cols);
	int y = 5;
	int foot = rows - 1;
	if (w->view == WB_OVERVIEW) {
		/* ladder and search want 7 + 3 rows; the table gets the rest */
		int lower = 11;
		int table = foot - y - lower;
		if (table < 3)
			table = 3;
		if (table > w->set.k + 1)
			table = w->set.k + 1;
		stage_table(w, y - 1, table, cols);
		y += table;
		ladder_panel(w, y, foot - y - 4 > 7 ? 7 : foot - y - 4, cols);
		y += 8;
		if (y < foot - 1)
			search_panel(w, y, foot - y, cols);
	} else if (w->view == WB_NODES) {
		wb_nodes_draw(w, y - 1, foot - y + 1, cols);
	} else {
		wb_quotient_draw(w, y - 1, foot - y + 1, cols);
	}
	if (w->tour)
		tour_box(w, rows, cols);
	if (w->settings)
		settings_form(w, rows, cols);
	if (w->help)
		help_screen(rows, cols);
	attron(A_REVERSE);
	const char *keys = w->view == WB_NODES
			       ? " < > move op  [ ] with dependents  u undo  U redo  / filter  S sort  1 overview  ? help"
			       : " ? help  q quit  s search  l ladder  x cancel  a adopt  1/2/3 views  o settings  t tour";
	bool fresh = w->msg[0] && wb_now() - w->msg_t < 8;
	mvprintw(rows - 1, 0, "%-*.*s", cols, cols, fresh ? w->msg : keys);
	attroff(A_REVERSE);
	refresh();
}
