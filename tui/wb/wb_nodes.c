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
 * Its state (the list, its order, filter and limits, the name column's
 * widths and scrolling, the history of ops gone to: a wb_nav) is its own,
 * made by its init and freed by its fini (wb_view_ops), no file statics;
 * the functions the other files call find it with wb_view_state.
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
#include "tui/wb/wb_nodes.h"

#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "core/names.h"
#include "core/partition.h"
#include "tui/ui.h"
#include "tui/wb/wb_detail.h"
#include "tui/wb/wb_keytab.h"
#include "tui/wb/wb_lineedit.h"
#include "tui/wb/wb_nav.h"

static const char *const sort_names[WB_NSORTS] = {"stage", "work", "name", "param"};

/* The view's own state (made by its init, freed by its fini). */
typedef struct nodes_state {
	int *order, norder; /* the ops shown, in order */
	/* all ops by decreasing work (by_param false) or param (true) */
	int *by_work;
	bool by_param;
	int sel, top, sort;   /* the selected row, the first shown; sort: WB_SORT_* */
	char filter[64];      /* matched in any case */
	int only;             /* the 1-based stage shown alone, 0: every stage */
	bool *among;          /* only the ops marked (a module's: i in view 5), or NULL */
	char among_what[300]; /* what they are ("module layer2.1") */
	bool detail;          /* the op detail pane is open */
	int list_rows;        /* the rows the list had when last drawn: what a page is */
	/* the ops in natural name order and the widths of the columns, made
	 * once per graph (names is the graph's name array, to know it again),
	 * and how far the name column is scrolled (Left, Right; 0 shows every
	 * name fitted with a middle ellipsis) */
	char *const *names;
	int nnames;
	int *by_name;
	int longest;  /* the widest name, in cells */
	int num_w[3]; /* the widest work, param, out as ui_num writes them */
	int scroll;   /* the first cell of the names shown */
	int shown;    /* the name column's width when last drawn */
	wb_nav nav;   /* the ops gone to with ( ) { } (wb_nav.c) */
} nodes_state;

enum { SCROLL_STEP = 8 };

static void *nodes_init(wb *w)
{
	(void)w;
	nodes_state *ns = calloc(1, sizeof *ns);
	if (!ns)
		return NULL;
	ns->list_rows = 10;
	wb_nav_init(&ns->nav);
	return ns;
}

static void nodes_fini(wb *w, void *state)
{
	(void)w;
	nodes_state *ns = state;
	if (ns) {
		free(ns->order);
		free(ns->by_work);
		free(ns->among);
		free(ns->by_name);
	}
	free(ns);
}

/* Makes the order by name and the widths for w's graph, when not made
 * yet; false when out of memory. */
static bool names_ready(nodes_state *ns, const wb *w)
{
	const sc_graph *g = w->g;
	if (ns->by_name && ns->names == g->op_name && ns->nnames == g->n)
		return true;
	free(ns->by_name);
	ns->by_name = sc_names_order(g->op_name, g->n);
	ns->names = g->op_name;
	ns->nnames = g->n;
	ns->longest = 2;
	ns->num_w[0] = 4; /* "work" */
	ns->num_w[1] = ns->num_w[2] = 5;
	ns->scroll = 0;
	for (int v = 0; v < g->n; v++) {
		int nw = sc_names_width(g->op_name[v]);
		if (nw > ns->longest)
			ns->longest = nw;
		const double *val[3] = {g->work, g->param, g->out};
		for (int c = 0; c < 3; c++) {
			char b[48];
			int len = (int)strlen(ui_num(val[c][v], b, sizeof b));
			if (len > ns->num_w[c])
				ns->num_w[c] = len;
		}
	}
	return ns->by_name != NULL;
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

/* ns->by_work made the order of the sort by work or param (one array is
 * kept: a switch between the two sorts costs one O(n log n) sort); false,
 * falling back to the sort by name, when out of memory. */
static bool value_order(nodes_state *ns, wb *w)
{
	bool param = ns->sort == WB_SORT_PARAM;
	if (ns->by_work && ns->by_param == param)
		return true;
	free(ns->by_work);
	ns->by_work = wb_ops_by(w->g, ns->by_name, param ? w->g->param : w->g->work);
	ns->by_param = param;
	if (!ns->by_work)
		ns->sort = WB_SORT_NAME;
	return ns->by_work != NULL;
}

/* wb_nodes_refresh on the view's state. */
static void rebuild_list(nodes_state *ns, wb *w)
{
	const sc_graph *g = w->g;
	int n = g->n;
	int keep = ns->order && ns->sel < ns->norder ? ns->order[ns->sel] : -1;
	if (!ns->order) {
		ns->order = sc_malloc_n((size_t)n, sizeof *ns->order);
		if (!ns->order)
			return;
	}
	if (!names_ready(ns, w))
		return;
	if (ns->sort == WB_SORT_WORK || ns->sort == WB_SORT_PARAM)
		value_order(ns, w);
	if (ns->only > sc_settings_stages(&w->set))
		ns->only = 0; /* k changed under it */
	int m = wb_order_ops(g, w->stage, sc_settings_stages(&w->set), ns->filter, ns->only - 1,
	                     ns->among, ns->sort, ns->by_name, ns->by_work, ns->order);
	if (m < 0)
		return;
	ns->norder = m;
	if (keep >= 0)
		for (int i = 0; i < m; i++)
			if (ns->order[i] == keep) {
				ns->sel = i;
				break;
			}
	if (ns->sel >= m)
		ns->sel = m ? m - 1 : 0;
}

void wb_nodes_refresh(wb *w)
{
	nodes_state *ns = wb_view_state(w, &wb_nodes_view);
	if (ns)
		rebuild_list(ns, w);
}

/* The pass column of a training graph: fw, bw, or orphan (a backward op
 * whose group holds no forward op, under the mirror rule). */
static const char *pass_of(const sc_graph *g, int v)
{
	return !g->backward[v] ? "fw" : g->orphan[v] ? "orphan" : "bw";
}

/* Keeps the selection on screen in rows rows. */
static void scroll_to_selection(nodes_state *ns, int rows)
{
	if (ns->sel < ns->top)
		ns->top = ns->sel;
	if (ns->sel >= ns->top + rows)
		ns->top = ns->sel - rows + 1;
	if (ns->top < 0)
		ns->top = 0;
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

static columns layout(const nodes_state *ns, const wb *w, int cols)
{
	columns c = {.range = 5};
	int K = sc_settings_stages(&w->set), digits = K >= 100 ? 3 : K >= 10 ? 2 : 1;
	if (2 * digits + 1 > c.range)
		c.range = 2 * digits + 1;
	int base = 2 + 6 + (sc_graph_is_training(w->g) ? 7 : 0) + 1 + c.range + 1 + ns->num_w[0];
	int avail = cols - 1 - base, want = ns->longest < 40 ? ns->longest : 40;
	if (avail - 1 - ns->num_w[1] >= want) {
		c.param = true;
		avail -= 1 + ns->num_w[1];
	}
	if (c.param && avail - 1 - ns->num_w[2] >= want) {
		c.out = true;
		avail -= 1 + ns->num_w[2];
	}
	c.name = ns->longest < avail ? ns->longest : avail;
	if (c.name < 12)
		c.name = 12;
	return c;
}

/* Op v's name in the name column, width cells, padded: fitted with a
 * middle ellipsis, or the cells from ns->scroll on when scrolled (an
 * ellipsis at the end when more follows). */
static void put_name(const nodes_state *ns, const char *name, int width)
{
	char buf[1024];
	int got;
	if (ns->scroll == 0) {
		got = sc_names_fit(name, width, buf, sizeof buf);
	} else if (sc_names_width(name) > ns->scroll + width) {
		got = sc_names_cells(name, ns->scroll, width - 1, buf, sizeof buf);
		size_t len = strlen(buf);
		if (len + sizeof SC_NAMES_ELLIPSIS <= sizeof buf) {
			memcpy(buf + len, SC_NAMES_ELLIPSIS, sizeof SC_NAMES_ELLIPSIS);
			got++;
		}
	} else {
		got = sc_names_cells(name, ns->scroll, width, buf, sizeof buf);
	}
	printw("%s%*s", buf, width - got, "");
}

/* The list from row y: its column titles, then rows ops from ns->top; on a
 * training graph with a pass column after the stage. */
static void list_draw(nodes_state *ns, wb *w, int y, int rows, int cols)
{
	const sc_graph *g = w->g;
	bool training = sc_graph_is_training(g);
	char b1[48], b2[48], b3[48];
	columns c = layout(ns, w, cols);
	ns->shown = c.name;
	if (ns->scroll > ns->longest - c.name)
		ns->scroll = ns->longest - c.name > 0 ? ns->longest - c.name : 0;
	char title[64] = "op";
	if (ns->scroll)
		snprintf(title, sizeof title, "op, from its cell %d (Left)", ns->scroll + 1);
	attron(A_BOLD);
	mvprintw(y, 0, "  %-*.*s %5s", c.name, c.name, title, "stage");
	if (training)
		printw(" %-6s", "pass");
	printw(" %*s %*s", c.range, "range", ns->num_w[0], "work");
	if (c.param)
		printw(" %*s", ns->num_w[1], "param");
	if (c.out)
		printw(" %*s", ns->num_w[2], "out");
	if (g->ngroups > 0 && cols - 1 - getcurx(stdscr) >= 9)
		printw("  group");
	attroff(A_BOLD);
	if (rows < 1)
		return;
	scroll_to_selection(ns, rows);
	int at;
	sc_costs_bottleneck(w->c, &at);
	for (int r = 0; r < rows && ns->top + r < ns->norder; r++) {
		int i = ns->top + r, v = ns->order[i];
		int lo, hi;
		sc_editor_range(w->ed, v, &lo, &hi);
		char range[24];
		if (lo == hi)
			snprintf(range, sizeof range, "fixed");
		else
			snprintf(range, sizeof range, "%d-%d", lo + 1, hi + 1);
		if (i == ns->sel)
			attron(A_REVERSE);
		bool tied = w->stage[v] == at ||
		            sc_cost_at_bottleneck(w->c->st[w->stage[v]].cost, w->c->st[at].cost);
		mvprintw(y + 1 + r, 0, "%c ", tied ? '*' : ' ');
		put_name(ns, g->op_name[v], c.name);
		printw(" %4d%c", w->stage[v] + 1, w->pinned[v] ? 'p' : ' ');
		if (training)
			printw(" %-6s", pass_of(g, v));
		printw(" %*s %*s", c.range, range, ns->num_w[0], ui_num(g->work[v], b1, sizeof b1));
		if (c.param)
			printw(" %*s", ns->num_w[1], ui_num(g->param[v], b2, sizeof b2));
		if (c.out)
			printw(" %*s", ns->num_w[2], ui_num(g->out[v], b3, sizeof b3));
		int room = cols - 3 - getcurx(stdscr);
		if (room >= 7 && g->group[v] >= 0) {
			char gname[512];
			sc_names_fit(g->group_name[g->group[v]], room, gname, sizeof gname);
			printw("  %s", gname);
		}
		if (i == ns->sel)
			attroff(A_REVERSE);
	}
}

/* The selection line of op v: its name, degrees, group, pass, where its
 * work came from, the hint to open the detail. */
static void selection_text(const nodes_state *ns, const wb *w, int v, char *buf, size_t size)
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
	if (!ns->detail)
		ADD("  (Enter: detail)");
#undef ADD
}

static void nodes_draw(wb *w, int y, int h, int cols)
{
	nodes_state *ns = wb_view_state(w, &wb_nodes_view);
	if (!ns)
		return;
	const sc_graph *g = w->g;
	attron(A_BOLD);
	mvprintw(y, 0, "ops: %d of %d", ns->norder, g->n);
	if (ns->only)
		printw(" in stage %d (2: every stage)", ns->only);
	if (ns->among)
		printw(" in %s (2: every op)", ns->among_what);
	if (ns->filter[0])
		printw("  matching \"%s\"", ns->filter);
	printw("  sorted by %s", sort_names[ns->sort]);
	if (w->npinned)
		printw("  %d pinned (p)", w->npinned);
	attroff(A_BOLD);
	bool sel = ns->norder && ns->sel < ns->norder;
	/* the selection line: wrapped (names may be long), at most 3 rows */
	char line[1536];
	int sel_rows = 0, start[3], len[3];
	if (sel) {
		selection_text(ns, w, ns->order[ns->sel], line, sizeof line);
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
	if (ns->detail && sel) {
		pane = h / 2 > 12 ? h / 2 : 12;
		if (pane > h - top - 4)
			pane = h - top - 4;
		if (pane < 3)
			pane = 0;
	}
	int rows = h - top - 1 - pane;
	ns->list_rows = rows > 1 ? rows : 1;
	list_draw(ns, w, y + top, rows, cols);
	if (pane)
		wb_detail_draw(w, ns->order[ns->sel], y + h - pane, pane, cols);
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

static void move_selected(nodes_state *ns, wb *w, int delta, bool dependents)
{
	if (!ns->norder)
		return;
	const sc_graph *g = w->g;
	bool training = sc_graph_is_training(g);
	int v = ns->order[ns->sel], to = w->stage[v] + delta;
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
	nodes_state *ns = wb_view_state(w, &wb_nodes_view);
	if (!ns)
		return;
	snprintf(ns->filter, sizeof ns->filter, "%s", line);
	ns->sel = ns->top = 0;
	rebuild_list(ns, w);
}

static unsigned filter_answer(wb *w, const char *text, bool ok, int arg)
{
	filter_typed(w, ok ? text : "", arg);
	const nodes_state *ns = wb_view_state(w, &wb_nodes_view);
	if (ns && ns->filter[0])
		wb_say(w, "%d op%s match \"%s\"; n and N step through them", ns->norder,
		       ns->norder == 1 ? "" : "s", ns->filter);
	return 0;
}

/* n and N: the next or previous op of the list matching the filter,
 * round the end (the list holds the matches and nothing else). */
static void step_match(nodes_state *ns, wb *w, int delta)
{
	if (!ns->filter[0]) {
		wb_say(w, "no filter: / sets one, then n and N step through its matches");
		return;
	}
	if (!ns->norder) {
		wb_say(w, "no op matches \"%s\"", ns->filter);
		return;
	}
	ns->sel = ((ns->sel + delta) % ns->norder + ns->norder) % ns->norder;
	int v = ns->order[ns->sel];
	wb_say(w, "match %d of %d: %s (stage %d)", ns->sel + 1, ns->norder, w->g->op_name[v],
	       w->stage[v] + 1);
}

/* b: the next op of the bottleneck stage after the selection, round the
 * end; on a list limited to one stage, the list of the bottleneck's. */
static void bottleneck_op(nodes_state *ns, wb *w)
{
	int at;
	sc_costs_bottleneck(w->c, &at);
	if (ns->only && ns->only != at + 1) {
		wb_nodes_open_stage(w, at);
		return;
	}
	for (int d = 1; d <= ns->norder; d++) {
		int i = (ns->sel + d) % ns->norder;
		if (w->stage[ns->order[i]] == at) {
			ns->sel = i;
			wb_say(w, "the bottleneck stage %d: %s", at + 1,
			       w->g->op_name[ns->order[i]]);
			return;
		}
	}
	wb_say(w, "no op of the bottleneck stage %d is listed", at + 1);
}

/* Lifts the limit to a module's ops. */
static void among_clear(nodes_state *ns)
{
	free(ns->among);
	ns->among = NULL;
	ns->among_what[0] = '\0';
}

unsigned wb_nodes_open_stage(wb *w, int s)
{
	nodes_state *ns = wb_view_state(w, &wb_nodes_view);
	if (!ns || s < 0 || s >= sc_settings_stages(&w->set))
		return WB_HANDLED;
	w->view = &wb_nodes_view;
	ns->only = s + 1;
	among_clear(ns);
	w->stage_sel = s;
	ns->sel = ns->top = 0;
	rebuild_list(ns, w);
	ns->sel = ns->top = 0;
	wb_say(w, "stage %d: %d op%s (2 lists every stage)", s + 1, ns->norder,
	       ns->norder == 1 ? "" : "s");
	return WB_HANDLED | WB_REDRAW;
}

unsigned wb_nodes_open_ops(wb *w, const int *ops, int n, const char *what)
{
	nodes_state *ns = wb_view_state(w, &wb_nodes_view);
	if (!ns)
		return WB_HANDLED;
	if (!ns->among)
		ns->among = sc_calloc_n((size_t)w->g->n, sizeof *ns->among);
	else
		memset(ns->among, 0, (size_t)w->g->n * sizeof *ns->among);
	if (!ns->among) {
		wb_say(w, "out of memory");
		return WB_HANDLED | WB_REDRAW;
	}
	for (int i = 0; i < n; i++)
		ns->among[ops[i]] = true;
	snprintf(ns->among_what, sizeof ns->among_what, "%s", what);
	w->view = &wb_nodes_view;
	ns->only = 0;
	ns->filter[0] = '\0';
	ns->sel = ns->top = 0;
	rebuild_list(ns, w);
	ns->sel = ns->top = 0;
	wb_say(w, "%s: %d op%s (2 lists every op)", what, ns->norder, ns->norder == 1 ? "" : "s");
	return WB_HANDLED | WB_REDRAW;
}

/* p: pins the selected op to the stage it is in when a search starts (a
 * hand move takes the pin along), or unpins it. */
static void pin_selected(nodes_state *ns, wb *w)
{
	if (!ns->norder)
		return;
	int v = ns->order[ns->sel];
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
	nodes_state *ns = wb_view_state(w, &wb_nodes_view);
	if (!ns)
		return;
	int i = 0;
	while (i < ns->norder && ns->order[i] != u)
		i++;
	if (i == ns->norder) {
		ns->filter[0] = '\0';
		ns->only = 0;
		among_clear(ns);
		rebuild_list(ns, w);
		for (i = 0; i < ns->norder && ns->order[i] != u; i++)
			;
	}
	if (i < ns->norder)
		ns->sel = i;
	ns->detail = true;
	int back, forward;
	wb_nav_places(&ns->nav, &back, &forward);
	wb_say(w, "%s (stage %d); { back (%d), } forward (%d)", w->g->op_name[u], w->stage[u] + 1,
	       back, forward);
}

/* { and }: a step through the history, or what it lacks. */
static void step_history(nodes_state *ns, wb *w, bool forward)
{
	if (!ns->norder)
		return;
	int cur = ns->order[ns->sel];
	int u = forward ? wb_nav_forward(&ns->nav, cur) : wb_nav_back(&ns->nav, cur);
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
	nodes_state *ns = wb_view_state(w, &wb_nodes_view);
	if (!ns)
		return 0;
	int page = ns->list_rows;
	switch (a) {
	case WB_A_DOWN:
		if (ns->sel + 1 < ns->norder)
			ns->sel++;
		break;
	case WB_A_UP:
		if (ns->sel > 0)
			ns->sel--;
		break;
	case WB_A_PAGE_DOWN:
		ns->sel = ns->sel + page < ns->norder ? ns->sel + page
		                                      : (ns->norder ? ns->norder - 1 : 0);
		break;
	case WB_A_PAGE_UP: ns->sel = ns->sel > page ? ns->sel - page : 0; break;
	case WB_A_FIRST: ns->sel = 0; break;
	case WB_A_LAST: ns->sel = ns->norder ? ns->norder - 1 : 0; break;
	case WB_A_EARLIER: move_selected(ns, w, -1, false); break;
	case WB_A_LATER: move_selected(ns, w, +1, false); break;
	case WB_A_EARLIER_ALL: move_selected(ns, w, -1, true); break;
	case WB_A_LATER_ALL: move_selected(ns, w, +1, true); break;
	case WB_A_SORT:
		ns->sort = (ns->sort + 1) % WB_NSORTS;
		ns->top = 0;
		rebuild_list(ns, w);
		wb_say(w, "sorted by %s", sort_names[ns->sort]);
		break;
	case WB_A_FILTER:
		return wb_ask_typed(w, "filter ops by name, any case (empty: all):", ns->filter,
		                    sizeof ns->filter, filter_answer, filter_typed, 0);
	case WB_A_NEXT_MATCH: step_match(ns, w, +1); break;
	case WB_A_PREV_MATCH: step_match(ns, w, -1); break;
	case WB_A_OPEN: ns->detail = !ns->detail; break;
	case WB_A_PIN: pin_selected(ns, w); break;
	case WB_A_UNPIN_ALL:
		memset(w->pinned, 0, (size_t)w->g->n * sizeof *w->pinned);
		w->npinned = 0;
		wb_say(w, "no op is pinned now");
		break;
	case WB_A_BOTTLENECK: bottleneck_op(ns, w); break;
	case WB_A_LEFT: ns->scroll = ns->scroll > SCROLL_STEP ? ns->scroll - SCROLL_STEP : 0; break;
	case WB_A_RIGHT:
		/* not past the end of the widest name */
		if (ns->scroll + ns->shown < ns->longest)
			ns->scroll += SCROLL_STEP;
		break;
	case WB_A_PRED:
	case WB_A_SUCC:
		if (!ns->norder)
			break;
		return wb_nav_neighbour(w, &ns->nav, ns->order[ns->sel], a == WB_A_SUCC, go_to);
	case WB_A_BACK: step_history(ns, w, false); break;
	case WB_A_FORWARD: step_history(ns, w, true); break;
	case WB_A_VIEW:
		/* leaving the list of one stage or one module, or 2 on it:
		 * every op again */
		if (!ns->only && !ns->among)
			return 0;
		ns->only = 0;
		among_clear(ns);
		rebuild_list(ns, w);
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
                                   .on_change = wb_nodes_refresh,
                                   .init = nodes_init,
                                   .fini = nodes_fini};
