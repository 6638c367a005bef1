/*
 * dp_exact.h - the exact optimum on devices: CPU stages beside the
 * accelerators (001 sections 3 and 4) or a fleet of device kinds (fleet.h).
 *
 * sc_dp_exact runs the exact DP over ideals with a count per kind
 * (ideals.h) to completion: the units contracted by the rules that stay
 * safe on devices (contract.h, units.h), pruned, with CPU stages, by the
 * optimum without them (a valid partition of the model with CPUs, its CPU
 * stages empty, when every op may go to an accelerator), then balanced
 * (the least sum of squared stage costs at the optimum) unless the
 * parameters ask for no refinement.  The searches (search.h) place kinds
 * too, their `exact` method running the same DP stepwise (pruned by a
 * quick slicing's bound instead); this runs it to the end in one call,
 * for `bounds`, `info` and the benchmarks.  When the kinds' links differ
 * the DP charges each stage's io over its own link (sc_dp_relaxed): its
 * value is then a lower bound, info->relaxed says so, and its partition's
 * true cost may be higher.  Thread: the caller's; nothing here prints.
 */
#ifndef SC_DP_EXACT_H
#define SC_DP_EXACT_H

#include <stdbool.h>

#include "core/graph.h"
#include "search.h"

/* What sc_dp_exact did. */
typedef struct sc_dp_exact_info {
	double optimum; /* the bottleneck proven optimal (a lower bound when
	                 * relaxed); INFINITY: nothing fits */
	double upper;   /* the optimum without CPU stages (the pruning bound), or INFINITY */
	long ideals;    /* ideals the DP made */
	long evals;     /* stages costed */
	int units;      /* units after contraction */
	bool balanced;  /* the balancing DP ran */
	bool relaxed;   /* the kinds' links differ: optimum is a lower bound */
	double seconds; /* the whole run */
} sc_dp_exact_info;

/* The optimum of g under set (set->k accelerator stages and set->cpus >= 1
 * CPU stages, or set->fleet; 1F1B or inference) with p's ideal limit,
 * time limit, stop and interrupt polls and refine flag (p->method is not
 * read).  On SC_OK op_stage (g->n ints) holds a stage per op in 0..K - 1
 * (K the fleet's stages: k + cpus without one), pipeline order, and
 * stage_kind (K ints) each stage's kind, an index into the fleet
 * (sc_fleet_resolve: with CPU stages 0 an accelerator, 1 a CPU); when
 * info->optimum is INFINITY no partition fits (the hard memory limit, or
 * an op no kind may run) and both are left as they were.  Errors:
 * SC_ERR_INPUT (no devices, the GPipe schedule, pins), SC_ERR_LIMIT (past
 * the ideals memory holds or --ideal-limit; the time limit or a stop:
 * nothing is proven then), SC_ERR_NOMEM. */
sc_status sc_dp_exact(const sc_graph *g, const sc_settings *set, const sc_search_params *p,
                      int *op_stage, int *stage_kind, sc_dp_exact_info *info, sc_error *err);

#endif
