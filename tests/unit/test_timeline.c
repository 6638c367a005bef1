/*
 * test_timeline.c - core/timeline against a simulation written here,
 * independently: an event loop with a global clock that, at each step,
 * starts the block that can start earliest among the lanes whose next block
 * has its input, with durations from ts_costs (tests/support.h), not from
 * sc_costs.  Every segment's start and end must agree (1e-9); no lane may
 * do two things at once; every dependency must hold; the steady-state
 * period on the bottleneck lane must be the bottleneck.  CPU stages (001
 * section 3): a hand-computed case, and random ones against the simulation with
 * CPU lanes that compute only.
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

/* CPU stages (001 section 3) by the model, apart from cost.c:
 * a CPU stage (cpu[s]) costs its ops' CPU times, the backward ops' apart,
 * and pays no io and no overflow, so its lane computes only. */
static void cpu_stage_costs(const sc_graph *g, const int *stage, const bool *cpu, int k,
                            ts_cost *tc)
{
	for (int s = 0; s < k; s++)
		if (cpu[s])
			tc[s] = (ts_cost){.ops = tc[s].ops};
	for (int v = 0; v < g->n; v++) {
		ts_cost *x = &tc[stage[v]];
		if (!cpu[stage[v]] || !g->cpu_ok || !g->cpu_ok[v])
			continue;
		x->work += g->cpu_work[v];
		if (g->backward && g->backward[v])
			x->work_bw += g->cpu_work[v];
	}
	for (int s = 0; s < k; s++)
		if (cpu[s]) {
			tc[s].cost = tc[s].work;
			tc[s].cost_bw = tc[s].work_bw;
			tc[s].cost_fw = tc[s].work - tc[s].work_bw;
		}
}

/* Checks t against the simulation for stage[] on g, cpu[] (k flags, NULL
 * for none) marking CPU stages. */
static void check_devices(const sc_graph *g, const int *stage, const bool *cpu, int k, int m,
                          sc_schedule sched, const char *what)
{
	sc_settings set = g->settings;
	set.k = k;
	set.schedule = sched;
	sc_costs *c = sc_costs_new(g, &set, NULL);
	cr_assert(c);
	int kinds[64];
	sc_costs_set_kinds(c, cpu ? ts_kinds_of(cpu, c->k, kinds) : NULL);
	sc_costs_eval(c, stage);
	sc_error err;
	sc_timeline *t = sc_timeline_new(c, m, sched, &err);
	cr_assert(t, "%s: %s", what, err.msg);
	ts_cost *tc = malloc((size_t)k * sizeof *tc);
	ts_costs(g, stage, &set, k, tc);
	int ncpu = 0;
	if (cpu) {
		cpu_stage_costs(g, stage, cpu, k, tc);
		for (int s = 0; s < k; s++) {
			cr_assert_eq(t->cpu[s], cpu[s], "%s: stage %d's device", what, s + 1);
			ncpu += cpu[s];
		}
	}
	cr_assert_eq(t->cpus, ncpu, "%s: CPU lanes", what);
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
	if (!(training && sched == SC_SCHEDULE_GPIPE))
		cr_assert(near(t->period, bn), "%s: period %.17g, largest stage cost %.17g", what,
		          t->period, bn);
	free(lane), free(start), free(end), free(tc);
	sc_timeline_free(t);
	sc_costs_free(c);
}

static void check(const sc_graph *g, const int *stage, int k, int m, sc_schedule sched,
                  const char *what)
{
	check_devices(g, stage, NULL, k, m, sched, what);
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

/* CPU stages (001 section 3) by hand: tests/data/train_tiny.dot with CPU times
 * (a 5, b 2, a' 7, b' 3, o 1), stage 1 = {a, a'} an accelerator, stage 2 =
 * {b, b', o} a CPU, bandwidth 1, two micro-batches under 1F1B.
 *   stage 1: forward receive 0, compute 6, send 1 (tensor a); backward
 *            receive 1 (tensor b'), compute 4, send 0: cost 12
 *   stage 2: CPU time 2 forward, 3 + 1 backward, no communication (its
 *            tensors b' out and a in are stage 1's to pay): cost 6
 * Lane 1 runs F0 F1 B0 B1, lane 2 F0 B0 F1 B1:
 *   lane 1  F0 [0, 7]  F1 [7, 14]  B0 [14, 19]  B1 [20, 25]
 *   lane 2  F0 [7, 9]  B0 [9, 13]  F1 [14, 16]  B1 [16, 20]
 * (lane 1's B0 waits for its F1, its B1 for lane 2's B1). */
Test(timeline, cpu_stage_by_hand)
{
	sc_builder *b = sc_builder_new();
	sc_error err;
	struct {
		const char *name, *group;
		double work, out, cpu;
		bool bw;
	} op[] = {{"a", "ga", 6, 1, 5, false},
	          {"b", "gb", 3, 2, 2, false},
	          {"ag", "ga", 4, 1, 7, true},
	          {"bg", "gb", 5, 1, 3, true},
	          {"o", NULL, 1, 1, 1, true}};
	for (int v = 0; v < 5; v++) {
		cr_assert_eq(sc_builder_add_op(b, op[v].name, op[v].work, 0, op[v].out, op[v].group,
		                               &err),
		             v);
		if (op[v].bw)
			cr_assert_eq(sc_builder_set_backward(b, v, &err), SC_OK);
		cr_assert_eq(sc_builder_set_devices(b, v, op[v].cpu, true, true, &err), SC_OK);
	}
	static const int edge[][2] = {{0, 1}, {1, 4}, {0, 3}, {4, 3}, {3, 2}};
	for (int i = 0; i < 5; i++)
		cr_assert_eq(sc_builder_add_edge(b, edge[i][0], edge[i][1], &err), SC_OK);
	sc_graph *g = sc_builder_finish(b, "cpu_tiny", "cpu_tiny", &err);
	cr_assert(g, "%s", err.msg);
	sc_builder_free(b);
	int stage[] = {0, 1, 0, 1, 1};
	bool cpu[] = {false, true};
	check_devices(g, stage, cpu, 2, 2, SC_SCHEDULE_1F1B, "cpu_tiny");

	sc_settings set = g->settings;
	set.k = 2;
	sc_costs *c = sc_costs_new(g, &set, NULL);
	int kinds[64];
	sc_costs_set_kinds(c, ts_kinds_of(cpu, c->k, kinds));
	sc_costs_eval(c, stage);
	sc_timeline *t = sc_timeline_new(c, 2, SC_SCHEDULE_1F1B, NULL);
	cr_assert(t);
	cr_assert_eq(t->cpus, 1);
	cr_assert(!t->cpu[0] && t->cpu[1]);
	/* [start, end] of each lane's blocks, and lane 1's backward split */
	static const struct {
		int s, batch;
		bool bw;
		double start, end;
	} want[] = {{0, 0, false, 0, 7},   {0, 1, false, 7, 14}, {0, 0, true, 14, 19},
	            {0, 1, true, 20, 25},  {1, 0, false, 7, 9},  {1, 0, true, 9, 13},
	            {1, 1, false, 14, 16}, {1, 1, true, 16, 20}};
	for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
		const sc_segment *r = &t->seg[sc_timeline_at(t, want[i].s, want[i].batch,
		                                             want[i].bw, SC_SEG_RECV)];
		const sc_segment *x = &t->seg[sc_timeline_at(t, want[i].s, want[i].batch,
		                                             want[i].bw, SC_SEG_SEND)];
		cr_assert(r->start == want[i].start && x->end == want[i].end,
		          "lane %d batch %d %s: [%g, %g], want [%g, %g]", want[i].s + 1,
		          want[i].batch, want[i].bw ? "backward" : "forward", r->start, x->end,
		          want[i].start, want[i].end);
		/* the CPU lane computes only */
		const sc_segment *cp = &t->seg[sc_timeline_at(t, want[i].s, want[i].batch,
		                                              want[i].bw, SC_SEG_COMPUTE)];
		if (want[i].s == 1)
			cr_assert(r->end == r->start && cp->start == want[i].start &&
			                  cp->end == want[i].end,
			          "CPU lane batch %d %s: compute [%g, %g]", want[i].batch,
			          want[i].bw ? "backward" : "forward", cp->start, cp->end);
	}
	cr_assert_eq(t->seg[sc_timeline_at(t, 0, 0, true, SC_SEG_COMPUTE)].start, 15);
	cr_assert_eq(t->makespan, 25);
	cr_assert_eq(t->bottleneck, 12);
	cr_assert_eq(t->bottleneck_at, 0);
	cr_assert_eq(t->period, 12);
	cr_assert_eq(t->latency, 19);
	cr_assert_eq(t->fill, 7);
	cr_assert_eq(t->drain, 5);
	cr_assert(near(t->idle[0], 1 - 24.0 / 25) && near(t->idle[1], 1 - 12.0 / 25));
	char name[32];
	cr_assert_str_eq(sc_timeline_lane_name(t, 0, name, sizeof name), "stage 1");
	cr_assert_str_eq(sc_timeline_lane_name(t, 1, name, sizeof name), "stage 2 (CPU)");
	sc_timeline_free(t);
	sc_costs_free(c);
	sc_graph_free(g);
}

/* CPU stages on random graphs with CPU times, random partitions and
 * random devices (at least one CPU stage): the schedule equals the
 * simulation with CPU lanes computing only, and the steady-state period
 * is the largest stage cost, CPU stages included (check_devices). */
static void random_cpu_partitions(bool training, uint64_t seed)
{
	ts_rng r = {seed};
	int trials = ts_trials(100), cpu_bottlenecks = 0;
	for (int i = 0; i < trials; i++) {
		ts_graph_spec spec = {.n = 2 + ts_below(&r, 16), .edge_p = ts_uniform(&r) * 0.4};
		sc_settings_init(&spec.settings);
		spec.settings.bandwidth = 0.5 + 2 * ts_uniform(&r);
		sc_graph *g0 =
		        training ? ts_random_training_graph(&r, &spec) : ts_random_graph(&r, &spec);
		sc_graph *g = ts_with_cpu_times(&r, g0, i % 2 == 0, 0, 0);
		sc_graph_free(g0);
		int k = 2 + ts_below(&r, 4);
		/* half the trials long enough for the steady state */
		int m = i % 2 ? 8 + ts_below(&r, 8) : 1 + ts_below(&r, 3 * k);
		int *stage = malloc((size_t)g->n * sizeof *stage);
		bool cpu[8] = {false};
		cpu[ts_below(&r, k)] = true;
		for (int s = 0; s < k; s++)
			cpu[s] |= ts_below(&r, 3) == 0;
		for (int v = 0; v < g->n; v++)
			stage[v] = ts_below(&r, k);
		char what[64];
		snprintf(what, sizeof what, "trial %d (k %d, m %d)", i, k, m);
		check_devices(g, stage, cpu, k, m, SC_SCHEDULE_1F1B, what);
		sc_settings set = g->settings;
		set.k = k;
		sc_costs *c = sc_costs_new(g, &set, NULL);
		int kinds[64];
		sc_costs_set_kinds(c, ts_kinds_of(cpu, c->k, kinds));
		sc_costs_eval(c, stage);
		int at;
		sc_costs_bottleneck(c, &at);
		cpu_bottlenecks += cpu[at];
		sc_costs_free(c);
		free(stage);
		sc_graph_free(g);
	}
	/* the property is about CPU stages: some of them must be the bottleneck */
	cr_assert_geq(cpu_bottlenecks, trials / 10, "%d CPU bottlenecks in %d trials",
	              cpu_bottlenecks, trials);
}

Test(timeline, random_cpu_inference)
{
	random_cpu_partitions(false, 29);
}

Test(timeline, random_cpu_training_1f1b)
{
	random_cpu_partitions(true, 30);
}
