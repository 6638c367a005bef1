/*
 * wb_draw.c - the workbench's frame (header, footer, the modals over the
 * view) and its first view, the overview: the stage table, the ladder of
 * lower bounds and the search panel.  Everything is drawn from the state in
 * wb.h on every redraw (curses sends only what changed), so a screen is a
 * pure function of the state and the terminal size.  A training graph adds
 * to the header its schedule (under GPipe the GPipe objective replaces the
 * bottleneck), to the stage table each stage's cost by pass, and wraps a
 * status message too long for one row (the editor's refusals name an edge
 * and a rule).  The other views are
 * wb_nodes.c and wb_quotient.c; the modals are in wb_keys.c (help),
 * wb_settings.c, wb_tour.c and wb_lineedit.c (prompts).
 *
 * Layer: a view (layer 4 in wb.h).  It calls the state, the key table
 * (footers) and the prompt's ops (wb_lineedit.c, to know when it is open);
 * wb_quotient.c, wb_settings.c and wb_tour.c call its wb_lower_bound and
 * wb_box, and the dispatcher names wb_overview_view.
 */
#define _POSIX_C_SOURCE 200809L
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/clock.h"
#include "tui/ui.h"
#include "tui/wb/wb.h"
#include "viz/quotient.h"

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

/* The header's third row on a training graph: as on inference, but the
 * objective is the schedule's (under GPipe the largest forward plus the
 * largest backward stage cost, with its two terms when the row has room),
 * and the row never runs past the screen. */
static void training_objective_row(const wb *w, double lb, const char *by, int cols)
{
	char b1[32], b2[32], b3[32], terms[96] = "", rest[256] = "", gaptext[32] = "";
	double obj = sc_costs_bottleneck(w->c, NULL);
	bool gpipe = w->set.schedule == SC_SCHEDULE_GPIPE;
	if (gpipe) {
		int fa, ba;
		obj = sc_costs_gpipe(w->c, &fa, &ba);
		snprintf(terms, sizeof terms, " = fw %s + bw %s",
		         ui_num(fmax(0, w->c->st[fa].cost_fw), b2, sizeof b2),
		         ui_num(fmax(0, w->c->st[ba].cost_bw), b3, sizeof b3));
	}
	bool better = isfinite(w->best) && w->best < obj * (1 - 1e-12);
	char best[96] = "";
	if (better)
		snprintf(best, sizeof best, "  best %s", ui_num(w->best, b2, sizeof b2));
	ui_num(lb, b3, sizeof b3);
	snprintf(rest, sizeof rest, "%s%s%s%s  lower bound %s (%s)", best, better ? " (" : "",
	         better ? w->best_from : "", better ? ")" : "", b3, by);
	double ub = fmin(obj, w->best), gap = NAN;
	if (isfinite(ub) && lb > 0) {
		gap = ub / lb - 1;
		if (gap < 1e-9)
			gap = 0;
		snprintf(gaptext, sizeof gaptext, "  gap %.2f%%", 100 * gap);
	}
	const char *name = gpipe ? "GPipe objective" : "bottleneck";
	ui_num(obj, b1, sizeof b1);
	char row[512];
	/* the terms only where everything else still fits */
	int used = snprintf(row, sizeof row, "%s %s%s%s", name, b1, terms, rest);
	if (used + (int)strlen(gaptext) > cols - 1)
		used = snprintf(row, sizeof row, "%s %s%s", name, b1, rest);
	/* and then without saying where the numbers came from */
	if (used + (int)strlen(gaptext) > cols - 1)
		used = snprintf(row, sizeof row, "%s %s%s  lower bound %s", name, b1, best, b3);
	mvprintw(2, 0, "%.*s", cols - 1, row);
	if (gaptext[0] && used + (int)strlen(gaptext) <= cols - 1) {
		on(w, gap == 0 ? PAIR_GOOD : PAIR_TITLE, A_BOLD);
		printw("%s", gaptext);
		off(w, gap == 0 ? PAIR_GOOD : PAIR_TITLE, A_BOLD);
	}
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
	snprintf(right, sizeof right, jobs ? "%d job%s running" : "idle", jobs,
	         jobs == 1 ? "" : "s");
	if ((int)strlen(right) + 2 < cols - (int)strlen(w->g->name) - 10)
		mvprintw(0, cols - (int)strlen(right) - 1, "%s", right);
	mvprintw(1, 0, "%d ops  %d edges  k %d  B %s  M %s (%s)", w->g->n, w->g->m, s->k,
	         ui_num(s->bandwidth, b1, sizeof b1), ui_num(s->memory, b2, sizeof b2),
	         sc_mem_policy_name(s->policy));
	const char *by;
	double lb = wb_lower_bound(w, &by);
	if (sc_graph_is_training(w->g)) {
		/* what kind of graph, and the schedule whose objective row 2
		 * shows, where the row has room */
		char tag[64];
		int len = snprintf(tag, sizeof tag, "  training, %s",
		                   sc_quotient_schedule_name(s->schedule));
		if (getcurx(stdscr) + len <= cols - 1)
			printw("%s", tag);
		training_objective_row(w, lb, by, cols);
		attron(A_DIM);
		mvprintw(3, 0, "%.*s", cols - 1, w->origin);
		attroff(A_DIM);
		return;
	}
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

/* x formatted as ui_num does, in at most width characters: with fewer
 * decimals when ui_num's are too many (a narrow training table). */
static const char *fit_num(double x, int width, char *buf, size_t size)
{
	ui_num(x, buf, size);
	for (int d = 3; d >= 0 && (int)strlen(buf) > width; d--)
		snprintf(buf, size, isfinite(x) && fabs(x) < 1e7 ? "%.*f" : "%.*e", d, x);
	return buf;
}

/* The stage table of a training graph: the inference table's columns and
 * then each stage's cost split by pass, fw and bw (cost.h: cost_fw +
 * cost_bw = cost).  Nine columns need 98 cells at the inference table's
 * width; on a narrower screen the numbers get fewer cells, and fewer
 * decimals when they need it, so that 80 columns hold the table. */
static void training_stage_table(wb *w, int y, int rows, int cols, int at, double bn)
{
	int k = w->set.k;
	bool hard = w->set.policy == SC_MEM_HARD;
	int nw = (cols - 14) / 7 - 1;
	nw = nw > 11 ? 11 : nw < 7 ? 7 : nw;
	int width = 14 + 7 * (nw + 1);
	attron(A_BOLD);
	mvprintw(y, 0, "  %5s %6s %*s %*s %*s %*s %*s %*s %*s", "stage", "ops", nw, "work", nw,
	         "io in", nw, "io out", nw, "overflow", nw, "cost", nw, "fw", nw, "bw");
	attroff(A_BOLD);
	int barx = width + 4, barw = cols - barx - 1;
	for (int r = 0; r < rows && w->stage_top + r < k; r++) {
		int i = w->stage_top + r;
		const sc_stage_cost *st = &w->c->st[i];
		char a[32], b[32], c[32], d[32], e[32], f[32], g[32];
		bool sel = w->view == &wb_overview_view && w->pane == 0 && i == w->stage_sel;
		if (i == at)
			on(w, PAIR_BOTTLENECK, A_BOLD);
		if (sel)
			attron(A_REVERSE);
		mvprintw(y + 1 + r, 0, "%c%c%5d %6d %*s %*s %*s %*s %*s %*s %*s",
		         i == at ? '*' : ' ', hard && st->over_memory ? '!' : ' ', i + 1, st->ops,
		         nw, fit_num(st->work, nw, a, sizeof a), nw,
		         fit_num(st->io_in, nw, b, sizeof b), nw,
		         fit_num(st->io_out, nw, c, sizeof c), nw,
		         fit_num(st->overflow, nw, d, sizeof d), nw,
		         fit_num(st->cost, nw, e, sizeof e), nw,
		         fit_num(fmax(0, st->cost_fw), nw, f, sizeof f), nw,
		         fit_num(fmax(0, st->cost_bw), nw, g, sizeof g));
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
		mvprintw(y, cols - 22 > width ? width + 1 : (cols - 22 > 0 ? cols - 22 : 0),
		         " stages %d-%d of %d ", w->stage_top + 1,
		         w->stage_top + rows < k ? w->stage_top + rows : k, k);
		attroff(A_DIM);
	}
}

/* The stage table from row y, at most h rows (title included). */
static void stage_table(wb *w, int y, int h, int cols)
{
	int k = w->set.k, at;
	double bn = sc_costs_bottleneck(w->c, &at);
	bool hard = w->set.policy == SC_MEM_HARD;
	if (sc_graph_is_training(w->g)) {
		int rows = h - 1;
		if (rows < 1)
			return;
		if (w->stage_sel < w->stage_top)
			w->stage_top = w->stage_sel;
		if (w->stage_sel >= w->stage_top + rows)
			w->stage_top = w->stage_sel - rows + 1;
		if (w->stage_top > k - rows)
			w->stage_top = k - rows > 0 ? k - rows : 0;
		training_stage_table(w, y, rows, cols, at, bn);
		return;
	}
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
		bool sel = w->view == &wb_overview_view && w->pane == 0 && i == w->stage_sel;
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
		mvprintw(y, cols - 22 > 64 ? 64 : cols - 22, " stages %d-%d of %d ",
		         w->stage_top + 1, w->stage_top + rows < k ? w->stage_top + rows : k, k);
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
	case SC_RS_DONE: snprintf(buf, size, "done %.1fs", ri->seconds); break;
	case SC_RS_STOPPED: snprintf(buf, size, "time limit %.0fs", ri->seconds); break;
	default: snprintf(buf, size, "%s", sc_rung_state_name(ri->state));
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
				mvprintw(row, 2, "%-11s %-17s", name,
				         w->search >= 0 ? "if it applies" : "-");
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
		bool known =
		        ri.state != SC_RS_WAITING && ri.state != SC_RS_OFF && isfinite(ri.value);
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
	if (h >= 3 && ji->search.layers > 0) {
		/* the exact DP over ideals: how far it is, so a long run is never silent */
		mvprintw(y + 2, 2, "ideals %ld made, %ld done   layers %d/%d", ji->search.ideals,
		         ji->search.ideals_done, ji->search.layers_done, ji->search.layers);
		y++;
		h--;
	}
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

/* The overview from row y (the stage table's title), h rows. */
static void overview_draw(wb *w, int y, int h, int cols)
{
	int foot = y + h;
	y++;
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
}

/* j, k and the arrows move the stage selection in the generic actions
 * (wb_keys.c), so the overview has no keys of its own. */
const wb_view_ops wb_overview_view = {
        .name = "overview", .in = WB_IN_OVERVIEW, .footer = WB_FOOT_MAIN, .draw = overview_draw};

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
		w->modal[i]->draw(w, rows, cols);
	/* a prompt on top shows the cursor at the end of its line */
	curs_set(wb_modal_top(w) == &wb_prompt_modal);
	refresh();
}
