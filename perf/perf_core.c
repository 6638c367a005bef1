/*
 * perf_core.c - how fast the foundation is on a large graph.
 *
 * Writes a random layered DAG of N ops and about 3N edges (default 100 000 /
 * 300 000) as DOT and as msr-fiddle JSON into a scratch directory, then
 * measures, each as the median of several runs: loading either file,
 * evaluating a whole partition, one incremental single-op move (the
 * workbench's key press), and the same move made through the editor
 * (sc_editor_move: legality check, cost update and undo entry).  Also
 * reports the peak resident memory.
 *
 *   build/perf-core [N] [DIR]
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "core/clock.h"
#include "core/cost.h"
#include "core/edit.h"
#include "core/formats/load.h"
#include "core/partition.h"
#include "solvers/simple.h"

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

static unsigned long long rng = 88172645463325252ULL;
static unsigned long long next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void write_graphs(int n, const char *dot, const char *json)
{
	FILE *d = fopen(dot, "w"), *j = fopen(json, "w");
	if (!d || !j) {
		perror("perf-core: cannot write the graphs");
		exit(2);
	}
	double *out = malloc((size_t)n * sizeof *out);
	fprintf(d, "digraph big {\n");
	fprintf(j, "{\"maxSizePerFPGA\": 1e12, \"maxFPGAs\": 8, \"nodes\": [\n");
	for (int i = 0; i < n; i++) {
		double w = (double)(next() % 10000) / 1000, p = (double)(next() % 100000);
		out[i] = (double)(next() % 500) / 100;
		fprintf(d, "n%d [work=%g, param=%g, out=%g];\n", i, w, p, out[i]);
		fprintf(j, "%s{\"id\": %d, \"name\": \"n%d\", \"fpgaLatency\": %g, \"size\": %g}\n",
		        i ? "," : "", i, i, w, p);
	}
	fprintf(j, "], \"edges\": [\n");
	for (int e = 0; e < 3 * n; e++) {
		int u = (int)(next() % (unsigned long long)(n - 1));
		int v = u + 1 + (int)(next() % 50);
		if (v >= n)
			v = n - 1;
		fprintf(d, "n%d -> n%d;\n", u, v);
		fprintf(j, "%s{\"sourceId\": %d, \"destId\": %d, \"cost\": %g}\n", e ? "," : "", u,
		        v, out[u]);
	}
	fprintf(d, "}\n");
	fprintf(j, "]}\n");
	fclose(d);
	fclose(j);
	free(out);
}

#define RUNS 5

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100000;
	const char *dir = argc > 2 ? argv[2] : "/tmp";
	char dot[512], json[512];
	snprintf(dot, sizeof dot, "%s/stagecut-perf-%d.dot", dir, n);
	snprintf(json, sizeof json, "%s/stagecut-perf-%d.json", dir, n);
	write_graphs(n, dot, json);

	sc_error err;
	sc_graph *g = NULL;
	const char *files[2] = {dot, json};
	const char *names[2] = {"DOT (cgraph)", "msr-fiddle JSON (jansson)"};
	for (int f = 0; f < 2; f++) {
		double t[RUNS];
		for (int r = 0; r < RUNS; r++) {
			sc_graph_free(g);
			double t0 = sc_clock_now();
			g = sc_load(files[f], &err);
			t[r] = sc_clock_now() - t0;
			if (!g) {
				fprintf(stderr, "perf-core: %s\n", err.msg);
				return 2;
			}
		}
		printf("load %-27s %d ops, %d edges: median %.3f s over %d runs\n", names[f], g->n,
		       g->m, median(t, RUNS), RUNS);
	}
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("peak resident memory after loading: %.1f MiB\n", ru.ru_maxrss / 1024.0);

	sc_settings set = g->settings;
	set.k = 8;
	sc_costs *c = sc_costs_new(g, &set, &err);
	int *stage = malloc((size_t)g->n * sizeof *stage);
	sc_greedy_split(g, set.k, stage, &err);
	double te[21];
	for (int r = 0; r < 21; r++) {
		double t0 = sc_clock_now();
		sc_costs_eval(c, stage);
		te[r] = sc_clock_now() - t0;
	}
	printf("whole evaluation, k = 8: median %.2f ms over 21 runs\n", median(te, 21) * 1e3);

	/* legal single-op moves, as the workbench makes them */
	/* pick ops that can move at all first, so only real moves are timed */
	int *movable = malloc((size_t)g->n * sizeof *movable), nm = 0;
	double tm[RUNS];
	for (int r = 0; r < RUNS; r++) {
		nm = 0;
		for (int v = 0; v < g->n; v++) {
			int lo, hi;
			sc_part_legal_range(g, stage, set.k, v, &lo, &hi);
			if (hi > lo)
				movable[nm++] = v;
		}
		int moves = 0;
		double t0 = sc_clock_now();
		for (int i = 0; i < nm && moves < 20000; i++) {
			int v = movable[i], lo, hi;
			sc_part_legal_range(g, stage, set.k, v, &lo, &hi);
			if (hi == lo)
				continue;
			int to = lo + (int)(next() % (unsigned long long)(hi - lo));
			if (to >= stage[v])
				to++;
			sc_costs_move(c, stage, v, to);
			sc_costs_bottleneck(c, NULL);
			moves++;
		}
		tm[r] = (sc_clock_now() - t0) / (moves ? moves : 1);
	}
	printf("incremental move to another legal stage (range + update + bottleneck), k = 8: "
	       "median %.2f us per move (%d movable ops)\n",
	       median(tm, RUNS) * 1e6, nm);

	/* the editor's move, timed one call at a time: what a key press costs */
	sc_editor *ed = sc_editor_new(g, &set, stage, &err);
	if (!ed) {
		fprintf(stderr, "perf-core: %s\n", err.msg);
		return 2;
	}
	enum { EDITS = 20000 };
	double *te1 = malloc(EDITS * sizeof *te1);
	int edits = 0;
	char why[256];
	/* ops from the movable list above; a few may have been pinned since */
	for (int i = 0; nm > 0 && edits < EDITS && i < 4 * EDITS; i++) {
		int v = movable[next() % (unsigned long long)nm], lo, hi;
		sc_editor_range(ed, v, &lo, &hi);
		if (hi == lo)
			continue;
		int to = lo + (int)(next() % (unsigned long long)(hi - lo));
		if (to >= sc_editor_stages(ed)[v])
			to++;
		double t0 = sc_clock_now();
		bool ok = sc_editor_move(ed, v, to, why, sizeof why);
		te1[edits] = sc_clock_now() - t0;
		if (!ok) {
			fprintf(stderr, "perf-core: a legal move was refused: %s\n", why);
			return 2;
		}
		edits++;
	}
	if (edits > 0)
		printf("editor move to another legal stage (sc_editor_move with undo entry), "
		       "k = 8: median %.2f us per move over %d moves\n",
		       median(te1, edits) * 1e6, edits);
	free(te1);
	sc_editor_free(ed);
	free(movable);
	free(stage);
	sc_costs_free(c);
	sc_graph_free(g);
	remove(dot);
	remove(json);
	return 0;
}
