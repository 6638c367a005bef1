/*
 * wb_modules.c - the fifth view (5): the graph's module tree (core/modules.h),
 * so the engineer sees the split in the terms of the model
 * (encoder_layer_3, layer2.1) rather than of its ops.
 *
 * One row per module shown, in preorder: a mark (* the bottleneck module of
 * its depth), + or - for a module with modules below it (folded, unfolded),
 * its label indented by depth, its ops (its own and those below), its work
 * (the sum of its ops' work), the stages its ops span in the partition on
 * screen and its share of the bottleneck stage's work.  The bottleneck
 * module of a depth is the module of that depth holding the largest part of
 * the bottleneck stage's work (the first in preorder on a tie), so b walks
 * down from the top-level one to the deepest.  The selection line gives
 * the fully qualified name.  Enter, Right and + unfold, Left and - fold
 * (Left on a folded module goes to its parent); / searches the fully
 * qualified names as you type, n N step through the matches, unfolding
 * what hides them; i opens the node browser on the selected module's ops
 * alone (a module's name is no substring of its ops' names, so the
 * browser's filter cannot do it).
 *
 * The tree is made once per graph; the figures (work, stage ranges,
 * shares, marks) are recomputed on every change of the partition
 * (on_change) in O(ops x depth).  The selection is a module, not a row, so
 * it stays put when rows fold above it.  All of it is the view's own state
 * (modules_state), made by its init and freed by its fini (wb_view_ops),
 * found through wb_view_state: no file statics.
 *
 * Layer: a view (layer 4 in wb.h) above the node browser: it calls the
 * state, the prompt, the frame (wb_attr) and wb_nodes_open_ops.
 */
#define _POSIX_C_SOURCE 200809L
#include "tui/wb/wb_modules.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "core/modules.h"
#include "core/names.h"
#include "tui/ui.h"
#include "tui/wb/wb_draw.h"
#include "tui/wb/wb_keytab.h"
#include "tui/wb/wb_lineedit.h"
#include "tui/wb/wb_nodes.h"

/* The view's state: the tree of the graph whose op names are names (to
 * know it again), the figures as of part_version version, the folds, the
 * selected module and the first row shown, the search. */
typedef struct modules_state {
	char *const *names;
	int n;
	sc_modules *m; /* NULL: not made yet, or out of memory (failed) */
	bool failed;
	bool *open;       /* per module: unfolded */
	double *work;     /* per module: its ops' work */
	double *in_bn;    /* per module: its ops' work in the bottleneck stage */
	int *lo, *hi;     /* per module: the first and last stage of its ops */
	bool *marked;     /* per module: the bottleneck module of its depth */
	int *row, nrow;   /* the modules shown, in preorder */
	int at;           /* the bottleneck stage (0-based) */
	double bn_work;   /* the work of its ops */
	unsigned version; /* the partition the figures are of */
	bool fresh;       /* the figures were computed at least once */
	int cur, top;     /* the selected module, the first row shown */
	int page;         /* the list's rows when last drawn */
	char filter[64];
} modules_state;

/* Forgets the tree and its figures (another graph, or out of memory). */
static void forget(modules_state *mv)
{
	sc_modules_free(mv->m);
	free(mv->open);
	free(mv->work);
	free(mv->in_bn);
	free(mv->lo);
	free(mv->hi);
	free(mv->marked);
	free(mv->row);
	memset(mv, 0, sizeof *mv);
	mv->cur = 1;
	mv->page = 10;
}

static void *modules_init(wb *w)
{
	(void)w;
	modules_state *mv = calloc(1, sizeof *mv);
	if (mv)
		forget(mv);
	return mv;
}

static void modules_fini(wb *w, void *state)
{
	(void)w;
	if (state)
		forget(state);
	free(state);
}

/* The view's state (NULL before start-up made it). */
static modules_state *state_of(const wb *w)
{
	return wb_view_state(w, &wb_modules_view);
}

/* The tree of w's graph, made when not made yet; false when it cannot be
 * (out of memory). */
static bool tree_ready(modules_state *mv, const wb *w)
{
	if (mv->m && mv->names == w->g->op_name && mv->n == w->g->n)
		return true;
	if (mv->failed && mv->names == w->g->op_name && mv->n == w->g->n)
		return false;
	forget(mv);
	mv->names = w->g->op_name;
	mv->n = w->g->n;
	sc_error err;
	sc_error_clear(&err);
	mv->m = sc_modules_new(w->g, &err);
	int n = mv->m ? mv->m->n : 0;
	mv->open = sc_calloc_n((size_t)n + 1, sizeof *mv->open);
	mv->work = sc_calloc_n((size_t)n + 1, sizeof *mv->work);
	mv->in_bn = sc_calloc_n((size_t)n + 1, sizeof *mv->in_bn);
	mv->lo = sc_calloc_n((size_t)n + 1, sizeof *mv->lo);
	mv->hi = sc_calloc_n((size_t)n + 1, sizeof *mv->hi);
	mv->marked = sc_calloc_n((size_t)n + 1, sizeof *mv->marked);
	mv->row = sc_calloc_n((size_t)n + 1, sizeof *mv->row);
	if (!mv->m || !mv->open || !mv->work || !mv->in_bn || !mv->lo || !mv->hi || !mv->marked ||
	    !mv->row) {
		forget(mv);
		mv->names = w->g->op_name;
		mv->n = w->g->n;
		mv->failed = true;
		return false;
	}
	mv->open[0] = true; /* the root is never shown: its children are the top rows */
	mv->cur = n > 1 ? 1 : 0;
	mv->fresh = false;
	return true;
}

/* The figures of every module for the partition on screen. */
static void figures(modules_state *mv, const wb *w)
{
	const sc_modules *m = mv->m;
	const sc_graph *g = w->g;
	sc_costs_bottleneck(w->c, &mv->at);
	mv->bn_work = 0;
	for (int v = 0; v < g->n; v++)
		if (w->stage[v] == mv->at)
			mv->bn_work += g->work[v];
	for (int i = 0; i < m->n; i++) {
		mv->work[i] = mv->in_bn[i] = 0;
		mv->lo[i] = sc_settings_stages(&w->set);
		mv->hi[i] = -1;
		mv->marked[i] = false;
		for (int j = m->m[i].first; j < m->m[i].end; j++) {
			int v = m->ops_sorted[j], s = w->stage[v];
			mv->work[i] += g->work[v];
			if (s == mv->at)
				mv->in_bn[i] += g->work[v];
			if (s < mv->lo[i])
				mv->lo[i] = s;
			if (s > mv->hi[i])
				mv->hi[i] = s;
		}
	}
	/* the bottleneck module of each depth: the largest part, the first on a tie */
	for (int d = 1; d <= m->max_depth; d++) {
		int best = -1;
		for (int i = 1; i < m->n; i++)
			if (m->m[i].depth == d && mv->in_bn[i] > 0 &&
			    (best < 0 || mv->in_bn[i] > mv->in_bn[best]))
				best = i;
		if (best >= 0)
			mv->marked[best] = true;
	}
	mv->version = w->part_version;
	mv->fresh = true;
}

static void modules_changed(wb *w)
{
	modules_state *mv = state_of(w);
	if (!mv)
		return;
	if (mv->m && mv->names == w->g->op_name)
		figures(mv, w);
}

/* The rows shown: the modules whose ancestors below the root are all
 * unfolded, in preorder; the selection moved up to the nearest shown
 * ancestor when folded away. */
static void make_rows(modules_state *mv)
{
	const sc_modules *m = mv->m;
	mv->nrow = 0;
	for (int i = 1; i < m->n; i++) {
		bool shown = true;
		for (int p = m->m[i].parent; p > 0 && shown; p = m->m[p].parent)
			shown = mv->open[p];
		if (shown)
			mv->row[mv->nrow++] = i;
	}
	while (mv->cur > 0) {
		bool shown = true;
		for (int p = m->m[mv->cur].parent; p > 0 && shown; p = m->m[p].parent)
			shown = mv->open[p];
		if (shown)
			break;
		mv->cur = m->m[mv->cur].parent;
	}
	if (mv->cur <= 0 && mv->nrow)
		mv->cur = mv->row[0];
}

/* The row of the selected module (0 when none). */
static int cur_row(const modules_state *mv)
{
	for (int r = 0; r < mv->nrow; r++)
		if (mv->row[r] == mv->cur)
			return r;
	return 0;
}

/* Unfolds every ancestor of module i, so that its row is shown. */
static void reveal(modules_state *mv, int i)
{
	for (int p = mv->m->m[i].parent; p > 0; p = mv->m->m[p].parent)
		mv->open[p] = true;
}

/* "3" or "3-5" (1-based) for module i's stages. */
static const char *stages_text(const modules_state *mv, int i, char *buf, size_t size)
{
	if (mv->hi[i] < 0)
		snprintf(buf, size, "-");
	else if (mv->lo[i] == mv->hi[i])
		snprintf(buf, size, "%d", mv->lo[i] + 1);
	else
		snprintf(buf, size, "%d-%d", mv->lo[i] + 1, mv->hi[i] + 1);
	return buf;
}

static double share(const modules_state *mv, int i)
{
	return mv->bn_work > 0 ? 100.0 * mv->in_bn[i] / mv->bn_work : 0.0;
}

/* The selection line of module i: its fully qualified name and figures. */
static void selection_text(const modules_state *mv, int i, char *buf, size_t size)
{
	const sc_module *md = &mv->m->m[i];
	char st[32], wk[48];
	int ops = md->end - md->first, own = sc_modules_own_ops(mv->m, i);
	snprintf(buf, size,
	         "%s: %d op%s (%d its own), work %s, stage%s %s, %.1f%% of bottleneck stage %d's "
	         "work%s  (i: its ops)",
	         md->name, ops, ops == 1 ? "" : "s", own, ui_num(mv->work[i], wk, sizeof wk),
	         mv->lo[i] == mv->hi[i] ? "" : "s", stages_text(mv, i, st, sizeof st), share(mv, i),
	         mv->at + 1, mv->marked[i] ? ", the bottleneck module of its depth" : "");
}

enum { OPS_W = 6, WORK_W = 10, STAGES_W = 7, SHARE_W = 7 };

static void list_draw(modules_state *mv, wb *w, int y, int rows, int cols)
{
	const sc_modules *m = mv->m;
	int name_w = cols - 1 - 4 - (1 + OPS_W) - (1 + WORK_W) - (1 + STAGES_W) - (1 + SHARE_W);
	if (name_w < 12)
		name_w = 12;
	attron(A_BOLD);
	mvprintw(y, 0, "    %-*s %*s %*s %*s %*s", name_w, "module", OPS_W, "ops", WORK_W, "work",
	         STAGES_W, "stages", SHARE_W, "of bn");
	attroff(A_BOLD);
	int sel = cur_row(mv);
	if (sel < mv->top)
		mv->top = sel;
	if (sel >= mv->top + rows)
		mv->top = sel - rows + 1;
	if (mv->top > mv->nrow - rows)
		mv->top = mv->nrow - rows > 0 ? mv->nrow - rows : 0;
	for (int r = 0; r < rows && mv->top + r < mv->nrow; r++) {
		int i = mv->row[mv->top + r];
		const sc_module *md = &m->m[i];
		char label[1024], fitted[1024], wk[48], st[32];
		snprintf(label, sizeof label, "%*s%s", 2 * (md->depth - 1), "", md->label);
		int got = sc_names_fit(label, name_w, fitted, sizeof fitted);
		if (mv->marked[i])
			wb_attr(w, WB_PAIR_BOTTLENECK, A_BOLD, true);
		mvprintw(y + 1 + r, 0, "%c ", mv->marked[i] ? '*' : ' ');
		if (mv->marked[i])
			wb_attr(w, WB_PAIR_BOTTLENECK, A_BOLD, false);
		if (i == mv->cur)
			attron(A_REVERSE);
		printw("%c %s%*s",
		       md->first_child < 0 ? ' '
		       : mv->open[i]       ? '-'
		                           : '+',
		       fitted, name_w - got, "");
		printw(" %*d %*s %*s %*.1f%%", OPS_W, md->end - md->first, WORK_W,
		       ui_num(mv->work[i], wk, sizeof wk), STAGES_W,
		       stages_text(mv, i, st, sizeof st), SHARE_W - 1, share(mv, i));
		if (i == mv->cur)
			attroff(A_REVERSE);
	}
}

static void modules_draw(wb *w, int y, int h, int cols)
{
	modules_state *mv = state_of(w);
	if (!mv)
		return;
	if (!tree_ready(mv, w)) {
		mvprintw(y, 0, "the module tree could not be made: out of memory");
		return;
	}
	const sc_modules *m = mv->m;
	if (m->n <= 1) {
		mvprintw(y, 0,
		         "no modules: no op name has a module path (/encoder/mlp/Add, "
		         "layer1.0.conv)");
		return;
	}
	if (!mv->fresh || mv->version != w->part_version)
		figures(mv, w);
	make_rows(mv);
	int none = sc_modules_own_ops(m, 0);
	attron(A_BOLD);
	mvprintw(y, 0, "modules: %d, depth %d; %d op%s in none; bottleneck stage %d", m->n - 1,
	         m->max_depth, none, none == 1 ? "" : "s", mv->at + 1);
	if (mv->filter[0])
		printw("  search \"%s\"", mv->filter);
	attroff(A_BOLD);
	char line[2048];
	int start[2], len[2], sel_rows = 0;
	if (mv->cur > 0) {
		selection_text(mv, mv->cur, line, sizeof line);
		int need = wb_wrap(line, cols - 1, start, len, 2);
		sel_rows = need < 2 ? need : 2;
		for (int i = 0; i < sel_rows; i++)
			mvprintw(y + 1 + i, 0, "%.*s", len[i], line + start[i]);
	}
	int top = 1 + (sel_rows ? sel_rows : 1);
	int rows = h - top - 1;
	mv->page = rows > 1 ? rows : 1;
	list_draw(mv, w, y + top, rows, cols);
}

/* The next (delta 1) or previous (-1) module in preorder after the
 * selected one whose name matches the search, round the end; -1 when
 * none.  With from_here the selected one itself counts. */
static int find_match(const modules_state *mv, int delta, bool from_here)
{
	int n = mv->m->n - 1; /* modules 1 .. n */
	for (int d = from_here ? 0 : 1; d <= n; d++) {
		int i = ((mv->cur - 1 + delta * d) % n + n) % n + 1;
		if (wb_name_matches(mv->m->m[i].name, mv->filter))
			return i;
	}
	return -1;
}

static void go_to(modules_state *mv, int i)
{
	reveal(mv, i);
	mv->cur = i;
}

static void search_typed(wb *w, const char *line, int arg)
{
	modules_state *mv = state_of(w);
	if (!mv)
		return;
	(void)arg;
	snprintf(mv->filter, sizeof mv->filter, "%s", line);
	int i = mv->filter[0] ? find_match(mv, 1, true) : -1;
	if (i > 0)
		go_to(mv, i);
}

static unsigned search_answer(wb *w, const char *text, bool ok, int arg)
{
	modules_state *mv = state_of(w);
	if (!mv)
		return 0;
	search_typed(w, ok ? text : "", arg);
	if (!mv->filter[0])
		return 0;
	int count = 0;
	for (int i = 1; i < mv->m->n; i++)
		count += wb_name_matches(mv->m->m[i].name, mv->filter);
	if (count)
		wb_say(w, "%d module%s match \"%s\"; n and N step through them", count,
		       count == 1 ? "" : "s", mv->filter);
	else
		wb_say(w, "no module matches \"%s\"", mv->filter);
	return 0;
}

static void step_match(modules_state *mv, wb *w, int delta)
{
	if (!mv->filter[0]) {
		wb_say(w, "no search: / sets one, then n and N step through its matches");
		return;
	}
	int i = find_match(mv, delta, false);
	if (i < 0) {
		wb_say(w, "no module matches \"%s\"", mv->filter);
		return;
	}
	go_to(mv, i);
	wb_say(w, "%s", mv->m->m[i].name);
}

/* b: the bottleneck module one depth below the selected one when that is
 * the bottleneck module of its depth, else the top-level one. */
static void bottleneck_module(modules_state *mv, wb *w)
{
	const sc_modules *m = mv->m;
	int from = mv->cur > 0 && mv->marked[mv->cur] ? mv->cur : 0, to = -1;
	for (int c = m->m[from].first_child; c >= 0; c = m->m[c].next_sibling)
		if (mv->marked[c])
			to = c;
	if (to < 0 && from > 0)
		for (int c = m->m[0].first_child; c >= 0; c = m->m[c].next_sibling)
			if (mv->marked[c])
				to = c;
	if (to < 0) {
		wb_say(w, "no module holds work of the bottleneck stage %d", mv->at + 1);
		return;
	}
	go_to(mv, to);
	wb_say(w, "the bottleneck module at depth %d: %s, %.1f%% of stage %d's work",
	       m->m[to].depth, m->m[to].name, share(mv, to), mv->at + 1);
}

/* i: the node browser on the selected module's ops. */
static unsigned module_ops(modules_state *mv, wb *w)
{
	const sc_module *md = &mv->m->m[mv->cur];
	char what[300];
	snprintf(what, sizeof what, "module %s", md->name);
	return wb_nodes_open_ops(w, mv->m->ops_sorted + md->first, md->end - md->first, what);
}

static unsigned modules_key(wb *w, wb_action a, int ch)
{
	modules_state *mv = state_of(w);
	if (!mv)
		return 0;
	(void)ch;
	if (a == WB_A_VIEW || !tree_ready(mv, w) || mv->m->n <= 1)
		return 0;
	make_rows(mv);
	const sc_modules *m = mv->m;
	int r = cur_row(mv), i = mv->cur;
	bool kids = m->m[i].first_child >= 0;
	switch (a) {
	case WB_A_DOWN: r++; break;
	case WB_A_UP: r--; break;
	case WB_A_PAGE_DOWN: r += mv->page; break;
	case WB_A_PAGE_UP: r -= mv->page; break;
	case WB_A_FIRST: r = 0; break;
	case WB_A_LAST: r = mv->nrow - 1; break;
	case WB_A_OPEN:
		if (kids)
			mv->open[i] = !mv->open[i];
		else
			wb_say(w, "%s has no modules below it; i lists its ops", m->m[i].name);
		return WB_HANDLED | WB_REDRAW;
	case WB_A_RIGHT:
	case WB_A_EXPAND:
		if (kids && !mv->open[i])
			mv->open[i] = true;
		else if (kids && a == WB_A_RIGHT)
			mv->cur = m->m[i].first_child;
		return WB_HANDLED | WB_REDRAW;
	case WB_A_LEFT:
	case WB_A_COLLAPSE:
		if (kids && mv->open[i])
			mv->open[i] = false;
		else if (a == WB_A_LEFT && m->m[i].parent > 0)
			mv->cur = m->m[i].parent;
		return WB_HANDLED | WB_REDRAW;
	case WB_A_FILTER:
		return wb_ask_typed(w,
		                    "search modules by name, any case (empty: none):", mv->filter,
		                    sizeof mv->filter, search_answer, search_typed, 0);
	case WB_A_NEXT_MATCH: step_match(mv, w, +1); return WB_HANDLED | WB_REDRAW;
	case WB_A_PREV_MATCH: step_match(mv, w, -1); return WB_HANDLED | WB_REDRAW;
	case WB_A_BOTTLENECK: bottleneck_module(mv, w); return WB_HANDLED | WB_REDRAW;
	case WB_A_MODULE_OPS: return module_ops(mv, w);
	default: return 0;
	}
	if (r >= mv->nrow)
		r = mv->nrow - 1;
	if (r < 0)
		r = 0;
	if (mv->nrow)
		mv->cur = mv->row[r];
	return WB_HANDLED | WB_REDRAW;
}

const wb_view_ops wb_modules_view = {.name = "module view",
                                     .in = WB_IN_MODULES,
                                     .footer = WB_FOOT_MODULES,
                                     .draw = modules_draw,
                                     .key = modules_key,
                                     .on_change = modules_changed,
                                     .init = modules_init,
                                     .fini = modules_fini};
