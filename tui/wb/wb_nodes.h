/*
 * wb_nodes.h - the node browser (wb_nodes.c), a view: its list, its order and the
 * ways into it from other views.
 */
#ifndef UI_WB_NODES_H
#define UI_WB_NODES_H

#include <stdbool.h>

#include "core/graph.h"
#include "tui/wb/wb.h"

extern const wb_view_ops wb_nodes_view;

/* The node browser's orders, in the order S cycles through them. */
enum { WB_SORT_STAGE, WB_SORT_WORK, WB_SORT_NAME, WB_SORT_PARAM, WB_NSORTS };

/* Rebuilds the list after an edit or a change of filter or sort, keeping
 * the selected op selected (the node view's on_change). */
void wb_nodes_refresh(wb *w);
/* Whether name contains filter, ASCII letters matched in any case (every
 * name matches a NULL or empty filter). */
bool wb_name_matches(const char *name, const char *filter);
/* The node browser's order, without a terminal: the ops whose name contains
 * filter in any case (all when NULL or "") and, when only >= 0, whose stage
 * is only, and, when among is not NULL, with among[v] set, sorted by stage (WB_SORT_STAGE; then by
 * name), decreasing work or param (WB_SORT_WORK, WB_SORT_PARAM: by_value from wb_ops_by of that
 * value; ties by name) or name (WB_SORT_NAME), into out; by_name is every
 * op in name order (sc_names_order: the natural order, Add2 before
 * Add11).  Returns their number, or -1 when out of memory.  O(n + k). */
int wb_order_ops(const sc_graph *g, const int *stage, int k, const char *filter, int only,
                 const bool *among, int sort, const int *by_name, const int *by_value, int *out);
/* Opens the node browser on ops[0 .. n) alone (a module's ops: i in the
 * module view), every stage, no filter, what naming them in its title
 * ("module layer2.1"); 2 in the browser lists every op again.  Returns a
 * WB_* bitmask. */
unsigned wb_nodes_open_ops(wb *w, const int *ops, int n, const char *what);
/* All ops by decreasing value[v] (g->work, g->param), ties in the order of
 * by_name (the caller frees it), or NULL when out of memory.
 * O(n log n). */
int *wb_ops_by(const sc_graph *g, const int *by_name, const double *value);
/* Opens the node browser on the ops of stage s alone (0-based). */
unsigned wb_nodes_open_stage(wb *w, int s);

#endif
