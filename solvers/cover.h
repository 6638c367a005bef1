/*
 * cover.h - the cover bound: a lower bound from the set-cover relaxation of
 * the partition problem, by column generation (private to solvers/; the
 * exact rung runs it before its MIP, mip.c).
 *
 * A partition whose bottleneck is at most C splits the units into at most
 * k non-empty stages, each a set S with f(S) <= C (the cost model of
 * DESIGN.md section 1; under a hard limit also param(S) <= M).  So the
 * sets of cost at most C cover the units with at most k of them, and the
 * linear relaxation of that cover,
 *
 *     LP(C) = min sum_S lambda_S  s.t.  sum_{S containing v} lambda_S >= 1
 *             for every unit v,  lambda >= 0,  S over all sets with f(S) <= C,
 *
 * is at most k.  Contrapositive: LP(C) > k proves that no partition has a
 * bottleneck of C or less, and C is a lower bound.  The stage order is
 * dropped (any set counts, convex or not), which only adds columns and so
 * lowers LP(C): still a relaxation.  The duals give the proof without
 * solving LP(C) to the end (Farley's bound): for any pi >= 0 and any P at
 * least max { pi(S) : f(S) <= C }, pi / P is feasible for the dual of
 * LP(C), so LP(C) >= sum(pi) / P.  P comes from a MIP over the units
 * (pricing) whose proven bound CBC reports even when it stops early.
 *
 * The proof step gives more than one C: for the duals pi of the master,
 * the cheapest set S with pi(S) >= T = sum(pi) / k (a hair less) costs
 * some J, so every C below J has max { pi(S) : f(S) <= C } < T and LP(C)
 * > k by Farley's bound: J itself is a lower bound, and CBC's proven bound
 * on J is one even when it stops early (cover_set.h).  When J <= C that
 * cheapest set is a column the master lacks.  The search starts just
 * above a known lower bound and goes on just above each new bound (whose
 * duals prove further); a C just above the bound that is not proven ends
 * it, since LP(C) only falls as C grows.
 * Where stages are small (k large against the graph) the io of a small
 * stage is most of its cost and this bound is far above the simple one;
 * where k is 2 it rarely beats it (a cover by two sets is easy).
 */
#ifndef SC_COVER_H
#define SC_COVER_H

#include "core/error.h"
#include "core/graph.h"
#include "units.h"

typedef struct sc_cover_params {
	int k;
	double lower;    /* a proven lower bound (> 0) where the search starts */
	double upper;    /* a partition's bottleneck; the search stays below it */
	double deadline; /* sc_clock_now() time to stop by; <= 0: none */
	double rel_tol;  /* stop within this share of the upper bound (1e-3) */
	/* called with each better bound and the probes so far; or NULL */
	void (*fn)(void *ud, double bound, int probes);
	void *ud;
} sc_cover_params;

typedef struct sc_cover_result {
	double bound;  /* proven: no partition has a bottleneck below it */
	int probes;    /* values of C tried */
	int columns;   /* sets generated */
	int pricings;  /* exact pricing MIPs */
	bool complete; /* the search ended (not the deadline) */
} sc_cover_result;

/* Searches the cover bound of units u (costs of u->g under set) for p->k
 * stages.  res->bound is p->lower when nothing better is proven.  Never
 * prints.  SC_ERR_NOMEM, or SC_ERR_INTERNAL when the LP fails. */
sc_status sc_cover_bound(const sc_units *u, const sc_settings *set, const sc_cover_params *p,
                         sc_cover_result *res, sc_error *err);

#endif
