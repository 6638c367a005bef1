/*
 * timeline.h - the pipeline's schedule over time, from the stage costs.
 *
 * m micro-batches flow through the k stages of one partition.  Each stage
 * is a lane that does one thing at a time; for each micro-batch (and, on a
 * training graph, each pass) it receives (io in), computes (work, plus the
 * overflow in the forward pass) and sends (io out), back to back.  A
 * forward block of micro-batch b on stage s starts once stage s-1 has sent
 * b and stage s has finished its previous block; a backward block once
 * stage s+1 has sent b's gradients back (the last stage: once its own
 * forward block of b is done).  Each lane runs its blocks in a fixed order:
 *
 *   inference  F0 F1 ... F(m-1)
 *   GPipe      F0 ... F(m-1), then B0 ... B(m-1) (backward flows from the
 *              last stage to the first)
 *   1F1B       w = min(k-1-s, m) warm-up forwards, then F(w+i) B(i) pairs,
 *              then the remaining backwards (PipeDream-Flush / Megatron's
 *              non-interleaved 1F1B)
 *
 * The split of a stage's cost by pass and kind (sc_stage_cost, core/cost.h):
 * backward receive = in_bytes_bw / B, backward send = out_bytes_bw / B,
 * backward compute = cost_bw - both (the backward ops' work); forward
 * receive = io_in - backward receive, forward send = io_out - backward send,
 * forward compute = cost_fw - both (the forward work plus the overflow).  So
 * a stage's forward block lasts cost_fw and its backward block cost_bw.
 *
 * CPU stages (001 section 3; sc_costs_set_kinds): a CPU stage
 * pays no communication, so its blocks are all compute, its forward block
 * cost_fw (its forward ops' CPU times) and its backward block cost_bw, with
 * receive and send of length 0; the accelerator stages beside it pay for
 * the tensors they exchange with it, as their costs do.  Its lane is
 * ordered and waits on its neighbours like any other, and the bottleneck
 * and the period count it with its CPU cost.
 *
 * Derived figures: makespan (the last end); period, the steady-state time
 * between micro-batches (the bottleneck, the largest stage cost, for
 * inference and 1F1B; makespan / m for GPipe, which flushes and has no
 * steady state) and throughput = 1 / period; latency, micro-batch 0's first
 * start to its last end; fill, the time until every stage has started;
 * drain, the time from the first lane finishing for good to the makespan;
 * each stage's idle fraction 1 - busy / makespan (its bubble).
 *
 * An sc_timeline owns its arrays and borrows nothing; it is immutable after
 * sc_timeline_new and may be read from any thread.
 */
#ifndef SC_TIMELINE_H
#define SC_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>

#include "cost.h"
#include "error.h"

typedef enum sc_seg_kind {
	SC_SEG_RECV = 0,
	SC_SEG_COMPUTE,
	SC_SEG_SEND,
} sc_seg_kind;

/* Returns "receive", "compute" or "send". */
const char *sc_seg_kind_name(sc_seg_kind kind);

typedef struct sc_segment {
	int stage; /* 0-based */
	int batch; /* 0-based micro-batch */
	bool backward;
	sc_seg_kind kind;
	double start, end; /* time */
} sc_segment;

typedef struct sc_timeline {
	int k, m;
	bool training;        /* two passes per micro-batch */
	sc_schedule schedule; /* as given; meaningful on training graphs */
	int passes;           /* 1 or 2 */
	int nseg;             /* k * m * passes * 3 */
	sc_segment *seg;      /* indexed by sc_timeline_at; not in time order */
	double makespan, period, throughput, latency, fill, drain;
	double bottleneck;   /* the largest stage cost */
	int bottleneck_at;   /* its 0-based stage (lowest wins ties) */
	double *busy, *idle; /* k entries: busy time, idle fraction */
	bool *cpu;           /* k entries: stage s is a CPU stage (from c->cpu) */
	int cpus;            /* how many of the k are */
	/* each lane's device when the partition runs on a fleet of kinds
	 * (c->set.fleet, sc_costs_names_devices): k names; NULL otherwise */
	char (*device)[SC_KIND_NAME];
} sc_timeline;

/* The default number of micro-batches for k stages: 2k. */
int sc_timeline_default_batches(int k);

/* Builds the schedule of m >= 1 micro-batches over the stages of c (c->g's
 * backward says whether it is a training graph; sched picks its schedule).
 * Returns a new sc_timeline (free with sc_timeline_free) or NULL with err
 * set (SC_ERR_INPUT for m out of 1..1000000, SC_ERR_LIMIT when k * m is too
 * large, SC_ERR_NOMEM).  c is only read. */
sc_timeline *sc_timeline_new(const sc_costs *c, int m, sc_schedule sched, sc_error *err);

/* Lane s's name as every report and picture gives it: "stage 3", for a
 * CPU stage "stage 3 (CPU)", on a fleet of kinds "stage 3 (h100)"; into
 * buf (truncating to size), returned. */
char *sc_timeline_lane_name(const sc_timeline *t, int s, char *buf, size_t size);

/* Frees t; sc_timeline_free(NULL) does nothing. */
void sc_timeline_free(sc_timeline *t);

/* The index in t->seg of stage s's segment of the given micro-batch, pass
 * and kind (all in range, not checked). */
int sc_timeline_at(const sc_timeline *t, int s, int batch, bool backward, sc_seg_kind kind);

#endif
