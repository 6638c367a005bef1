/*
 * perf_cpus.c - the exact DP with CPU stages (solvers/dp_exact.h; issue
 * 29) against the published program on every row of
 * samples/msr-fiddle/REFERENCE-CPU.tsv: the optimum (relative error below
 * 1e-9, else MISMATCH and exit 1), the median of 3 runs of sc_dp_exact
 * without the balancing pass (the optimum and its partition, what the
 * published DP computes) and with it (what solve does), the ratio to the
 * published seconds, the units left after contraction and the ideals
 * made.  Loading is not timed (nor was it in the published figures).
 *
 * Then the searches with CPU stages (solvers/search.h; 001 section 3)
 * on the same rows: BRKGA with a short fixed budget (EVALS evaluations,
 * 1000 by default: a population of 32 for 31 generations) and refinement,
 * seed 1, its gap to the published optimum (bottleneck / optimum - 1) and
 * its time (one run: the budget is a count, so the result is the seed's),
 * with the median gap and time over the rows.
 *
 *
 * Then the ladder with CPU stages (001 section 3) on the same rows, as
 * `stagecut bounds --cpus L --all-rungs` runs it (the engine, two jobs at
 * a time, every rung, the upper bound the DP's optimum with its
 * partition): each rung's value over the published optimum (above 1 +
 * 1e-9 is INVALID and exit 1) and its seconds and status, then per rung
 * the median ratio and seconds over the rows.
 *
 *   build/perf-cpus [ROWS [EVALS [SECONDS]]]   (ROWS: only the first ROWS
 *                       rows; EVALS for brkga, default 1000; SECONDS per
 *                       MIP rung, default 10)
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/formats/load.h"
#include "solvers/dp_exact.h"
#include "solvers/search.h"
#include "solvers/jobs.h"
#include "solvers/ladder.h"

/* Rows of the reference, and how many were read. */
typedef struct row {
	char graph[256];
	int k, L;
	double want, pub;
} row;

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static const char *code(sc_rung_state s)
{
	return s == SC_RS_DONE      ? "opt"
	       : s == SC_RS_STOPPED ? "lim"
	       : s == SC_RS_FAILED  ? "ERR"
	       : s == SC_RS_SKIPPED ? "skip"
	                            : "?";
}

static double median(double *x, int n)
{
	if (n == 0)
		return NAN;
	qsort(x, (size_t)n, sizeof *x, cmp_double);
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

/* The ladder with CPU stages on every row (above); false when a rung is
 * above the published optimum or fails. */
static bool ladder_rows(const row *rows, int nrows, double T)
{
	enum { R = SC_RUNG_COUNT };
	double *ratio[R], *secs[R];
	int n[R] = {0};
	for (int r = 0; r < R; r++) {
		ratio[r] = calloc((size_t)nrows + 1, sizeof(double));
		secs[r] = calloc((size_t)nrows + 1, sizeof(double));
	}
	printf("%-34s %3s %4s", "graph", "k", "cpus");
	for (int r = 0; r < R; r++)
		printf(" %18s", sc_rung_name((sc_rung)r));
	printf("\n%-43s", "  (value / optimum, seconds, status)");
	printf("\n");
	bool ok = true;
	sc_error err;
	sc_engine *e = sc_engine_new(2, &err);
	for (int i = 0; i < nrows; i++) {
		char file[300];
		snprintf(file, sizeof file, "samples/msr-fiddle/%s", rows[i].graph);
		sc_graph *g = sc_load(file, &err);
		if (!g || !e) {
			fprintf(stderr, "perf-cpus: %s\n", err.msg);
			exit(1);
		}
		int k = rows[i].k, L = rows[i].L;
		sc_settings set = g->settings;
		set.k = k;
		set.cpus = L;
		sc_search_params p;
		sc_search_params_init(&p);
		p.refine = false;
		int *stage = calloc((size_t)g->n, sizeof *stage);
		int *cpu = calloc((size_t)(k + L), sizeof *cpu);
		sc_dp_exact_info info;
		if (sc_dp_exact(g, &set, &p, stage, cpu, &info, &err) != SC_OK) {
			fprintf(stderr, "perf-cpus: %s: %s\n", file, err.msg);
			exit(1);
		}
		sc_ladder_params lp = {.rungs = SC_RUNGS_ALL,
		                       .time_limit = T,
		                       .upper = info.optimum,
		                       .start = stage,
		                       .start_kind = cpu};
		sc_ladder *l = sc_ladder_new(e, g, &set, &lp, &err);
		if (!l) {
			fprintf(stderr, "perf-cpus: %s: %s\n", file, err.msg);
			exit(1);
		}
		sc_ladder_wait(e, l, NULL, NULL);
		printf("%-34s %3d %4d", rows[i].graph, k, L);
		for (int r = 0; r < R; r++) {
			sc_rung_info ri;
			sc_ladder_info(l, (sc_rung)r, &ri);
			double q = ri.value / rows[i].want;
			if (ri.state == SC_RS_SKIPPED) {
				printf(" %18s", "skipped");
				continue;
			}
			printf(" %7.4f %6.1f %-4s", q, ri.seconds, code(ri.state));
			if (q > 1 + 1e-9 || ri.state == SC_RS_FAILED) {
				ok = false;
				printf(" INVALID");
			}
			ratio[r][n[r]] = q;
			secs[r][n[r]++] = ri.seconds;
		}
		printf("\n");
		fflush(stdout);
		sc_ladder_free(l);
		free(stage);
		free(cpu);
		sc_graph_free(g);
	}
	sc_engine_free(e);
	printf("median over %d rows:", nrows);
	for (int r = 0; r < R; r++) {
		if (n[r] == 0) {
			printf("  %s skipped", sc_rung_name((sc_rung)r));
			continue;
		}
		double mr = median(ratio[r], n[r]), ms = median(secs[r], n[r]);
		printf("  %s %.4f (%.2f s)", sc_rung_name((sc_rung)r), mr, ms);
	}
	printf("\n");
	for (int r = 0; r < R; r++) {
		free(ratio[r]);
		free(secs[r]);
	}
	return ok;
}

/* The median seconds of 3 runs; the optimum and info of the last. */
static double timed(const sc_graph *g, int k, int L, bool refine, double *opt,
                    sc_dp_exact_info *info)
{
	sc_settings set = g->settings;
	set.k = k;
	set.cpus = L;
	sc_search_params p;
	sc_search_params_init(&p);
	p.refine = refine;
	int *stage = calloc((size_t)g->n, sizeof *stage);
	int *cpu = calloc((size_t)(k + L), sizeof *cpu);
	double t[3];
	for (int r = 0; r < 3; r++) {
		sc_error err;
		double t0 = sc_clock_now();
		if (sc_dp_exact(g, &set, &p, stage, cpu, info, &err) != SC_OK) {
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

/* brkga with evals evaluations and refinement at k accelerators and L
 * CPUs: the bottleneck; its seconds into *secs. */
static double searched(const sc_graph *g, int k, int L, long evals, double *secs)
{
	sc_settings set = g->settings;
	set.k = k;
	set.cpus = L;
	sc_search_params p;
	sc_search_params_init(&p);
	p.method = "brkga";
	p.evals = evals;
	sc_error err;
	double t0 = sc_clock_now();
	sc_search *s = sc_search_new(g, &set, &p, &err);
	if (!s || sc_search_run(s, &err) != SC_OK) {
		fprintf(stderr, "perf-cpus: %s k=%d cpus=%d: %s\n", g->name, k, L, err.msg);
		exit(1);
	}
	double v = sc_search_result(s, NULL, NULL);
	*secs = sc_clock_now() - t0;
	sc_search_free(s);
	return v;
}

/* The second table (see the top).  Returns 0, or 1 when a search went
 * below the published optimum by more than rounding (a bug). */
static int search_table(int max_rows, long evals)
{
	FILE *f = fopen("samples/msr-fiddle/REFERENCE-CPU.tsv", "r");
	if (!f)
		return 1;
	char line[1024];
	if (!fgets(line, sizeof line, f))
		return 1;
	printf("\nbrkga-%ld + refine, seed 1: the gap to the published optimum\n", evals);
	printf("%-34s %3s %4s %20s %10s %9s\n", "graph", "k", "cpus", "bottleneck", "gap %", "s");
	double gaps[64], secs[64];
	int rows = 0, at_opt = 0, bad = 0;
	while (rows < max_rows && rows < 64 && fgets(line, sizeof line, f)) {
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
		double v = searched(g, k, L, evals, &secs[rows]);
		double gap = v / want - 1;
		gaps[rows] = gap > 0 ? gap : 0;
		at_opt += gap <= 1e-9;
		bad += gap < -1e-9;
		printf("%-34s %3d %4d %20.17g %10.4f %9.3f%s\n", graph, k, L, v, 100 * gap,
		       secs[rows], gap < -1e-9 ? "  BELOW THE OPTIMUM" : "");
		sc_graph_free(g);
		rows++;
	}
	fclose(f);
	double worst = 0;
	for (int i = 0; i < rows; i++)
		worst = gaps[i] > worst ? gaps[i] : worst;
	double mg = median(gaps, rows), ms = median(secs, rows);
	printf("%d rows: %d at the optimum, median gap %.4f %%, largest %.4f %%, median time "
	       "%.3f s\n",
	       rows, at_opt, 100 * mg, 100 * worst, ms);
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	int max_rows = argc > 1 ? atoi(argv[1]) : 1 << 30;
	long evals = argc > 2 ? atol(argv[2]) : 1000;
	double T = argc > 3 ? atof(argv[3]) : 10;
	row *tab = calloc(64, sizeof *tab);
	int nrows = 0;
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
		if (nrows < 64) {
			tab[nrows] = (row){.k = k, .L = L, .want = want, .pub = pub};
			snprintf(tab[nrows].graph, sizeof tab[nrows].graph, "%s", graph);
			nrows++;
		}
		snprintf(file, sizeof file, "samples/msr-fiddle/%s", graph);
		sc_error err;
		sc_graph *g = sc_load(file, &err);
		if (!g) {
			fprintf(stderr, "perf-cpus: %s\n", err.msg);
			return 1;
		}
		double opt, opt2;
		sc_dp_exact_info info, info2;
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
	bad += search_table(max_rows, evals);
	printf("\nthe ladder with CPU stages, %g s per MIP rung (bounds --cpus L --all-rungs)\n",
	       T);
	bool valid = ladder_rows(tab, nrows, T);
	free(tab);
	return bad || !valid ? 1 : 0;
}
