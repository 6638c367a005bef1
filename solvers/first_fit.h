/*
 * first_fit.h - a partition within a tight hard memory limit, cheaply.
 *
 * Where the hard limit M leaves little room (M a little above total/k),
 * slicing an order by work rarely fits, and a search that has nothing
 * feasible has nothing to refine.  First fit packs instead: the
 * units are taken in a topological order and each goes into the earliest
 * stage that its predecessors allow (at or after theirs) and that still has
 * room for its parameters; a pinned unit goes into its own stage.  Stages
 * never go back along an arc, so the result is valid by construction.
 * Three orders are tried, as bin packing suggests: the largest parameters
 * first among the ready units, the most work first, and the units'
 * topological order.  Not finding one proves nothing.
 */
#ifndef SC_FIRST_FIT_H
#define SC_FIRST_FIT_H

#include <stdbool.h>

#include "order.h"

/* Writes into unit_stage a partition of u's units into k stages in which no
 * stage holds more than memory parameter bytes, by first fit over the
 * orders above (o: scratch for them).  *found says whether one fitted
 * (unit_stage is then written; else its content is undefined).  SC_OK, or
 * SC_ERR_NOMEM with err set.  Time O(n log n + n k) per order; with
 * n k over 10^8 it tries nothing and finds nothing. */
sc_status sc_first_fit(const sc_units *u, sc_orderer *o, int k, double memory, int *unit_stage,
                       bool *found, sc_error *err);

#endif
