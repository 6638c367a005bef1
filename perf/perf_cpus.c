/*
 * perf_cpus.c - the exact DP with CPU stages (solvers/cpu_exact.h; issue
 * 29) against the published program on every row of
 * samples/msr-fiddle/REFERENCE-CPU.tsv: the optimum (relative error below
 * 1e-9, else MISMATCH and exit 1), the median of 3 runs of sc_cpu_exact
 * without the balancing pass (the optimum and its partition, what the
 * published DP computes) and with it (what solve does), the ratio to the
 * published seconds, the units left after contraction and the ideals
 * made.  Loading is not timed (nor was it in the published figures).
 *
 *   build/perf-cpus [ROWS]    (ROWS: only the first ROWS rows)
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/load.h"
#include "solvers/cpu_exact.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median seconds of 3 runs; the optimum and info of the last. */
static double timed(const sc_graph *g, int k, int L, bool refine, double *opt,
                    sc_cpu_exact_info *info)
{
	sc_settings set = g->settings;
	set.k = k;
	set.cpus = L;
	sc_search_params p;
	sc_search_params_init(&p);
	p.refine = refine;
	int *stage = calloc((size_t)g->n, sizeof *stage);
	bool *cpu = calloc((size_t)(k + L), sizeof *cpu);
	double t[3];
	for (int r = 0; r < 3; r++) {
		sc_error err;
		double t0 = sc_clock_now();
		if (sc_cpu_exact(g, &set, &p, stage, cpu, info, &err) != SC_OK) {
			fprintf(stderr, "perf-cpus: %s k=%d cpus=%d: %s\n", g->name, k, L, err.msg);
			exit(1);
		}
		t[r] = sc_clock_now() - t0;
	}
	*opt = info->optimum;
	free(stage);
	free(cpu);
	qsort(t, 3, sizeof *t, cmp_double);
	return t[1];
}

int main(int argc, char **argv)
{
	int max_rows = argc > 1 ? atoi(argv[1]) : 1 << 30;
	const char *path = "samples/msr-fiddle/REFERENCE-CPU.tsv";
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "perf-cpus: cannot open %s (run from the repository)\n", path);
		return 1;
	}
	char line[1024];
	if (!fgets(line, sizeof line, f))
		return 1;
	printf("%-34s %3s %4s %20s %9s %9s %9s %6s %6s %9s\n", "graph", "k", "cpus", "optimum",
	       "DP s", "+bal s", "published", "ratio", "units", "ideals");
	int rows = 0, bad = 0;
	double sum_ours = 0, sum_pub = 0;
	while (rows < max_rows && fgets(line, sizeof line, f)) {
		char graph[256], file[300];
		int k, L;
		double want, pub;
		if (sscanf(line, "%255s %d %d %lf %lf", graph, &k, &L, &want, &pub) != 5)
			continue;
		snprintf(file, sizeof file, "samples/msr-fiddle/%s", graph);
		sc_error err;
		sc_graph *g = sc_load(file, &err);
		if (!g) {
			fprintf(stderr, "perf-cpus: %s\n", err.msg);
			return 1;
		}
		double opt, opt2;
		sc_cpu_exact_info info, info2;
		double s = timed(g, k, L, false, &opt, &info);
		double s2 = timed(g, k, L, true, &opt2, &info2);
		bool ok = fabs(opt - want) <= 1e-9 * want && fabs(opt2 - want) <= 1e-9 * want;
		bad += !ok;
		sum_ours += s;
		sum_pub += pub;
		printf("%-34s %3d %4d %20.17g %9.3f %9.3f %9.2f %6.2f %6d %9ld%s\n", graph, k, L,
		       opt, s, s2, pub, pub > 0 ? s / pub : NAN, info.units, info.ideals,
		       ok ? "" : "  MISMATCH");
		sc_graph_free(g);
		rows++;
	}
	fclose(f);
	printf("%d rows, %d mismatches; DP %.2f s in all against the published %.2f s\n", rows, bad,
	       sum_ours, sum_pub);
	return bad ? 1 : 0;
}
