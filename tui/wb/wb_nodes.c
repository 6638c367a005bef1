/*
 * wb_nodes.c - the node browser: every op with its stage, legal stage range,
 * work, param, out and group; filter by name in any case, the list
 * following every key typed at the / prompt (n and N then step through the
 * matches); sort by stage, work, name or param; move the selected op with
 * < and > (alone, with its group) or [ and ] (with the ops that must follow
 * it), each move checked and re-costed incrementally by the editor
 * (core/edit.h).  Enter opens the detail pane of the selected op under the
 * list (wb_detail.c), tig's split view; Enter on a stage of the overview
 * opens the browser on that stage's ops alone (wb_nodes_open_stage), and b
 * steps through the bottleneck stage's ops.  On a training graph a pass
 * column (fw, bw, orphan) follows the stage, and a move's message says how
 * many ops of each pass went (a forward op takes its group's backward ops
 * along).
 *
 * The list is rebuilt in O(n + k) after each change: the ops in name order
 * come from the graph's by_name index, and sorting by stage is a counting
 * sort over that order, so even 100 000 ops stay well inside a key press.
 * The view's keys are wb_keys.def's WB_IN_NODES rows; what it leaves (j
 * and k are its own) goes to the global actions in wb_keys.c.
 *
 * Longer than 600 lines: one view's list and its keys (the columns and the
 * name scrolling, the moves and their messages, the filter, the history's
 * steps, the limits to a stage or a module's ops) share its state; the
 * pure order (wb_order_ops) is apart and tested without a terminal.
 *
 * Layer: a view (layer 4 in wb.h): it calls the state, the prompt (the
 * filter) and the detail pane; its keys come decoded from the dispatcher,
 * which names wb_nodes_view, and wb_compare.c's wb_browse_action opens it
 * on a stage.
 */
#define _POSIX_C_SOURCE 200809L
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "core/names.h"
#include "core/partition.h"
#include "tui/ui.h"
#include "tui/wb/wb.h"
#include "tui/wb/wb_lineedit.h"

static const char *const sort_names[WB_NSORTS] = {"stage", "work", "name", "param"};

/* the rows the list had when last drawn: what a page is */
static int list_rows = 10;

/* What the view keeps of its own beside struct wb: the ops in natural name
 * order and the widths of the columns, made once per graph (names is the
 * graph's name array, to know it again), and how far the name column is
 * scrolled (Left, Right; 0 shows every name fitted with a middle
 * ellipsis).  shown is the name column's width when last drawn. */
static struct {
	char *const *names;
	int n;
	int *by_name;
	int longest;  /* the widest name, in cells */
	int num_w[3]; /* the widest work, param, out as ui_num writes them */
	int scroll;   /* the first cell of the names shown */
	int shown;    /* the name column's width when last drawn */
} nv;

enum { SCROLL_STEP = 8 };

/* Makes nv's order and widths for w's graph, when not made yet; false
 * when out of memory. */
static bool names_ready(const wb *w)
{
	const sc_graph *g = w->g;
	if (nv.by_name && nv.names == g->op_name && nv.n == g->n)
		return true;
	free(nv.by_name);
	nv.by_name = sc_names_order(g->op_name, g->n);
	nv.names = g->op_name;
	nv.n = g->n;
	nv.longest = 2;
	nv.num_w[0] = 4; /* "work" */
	nv.num_w[1] = nv.num_w[2] = 5;
	nv.scroll = 0;
	for (int v = 0; v < g->n; v++) {
		int nw = sc_names_width(g->op_name[v]);
		if (nw > nv.longest)
			nv.longest = nw;
		const double *val[3] = {g->work, g->param, g->out};
		for (int c = 0; c < 3; c++) {
			char b[48];
			int len = (int)strlen(ui_num(val[c][v], b, sizeof b));
			if (len > nv.num_w[c])
				nv.num_w[c] = len;
		}
	}
	return nv.by_name != NULL;
}

void wb_nodes_free(void)
{
	free(nv.by_name);
	memset(&nv, 0, sizeof nv);
}

/* qsort_r is not C11; a small merge sort keeps the order stable by name */
static void sort_by_value(int *a, int *tmp, int n, const double *value)
{
	if (n < 2)
		return;
	int h = n / 2;
	sort_by_value(a, tmp, h, value);
	sort_by_value(a + h, tmp, n - h, value);
	int i = 0, j = h, o = 0;
	while (i < h && j < n)
		tmp[o++] = value[a[j]] > value[a[i]] ? a[j++] : a[i++];
	while (i < h)
		tmp[o++] = a[i++];
	while (j < n)
		tmp[o++] = a[j++];
	memcpy(a, tmp, (size_t)n * sizeof *a);
}

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

bool wb_name_matches(const char *name, const char *filter)
{
	if (!filter || !filter[0])
		return true;
	/* names are short: the plain quadratic search is the fast one */
	for (const char *p = name; *p; p++) {
		size_t i = 0;
		while (filter[i] && p[i] &&
		       lower((unsigned char)p[i]) == lower((unsigned char)filter[i]))
			i++;
		if (!filter[i])
			return true;
	}
	return false;
}

/* the filters of wb_order_ops, in one place */
typedef struct listing {
	const char *filter;
	int only;
	const bool *among;
} listing;

static bool listed(const sc_graph *g, const int *stage, const listing *l, int v)
{
	return (l->only < 0 || stage[v] == l->only) && (!l->among || l->among[v]) &&
	       wb_name_matches(g->op_name[v], l->filter);
}

int wb_order_ops(const sc_graph *g, const int *stage, int k, const char *filter, int only,
                 const bool *among, int sort, const int *by_name, const int *by_value, int *out)
{
	const listing l = {.filter = filter, .only = only, .among = among};
	int n = g->n, m = 0;
	if (sort == WB_SORT_STAGE) {
		int *count = calloc((size_t)k + 1, sizeof *count);
		if (!count)
			return -1;
		for (int i = 0; i < n; i++)
			if (listed(g, stage, &l, by_name[i]))
				count[stage[by_name[i]] + 1]++;
		for (int s = 0; s < k; s++)
			count[s + 1] += count[s];
		for (int i = 0; i < n; i++) {
			int v = by_name[i];
			if (listed(g, stage, &l, v))
				out[count[stage[v]]++] = v;
		}
		m = count[k - 1];
		free(count);
		return m;
	}
	const int *src = sort == WB_SORT_WORK || sort == WB_SORT_PARAM ? by_value : by_name;
	for (int i = 0; i < n; i++)
		if (listed(g, stage, &l, src[i]))
			out[m++] = src[i];
	return m;
}

int *wb_ops_by(const sc_graph *g, const int *by_name, const double *value)
{
	int n = g->n;
	int *a = sc_malloc_n((size_t)n, sizeof *a), *tmp = sc_malloc_n((size_t)n, sizeof *tmp);
	if (!a || !tmp) {
		free(a);
		free(tmp);
		return NULL;
	}
	memcpy(a, by_name, (size_t)n * sizeof *a);
	sort_by_value(a, tmp, n, value);
	free(tmp);
	return a;
}

/* w->by_work made the order of the sort by work or param (one array is
 * kept: a switch between the two sorts costs one O(n log n) sort); false,
 * falling back to the sort by name, when out of memory. */
static bool value_order(wb *w)
{
	bool param = w->node_sort == WB_SORT_PARAM;
	if (w->by_work && w->by_param == param)
		return true;
	free(w->by_work);
	w->by_work = wb_ops_by(w->g, nv.by_name, param ? w->g->param : w->g->work);
	w->by_param = param;
	if (!w->by_work)
		w->node_sort = WB_SORT_NAME;
	return w->by_work != NULL;
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
	if (!names_ready(w))
		return;
	if (w->node_sort == WB_SORT_WORK || w->node_sort == WB_SORT_PARAM)
		value_order(w);
	if (w->node_only > w->set.k)
		w->node_only = 0; /* k changed under it */
	int m = wb_order_ops(g, w->stage, w->set.k, w->filter, w->node_only - 1, w->among,
	                     w->node_sort, nv.by_name, w->by_work, w->order);
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

/* The list's columns for a terminal cols wide: the name column as wide as
 * the widest name when there is room, else what is left once the stage,
 * range and work columns are placed (at least 12 cells); param and out
 * follow when the names keep 40 cells (or all they need) beside them, the
 * group takes the rest. */
typedef struct columns {
	int name, range;
	bool param, out;
} columns;

static columns layout(const wb *w, int cols)
{
	columns c = {.range = 5};
	int digits = w->set.k >= 100 ? 3 : w->set.k >= 10 ? 2 : 1;
	if (2 * digits + 1 > c.range)
		c.range = 2 * digits + 1;
	int base = 2 + 6 + (sc_graph_is_training(w->g) ? 7 : 0) + 1 + c.range + 1 + nv.num_w[0];
	int avail = cols - 1 - base, want = nv.longest < 40 ? nv.longest : 40;
	if (avail - 1 - nv.num_w[1] >= want) {
		c.param = true;
		avail -= 1 + nv.num_w[1];
	}
	if (c.param && avail - 1 - nv.num_w[2] >= want) {
		c.out = true;
		avail -= 1 + nv.num_w[2];
	}
	c.name = nv.longest < avail ? nv.longest : avail;
	if (c.name < 12)
		c.name = 12;
	return c;
}

/* Op v's name in the name column, width cells, padded: fitted with a
 * middle ellipsis, or the cells from nv.scroll on when scrolled (an
 * ellipsis at the end when more follows). */
static void put_name(const char *name, int width)
{
	char buf[1024];
	int got;
	if (nv.scroll == 0) {
		got = sc_names_fit(name, width, buf, sizeof buf);
	} else if (sc_names_width(name) > nv.scroll + width) {
		got = sc_names_cells(name, nv.scroll, width - 1, buf, sizeof buf);
		size_t len = strlen(buf);
		if (len + sizeof SC_NAMES_ELLIPSIS <= sizeof buf) {
			memcpy(buf + len, SC_NAMES_ELLIPSIS, sizeof SC_NAMES_ELLIPSIS);
			got++;
		}
	} else {
		got = sc_names_cells(name, nv.scroll, width, buf, sizeof buf);
	}
	printw("%s%*s", buf, width - got, "");
}

/* The list from row y: its column titles, then rows ops from node_top; on a
 * training graph with a pass column after the stage. */
static void list_draw(wb *w, int y, int rows, int cols)
{
	const sc_graph *g = w->g;
	bool training = sc_graph_is_training(g);
	char b1[48], b2[48], b3[48];
	columns c = layout(w, cols);
	nv.shown = c.name;
	if (nv.scroll > nv.longest - c.name)
		nv.scroll = nv.longest - c.name > 0 ? nv.longest - c.name : 0;
	char title[64] = "op";
	if (nv.scroll)
		snprintf(title, sizeof title, "op, from its cell %d (Left)", nv.scroll + 1);
	attron(A_BOLD);
	mvprintw(y, 0, "  %-*.*s %5s", c.name, c.name, title, "stage");
	if (training)
		printw(" %-6s", "pass");
	printw(" %*s %*s", c.range, "range", nv.num_w[0], "work");
	if (c.param)
		printw(" %*s", nv.num_w[1], "param");
	if (c.out)
		printw(" %*s", nv.num_w[2], "out");
	if (g->ngroups > 0 && cols - 1 - getcurx(stdscr) >= 9)
		printw("  group");
	attroff(A_BOLD);
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
		bool tied = w->stage[v] == at ||
		            sc_cost_at_bottleneck(w->c->st[w->stage[v]].cost, w->c->st[at].cost);
		mvprintw(y + 1 + r, 0, "%c ", tied ? '*' : ' ');
		put_name(g->op_name[v], c.name);
		printw(" %4d%c", w->stage[v] + 1, w->pinned[v] ? 'p' : ' ');
		if (training)
			printw(" %-6s", pass_of(g, v));
		printw(" %*s %*s", c.range, range, nv.num_w[0], ui_num(g->work[v], b1, sizeof b1));
		if (c.param)
			printw(" %*s", nv.num_w[1], ui_num(g->param[v], b2, sizeof b2));
		if (c.out)
			printw(" %*s", nv.num_w[2], ui_num(g->out[v], b3, sizeof b3));
		int room = cols - 3 - getcurx(stdscr);
		if (room >= 7 && g->group[v] >= 0) {
			char gname[512];
			sc_names_fit(g->group_name[g->group[v]], room, gname, sizeof gname);
			printw("  %s", gname);
		}
		if (i == w->node_sel)
			attroff(A_REVERSE);
	}
}

/* The selection line of op v: its name, degrees, group, pass, where its
 * work came from, the hint to open the detail. */
static void selection_text(const wb *w, int v, char *buf, size_t size)
{
	const sc_graph *g = w->g;
	size_t n = 0;
#define ADD(...)                                                                                   \
	do {                                                                                       \
		if (n < size)                                                                      \
			n += (size_t)snprintf(buf + n, size - n, __VA_ARGS__);                     \
	} while (0)
	ADD("%s: %d predecessors, %d successors", g->op_name[v], sc_graph_indeg(g, v),
	    sc_graph_outdeg(g, v));
	if (g->group[v] >= 0)
		ADD(", group %s", g->group_name[g->group[v]]);
	if (sc_graph_is_training(g))
		ADD("%s", !g->backward[v] ? ", forward pass"
		          : g->orphan[v]  ? ", backward pass, orphan (no forward op in its group)"
		                          : ", backward pass");
	/* where its work came from, when the file's own number it is not */
	if (g->work_source)
		ADD(", work %s", g->work_source[v] == SC_WORK_MEASURED ? "measured"
		                 : g->work_source[v] == SC_WORK_MODEL  ? "modelled"
		                                                       : "from the file");
	if (!w->detail)
		ADD("  (Enter: detail)");
#undef ADD
}

static void nodes_draw(wb *w, int y, int h, int cols)
{
	const sc_graph *g = w->g;
	attron(A_BOLD);
	mvprintw(y, 0, "ops: %d of %d", w->norder, g->n);
	if (w->node_only)
		printw(" in stage %d (2: every stage)", w->node_only);
	if (w->among)
		printw(" in %s (2: every op)", w->among_what);
	if (w->filter[0])
		printw("  matching \"%s\"", w->filter);
	printw("  sorted by %s", sort_names[w->node_sort]);
	if (w->npinned)
		printw("  %d pinned (p)", w->npinned);
	attroff(A_BOLD);
	bool sel = w->norder && w->node_sel < w->norder;
	/* the selection line: wrapped (names may be long), at most 3 rows */
	char line[1536];
	int sel_rows = 0, start[3], len[3];
	if (sel) {
		selection_text(w, w->order[w->node_sel], line, sizeof line);
		int need = wb_wrap(line, cols - 1, start, len, 3);
		sel_rows = need < 3 ? need : 3;
		if (sel_rows > h - 5)
			sel_rows = h - 5 > 1 ? h - 5 : 1;
		for (int i = 0; i < sel_rows; i++)
			mvprintw(y + 1 + i, 0, "%.*s", len[i], line + start[i]);
	}
	/* the detail pane takes the lower half, at least 12 rows (its lines
	 * and a few neighbours), leaving the list 3 */
	int pane = 0, top = 1 + (sel_rows ? sel_rows : 1);
	if (w->detail && sel) {
		pane = h / 2 > 12 ? h / 2 : 12;
		if (pane > h - top - 4)
			pane = h - top - 4;
		if (pane < 3)
			pane = 0;
	}
	int rows = h - top - 1 - pane;
	list_rows = rows > 1 ? rows : 1;
	list_draw(w, y + top, rows, cols);
	if (pane)
		wb_detail_draw(w, w->order[w->node_sel], y + h - pane, pane, cols);
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

/* The filter as it is typed: the list follows every key. */
static void filter_typed(wb *w, const char *line, int arg)
{
	(void)arg;
	snprintf(w->filter, sizeof w->filter, "%s", line);
	w->node_sel = w->node_top = 0;
	wb_nodes_refresh(w);
}

static unsigned filter_answer(wb *w, const char *text, bool ok, int arg)
{
	filter_typed(w, ok ? text : "", arg);
	if (w->filter[0])
		wb_say(w, "%d op%s match \"%s\"; n and N step through them", w->norder,
		       w->norder == 1 ? "" : "s", w->filter);
	return 0;
}

/* n and N: the next or previous op of the list matching the filter,
 * round the end (the list holds the matches and nothing else). */
static void step_match(wb *w, int delta)
{
	if (!w->filter[0]) {
		wb_say(w, "no filter: / sets one, then n and N step through its matches");
		return;
	}
	if (!w->norder) {
		wb_say(w, "no op matches \"%s\"", w->filter);
		return;
	}
	w->node_sel = ((w->node_sel + delta) % w->norder + w->norder) % w->norder;
	int v = w->order[w->node_sel];
	wb_say(w, "match %d of %d: %s (stage %d)", w->node_sel + 1, w->norder, w->g->op_name[v],
	       w->stage[v] + 1);
}

/* b: the next op of the bottleneck stage after the selection, round the
 * end; on a list limited to one stage, the list of the bottleneck's. */
static void bottleneck_op(wb *w)
{
	int at;
	sc_costs_bottleneck(w->c, &at);
	if (w->node_only && w->node_only != at + 1) {
		wb_nodes_open_stage(w, at);
		return;
	}
	for (int d = 1; d <= w->norder; d++) {
		int i = (w->node_sel + d) % w->norder;
		if (w->stage[w->order[i]] == at) {
			w->node_sel = i;
			wb_say(w, "the bottleneck stage %d: %s", at + 1,
			       w->g->op_name[w->order[i]]);
			return;
		}
	}
	wb_say(w, "no op of the bottleneck stage %d is listed", at + 1);
}

/* Lifts the limit to a module's ops. */
static void among_clear(wb *w)
{
	free(w->among);
	w->among = NULL;
	w->among_what[0] = '\0';
}

unsigned wb_nodes_open_stage(wb *w, int s)
{
	if (s < 0 || s >= w->set.k)
		return WB_HANDLED;
	w->view = &wb_nodes_view;
	w->node_only = s + 1;
	among_clear(w);
	w->stage_sel = s;
	w->node_sel = w->node_top = 0;
	wb_nodes_refresh(w);
	w->node_sel = w->node_top = 0;
	wb_say(w, "stage %d: %d op%s (2 lists every stage)", s + 1, w->norder,
	       w->norder == 1 ? "" : "s");
	return WB_HANDLED | WB_REDRAW;
}

unsigned wb_nodes_open_ops(wb *w, const int *ops, int n, const char *what)
{
	if (!w->among)
		w->among = sc_calloc_n((size_t)w->g->n, sizeof *w->among);
	else
		memset(w->among, 0, (size_t)w->g->n * sizeof *w->among);
	if (!w->among) {
		wb_say(w, "out of memory");
		return WB_HANDLED | WB_REDRAW;
	}
	for (int i = 0; i < n; i++)
		w->among[ops[i]] = true;
	snprintf(w->among_what, sizeof w->among_what, "%s", what);
	w->view = &wb_nodes_view;
	w->node_only = 0;
	w->filter[0] = '\0';
	w->node_sel = w->node_top = 0;
	wb_nodes_refresh(w);
	w->node_sel = w->node_top = 0;
	wb_say(w, "%s: %d op%s (2 lists every op)", what, w->norder, w->norder == 1 ? "" : "s");
	return WB_HANDLED | WB_REDRAW;
}

/* p: pins the selected op to the stage it is in when a search starts (a
 * hand move takes the pin along), or unpins it. */
static void pin_selected(wb *w)
{
	if (!w->norder)
		return;
	int v = w->order[w->node_sel];
	w->pinned[v] = !w->pinned[v];
	w->npinned += w->pinned[v] ? 1 : -1;
	if (w->pinned[v])
		wb_say(w,
		       "pinned %s to its stage (%d) for the next searches (s, S, r); %d pinned, P "
		       "unpins all",
		       w->g->op_name[v], w->stage[v] + 1, w->npinned);
	else
		wb_say(w, "unpinned %s; %d pinned", w->g->op_name[v], w->npinned);
}

/* Going to op u (( and ), the history): selected in the list, which lists
 * every stage and drops its filter when u is not in it; the detail pane
 * opens on it. */
static void go_to(wb *w, int u)
{
	int i = 0;
	while (i < w->norder && w->order[i] != u)
		i++;
	if (i == w->norder) {
		w->filter[0] = '\0';
		w->node_only = 0;
		among_clear(w);
		wb_nodes_refresh(w);
		for (i = 0; i < w->norder && w->order[i] != u; i++)
			;
	}
	if (i < w->norder)
		w->node_sel = i;
	w->detail = true;
	int back, forward;
	wb_nav_places(&back, &forward);
	wb_say(w, "%s (stage %d); { back (%d), } forward (%d)", w->g->op_name[u], w->stage[u] + 1,
	       back, forward);
}

/* { and }: a step through the history, or what it lacks. */
static void step_history(wb *w, bool forward)
{
	if (!w->norder)
		return;
	int cur = w->order[w->node_sel];
	int u = forward ? wb_nav_forward(cur) : wb_nav_back(cur);
	if (u < 0) {
		wb_say(w, forward ? "nothing to go forward to"
		                  : "nothing to go back to; ( and ) go to "
		                    "a predecessor, a successor");
		return;
	}
	go_to(w, u);
}

static unsigned nodes_key(wb *w, wb_action a, int ch)
{
	int page = list_rows;
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
		w->node_sort = (w->node_sort + 1) % WB_NSORTS;
		w->node_top = 0;
		wb_nodes_refresh(w);
		wb_say(w, "sorted by %s", sort_names[w->node_sort]);
		break;
	case WB_A_FILTER: {
		unsigned r = wb_ask(w, "filter ops by name, any case (empty: all):", w->filter,
		                    sizeof w->filter, filter_answer, 0);
		w->prompt.edited = filter_typed;
		return r;
	}
	case WB_A_NEXT_MATCH: step_match(w, +1); break;
	case WB_A_PREV_MATCH: step_match(w, -1); break;
	case WB_A_OPEN: w->detail = !w->detail; break;
	case WB_A_PIN: pin_selected(w); break;
	case WB_A_UNPIN_ALL:
		memset(w->pinned, 0, (size_t)w->g->n * sizeof *w->pinned);
		w->npinned = 0;
		wb_say(w, "no op is pinned now");
		break;
	case WB_A_BOTTLENECK: bottleneck_op(w); break;
	case WB_A_LEFT: nv.scroll = nv.scroll > SCROLL_STEP ? nv.scroll - SCROLL_STEP : 0; break;
	case WB_A_RIGHT:
		/* not past the end of the widest name */
		if (nv.scroll + nv.shown < nv.longest)
			nv.scroll += SCROLL_STEP;
		break;
	case WB_A_PRED:
	case WB_A_SUCC:
		if (!w->norder)
			break;
		return wb_nav_neighbour(w, w->order[w->node_sel], a == WB_A_SUCC, go_to);
	case WB_A_BACK: step_history(w, false); break;
	case WB_A_FORWARD: step_history(w, true); break;
	case WB_A_VIEW:
		/* leaving the list of one stage or one module, or 2 on it:
		 * every op again */
		if (!w->node_only && !w->among)
			return 0;
		w->node_only = 0;
		among_clear(w);
		wb_nodes_refresh(w);
		return ch == '2' ? WB_HANDLED | WB_REDRAW : 0;
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
