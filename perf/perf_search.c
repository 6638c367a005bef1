/*
 * perf_search.c - the searches' speed and quality on the bundled graphs.
 *
 *  1. exact (DP over ideals) against the published DP's times in
 *     samples/msr-fiddle/REFERENCE.tsv: median of 5 runs per row, the ratio,
 *     the ideals left after contraction, checks that the optimum matches and
 *     is proven; then the InceptionV3-like generated graph at k = 6;
 *  2. BRKGA with 10 000 evaluations (population 100 x 100 generations) on the
 *     largest operator graph at k = 8, on one core: median of 3 runs and
 *     evaluations per second;
 *  3. quality: brkga-10000 + refine against exact for every sample graph and
 *     k in {2, 4, 8, 16};
 *  4. one SliceGraph evaluation (sc_slice) of a random Kahn order of the
 *     generated graphs `stagecut gen -n 10000 -s 1` and `-n 100000 -s 1` at
 *     k = 8, with no incumbent (cutoff INFINITY, as a search's first
 *     evaluation) and with the best of the orders as the incumbent: median
 *     of 7 orders each (printed first; --slice prints only these).
 *
 *   build/perf-search
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/gen.h"
#include "core/formats/load.h"
#include "core/rng.h"
#include "solvers/contract_report.h"
#include "solvers/order.h"
#include "solvers/search.h"
#include "solvers/slice.h"
#include "solvers/units.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *x, int n)
{
	qsort(x, (size_t)n, sizeof *x, cmp_double);
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

static double solve(const sc_graph *g, int k, const char *method, long evals, double *secs,
                    long *nevals)
{
	sc_settings set = g->settings;
	set.k = k;
	sc_search_params p;
	sc_search_params_init(&p);
	p.method = method;
	p.evals = evals;
	sc_error err;
	double t0 = sc_clock_now();
	sc_search *s = sc_search_new(g, &set, &p, &err);
	if (!s || sc_search_run(s, &err) != SC_OK) {
		fprintf(stderr, "perf-search: %s: %s\n", method, err.msg);
		exit(2);
	}
	double v = sc_search_result(s, NULL, NULL);
	*secs = sc_clock_now() - t0;
	if (nevals) {
		sc_progress pr;
		sc_search_progress(s, &pr);
		*nevals = pr.evals;
	}
	sc_search_free(s);
	return v;
}

/* The exact method on g at k: its bottleneck, seconds and whether it
 * proved it optimal.  Without balancing (--no-refine), as the published DP
 * does not balance: the second DP that balances an optimum costs up to as
 * much again. */
static double solve_proven(const sc_graph *g, int k, double *secs, bool *optimal)
{
	sc_settings set = g->settings;
	set.k = k;
	sc_search_params p;
	sc_search_params_init(&p);
	p.method = "exact";
	p.refine = false;
	sc_error err;
	double t0 = sc_clock_now();
	sc_search *s = sc_search_new(g, &set, &p, &err);
	if (!s || sc_search_run(s, &err) != SC_OK) {
		fprintf(stderr, "perf-search: exact: %s\n", err.msg);
		exit(2);
	}
	double v = sc_search_result(s, NULL, optimal);
	*secs = sc_clock_now() - t0;
	sc_search_free(s);
	return v;
}

static sc_graph *load(const char *path)
{
	sc_error err;
	sc_graph *g = sc_load(path, &err);
	if (!g) {
		fprintf(stderr, "perf-search: %s\n", err.msg);
		exit(2);
	}
	return g;
}

/* Section 4: SliceGraph evaluations on a generated graph of n ops. */
static void slice_timings(int n, int k)
{
	enum { RUNS = 7 };
	sc_error err;
	sc_graph *g = sc_gen_regal(n, 1, SC_GEN_ANY, k, &err);
	if (!g) {
		fprintf(stderr, "perf-search: gen: %s\n", err.msg);
		exit(2);
	}
	sc_settings set = g->settings;
	set.k = k;
	sc_units *u = sc_units_new(g, true, &set, &err);
	sc_slicer *sl = u ? sc_slicer_new(u, &set, &err) : NULL;
	sc_orderer *o = sl ? sc_orderer_new(u, &err) : NULL;
	double *prio = malloc((size_t)u->n * sizeof *prio);
	int *order = malloc((size_t)u->n * RUNS * sizeof *order);
	int *us = malloc((size_t)u->n * sizeof *us);
	if (!o || !prio || !order || !us) {
		fprintf(stderr, "perf-search: out of memory\n");
		exit(2);
	}
	sc_rng rng;
	sc_rng_seed(&rng, 1);
	double t[RUNS], v[RUNS], best = INFINITY;
	for (int r = 0; r < RUNS; r++) {
		for (int i = 0; i < u->n; i++)
			prio[i] = sc_rng_uniform(&rng);
		sc_order_kahn(o, prio, order + (size_t)r * u->n);
		double t0 = sc_clock_now();
		v[r] = sc_slice(sl, order + (size_t)r * u->n, INFINITY, us);
		t[r] = sc_clock_now() - t0;
		if (v[r] < best)
			best = v[r];
	}
	printf("%6d ops (%d units), k = %d, no incumbent:   median %8.2f ms (bottlenecks "
	       "%.6g .. ",
	       n, u->n, k, median(t, RUNS) * 1e3, best);
	double worst = 0;
	for (int r = 0; r < RUNS; r++)
		worst = v[r] > worst ? v[r] : worst;
	printf("%.6g)\n", worst);
	for (int r = 0; r < RUNS; r++) {
		double t0 = sc_clock_now();
		sc_slice(sl, order + (size_t)r * u->n, best, us);
		t[r] = sc_clock_now() - t0;
	}
	printf("%6d ops (%d units), k = %d, incumbent best: median %8.2f ms\n", n, u->n, k,
	       median(t, RUNS) * 1e3);
	free(prio);
	free(order);
	free(us);
	sc_orderer_free(o);
	sc_slicer_free(sl);
	sc_units_free(u);
	sc_graph_free(g);
}

/* The exact DP (solvers/ideals.c) against the published DP's times in
 * REFERENCE.tsv (median of 5 runs, the speedup, whether the optimum matches
 * and is proven), then on generated graphs the published program could not
 * solve: InceptionV3-like (gen --model inception) at k = 6, goal under 10 s.
 * Each row also gives the ideals after contraction. */
static void bench_exact(const char *dir)
{
	char path[512], line[512], graph[256];
	FILE *f = fopen("samples/msr-fiddle/REFERENCE.tsv", "r");
	if (!f || !fgets(line, sizeof line, f)) {
		fprintf(stderr, "perf-search: cannot read samples/msr-fiddle/REFERENCE.tsv\n");
		exit(2);
	}
	printf("== exact DP over ideals vs the published DP (REFERENCE.tsv), median of 5 runs\n");
	printf("%-34s %3s %8s %14s %10s %10s %8s %s\n", "graph", "k", "ideals", "optimum",
	       "published", "ours", "speedup", "match, proven");
	double worst_ratio = INFINITY;
	int rows = 0, good = 0;
	while (fgets(line, sizeof line, f)) {
		int k;
		double want, published;
		if (sscanf(line, "%255s %d %lf %lf", graph, &k, &want, &published) != 4)
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, graph);
		sc_graph *g = load(path);
		sc_contract_report rep;
		sc_error err;
		long ideals = sc_contract_report_of(g, 100000000, &rep, &err) == SC_OK
		                      ? rep.ideals_after
		                      : -1;
		double t[5], v = 0;
		bool optimal = true;
		for (int r = 0; r < 5; r++) {
			bool o;
			v = solve_proven(g, k, &t[r], &o);
			optimal = optimal && o;
		}
		double med = median(t, 5);
		double ratio = published / med;
		if (ratio < worst_ratio)
			worst_ratio = ratio;
		bool match = fabs(v - want) <= 1e-9 * want;
		rows++;
		good += match && optimal && ratio >= 10;
		printf("%-34s %3d %8ld %14.6f %9.3fs %9.4fs %7.0fx %s, %s\n", graph, k, ideals, v,
		       published, med, ratio, match ? "yes" : "NO", optimal ? "yes" : "NO");
		sc_graph_free(g);
	}
	fclose(f);
	printf("smallest speedup over the published DP: %.0fx; %d of %d rows match, proven and "
	       "10x faster\n",
	       worst_ratio, good, rows);
	sc_gen_spec spec;
	sc_gen_spec_init(&spec);
	spec.model = SC_GEN_INCEPTION;
	sc_error err;
	sc_graph *g = sc_gen(&spec, &err);
	if (!g) {
		fprintf(stderr, "perf-search: %s\n", err.msg);
		exit(2);
	}
	sc_contract_report rep;
	long ideals =
	        sc_contract_report_of(g, 100000000, &rep, &err) == SC_OK ? rep.ideals_after : -1;
	double secs;
	bool optimal;
	double v = solve_proven(g, 6, &secs, &optimal);
	printf("inception-1 (gen --model inception, %d ops, %ld ideals), k = 6: bottleneck %.2f, "
	       "%s, %.2f s (goal: under 10 s)\n\n",
	       g->n, ideals, v, optimal ? "proven optimal" : "NOT proven", secs);
	sc_graph_free(g);
}

int main(int argc, char **argv)
{
	printf("== SliceGraph: one evaluation of a random Kahn order, generated graphs "
	       "(gen -s 1), k = 8, median of 7 orders\n");
	slice_timings(10000, 8);
	slice_timings(100000, 8);
	printf("\n");
	if (argc > 1 && strcmp(argv[1], "--slice") == 0)
		return 0;

	const char *dir = "samples/msr-fiddle";
	char path[512];
	bench_exact(dir);

	printf("== brkga-10000 (population 100 x 100 generations) on operator/resnet50, k = 8, "
	       "one thread, median of 3\n");
	sc_graph *g = load("samples/msr-fiddle/operator/resnet50_inference.json");
	double t[3], v = 0;
	long ev[3];
	for (int r = 0; r < 3; r++)
		v = solve(g, 8, "brkga", 10000, &t[r], &ev[r]);
	double med = median(t, 3);
	printf("%d ops: bottleneck %.6f, %ld evaluations (elites are not decoded again, refine "
	       "included), median %.2f s, %.0f evaluations/s\n\n",
	       g->n, v, ev[0], med, ev[0] / med);
	sc_graph_free(g);

	printf("== quality: brkga-10000 + refine vs exact\n");
	printf("%-34s %3s %14s %14s %9s\n", "graph", "k", "exact", "brkga+refine", "gap");
	const char *graphs[] = {"layer/bert24_inference.json", "layer/resnet50_inference.json",
	                        "operator/bert_l-3_inference.json",
	                        "operator/bert_l-6_inference.json",
	                        "operator/resnet50_inference.json"};
	int ks[] = {2, 4, 8, 16}, within = 0, total = 0;
	double worst = 0;
	for (int i = 0; i < 5; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, graphs[i]);
		g = load(path);
		for (int j = 0; j < 4; j++) {
			double s1, s2;
			double opt = solve(g, ks[j], "exact", 0, &s1, NULL);
			double b = solve(g, ks[j], "brkga", 10000, &s2, NULL);
			double gap = b / opt - 1;
			if (gap > worst)
				worst = gap;
			within += gap <= 0.01;
			total++;
			printf("%-34s %3d %14.6f %14.6f %8.3f%%\n", graphs[i], ks[j], opt, b,
			       gap * 100);
		}
		sc_graph_free(g);
	}
	printf("within 1%% of the optimum: %d of %d; largest gap %.3f%%\n", within, total,
	       worst * 100);
	return 0;
}
