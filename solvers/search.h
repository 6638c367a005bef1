/*
 * search.h - the searches (upper bounds), DESIGN.md section 3.
 *
 * A search is made with sc_search_new from a method name and parameters,
 * then advanced with sc_search_step, each call doing a bounded slice of work
 * (a few milliseconds to a few tens) before returning, so the same code runs
 * to completion in the command line and the tests (sc_search_run) and in
 * small steps on a worker thread of the workbench.  Progress snapshots and
 * cancelling are thread-safe; everything else belongs to the thread that
 * steps the search.
 *
 * sc_search_new and sc_search_methods are defined with the registry of
 * methods (methods.c); the rest with the framework (search.c), and each
 * method in its own file (slicing.c, brkga.c, ideals.c, refine.c).
 *
 * Every method returns a valid partition of the ops and its bottleneck, is
 * deterministic for a given seed, honours its evaluation budget and time
 * limit, and stops early when cancelled with the best partition so far.
 * Co-location groups are contracted first (units.h).
 *
 * Training graphs (graph.h): the units, orders and moves follow the order
 * arcs, every cost the real edges (a stage may read tensors of later
 * stages).  The objective is the bottleneck, or under the GPipe schedule
 * the largest forward cost plus the largest backward cost (cost.h); the
 * slicing minimises the bottleneck, a lower bound on it, and the exact DP
 * minimises the objective itself (under GPipe over Pareto fronts, ideals.h),
 * so `exact` proves its result optimal under either schedule.
 *
 * Under the hard memory policy a search also keeps the best partition it
 * has seen when none so far fits, because refinement can repair stages over
 * the limit.  Partitions rank:
 *  1. feasible (every stage within the limit) before infeasible;
 *  2. feasible ones by bottleneck;
 *  3. infeasible ones by their excess, the parameter bytes over the limit
 *     summed over the stages (sum of param(S) - M where positive), then by
 *     their bottleneck with the limit ignored (stage costs pay no overflow
 *     under the hard policy);
 * and on a tie the partition seen first stays.  An infeasible partition is
 * never reported as a result: sc_search_result and the progress say
 * INFINITY until a feasible partition is found.
 *
 * Devices (fleet.h): with CPU stages (sc_settings.cpus = L > 0; 001
 * section 3) every method places up to L CPU stages beside the k
 * accelerator stages, in any interleaving; with a fleet (sc_settings.fleet)
 * a partition has the fleet's stages.  Each stage has a kind
 * (sc_search_result_kinds), and no op ever sits on a kind that may not
 * run it.  The slicing chooses CPU stages with the split (slice.h), the
 * exact DP every stage's kind with its ideals (ideals.h); with a fleet the
 * other methods split into stages of one kind and the framework gives the
 * split's stages the kinds that make its bottleneck least
 * (sc_costs_assign_kinds); refinement moves ops between the stages as
 * they are.  As in the exact DP, a training graph keeps its
 * stage-order rule, and pins and the GPipe schedule are refused with CPU
 * stages (SC_ERR_INPUT).
 */
#ifndef SC_SEARCH_H
#define SC_SEARCH_H

#include <stdbool.h>
#include <stdint.h>

#include "core/graph.h"

typedef struct sc_search_params {
	const char *method; /* a name from sc_search_methods; NULL = "best" */
	uint64_t seed;
	double time_limit; /* seconds; <= 0 means none */
	long evals;        /* evaluation budget; 0 = the method's default */
	int population;    /* BRKGA; 0 = sqrt of the budget */
	int generations;   /* BRKGA; 0 = budget / population */
	double elite;      /* BRKGA elite fraction (default 0.2) */
	double mutants;    /* BRKGA mutant fraction (default 0.1) */
	double bias;       /* BRKGA crossover bias towards the elite parent (0.7) */
	long ideal_limit;  /* exact: refuse past this many ideals (0, the default: as
	                    * many as a memory budget holds, see ideals.h) */
	double dp_memory;  /* exact: the bytes its DP may take when ideal_limit is 0
	                    * (0, the default: sc_dp_memory_budget of ideals.h) */
	bool refine;       /* refine the result (default true) */
	const int *start;  /* op stages to start from (refine; others ignore it) */
	/* with devices: the kinds of start's stages (indices into the fleet:
	 * set->fleet's, or without one 0 for the graph's work kind and 1 for
	 * "cpu"); NULL: all kind 0 */
	const int *start_kind;
	/* polled inside long loops (with the time limit and the cancel flag)
	 * and stops the search when it returns true, e.g. a flag a signal
	 * handler raises; called on the stepping thread; NULL = none */
	bool (*interrupted)(void);
	/* the same with the caller's context (the testbed's deadline); may be
	 * called from the search's threads too; NULL = none */
	bool (*stop)(void *ctx);
	void *stop_ctx;
} sc_search_params;

/* Fills p with the defaults (method "best", seed 1, no time limit). */
void sc_search_params_init(sc_search_params *p);

typedef struct sc_method_info {
	const char *name;
	const char *help;
} sc_method_info;

/* Whether the method `best` would run the exact DP on g under set and p
 * (its ideals fit the DP's memory budget and p's time limit at the
 * estimate of ideals.h, or p->ideal_limit), into *exact; else it runs
 * brkga.  SC_OK, or an error (err set) when the unit DAG cannot be built.
 * Thread-safe; counts the ideals (a pass over the graph). */
sc_status sc_search_best_is_exact(const sc_graph *g, const sc_settings *set,
                                  const sc_search_params *p, bool *exact, sc_error *err);

/* The methods, in the order of the help text; *count receives their number. */
const sc_method_info *sc_search_methods(int *count);

typedef struct sc_progress {
	long evals;     /* partitions (or orders) evaluated so far */
	double best;    /* best bottleneck so far; INFINITY when none feasible yet */
	double elapsed; /* seconds since the search started */
	char phase[24]; /* what runs now, e.g. "brkga", "refine" */
	bool done;
	bool optimal; /* the best is proven optimal (exact DP) */
	/* a lower bound on the objective the search proved: the exact DP's
	 * optimum (of the bottleneck, or under the GPipe schedule of a
	 * training graph of the GPipe objective), once it has finished; 0
	 * when the method proves none */
	double lower;
	bool cancelled;
	/* the exact DP over ideals (zero for the other methods) */
	long ideals;      /* ideals made so far */
	long ideals_done; /* ideals whose DP row is final and pushed */
	int layers_done;  /* ideal sizes (in units) completely filled */
	int layers;       /* sizes in all: units + 1 */
	long pairs;       /* under GPipe: Pareto pairs held (ideals.h) */
	int front_max;    /* under GPipe: the most pairs one ideal held */
} sc_progress;

typedef struct sc_search sc_search;

/* Creates a search of graph g under settings set (set->k >= 1 stages).
 * Both must outlive it.  Returns NULL with err set for an unknown method or
 * bad parameters (SC_ERR_INPUT) or out of memory. */
sc_search *sc_search_new(const sc_graph *g, const sc_settings *set, const sc_search_params *p,
                         sc_error *err);

/* Frees s.  sc_search_free(NULL) does nothing. */
void sc_search_free(sc_search *s);

/* Does a bounded slice of work.  Returns true while there is more to do,
 * false when the search has finished (budget spent, time up, cancelled,
 * proven optimal, or failed: see sc_search_error). */
bool sc_search_step(sc_search *s);

/* Steps s until it finishes.  Returns SC_OK, or the search's error. */
sc_status sc_search_run(sc_search *s, sc_error *err);

/* Asks s to stop at its next step boundary.  Thread-safe. */
void sc_search_cancel(sc_search *s);

/* Copies the progress into out.  Thread-safe. */
void sc_search_progress(sc_search *s, sc_progress *out);

/* After the search: the best bottleneck, and its stages per op (0-based)
 * into op_stage when not NULL.  INFINITY when the search found no partition
 * within the hard memory limit (with *optimal, when none exists); op_stage
 * is then left untouched, so a caller never receives a partition over the
 * limit. */
double sc_search_result(sc_search *s, int *op_stage, bool *optimal);

/* sc_search_result with the kinds of the stages: stage_kind (when not
 * NULL) receives one per stage (k + cpus of the settings given to
 * sc_search_new, or the fleet's stages), indices into the fleet (see
 * start_kind), all 0 without devices; left untouched when the result is
 * INFINITY. */
double sc_search_result_kinds(sc_search *s, int *op_stage, int *stage_kind, bool *optimal);

/* The error that stopped the search, or NULL. */
const sc_error *sc_search_error(const sc_search *s);

#endif
