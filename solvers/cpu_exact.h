/*
 * cpu_exact.h - the exact optimum with CPU stages beside the accelerators
 * (001 sections 3 and 4).
 *
 * sc_cpu_exact runs the exact DP over ideals with a CPU-count dimension
 * (ideals.h, sc_settings.cpus) to completion: the units contracted by the
 * rules that stay safe with CPU stages (contract.h, units.h), pruned by the
 * optimum without CPU stages (a valid partition of the model with CPUs,
 * its CPU stages empty, when every op may go to an accelerator), then
 * balanced (the least sum of squared stage costs at the optimum) unless
 * the parameters ask for no refinement.  The searches (search.h) place
 * CPU stages too, their `exact` method running the same DP stepwise (pruned
 * by a quick slicing's bound instead); this runs it to the end in one
 * call, for `info` and the benchmarks.  Thread: the caller's; nothing here
 * prints.
 */
#ifndef SC_CPU_EXACT_H
#define SC_CPU_EXACT_H

#include <stdbool.h>

#include "core/graph.h"
#include "search.h"

/* What sc_cpu_exact did. */
typedef struct sc_cpu_exact_info {
	double optimum; /* the bottleneck proven optimal; INFINITY: nothing fits */
	double upper;   /* the optimum without CPU stages (the pruning bound), or INFINITY */
	long ideals;    /* ideals the DP made */
	long evals;     /* stages costed */
	int units;      /* units after contraction */
	bool balanced;  /* the balancing DP ran */
	double seconds; /* the whole run */
} sc_cpu_exact_info;

/* The optimum of g under set (set->k accelerator stages, set->cpus >= 1
 * CPU stages, 1F1B or inference) with p's ideal limit, time limit, stop
 * and interrupt polls and refine flag (p->method is not read).  On SC_OK
 * op_stage (g->n ints) holds a stage per op in 0..k + cpus - 1, pipeline
 * order, and stage_cpu (k + cpus flags) which stages are CPUs; when
 * info->optimum is INFINITY no partition fits (the hard memory limit, or
 * an op neither device may hold) and both are left as they were.
 * Errors: SC_ERR_INPUT (cpus < 1, the GPipe schedule, pins), SC_ERR_LIMIT
 * (past the ideals memory holds or --ideal-limit; the time limit or a
 * stop: nothing is proven then), SC_ERR_NOMEM. */
sc_status sc_cpu_exact(const sc_graph *g, const sc_settings *set, const sc_search_params *p,
                       int *op_stage, bool *stage_cpu, sc_cpu_exact_info *info, sc_error *err);

#endif
