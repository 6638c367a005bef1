/*
 * wb_timeline.c - the fourth view (4): the pipeline's schedule over time
 * (core/timeline.h) for the current partition, drawn with characters.
 *
 * One lane per stage, time scaled so the makespan spans the width; each
 * segment drawn with its kind's character ('<' receive, '#' compute, '>'
 * send; '=' backward compute on training graphs), micro-batch numbers in
 * the compute runs where they fit, the bottleneck lane marked '*'; idle per
 * cent in the lane label; a legend, the figures (period, throughput,
 * latency, fill, drain) and a cursor on one segment (Left Right along the
 * lane, Up Down across lanes) whose stage, micro-batch, kind, start and end
 * the last row reads.  The schedule is rebuilt on every change of the
 * current partition (on_change), so a hand edit redraws it live.
 *
 * Calls wb_state.c (wb_say) and wb_draw.c (wb_attr) only.
 */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/timeline.h"
#include "tui/ui.h"
#include "tui/wb/wb.h"

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

void wb_timeline_free(wb *w)
{
	sc_timeline_free(w->tl);
	w->tl = NULL;
	free(w->tl_order);
	w->tl_order = NULL;
	free(w->tl_count);
	w->tl_count = NULL;
}

/* Rebuilds the schedule of the current partition; keeps the cursor's lane
 * and place as far as they still exist. */
static void rebuild(wb *w)
{
	wb_timeline_free(w);
	w->tl_version = w->part_version;
	if (!w->c)
		return;
	sc_error err;
	sc_timeline *t = sc_timeline_new(w->c, sc_timeline_default_batches(w->c->k),
	                                 w->c->set.schedule, &err);
	if (!t) {
		snprintf(w->tl_error, sizeof w->tl_error, "%.150s", err.msg);
		return;
	}
	int per = t->nseg / t->k;
	w->tl_order = malloc(sizeof *w->tl_order * (size_t)(t->nseg ? t->nseg : 1));
	w->tl_count = calloc((size_t)t->k, sizeof *w->tl_count);
	if (!w->tl_order || !w->tl_count) {
		sc_timeline_free(t);
		wb_timeline_free(w);
		snprintf(w->tl_error, sizeof w->tl_error, "out of memory");
		return;
	}
	w->tl = t;
	/* each lane's segments that take time, in time order */
	for (int i = 0; i < t->nseg; i++) {
		const sc_segment *s = &t->seg[i];
		if (s->end > s->start)
			w->tl_order[s->stage * per + w->tl_count[s->stage]++] = i;
	}
	for (int s = 0; s < t->k; s++)
		sort_lane(t, w->tl_order + s * per, w->tl_count[s]);
	if (w->tl_lane >= t->k)
		w->tl_lane = t->k - 1;
	if (w->tl_lane < 0)
		w->tl_lane = 0;
}

static void ensure(wb *w)
{
	if (!w->tl || w->tl_version != w->part_version)
		rebuild(w);
}

/* The selected segment's index in t->seg, or -1 when its lane is empty. */
static int selected(wb *w)
{
	const sc_timeline *t = w->tl;
	int n = w->tl_count[w->tl_lane];
	if (!n)
		return -1;
	if (w->tl_pos >= n)
		w->tl_pos = n - 1;
	if (w->tl_pos < 0)
		w->tl_pos = 0;
	return w->tl_order[w->tl_lane * (t->nseg / t->k) + w->tl_pos];
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
	rebuild(w);
}

static void draw_lane(wb *w, int s, int y, int cols, int sel)
{
	const sc_timeline *t = w->tl;
	int per = t->nseg / t->k, width = cols - LABEL_W - 1;
	bool bn = s == t->bottleneck_at;
	if (bn)
		wb_attr(w, WB_PAIR_BOTTLENECK, A_BOLD, true);
	mvprintw(y, 0, "%c%3d %3.0f%% |", bn ? '*' : ' ', s + 1, 100.0 * t->idle[s]);
	if (bn)
		wb_attr(w, WB_PAIR_BOTTLENECK, A_BOLD, false);
	if (width < 1 || t->makespan <= 0)
		return;
	for (int i = 0; i < w->tl_count[s]; i++) {
		int j = w->tl_order[s * per + i];
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
	ensure(w);
	const sc_timeline *t = w->tl;
	if (!t) {
		mvprintw(y, 0, "no timeline: %.*s", cols - 14, w->tl_error);
		return;
	}
	char a[32], b[32], c[32], d[32], e[32];
	attron(A_BOLD);
	mvprintw(y, 0, "%.*s", cols - 1, "");
	mvprintw(y, 0, "period %s  throughput %s  latency %s  fill %s  drain %s",
	         ui_num(t->period, a, sizeof a), ui_num(t->throughput, b, sizeof b),
	         ui_num(t->latency, c, sizeof c), ui_num(t->fill, d, sizeof d),
	         ui_num(t->drain, e, sizeof e));
	attroff(A_BOLD);
	if (h < 2)
		return;
	char leg[256];
	snprintf(leg, sizeof leg,
	         "%d micro-batches%s: < receive  # compute  > send%s  * bottleneck", t->m,
	         t->training ? (t->schedule == SC_SCHEDULE_GPIPE ? " GPipe" : " 1F1B") : "",
	         t->training ? "  = backward" : "");
	mvprintw(y + 1, 0, "%.*s", cols - 1, leg);
	int sel = selected(w);
	int lanes = h - 3; /* the figures, the legend, the cursor's row */
	if (lanes < 1)
		lanes = 1;
	if (w->tl_lane < w->tl_top)
		w->tl_top = w->tl_lane;
	if (w->tl_lane >= w->tl_top + lanes)
		w->tl_top = w->tl_lane - lanes + 1;
	if (w->tl_top > 0 && w->tl_top + lanes > t->k)
		w->tl_top = t->k > lanes ? t->k - lanes : 0;
	for (int i = 0; i < lanes && w->tl_top + i < t->k; i++)
		draw_lane(w, w->tl_top + i, y + 2 + i, cols, sel);
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
			snprintf(line, sizeof line, "stage %d: nothing to do", w->tl_lane + 1);
		}
		mvprintw(y + h - 1, 0, "%.*s", cols - 1, line);
	}
}

static unsigned timeline_key(wb *w, wb_action a, int ch)
{
	(void)ch;
	ensure(w);
	if (!w->tl)
		return 0;
	switch (a) {
	case WB_A_DOWN:
		if (w->tl_lane + 1 < w->tl->k)
			w->tl_lane++;
		break;
	case WB_A_UP:
		if (w->tl_lane > 0)
			w->tl_lane--;
		break;
	case WB_A_LEFT:
		if (w->tl_pos > 0)
			w->tl_pos--;
		break;
	case WB_A_RIGHT:
		if (w->tl_pos + 1 < w->tl_count[w->tl_lane])
			w->tl_pos++;
		break;
	case WB_A_BOTTLENECK: w->tl_lane = w->tl->bottleneck_at; return 0; /* and the stage */
	default: return 0;
	}
	return WB_HANDLED | WB_REDRAW;
}

const wb_view_ops wb_timeline_view = {.name = "timeline",
                                      .in = WB_IN_TIMELINE,
                                      .footer = WB_FOOT_MAIN,
                                      .draw = timeline_draw,
                                      .key = timeline_key,
                                      .on_change = on_change};
