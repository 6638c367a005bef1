/*
 * info_devices.c - info's device sections: the CPU table (001 section 3)
 * and the table of a fleet's mixes (--devices).  Each cell is one mix of
 * devices solved by ui_mix_solve: the exact method on the graph's own
 * device alone, sc_dp_exact with CPUs or kinds; a cell the DP cannot
 * finish (too many ideals) says so instead of a number.
 */
#include "info_devices.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cost.h"
#include "solvers/dp_exact.h"
#include "solvers/search.h"
#include "solvers/simple.h"
#include "tui/ui.h"

double ui_simple_cpus(const sc_graph *g, int k, int cpus)
{
	double v;
	return sc_bound_simple_cpus(g, k, cpus, &v, NULL) == SC_OK ? v : NAN;
}

/* The settings of g for the mix f: the graph's device and CPUs as k and
 * cpus (as every command has them), any other fleet as set->fleet. */
static sc_settings mix_settings(const sc_graph *g, const sc_fleet *f)
{
	sc_settings set = g->settings;
	set.pin = NULL;
	set.fleet = NULL;
	set.cpus = 0;
	if (sc_fleet_cpus_form(g, f) && f->kind[0].count > 0) {
		set.k = f->kind[0].count;
		set.cpus = f->n > 1 ? f->kind[1].count : 0;
	} else {
		set.fleet = f;
		set.k = sc_fleet_stages(f);
	}
	return set;
}

/* The true bottleneck of op_stage with stage_kind under set (K stages). */
static double true_cost(const sc_graph *g, const sc_settings *set, int K, const int *op_stage,
                        const int *stage_kind)
{
	sc_settings all = *set;
	all.k = K;
	sc_costs *c = sc_costs_new(g, &all, NULL);
	if (!c)
		return NAN;
	sc_costs_set_kinds(c, stage_kind);
	sc_costs_eval(c, op_stage);
	int at;
	double v = sc_costs_feasible(c) ? sc_costs_bottleneck(c, &at) : INFINITY;
	sc_costs_free(c);
	return v;
}

void ui_mix_solve(const sc_graph *g, ui_mix *m)
{
	m->lower = m->upper = NAN;
	m->why[0] = '\0';
	sc_settings set = mix_settings(g, &m->f);
	int K = sc_settings_stages(&set);
	sc_search_params p;
	sc_search_params_init(&p);
	p.method = "exact";
	p.refine = false;
	sc_error err;
	sc_error_clear(&err);
	if (!set.fleet && set.cpus == 0) {
		/* the graph's own device alone: the exact method */
		sc_search *s = sc_search_new(g, &set, &p, &err);
		if (s && sc_search_run(s, &err) == SC_OK) {
			bool optimal = false;
			double v = sc_search_result(s, NULL, &optimal);
			if (optimal || isinf(v))
				m->lower = m->upper = v;
		}
		if (isnan(m->lower))
			snprintf(m->why, sizeof m->why, "%.150s",
			         s && sc_search_error(s) ? sc_search_error(s)->msg : err.msg);
		sc_search_free(s);
		return;
	}
	int *stage = calloc((size_t)(g->n > 0 ? g->n : 1), sizeof *stage);
	int *kind = calloc((size_t)(K > 0 ? K : 1), sizeof *kind);
	sc_dp_exact_info info;
	sc_status st = stage && kind ? sc_dp_exact(g, &set, &p, stage, kind, &info, &err)
	                             : sc_error_nomem(&err, "the table");
	if (st != SC_OK) {
		snprintf(m->why, sizeof m->why, "%.150s", err.msg);
	} else {
		/* with links that differ the DP's value is a lower bound, and its
		 * partition costs what it costs */
		m->lower = info.optimum;
		m->upper = info.relaxed && isfinite(info.optimum)
		                   ? true_cost(g, &set, K, stage, kind)
		                   : info.optimum;
	}
	free(stage);
	free(kind);
}

/* The two-kind fleet of the graph's device (k) and CPUs (l). */
static sc_fleet cpu_mix(const sc_graph *g, int k, int l)
{
	sc_fleet f = {.n = l > 0 ? 2 : 1};
	snprintf(f.kind[0].name, SC_KIND_NAME, "%s", sc_graph_work_kind(g));
	f.kind[0].count = k;
	snprintf(f.kind[1].name, SC_KIND_NAME, "cpu");
	f.kind[1].count = l;
	f.kind[1].cpu = true;
	return f;
}

void ui_cpu_table_fill(const sc_graph *g, ui_mix_table *t)
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
			ui_mix *m = &t->row[t->n++];
			m->f = cpu_mix(g, t->k + dk, l);
			/* an op no accelerator holds and no CPU stage: none fits
			 * (proven, not unknown) */
			if (l == 0 && g->accel_refused > 0) {
				m->lower = m->upper = INFINITY;
				continue;
			}
			if (gpipe && l > 0) {
				m->lower = m->upper = NAN;
				snprintf(m->why, sizeof m->why, "%s", "GPipe takes no CPU stages");
				continue;
			}
			ui_mix_solve(g, m);
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

/* A cell: the optimum, "none fits", "-" when unknown, or "lo..up" when
 * the DP bounded it without proving it. */
static const char *cell(const ui_mix *m, char *buf, size_t size)
{
	char a[32], b[32];
	if (isnan(m->lower))
		snprintf(buf, size, "-");
	else if (isinf(m->lower))
		snprintf(buf, size, "none fits");
	else if (!(m->upper <= m->lower * (1 + 1e-9)))
		snprintf(buf, size, "%s..%s", ui_num(m->lower, a, sizeof a),
		         ui_num(m->upper, b, sizeof b));
	else
		snprintf(buf, size, "%s", ui_num(m->lower, a, sizeof a));
	return buf;
}

void ui_info_cpus_print(const sc_graph *g, const ui_mix_table *t)
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
		for (int l = 0; l < 3; l++)
			printf("  %14s", cell(&t->row[dk * 3 + l], a, sizeof a));
		printf("\n");
	}
	for (int i = 0; i < t->n; i++)
		if (isnan(t->row[i].lower))
			ui_print_line("  - at k %d, L %d: %s", t->k + i / 3, i % 3, t->row[i].why);
}

json_t *ui_info_cpus_json(const sc_graph *g, const ui_mix_table *t)
{
	double total;
	int n = cpu_ops(g, &total);
	json_t *table = json_array();
	for (int i = 0; t->k > 0 && i < t->n; i++) {
		double v = t->row[i].lower;
		json_array_append_new(
		        table, json_pack("{s:i, s:i, s:o, s:o}", "k", t->k + i / 3, "cpus", i % 3,
		                         "bottleneck", isfinite(v) ? json_real(v) : json_null(),
		                         "fits", isnan(v) ? json_null() : json_boolean(!isinf(v))));
	}
	return json_pack("{s:i, s:o, s:i, s:f, s:i, s:o}", "asked", g->settings.cpus, "max_cpus",
	                 g->max_cpus >= 0 ? json_integer(g->max_cpus) : json_null(), "cpu_ops", n,
	                 "cpu_work", total, "cpu_only_ops", g->accel_refused, "table", table);
}

void ui_devices_table_fill(const sc_graph *g, ui_mix_table *t)
{
	memset(t, 0, sizeof *t);
	if (!g->settings.fleet)
		return;
	sc_fleet mix[SC_FLEET_NEIGHBOURS];
	t->n = sc_fleet_neighbours(g->settings.fleet, mix);
	for (int i = 0; i < t->n; i++)
		t->row[i].f = mix[i];
	for (int i = 0; i < t->n; i++)
		ui_mix_solve(g, &t->row[i]);
}

/* Per kind of the fleet: the ops it may run and their total time. */
static void kind_ops(const sc_graph *g, const sc_kind *d, int *ops, double *work)
{
	*ops = 0;
	*work = 0;
	for (int v = 0; v < g->n; v++)
		if (sc_kind_ok(d, g, v)) {
			(*ops)++;
			*work += sc_kind_work(d, g, v);
		}
}

void ui_info_devices_print(const sc_graph *g, const ui_mix_table *t)
{
	sc_fleet f;
	if (!g->settings.fleet || !sc_fleet_resolve(g, &g->settings, &f, NULL))
		return;
	char a[32], b[32], c[32], spec[SC_KINDS_MAX * (SC_KIND_NAME + 12)];
	for (int d = 0; d < f.n; d++) {
		int ops;
		double work;
		kind_ops(g, &f.kind[d], &ops, &work);
		ui_print_line("%-15s%s: %d stage%s, %d of %d ops may run there (total %s), memory "
		              "%s bytes, link %s bytes/time",
		              d == 0 ? "devices" : "", f.kind[d].name, f.kind[d].count,
		              f.kind[d].count == 1 ? "" : "s", ops, g->n, ui_num(work, a, sizeof a),
		              ui_num(f.kind[d].memory, b, sizeof b),
		              ui_num(f.kind[d].bandwidth, c, sizeof c));
	}
	printf("\noptimal bottleneck on the devices and on one fewer or one more of each kind "
	       "(exact DP; lo..up: bounded, not proven):\n");
	printf("  %-32s  %6s  %14s\n", "devices", "stages", "bottleneck");
	for (int i = 0; i < t->n; i++) {
		sc_fleet_format(&t->row[i].f, spec, sizeof spec);
		ui_print_line("  %-32s  %6d  %14s", spec, sc_fleet_stages(&t->row[i].f),
		              cell(&t->row[i], a, sizeof a));
	}
	for (int i = 0; i < t->n; i++)
		if (isnan(t->row[i].lower)) {
			sc_fleet_format(&t->row[i].f, spec, sizeof spec);
			ui_print_line("  - on %s: %s", spec, t->row[i].why);
		}
}

json_t *ui_info_devices_json(const sc_graph *g, const ui_mix_table *t)
{
	sc_fleet f;
	if (!g->settings.fleet || !sc_fleet_resolve(g, &g->settings, &f, NULL))
		return json_null();
	char spec[SC_KINDS_MAX * (SC_KIND_NAME + 12)];
	json_t *kinds = json_array();
	for (int d = 0; d < f.n; d++) {
		int ops;
		double work;
		kind_ops(g, &f.kind[d], &ops, &work);
		json_t *kind = json_pack("{s:s, s:i, s:i, s:f, s:f}", "name", f.kind[d].name,
		                         "count", f.kind[d].count, "ops", ops, "work", work,
		                         "bandwidth", f.kind[d].bandwidth);
		/* (no limit: no "memory") */
		if (isfinite(f.kind[d].memory))
			json_object_set_new(kind, "memory", json_real(f.kind[d].memory));
		json_array_append_new(kinds, kind);
	}
	json_t *table = json_array();
	for (int i = 0; i < t->n; i++) {
		const ui_mix *m = &t->row[i];
		bool known = !isnan(m->lower);
		bool proven = known && (isinf(m->lower) || m->upper <= m->lower * (1 + 1e-9));
		sc_fleet_format(&m->f, spec, sizeof spec);
		json_array_append_new(
		        table,
		        json_pack("{s:s, s:i, s:o, s:o, s:b, s:o}", "devices", spec, "stages",
		                  sc_fleet_stages(&m->f), "bottleneck",
		                  known && isfinite(m->upper) ? json_real(m->upper) : json_null(),
		                  "lower_bound",
		                  known && isfinite(m->lower) ? json_real(m->lower) : json_null(),
		                  "proven", (int)proven, "fits",
		                  known ? json_boolean(!isinf(m->lower)) : json_null()));
	}
	sc_fleet_format(&f, spec, sizeof spec);
	return json_pack("{s:s, s:o, s:o}", "fleet", spec, "kinds", kinds, "table", table);
}
