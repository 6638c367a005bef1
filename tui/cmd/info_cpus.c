/*
 * info_cpus.c - info's CPU section (001 section 3).  The table runs the
 * exact DP six times (k and k + 1 accelerators, 0, 1 and 2 CPUs): without
 * CPUs the exact method, with them sc_dp_exact; a cell the DP cannot
 * finish (too many ideals) says so instead of a number.
 */
#include "info_cpus.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "solvers/dp_exact.h"
#include "solvers/search.h"
#include "tui/ui.h"

/* The optimum of g at k accelerators and l CPUs, or NAN with why. */
static double optimum(const sc_graph *g, int k, int l, char *why, size_t size)
{
	sc_settings set = g->settings;
	set.k = k;
	set.cpus = l;
	sc_search_params p;
	sc_search_params_init(&p);
	p.method = "exact";
	p.refine = false;
	sc_error err;
	why[0] = '\0';
	if (l == 0) {
		sc_search *s = sc_search_new(g, &set, &p, &err);
		double v = NAN;
		if (s && sc_search_run(s, &err) == SC_OK) {
			bool optimal = false;
			v = sc_search_result(s, NULL, &optimal);
			if (!optimal && !isinf(v))
				v = NAN;
		}
		if (isnan(v))
			snprintf(why, size, "%.150s",
			         s && sc_search_error(s) ? sc_search_error(s)->msg : err.msg);
		sc_search_free(s);
		return v;
	}
	int kind[64];
	if (k + l > 64)
		return snprintf(why, size, "too many stages"), NAN;
	int *stage = calloc((size_t)(g->n > 0 ? g->n : 1), sizeof *stage);
	if (!stage)
		return snprintf(why, size, "out of memory"), NAN;
	sc_dp_exact_info info;
	sc_status st = sc_dp_exact(g, &set, &p, stage, kind, &info, &err);
	free(stage);
	if (st != SC_OK)
		return snprintf(why, size, "%.150s", err.msg), NAN;
	return info.optimum;
}

void ui_cpu_table_fill(const sc_graph *g, ui_cpu_table *t)
{
	memset(t, 0, sizeof *t);
	t->k = g->settings.k;
	if (t->k < 1)
		return;
	/* the GPipe schedule takes no CPU stages (ui_load refuses --cpus
	 * then); an op no accelerator holds needs one */
	bool gpipe = sc_graph_is_training(g) && g->settings.schedule == SC_SCHEDULE_GPIPE;
	for (int dk = 0; dk < 2; dk++)
		for (int l = 0; l < 3; l++) {
			/* an op no accelerator holds and no CPU stage: none fits
			 * (proven, not unknown) */
			if (l == 0 && g->accel_refused > 0) {
				t->opt[dk][l] = INFINITY;
				continue;
			}
			if (gpipe && l > 0) {
				t->opt[dk][l] = NAN;
				snprintf(t->why[dk][l], sizeof t->why[dk][l], "%s",
				         "GPipe takes no CPU stages");
				continue;
			}
			t->opt[dk][l] =
			        optimum(g, t->k + dk, l, t->why[dk][l], sizeof t->why[dk][l]);
		}
}

/* Ops with a CPU time, and their total. */
static int cpu_ops(const sc_graph *g, double *total)
{
	int n = 0;
	*total = 0;
	for (int v = 0; v < g->n; v++)
		if (sc_graph_cpu_ok(g, v)) {
			n++;
			*total += g->cpu_work[v];
		}
	return n;
}

void ui_info_cpus_print(const sc_graph *g, const ui_cpu_table *t)
{
	double total;
	int n = cpu_ops(g, &total);
	char a[32], b[32];
	printf("cpus           %d CPU stage%s asked; the file's maxCPUs %s; %d of %d ops have a "
	       "CPU time (total %s), %d only on a CPU\n",
	       g->settings.cpus, g->settings.cpus == 1 ? "" : "s",
	       g->max_cpus >= 0 ? (snprintf(b, sizeof b, "%d", g->max_cpus), b) : "not given", n,
	       g->n, ui_num(total, a, sizeof a), g->accel_refused);
	if (t->k < 1) {
		printf("               (no k: give -k K for the bottleneck with 0, 1 and 2 "
		       "CPUs)\n");
		return;
	}
	printf("\noptimal bottleneck with CPU stages (exact DP), k accelerators and up to L "
	       "CPUs:\n");
	printf("  %6s  %14s  %14s  %14s\n", "k", "L = 0", "L = 1", "L = 2");
	for (int dk = 0; dk < 2; dk++) {
		printf("  %6d", t->k + dk);
		for (int l = 0; l < 3; l++) {
			double v = t->opt[dk][l];
			printf("  %14s", isnan(v)   ? "-"
			                 : isinf(v) ? "none fits"
			                            : ui_num(v, a, sizeof a));
		}
		printf("\n");
	}
	for (int dk = 0; dk < 2; dk++)
		for (int l = 0; l < 3; l++)
			if (isnan(t->opt[dk][l]))
				ui_print_line("  - at k %d, L %d: %s", t->k + dk, l, t->why[dk][l]);
}

json_t *ui_info_cpus_json(const sc_graph *g, const ui_cpu_table *t)
{
	double total;
	int n = cpu_ops(g, &total);
	json_t *table = json_array();
	for (int dk = 0; t->k > 0 && dk < 2; dk++)
		for (int l = 0; l < 3; l++) {
			double v = t->opt[dk][l];
			json_array_append_new(
			        table, json_pack("{s:i, s:i, s:o, s:o}", "k", t->k + dk, "cpus", l,
			                         "bottleneck",
			                         isfinite(v) ? json_real(v) : json_null(), "fits",
			                         isnan(v) ? json_null() : json_boolean(!isinf(v))));
		}
	return json_pack("{s:i, s:o, s:i, s:f, s:i, s:o}", "asked", g->settings.cpus, "max_cpus",
	                 g->max_cpus >= 0 ? json_integer(g->max_cpus) : json_null(), "cpu_ops", n,
	                 "cpu_work", total, "cpu_only_ops", g->accel_refused, "table", table);
}
