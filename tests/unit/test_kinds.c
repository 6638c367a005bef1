/*
 * test_kinds.c - devices of several kinds (core/fleet.h): the cost of a
 * stage by its kind (core/cost.c) and the exact DP with a count per kind
 * (solvers/ideals.c, "Devices") and the exact MIP with a kind per stage
 * (solvers/mip_model_kinds.c), against a brute force written apart
 * from all three (tests/support_kinds.c): every arrangement of the fleet's
 * kinds along the pipeline and every assignment of the ops that ts_valid
 * accepts, each stage costed by ts_costs's io and its kind's op times,
 * memory and CPU rule.
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/cost.h"
#include "core/fleet.h"
#include "solvers/ideals.h"
#include "solvers/jobs.h"
#include "solvers/ladder.h"
#include "solvers/mip.h"
#include "solvers/units.h"
#include "tests/support.h"

/* The bottleneck of stage[] with kind[] (K stages) by the model of
 * fleet.h, written apart from cost.c (support_kinds.c). */
static double kinds_bottleneck(const sc_graph *g, const sc_fleet *f, const int *stage,
                               const int *kind, int K)
{
	return ts_kinds_objective(g, f, stage, kind, K, SC_SCHEDULE_1F1B);
}

static double brute(const sc_graph *g, const sc_fleet *f)
{
	return ts_brute_kinds(g, f, NULL, SC_SCHEDULE_1F1B);
}

/* The exact DP on g with the fleet, set->pin and set->schedule of set,
 * pruned by the bound ub (INFINITY: none); its partition checked by
 * ts_kinds_objective, cost.c and the pins.  Pins the units refuse (they
 * cannot all hold) give INFINITY. */
static double dp_bounded(const sc_graph *g, const sc_settings *set, double ub, const char *what)
{
	sc_fleet f;
	sc_error err;
	cr_assert(sc_fleet_resolve(g, set, &f, &err), "%s: %s", what, err.msg);
	sc_units *u = sc_units_new(g, true, set, &err);
	if (!u && set->pin && err.code == SC_ERR_INPUT)
		return INFINITY;
	cr_assert(u, "%s: %s", what, err.msg);
	sc_dp *d = sc_dp_new(u, set, set->k, 0, &err);
	cr_assert(d, "%s: %s", what, err.msg);
	if (isfinite(ub))
		sc_dp_set_bound(d, ub, false);
	int more;
	while ((more = sc_dp_step(d, sc_clock_now() + 0.05, &err)) > 0)
		;
	cr_assert_eq(more, 0, "%s: %s", what, err.msg);
	int K = sc_dp_stages(d);
	cr_assert_eq(K, sc_fleet_stages(&f), "%s: %d stages", what, K);
	int *us = calloc((size_t)u->n + 1, sizeof *us),
	    *stage = calloc((size_t)g->n, sizeof *stage);
	int kind[64];
	cr_assert(us && stage);
	double got = sc_dp_result_kinds(d, us, kind);
	if (isfinite(got)) {
		sc_units_expand(u, us, stage);
		int count[SC_KINDS_MAX] = {0};
		for (int s = 0; s < K; s++)
			count[kind[s]]++;
		for (int e = 0; e < f.n; e++)
			cr_assert_eq(count[e], f.kind[e].count, "%s: %d stages of kind %s, not %d",
			             what, count[e], f.kind[e].name, f.kind[e].count);
		for (int v = 0; set->pin && v < g->n; v++)
			cr_assert(set->pin[v] < 0 || stage[v] == set->pin[v],
			          "%s: op %d in stage %d, pinned to %d", what, v, stage[v],
			          set->pin[v]);
		double mine = ts_kinds_objective(g, &f, stage, kind, K, set->schedule);
		cr_assert(ts_close_rel(mine, got, 1e-9),
		          "%s: the DP says %.17g, its partition %.17g", what, got, mine);
		/* and cost.c agrees */
		sc_settings s2 = *set;
		s2.k = K;
		sc_costs *c = sc_costs_new(g, &s2, &err);
		cr_assert(c, "%s", err.msg);
		sc_costs_set_kinds(c, kind);
		sc_costs_eval(c, stage);
		cr_assert(ts_close_rel(sc_costs_objective(c), got, 1e-9),
		          "%s: cost.c says %.17g, the DP %.17g", what, sc_costs_objective(c), got);
		sc_costs_free(c);
	}
	free(us);
	free(stage);
	sc_dp_free(d);
	sc_units_free(u);
	return got;
}

static double dp(const sc_graph *g, const sc_settings *set, const char *what)
{
	return dp_bounded(g, set, INFINITY, what);
}

/* A copy of g with a table of times for kind "b" (reals in [0, 10), NAN
 * with probability nan_p) and, when cpu, CPU times. */
static sc_graph *with_kinds(ts_rng *r, const sc_graph *g0, bool cpu, double nan_p)
{
	sc_graph *g = cpu ? ts_with_cpu_times(r, g0, false, 0.2, 0.1)
	                  : ts_with_cpu_times(r, g0, false, 0, 0);
	double *w = malloc((size_t)g->n * sizeof *w);
	cr_assert(w);
	for (int v = 0; v < g->n; v++)
		w[v] = ts_uniform(r) < nan_p ? NAN : 10 * ts_uniform(r);
	sc_error err;
	cr_assert_eq(sc_graph_add_kind(g, "b", w, NAN, NAN, &err), SC_OK, "%s", err.msg);
	return g;
}

/* Case t of a comparison with the brute force: a random graph of 3 to
 * 2 + spread ops (every fourth a training graph, every third under a
 * memory limit, hard or overflow) with a table for kind "b" and, for even
 * t and every other training graph, CPU times (*g0: the graph without them, to be freed too); the
 * fleet accel:1-2,b:1-2 (with cpu:1 when there are CPU times) in f and its text in spec; with
 * own_link, every fifth case puts kind b on a link of its own. */
static sc_graph *random_case(ts_rng *r, int t, int spread, bool own_link, sc_graph **g0,
                             sc_fleet *f, char *spec, size_t size)
{
	ts_graph_spec gs = {.n = 3 + ts_below(r, spread),
	                    .edge_p = 0.4,
	                    .group_p = 0.1,
	                    .ngroups = 2,
	                    .integer_weights = false};
	sc_settings_init(&gs.settings);
	gs.settings.bandwidth = 0.5 + ts_uniform(r);
	if (t % 3 == 0) {
		gs.settings.memory = 5 + 10 * ts_uniform(r);
		gs.settings.policy = t % 2 ? SC_MEM_HARD : SC_MEM_OVERFLOW;
	}
	*g0 = t % 4 == 3 ? ts_random_training_graph(r, &gs) : ts_random_graph(r, &gs);
	bool cpu = t % 2 == 0 || t % 8 == 7;
	sc_graph *g = with_kinds(r, *g0, cpu, 0.15);
	if (own_link && t % 5 == 1)
		g->kind_bandwidth[0] = 0.2 + 2 * ts_uniform(r);
	snprintf(spec, size, "accel:%d,b:%d%s", 1 + ts_below(r, 2), 1 + ts_below(r, 2),
	         cpu ? ",cpu:1" : "");
	sc_error err;
	cr_assert(sc_fleet_parse(spec, f, &err), "%s", err.msg);
	return g;
}

Test(kinds, dp_against_brute_force)
{
	ts_rng r = {0x4b1d5eedULL};
	int cases = ts_short() ? 40 : 120;
	for (int t = 0; t < cases; t++) {
		sc_graph *g0;
		sc_fleet f;
		char spec_text[64];
		sc_graph *g = random_case(&r, t, 4, false, &g0, &f, spec_text, sizeof spec_text);
		sc_error err;
		sc_settings set = g->settings;
		set.fleet = &f;
		set.k = sc_fleet_stages(&f);
		char what[128];
		snprintf(what, sizeof what, "case %d (%d ops, %s)", t, g->n, spec_text);
		sc_fleet bound;
		cr_assert(sc_fleet_resolve(g, &set, &bound, &err), "%s", err.msg);
		double want = brute(g, &bound);
		double got = dp(g, &set, what);
		cr_assert((isinf(want) && isinf(got)) || ts_close_rel(got, want, 1e-9),
		          "%s: exact DP %.17g, brute force %.17g", what, got, want);
		sc_graph_free(g);
		sc_graph_free(g0);
	}
}

/* Pins and the GPipe schedule with devices: the exact DP equals the brute
 * force, unbounded and pruned by a bound at the optimum and above it (the
 * pruning by the work left, the kinds' capacities and the branches'
 * reach then run).  Odd cases pin one or two ops to a stage of the K in
 * pipeline order (a stage counted whatever the kinds before it), even
 * ones are training graphs under GPipe. */
Test(kinds, dp_with_pins_and_gpipe_against_brute_force, .timeout = 120)
{
	ts_rng r = {0x9e11c0deULL};
	int cases = ts_short() ? 40 : 120;
	for (int t = 0; t < cases; t++) {
		sc_graph *g0;
		sc_fleet f;
		char spec_text[64];
		/* t % 4 == 3 draws a training graph (random_case) */
		bool gpipe = t % 2 == 0;
		sc_graph *g = random_case(&r, gpipe ? 4 * (t / 2) + 3 : t, 4, false, &g0, &f,
		                          spec_text, sizeof spec_text);
		sc_error err;
		sc_settings set = g->settings;
		set.fleet = &f;
		set.k = sc_fleet_stages(&f);
		int *pin = NULL;
		if (gpipe) {
			set.schedule = SC_SCHEDULE_GPIPE;
		} else {
			pin = malloc((size_t)g->n * sizeof *pin);
			cr_assert(pin);
			for (int v = 0; v < g->n; v++)
				pin[v] = -1;
			for (int i = 0; i < 1 + t % 3 / 2; i++)
				pin[ts_below(&r, g->n)] = ts_below(&r, set.k);
			set.pin = pin;
		}
		char what[128];
		snprintf(what, sizeof what, "case %d (%d ops, %s, %s)", t, g->n, spec_text,
		         gpipe ? "GPipe" : "pinned");
		sc_fleet bound;
		cr_assert(sc_fleet_resolve(g, &set, &bound, &err), "%s", err.msg);
		double want = ts_brute_kinds(g, &bound, pin, set.schedule);
		double got = dp(g, &set, what);
		cr_assert((isinf(want) && isinf(got)) || ts_close_rel(got, want, 1e-9),
		          "%s: exact DP %.17g, brute force %.17g", what, got, want);
		for (int i = 0; i < 2 && isfinite(want); i++) {
			double ub = i == 0 ? want : want * 1.25 + 0.5;
			got = dp_bounded(g, &set, ub, what);
			cr_assert(ts_close_rel(got, want, 1e-9),
			          "%s, bound %.17g: exact DP %.17g, brute force %.17g", what, ub,
			          got, want);
		}
		free(pin);
		sc_graph_free(g);
		sc_graph_free(g0);
	}
}

/* The exact MIP on g with the fleet of set (its value, and its partition
 * checked by kinds_bottleneck with the kinds it gives). */
static double mip_exact(const sc_graph *g, const sc_settings *set, const sc_fleet *f, double upper,
                        const char *what)
{
	sc_mip_params p = {.rung = SC_RUNG_EXACT, .k = set->k, .upper = upper};
	sc_mip_result res = {0};
	sc_error err;
	cr_assert_eq(sc_mip_solve(g, set, &p, NULL, NULL, &res, &err), SC_OK, "%s: %s", what,
	             err.msg);
	double got = res.status == SC_MIP_INFEASIBLE ? INFINITY : res.incumbent;
	if (isfinite(got)) {
		int K = sc_fleet_stages(f);
		cr_assert(res.stages && res.stage_kind, "%s: no partition", what);
		cr_assert_eq(res.kstages, K, "%s", what);
		int count[SC_KINDS_MAX] = {0};
		for (int s = 0; s < K; s++)
			count[res.stage_kind[s]]++;
		for (int e = 0; e < f->n; e++)
			cr_assert_eq(count[e], f->kind[e].count, "%s: %d stages of %s", what,
			             count[e], f->kind[e].name);
		double mine = kinds_bottleneck(g, f, res.stages, res.stage_kind, K);
		cr_assert(ts_close_rel(mine, got, 1e-6),
		          "%s: the MIP says %.17g, its partition %.17g", what, got, mine);
	}
	free(res.stages);
	free(res.stage_kind);
	return got;
}

/* The exact MIP over a fleet finds the brute force's optimum: two and
 * three kinds (a CPU among them), ops some kinds may not run, groups,
 * memory limits, training graphs; with links that differ (kind "b" on a
 * link of its own) the MIP charges each stage's io over its own link, as
 * kinds_bottleneck does, so its optimum is that model's: the relaxation
 * mip_model_kinds.c says bounds the true one from below. */
Test(kinds, exact_mip_against_brute_force, .timeout = 120)
{
	ts_rng r = {0x3a1f00dULL};
	int cases = ts_short() ? 16 : 40;
	for (int t = 0; t < cases; t++) {
		sc_graph *g0;
		sc_fleet f;
		char spec_text[64];
		sc_graph *g = random_case(&r, t, 3, true, &g0, &f, spec_text, sizeof spec_text);
		sc_error err;
		sc_settings set = g->settings;
		set.fleet = &f;
		set.k = sc_fleet_stages(&f);
		char what[128];
		snprintf(what, sizeof what, "case %d (%d ops, %s)", t, g->n, spec_text);
		sc_fleet bound;
		cr_assert(sc_fleet_resolve(g, &set, &bound, &err), "%s", err.msg);
		double want = brute(g, &bound);
		double got = mip_exact(g, &set, &bound, INFINITY, what);
		cr_assert((isinf(want) && isinf(got)) || ts_close_rel(got, want, 1e-6),
		          "%s: exact MIP %.17g, brute force %.17g", what, got, want);
		/* an upper bound above the optimum narrows the units' windows
		 * (mip_model_kinds.c) and cuts off nothing optimal */
		if (isfinite(want) && want > 0) {
			got = mip_exact(g, &set, &bound, want * 1.3, what);
			cr_assert(ts_close_rel(got, want, 1e-6),
			          "%s, upper %.17g: exact MIP %.17g, brute force %.17g", what,
			          want * 1.3, got, want);
		}
		sc_graph_free(g);
		sc_graph_free(g0);
	}
	ts_assert_no_children();
}

/* The bound rung r (guess position j) proves on g under set, INFINITY
 * when it proves nothing fits. */
static double mip_bound(const sc_graph *g, const sc_settings *set, sc_rung r, int j,
                        const char *what)
{
	sc_mip_params p = {.rung = r, .k = set->k, .guess = j, .upper = INFINITY};
	sc_mip_result res = {0};
	sc_error err;
	cr_assert_eq(sc_mip_solve(g, set, &p, NULL, NULL, &res, &err), SC_OK, "%s %s: %s", what,
	             sc_rung_name(r), err.msg);
	cr_assert_eq(res.status != SC_MIP_TIME_LIMIT, true, "%s", what);
	free(res.stages);
	free(res.stage_kind);
	return res.status == SC_MIP_INFEASIBLE ? INFINITY : res.bound;
}

/* The bottleneck and guess rungs on fleets of other kinds (mip.c's
 * relaxation: every kind but the CPU one accelerator at each unit's least
 * time) and every rung of the ladder on devices with pins and under GPipe
 * (the rungs model the bottleneck, below the GPipe objective) never
 * exceed the brute force's optimum with the pins and the schedule: two
 * and three kinds, links that differ, memory limits, training graphs. */
Test(kinds, rungs_stay_below_the_brute_force, .timeout = 240)
{
	ts_rng r = {0xb0a7d5ULL};
	int cases = ts_short() ? 12 : 36;
	sc_error err;
	sc_engine *e = sc_engine_new(2, &err);
	cr_assert(e, "%s", err.msg);
	for (int t = 0; t < cases; t++) {
		sc_graph *g0;
		sc_fleet f;
		char spec_text[64];
		bool gpipe = t % 3 == 0;
		sc_graph *g = random_case(&r, gpipe ? 4 * t + 3 : t, 3, true, &g0, &f, spec_text,
		                          sizeof spec_text);
		sc_settings set = g->settings;
		set.fleet = &f;
		set.k = sc_fleet_stages(&f);
		int *pin = NULL;
		if (gpipe) {
			set.schedule = SC_SCHEDULE_GPIPE;
		} else if (t % 3 == 1) {
			pin = malloc((size_t)g->n * sizeof *pin);
			cr_assert(pin);
			for (int v = 0; v < g->n; v++)
				pin[v] = -1;
			pin[ts_below(&r, g->n)] = ts_below(&r, set.k);
			set.pin = pin;
		}
		char what[128];
		snprintf(what, sizeof what, "case %d (%d ops, %s%s)", t, g->n, spec_text,
		         gpipe ? ", GPipe"
		         : pin ? ", pinned"
		               : "");
		sc_fleet bound;
		cr_assert(sc_fleet_resolve(g, &set, &bound, &err), "%s", err.msg);
		double want = ts_brute_kinds(g, &bound, pin, set.schedule);
		double tol = isfinite(want) ? want * (1 + 1e-6) + 1e-9 : INFINITY;
		int acc = 0;
		for (int d = 0; d < bound.n; d++)
			acc += bound.kind[d].cpu ? 0 : bound.kind[d].count;
		double b = mip_bound(g, &set, SC_RUNG_BOTTLENECK, 0, what), guess = INFINITY;
		cr_assert_leq(b, tol, "%s: bottleneck %.17g > optimum %.17g", what, b, want);
		for (int j = 1; j <= acc; j++)
			guess = fmin(guess, mip_bound(g, &set, SC_RUNG_GUESS, j, what));
		cr_assert_leq(guess, tol, "%s: guess %.17g > optimum %.17g", what, guess, want);
		/* the whole ladder, every third case */
		if (t % 3 == 0 || t % 3 == 1) {
			sc_ladder_params lp = {
			        .rungs = SC_RUNGS_ALL, .time_limit = 20, .upper = INFINITY};
			sc_ladder *l = sc_ladder_new(e, g, &set, &lp, &err);
			cr_assert(l, "%s: %s", what, err.msg);
			ts_run_ladder(l, e);
			for (int rg = 0; rg < SC_RUNG_COUNT; rg++) {
				sc_rung_info ri;
				sc_ladder_info(l, (sc_rung)rg, &ri);
				cr_assert_neq(ri.state, SC_RS_FAILED, "%s %s: %s", what,
				              sc_rung_name((sc_rung)rg), ri.message);
				cr_assert(rg == SC_RUNG_COVER || ri.state != SC_RS_SKIPPED,
				          "%s %s: %s", what, sc_rung_name((sc_rung)rg), ri.message);
				cr_assert(!(ri.value > tol), "%s: %s %.17g > optimum %.17g", what,
				          sc_rung_name((sc_rung)rg), ri.value, want);
			}
			sc_ladder_free(l);
		}
		free(pin);
		sc_graph_free(g);
		sc_graph_free(g0);
	}
	sc_engine_free(e);
	ts_assert_no_children();
}

/* A fleet of CPUs alone has no stage for the relaxation's middle block:
 * the bottleneck and guess rungs are skipped, saying so. */
Test(kinds, cpus_alone_skip_the_three_block_rungs)
{
	ts_rng r = {0xc9u};
	ts_graph_spec spec = {.n = 4, .edge_p = 0.4};
	sc_settings_init(&spec.settings);
	sc_graph *g0 = ts_random_graph(&r, &spec);
	sc_graph *g = ts_with_cpu_times(&r, g0, false, 0, 0);
	sc_fleet f;
	sc_error err;
	cr_assert(sc_fleet_parse("cpu:2", &f, &err), "%s", err.msg);
	sc_settings set = g->settings;
	set.fleet = &f;
	set.k = 2;
	sc_engine *e = sc_engine_new(1, &err);
	cr_assert(e, "%s", err.msg);
	sc_ladder_params lp = {.rungs = SC_RUNGS_ALL, .time_limit = 10, .upper = INFINITY};
	sc_ladder *l = sc_ladder_new(e, g, &set, &lp, &err);
	cr_assert(l, "%s", err.msg);
	ts_run_ladder(l, e);
	sc_rung r2[] = {SC_RUNG_BOTTLENECK, SC_RUNG_GUESS};
	for (int i = 0; i < 2; i++) {
		sc_rung_info ri;
		sc_ladder_info(l, r2[i], &ri);
		cr_assert_eq(ri.state, SC_RS_SKIPPED, "%s", sc_rung_name(r2[i]));
		cr_assert_str_eq(ri.message, SC_LADDER_CPUS_ONLY_REASON);
	}
	sc_ladder_free(l);
	sc_engine_free(e);
	sc_graph_free(g);
	sc_graph_free(g0);
}

/* The default fleet (the graph's work and "cpu") through the kinds path
 * equals the CPU brute force of tests/support.c. */
Test(kinds, cpus_are_a_kind)
{
	ts_rng r = {0x600dcafeULL};
	for (int t = 0; t < 30; t++) {
		ts_graph_spec spec = {.n = 3 + ts_below(&r, 3), .edge_p = 0.4};
		sc_settings_init(&spec.settings);
		sc_graph *g0 = ts_random_graph(&r, &spec);
		sc_graph *g = ts_with_cpu_times(&r, g0, false, 0.2, 0.1);
		sc_settings set = g->settings;
		set.k = 1 + ts_below(&r, 2);
		set.cpus = 1 + ts_below(&r, 2);
		char what[64];
		snprintf(what, sizeof what, "case %d", t);
		sc_settings all = set;
		all.k = set.k; /* dp() asks for set.k accelerators and set.cpus CPUs */
		double want = ts_brute_optimum_cpus(g, set.k, set.cpus, NULL, NULL);
		double got = dp(g, &all, what);
		cr_assert((isinf(want) && isinf(got)) || ts_close_rel(got, want, 1e-9),
		          "%s: exact DP %.17g, brute force %.17g", what, got, want);
		sc_graph_free(g);
		sc_graph_free(g0);
	}
}

/* The least bottleneck over every arrangement of f's kinds for one split
 * (stage[] fixed), by enumeration. */
static double best_arrangement(const sc_graph *g, const sc_fleet *f, const int *stage, int *kind,
                               int at, int K, int *left)
{
	if (at == K) {
		double v = kinds_bottleneck(g, f, stage, kind, K);
		return isnan(v) ? INFINITY : v;
	}
	double opt = INFINITY;
	for (int e = 0; e < f->n; e++)
		if (left[e] > 0) {
			left[e]--;
			kind[at] = e;
			opt = fmin(opt, best_arrangement(g, f, stage, kind, at + 1, K, left));
			left[e]++;
		}
	return opt;
}

/* sc_costs_assign_kinds gives a split the kinds of least bottleneck: the
 * enumeration's, on random valid splits of random graphs with kinds. */
Test(kinds, assignment_is_the_best_arrangement)
{
	ts_rng r = {0xa55191ULL};
	for (int t = 0; t < 60; t++) {
		ts_graph_spec spec = {.n = 4 + ts_below(&r, 4), .edge_p = 0.4};
		sc_settings_init(&spec.settings);
		sc_graph *g0 = ts_random_graph(&r, &spec);
		sc_graph *g = with_kinds(&r, g0, t % 2 == 0, 0.2);
		sc_fleet f;
		sc_error err;
		cr_assert(sc_fleet_parse(t % 2 ? "accel:2,b:2" : "accel:1,b:2,cpu:1", &f, &err));
		sc_settings set = g->settings;
		set.fleet = &f;
		set.k = sc_fleet_stages(&f);
		sc_fleet bound;
		cr_assert(sc_fleet_resolve(g, &set, &bound, &err), "%s", err.msg);
		/* a valid split: the order of the ops' indices cut at random */
		int stage[16], kind[8], left[SC_KINDS_MAX];
		for (int v = 0; v < g->n; v++)
			stage[v] = 0;
		for (int i = 0; i < g->n; i++) {
			int v = g->topo[i];
			stage[v] = i * set.k / g->n;
		}
		for (int e = 0; e < bound.n; e++)
			left[e] = bound.kind[e].count;
		double want = best_arrangement(g, &bound, stage, kind, 0, set.k, left);
		sc_costs *c = sc_costs_new(g, &set, &err);
		cr_assert(c, "%s", err.msg);
		cr_assert(sc_costs_assign_kinds(c, stage, kind));
		double got = sc_costs_feasible(c) ? sc_costs_bottleneck(c, NULL) : INFINITY;
		cr_assert((isinf(want) && isinf(got)) || ts_close_rel(got, want, 1e-9),
		          "case %d: assigned %.17g, best arrangement %.17g", t, got, want);
		sc_costs_free(c);
		sc_graph_free(g);
		sc_graph_free(g0);
	}
}

Test(kinds, parse)
{
	sc_fleet f;
	sc_error err;
	cr_assert(sc_fleet_parse("h100:2,a100:2,cpu:1", &f, &err));
	cr_assert_eq(f.n, 3);
	cr_assert_str_eq(f.kind[1].name, "a100");
	cr_assert_eq(f.kind[1].count, 2);
	cr_assert(f.kind[2].cpu && !f.kind[0].cpu);
	cr_assert_eq(sc_fleet_stages(&f), 5);
	char buf[64];
	sc_fleet_format(&f, buf, sizeof buf);
	cr_assert_str_eq(buf, "h100:2,a100:2,cpu:1");
	const char *bad[] = {"",
	                     "h100",
	                     "h100:0",
	                     "h100:2,",
	                     "h100:2,h100:1",
	                     "h1 00:2",
	                     "a:1,b:1,c:1,d:1,e:1,f:1,g:1,h:1,i:1",
	                     "h100:x",
	                     ":2",
	                     "h100:-1"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		cr_assert(!sc_fleet_parse(bad[i], &f, &err), "'%s' parsed", bad[i]);
}
