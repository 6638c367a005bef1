/*
 * activations.h - what a stage holds besides its parameters (DESIGN.md
 * section 1, Memory per stage; 000 eq. 2 and training).
 *
 * A stage S in place s (0-based) of k holds
 *
 *   mem(S, s) = params(S) + grads(S) + optimizer(S)
 *             + stash(S) x in_flight(s) + peak(S)
 *
 *   - params(S): the bytes of its ops' parameters (g->param, at the run's
 *     precision);
 *   - grads(S) and optimizer(S): in a training graph stagecut built from a
 *     forward graph (training.h), params(S) times the bytes of gradients
 *     and of optimizer state per byte of parameters the graph carries
 *     (sc_acts.grads, sc_acts.optimizer; training.h says what each
 *     optimizer costs and why);
 *   - stash(S): the bytes the forward ops of S save for their backward pass
 *     for one micro-batch: the output tensors the ops save (each tensor once
 *     in S, however many of its ops save it; a tensor made in another stage
 *     and saved here is held here too) plus what they save that no op
 *     outputs (a model input, a norm's statistics, a pool's indices).  0 in
 *     an inference graph: nothing waits for a backward pass;
 *   - in_flight(s): the micro-batches whose stash S holds at once: under
 *     1F1B min(k - s, m) (the first stage k of them, the last one), under
 *     GPipe all m, m the micro-batches (sc_settings.microbatches, k when 0);
 *     1 in an inference graph;
 *   - peak(S): the working peak, the most bytes live at once when the
 *     forward ops of S run in program order (sc_graph_program_order): a
 *     tensor from an earlier stage is live from the stage's start to its
 *     last reader in S, one made in S from its op to its last reader in S
 *     or, when a later stage reads it, to the stage's end (it is held until
 *     sent).  At an op, its inputs and its output are live together.
 *
 * Files that carry parameter sizes alone (msr-fiddle, plain DOT) have no
 * sc_acts: stash = peak = grads = optimizer = 0, the meaning they always
 * had.  Nothing here prints or exits.
 */
#ifndef SC_ACTIVATIONS_H
#define SC_ACTIVATIONS_H

#include <stdbool.h>

#include "error.h"
#include "graph.h"

typedef struct sc_acts {
	/* the working peak is counted: the graph's out sizes are its
	 * tensors' (an ONNX model) */
	bool peak;
	/* op v saves the output tensors of the ops save[save_off[v] ..
	 * save_off[v + 1]) (v itself: its own output), and save_own[v] bytes
	 * more that no op outputs.  Only forward ops of a training graph
	 * save. */
	int *save_off, *save;
	double *save_own;
	/* gradients and optimizer state, bytes per byte of parameters (0 but
	 * in a training graph built from a forward one) */
	double grads, optimizer;
	char optimizer_name[16]; /* "adam", ...; "" when none */
	int *order;              /* the program order of the ops */
} sc_acts;

/* The bytes a stage holds per byte of its ops' parameters in parameters,
 * gradients and optimizer state: 1 + grads + optimizer (1 without
 * sc_acts).  That part of mem(S) adds up op by op; engines that sum
 * parameters (units, slices, MIP rows) hold it against the memory, and
 * solve a relaxation of the rest (stash and peak), which sc_costs adds. */
static inline double sc_acts_param_factor(const sc_graph *g)
{
	return g->acts ? 1 + g->acts->grads + g->acts->optimizer : 1;
}

/* A new sc_acts for g (n ops): no saves, no factors, peak as asked, and
 * g's program order; NULL with err set when out of memory. */
sc_acts *sc_acts_new(const sc_graph *g, bool peak, sc_error *err);

/* Sets the saves: per op v, the ops save[save_off[v] .. save_off[v+1])
 * whose outputs it saves (copied; off has g->n + 1 entries; NULL: none)
 * and own[v] bytes more (copied; NULL: none).  Fails on an op index out
 * of range or a byte count not finite and >= 0. */
sc_status sc_acts_set_saves(sc_acts *a, const sc_graph *g, const int *off, const int *save,
                            const double *own, sc_error *err);

/* Frees a.  sc_acts_free(NULL) does nothing. */
void sc_acts_free(sc_acts *a);

/* The parts of one stage's memory (bytes; in_flight a count). */
typedef struct sc_mem_parts {
	double params, grads, optimizer;
	double stash; /* per micro-batch */
	int in_flight;
	double working_peak;
	double total; /* params + grads + optimizer + stash x in_flight + working_peak */
} sc_mem_parts;

/* in_flight of the stage in place s (0-based) of k under set (above). */
int sc_acts_in_flight(const sc_graph *g, const sc_settings *set, int k, int s);

/* Scratch for sc_acts_stage: one per thread. */
typedef struct sc_acts_work sc_acts_work;

/* NULL when out of memory. */
sc_acts_work *sc_acts_work_new(const sc_graph *g);
void sc_acts_work_free(sc_acts_work *w);

/* The stash and working peak of stage s of the partition stage[], whose
 * ops are ops[0..n) in program order (the caller lists them: see
 * sc_acts_by_stage).  O(n + the edges into and out of them).  Both 0
 * when g has no sc_acts. */
void sc_acts_stage(const sc_graph *g, sc_acts_work *w, const int *stage, int s, const int *ops,
                   int n, double *stash, double *peak);

/* Lists the ops of the stages asked (want[s] true; NULL: all of k) in
 * program order, stage by stage: ops of stage s are out[off[s] ..
 * off[s+1]) (off: k + 1 entries, out: g->n).  Needs g->acts. */
void sc_acts_by_stage(const sc_graph *g, const int *stage, int k, const bool *want, int *off,
                      int *out);

/* What no stage of a partition of g into k stages under set can hold
 * more than: all parameters with their gradients and optimizer state,
 * every saved tensor for the most micro-batches any stage holds, and
 * every tensor live at once. */
double sc_acts_most(const sc_graph *g, const sc_settings *set, int k);

/* The parts of stage s's memory from its parameters, stash and peak. */
sc_mem_parts sc_acts_parts(const sc_graph *g, const sc_settings *set, int k, int s, double param,
                           double stash, double peak);

#endif
