/*
 * solve_cpu.c - `stagecut solve --cpus L` (issue 29): the exact DP with CPU
 * stages (solvers/cpu_exact.h) is the one method that places CPU stages;
 * its result is optimal by construction, so no MIP is asked.  What does
 * not take CPU stages yet (the other methods, a starting partition, pins,
 * the exact MIP) is refused by name rather than run without the CPUs.
 */
#include "solve_cpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/cost.h"
#include "core/parse.h"
#include "core/partition.h"
#include "core/report.h"
#include "solvers/cpu_exact.h"

/* The options solve takes that do not place CPU stages yet: false after a
 * message. */
static bool refuse_unsupported(const ui_opts *o)
{
	if (o->method && strcmp(o->method, "exact") != 0 && strcmp(o->method, "best") != 0) {
		ui_error("solve: --cpus: method '%s' does not place CPU stages yet; use -m exact "
		         "(or best, which runs it)",
		         o->method);
		return false;
	}
	const char *what = o->partition ? "--partition (refinement from a partition)"
	                   : o->npins   ? "--pin"
	                   : o->proof   ? "--proof (the exact MIP)"
	                                : NULL;
	if (what) {
		ui_error("solve: --cpus: %s does not take CPU stages yet", what);
		return false;
	}
	return true;
}

static json_t *devices_json(const bool *cpu, int K)
{
	json_t *dev = json_array();
	for (int s = 0; dev && s < K; s++)
		json_array_append_new(dev, json_string(cpu[s] ? "cpu" : "accel"));
	return dev;
}

int ui_solve_cpus(const ui_opts *o, const sc_graph *g, double deadline)
{
	if (!refuse_unsupported(o))
		return UI_EXIT_INPUT;
	sc_settings set = g->settings;
	int K = set.k + set.cpus, status = UI_EXIT_OK;
	sc_search_params p;
	ui_search_params(o, &p);
	const char *method = p.method ? p.method : "best";
	if (o->time_limit > 0)
		p.time_limit = fmax(0.05, deadline - sc_clock_now());
	p.interrupted = ui_interrupted;
	int *stage = sc_part_new(g);
	bool *cpu = calloc((size_t)K, sizeof *cpu);
	sc_costs *c = NULL;
	sc_error err;
	sc_error_clear(&err);
	if (!stage || !cpu) {
		ui_error("out of memory");
		status = UI_EXIT_INPUT;
		goto out;
	}
	ui_interrupts saved;
	ui_catch_interrupts(&saved);
	sc_cpu_exact_info info;
	sc_status st = sc_cpu_exact(g, &set, &p, stage, cpu, &info, &err);
	ui_release_interrupts(&saved);
	if (st != SC_OK) {
		bool stopped =
		        st == SC_ERR_LIMIT &&
		        (ui_interrupted() || (p.time_limit > 0 && info.seconds >= p.time_limit));
		ui_error("solve: %s: %s%s", g->source, err.msg,
		         stopped ? "; nothing is proven (CPU stages: only the exact DP places them)"
		                 : "");
		status = ui_interrupted() ? 130 : stopped ? UI_EXIT_UNDECIDED : UI_EXIT_INPUT;
		goto out;
	}
	bool feasible = isfinite(info.optimum);
	int at = 0;
	double bn = NAN;
	if (feasible) {
		c = sc_costs_new(g,
		                 &(sc_settings){.k = K,
		                                .bandwidth = set.bandwidth,
		                                .memory = set.memory,
		                                .policy = set.policy,
		                                .schedule = set.schedule,
		                                .cpus = set.cpus},
		                 &err);
		if (!c) {
			ui_error("%s", err.msg);
			status = UI_EXIT_INPUT;
			goto out;
		}
		sc_costs_set_devices(c, cpu);
		sc_costs_eval(c, stage);
		bn = sc_costs_bottleneck(c, &at);
		if (o->output &&
		    sc_part_write_devices(o->output, g, stage, K, cpu, c, &err) != SC_OK) {
			ui_error("%s", err.msg);
			status = UI_EXIT_INPUT;
			goto out;
		}
	} else {
		ui_error("solve: %s: no partition into %d accelerator and up to %d CPU stages fits "
		         "(the hard memory limit, or ops no device may hold; proven by the exact "
		         "DP)",
		         g->source, set.k, set.cpus);
		status = UI_EXIT_INFEASIBLE;
	}
	if (o->json) {
		json_t *root = json_pack("{s:s, s:s, s:i, s:i, s:I, s:o, s:o, s:b, s:b, s:I, s:f}",
		                         "graph", g->name, "method", method, "k", set.k, "cpus",
		                         set.cpus, "seed", (json_int_t)p.seed, "bottleneck",
		                         feasible ? json_real(bn) : json_null(), "bottleneck_stage",
		                         feasible ? json_integer(at + 1) : json_null(), "feasible",
		                         (int)feasible, "optimal", 1, "evaluations",
		                         (json_int_t)info.evals, "seconds", info.seconds);
		json_object_set_new(root, "found_by", json_string("exact"));
		json_object_set_new(root, "proof", json_string("search"));
		json_object_set_new(root, "proven_by", json_string("exact DP"));
		json_object_set_new(root, "optimal_within", feasible ? json_real(0) : json_null());
		json_object_set_new(root, "lower_bound",
		                    feasible ? json_real(info.optimum) : json_null());
		json_object_set_new(root, "gap", feasible ? json_real(0) : json_null());
		json_object_set_new(root, "proof_seconds", json_real(0));
		json_object_set_new(root, "partition",
		                    feasible && o->output ? sc_json_text(o->output) : json_null());
		json_object_set_new(root, "pins", json_array());
		json_object_set_new(root, "devices",
		                    feasible ? devices_json(cpu, K) : json_array());
		json_object_set_new(root, "stages", feasible ? sc_report_stages(c) : json_array());
		ui_json_costs(root, g);
		if (!ui_print_json(root))
			status = UI_EXIT_INPUT;
		goto out;
	}
	if (!feasible)
		goto out;
	ui_print_line("%s, k %d, cpus %d, method %s, seed %llu", g->name, set.k, set.cpus, method,
	              (unsigned long long)p.seed);
	ui_print_stage_table(c, stdout);
	if (g->time_unit)
		printf("times in %s\n", g->time_unit);
	ui_print_costs(g);
	char b[32];
	printf("bottleneck %s (stage %d), proven optimal   %ld evaluations in %.2f s\n",
	       ui_num(bn, b, sizeof b), at + 1, info.evals, info.seconds);
	ui_print_devices(c, stdout);
	if (o->output)
		printf("partition written to %s\n", o->output);
out:
	sc_costs_free(c);
	free(stage);
	free(cpu);
	return status;
}
