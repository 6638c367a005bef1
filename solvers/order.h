/*
 * order.h - topological orders of the unit DAG.
 *
 * sc_order_kahn is KahnWithNodePriorities (000 Alg. 3): Kahn's algorithm
 * whose ready set is a max-heap on a priority per unit, ties broken by the
 * lower unit number, so equal priorities give a deterministic order.  Every
 * topological order is reachable with suitable priorities (000 Thm 4.3).
 * sc_order_dfs is the depth-first order DPL slices (001 section 5.1.2).
 */
#ifndef SC_ORDER_H
#define SC_ORDER_H

#include "units.h"

typedef struct sc_orderer sc_orderer;

/* Scratch space for orders of u's units; not thread-safe, one per thread.
 * Returns NULL with err set when out of memory. */
sc_orderer *sc_orderer_new(const sc_units *u, sc_error *err);
void sc_orderer_free(sc_orderer *o);

/* Writes into order[0..u->n) the Kahn order with priorities prio[unit]. */
void sc_order_kahn(sc_orderer *o, const double *prio, int *order);

/* Writes a depth-first topological order: a unit is emitted once all its
 * predecessors are, and the walk continues from the units it just released
 * (lowest number first), so chains stay together. */
void sc_order_dfs(sc_orderer *o, int *order);

#endif
