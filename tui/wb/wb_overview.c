/*
 * wb_overview.c - the overview (view 1): the stage table, the ladder of
 * lower bounds and the search panel, drawn from the state in wb.h on every
 * redraw.
 *
 * The stage table has per stage its ops, work, io in, io out, overflow and
 * cost (a training graph adds each stage's cost by pass, fw and bw), the
 * parameter bytes it holds against the memory limit, and a bar of its
 * parts (work, io, overflow) on a scale that puts the lower bound at three
 * quarters at most, with a mark there: a balanced partition's bars end near
 * the mark instead of all looking full.  The columns narrow to fit 80
 * cells.  The bottleneck row is marked * in a column of its own, outside
 * the cursor's reverse video (without colours the cursor must not read as
 * the bottleneck), and is always shown: pinned beside the scrolled window
 * when it is outside.  A legend row under the table gives the units, the
 * bars' parts and the window.
 *
 * The ladder's panel is wb_ladder.c's.  A search waiting for a core says
 * it is queued and where it is in the line.
 *
 * Layer: a view (layer 4 in wb.h).  It calls the state, the jobs,
 * wb_ladder.c and wb_draw.c (wb_attr, wb_short_num); the dispatcher names
 * wb_overview_view.
 */
#define _POSIX_C_SOURCE 200809L
#include "tui/wb/wb_overview.h"

#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/ui.h"
#include "tui/wb/wb_devices.h"
#include "tui/wb/wb_draw.h"
#include "tui/wb/wb_fit.h"
#include "tui/wb/wb_jobs.h"
#include "tui/wb/wb_keytab.h"
#include "tui/wb/wb_ladder.h"

static void on(const wb *w, int pair, attr_t fallback)
{
	wb_attr(w, pair, fallback, true);
}

static void off(const wb *w, int pair, attr_t fallback)
{
	wb_attr(w, pair, fallback, false);
}

/* "1st", "2nd", "3rd", "4th", ... */
static const char *ordinal(int n, char *buf, size_t size)
{
	const char *suffix = n % 100 >= 11 && n % 100 <= 13 ? "th"
	                     : n % 10 == 1                  ? "st"
	                     : n % 10 == 2                  ? "nd"
	                     : n % 10 == 3                  ? "rd"
	                                                    : "th";
	snprintf(buf, size, "%d%s", n, suffix);
	return buf;
}

/* x formatted as ui_num does, in at most width characters: with fewer
 * decimals when ui_num's are too many (a narrow table). */
static const char *fit_num(double x, int width, char *buf, size_t size)
{
	ui_num(x, buf, size);
	for (int d = 3; d >= 0 && (int)strlen(buf) > width; d--)
		snprintf(buf, size, isfinite(x) && fabs(x) < 1e7 ? "%.*f" : "%.*e", d, x);
	return buf;
}

/* How the stage table fits the screen: each number in nw cells (11 where
 * they fit), the param column in pw (with the limit M when there is one
 * and room; 0: no column), then the bars from barx, barw cells (0: none).
 * A training graph has two numbers more (fw, bw). */
typedef struct table_fit {
	int nw, pw;
	bool limit;
	int width, barx, barw;
} table_fit;

/* The device column's width: "accel" and "CPU", or a fleet's names (at
 * most 8 characters shown). */
static int dev_width(const wb *w)
{
	int width = 5;
	for (int s = 0; w->set.fleet && s < sc_settings_stages(&w->set); s++) {
		int len = (int)strlen(wb_stage_device(w, s));
		width = len > width ? len : width;
	}
	return width < 8 ? width : 8;
}

static table_fit fit_table(const wb *w, int cols)
{
	/* the fixed columns: marks, stage, ops (and the device with devices) */
	int fixed = 14 + (w->kind ? 1 + dev_width(w) : 0);
	int nnum = sc_graph_is_training(w->g) ? 7 : 5, room = cols - 1 - fixed;
	bool finite = isfinite(w->set.memory);
	table_fit t = {.nw = 7, .pw = 0};
	/* the numbers first at full width, then the param column, then the bars */
	const int pws[] = {finite ? 13 : 10, 7};
	bool found = false;
	for (int p = 0; p < 2 && !found; p++)
		for (int nw = 11; nw >= 7 && !found; nw--)
			if (nnum * (nw + 1) + pws[p] + 1 <= room) {
				t.nw = nw;
				t.pw = pws[p];
				t.limit = finite && p == 0;
				found = true;
			}
	t.width = fixed + nnum * (t.nw + 1) + (t.pw ? t.pw + 1 : 0);
	t.barx = t.width + 2;
	t.barw = cols - 1 - t.barx;
	if (t.barw < 10)
		t.barw = 0;
	return t;
}

/* Whether stage s stays on the table whatever the window: the bottleneck,
 * and a CPU stage (a device of its own: one of few, never hidden). */
static bool always_shown(const wb *w, int s, int at)
{
	return s == at || wb_cpu_stage(w, s);
}

/* The overview's own state (its view's, wb_view_state). */
typedef struct overview {
	int top; /* the first stage row shown */
} overview;

static void *overview_init(wb *w)
{
	(void)w;
	return calloc(1, sizeof(overview));
}

static void overview_fini(wb *w, void *state)
{
	(void)w;
	free(state);
}

/* The stages the table shows in rows rows: the window around the selected
 * stage, and those always shown (always_shown) in order beside it when
 * they are outside it.  Returns their number; *win_first and *win_last get
 * the window's first and last stage, and pinned (room for rows) the stages
 * shown outside it, *npinned of them. */
static int shown_stages(wb *w, int rows, int at, int *list, int *win_first, int *win_last,
                        int *pinned, int *npinned)
{
	*npinned = 0;
	int k = sc_settings_stages(&w->set);
	overview *ov = wb_view_state(w, &wb_overview_view);
	if (w->stage_sel < ov->top)
		ov->top = w->stage_sel;
	if (w->stage_sel >= ov->top + rows)
		ov->top = w->stage_sel - rows + 1;
	if (ov->top > k - rows)
		ov->top = k - rows > 0 ? k - rows : 0;
	int top = ov->top, win = rows, n = 0;
	if (k > rows && rows >= 2) {
		/* a window shorter by the stages it must leave room for */
		for (;;) {
			top = ov->top;
			if (w->stage_sel >= top + win)
				top = w->stage_sel - win + 1;
			if (top > k - win)
				top = k - win;
			int out = 0;
			for (int i = 0; i < k; i++)
				out += (i < top || i >= top + win) && always_shown(w, i, at);
			if (win + out <= rows || win == 1)
				break;
			win--;
		}
	}
	*win_first = top;
	*win_last = (top + win < k ? top + win : k) - 1;
	for (int i = 0; i < k && n < rows; i++) {
		bool in = i >= top && i < top + win;
		if (!in && !always_shown(w, i, at))
			continue;
		if (!in)
			pinned[(*npinned)++] = i;
		list[n++] = i;
	}
	return n;
}

/* A stage's bar from column x, width cells on a scale 0..top: work (=),
 * then io in and out (~), then overflow (+), and | at the lower bound (lb
 * <= 0: none); the bottleneck's in its colour, with the word after it
 * where the bars have room for it (every bar keeps the same scale). */
static void stage_bar(const wb *w, const sc_stage_cost *st, bool bn, int y, int x, int width,
                      double top, double lb)
{
	int room = width >= 30 ? 11 : 0, cells = width - room, word = bn ? room : 0;
	int e1 = (int)lround(st->work / top * cells);
	int e2 = (int)lround((st->work + st->io_in + st->io_out) / top * cells);
	int e3 = (int)lround(st->cost / top * cells);
	int mark = lb > 0 ? (int)lround(lb / top * cells) : -1;
	if (mark >= cells)
		mark = cells - 1;
	int end = e3 > mark + 1 ? e3 : mark + 1;
	move(y, x);
	if (bn)
		on(w, WB_PAIR_BOTTLENECK, A_BOLD);
	for (int j = 0; j < end && j < cells; j++) {
		if (j == mark) {
			if (bn)
				off(w, WB_PAIR_BOTTLENECK, A_BOLD);
			on(w, WB_PAIR_GOOD, A_BOLD);
			addch('|');
			off(w, WB_PAIR_GOOD, A_BOLD);
			if (bn)
				on(w, WB_PAIR_BOTTLENECK, A_BOLD);
			continue;
		}
		addch(j < e1 ? '=' : j < e2 ? '~' : j < e3 ? '+' : ' ');
	}
	if (word)
		printw(" bottleneck");
	if (bn)
		off(w, WB_PAIR_BOTTLENECK, A_BOLD);
}

/* The stage table from row y, at most h rows (heading included), then its
 * legend on row y + h: per stage ops, work, io in, io out, overflow, cost
 * (on a training graph also fw and bw: cost.h, cost_fw + cost_bw = cost),
 * the parameter bytes it holds against the limit M, and a bar of its parts
 * against the lower bound.  The bottleneck's row is marked * in a column
 * of its own, outside the cursor's reverse video, and always shown. */
static void stage_table(wb *w, int y, int h, int cols)
{
	enum { MAX_ROWS = 256 };
	int k = sc_settings_stages(&w->set), at;
	double bn = sc_costs_bottleneck(w->c, &at);
	bool hard = w->set.policy == SC_MEM_HARD, training = sc_graph_is_training(w->g);
	table_fit t = fit_table(w, cols);
	int nw = t.nw;
	attron(A_BOLD);
	/* with CPU stages a device column; a CPU stage's work is its CPU time */
	mvprintw(y, 0, "  %5s", "stage");
	if (w->kind)
		printw(" %-*s", dev_width(w), "dev");
	printw(" %6s %*s %*s %*s %*s %*s", "ops", nw, "work", nw, "io in", nw, "io out", nw,
	       "overflow", nw, "cost");
	if (training)
		printw(" %*s %*s", nw, "fw", nw, "bw");
	if (t.pw)
		printw(" %*s", t.pw,
		       w->g->acts ? (t.limit ? "mem/M" : "mem") : (t.limit ? "param/M" : "param"));
	attroff(A_BOLD);
	const char *unit = w->g->time_unit ? w->g->time_unit : "time units";
	if (t.barw >= (int)strlen(unit) + 2)
		mvprintw(y, t.barx, "[%s]", unit);
	int rows = h - 1 < MAX_ROWS ? h - 1 : MAX_ROWS;
	if (rows < 1)
		return;
	int list[MAX_ROWS], pinned[MAX_ROWS], npinned, first, last;
	int n = shown_stages(w, rows, at, list, &first, &last, pinned, &npinned);
	/* the bars' scale: the lower bound at three quarters of it at most, so
	 * that a balanced partition's bars end near the mark, not all full;
	 * under GPipe the bound is not one on a stage's cost: no mark */
	const char *by;
	double lb = w->set.schedule == SC_SCHEDULE_GPIPE && training ? 0 : wb_lower_bound(w, &by);
	if (!isfinite(lb))
		lb = 0; /* no partition fits the memory: no bound to mark */
	double top = fmax(bn, lb * 4 / 3);
	for (int r = 0; r < n; r++) {
		int i = list[r], row = y + 1 + r;
		const sc_stage_cost *st = &w->c->st[i];
		char a[32], b[32], c[32], d[32], e[32], f[32], g[32];
		bool sel = w->view == &wb_overview_view && w->pane == 0 && i == w->stage_sel;
		/* the marks stay outside the cursor: * is never the cursor's; every
		 * stage tied with the bottleneck is marked */
		bool tied = i == at || sc_cost_at_bottleneck(st->cost, bn);
		if (tied)
			on(w, WB_PAIR_BOTTLENECK, A_BOLD);
		mvprintw(row, 0, "%c%c", tied ? '*' : ' ', hard && st->over_memory ? '!' : ' ');
		if (sel)
			attron(A_REVERSE);
		printw("%5d", i + 1);
		if (w->kind)
			printw(" %-*.*s", dev_width(w), dev_width(w), wb_stage_device(w, i));
		printw(" %6d %*s %*s %*s %*s %*s", st->ops, nw, fit_num(st->work, nw, a, sizeof a),
		       nw, fit_num(st->io_in, nw, b, sizeof b), nw,
		       fit_num(st->io_out, nw, c, sizeof c), nw,
		       fit_num(st->overflow, nw, d, sizeof d), nw,
		       fit_num(st->cost, nw, e, sizeof e));
		if (training)
			printw(" %*s %*s", nw, fit_num(fmax(0, st->cost_fw), nw, f, sizeof f), nw,
			       fit_num(fmax(0, st->cost_bw), nw, g, sizeof g));
		if (t.pw) {
			char p[48];
			/* what the stage holds: its parameters, or with activation
			 * sizes its whole memory (activations.h) */
			wb_short_num(st->need, f, sizeof f);
			if (t.limit && isfinite(sc_costs_stage_memory(w->c, i)))
				snprintf(p, sizeof p, "%s/%s", f,
				         wb_short_num(sc_costs_stage_memory(w->c, i), g, sizeof g));
			else
				snprintf(p, sizeof p, "%s", f);
			printw(" %*.*s", t.pw, t.pw, p);
		}
		if (sel)
			attroff(A_REVERSE);
		if (tied)
			off(w, WB_PAIR_BOTTLENECK, A_BOLD);
		if (t.barw && bn > 0 && isfinite(bn))
			stage_bar(w, st, tied, row, t.barx, t.barw, top, lb);
	}
	/* the legend: units, what the bars show, which stages are shown */
	char legend[160], scroll[64] = "";
	snprintf(legend, sizeof legend, "%s%s%s%s: bytes held%s",
	         t.barw >= (int)strlen(unit) + 2 ? "" : "times in ",
	         t.barw >= (int)strlen(unit) + 2 ? "" : unit,
	         t.barw >= (int)strlen(unit) + 2 ? "" : "; ", w->g->acts ? "mem" : "param",
	         t.limit ? " / limit M" : "");
	/* with activation sizes, what the selected stage holds, part by part
	 * (activations.h) */
	char parts[160] = "";
	if (w->g->acts && w->stage_sel >= 0 && w->stage_sel < k) {
		sc_mem_parts mp = sc_costs_memory_parts(w->c, w->stage_sel);
		char pa[16], pb[16], pc[16];
		snprintf(parts, sizeof parts,
		         "stage %d mem: params+state %s, stash %s x %d, peak %s", w->stage_sel + 1,
		         wb_short_num(mp.params + mp.grads + mp.optimizer, pa, sizeof pa),
		         wb_short_num(mp.stash, pb, sizeof pb), mp.in_flight,
		         wb_short_num(mp.working_peak, pc, sizeof pc));
	}
	const char *pieces[] = {
	        legend, t.barw ? "bars: = work  ~ io  + overflow  | lower bound" : "", parts};
	if (n < k) {
		/* the window, and the stages shown beside it (the bottleneck,
		 * CPU stages) */
		int len2 = first == last ? snprintf(scroll, sizeof scroll, "stage %d", first + 1)
		                         : snprintf(scroll, sizeof scroll, "stages %d-%d",
		                                    first + 1, last + 1);
		for (int i = 0; i < npinned && len2 < (int)sizeof scroll - 24; i++)
			len2 += snprintf(scroll + len2, sizeof scroll - (size_t)len2, "%s%d",
			                 i == 0 ? " and " : ", ", pinned[i] + 1);
		snprintf(scroll + len2, sizeof scroll - (size_t)len2, " of %d", k);
	}
	int sx = cols - 1 - (int)strlen(scroll), room = scroll[0] ? sx - 2 : cols - 1;
	attron(A_DIM);
	/* the bars' legend goes first, whole, when the window's text needs room */
	wb_lay_pieces(y + h, 2, room - 2, 1, "   ", pieces, 3);
	if (scroll[0] && sx > 0)
		mvprintw(y + h, sx, "%s", scroll);
	attroff(A_DIM);
}

static void search_panel(const wb *w, int y, int h, int cols)
{
	attron(A_BOLD);
	mvprintw(y, 0, "search");
	attroff(A_BOLD);
	if (h < 2)
		return;
	const sc_job_info *ji = &w->jobs->search_info;
	char b[32];
	if (w->jobs->search < 0) {
		mvprintw(y + 1, 2, "none yet  (s searches, r refines from the current partition)");
		return;
	}
	if (ji->state == SC_JOB_QUEUED) {
		/* waiting for a core (behind the engineer's other jobs: the
		 * ladder's pause for it, jobs.h): nothing has run, so no numbers */
		char what[128], why[64], place[48] = "";
		if (w->jobs->search_queue > 0)
			snprintf(place, sizeof place, ", %s in line",
			         ordinal(w->jobs->search_queue, b, sizeof b));
		snprintf(what, sizeof what, "%s queued%s: waiting for a core",
		         w->jobs->search_method, place);
		snprintf(why, sizeof why, "(%d job%s running; x cancels)", w->jobs->running,
		         w->jobs->running == 1 ? "" : "s");
		const char *pieces[] = {what, why};
		wb_lay_pieces(y + 1, 2, cols - 3, h - 1, " ", pieces, 2);
		return;
	}
	char rate[24] = "-";
	if (ji->elapsed >= 0.05)
		snprintf(rate, sizeof rate, "%.0f", ji->search.evals / ji->elapsed);
	/* nothing fits the hard memory limit: proven so by the exact DP, or
	 * only not found */
	char best[64];
	if (isfinite(ji->search.best))
		ui_num(ji->search.best, best, sizeof best);
	else if (ji->state == SC_JOB_DONE && ji->search.optimal)
		snprintf(best, sizeof best, "none: no %d-stage partition fits%s (proven)",
		         sc_settings_stages(&w->set), w->jobs->search_pins ? " with the pins" : "");
	else if (ji->state == SC_JOB_DONE)
		snprintf(best, sizeof best, "none found that fits");
	else
		snprintf(best, sizeof best, "none yet");
	char seed[80], pins[32] = "";
	if (w->jobs->search_pins)
		snprintf(pins, sizeof pins, ", %d pinned", w->jobs->search_pins);
	if (w->jobs->until_stopped)
		snprintf(seed, sizeof seed, "  seed %ld, round %d (S)%s", w->jobs->search_run_seed,
		         w->jobs->rounds, pins);
	else
		snprintf(seed, sizeof seed, "  seed %ld%s", w->jobs->search_run_seed, pins);
	char line[256];
	const char *phase =
	        sc_job_finished(ji->state) ? sc_job_state_name(ji->state) : ji->search.phase;
	snprintf(line, sizeof line, "%-12s %-9s %9ld evals %9s/s  best %s  %.1fs%s",
	         w->jobs->search_method, phase, ji->search.evals, rate, best, ji->elapsed, seed);
	if ((int)strlen(line) <= cols - 3) {
		mvprintw(y + 1, 2, "%s", line);
	} else {
		/* narrow: the same words without the columns' padding, on a
		 * second row when they need it; none cut */
		char evals[32], per[32], bestw[80], secs[32], seedw[32], round[32] = "";
		snprintf(evals, sizeof evals, "%ld evals", ji->search.evals);
		snprintf(per, sizeof per, "%s/s", rate);
		snprintf(bestw, sizeof bestw, "best %s", best);
		snprintf(secs, sizeof secs, "%.1fs", ji->elapsed);
		snprintf(seedw, sizeof seedw, "seed %ld", w->jobs->search_run_seed);
		if (w->jobs->until_stopped)
			snprintf(round, sizeof round, "round %d (S)", w->jobs->rounds);
		const char *pieces[] = {
		        w->jobs->search_method, phase, evals, per, bestw, secs, seedw, round,
		        pins[0] ? pins + 2 : ""};
		int used = wb_lay_pieces(y + 1, 2, cols - 3, h >= 4 ? 2 : 1, "  ", pieces, 9);
		y += used > 1 ? used - 1 : 0;
		h -= used > 1 ? used - 1 : 0;
	}
	if (h >= 3 && ji->search.layers > 0) {
		/* the exact DP over ideals: how far it is, so a long run is never silent */
		mvprintw(y + 2, 2, "ideals %ld made, %ld done   layers %d/%d", ji->search.ideals,
		         ji->search.ideals_done, ji->search.layers_done, ji->search.layers);
		y++;
		h--;
	}
	if (h < 3 || w->jobs->nhist < 2)
		return;
	/* best so far over time: one column per step, lower is better */
	int width = cols - 4 < WB_HISTORY ? cols - 4 : WB_HISTORY;
	double lo = INFINITY, hi = 0;
	for (int i = 0; i < w->jobs->nhist; i++) {
		lo = fmin(lo, w->jobs->hist_v[i]);
		hi = fmax(hi, w->jobs->hist_v[i]);
	}
	static const char *const bars[] = {"_", ".", "-", "=", "#"};
	move(y + 2, 2);
	printw("best over time ");
	int n = w->jobs->nhist < width - 16 ? w->jobs->nhist : width - 16;
	for (int i = w->jobs->nhist - n; i < w->jobs->nhist; i++) {
		int level = hi > lo ? (int)lround((w->jobs->hist_v[i] - lo) / (hi - lo) * 4) : 0;
		addstr(bars[level]);
	}
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
	if (table > sc_settings_stages(&w->set) + 1)
		table = sc_settings_stages(&w->set) + 1;
	/* the table's legend takes the row between it and the ladder */
	stage_table(w, y - 1, table, cols);
	y += table;
	wb_answer a;
	wb_answer_get(w, &a);
	wb_ladder_panel(w, &a, y, foot - y - 4 > 7 ? 7 : foot - y - 4, cols);
	y += 8;
	if (y < foot - 1)
		search_panel(w, y, foot - y, cols);
}

/* j, k and the arrows move the stage selection in the generic actions
 * (wb_keys.c), so the overview has no keys of its own. */
const wb_view_ops wb_overview_view = {.name = "overview",
                                      .in = WB_IN_OVERVIEW,
                                      .footer = WB_FOOT_MAIN,
                                      .draw = overview_draw,
                                      .init = overview_init,
                                      .fini = overview_fini};
