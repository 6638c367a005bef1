/*
 * bounds_devices.c - the upper bound of `bounds` on devices.  See
 * bounds_devices.h.
 *
 * The exact DP on the devices (dp_exact.h) gives the upper bound for best
 * and exact, proven optimal when it finishes and its links agree (the
 * ladder then stops at once unless --all-rungs).  Another method, or a DP
 * that cannot finish, leaves it to the caller's search on the devices
 * (search.h), whose partition brings its kinds.
 */
#include "bounds_devices.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/cost.h"
#include "core/fleet.h"
#include "core/formats/partition_file.h"
#include "core/partition.h"
#include "solvers/dp_exact.h"

/* -p on devices: the file's kinds, no kind on more stages than its count. */
static int read_partition(const ui_opts *o, const sc_graph *g, int *stage, ui_devices_upper *out)
{
	const sc_settings *set = &g->settings;
	sc_error err;
	sc_fleet f;
	if (!sc_fleet_resolve(g, set, &f, &err)) {
		ui_error("bounds: %s", err.msg);
		return UI_EXIT_INPUT;
	}
	int k2 = 0;
	int *kind = NULL;
	sc_fleet used;
	sc_status st =
	        sc_part_load_kinds(o->partition, g, &f, 0, &k2, stage, &used, &kind, NULL, &err);
	if (st != SC_OK) {
		free(kind);
		ui_error("%s", err.msg);
		return ui_exit_status(st);
	}
	if (!kind) {
		kind = calloc((size_t)(k2 > 0 ? k2 : 1), sizeof *kind);
		for (int s = 0; kind && s < k2; s++)
			kind[s] = sc_fleet_kind_in_order(&f, s);
	}
	if (!kind) {
		ui_error("out of memory");
		return UI_EXIT_INPUT;
	}
	out->kind = kind;
	sc_settings s = *set;
	s.k = k2;
	sc_costs *c = sc_costs_new(g, &s, &err);
	if (!c) {
		ui_error("%s", err.msg);
		return UI_EXIT_INPUT;
	}
	sc_costs_set_kinds(c, out->kind);
	sc_costs_eval(c, stage);
	out->upper = out->mine = sc_costs_objective(c);
	sc_costs_free(c);
	out->nstages = k2;
	out->method = "partition";
	return UI_EXIT_OK;
}

int ui_bounds_devices_upper(const ui_opts *o, const sc_graph *g, const ui_budget *budget,
                            int *stage, ui_devices_upper *out)
{
	const sc_settings *set = &g->settings;
	*out = (ui_devices_upper){
	        .upper = INFINITY, .mine = NAN, .dp_value = NAN, .method = "partition"};
	if (o->partition)
		return read_partition(o, g, stage, out);
	sc_fleet f;
	sc_error err;
	if (!sc_fleet_resolve(g, set, &f, &err)) {
		ui_error("bounds: %s", err.msg);
		return UI_EXIT_INPUT;
	}
	int K = sc_fleet_stages(&f);
	out->method = o->method ? o->method : "best";
	out->kind = calloc((size_t)(K > 0 ? K : 1), sizeof *out->kind);
	if (!out->kind) {
		ui_error("out of memory");
		return UI_EXIT_INPUT;
	}
	out->nstages = K;
	if (strcmp(out->method, "best") != 0 && strcmp(out->method, "exact") != 0) {
		out->fallback = true; /* the method asked, on the devices */
		return UI_EXIT_OK;
	}
	sc_search_params p;
	ui_search_params(o, &p);
	p.refine = false; /* the optimum is what counts, not its balance */
	p.interrupted = ui_interrupted;
	p.time_limit = ui_budget_search_now(budget);
	sc_dp_exact_info info;
	sc_status st = sc_dp_exact(g, set, &p, stage, out->kind, &info, &err);
	out->seconds = info.seconds;
	if (st == SC_OK && !info.relaxed) {
		out->upper = info.optimum;
		out->dp_value = info.optimum;
		out->optimal = true;
		out->nstages = isfinite(info.optimum) ? K : 0;
		return UI_EXIT_OK;
	}
	if (st == SC_OK) {
		/* links differ: the DP's value bounds the optimum from below, and
		 * its partition is the upper bound at its true cost */
		out->relaxed = true;
		out->dp_value = info.optimum;
		out->nstages = isfinite(info.optimum) ? K : 0;
		if (out->nstages) {
			sc_settings s = *set;
			s.k = K;
			sc_costs *c = sc_costs_new(g, &s, &err);
			if (c) {
				sc_costs_set_kinds(c, out->kind);
				sc_costs_eval(c, stage);
				out->upper = sc_costs_objective(c);
				sc_costs_free(c);
			}
		}
		out->optimal = !isfinite(info.optimum) || out->upper <= info.optimum;
		out->method = "exact";
		return UI_EXIT_OK;
	}
	if (ui_interrupted())
		return ui_interrupt_status();
	if (st != SC_ERR_LIMIT) {
		ui_error("bounds: %s: %s", g->source, err.msg);
		return UI_EXIT_INPUT;
	}
	/* brkga on the devices instead */
	out->method = "brkga";
	out->fallback = true;
	return UI_EXIT_OK;
}
