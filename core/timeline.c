/*
 * timeline.c - the pipeline schedule of timeline.h.
 *
 * Each lane's order of blocks (one block = receive, compute, send of one
 * micro-batch in one pass) is fixed by the schedule; the start of a block is
 * the later of its lane becoming free and its one dependency (the previous
 * stage's block of the same micro-batch, the next stage's on the way back)
 * ending.  The lanes are swept alternately up and down, each advancing as
 * far as its dependencies allow, until every block is placed: forward
 * blocks move down the stages, backward blocks up, so the alternation
 * places a whole wave per pair of sweeps.  A sweep that places nothing
 * would mean a cyclic order (none of the three is), reported as internal.
 */
#include "timeline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define SC_TIMELINE_MAX_BATCHES 1000000
#define SC_TIMELINE_MAX_BLOCKS 50000000L

const char *sc_seg_kind_name(sc_seg_kind kind)
{
	switch (kind) {
	case SC_SEG_RECV: return "receive";
	case SC_SEG_COMPUTE: return "compute";
	case SC_SEG_SEND: return "send";
	}
	return "?";
}

int sc_timeline_default_batches(int k)
{
	return k < 1 ? 2 : 2 * k;
}

int sc_timeline_at(const sc_timeline *t, int s, int batch, bool backward, sc_seg_kind kind)
{
	return ((s * t->passes + (backward ? 1 : 0)) * t->m + batch) * 3 + (int)kind;
}

char *sc_timeline_lane_name(const sc_timeline *t, int s, char *buf, size_t size)
{
	if (t->device && !t->cpu[s])
		snprintf(buf, size, "stage %d (%s)", s + 1, t->device[s]);
	else
		snprintf(buf, size, "stage %d%s", s + 1, t->cpu[s] ? " (CPU)" : "");
	return buf;
}

void sc_timeline_free(sc_timeline *t)
{
	if (!t)
		return;
	free(t->seg);
	free(t->busy);
	free(t->idle);
	free(t->cpu);
	free(t->device);
	free(t);
}

/* Stage s's durations by pass and kind (see timeline.h), clamped at 0
 * against rounding. */
static void split(const sc_costs *c, int s, double fw[3], double bw[3])
{
	const sc_stage_cost *st = &c->st[s];
	if (st->cpu) {
		/* 001 section 3: a CPU stage computes only; its byte counters
		 * still count the tensors crossing it, which its neighbours
		 * pay for */
		fw[SC_SEG_RECV] = fw[SC_SEG_SEND] = bw[SC_SEG_RECV] = bw[SC_SEG_SEND] = 0;
		fw[SC_SEG_COMPUTE] = fmax(0, st->cost_fw);
		bw[SC_SEG_COMPUTE] = fmax(0, st->cost_bw);
		return;
	}
	double bwidth = c->fleet.kind[st->kind].bandwidth;
	bw[SC_SEG_RECV] = st->in_bytes_bw / bwidth;
	bw[SC_SEG_SEND] = st->out_bytes_bw / bwidth;
	bw[SC_SEG_COMPUTE] = fmax(0, st->cost_bw - bw[SC_SEG_RECV] - bw[SC_SEG_SEND]);
	fw[SC_SEG_RECV] = fmax(0, st->io_in - bw[SC_SEG_RECV]);
	fw[SC_SEG_SEND] = fmax(0, st->io_out - bw[SC_SEG_SEND]);
	fw[SC_SEG_COMPUTE] = fmax(0, st->cost_fw - fw[SC_SEG_RECV] - fw[SC_SEG_SEND]);
}

/* The j-th block of stage s's order: its micro-batch, and whether it is a
 * backward block. */
static void order_at(const sc_timeline *t, int s, int j, int *batch, bool *backward)
{
	int m = t->m;
	if (!t->training) {
		*batch = j, *backward = false;
		return;
	}
	if (t->schedule == SC_SCHEDULE_GPIPE) {
		*backward = j >= m;
		*batch = j % m;
		return;
	}
	int w = t->k - 1 - s < m ? t->k - 1 - s : m; /* warm-up forwards */
	if (j < w) {
		*batch = j, *backward = false;
	} else if (j < w + 2 * (m - w)) {
		int i = (j - w) / 2;
		*backward = (j - w) % 2 == 1;
		*batch = *backward ? i : w + i;
	} else {
		*batch = j - m, *backward = true; /* the cool-down backwards */
	}
}

/* Places stage s's block (batch, backward) at start with durations d. */
static double place(sc_timeline *t, int s, int batch, bool backward, double start,
                    const double d[3])
{
	for (int kind = 0; kind < 3; kind++) {
		sc_segment *g = &t->seg[sc_timeline_at(t, s, batch, backward, kind)];
		g->stage = s, g->batch = batch, g->backward = backward, g->kind = kind;
		g->start = start;
		g->end = start + d[kind];
		start = g->end;
	}
	return start;
}

/* The end of the block (s, batch, backward), or NAN while unplaced. */
static double block_end(const sc_timeline *t, const bool *placed, int s, int batch, bool backward)
{
	int at = sc_timeline_at(t, s, batch, backward, SC_SEG_SEND);
	return placed[at / 3] ? t->seg[at].end : NAN;
}

/* Places as many of stage s's next blocks as their dependencies allow;
 * returns how many. */
static long advance(sc_timeline *t, int s, int *next, double *free_at, bool *placed,
                    const double *dur)
{
	long n = 0;
	int len = t->m * t->passes;
	while (next[s] < len) {
		int b;
		bool bw;
		order_at(t, s, next[s], &b, &bw);
		double dep = 0;
		if (!bw && s > 0)
			dep = block_end(t, placed, s - 1, b, false);
		else if (bw && s < t->k - 1)
			dep = block_end(t, placed, s + 1, b, true);
		else if (bw)
			dep = block_end(t, placed, s, b, false);
		if (isnan(dep))
			break;
		free_at[s] = place(t, s, b, bw, fmax(free_at[s], dep), &dur[(s * 2 + bw) * 3]);
		placed[sc_timeline_at(t, s, b, bw, SC_SEG_RECV) / 3] = true;
		next[s]++;
		n++;
	}
	return n;
}

static void derive(sc_timeline *t, const sc_costs *c)
{
	t->bottleneck = sc_costs_bottleneck(c, &t->bottleneck_at);
	double first_end = INFINITY;
	t->makespan = 0;
	t->fill = 0;
	for (int s = 0; s < t->k; s++) {
		double first = INFINITY, last = 0, busy = 0;
		for (int i = 0; i < t->m * t->passes * 3; i++) {
			const sc_segment *g = &t->seg[s * t->m * t->passes * 3 + i];
			first = fmin(first, g->start);
			last = fmax(last, g->end);
			busy += g->end - g->start;
		}
		t->busy[s] = busy;
		t->fill = fmax(t->fill, first);
		t->makespan = fmax(t->makespan, last);
		first_end = fmin(first_end, last);
	}
	t->drain = t->makespan - first_end;
	for (int s = 0; s < t->k; s++)
		t->idle[s] = t->makespan > 0 ? 1 - t->busy[s] / t->makespan : 0;
	double lo = INFINITY, hi = 0;
	for (int s = 0; s < t->k; s++)
		for (int p = 0; p < t->passes; p++)
			for (int kind = 0; kind < 3; kind++) {
				const sc_segment *g = &t->seg[sc_timeline_at(t, s, 0, p, kind)];
				lo = fmin(lo, g->start);
				hi = fmax(hi, g->end);
			}
	t->latency = hi - lo;
	if (t->training && t->schedule == SC_SCHEDULE_GPIPE)
		t->period = t->makespan / t->m;
	else
		t->period = t->bottleneck;
	t->throughput = t->period > 0 ? 1 / t->period : INFINITY;
}

sc_timeline *sc_timeline_new(const sc_costs *c, int m, sc_schedule sched, sc_error *err)
{
	if (m < 1 || m > SC_TIMELINE_MAX_BATCHES) {
		sc_error_set(err, SC_ERR_INPUT, "micro-batches: %d is not in 1..%d", m,
		             SC_TIMELINE_MAX_BATCHES);
		return NULL;
	}
	int k = c->k;
	bool training = c->g->backward != NULL;
	int passes = training ? 2 : 1;
	if ((long)k * m * passes > SC_TIMELINE_MAX_BLOCKS) {
		sc_error_set(err, SC_ERR_LIMIT,
		             "timeline: %d stages x %d micro-batches is over %ld blocks", k, m,
		             SC_TIMELINE_MAX_BLOCKS);
		return NULL;
	}
	sc_timeline *t = calloc(1, sizeof *t);
	long blocks = (long)k * m * passes;
	double *dur = calloc((size_t)k * 6, sizeof *dur);
	double *free_at = calloc((size_t)k, sizeof *free_at);
	int *next = calloc((size_t)k, sizeof *next);
	bool *placed = calloc((size_t)blocks, sizeof *placed);
	if (t) {
		t->seg = calloc((size_t)blocks * 3, sizeof *t->seg);
		t->busy = calloc((size_t)k, sizeof *t->busy);
		t->idle = calloc((size_t)k, sizeof *t->idle);
		t->cpu = calloc((size_t)k, sizeof *t->cpu);
	}
	if (!t || !t->seg || !t->busy || !t->idle || !t->cpu || !dur || !free_at || !next ||
	    !placed) {
		sc_error_nomem(err, "timeline");
		goto fail;
	}
	t->k = k, t->m = m, t->training = training, t->schedule = sched, t->passes = passes;
	t->nseg = (int)(blocks * 3);
	for (int s = 0; s < k; s++) {
		split(c, s, &dur[s * 6], &dur[s * 6 + 3]);
		t->cpu[s] = c->st[s].cpu;
		t->cpus += c->st[s].cpu;
	}
	if (c->set.fleet && sc_costs_names_devices(c, k)) {
		if (!(t->device = calloc((size_t)k, sizeof *t->device))) {
			sc_error_nomem(err, "timeline");
			goto fail;
		}
		for (int s = 0; s < k; s++)
			snprintf(t->device[s], SC_KIND_NAME, "%s", sc_costs_device_name(c, s));
	}

	long done = 0;
	for (int sweep = 0; done < blocks; sweep++) {
		long got = 0;
		for (int i = 0; i < k; i++)
			got += advance(t, sweep % 2 ? k - 1 - i : i, next, free_at, placed, dur);
		if (got == 0) {
			sc_error_set(err, SC_ERR_INTERNAL,
			             "timeline: the schedule's order is cyclic");
			goto fail;
		}
		done += got;
	}
	derive(t, c);
	free(dur), free(free_at), free(next), free(placed);
	return t;
fail:
	free(dur), free(free_at), free(next), free(placed);
	sc_timeline_free(t);
	return NULL;
}
