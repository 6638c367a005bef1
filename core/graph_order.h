/*
 * graph_order.h - the order arcs of a graph (graph.h), built once when the
 * graph is finished.  Internal to core/: the rest of the program reads the
 * arcs from sc_graph and the rules through sc_graph_edge_rule.
 */
#ifndef SC_GRAPH_ORDER_H
#define SC_GRAPH_ORDER_H

#include "graph.h"

/* Takes backward (bcap flags; the ops past bcap are forward; NULL when no
 * op is backward) into g, refuses an edge from the backward pass into the
 * forward pass (SC_ERR_INPUT naming it, after "source: "), marks the
 * orphans and builds g's order arcs and ord_topo.  backward is g's (or
 * freed) whatever the outcome; g's edges and topo must be built. */
sc_status sc_graph_order_arcs(sc_graph *g, bool *backward, int bcap, const char *source,
                              sc_error *err);

#endif
