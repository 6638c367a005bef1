/*
 * units.h - the graph the searches work on: co-location groups contracted.
 *
 * A unit is a set of ops that must share a stage: a co-location group, or a
 * strongly connected component that contracting groups created (if a and c
 * share a group and a -> b -> c, then stage(a) <= stage(b) <= stage(c) =
 * stage(a), so b joins them).  The arcs are the graph's order arcs
 * (graph.h: the edges on an inference graph; on a training graph the
 * forward edges and the mirrored orphan edges).  Units form a DAG; any
 * partition of the units into stages in pipeline order is a valid
 * partition of the ops, and every valid partition of the ops arises this
 * way.
 *
 * With merge_trivial, the units are then contracted by the safe rules of
 * contract.h (zero-work units whose parameters cannot matter join a
 * neighbour), round after round; this never changes the optimum (the
 * proofs are in contract.c) and shrinks the exact DP's search space.
 *
 * Costs are always computed on the ops; units only decide what moves
 * together.  An sc_units is immutable after construction and may be shared
 * by threads.
 */
#ifndef SC_UNITS_H
#define SC_UNITS_H

#include <stdbool.h>

#include "contract.h"
#include "core/graph.h"

typedef struct sc_units {
	const sc_graph *g;    /* borrowed */
	int n;                /* units */
	int *unit_of;         /* op -> unit */
	int *ops_off, *ops;   /* ops of unit i: ops[ops_off[i] .. ops_off[i+1]) */
	int *succ_off, *succ; /* unit DAG of the order arcs, sorted, no duplicates, no self-loops */
	int *pred_off, *pred;
	double *work, *param; /* sums over the unit's ops */
	int *topo;            /* a topological order of the units */
	/* unit -> the stage its ops are pinned to, or -1; NULL without pins
	 * (sc_settings.pin).  The pins add arcs from the units pinned to one
	 * stage to those pinned to the next that has pins, and no rule of
	 * contract.h is applied */
	int *pin;
	sc_contract_stats contraction; /* what merge_trivial did */
	/* contracted for CPU stages (sc_settings.cpus > 0): contract.h's
	 * rules then join only units of zero CPU time that either device may
	 * hold */
	bool cpus;
} sc_units;

/* Contracts g's groups (and, with merge_trivial, by contract.h's rules
 * for the settings set: its memory decides whether a parameter byte
 * matters; a training graph under the GPipe schedule is not contracted;
 * NULL means no memory limit and the bottleneck; its pins, see pin
 * above).  Returns NULL with err set when out of memory, or (SC_ERR_INPUT)
 * when the pins cannot all hold. */
sc_units *sc_units_new(const sc_graph *g, bool merge_trivial, const sc_settings *set,
                       sc_error *err);

/* Frees u.  sc_units_free(NULL) does nothing. */
void sc_units_free(sc_units *u);

/* Expands a stage per unit into a stage per op. */
void sc_units_expand(const sc_units *u, const int *unit_stage, int *op_stage);

#endif
