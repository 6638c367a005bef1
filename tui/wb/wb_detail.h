/*
 * wb_detail.h - the node browser's op detail pane (wb_detail.c): an op's legal
 * range, what pins it, its neighbours.
 */
#ifndef UI_WB_DETAIL_H
#define UI_WB_DETAIL_H

#include "core/graph.h"
#include "tui/wb/wb.h"

/* What pins one end of an op's legal range: the order arc (core/graph.h)
 * between an op of v's group and a neighbour outside it whose stage is
 * that end.  by is the neighbour, -1 when nothing pins the end (it is then
 * the first or the last stage); from -> to is the graph edge (for a mirror
 * rule it runs from the group's op to by, else from by or to by as the
 * arc does); more counts the other neighbours in that same stage. */
typedef struct wb_pin {
	int by, from, to;
	sc_edge_rule rule;
	int more;
} wb_pin;

/* The legal range of op v under the valid partition stage into k stages,
 * as sc_part_legal_range gives it, in *lo and *hi (0-based), and what pins
 * each end in *plo and *phi.  O(degree of v's group + group size). */
void wb_range_pins(const sc_graph *g, const int *stage, int k, int v, int *lo, int *hi, wb_pin *plo,
                   wb_pin *phi);
/* Draws the detail pane of op v in rows y .. y+h-1: its stage, legal range
 * and the edge pinning each end, then its predecessors and successors with
 * their stages and the tensors crossing. */
void wb_detail_draw(wb *w, int v, int y, int h, int cols);

#endif
