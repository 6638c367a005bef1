/*
 * ideals.h - the exact dynamic program over ideals (001 section 5.1.1), as
 * a stepwise engine: the exact method (sc_method_exact) drives it, and the
 * tests call it directly to compare the DP pruned by a bound with the DP
 * without.  See ideals.c for the method.  The DP minimises the objective
 * of its settings: the bottleneck (on training graphs too: the ideals
 * follow the order arcs, the stage costs the real edges), or under the
 * GPipe schedule of a training graph the largest forward cost plus the
 * largest backward cost, for which each ideal keeps a Pareto front of
 * (forward, backward) maxima instead of one number.
 *
 * An sc_dp borrows its units (which must outlive it) and belongs to the
 * thread that steps it.
 */
#ifndef SC_IDEALS_H
#define SC_IDEALS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/graph.h"
#include "units.h"

/* The method `best` runs the exact DP when the graph has at most
 * sc_dp_best_limit ideals (and no --ideal-limit says otherwise), else
 * BRKGA.  Its time estimate: the DP takes at most about this many seconds
 * per ideal (measured on the samples and generated graphs of 20 000 to 70
 * 000 ideals at k = 4 and 8 on one core: 0.03 to 0.63 ms per ideal; the
 * work per ideal grows with the graph's width and shrinks with k), and
 * without a time limit it may take this many seconds. */
#define SC_DP_SECONDS_PER_IDEAL 1e-3
#define SC_BEST_DP_SECONDS 120.0

typedef struct sc_dp sc_dp;

/* What a DP has done so far. */
typedef struct sc_dp_progress_info {
	long ideals;      /* made so far (reached by a stage within the bound) */
	long ideals_done; /* whose row is final and pushed */
	int layers_done;  /* ideal sizes (in units) completely filled */
	int layers;       /* sizes in all: units + 1 */
	long evals;       /* stages costed */
	long pairs;       /* GPipe: Pareto pairs held (slots allocated); else 0 */
	int front_max;    /* GPipe: the most pairs one ideal held; else 0 */
} sc_dp_progress_info;

/* A DP over u's ideals into k stages (with devices, set->fleet or
 * set->cpus > 0: the fleet's stages, k of the graph's work kind without a
 * fleet, each stage's kind chosen by the DP: sc_dp_result_kinds; refused
 * with SC_ERR_INPUT under GPipe or with pins; a lower bound only when the
 * accelerator kinds' links differ, sc_dp_relaxed) under set's bandwidth,
 * memory, policy and (on a training graph) schedule, refusing past limit ideals
 * (limit <= 0: as many as the memory budget holds, sc_dp_memory_limit;
 * under GPipe half as many, the other half of the budget going to the
 * Pareto pairs).  NULL with err set when out of memory. */
sc_dp *sc_dp_new(const sc_units *u, const sc_settings *set, int k, long limit, sc_error *err);

/* Frees d.  sc_dp_free(NULL) does nothing. */
void sc_dp_free(sc_dp *d);

/* Prunes with ub, the objective some valid partition attains (optimum <=
 * ub): stages and states costing more are dropped; with strict, those
 * costing ub too (to a relative 1e-12), so that the DP only looks for a
 * better partition and sc_dp_result's INFINITY then proves the one of cost
 * ub optimal.  INFINITY (the default) prunes nothing.  Call before the
 * first step. */
void sc_dp_set_bound(sc_dp *d, double ub, bool strict);

/* Balances instead: minimises the sum of the squared stage costs over the
 * partitions whose stages all cost at most cap (to a relative 1e-12),
 * which must be at least the optimum (sc_cpu_exact passes the optimum it
 * proved, so that the balanced partition is optimal too and its other
 * stages as even as they can be; the exact method balances by local moves
 * instead, refine.c, since this DP takes as long as the first).
 * sc_dp_result then returns that sum.  No effect under GPipe.  Call
 * before the first step. */
void sc_dp_set_balance(sc_dp *d, double cap);

/* Under GPipe: refuse past this many Pareto pairs (slots) instead of the
 * memory budget's share (for the tests).  No effect otherwise.  Call before
 * the first step. */
void sc_dp_set_pair_limit(sc_dp *d, long pairs);

/* Works until the clock passes until (at least one unit of work: pushing
 * the stages after one ideal, which on a wide graph can make millions of
 * ideals).  Returns 1 while there is more to do, 0 when done, -1 with err
 * set when past the limit of ideals or pairs (SC_ERR_LIMIT), out of
 * memory, or stopped by the stop callback (sc_dp_stopped tells). */
int sc_dp_step(sc_dp *d, double until, sc_error *err);

/* Has stop(ctx) asked every 4096 new ideals, also in the middle of a unit
 * of work; once it returns true the step returns -1 and the DP is
 * stopped for good (sc_dp_stopped; only sc_dp_free is left to do).  So a
 * time limit or ^C holds within a step.  Call before the first step. */
void sc_dp_set_stop(sc_dp *d, bool (*stop)(void *ctx), void *ctx);
bool sc_dp_stopped(const sc_dp *d);

/* Sizes the limit of ideals (and under GPipe of pairs) to bytes instead
 * of sc_dp_memory_budget(), so that several DPs running at once (one per
 * testbed worker) share the machine.  No effect when sc_dp_new was given a
 * count or bytes <= 0.  Call before the first step. */
void sc_dp_set_memory(sc_dp *d, double bytes);

/* Fills p with the progress so far. */
void sc_dp_progress(const sc_dp *d, sc_dp_progress_info *p);

/* After the last step: the optimum (INFINITY when no partition within the
 * bound, or none within the hard memory limit, exists) and, when unit_stage
 * is not NULL and the optimum is finite, an optimal stage (0-based) per
 * unit. */
double sc_dp_result(const sc_dp *d, int *unit_stage);

/* sc_dp_result with each stage's kind (fleet.h): the DP's stages, as many
 * as sc_dp_stages says, in pipeline order, and stage_kind (one per stage,
 * may be NULL) their kinds, indices into the fleet of the settings (the
 * graph's work kind and "cpu" without one).  Without devices every kind
 * is 0. */
double sc_dp_result_kinds(const sc_dp *d, int *unit_stage, int *stage_kind);

/* A lower bound on the objective of every partition d looks at: the
 * total work over the stages, and per unit the least cost of a stage
 * holding it (its work, and the io of its tensors or the work of the
 * units around it that the stage would have to hold instead, a small
 * branch and bound; with devices the least over the kinds), under GPipe
 * the least forward plus the least backward maximum.  The exact method
 * runs no DP when a quick partition reaches it.  Its work is capped (a
 * few tens of ms at most), whatever the graph. */
double sc_dp_floor(const sc_dp *d);

/* True when d's value is only a lower bound: kinds whose links differ
 * (see "Devices" in ideals.c), each stage's io charged over its own link;
 * or, under the GPipe schedule, a graph with activation memory
 * (activations.h) that could pass a finite memory: the DP holds the part
 * of a stage's memory that adds up (parameters, gradients, optimizer
 * state) against it, not the stash and working peak, which the cost model
 * adds to its partition's cost (under 1F1B and in inference it holds
 * them exactly, on any fleet). */
bool sc_dp_relaxed(const sc_dp *d);

/* The stages of d's partitions: k, or with devices the sum of the
 * kinds' counts. */
int sc_dp_stages(const sc_dp *d);

/* The bytes one DP may take by default: a quarter of the machine's memory,
 * at most 8 GiB (2 GiB when the machine does not say). */
double sc_dp_memory_budget(void);

/* The ideals that budget holds at k stages, and the bytes one takes (its
 * bitset, hash, hash table slots at load 1/2, size, work, parameters,
 * bucket link and row of k + 1 values and choices, all twice over since
 * the arrays grow by doubling).  A balancing pass (sc_cpu_exact) frees the
 * first DP before it starts, so the peak is one DP's. */
long sc_dp_memory_limit(const sc_units *u, int k);
size_t sc_dp_bytes_per_ideal(const sc_units *u, int k);

/* The most ideals for which `best` chooses the exact DP on u under set
 * (k stages, schedule): the fewest of those the memory budget holds (under
 * GPipe half of them, as sc_dp_new), those a command's budget of 10 KiB
 * per op (at least 1 GiB) holds (counting them to choose holds them all),
 * and those the DP is expected to get through in time_limit seconds
 * (SC_DP_SECONDS_PER_IDEAL each; time_limit <= 0: SC_BEST_DP_SECONDS). */
long sc_dp_best_limit(const sc_units *u, const sc_settings *set, double time_limit);

#endif
