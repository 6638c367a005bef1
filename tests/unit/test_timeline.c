/*
 * test_timeline.c - core/timeline against a simulation written here,
 * independently: an event loop with a global clock that, at each step,
 * starts the block that can start earliest among the lanes whose next block
 * has its input, with durations from ts_costs (tests/support.h), not from
 * sc_costs.  Every segment's start and end must agree (1e-9); no lane may
 * do two things at once; every dependency must hold; the steady-state
 * period on the bottleneck lane must be the bottleneck.
 */
#include <criterion/criterion.h>
#include <glob.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/timeline.h"
#include "tests/support.h"

typedef struct sim_block {
	int batch;
	bool bw;
} sim_block;

/* Lane s's order, written out as the schedules describe it. */
static void sim_order(int k, int m, bool training, sc_schedule sched, int s, sim_block *o)
{
	int n = 0;
	if (!training) {
		for (int b = 0; b < m; b++)
			o[n++] = (sim_block){b, false};
		return;
	}
	if (sched == SC_SCHEDULE_GPIPE) {
		for (int b = 0; b < m; b++)
			o[n++] = (sim_block){b, false};
		for (int b = 0; b < m; b++)
			o[n++] = (sim_block){b, true};
		return;
	}
	int f = 0, bk = 0, warm = k - 1 - s;
	while (f < m && f < warm)
		o[n++] = (sim_block){f++, false};
	while (f < m) {
		o[n++] = (sim_block){f++, false};
		o[n++] = (sim_block){bk++, true};
	}
	while (bk < m)
		o[n++] = (sim_block){bk++, true};
}

/* Durations of lane s: d[pass][kind]. */
static void sim_durations(const ts_cost *c, double d[2][3])
{
	d[1][0] = c->io_in_bw;
	d[1][1] = c->work_bw;
	d[1][2] = c->io_out_bw;
	d[0][0] = c->io_in - c->io_in_bw;
	d[0][1] = c->work - c->work_bw + c->overflow;
	d[0][2] = c->io_out - c->io_out_bw;
}

/* start[((s * 2 + pass) * m + b) * 3 + kind], end likewise. */
static void simulate(const ts_cost *c, int k, int m, bool training, sc_schedule sched,
                     double *start, double *end)
{
	int len = training ? 2 * m : m;
	sim_block *order = malloc((size_t)k * (size_t)len * sizeof *order);
	int *next = calloc((size_t)k, sizeof *next);
	double *lane_free = calloc((size_t)k, sizeof *lane_free);
	/* arrival of a block's input: NAN until its producer is simulated */
	double *ready = malloc((size_t)k * 2 * (size_t)m * sizeof *ready);
	cr_assert(order && next && lane_free && ready);
	for (int i = 0; i < k * 2 * m; i++)
		ready[i] = NAN;
	for (int s = 0; s < k; s++) {
		sim_order(k, m, training, sched, s, &order[s * len]);
		for (int b = 0; b < m; b++)
			if (s == 0)
				ready[(s * 2) * m + b] = 0;
	}
	double clock = 0;
	for (int step = 0; step < k * len; step++) {
		int best = -1;
		double best_t = INFINITY;
		for (int s = 0; s < k; s++) {
			if (next[s] == len)
				continue;
			sim_block blk = order[s * len + next[s]];
			double in = ready[(s * 2 + blk.bw) * m + blk.batch];
			if (isnan(in))
				continue;
			double t = fmax(in, lane_free[s]);
			if (t < best_t)
				best_t = t, best = s;
		}
		cr_assert_neq(best, -1, "simulation stuck");
		cr_assert_geq(best_t, clock - 1e-12, "events out of order");
		clock = best_t;
		int s = best;
		sim_block blk = order[s * len + next[s]++];
		double d[2][3];
		sim_durations(&c[s], d);
		double t = best_t;
		for (int kind = 0; kind < 3; kind++) {
			int at = ((s * 2 + blk.bw) * m + blk.batch) * 3 + kind;
			start[at] = t;
			t += d[blk.bw][kind];
			end[at] = t;
		}
		lane_free[s] = t;
		if (!blk.bw && s + 1 < k)
			ready[((s + 1) * 2) * m + blk.batch] = t;
		if (!blk.bw && s + 1 == k && training)
			ready[(s * 2 + 1) * m + blk.batch] = t;
		if (blk.bw && s > 0)
			ready[((s - 1) * 2 + 1) * m + blk.batch] = t;
	}
	free(order), free(next), free(lane_free), free(ready);
}

static bool near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(1, fmax(fabs(a), fabs(b)));
}

static int by_start(const void *a, const void *b)
{
	const sc_segment *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* a zero-length segment sorts before the one it precedes */
	return (x->end > y->end) - (x->end < y->end);
}

/* Checks t against the simulation for stage[] on g; returns t's bottleneck
 * lane's measured period (NAN when not measurable). */
static void check(const sc_graph *g, const int *stage, int k, int m, sc_schedule sched,
                  const char *what)
{
	sc_settings set = g->settings;
	set.k = k;
	set.schedule = sched;
	sc_costs *c = sc_costs_new(g, &set, NULL);
	cr_assert(c);
	sc_costs_eval(c, stage);
	sc_error err;
	sc_timeline *t = sc_timeline_new(c, m, sched, &err);
	cr_assert(t, "%s: %s", what, err.msg);
	ts_cost *tc = malloc((size_t)k * sizeof *tc);
	ts_costs(g, stage, &set, k, tc);
	bool training = g->backward != NULL;
	int passes = training ? 2 : 1;
	cr_assert_eq(t->nseg, k * m * passes * 3, "%s: segments", what);
	double *start = malloc((size_t)k * 2 * (size_t)m * 3 * sizeof *start);
	double *end = malloc((size_t)k * 2 * (size_t)m * 3 * sizeof *end);
	simulate(tc, k, m, training, sched, start, end);

	double makespan = 0;
	for (int s = 0; s < k; s++)
		for (int p = 0; p < passes; p++)
			for (int b = 0; b < m; b++)
				for (int kind = 0; kind < 3; kind++) {
					const sc_segment *x =
					        &t->seg[sc_timeline_at(t, s, b, p, kind)];
					int at = ((s * 2 + p) * m + b) * 3 + kind;
					cr_assert(x->stage == s && x->batch == b &&
					                  x->backward == p && (int)x->kind == kind,
					          "%s: segment labels", what);
					cr_assert(near(x->start, start[at]) &&
					                  near(x->end, end[at]),
					          "%s: stage %d batch %d pass %d kind %d: [%.17g, "
					          "%.17g] "
					          "vs simulated [%.17g, %.17g]",
					          what, s, b, p, kind, x->start, x->end, start[at],
					          end[at]);
					makespan = fmax(makespan, end[at]);
				}
	cr_assert(near(t->makespan, makespan), "%s: makespan", what);

	/* one thing at a time on each lane */
	int per = m * passes * 3;
	sc_segment *lane = malloc((size_t)per * sizeof *lane);
	for (int s = 0; s < k; s++) {
		int n = 0;
		for (int i = 0; i < t->nseg; i++)
			if (t->seg[i].stage == s)
				lane[n++] = t->seg[i];
		cr_assert_eq(n, per);
		qsort(lane, (size_t)n, sizeof *lane, by_start);
		double busy = 0;
		for (int i = 0; i < n; i++) {
			busy += lane[i].end - lane[i].start;
			if (i > 0)
				cr_assert(lane[i].start >=
				                  lane[i - 1].end - 1e-9 * fmax(1, makespan),
				          "%s: stage %d overlaps itself", what, s);
		}
		cr_assert(near(t->idle[s], makespan > 0 ? 1 - busy / makespan : 0), "%s: idle",
		          what);
	}
	/* dependencies */
	for (int s = 0; s < k; s++)
		for (int b = 0; b < m; b++)
			for (int p = 0; p < passes; p++) {
				double recv = t->seg[sc_timeline_at(t, s, b, p, SC_SEG_RECV)].start;
				double eps = 1e-9 * fmax(1, makespan);
				if (!p && s > 0)
					cr_assert(recv >= t->seg[sc_timeline_at(t, s - 1, b, 0,
					                                        SC_SEG_SEND)]
					                                  .end -
					                          eps,
					          "%s: forward dependency", what);
				if (p && s < k - 1)
					cr_assert(recv >= t->seg[sc_timeline_at(t, s + 1, b, 1,
					                                        SC_SEG_SEND)]
					                                  .end -
					                          eps,
					          "%s: backward dependency", what);
				if (p)
					cr_assert(recv >= t->seg[sc_timeline_at(t, s, b, 0,
					                                        SC_SEG_SEND)]
					                                  .end -
					                          eps,
					          "%s: backward before forward", what);
				for (int kind = 1; kind < 3; kind++)
					cr_assert_eq(
					        t->seg[sc_timeline_at(t, s, b, p, kind)].start,
					        t->seg[sc_timeline_at(t, s, b, p, kind - 1)].end);
			}
	/* the bottleneck, and the steady state on its lane */
	int at = 0;
	double bn = ts_bottleneck(tc, k, &at);
	cr_assert(near(t->bottleneck, bn) && t->bottleneck_at == at, "%s: bottleneck", what);
	if (!(training && sched == SC_SCHEDULE_GPIPE) && bn > 0 && m >= 8) {
		int b = m / 2;
		double d = t->seg[sc_timeline_at(t, at, b + 1, 0, SC_SEG_COMPUTE)].start -
		           t->seg[sc_timeline_at(t, at, b, 0, SC_SEG_COMPUTE)].start;
		cr_assert(near(d, bn), "%s: steady period %.17g, bottleneck %.17g", what, d, bn);
		cr_assert(near(t->throughput, 1 / bn), "%s: throughput", what);
	}
	free(lane), free(start), free(end), free(tc);
	sc_timeline_free(t);
	sc_costs_free(c);
}

Test(timeline, figure2_by_hand)
{
	sc_graph *g = ts_load("samples/paper/figure2.dot");
	cr_assert(g->init_stage);
	check(g, g->init_stage, 3, 6, SC_SCHEDULE_1F1B, "figure2");
	sc_settings set = g->settings;
	set.k = 3;
	sc_costs *c = sc_costs_new(g, &set, NULL);
	sc_costs_eval(c, g->init_stage);
	sc_timeline *t = sc_timeline_new(c, sc_timeline_default_batches(3), set.schedule, NULL);
	cr_assert(t);
	/* stage costs 0+3+2, 2+4+2, 2+3+0 (the file's comment): stage 1's block
	 * b runs at [5b, 5b+5], stage 2's at [5+8b, 13+8b], stage 3's at
	 * [13+8b, 18+8b]; six micro-batches */
	for (int b = 0; b < 6; b++) {
		cr_assert_eq(t->seg[sc_timeline_at(t, 1, b, false, SC_SEG_RECV)].start, 5 + 8 * b);
		cr_assert_eq(t->seg[sc_timeline_at(t, 2, b, false, SC_SEG_COMPUTE)].start,
		             15 + 8 * b);
	}
	cr_assert_eq(t->makespan, 58);
	cr_assert_eq(t->period, 8);
	cr_assert_eq(t->throughput, 0.125);
	cr_assert_eq(t->latency, 18);
	cr_assert_eq(t->fill, 13);
	cr_assert_eq(t->drain, 28);
	cr_assert_eq(t->bottleneck_at, 1);
	cr_assert(near(t->idle[0], 1 - 30.0 / 58) && near(t->idle[1], 1 - 48.0 / 58) &&
	          near(t->idle[2], 1 - 30.0 / 58));
	sc_timeline_free(t);
	sc_costs_free(c);
	sc_graph_free(g);
}

Test(timeline, residual_solved)
{
	sc_graph *g = ts_load("samples/small/residual.dot");
	int solved = 0;
	for (int k = 1; k <= 4; k++) {
		int *best = malloc((size_t)g->n * sizeof *best);
		double opt = ts_brute_optimum(g, k, best);
		/* its hard memory limit leaves no valid partition for small k */
		if (isfinite(opt))
			solved++;
		for (int m = 1; isfinite(opt) && m <= 12; m += 5)
			check(g, best, k, m, SC_SCHEDULE_1F1B, "residual");
		free(best);
	}
	cr_assert_geq(solved, 2);
	sc_graph_free(g);
}

/* Every bundled sample (paper, small, msr-fiddle inference and training,
 * testbed, ONNX) at k = 2 and 4 with the partition dpl finds, m = 2k, under
 * each schedule a training graph has: the schedule equals the simulation. */
Test(timeline, every_sample, .timeout = 120)
{
	static const char *const patterns[] = {"samples/paper/*.dot", "samples/small/*.dot",
	                                       "samples/msr-fiddle/*/*.json",
	                                       "samples/testbed/*.dot", "samples/onnx/*.onnx"};
	int graphs = 0;
	for (size_t p = 0; p < sizeof patterns / sizeof *patterns; p++) {
		glob_t gl;
		if (glob(patterns[p], 0, NULL, &gl) != 0)
			continue;
		for (size_t f = 0; f < gl.gl_pathc; f++) {
			sc_graph *g = ts_load(gl.gl_pathv[f]);
			int *stage = malloc((size_t)g->n * sizeof *stage);
			for (int k = 2; k <= 4; k += 2) {
				bool optimal;
				double v = ts_search(g, k, "dpl", 1, 0, stage, &optimal);
				if (!isfinite(v))
					continue; /* nothing fits a hard memory limit */
				check(g, stage, k, 2 * k, SC_SCHEDULE_1F1B, gl.gl_pathv[f]);
				if (sc_graph_is_training(g))
					check(g, stage, k, 2 * k, SC_SCHEDULE_GPIPE,
					      gl.gl_pathv[f]);
			}
			free(stage);
			sc_graph_free(g);
			graphs++;
		}
		globfree(&gl);
	}
	cr_assert_geq(graphs, 20, "only %d samples found", graphs);
}

static void random_partitions(bool training, sc_schedule sched, uint64_t seed)
{
	ts_rng r = {seed};
	int trials = ts_trials(150);
	for (int i = 0; i < trials; i++) {
		ts_graph_spec spec = {.n = 2 + ts_below(&r, 20), .edge_p = ts_uniform(&r) * 0.4};
		sc_settings_init(&spec.settings);
		spec.settings.bandwidth = 0.5 + 2 * ts_uniform(&r);
		if (ts_below(&r, 3) == 0)
			spec.settings.memory = 10 * ts_uniform(&r);
		sc_graph *g =
		        training ? ts_random_training_graph(&r, &spec) : ts_random_graph(&r, &spec);
		int k = 1 + ts_below(&r, 5);
		int m = 1 + ts_below(&r, 3 * k + 10);
		int *stage = malloc((size_t)g->n * sizeof *stage);
		for (int v = 0; v < g->n; v++)
			stage[v] = ts_below(&r, k);
		char what[64];
		snprintf(what, sizeof what, "trial %d (k %d, m %d)", i, k, m);
		check(g, stage, k, m, sched, what);
		free(stage);
		sc_graph_free(g);
	}
}

Test(timeline, random_inference)
{
	random_partitions(false, SC_SCHEDULE_1F1B, 17);
}

Test(timeline, random_training_1f1b)
{
	random_partitions(true, SC_SCHEDULE_1F1B, 18);
}

Test(timeline, random_training_gpipe)
{
	random_partitions(true, SC_SCHEDULE_GPIPE, 19);
}

Test(timeline, batches_out_of_range)
{
	sc_graph *g = ts_load("samples/paper/figure2.dot");
	sc_settings set = g->settings;
	set.k = 3;
	sc_costs *c = sc_costs_new(g, &set, NULL);
	sc_costs_eval(c, g->init_stage);
	sc_error err;
	cr_assert_null(sc_timeline_new(c, 0, SC_SCHEDULE_1F1B, &err));
	cr_assert_eq(err.code, SC_ERR_INPUT);
	sc_costs_free(c);
	sc_graph_free(g);
}
