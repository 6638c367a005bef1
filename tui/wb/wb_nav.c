/*
 * wb_nav.c - moving around the graph from the node browser (tig's back and
 * forward): ( and ) go to the selected op's predecessor or successor, and
 * when it has several a list of them (a modal: their stages and names)
 * asks which; { and } step back and forward through the ops gone to.
 *
 * The history is a browser's: going to an op from another records both
 * (the one left unless it is where the history stands), drops whatever lay
 * ahead, and back from an op the engineer has since moved away from by
 * hand records that op first, so forward returns to it.  It holds op
 * indices, at most WB_NAV_HISTORY of them (the oldest go first).
 *
 * The history and the list are a wb_nav, which the node browser keeps in
 * its own state (wb_nodes.c, made by its init): no file statics here.  The
 * list's modal is pushed with the wb_nav as its argument
 * (wb_modal_push_arg) and reads it back with wb_modal_arg.
 *
 * Going to an op is the node browser's business (the op may be filtered
 * out of its list): the browser passes its own go function, which the
 * list calls through a pointer, so this file calls nothing above it.
 *
 * Layer: a service of layer 4 (wb.h) below the detail pane and the node
 * browser; it calls the state and the popup (wb_lineedit.c).
 */
#define _POSIX_C_SOURCE 200809L
#include "tui/wb/wb_nav.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "core/names.h"
#include "tui/wb/wb_keytab.h"
#include "tui/wb/wb_lineedit.h"

void wb_nav_init(wb_nav *nav)
{
	*nav = (wb_nav){.n = 0, .at = -1};
}

/* Appends v after the place stood on, dropping what lay ahead (and the
 * oldest entry when full); v becomes the place stood on. */
static void push(wb_nav *nav, int v)
{
	nav->n = nav->at + 1;
	if (nav->n == WB_NAV_HISTORY) {
		memmove(nav->op, nav->op + 1, (WB_NAV_HISTORY - 1) * sizeof *nav->op);
		nav->n--;
	}
	nav->op[nav->n++] = v;
	nav->at = nav->n - 1;
}

void wb_nav_went(wb_nav *nav, int from, int to)
{
	if (nav->at < 0 || nav->op[nav->at] != from)
		push(nav, from);
	push(nav, to);
}

int wb_nav_back(wb_nav *nav, int cur)
{
	if (nav->at < 0)
		return -1;
	if (nav->op[nav->at] != cur)
		push(nav, cur);
	if (nav->at == 0)
		return -1;
	return nav->op[--nav->at];
}

int wb_nav_forward(wb_nav *nav, int cur)
{
	(void)cur;
	if (nav->at + 1 >= nav->n)
		return -1;
	return nav->op[++nav->at];
}

void wb_nav_places(const wb_nav *nav, int *back, int *forward)
{
	*back = nav->at > 0 ? nav->at : 0;
	*forward = nav->at >= 0 ? nav->n - 1 - nav->at : 0;
}

/* The neighbours of v in the list: v's predecessors or successors. */
static int neighbour_count(const sc_graph *g, int v, bool succ)
{
	return succ ? sc_graph_outdeg(g, v) : sc_graph_indeg(g, v);
}

static int neighbour(const sc_graph *g, int v, bool succ, int i)
{
	return succ ? g->succ[g->succ_off[v] + i] : g->pred[g->pred_off[v] + i];
}

/* The box of the list in a rows x cols screen: at most 12 rows of ops,
 * centred, as wide as the names need within the screen. */
static void list_box(const wb *w, const wb_nav *nav, int rows, int cols, int *y0, int *x0, int *h,
                     int *wd)
{
	/* a border, " stage NNN  ", the name, a space, a border */
	int n = neighbour_count(w->g, nav->from, nav->succ), longest = 36;
	for (int i = 0; i < n; i++) {
		int nw = sc_names_width(w->g->op_name[neighbour(w->g, nav->from, nav->succ, i)]);
		if (nw + 15 > longest)
			longest = nw + 15;
	}
	*h = (n < 12 ? n : 12) + 2;
	if (*h > rows - 2)
		*h = rows - 2;
	*wd = longest < cols - 4 ? longest : cols - 4;
	*y0 = (rows - *h) / 2;
	*x0 = (cols - *wd) / 2;
}

static void list_draw(wb *w, int rows, int cols)
{
	wb_nav *nav = wb_modal_arg(w, &wb_nav_modal);
	if (!nav)
		return;
	const sc_graph *g = w->g;
	int y0, x0, h, wd, n = neighbour_count(g, nav->from, nav->succ);
	list_box(w, nav, rows, cols, &y0, &x0, &h, &wd);
	if (h < 3 || wd < 12)
		return;
	char title[64];
	snprintf(title, sizeof title, "go to a %s (%d)", nav->succ ? "successor" : "predecessor",
	         n);
	wb_popup(y0, x0, h, wd, title, "j k, Enter: go, Esc");
	int shown = h - 2;
	if (nav->sel < nav->top)
		nav->top = nav->sel;
	if (nav->sel >= nav->top + shown)
		nav->top = nav->sel - shown + 1;
	for (int r = 0; r < shown && nav->top + r < n; r++) {
		int i = nav->top + r, u = neighbour(g, nav->from, nav->succ, i);
		char name[512];
		int nw = sc_names_fit(g->op_name[u], wd - 15, name, sizeof name);
		if (i == nav->sel)
			attron(A_REVERSE);
		mvprintw(y0 + 1 + r, x0 + 1, " stage %3d  %s%*s ", w->stage[u] + 1, name,
		         wd - 15 - nw, "");
		if (i == nav->sel)
			attroff(A_REVERSE);
	}
}

static unsigned list_key(wb *w, int ch)
{
	if (ch == KEY_RESIZE)
		return WB_HANDLED | WB_REDRAW;
	wb_nav *nav = wb_modal_arg(w, &wb_nav_modal);
	if (!nav) {
		wb_modal_close(w, &wb_nav_modal);
		return WB_HANDLED | WB_REDRAW;
	}
	int n = neighbour_count(w->g, nav->from, nav->succ);
	switch (wb_key_action(WB_IN_CHOOSE, ch)) {
	case WB_A_CHOOSE_DOWN:
		if (nav->sel + 1 < n)
			nav->sel++;
		break;
	case WB_A_CHOOSE_UP:
		if (nav->sel > 0)
			nav->sel--;
		break;
	case WB_A_CHOOSE_GO: {
		wb_modal_close(w, &wb_nav_modal);
		int u = neighbour(w->g, nav->from, nav->succ, nav->sel);
		wb_nav_went(nav, nav->from, u);
		nav->go(w, u);
		break;
	}
	case WB_A_CHOOSE_CLOSE: wb_modal_close(w, &wb_nav_modal); break;
	default: break; /* it takes every key */
	}
	return WB_HANDLED | WB_REDRAW;
}

const wb_modal_ops wb_nav_modal = {.name = "neighbours", .draw = list_draw, .key = list_key};

unsigned wb_nav_neighbour(wb *w, wb_nav *nav, int v, bool succ, wb_nav_go *go)
{
	int n = neighbour_count(w->g, v, succ);
	if (n == 0) {
		wb_say(w, "%s has no %s", w->g->op_name[v], succ ? "successor" : "predecessor");
		return WB_HANDLED | WB_REDRAW;
	}
	if (n == 1) {
		int u = neighbour(w->g, v, succ, 0);
		wb_nav_went(nav, v, u);
		go(w, u);
		return WB_HANDLED | WB_REDRAW;
	}
	nav->from = v;
	nav->succ = succ;
	nav->sel = nav->top = 0;
	nav->go = go;
	wb_modal_push_arg(w, &wb_nav_modal, nav);
	return WB_HANDLED | WB_REDRAW;
}
