/*
 * cost.h - the stage cost model of DESIGN.md section 1 (000 eq. 1-4).
 *
 * For a stage S:  f(S) = io_in(S) + work(S) + io_out(S) + overflow(S), where
 * io_in counts (once) each tensor produced outside S and read inside S,
 * io_out counts (once) each tensor produced inside S and read outside S, both
 * divided by the bandwidth B, and overflow(S) = (param(S) - M)+ / B under the
 * overflow policy (000 eq. 2), param(S) being the stage's whole memory need
 * when the graph carries activation sizes (activations.h: parameters,
 * gradients and optimizer state, stash and working peak).  Under the hard
 * policy a stage whose need exceeds M is infeasible instead and pays no
 * overflow.
 *
 * An sc_costs holds the per-stage totals of one partition of one graph.
 * sc_costs_eval computes them from scratch in O(n + m); sc_costs_move updates
 * them when a single op changes stage, in O(deg(v) + sum of the out-degrees of
 * v's predecessors + k), which is what the workbench does on every key press.
 * The two agree up to floating-point rounding (tests check it).
 *
 * Devices (fleet.h): every stage has a kind (sc_costs_set_kinds; kind 0,
 * the graph's work kind, by default).  A stage costs its ops' times on its
 * kind, its io over the slower link of each transfer and its overflow
 * against its kind's memory; a CPU stage (001 section 3) pays its ops'
 * CPU times only: no io, no memory limit.  An op its kind may not run (no
 * CPU time on a CPU stage; not supported on an accelerator) makes the
 * partition infeasible (sc_costs_feasible; its stage's no_device counts
 * them).
 *
 * An sc_costs is not thread-safe; each thread uses its own.
 */
#ifndef SC_COST_H
#define SC_COST_H

#include <stdbool.h>

#include "activations.h"
#include "fleet.h"
#include "graph.h"

typedef struct sc_stage_cost {
	int ops;
	double work;     /* time */
	double in_bytes; /* bytes of tensors entering the stage */
	double out_bytes;
	double param;     /* bytes */
	double io_in;     /* time: in_bytes / B */
	double io_out;    /* time */
	double overflow;  /* time */
	double cost;      /* time: io_in + work + io_out + overflow */
	bool over_memory; /* param > M (infeasible under the hard policy) */
	/* Training graphs: the part of the stage's work and io that belongs to
	 * the backward pass (the work of its backward ops; the io of the tensors
	 * backward ops produce), and the cost split by pass: cost_bw is that
	 * part's time, cost_fw the rest (the overflow, which fetches the weights
	 * once per micro-batch, counts in the forward pass), so that
	 * cost = cost_fw + cost_bw.  All 0 but cost_fw = cost on inference. */
	double work_bw;
	double in_bytes_bw, out_bytes_bw;
	double cost_fw, cost_bw;
	/* Devices: the stage's kind (an index into sc_costs.fleet), whether
	 * it is a CPU, and how many of its ops that kind may not run.  work
	 * and work_bw are its ops' times on that kind. */
	int kind;
	bool cpu;
	int no_device;
	/* Memory (activations.h): the stash per micro-batch, the micro-batches
	 * in flight, the working peak, and need, what the stage holds against
	 * its kind's memory: params + grads + optimizer + stash x in_flight +
	 * peak (param alone for a graph without activation sizes).  over_memory
	 * and overflow are need's. */
	double stash, peak, need;
	int in_flight;
} sc_stage_cost;

typedef struct sc_costs {
	const sc_graph *g; /* borrowed; must outlive the sc_costs */
	sc_settings set;   /* the settings used (k, B, M, policy) */
	int k;
	sc_stage_cost *st; /* k entries, stage 0..k-1 */
	int *mark;         /* scratch: k stamps */
	int stamp;
	/* the stages a move changed (touched, ntouched of them; tmark their
	 * stamps), the ones it refreshes */
	int *touched, *tmark, ntouched, tstamp;
	/* The devices: the kinds (set->fleet's, or the graph's work kind and
	 * "cpu"), each stage's kind (k entries), and per stage and kind the
	 * sums kw (work, backward work) and kbad (ops the kind may not run),
	 * allocated when the graph or the fleet has kinds and kept only while
	 * a stage's kind needs them: fast (no fleet, every stage of kind 0 or
	 * of a kind that runs no op) keeps the graph's sums alone */
	sc_fleet fleet;
	int *kind;
	bool fast, one_link;
	double *kw;
	int *kbad;
	double *link_in, *link_out; /* per stage: io time (bytes over each link), !one_link */
	/* the graph's activation sizes (g->acts): scratch for the stages'
	 * stash and peak (the ops of the stages asked, want) */
	struct sc_acts_work *aw;
	int *mem_off, *mem_ops;
	bool *want;
	bool mem_skip; /* sc_costs_objective_only: no stage's stash and peak */
} sc_costs;

/* Returns a new sc_costs for g with the given settings (set->k is the number
 * of stages, >= 1), all stages zero, or NULL with err set. */
sc_costs *sc_costs_new(const sc_graph *g, const sc_settings *set, sc_error *err);

/* Gives the stages their kinds: kind[s] indexes c->fleet (k entries,
 * copied; NULL: every stage kind 0, the default).  Call before
 * sc_costs_eval. */
void sc_costs_set_kinds(sc_costs *c, const int *kind);

/* True when some stage of c is a CPU stage. */
bool sc_costs_has_cpu(const sc_costs *c);

/* True when some stage of c is of another kind than kind 0. */
bool sc_costs_has_kinds(const sc_costs *c);

/* Whether a partition of k stages costed by c (may be NULL) names its
 * stages' devices (in a file, a report): c's fleet has kinds beyond the
 * graph's own device (--devices), or some stage is of another kind (a CPU
 * stage). */
bool sc_costs_names_devices(const sc_costs *c, int k);

/* The name of stage s's device as reports give it: its kind's name in a
 * fleet given (set->fleet), else "cpu" or "accel" (001 section 3). */
const char *sc_costs_device_name(const sc_costs *c, int s);

/* The parts of stage s's memory (after sc_costs_eval; activations.h). */
sc_mem_parts sc_costs_memory_parts(const sc_costs *c, int s);

/* The name of the largest part of p: "params", "grads", "optimizer",
 * "stash" (stash x in_flight) or "working_peak". */
const char *sc_mem_parts_largest(const sc_mem_parts *p);

/* The time stage s's ops take on kind d (after sc_costs_eval). */
double sc_costs_kind_work(const sc_costs *c, int s, int d);

/* The memory stage s's need is held against: its kind's (INFINITY:
 * none, as a CPU's). */
double sc_costs_stage_memory(const sc_costs *c, int s);

/* What stage s would cost on kind d (after sc_costs_eval): its ops' times
 * there, its io over d's link, its overflow against d's memory; INFINITY
 * when d may not run one of its ops or it breaks d's hard limit. */
double sc_costs_cost_on(const sc_costs *c, int s, int d);

/* Gives the stages of stage[] (c->k of them) the kinds, within the
 * fleet's counts, that make the bottleneck least (each stage's cost on
 * each kind as sc_costs_cost_on says; a bottleneck assignment), sets them
 * in c, evaluates stage[] and writes them into kind (may be NULL).  False
 * when out of memory or the counts hold fewer than c->k stages (c then
 * keeps its kinds). */
bool sc_costs_assign_kinds(sc_costs *c, const int *stage, int *kind);

/* For a caller that reads the objective alone (a search's own costs):
 * when no stage could pass its kind's memory whatever it holds
 * (sc_acts_most), the stages' stash and working peak are not computed
 * (they would change no cost), which spares a move its O(n) sweep.
 * Reports need them: their costs never call this. */
void sc_costs_objective_only(sc_costs *c);

/* Frees c.  sc_costs_free(NULL) does nothing. */
void sc_costs_free(sc_costs *c);

/* Computes every stage's totals for stage[v] in 0..k-1 (not checked here). */
void sc_costs_eval(sc_costs *c, const int *stage);

/* Moves op v to stage `to`: updates stage[v] and the totals incrementally.
 * stage must be the array the totals were computed for. */
void sc_costs_move(sc_costs *c, int *stage, int v, int to);

/* The largest stage cost, and its 0-based stage in *which (may be NULL); the
 * lowest index wins ties. */
double sc_costs_bottleneck(const sc_costs *c, int *which);

/* Whether a stage of this cost is at the bottleneck: within a relative
 * 1e-9 of it (stages tied for the largest cost are all the bottleneck, and
 * reports mark every one); never for a bottleneck of 0 or less. */
bool sc_cost_at_bottleneck(double cost, double bottleneck);

/* True when no stage breaks the hard memory limit (never under the
 * overflow policy) and every op's stage is a device it may go to (no
 * stage's no_device is positive). */
bool sc_costs_feasible(const sc_costs *c);

/* Under the GPipe schedule: the largest forward cost of a stage plus the
 * largest backward cost of a stage (seed 001 section 5.3); the lowest
 * indices in *fw_at and *bw_at (may be NULL).  Equal to the bottleneck on
 * an inference graph. */
double sc_costs_gpipe(const sc_costs *c, int *fw_at, int *bw_at);

/* The objective searches minimise: the bottleneck (1F1B, and every
 * inference graph) or the GPipe objective, as c->set.schedule says; or
 * INFINITY when the partition breaks the hard memory limit.  The GPipe
 * objective is never below the bottleneck (the largest fw + bw of one
 * stage), so every lower bound on the bottleneck bounds it too. */
double sc_costs_objective(const sc_costs *c);

/* The cost of the single set S of ops given by in_set[v] (bool per op), from
 * the definition and nothing else, its memory its parameters alone (a
 * lower bound where the graph has activation sizes); O(n + m).  For tests
 * and for bounds. */
double sc_cost_of_set(const sc_graph *g, const sc_settings *set, const bool *in_set);

#endif
