/*
 * wb_nodes.c - the node browser: every op with its stage, legal stage range,
 * work, out and group; filter by name, sort by stage, work or name; move the
 * selected op with < and > (alone, with its group) or [ and ] (with the ops
 * that must follow it), each move checked and re-costed incrementally by
 * the editor (core/edit.h).  On a training graph a pass column (fw, bw,
 * orphan) follows the stage, and a move's message says how many ops of
 * each pass went (a forward op takes its group's backward ops along).
 *
 * The list is rebuilt in O(n + k) after each change: the ops in name order
 * come from the graph's by_name index, and sorting by stage is a counting
 * sort over that order, so even 100 000 ops stay well inside a key press.
 * The view's keys are wb_keys.def's WB_IN_NODES rows; what it leaves (j
 * and k are its own) goes to the global actions in wb_keys.c.
 *
 * Layer: a view (layer 4 in wb.h): it calls the state and the prompt (the
 * filter); its keys come decoded from the dispatcher, which names
 * wb_nodes_view.
 */
#define _POSIX_C_SOURCE 200809L
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "core/partition.h"
#include "tui/ui.h"
#include "tui/wb/wb.h"

static const char *const sort_names[] = {"stage", "work", "name"};

static int cmp_work(const void *a, const void *b, void *ctx)
{
	const double *work = ctx;
	double x = work[*(const int *)a], y = work[*(const int *)b];
	return (x < y) - (x > y);
}

/* qsort_r is not C11; a small merge sort keeps the order stable by name */
static void sort_by_work(int *a, int *tmp, int n, const double *work)
{
	if (n < 2)
		return;
	int h = n / 2;
	sort_by_work(a, tmp, h, work);
	sort_by_work(a + h, tmp, n - h, work);
	int i = 0, j = h, o = 0;
	while (i < h && j < n)
		tmp[o++] = cmp_work(&a[j], &a[i], (void *)work) < 0 ? a[j++] : a[i++];
	while (i < h)
		tmp[o++] = a[i++];
	while (j < n)
		tmp[o++] = a[j++];
	memcpy(a, tmp, (size_t)n * sizeof *a);
}

static bool matches(const sc_graph *g, const char *filter, int v)
{
	return !filter || !filter[0] || strstr(g->op_name[v], filter);
}

int wb_order_ops(const sc_graph *g, const int *stage, int k, const char *filter, int sort,
                 const int *by_work, int *out)
{
	int n = g->n, m = 0;
	if (sort == 0) {
		int *count = calloc((size_t)k + 1, sizeof *count);
		if (!count)
			return -1;
		for (int i = 0; i < n; i++)
			if (matches(g, filter, g->by_name[i]))
				count[stage[g->by_name[i]] + 1]++;
		for (int s = 0; s < k; s++)
			count[s + 1] += count[s];
		for (int i = 0; i < n; i++) {
			int v = g->by_name[i];
			if (matches(g, filter, v))
				out[count[stage[v]]++] = v;
		}
		m = count[k - 1];
		free(count);
		return m;
	}
	const int *src = sort == 1 ? by_work : g->by_name;
	for (int i = 0; i < n; i++)
		if (matches(g, filter, src[i]))
			out[m++] = src[i];
	return m;
}

int *wb_ops_by_work(const sc_graph *g)
{
	int n = g->n;
	int *a = sc_malloc_n((size_t)n, sizeof *a), *tmp = sc_malloc_n((size_t)n, sizeof *tmp);
	if (!a || !tmp) {
		free(a);
		free(tmp);
		return NULL;
	}
	memcpy(a, g->by_name, (size_t)n * sizeof *a);
	sort_by_work(a, tmp, n, g->work);
	free(tmp);
	return a;
}

void wb_nodes_refresh(wb *w)
{
	const sc_graph *g = w->g;
	int n = g->n;
	int keep = w->order && w->node_sel < w->norder ? w->order[w->node_sel] : -1;
	if (!w->order) {
		w->order = sc_malloc_n((size_t)n, sizeof *w->order);
		if (!w->order)
			return;
	}
	if (w->node_sort == 1 && !w->by_work) {
		w->by_work = wb_ops_by_work(g);
		if (!w->by_work)
			w->node_sort = 2;
	}
	int m = wb_order_ops(g, w->stage, w->set.k, w->filter, w->node_sort, w->by_work, w->order);
	if (m < 0)
		return;
	w->norder = m;
	if (keep >= 0)
		for (int i = 0; i < m; i++)
			if (w->order[i] == keep) {
				w->node_sel = i;
				break;
			}
	if (w->node_sel >= m)
		w->node_sel = m ? m - 1 : 0;
}

/* The pass column of a training graph: fw, bw, or orphan (a backward op
 * whose group holds no forward op, under the mirror rule). */
static const char *pass_of(const sc_graph *g, int v)
{
	return !g->backward[v] ? "fw" : g->orphan[v] ? "orphan" : "bw";
}

/* Keeps the selection on screen in rows rows. */
static void scroll_to_selection(wb *w, int rows)
{
	if (w->node_sel < w->node_top)
		w->node_top = w->node_sel;
	if (w->node_sel >= w->node_top + rows)
		w->node_top = w->node_sel - rows + 1;
	if (w->node_top < 0)
		w->node_top = 0;
}

/* The list on a training graph, from row y + 2: the inference list with a
 * pass column after the stage. */
static void training_rows(wb *w, int y, int h, int cols)
{
	const sc_graph *g = w->g;
	char b1[32], b2[32];
	int name_w = cols - 69;
	if (name_w < 12)
		name_w = 12;
	if (name_w > 48)
		name_w = 48;
	attron(A_BOLD);
	mvprintw(y + 2, 0, "  %-*s %5s %-6s %9s %11s %11s  %s", name_w, "op", "stage", "pass",
	         "range", "work", "out", "group");
	attroff(A_BOLD);
	int rows = h - 3;
	if (rows < 1)
		return;
	scroll_to_selection(w, rows);
	int at;
	sc_costs_bottleneck(w->c, &at);
	for (int r = 0; r < rows && w->node_top + r < w->norder; r++) {
		int i = w->node_top + r, v = w->order[i];
		int lo, hi;
		sc_editor_range(w->ed, v, &lo, &hi);
		char range[24];
		if (lo == hi)
			snprintf(range, sizeof range, "fixed");
		else
			snprintf(range, sizeof range, "%d-%d", lo + 1, hi + 1);
		if (i == w->node_sel)
			attron(A_REVERSE);
		mvprintw(y + 3 + r, 0, "%c %-*.*s %5d %-6s %9s %11s %11s  %.*s",
		         w->stage[v] == at ? '*' : ' ', name_w, name_w, g->op_name[v],
		         w->stage[v] + 1, pass_of(g, v), range, ui_num(g->work[v], b1, sizeof b1),
		         ui_num(g->out[v], b2, sizeof b2),
		         cols - name_w - 52 > 0 ? cols - name_w - 52 : 0,
		         g->group[v] >= 0 ? g->group_name[g->group[v]] : "");
		if (i == w->node_sel)
			attroff(A_REVERSE);
	}
}

static void nodes_draw(wb *w, int y, int h, int cols)
{
	const sc_graph *g = w->g;
	char b1[32], b2[32];
	attron(A_BOLD);
	mvprintw(y, 0, "ops: %d of %d%s%s%s  sorted by %s", w->norder, g->n,
	         w->filter[0] ? "  matching \"" : "", w->filter, w->filter[0] ? "\"" : "",
	         sort_names[w->node_sort]);
	attroff(A_BOLD);
	bool training = sc_graph_is_training(g);
	if (w->norder && w->node_sel < w->norder) {
		int v = w->order[w->node_sel];
		mvprintw(y + 1, 0, "%.*s: %d predecessors, %d successors%s%s", cols - 40,
		         g->op_name[v], sc_graph_indeg(g, v), sc_graph_outdeg(g, v),
		         g->group[v] >= 0 ? ", group " : "",
		         g->group[v] >= 0 ? g->group_name[g->group[v]] : "");
		if (training && getcurx(stdscr) < cols - 1)
			printw("%.*s", cols - 1 - getcurx(stdscr),
			       !g->backward[v] ? ", forward pass"
			       : g->orphan[v]
			               ? ", backward pass, orphan (no forward op in its group)"
			               : ", backward pass");
	}
	if (training) {
		training_rows(w, y, h, cols);
		return;
	}
	int name_w = cols - 62;
	if (name_w < 12)
		name_w = 12;
	if (name_w > 48)
		name_w = 48;
	attron(A_BOLD);
	mvprintw(y + 2, 0, "  %-*s %5s %9s %11s %11s  %s", name_w, "op", "stage", "range", "work",
	         "out", "group");
	attroff(A_BOLD);
	int rows = h - 3;
	if (rows < 1)
		return;
	scroll_to_selection(w, rows);
	int at;
	sc_costs_bottleneck(w->c, &at);
	for (int r = 0; r < rows && w->node_top + r < w->norder; r++) {
		int i = w->node_top + r, v = w->order[i];
		int lo, hi;
		sc_editor_range(w->ed, v, &lo, &hi);
		char range[24];
		if (lo == hi)
			snprintf(range, sizeof range, "fixed");
		else
			snprintf(range, sizeof range, "%d-%d", lo + 1, hi + 1);
		if (i == w->node_sel)
			attron(A_REVERSE);
		mvprintw(y + 3 + r, 0, "%c %-*.*s %5d %9s %11s %11s  %.*s",
		         w->stage[v] == at ? '*' : ' ', name_w, name_w, g->op_name[v],
		         w->stage[v] + 1, range, ui_num(g->work[v], b1, sizeof b1),
		         ui_num(g->out[v], b2, sizeof b2),
		         cols - name_w - 45 > 0 ? cols - name_w - 45 : 0,
		         g->group[v] >= 0 ? g->group_name[g->group[v]] : "");
		if (i == w->node_sel)
			attroff(A_REVERSE);
	}
}

/* On a training graph, how many of the ops that moved to stage `to` are
 * backward ops: those now in `to` that were elsewhere in before (NULL: 0). */
static int backward_moved(const wb *w, const int *before, int to)
{
	const sc_graph *g = w->g;
	int n = 0;
	for (int v = 0; before && v < g->n; v++)
		n += g->backward[v] && w->stage[v] == to && before[v] != to;
	return n;
}

static void move_selected(wb *w, int delta, bool dependents)
{
	if (!w->norder)
		return;
	const sc_graph *g = w->g;
	bool training = sc_graph_is_training(g);
	int v = w->order[w->node_sel], to = w->stage[v] + delta;
	char why[512];
	if (dependents) {
		/* a training graph's message says how many of them are backward
		 * ops: the stages before, to compare (O(n), as the move may be) */
		int *before = training ? sc_part_new(g) : NULL;
		if (before)
			memcpy(before, w->stage, (size_t)g->n * sizeof *before);
		int moved = sc_editor_move_with_dependents(w->ed, v, to, why, sizeof why);
		if (moved < 0) {
			free(before);
			wb_say(w, "%s", why);
			return;
		}
		wb_changed(w, moved > 0);
		int bw = backward_moved(w, before, to);
		free(before);
		if (training && moved > 0)
			wb_say(w, "moved %d op%s to stage %d: %d forward, %d backward", moved,
			       moved == 1 ? "" : "s", to + 1, moved - bw, bw);
		else
			wb_say(w, "moved %d op%s to stage %d", moved, moved == 1 ? "" : "s",
			       to + 1);
		return;
	}
	int from = w->stage[v];
	if (!sc_editor_move(w->ed, v, to, why, sizeof why)) {
		wb_say(w, "refused: %s", why);
		return;
	}
	wb_changed(w, true);
	int gr = g->group[v];
	if (training && gr >= 0 && from != to) {
		/* the group moved whole: say how many of each pass went along
		 * (a forward op takes its group's backward ops with it) */
		int fw = 0, bw = 0;
		for (int i = g->group_off[gr]; i < g->group_off[gr + 1]; i++)
			g->backward[g->group_ops[i]] ? bw++ : fw++;
		wb_say(w, "%s: %d forward op%s, %d backward op%s", why, fw, fw == 1 ? "" : "s", bw,
		       bw == 1 ? "" : "s");
		return;
	}
	wb_say(w, "%s", why);
}

static unsigned filter_answer(wb *w, const char *text, bool ok, int arg)
{
	(void)arg;
	snprintf(w->filter, sizeof w->filter, "%s", ok ? text : "");
	w->node_sel = w->node_top = 0;
	wb_nodes_refresh(w);
	return 0;
}

static unsigned nodes_key(wb *w, wb_action a, int ch)
{
	(void)ch;
	int page = LINES - 10 > 1 ? LINES - 10 : 1;
	switch (a) {
	case WB_A_DOWN:
		if (w->node_sel + 1 < w->norder)
			w->node_sel++;
		break;
	case WB_A_UP:
		if (w->node_sel > 0)
			w->node_sel--;
		break;
	case WB_A_PAGE_DOWN:
		w->node_sel = w->node_sel + page < w->norder ? w->node_sel + page
		                                             : (w->norder ? w->norder - 1 : 0);
		break;
	case WB_A_PAGE_UP: w->node_sel = w->node_sel > page ? w->node_sel - page : 0; break;
	case WB_A_FIRST: w->node_sel = 0; break;
	case WB_A_LAST: w->node_sel = w->norder ? w->norder - 1 : 0; break;
	case WB_A_EARLIER: move_selected(w, -1, false); break;
	case WB_A_LATER: move_selected(w, +1, false); break;
	case WB_A_EARLIER_ALL: move_selected(w, -1, true); break;
	case WB_A_LATER_ALL: move_selected(w, +1, true); break;
	case WB_A_SORT:
		w->node_sort = (w->node_sort + 1) % 3;
		w->node_top = 0;
		wb_nodes_refresh(w);
		wb_say(w, "sorted by %s", sort_names[w->node_sort]);
		break;
	case WB_A_FILTER:
		return wb_ask(w, "filter ops by name (empty: all):", w->filter, sizeof w->filter,
		              filter_answer, 0);
	default: return 0;
	}
	return WB_HANDLED | WB_REDRAW;
}

const wb_view_ops wb_nodes_view = {.name = "node browser",
                                   .in = WB_IN_NODES,
                                   .footer = WB_FOOT_NODES,
                                   .draw = nodes_draw,
                                   .key = nodes_key,
                                   .on_change = wb_nodes_refresh};
