/*
 * simple.h - the simple lower bound and a fast first partition.
 *
 * The simple bound (000 Lemma 3.3) is max(largest indivisible work, total
 * work / k), where a co-location group's total work is indivisible.  It
 * ignores io and memory, which only add cost, so it never exceeds the optimum.
 *
 * sc_greedy_split gives a valid partition at once, before any search has
 * run: a topological order of the order arcs (graph.h) cut into k pieces of
 * about equal work, then repaired so that groups share a stage and every
 * order arc holds (valid on training graphs too).
 */
#ifndef SC_SIMPLE_H
#define SC_SIMPLE_H

#include "core/graph.h"

/* The simple lower bound for k >= 1 stages (time units). */
double sc_bound_simple(const sc_graph *g, int k);

/* The number of stages that can be non-empty: min(k, ops outside groups +
 * groups), at least 1.  The optimum with k stages equals the optimum with
 * that many (renumbering the non-empty stages in order keeps every order
 * arc's order and every stage's cost), so bounds may be computed for it. */
int sc_stages_useful(const sc_graph *g, int k);

/* Fills stage[0..n) with a valid partition into k >= 1 stages (0-based).
 * Returns SC_OK, or SC_ERR_NOMEM with err set. */
sc_status sc_greedy_split(const sc_graph *g, int k, int *stage, sc_error *err);

#endif
