/*
 * perf_bounds.c - the lower-bound ladder on the bundled graphs, like paper
 * 000's Table 1: for every sample graph and k in {2, 4, 8, 16}, the best
 * partition found (the default search), each rung's value divided by it,
 * the rung's wall time and status, through the same engine and ladder as
 * `stagecut bounds` (two jobs at a time on this machine).  Then the time to
 * a certificate with stop at proof (as `stagecut bounds` runs by default)
 * from an upper bound the DP has not proven (DPL's), on the msr-fiddle
 * graphs at k in {2, 4, 8}: the seconds until the ladder ends, what proved
 * the upper bound optimal, and the gap.
 *
 *   build/perf-bounds [TIME_PER_RUNG] [GRAPH...]
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/formats/load.h"
#include "solvers/jobs.h"
#include "solvers/ladder.h"

static const char *const default_graphs[] = {
        "samples/paper/figure2.dot",
        "samples/small/residual.dot",
        "samples/msr-fiddle/layer/bert24_inference.json",
        "samples/msr-fiddle/layer/resnet50_inference.json",
        "samples/msr-fiddle/operator/bert_l-3_inference.json",
        "samples/msr-fiddle/operator/bert_l-6_inference.json",
        "samples/msr-fiddle/operator/resnet50_inference.json",
};

static const char *code(sc_rung_state s)
{
	return s == SC_RS_DONE      ? "opt"
	       : s == SC_RS_STOPPED ? "lim"
	       : s == SC_RS_FAILED  ? "ERR"
	                            : "?";
}

/* The second table (see the top); returns the number of failures. */
/* sc_engine_run_until's question and turn for a ladder. */
static bool ladder_done(void *l)
{
	return sc_ladder_done(l);
}

static void ladder_update(void *l)
{
	sc_ladder_update(l);
}

static int time_to_certificate(double T, const char *const *graphs, int ng)
{
	const int ks[] = {2, 4, 8};
	int failures = 0;
	printf("\ntime to a certificate: stop at proof, upper bound from dpl, %.0f s per rung\n",
	       T);
	printf("%-26s %3s %11s %9s %8s  %s\n", "graph", "k", "upper", "seconds", "gap",
	       "proven by");
	for (int gi = 0; gi < ng; gi++) {
		if (!strstr(graphs[gi], "msr-fiddle"))
			continue;
		sc_error err;
		sc_graph *g = sc_load(graphs[gi], &err);
		if (!g)
			return failures + 1;
		for (int ki = 0; ki < 3; ki++) {
			sc_settings set = g->settings;
			set.k = ks[ki];
			sc_engine *e = sc_engine_new(0, &err);
			sc_search_params sp;
			sc_search_params_init(&sp);
			sp.method = "dpl";
			int id = sc_engine_add_search(e, g, &set, &sp, &err);
			sc_engine_wait(e, id);
			int *stage = malloc((size_t)g->n * sizeof *stage);
			double ub = sc_engine_result(e, id, stage, NULL);
			double t0 = sc_clock_now();
			sc_ladder_params lp = {.rungs = SC_RUNGS_ALL,
			                       .time_limit = T,
			                       .upper = ub,
			                       .start = isfinite(ub) ? stage : NULL,
			                       .stop_at_proof = true};
			sc_ladder *l = sc_ladder_new(e, g, &set, &lp, &err);
			sc_ladder_wait(e, l, NULL, NULL);
			double secs = sc_clock_now() - t0;
			ub = sc_ladder_upper(l, NULL);
			double lb = sc_ladder_lower(l);
			const char *by = "-";
			sc_ladder_proven(l, &by);
			printf("%-26.26s %3d %11.5g %9.2f %7.2f%%  %s\n", g->name, ks[ki], ub, secs,
			       lb > 0 ? 100 * (ub / lb - 1) : INFINITY, by);
			fflush(stdout);
			failures += lb > ub * (1 + 1e-6);
			sc_ladder_free(l);
			sc_engine_free(e);
			free(stage);
		}
		sc_graph_free(g);
	}
	return failures;
}

int main(int argc, char **argv)
{
	double T = argc > 1 ? atof(argv[1]) : 60;
	int ng = argc > 2 ? argc - 2 : (int)(sizeof default_graphs / sizeof *default_graphs);
	const char *const *graphs = argc > 2 ? (const char *const *)argv + 2 : default_graphs;
	const int ks[] = {2, 4, 8, 16};
	double logsum[SC_RUNG_COUNT][4] = {{0}};
	int count[4] = {0}, failures = 0;
	printf("time limit per MIP rung %.0f s; value = rung / best upper bound (time s, status)\n",
	       T);
	printf("%-26s %3s %11s %21s %21s %21s %21s\n", "graph", "k", "upper", "simple",
	       "bottleneck", "guess", "exact");
	for (int gi = 0; gi < ng; gi++) {
		sc_error err;
		sc_graph *g = sc_load(graphs[gi], &err);
		if (!g) {
			fprintf(stderr, "%s\n", err.msg);
			return 2;
		}
		for (int ki = 0; ki < 4; ki++) {
			sc_settings set = g->settings;
			set.k = ks[ki];
			sc_engine *e = sc_engine_new(0, &err);
			sc_search_params sp;
			sc_search_params_init(&sp);
			int id = sc_engine_add_search(e, g, &set, &sp, &err);
			sc_engine_wait(e, id);
			int *stage = malloc((size_t)g->n * sizeof *stage);
			double ub = sc_engine_result(e, id, stage, NULL);
			sc_ladder_params lp = {.rungs = SC_RUNGS_ALL,
			                       .time_limit = T,
			                       .upper = ub,
			                       .start = stage};
			sc_ladder *l = sc_ladder_new(e, g, &set, &lp, &err);
			sc_engine_run_until(e, 200, ladder_done, ladder_update, l);
			ub = sc_ladder_upper(l, NULL);
			printf("%-26.26s %3d %11.5g", g->name, ks[ki], ub);
			if (isinf(ub)) {
				sc_rung_info ri;
				sc_ladder_info(l, SC_RUNG_EXACT, &ri);
				printf("  no partition fits the hard memory limit (exact: %s, %.1f "
				       "s)\n",
				       isinf(ri.value) ? "proven" : "not proven", ri.seconds);
				sc_ladder_free(l);
				sc_engine_free(e);
				free(stage);
				continue;
			}
			for (int r = 0; r < SC_RUNG_COUNT; r++) {
				sc_rung_info ri;
				sc_ladder_info(l, (sc_rung)r, &ri);
				printf("  %6.4f (%6.1f %3s)", ri.value / ub, ri.seconds,
				       code(ri.state));
				if (ri.value > ub * (1 + 1e-6) || ri.state == SC_RS_FAILED) {
					failures++;
					fprintf(stderr, "%s k=%d %s: %s value %g ub %g\n", g->name,
					        ks[ki], sc_rung_name((sc_rung)r), ri.message,
					        ri.value, ub);
				}
				logsum[r][ki] += log(ri.value / ub);
			}
			printf("\n");
			fflush(stdout);
			count[ki]++;
			sc_ladder_free(l);
			sc_engine_free(e);
			free(stage);
		}
		sc_graph_free(g);
	}
	printf("\ngeometric mean over the feasible instances of rung / best upper bound (000 Table "
	       "1)\n%-12s",
	       "rung");
	for (int ki = 0; ki < 4; ki++)
		printf("   k=%-4d", ks[ki]);
	printf("\n");
	for (int r = 0; r < SC_RUNG_COUNT; r++) {
		printf("%-12s", sc_rung_name((sc_rung)r));
		for (int ki = 0; ki < 4; ki++)
			printf("   %6.4f", count[ki] ? exp(logsum[r][ki] / count[ki]) : NAN);
		printf("\n");
	}
	failures += time_to_certificate(T, graphs, ng);
	return failures ? 1 : 0;
}
