/*
 * slice.h - SliceGraph: the optimal split of one topological order into at
 * most k contiguous stages (000 Alg. 1, Lemma 4.2).
 *
 * The paper fills an n x n table of segment costs.  Here the DP over
 * (stages, prefix length) keeps O(n k) numbers and computes the cost of the
 * segments ending at each position on the fly, extending them one unit at a
 * time to the left with O(in-degree) work per step (the io terms change
 * only through the tensors of the unit added and of its predecessors).  A
 * segment's work only grows as it extends, and its work is a lower bound on
 * its cost, so the extension stops once the work passes an upper bound: the
 * cost of an equal-work split of the same order, or the caller's cutoff.
 * Under the hard memory policy it also stops once the parameters overflow.
 *
 * A split that beats the bound has every stage's work within it, so the
 * prefixes where its j-th stage can end lie in a window [lo_j, hi_j] found
 * greedily from both ends (work is additive); near a good incumbent the
 * windows are narrow, a few dozen units against n / k.  When they are, the
 * table is filled layer by layer, pairing each start in one window with
 * each end in the next, with the io of a segment kept as a sum over the
 * tensors' touch points that changes by O(degree) from one start to the
 * next (slice.c, layer_rows): O(n + m + k w^2) per evaluation for windows
 * of w units, instead of O(n w) for walking.  The cheaper is chosen from
 * the window sizes.  The time limit and cancelling are polled inside
 * (sc_slicer_set_stop).
 * The result is exact: tests compare it with every segmentation and with
 * the textbook DP.
 *
 * With CPU stages (sc_settings.cpus = L > 0; 001 section 3) the
 * order is split into at most k accelerator and L CPU stages in any
 * interleaving, each stage's device chosen with the split (slice_cpu.c);
 * sc_slicer_kinds gives each stage of the last split its kind.  The
 * hard memory limit binds the accelerator stages only.  The slicing
 * without CPU stages is unchanged by this.
 */
#ifndef SC_SLICE_H
#define SC_SLICE_H

#include "units.h"

typedef struct sc_slicer sc_slicer;

/* Scratch for slicing orders of u's units into set->k stages with the cost
 * model of set (B, M, policy), and up to set->cpus CPU stages besides (u
 * contracted for them, units.h).  One per thread.  NULL with err on
 * failure. */
sc_slicer *sc_slicer_new(const sc_units *u, const sc_settings *set, sc_error *err);
void sc_slicer_free(sc_slicer *s);

/* Slices order (a topological order of all units).  Returns the optimal
 * bottleneck over splits of order into at most k contiguous stages, or
 * INFINITY when every split breaks the hard memory limit.  When the optimum
 * exceeds cutoff, it may instead return the cost of some other split that
 * exceeds cutoff (pass INFINITY for the exact value).  When unit_stage is not
 * NULL it receives the split whose cost is returned (0-based stages in
 * pipeline order), unless the result is INFINITY. */
double sc_slice(sc_slicer *s, const int *order, double cutoff, int *unit_stage);
/* (NAN instead, with unit_stage untouched, when the stop set by
 * sc_slicer_set_stop said to stop.)  With CPU stages the split's stages
 * are 0..k + L - 1, an empty stage keeping its place, and a split is
 * INFINITY also when no split of the order puts every unit on a device it
 * may go to; when the optimum exceeds the cutoff, the result may also be
 * INFINITY unless every unit may go to an accelerator. */

/* The kinds of the split sc_slice or sc_slice_equal_work returned last
 * (k + L of them, each stage's kind as a fleet of the graph's device and
 * CPUs indexes them, fleet.h: 0 an accelerator, 1 a CPU, exactly L of
 * them), or NULL when the slicer has no CPU stages.  Owned by s, valid
 * until its next slicing. */
#define SC_SLICE_ACCEL 0
#define SC_SLICE_CPU 1
const int *sc_slicer_kinds(const sc_slicer *s);

/* Makes sc_slice poll stop(ctx) every few thousand steps (and once before
 * it starts) and give up, returning NAN, when it says true, so that a time
 * limit or a cancel holds within one slicing.  stop is called on the
 * slicing thread; NULL (the default) never stops. */
void sc_slicer_set_stop(sc_slicer *s, bool (*stop)(void *ctx), void *ctx);

/* How sc_slice fills its table (the result is the same): SC_SLICE_AUTO
 * (the default) picks the cheaper of walking each segment leftwards and
 * the row method of slice.c by the sizes of the windows; the others force
 * one, for tests and benchmarks. */
enum { SC_SLICE_AUTO, SC_SLICE_WALK, SC_SLICE_ROWS };
void sc_slicer_set_mode(sc_slicer *s, int mode);

/* How the last sc_slice filled its table: SC_SLICE_WALK or SC_SLICE_ROWS,
 * or SC_SLICE_AUTO when it needed no table (nothing could beat the bound). */
int sc_slicer_last_mode(const sc_slicer *s);

/* The equal-work split of order into k stages (no optimisation): fills
 * unit_stage and returns its bottleneck.  The cheap baseline.  With CPU
 * stages: the same with the CPU stages empty when every unit may go to
 * an accelerator; else the best split of the order by device with the
 * hard limit ignored (INFINITY when it breaks it), or, when no split of
 * the order puts every unit on a device it may go to, the accelerators'
 * equal-work split with INFINITY. */
double sc_slice_equal_work(sc_slicer *s, const int *order, int *unit_stage);

#endif
