/*
 * wb_nav.h - moving from op to op with a history (wb_nav.c), for the node
 * browser.
 */
#ifndef UI_WB_NAV_H
#define UI_WB_NAV_H

#include <stdbool.h>

#include "tui/wb/wb.h"

/* What going to op u means for the view that asked (the node browser
 * selects it, listing it first if it must). */
typedef void wb_nav_go(wb *w, int u);

enum { WB_NAV_HISTORY = 256 };

/* The ops gone to, and the list of neighbours while it is open: the node
 * browser's, kept in its state; the functions below are its only
 * readers. */
typedef struct wb_nav {
	int op[WB_NAV_HISTORY];
	int n, at; /* ops op[0 .. n), the one stood on op[at] (-1: none) */
	/* the list of neighbours while it is open */
	int from;      /* whose */
	bool succ;     /* successors, else predecessors */
	int sel, top;  /* the selected row, the first shown */
	wb_nav_go *go; /* what Enter calls */
} wb_nav;

/* Makes nav an empty history (also to forget one: another graph). */
void wb_nav_init(wb_nav *nav);
/* ( and ): op v's only predecessor (succ false) or successor, gone to at
 * once through go and recorded in nav; with several, the list of them
 * opens (a modal, wb_nav_modal, pushed with nav: it must outlive the
 * modal) and Enter goes to the one chosen; with none, the status line
 * says so.  Returns a WB_* bitmask. */
unsigned wb_nav_neighbour(wb *w, wb_nav *nav, int v, bool succ, wb_nav_go *go);
extern const wb_modal_ops wb_nav_modal;
/* Records a step from op from to op to (what ( and ) do). */
void wb_nav_went(wb_nav *nav, int from, int to);
/* { and }: the op before (after) the one stood on in the history, or -1
 * at its start (end); cur is the op selected now: back from an op not in
 * the history records it first. */
int wb_nav_back(wb_nav *nav, int cur);
int wb_nav_forward(wb_nav *nav, int cur);
/* How many steps back and forward the history holds. */
void wb_nav_places(const wb_nav *nav, int *back, int *forward);

#endif
