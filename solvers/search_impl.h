/*
 * search_impl.h - what the search methods share (private to solvers/).
 *
 * Each method is an sc_method: init prepares its state, step advances it by
 * a bounded amount and returns true while it has more to do, fini frees the
 * state.  The framework (search.c) is the bottom layer: the methods
 * (slicing.c, brkga.c, ideals.c, refine.c) call it, and the registry
 * (methods.c) calls both.  Methods report partitions through sc_search_offer; the framework
 * keeps the best (ranked as search.h says: feasible first, then the fewest
 * bytes over the hard memory limit), counts time, and runs refinement
 * afterwards, from an infeasible best too, since refinement repairs stages
 * over the limit.
 *
 * CPU stages (sc_settings.cpus = L > 0; 001 section 3): a partition has
 * K = k + L stages, and each offer carries the devices of its stages (K
 * flags, true for a CPU stage; NULL: every stage an accelerator), which
 * the best keeps beside its stages.  The slicer chooses them
 * (sc_slicer_kinds), the exact DP too (sc_dp_result_kinds), and
 * refinement keeps them, moving no op onto a device it may not go to.  An
 * offer that puts an op on such a device is never kept.  Without CPU
 * stages K = k and nothing here changes.
 */
#ifndef SC_SEARCH_IMPL_H
#define SC_SEARCH_IMPL_H

#include <pthread.h>
#include <stdatomic.h>

#include "core/clock.h"
#include "core/cost.h"
#include "order.h"
#include "core/rng.h"
#include "search.h"
#include "slice.h"
#include "units.h"

struct sc_search;

/* A phase run after the method: init prepares it from start (stages per
 * op) into *state, step advances it by a bounded amount and returns true
 * while it has more to do, fini frees the state (fini(NULL) does nothing).
 * The refinement (refine.c) is the one phase; the framework reaches it
 * only through this table, so that search.c does not call refine.c. */
typedef struct sc_phase {
	/* start_kind: the kinds of start's K stages (NULL: all kind 0) */
	sc_status (*init)(struct sc_search *s, const int *start, const int *start_kind,
	                  void **state, sc_error *err);
	bool (*step)(struct sc_search *s, void *state);
	void (*fini)(void *state);
} sc_phase;

typedef struct sc_method {
	const char *name;
	const char *help;
	bool merge_trivial;  /* work on units with trivial ops merged */
	bool refines_itself; /* no refinement phase afterwards */
	sc_status (*init)(sc_search *s, sc_error *err);
	bool (*step)(sc_search *s);
	void (*fini)(sc_search *s);
} sc_method;

struct sc_search {
	const sc_graph *g;
	sc_settings set; /* k, cpus: at most the number of ops (search.c) */
	int k_asked;     /* the k the caller asked for */
	int cpus_asked;  /* the CPU stages the caller allowed */
	int K;           /* the stages of a partition: set.k + set.cpus */
	/* the devices (fleet.h): the kinds of cset, the index of "cpu" among
	 * them (-1: none), and whether a partition offered without kinds gets
	 * them by sc_costs_assign_kinds (a fleet given, set->fleet: the
	 * methods split into K stages of one kind, the framework places the
	 * kinds) */
	sc_fleet fleet;
	int cpu_kind;
	bool assign;
	sc_fleet fleet_given; /* set->fleet, copied (set.fleet points here) */
	int *start_kind;      /* p->start_kind, copied */
	sc_settings cset;     /* set with k = K: the costs' settings (sc_costs_new) */
	sc_search_params p;
	const sc_method *method;
	sc_units *units;
	sc_slicer *slicer;
	sc_orderer *orderer;
	sc_rng rng;
	void *state; /* the method's */

	int *best_stage;        /* op -> stage of the best partition (when have_best) */
	int *best_kind;         /* its K stages' kinds (all 0 without devices) */
	double best;            /* its objective: INFINITY while it breaks the hard limit */
	double best_excess;     /* its bytes over the hard limit, summed over stages */
	double best_bottleneck; /* its largest stage cost, the limit ignored */
	bool optimal;
	double lower;          /* a proven lower bound on the objective, or 0 (sc_progress) */
	bool have_best;        /* best_stage holds a partition, feasible or not */
	sc_costs *offer_costs; /* scratch for re-evaluating offers */
	int *offer_ops;        /* scratch: a stage per op */
	double *offer_param;   /* scratch: parameter bytes per stage */
	int *offer_kind;       /* scratch: K kinds */
	int *assigned;         /* scratch: K kinds (sc_costs_assign_kinds) */
	long evals;
	double t0;
	bool method_done;
	bool refine_done;
	const sc_phase *refine; /* the refinement phase, or NULL for none */
	void *refine_state;
	bool balance_only; /* the phase only balances the stages (refine.c) */

	atomic_bool cancel;
	pthread_mutex_t lock; /* guards snapshot */
	sc_progress snapshot;
	sc_error err;
	bool failed;
};

/* Checks the settings and parameters every method needs (k >= 1; CPU
 * stages only without pins and, on a training graph g, only under the
 * 1F1B schedule, as the exact DP; BRKGA fractions and sizes).  SC_OK, or
 * SC_ERR_INPUT with err set. */
sc_status sc_search_check(const sc_graph *g, const sc_settings *set, const sc_search_params *p,
                          sc_error *err);

/* Makes a search of g running method m (not the pseudo-method `best`,
 * which methods.c resolves first) with p (checked by sc_search_check; its
 * method name is kept as given), refined afterwards by refine (NULL for
 * none).  g and set must outlive it; m and refine are static tables.
 * Returns NULL with err set on failure.  Called by sc_search_new
 * (methods.c). */
sc_search *sc_search_start(const sc_graph *g, const sc_settings *set, const sc_search_params *p,
                           const sc_method *m, const sc_phase *refine, sc_error *err);

/* True when the method should stop: cancelled, time up, or budget spent
 * (budget <= 0 means no budget). */
bool sc_search_should_stop(sc_search *s, long budget);

/* The stop poll the framework gives the slicer (sc_slicer_set_stop; ctx is
 * the search): cancelled, interrupted or out of time, not the budget, which
 * counts whole evaluations. */
bool sc_search_slicer_stop(void *ctx);

/* Offers a partition given per unit (unit_stage) and the devices of its
 * stages (kind, K indices into s->fleet; NULL: all kind 0, or with a
 * fleet given the kinds sc_costs_assign_kinds places) with its objective value
 * (INFINITY when it breaks the hard memory limit); keeps it when it ranks
 * before the best so far (search.h).  The value only filters: a kept
 * partition is re-evaluated with core's cost model.  Cheap when it cannot be
 * kept.  A NAN value (a slicing that was stopped) is ignored.  Thread: the
 * stepping one. */
void sc_search_offer(sc_search *s, const int *unit_stage, const int *kind, double value);

/* Offers a partition given per op; always re-evaluates it. */
void sc_search_offer_ops(sc_search *s, const int *op_stage, const int *kind, double value);

/* Offers a feasible partition per op that balancing (refine.c) made from
 * the best: kept when its objective is no higher than the best's, a tie
 * included, so that the balanced stages replace the best's. */
void sc_search_offer_balanced(sc_search *s, const int *op_stage, const int *kind);

/* The kinds of the slicer's last split (sc_slicer_kinds), or NULL. */
const int *sc_search_slicer_kinds(sc_search *s);

/* For a topological order of the units whose slicing found no split within
 * the hard memory limit: while no feasible partition is known, offers the
 * order's equal-work split instead (into unit_stage, which it overwrites),
 * so that the search has an infeasible partition for refinement to repair.
 * Does nothing once a feasible partition is known, so callers on a hot path
 * pay only when nothing feasible has been seen. */
void sc_search_offer_unsliceable(sc_search *s, const int *order, int *unit_stage);

/* A valid first partition of the ops into s->set.k stages, by equal work,
 * into op_stage: sc_greedy_split (simple.h) on an inference graph; on a
 * training graph, whose order arcs are not its edges, the equal-work split
 * of the units' topological order (valid by construction).  Under a hard
 * memory limit that this split breaks, the first-fit partition
 * (first_fit.h) instead when one fits (refinement then works from a
 * feasible start).  With CPU stages the same with the CPU stages empty
 * when every op may go to an accelerator (a valid partition of the model
 * with CPUs: the searches and refinement place the CPU stages), else the
 * order's best split by device (sc_slice_equal_work); kind (K kinds, may be
 * NULL without devices) receives the kinds.  SC_OK, or SC_ERR_NOMEM
 * with err set. */
sc_status sc_search_first_split(sc_search *s, int *op_stage, int *kind, sc_error *err);

/* The excess of the partition c holds: the parameter bytes over the memory
 * limit, summed over the stages over it (search.h ranks by it). */
double sc_search_excess(const sc_costs *c);

/* Marks the search failed with err (copied). */
void sc_search_fail(sc_search *s, const sc_error *err);

/* Publishes the progress snapshot under the lock. */
void sc_search_publish(sc_search *s, const char *phase);

/* Methods defined in their own files, listed by methods.c. */
extern const sc_method sc_method_kahn, sc_method_slice, sc_method_random, sc_method_dpl;
extern const sc_method sc_method_brkga, sc_method_mla, sc_method_mla_weighted;
extern const sc_method sc_method_exact;
extern const sc_method sc_method_refine;

/* The refinement phase (refine.c): improves s->best_stage in place from
 * start, moving ops across stage boundaries while the bottleneck drops. */
extern const sc_phase sc_refine_phase;

/* Counts the ideals of the unit DAG up to limit (returns limit + 1 when
 * there are more); -1 on out of memory. */
long sc_ideals_count(const sc_units *u, long limit);
/* sc_ideals_count asking stop(ctx) as it goes (stop may be NULL): -2 when
 * stop said true before the count was known. */
long sc_ideals_count_until(const sc_units *u, long limit, bool (*stop)(void *ctx), void *ctx);

#endif
