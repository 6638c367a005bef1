/*
 * bounds_cpu.c - the upper bound of `bounds --cpus L`.  See bounds_cpu.h.
 *
 * The exact DP with CPU stages (cpu_exact.h) gives the upper bound for
 * best and exact, proven optimal when it finishes (the ladder then stops
 * at once unless --all-rungs).  Another method, or a DP that cannot
 * finish, leaves it to the caller's search with CPU stages (search.h),
 * whose partition brings its devices.
 */
#include "bounds_cpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/cost.h"
#include "core/formats/partition_file.h"
#include "core/partition.h"
#include "solvers/cpu_exact.h"

/* -p with CPU stages: the file's devices, at most k accelerators and L
 * CPUs among its stages. */
static int read_partition(const ui_opts *o, const sc_graph *g, int *stage, ui_cpu_upper *out)
{
	const sc_settings *set = &g->settings;
	sc_error err;
	int k2 = 0;
	bool *cpu = NULL;
	sc_status st = sc_part_load_devices(o->partition, g, 0, &k2, stage, &cpu, NULL, &err);
	if (st != SC_OK) {
		free(cpu);
		ui_error("%s", err.msg);
		return ui_exit_status(st);
	}
	out->cpu = calloc((size_t)k2, sizeof *out->cpu);
	if (!out->cpu) {
		free(cpu);
		ui_error("out of memory");
		return UI_EXIT_INPUT;
	}
	int acc = 0, ncpu = 0;
	for (int s = 0; s < k2; s++) {
		out->cpu[s] = cpu && cpu[s];
		acc += !out->cpu[s];
		ncpu += out->cpu[s];
	}
	free(cpu);
	if (acc > set->k || ncpu > set->cpus) {
		ui_error("bounds: %s has %d accelerator and %d CPU stages; -k %d --cpus %d allows "
		         "at "
		         "most %d and %d",
		         o->partition, acc, ncpu, set->k, set->cpus, set->k, set->cpus);
		return UI_EXIT_INPUT;
	}
	sc_settings s = *set;
	s.k = k2;
	sc_costs *c = sc_costs_new(g, &s, &err);
	if (!c) {
		ui_error("%s", err.msg);
		return UI_EXIT_INPUT;
	}
	sc_costs_set_devices(c, out->cpu);
	sc_costs_eval(c, stage);
	out->upper = out->mine = sc_costs_objective(c);
	sc_costs_free(c);
	out->nstages = k2;
	out->method = "partition";
	return UI_EXIT_OK;
}

int ui_bounds_cpu_upper(const ui_opts *o, const sc_graph *g, const ui_budget *budget, int *stage,
                        ui_cpu_upper *out)
{
	const sc_settings *set = &g->settings;
	int K = set->k + set->cpus;
	*out = (ui_cpu_upper){.upper = INFINITY, .mine = NAN, .method = "partition"};
	if (o->partition)
		return read_partition(o, g, stage, out);
	out->method = o->method ? o->method : "best";
	out->cpu = calloc((size_t)K, sizeof *out->cpu);
	if (!out->cpu) {
		ui_error("out of memory");
		return UI_EXIT_INPUT;
	}
	out->nstages = K;
	if (strcmp(out->method, "best") != 0 && strcmp(out->method, "exact") != 0) {
		out->fallback = true; /* the method asked, with CPU stages */
		return UI_EXIT_OK;
	}
	sc_search_params p;
	ui_search_params(o, &p);
	p.refine = false; /* the optimum is what counts, not its balance */
	p.interrupted = ui_interrupted;
	p.time_limit = ui_budget_search_now(budget);
	sc_cpu_exact_info info;
	sc_error err;
	sc_status st = sc_cpu_exact(g, set, &p, stage, out->cpu, &info, &err);
	out->seconds = info.seconds;
	if (st == SC_OK) {
		out->upper = info.optimum;
		out->optimal = true;
		out->nstages = isfinite(info.optimum) ? K : 0;
		return UI_EXIT_OK;
	}
	if (ui_interrupted())
		return ui_interrupt_status();
	if (st != SC_ERR_LIMIT) {
		ui_error("bounds: %s: %s", g->source, err.msg);
		return UI_EXIT_INPUT;
	}
	/* brkga with CPU stages instead */
	out->method = "brkga";
	out->fallback = true;
	return UI_EXIT_OK;
}
