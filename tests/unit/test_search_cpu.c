/*
 * test_search_cpu.c - every search method and refinement with CPU stages
 * (001 section 3): on small random graphs with CPU times (inference and
 * training, groups, both memory policies, ops without a CPU time, ops no
 * accelerator may hold), each method's result puts every op on a device
 * it may go to (ts_part_check_cpus), costs what the search says by the
 * independent model of tests/support.c, and is no better than the optimum
 * of the exact DP with CPU stages (sc_dp_exact), itself checked against
 * the brute force on the smallest; `exact` and `best` equal that optimum,
 * and brkga reaches it; `best` falls back to brkga where the DP's ideals
 * do not fit.  Refinement from a given partition with devices
 * keeps every op on an allowed device and never gets worse; pins and
 * the GPipe schedule hold with CPU stages, against the brute force.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/partition.h"
#include "solvers/dp_exact.h"
#include "solvers/search.h"
#include "tests/support.h"

/* Runs method on g under set (set->k accelerators and set->cpus CPUs,
 * its pins and schedule); its partition into stage and its kinds into
 * kind (set->k + set->cpus); returns the result. */
static double run_set(const sc_graph *g, const sc_settings *set, const char *method, uint64_t seed,
                      long evals, int *stage, int *kind, bool *optimal)
{
	sc_search_params p;
	sc_search_params_init(&p);
	p.method = method;
	p.seed = seed;
	p.evals = evals;
	sc_error err;
	sc_search *s = sc_search_new(g, set, &p, &err);
	cr_assert(s, "%s: %s", method, err.msg);
	cr_assert_eq(sc_search_run(s, &err), SC_OK, "%s: %s", method, err.msg);
	double v = sc_search_result_kinds(s, stage, kind, optimal);
	sc_search_free(s);
	return v;
}

/* Runs method on g at k accelerators and L CPUs; its partition and
 * devices into stage and cpu (k + L flags); returns the result. */
static double run(const sc_graph *g, int k, int L, const char *method, uint64_t seed, long evals,
                  const int *start, const bool *start_cpu, int *stage, bool *cpu, bool *optimal)
{
	sc_settings set = g->settings;
	set.k = k;
	set.cpus = L;
	sc_search_params p;
	sc_search_params_init(&p);
	p.method = method;
	p.seed = seed;
	p.evals = evals;
	p.start = start;
	int start_kind[64];
	cr_assert_leq(k + L, 64);
	p.start_kind = start_cpu ? ts_kinds_of(start_cpu, k + L, start_kind) : NULL;
	sc_error err;
	sc_search *s = sc_search_new(g, &set, &p, &err);
	cr_assert(s, "%s: %s", method, err.msg);
	cr_assert_eq(sc_search_run(s, &err), SC_OK, "%s: %s", method, err.msg);
	int kind[64];
	cr_assert_leq(k + L, 64);
	double v = sc_search_result_kinds(s, stage, kind, optimal);
	for (int i = 0; cpu && v < INFINITY && i < k + L; i++)
		cpu[i] = kind[i] == 1; /* the fleet of k and --cpus: 1 is "cpu" */
	sc_search_free(s);
	return v;
}

/* A random graph of the kind above; *g0 is the graph without CPU times,
 * to be freed too. */
static sc_graph *random_cpu_graph(ts_rng *r, int t, bool training, int maxn, sc_graph **g0)
{
	ts_graph_spec spec = {.n = 2 + ts_below(r, maxn - 1),
	                      .edge_p = 0.2 + 0.4 * ts_uniform(r),
	                      .group_p = ts_uniform(r) < 0.3 ? 0.3 : 0,
	                      .ngroups = 2,
	                      .integer_weights = t % 2 == 0};
	sc_settings_init(&spec.settings);
	spec.settings.bandwidth = 0.5 + ts_uniform(r) * 2;
	if (t % 3 != 0) {
		spec.settings.memory = 4 + ts_uniform(r) * 12;
		spec.settings.policy = t % 3 == 1 ? SC_MEM_HARD : SC_MEM_OVERFLOW;
	}
	*g0 = training ? ts_random_training_graph(r, &spec) : ts_random_graph(r, &spec);
	return ts_with_cpu_times(r, *g0, spec.integer_weights, t % 4 == 1 ? 0.3 : 0,
	                         t % 4 == 2 ? 0.25 : 0);
}

static bool near(double a, double b)
{
	return isinf(a) ? isinf(b) : fabs(a - b) <= 1e-9 * (1 + fabs(b));
}

static void every_method(uint64_t seed, bool training, int cases)
{
	int count;
	const sc_method_info *m = sc_search_methods(&count);
	ts_rng r = {seed};
	int feasible = 0, on_cpu = 0, brkga_hits = 0;
	for (int t = 0; t < cases; t++) {
		sc_graph *g0, *g = random_cpu_graph(&r, t, training, 9, &g0);
		int k = 1 + ts_below(&r, 3), L = 1 + ts_below(&r, 2), K = k + L;
		double opt = ts_cpu_optimum(g, k, L);
		if (g->n <= 5 && K <= 3) {
			double brute = ts_brute_optimum_cpus(g, k, L, NULL, NULL);
			cr_assert(near(opt, brute), "t %d: exact DP %.17g, brute force %.17g", t,
			          opt, brute);
		}
		int *stage = malloc((size_t)g->n * sizeof *stage);
		bool *cpu = malloc((size_t)K * sizeof *cpu);
		for (int i = 0; i < count; i++) {
			char what[96];
			snprintf(what, sizeof what, "t %d (%s, n %d, k %d, L %d, %s): %s", t,
			         training ? "training" : "inference", g->n, k, L,
			         sc_mem_policy_name(g->settings.policy), m[i].name);
			bool optimal = false;
			double v = run(g, k, L, m[i].name, 3 + (uint64_t)t, 200, NULL, NULL, stage,
			               cpu, &optimal);
			bool exact =
			        strcmp(m[i].name, "exact") == 0 || strcmp(m[i].name, "best") == 0;
			if (exact) {
				cr_assert(optimal && near(v, opt), "%s %.17g, optimum %.17g", what,
				          v, opt);
			}
			if (isinf(v)) {
				/* a heuristic may miss the feasible partitions */
				cr_assert(!exact || isinf(opt), "%s", what);
				continue;
			}
			sc_violation viol;
			cr_assert(ts_part_check_cpus(g, stage, K, cpu, &viol), "%s: invalid (%d)",
			          what, viol.kind);
			int ncpu = 0;
			for (int s = 0; s < K; s++)
				ncpu += cpu[s];
			cr_assert_eq(ncpu, L, "%s: %d CPU stages", what, ncpu);
			cr_assert(near(ts_cpu_bottleneck(g, stage, cpu, K), v),
			          "%s: says %.17g, costs %.17g", what, v,
			          ts_cpu_bottleneck(g, stage, cpu, K));
			cr_assert_geq(v, opt * (1 - 1e-9), "%s: %.17g below the optimum %.17g",
			              what, v, opt);
			if (strcmp(m[i].name, "brkga") == 0)
				brkga_hits += near(v, opt);
			for (int o = 0; o < g->n && exact; o++)
				on_cpu += cpu[stage[o]];
		}
		feasible += isfinite(opt);
		free(stage);
		free(cpu);
		sc_graph_free(g);
		sc_graph_free(g0);
	}
	cr_log_info("%d cases, %d feasible, brkga at the optimum in %d, %d ops on CPUs", cases,
	            feasible, brkga_hits, on_cpu);
	cr_assert_gt(feasible, cases / 2);
	cr_assert_gt(on_cpu, 0);
	/* brkga on graphs of at most 9 ops: the optimum nearly always */
	cr_assert_geq(brkga_hits, feasible * 9 / 10, "brkga at the optimum in %d of %d", brkga_hits,
	              feasible);
}

Test(search_cpu, every_method_on_inference_graphs, .timeout = 120)
{
	every_method(29, false, ts_trials(60));
}

Test(search_cpu, every_method_on_training_graphs, .timeout = 120)
{
	every_method(2929, true, ts_trials(40));
}

/* Refinement from a partition given with its devices: every op stays on
 * an allowed device, nothing gets worse, and from the worst start (every
 * op that may on the CPU) it improves. */
Test(search_cpu, refine_from_a_partition_respects_devices, .timeout = 60)
{
	ts_rng r = {31};
	int improved = 0, tried = 0;
	for (int t = 0; t < ts_trials(60); t++) {
		sc_graph *g0, *g = random_cpu_graph(&r, t, t % 2 == 1, 10, &g0);
		int k = 2, L = 1, K = 3;
		/* the start: stage 1 a CPU stage between two accelerators; ops
		 * by a topological order, a prefix on stage 0, then every op
		 * with a CPU time on stage 1 while they come, the rest on 2 */
		bool start_cpu[3] = {false, true, false};
		int *start = malloc((size_t)g->n * sizeof *start);
		int *stage = malloc((size_t)g->n * sizeof *stage);
		bool cpu[3];
		for (int v = 0; v < g->n; v++)
			start[v] = 2;
		/* the brute force's validity decides what to try: an op may go
		 * to stage 0 or 1 only when that keeps the start valid */
		for (int v = 0; v < g->n; v++) {
			for (int s = 0; s < 2; s++) {
				int was = start[v];
				start[v] = s;
				if (ts_part_check_cpus(g, start, K, start_cpu, NULL))
					break;
				start[v] = was;
			}
		}
		if (!ts_part_check_cpus(g, start, K, start_cpu, NULL)) {
			free(start);
			free(stage);
			sc_graph_free(g);
			sc_graph_free(g0);
			continue;
		}
		double before = ts_cpu_bottleneck(g, start, start_cpu, K);
		bool optimal;
		double v = run(g, k, L, "refine", 1, 0, start, start_cpu, stage, cpu, &optimal);
		if (isinf(before) && isinf(v)) {
			free(start);
			free(stage);
			sc_graph_free(g);
			sc_graph_free(g0);
			continue;
		}
		tried++;
		cr_assert(isfinite(v), "t %d: refinement lost the feasible start", t);
		cr_assert(ts_part_check_cpus(g, stage, K, cpu, NULL), "t %d", t);
		cr_assert(near(ts_cpu_bottleneck(g, stage, cpu, K), v), "t %d", t);
		cr_assert_leq(v, before * (1 + 1e-12), "t %d: %.17g from %.17g", t, v, before);
		cr_assert_geq(v, ts_cpu_optimum(g, k, L) * (1 - 1e-9), "t %d", t);
		improved += v < before * (1 - 1e-9);
		free(start);
		free(stage);
		sc_graph_free(g);
		sc_graph_free(g0);
	}
	cr_log_info("%d refined, %d improved", tried, improved);
	/* a sixth of the trials at least (the sanitizer run makes fewer:
	 * ts_trials), and in the full run some improve */
	cr_assert_gt(tried, ts_trials(60) / 6);
	cr_assert(ts_short() || improved > 0);
}

/* An op no accelerator may hold between two heavy ones: every method puts
 * it on the CPU (by hand: a 4 + out 2 = 6, x on the CPU 3, c 2 + 4 = 6),
 * and a start putting it on an accelerator is refused, named. */
Test(search_cpu, an_op_only_a_cpu_holds)
{
	sc_builder *b = sc_builder_new();
	sc_error err;
	int a = sc_builder_add_op(b, "a", 4, 0, 2, NULL, &err);
	int x = sc_builder_add_op(b, "x", 1, 0, 2, NULL, &err);
	int c = sc_builder_add_op(b, "c", 4, 0, 0, NULL, &err);
	cr_assert(sc_builder_add_edge(b, a, x, &err) == SC_OK);
	cr_assert(sc_builder_add_edge(b, x, c, &err) == SC_OK);
	cr_assert(sc_builder_set_devices(b, x, 3, true, false, &err) == SC_OK);
	sc_graph *g = sc_builder_finish(b, "odd", "odd", &err);
	sc_builder_free(b);
	cr_assert(g);
	int count;
	const sc_method_info *m = sc_search_methods(&count);
	int stage[3];
	bool cpu[3], optimal;
	for (int i = 0; i < count; i++) {
		double v = run(g, 2, 1, m[i].name, 1, 0, NULL, NULL, stage, cpu, &optimal);
		cr_assert_float_eq(v, 6, 1e-12, "%s: %g", m[i].name, v);
		cr_assert(cpu[stage[x]] && !cpu[stage[a]] && !cpu[stage[c]], "%s", m[i].name);
	}
	sc_settings set = g->settings;
	set.k = 2;
	set.cpus = 1;
	sc_search_params p;
	sc_search_params_init(&p);
	p.method = "refine";
	int bad[3] = {0, 1, 2};
	int bad_kind[3] = {0, 0, 1};
	p.start = bad;
	p.start_kind = bad_kind;
	cr_assert_null(sc_search_new(g, &set, &p, &err));
	cr_assert(strstr(err.msg, "'x'"), "%s", err.msg);
	sc_graph_free(g);
}

/* Pins and the GPipe schedule with CPU stages: every method's result
 * keeps the pins (a pin names a stage of the k + L in pipeline order),
 * costs what it says by the independent model (support_kinds.c, its
 * objective by the schedule) and is never below the brute force's
 * optimum with the pins, or under GPipe; `exact` (and `best`) equals it.
 * Odd cases pin, even ones are training graphs under GPipe. */
Test(search_cpu, every_method_keeps_pins_and_takes_gpipe, .timeout = 120)
{
	int count;
	const sc_method_info *m = sc_search_methods(&count);
	ts_rng r = {0x5eed91ULL};
	int cases = ts_short() ? 12 : 30, found = 0;
	for (int t = 0; t < cases; t++) {
		bool gpipe = t % 2 == 0;
		sc_graph *g0, *g = random_cpu_graph(&r, t, gpipe, 5, &g0);
		sc_settings set = g->settings;
		set.k = 1 + ts_below(&r, 2);
		set.cpus = 1 + ts_below(&r, 2);
		int K = set.k + set.cpus;
		int *pin = NULL;
		if (gpipe) {
			set.schedule = SC_SCHEDULE_GPIPE;
		} else {
			pin = malloc((size_t)g->n * sizeof *pin);
			cr_assert(pin);
			for (int v = 0; v < g->n; v++)
				pin[v] = -1;
			pin[ts_below(&r, g->n)] = ts_below(&r, K);
			set.pin = pin;
		}
		sc_fleet f;
		sc_error err;
		cr_assert(sc_fleet_resolve(g, &set, &f, &err), "%s", err.msg);
		double want = ts_brute_kinds(g, &f, pin, set.schedule);
		int *stage = malloc((size_t)g->n * sizeof *stage), kind[8];
		cr_assert(stage);
		for (int i = 0; i < count; i++) {
			char what[96];
			snprintf(what, sizeof what, "t %d (n %d, k %d, L %d, %s): %s", t, g->n,
			         set.k, set.cpus, gpipe ? "GPipe" : "pinned", m[i].name);
			bool optimal = false;
			double v = run_set(g, &set, m[i].name, 3 + (uint64_t)t, 200, stage, kind,
			                   &optimal);
			bool exact =
			        strcmp(m[i].name, "exact") == 0 || strcmp(m[i].name, "best") == 0;
			if (exact)
				cr_assert(optimal && near(v, want), "%s %.17g, brute force %.17g",
				          what, v, want);
			if (isinf(v))
				continue; /* a heuristic may miss the feasible partitions */
			found++;
			for (int o = 0; pin && o < g->n; o++)
				cr_assert(pin[o] < 0 || stage[o] == pin[o],
				          "%s: op %d in %d, pinned to %d", what, o, stage[o],
				          pin[o]);
			double mine = ts_kinds_objective(g, &f, stage, kind, K, set.schedule);
			cr_assert(near(mine, v), "%s: says %.17g, costs %.17g", what, v, mine);
			cr_assert_geq(v, want * (1 - 1e-9), "%s: %.17g below the optimum %.17g",
			              what, v, want);
		}
		free(stage);
		free(pin);
		sc_graph_free(g);
		sc_graph_free(g0);
	}
	cr_assert_gt(found, cases);
}

/* `best` where the exact DP's ideals do not fit (--ideal-limit 1): brkga
 * and refinement with CPU stages, unproven, valid, at the exact DP's
 * optimum on this sample (which brkga reaches within its default
 * budget). */
Test(search_cpu, best_falls_back_to_brkga_with_cpus, .timeout = 60)
{
	sc_graph *g = ts_load("samples/msr-fiddle/layer/resnet50_inference.json");
	sc_settings set = g->settings;
	set.k = 2;
	set.cpus = 1;
	sc_search_params p;
	sc_search_params_init(&p);
	p.ideal_limit = 1;
	p.evals = 1000;
	sc_error err;
	sc_search *s = sc_search_new(g, &set, &p, &err);
	cr_assert(s, "%s", err.msg);
	cr_assert_eq(sc_search_run(s, &err), SC_OK, "%s", err.msg);
	sc_progress pr;
	sc_search_progress(s, &pr);
	cr_assert(!pr.optimal && pr.ideals == 0, "brkga, not the DP");
	int *stage = malloc((size_t)g->n * sizeof *stage);
	bool cpu[3], optimal;
	int kind[3];
	double v = sc_search_result_kinds(s, stage, kind, &optimal);
	for (int i = 0; i < 3; i++)
		cpu[i] = kind[i] == 1;
	cr_assert(!optimal);
	cr_assert(ts_part_check_cpus(g, stage, 3, cpu, NULL));
	cr_assert(near(ts_cpu_bottleneck(g, stage, cpu, 3), v));
	double opt = ts_cpu_optimum(g, 2, 1);
	cr_assert(near(v, opt), "brkga %.17g, optimum %.17g", v, opt);
	free(stage);
	sc_search_free(s);
	sc_graph_free(g);
}
