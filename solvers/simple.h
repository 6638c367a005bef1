/*
 * simple.h - the simple lower bound and a fast first partition.
 *
 * The simple bound (000 Lemma 3.3) is max(largest indivisible work, total
 * work / k), where a co-location group's total work is indivisible.  It
 * ignores io and memory, which only add cost, so it never exceeds the optimum.
 *
 * With CPU stages (001 section 3: up to L CPU stages beside the k
 * accelerator stages, a CPU stage costing its ops' CPU times) the simple
 * bound becomes a fractional split, sc_bound_simple_cpus: the least B such
 * that every item's work (an op outside groups, or a group, indivisible
 * as a whole) can be divided between the accelerators, holding at most
 * k * B of accelerator work, and the CPUs, holding at most L * B of CPU
 * time, where an item only the accelerator may hold goes there whole and
 * one only a CPU may hold goes to the CPUs whole; and at least the largest
 * item's time on the cheapest device it may use.  Why it is a lower bound:
 * in a partition of bottleneck B*, each accelerator stage's cost is at
 * least its work (io and overflow only add) and each CPU stage's cost is
 * its CPU time, so the accelerator stages hold at most k * B* of work and
 * the CPU stages at most L * B* of CPU time: the partition's own (whole)
 * split is one of the fractional splits allowed at B*, so the least such
 * B is at most B*; and the stage holding an item costs at least its time
 * on that stage's device.  Communication and memory are dropped (they
 * only add).  The least B is found exactly by a fractional knapsack: the
 * items either device may hold, sorted by CPU time saved per unit of
 * accelerator work, fill the accelerators in that order (saving the most
 * CPU time for the accelerator work spent), which makes the CPU load a
 * convex, decreasing, piecewise-linear function of B; the least B where it
 * fits L * B is on one of its pieces.  With L = 0 it is sc_bound_simple.
 *
 * sc_greedy_split gives a valid partition at once, before any search has
 * run: a topological order of the order arcs (graph.h) cut into k pieces of
 * about equal work, then repaired so that groups share a stage and every
 * order arc holds (valid on training graphs too).
 */
#ifndef SC_SIMPLE_H
#define SC_SIMPLE_H

#include <stdbool.h>

#include "core/graph.h"

/* The simple lower bound for k >= 1 stages (time units). */
double sc_bound_simple(const sc_graph *g, int k);

/* One indivisible item of the bound with CPU stages: its time on an
 * accelerator (its work) and on a CPU, and whether each may hold it. */
typedef struct sc_simple_item {
	double accel, cpu;
	bool accel_ok, cpu_ok;
} sc_simple_item;

/* The bound with CPU stages (above) over n items, for k >= 1 accelerator
 * and cpus >= 0 CPU stages (with 0, every item must go to an
 * accelerator): INFINITY when an item has no device it may go to.
 * Reorders items.  Pure arithmetic, thread-safe. */
double sc_bound_simple_items(sc_simple_item *items, int n, int k, int cpus);

/* The bound with CPU stages of g (items: its ops outside groups and its
 * groups, whose times are their ops' sums and which a device may hold
 * when it may hold every op of the group).  SC_OK with *out set, or
 * SC_ERR_NOMEM. */
sc_status sc_bound_simple_cpus(const sc_graph *g, int k, int cpus, double *out, sc_error *err);

/* The simple bound on a fleet (fleet.h, resolved for g): each item (an op
 * outside groups, or a group) takes at least its least time on a kind
 * that may run all of it, so some stage holds a K-th of the sum of those
 * times (K the fleet's stages) and the stage of the longest item at least
 * that item's; io and memory only add.  INFINITY when an item has no kind
 * that may run it.  Pure arithmetic, thread-safe. */
struct sc_fleet;
double sc_bound_simple_kinds(const sc_graph *g, const struct sc_fleet *f);

/* The number of stages that can be non-empty: min(k, ops outside groups +
 * groups), at least 1.  The optimum with k stages equals the optimum with
 * that many (renumbering the non-empty stages in order keeps every order
 * arc's order and every stage's cost), so bounds may be computed for it. */
int sc_stages_useful(const sc_graph *g, int k);

/* Fills stage[0..n) with a valid partition into k >= 1 stages (0-based).
 * Returns SC_OK, or SC_ERR_NOMEM with err set. */
sc_status sc_greedy_split(const sc_graph *g, int k, int *stage, sc_error *err);

#endif
