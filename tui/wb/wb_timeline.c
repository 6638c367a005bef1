/*
 * wb_timeline.c - the fourth view (4): the pipeline's schedule over time
 * (core/timeline.h) for the current partition, drawn with characters.
 *
 * One lane per stage, time scaled so the makespan spans the width; each
 * segment drawn with its kind's character ('<' receive, '#' compute, '>'
 * send; '=' backward compute on training graphs), micro-batch numbers in
 * the compute runs where they fit, the bottleneck lane marked '*'; idle per
 * cent in the lane label (the legend says so); a legend, the figures (period, throughput,
 * latency, fill, drain) and a cursor on one segment (Left Right along the
 * lane, Up Down across lanes) whose stage, micro-batch, kind, start and end
 * the last row reads.  The schedule is rebuilt on every change of the
 * current partition (on_change), so a hand edit redraws it live.
 *
 * The schedule and the cursor are the view's own state, made by its init
 * and freed by its fini (wb_view_ops).
 *
 * Calls wb_state.c (wb_say) and wb_draw.c (wb_attr) only.
 */
#include "tui/wb/wb_timeline.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/timeline.h"
#include "tui/ui.h"
#include "tui/wb/wb_draw.h"
#include "tui/wb/wb_fit.h"
#include "tui/wb/wb_keytab.h"

enum { LABEL_W = 11 };

static int seg_by_start(const void *a, const void *b, void *tl)
{
	const sc_segment *s = ((const sc_timeline *)tl)->seg;
	const sc_segment *x = &s[*(const int *)a], *y = &s[*(const int *)b];
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return *(const int *)a - *(const int *)b;
}

/* A simple insertion sort (a lane holds m * passes * 3 segments, and qsort
 * has no context argument in C11). */
static void sort_lane(const sc_timeline *t, int *idx, int n)
{
	for (int i = 1; i < n; i++) {
		int v = idx[i], j = i;
		while (j > 0 && seg_by_start(&idx[j - 1], &v, (void *)t) > 0) {
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = v;
	}
}

/* The view's own state (made by its init, freed by its fini): the current
 * partition's schedule (as of part_version version), each lane's segments
 * that take time in time order (lane s from order[s * nseg / k], count[s]
 * of them), the cursor's lane and place in it, the first lane shown, why
 * there is no schedule. */
typedef struct tl_state {
	sc_timeline *tl;
	unsigned version;
	int *order, *count;
	int lane, pos, top;
	char error[160];
} tl_state;

/* Forgets the schedule. */
static void drop(tl_state *ts)
{
	sc_timeline_free(ts->tl);
	ts->tl = NULL;
	free(ts->order);
	ts->order = NULL;
	free(ts->count);
	ts->count = NULL;
}

/* Rebuilds the schedule of the current partition; keeps the cursor's lane
 * and place as far as they still exist. */
static void rebuild(tl_state *ts, wb *w)
{
	drop(ts);
	ts->version = w->part_version;
	if (!w->c)
		return;
	sc_error err;
	sc_timeline *t = sc_timeline_new(w->c, sc_timeline_default_batches(w->c->k),
	                                 w->c->set.schedule, &err);
	if (!t) {
		snprintf(ts->error, sizeof ts->error, "%.150s", err.msg);
		return;
	}
	int per = t->nseg / t->k;
	ts->order = malloc(sizeof *ts->order * (size_t)(t->nseg ? t->nseg : 1));
	ts->count = calloc((size_t)t->k, sizeof *ts->count);
	if (!ts->order || !ts->count) {
		sc_timeline_free(t);
		drop(ts);
		snprintf(ts->error, sizeof ts->error, "out of memory");
		return;
	}
	ts->tl = t;
	/* each lane's segments that take time, in time order */
	for (int i = 0; i < t->nseg; i++) {
		const sc_segment *s = &t->seg[i];
		if (s->end > s->start)
			ts->order[s->stage * per + ts->count[s->stage]++] = i;
	}
	for (int s = 0; s < t->k; s++)
		sort_lane(t, ts->order + s * per, ts->count[s]);
	if (ts->lane >= t->k)
		ts->lane = t->k - 1;
	if (ts->lane < 0)
		ts->lane = 0;
}

static void ensure(tl_state *ts, wb *w)
{
	if (!ts->tl || ts->version != w->part_version)
		rebuild(ts, w);
}

static void *timeline_init(wb *w)
{
	(void)w;
	return calloc(1, sizeof(tl_state));
}

static void timeline_fini(wb *w, void *state)
{
	(void)w;
	if (state)
		drop(state);
	free(state);
}

/* The selected segment's index in t->seg, or -1 when its lane is empty. */
static int selected(tl_state *ts)
{
	const sc_timeline *t = ts->tl;
	int n = ts->count[ts->lane];
	if (!n)
		return -1;
	if (ts->pos >= n)
		ts->pos = n - 1;
	if (ts->pos < 0)
		ts->pos = 0;
	return ts->order[ts->lane * (t->nseg / t->k) + ts->pos];
}

static char kind_char(const sc_segment *s)
{
	switch (s->kind) {
	case SC_SEG_RECV: return '<';
	case SC_SEG_SEND: return '>';
	default: return s->backward ? '=' : '#';
	}
}

static void on_change(wb *w)
{
	tl_state *ts = wb_view_state(w, &wb_timeline_view);
	if (ts)
		rebuild(ts, w);
}

static void draw_lane(const tl_state *ts, wb *w, int s, int y, int cols, int sel)
{
	const sc_timeline *t = ts->tl;
	int per = t->nseg / t->k, width = cols - LABEL_W - 1;
	bool bn = s == t->bottleneck_at;
	if (bn)
		wb_attr(w, WB_PAIR_BOTTLENECK, A_BOLD, true);
	mvprintw(y, 0, "%c%3d %3.0f%% |", bn ? '*' : ' ', s + 1, 100.0 * t->idle[s]);
	if (bn)
		wb_attr(w, WB_PAIR_BOTTLENECK, A_BOLD, false);
	if (width < 1 || t->makespan <= 0)
		return;
	for (int i = 0; i < ts->count[s]; i++) {
		int j = ts->order[s * per + i];
		const sc_segment *g = &t->seg[j];
		int x0 = (int)(g->start / t->makespan * width);
		int x1 = (int)(g->end / t->makespan * width);
		if (x1 <= x0)
			x1 = x0 + 1;
		if (x1 > width)
			x1 = width;
		char run[512];
		int n = x1 - x0;
		if (n <= 0 || n >= (int)sizeof run)
			continue;
		memset(run, kind_char(g), (size_t)n);
		run[n] = '\0';
		if (g->kind == SC_SEG_COMPUTE) {
			char num[16];
			int d = snprintf(num, sizeof num, "%d", g->batch);
			if (d + 2 <= n)
				memcpy(run + (n - d) / 2, num, (size_t)d);
			else if (d <= n && n >= 1)
				memcpy(run, num, (size_t)d);
		}
		if (j == sel)
			attron(A_REVERSE);
		mvaddstr(y, LABEL_W + x0, run);
		if (j == sel)
			attroff(A_REVERSE);
	}
}

static void timeline_draw(wb *w, int y, int h, int cols)
{
	tl_state *ts = wb_view_state(w, &wb_timeline_view);
	if (!ts)
		return;
	ensure(ts, w);
	const sc_timeline *t = ts->tl;
	if (!t) {
		mvprintw(y, 0, "no timeline: %.*s", cols - 14, ts->error);
		return;
	}
	/* the figures, then the legend: whole words, on a second row each
	 * when the screen is narrow (80 columns), never cut */
	char a[32], b[32], c[32], d[32], e[32];
	char f1[48], f2[48], f3[48], f4[48], f5[48];
	snprintf(f1, sizeof f1, "period %s", ui_num(t->period, a, sizeof a));
	snprintf(f2, sizeof f2, "throughput %s", ui_num(t->throughput, b, sizeof b));
	snprintf(f3, sizeof f3, "latency %s", ui_num(t->latency, c, sizeof c));
	snprintf(f4, sizeof f4, "fill %s", ui_num(t->fill, d, sizeof d));
	snprintf(f5, sizeof f5, "drain %s", ui_num(t->drain, e, sizeof e));
	const char *figs[] = {f1, f2, f3, f4, f5};
	int two = h >= 8 ? 2 : 1;
	attron(A_BOLD);
	int used = wb_lay_pieces(y, 0, cols - 1, two, "  ", figs, 5);
	attroff(A_BOLD);
	y += used - 1;
	h -= used - 1;
	if (h < 2)
		return;
	char mb[64];
	snprintf(mb, sizeof mb, "%d micro-batches%s:", t->m,
	         t->training ? (t->schedule == SC_SCHEDULE_GPIPE ? " GPipe" : " 1F1B") : "");
	/* the per cent in each lane's label is the stage's idle time */
	const char *leg[] = {mb,
	                     "< receive",
	                     "# compute",
	                     "> send",
	                     t->training ? "= backward" : "",
	                     "* bottleneck",
	                     "lane %: idle"};
	used = wb_lay_pieces(y + 1, 0, cols - 1, two, "  ", leg, 7);
	y += used - 1;
	h -= used - 1;
	int sel = selected(ts);
	int lanes = h - 3; /* the figures, the legend, the cursor's row */
	if (lanes < 1)
		lanes = 1;
	if (ts->lane < ts->top)
		ts->top = ts->lane;
	if (ts->lane >= ts->top + lanes)
		ts->top = ts->lane - lanes + 1;
	if (ts->top > 0 && ts->top + lanes > t->k)
		ts->top = t->k > lanes ? t->k - lanes : 0;
	for (int i = 0; i < lanes && ts->top + i < t->k; i++)
		draw_lane(ts, w, ts->top + i, y + 2 + i, cols, sel);
	if (h >= 4) {
		char line[256] = "";
		if (sel >= 0) {
			const sc_segment *g = &t->seg[sel];
			snprintf(line, sizeof line,
			         "stage %d  micro-batch %d  %s%s  start %s  end %s", g->stage + 1,
			         g->batch, g->backward ? "backward " : "",
			         sc_seg_kind_name(g->kind), ui_num(g->start, a, sizeof a),
			         ui_num(g->end, b, sizeof b));
		} else {
			snprintf(line, sizeof line, "stage %d: nothing to do", ts->lane + 1);
		}
		mvprintw(y + h - 1, 0, "%.*s", cols - 1, line);
	}
}

static unsigned timeline_key(wb *w, wb_action a, int ch)
{
	(void)ch;
	tl_state *ts = wb_view_state(w, &wb_timeline_view);
	if (!ts)
		return 0;
	ensure(ts, w);
	if (!ts->tl)
		return 0;
	switch (a) {
	case WB_A_DOWN:
		if (ts->lane + 1 < ts->tl->k)
			ts->lane++;
		break;
	case WB_A_UP:
		if (ts->lane > 0)
			ts->lane--;
		break;
	case WB_A_LEFT:
		if (ts->pos > 0)
			ts->pos--;
		break;
	case WB_A_RIGHT:
		if (ts->pos + 1 < ts->count[ts->lane])
			ts->pos++;
		break;
	case WB_A_BOTTLENECK: ts->lane = ts->tl->bottleneck_at; return 0; /* and the stage */
	default: return 0;
	}
	return WB_HANDLED | WB_REDRAW;
}

const wb_view_ops wb_timeline_view = {.name = "timeline",
                                      .in = WB_IN_TIMELINE,
                                      .footer = WB_FOOT_MAIN,
                                      .draw = timeline_draw,
                                      .key = timeline_key,
                                      .on_change = on_change,
                                      .init = timeline_init,
                                      .fini = timeline_fini};
