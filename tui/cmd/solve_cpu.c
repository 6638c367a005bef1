/*
 * solve_cpu.c - `stagecut solve --cpus L` (issue 29): any method with CPU
 * stages beside the k accelerator stages.  Every search places them
 * (solvers/search.h): the slicing methods and BRKGA choose each stage's
 * device with the split, `exact` (and `best` when its ideals fit) runs the
 * exact DP with a CPU dimension, and refinement keeps the devices, from a
 * search's partition or from --partition (a file with a "devices" array).
 * The report is solve's with a device per stage and the devices line.
 *
 * The proof: the exact DP proves its result optimal; a heuristic's result
 * is proven only when it equals a proven lower bound, the simple bound
 * with CPU stages (cpu_lower_bound), and is otherwise reported with that
 * bound and its gap (`bounds --cpus` climbs the whole ladder).  What does not take CPU
 * stages yet (pins, the exact MIP) is refused by name rather than run
 * without the CPUs.
 */
#define _POSIX_C_SOURCE 200809L
#include "solve_cpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/cost.h"
#include "core/formats/partition_file.h"
#include "core/parse.h"
#include "core/partition.h"
#include "core/report.h"
#include "solve_proof.h"
#include "solvers/search.h"
#include "solvers/simple.h"

/* The options solve takes that do not place CPU stages yet: false after a
 * message. */
static bool refuse_unsupported(const ui_opts *o)
{
	const char *what = o->npins ? "--pin" : NULL;
	if (what) {
		ui_error("solve: --cpus: %s does not take CPU stages yet", what);
		return false;
	}
	return true;
}

/* A lower bound on the objective with CPU stages that proves the
 * search's result optimal when it reaches it, and in *by what proved it:
 * the simple bound with CPU stages (solvers/simple.h, the ladder's first
 * rung: a fractional split of the work over k accelerators and L CPUs),
 * instant.  The MIP rungs are bounds' (--cpus), not solve's: they take
 * seconds to minutes.  NAN: no bound (out of memory). */
static double cpu_lower_bound(const sc_graph *g, const sc_settings *set, const char **by)
{
	double lb = NAN;
	sc_error err;
	*by = NULL;
	if (sc_bound_simple_cpus(g, sc_stages_useful(g, set->k), set->cpus, &lb, &err) != SC_OK ||
	    !isfinite(lb) || lb <= 0)
		return NAN;
	*by = "simple";
	return lb;
}

/* --partition with CPU stages: the file's stages in order (its devices,
 * all accelerators without a "devices" array), then, when it has fewer
 * than the k + L asked for, empty accelerator and CPU stages after them.
 * Fills start and start_cpu (k + L flags).  False after a message (*status
 * set). */
static bool load_start(const ui_opts *o, const sc_graph *g, const sc_settings *set, int *start,
                       bool *start_cpu, int *status)
{
	int kf = 0;
	bool *cpu = NULL;
	sc_error err;
	sc_error_clear(&err);
	sc_status st = sc_part_load_devices(o->partition, g, 0, &kf, start, &cpu, NULL, &err);
	if (st != SC_OK) {
		ui_error("%s", err.msg);
		*status = ui_exit_status(st);
		free(cpu);
		return false;
	}
	int ncpu = 0;
	for (int s = 0; cpu && s < kf; s++)
		ncpu += cpu[s];
	if (kf - ncpu > set->k || ncpu > set->cpus) {
		ui_error("solve: %s: the partition has %d accelerator and %d CPU stages, more than "
		         "-k %d --cpus %d allow",
		         o->partition, kf - ncpu, ncpu, set->k, set->cpus);
		*status = UI_EXIT_INPUT;
		free(cpu);
		return false;
	}
	int at = 0;
	for (int s = 0; s < kf; s++)
		start_cpu[at++] = cpu && cpu[s];
	for (int s = kf - ncpu; s < set->k; s++)
		start_cpu[at++] = false;
	for (int s = ncpu; s < set->cpus; s++)
		start_cpu[at++] = true;
	free(cpu);
	return true;
}

/* What one run found and proved. */
typedef struct cpu_run {
	double best;  /* the objective, INFINITY when nothing fits */
	bool optimal; /* proven (by the exact DP), or that nothing fits */
	double lower; /* the lower bound proven, NAN when none */
	ui_proof_status proof;
	const char *by; /* what proved it, or NULL */
	sc_progress pr;
} cpu_run;

/* Runs the search; false after a message (*status set). */
static bool run_search(const sc_graph *g, const sc_settings *set, const sc_search_params *p,
                       int *stage, bool *cpu, cpu_run *r, int *status)
{
	sc_error err;
	sc_error_clear(&err);
	sc_search *s = sc_search_new(g, set, p, &err);
	if (!s) {
		ui_error("solve: %s: %s", g->source, err.msg);
		*status = UI_EXIT_INPUT;
		return false;
	}
	bool tty = isatty(STDERR_FILENO);
	double last = -1;
	ui_interrupts saved;
	ui_catch_interrupts(&saved);
	while (sc_search_step(s))
		ui_search_progress(s, tty, &last);
	ui_search_progress(s, tty, &last);
	if (tty)
		fputc('\n', stderr);
	ui_release_interrupts(&saved);
	if (sc_search_error(s)) {
		ui_error("solve: %s: %s", g->source, sc_search_error(s)->msg);
		*status = UI_EXIT_INPUT;
		sc_search_free(s);
		return false;
	}
	sc_search_progress(s, &r->pr);
	r->best = sc_search_result_devices(s, stage, cpu, &r->optimal);
	r->lower = r->optimal && isfinite(r->best) ? r->best : NAN;
	r->proof = r->optimal ? UI_PROOF_SEARCH : isfinite(r->best) ? UI_PROOF_OFF : UI_PROOF_NONE;
	r->by = r->optimal ? "exact DP" : NULL;
	sc_search_free(s);
	return true;
}

int ui_solve_cpus(const ui_opts *o, const sc_graph *g, double deadline)
{
	if (!refuse_unsupported(o))
		return UI_EXIT_INPUT;
	sc_settings set = g->settings;
	int K = set.k + set.cpus, status = UI_EXIT_OK;
	sc_search_params p;
	ui_search_params(o, &p);
	if (o->time_limit > 0)
		p.time_limit = fmax(0.05, deadline - sc_clock_now());
	p.interrupted = ui_interrupted; /* ^C holds inside one evaluation too */
	int *stage = sc_part_new(g), *start = o->partition ? sc_part_new(g) : NULL;
	bool *cpu = calloc((size_t)K, sizeof *cpu);
	bool *start_cpu = o->partition ? calloc((size_t)K, sizeof *start_cpu) : NULL;
	sc_costs *c = NULL;
	sc_error err;
	sc_error_clear(&err);
	if (!stage || !cpu || (o->partition && (!start || !start_cpu))) {
		ui_error("out of memory");
		status = UI_EXIT_INPUT;
		goto out;
	}
	if (o->partition) {
		if (!load_start(o, g, &set, start, start_cpu, &status))
			goto out;
		p.start = start;
		p.start_cpu = start_cpu;
		if (!o->method)
			p.method = "refine";
	}
	const char *method = p.method ? p.method : "best";
	cpu_run r = {0};
	if (!run_search(g, &set, &p, stage, cpu, &r, &status))
		goto out;
	bool feasible = isfinite(r.best);
	int at = 0;
	double bn = NAN, objective = NAN;
	if (feasible) {
		sc_settings cs = set;
		cs.k = K;
		c = sc_costs_new(g, &cs, &err);
		if (!c) {
			ui_error("%s", err.msg);
			status = UI_EXIT_INPUT;
			goto out;
		}
		sc_costs_set_devices(c, cpu);
		sc_costs_eval(c, stage);
		bn = sc_costs_bottleneck(c, &at);
		objective = sc_costs_objective(c);
		if (!r.optimal && !o->no_proof && !ui_interrupted()) {
			/* a heuristic's result is proven when a lower bound reaches it */
			const char *by;
			double lb = cpu_lower_bound(g, &set, &by);
			if (isfinite(lb) && lb >= objective * (1 - 1e-9)) {
				r.optimal = true;
				r.proof = UI_PROOF_PROVEN;
				r.by = by;
			}
			if (isfinite(lb))
				r.lower = lb;
			if (!r.optimal)
				r.proof = isfinite(lb) ? UI_PROOF_BOUND : UI_PROOF_NO_BOUND;
		}
		double left = deadline > 0 ? deadline - sc_clock_now() : UI_PROOF_SECONDS;
		if (!r.optimal && o->proof && !ui_interrupted() && left >= UI_PROOF_MIN_SECONDS) {
			/* --proof: the exact MIP with CPU stages (ladder.h) */
			ui_proof pf;
			ui_proof_run_devices(g, &set, stage, cpu, objective, left,
			                     isatty(STDERR_FILENO), &pf);
			if (pf.status == UI_PROOF_FAILED)
				ui_error("solve: %s: the exact MIP failed (%s); the partition is "
				         "unproven",
				         g->source, pf.message);
			if (pf.improved) {
				sc_costs_set_devices(c, cpu);
				sc_costs_eval(c, stage);
				bn = sc_costs_bottleneck(c, &at);
				objective = sc_costs_objective(c);
			}
			if (isfinite(pf.lower) && !(pf.lower <= r.lower))
				r.lower = pf.lower;
			if (pf.status != UI_PROOF_FAILED)
				r.proof = pf.status;
			r.optimal = pf.status == UI_PROOF_PROVEN;
			if (r.optimal)
				r.by = pf.by;
		}
		if (ui_interrupted() && !r.optimal)
			r.proof = UI_PROOF_INTERRUPTED;
		if (o->output &&
		    sc_part_write_devices(o->output, g, stage, K, cpu, c, &err) != SC_OK) {
			ui_error("%s", err.msg);
			status = UI_EXIT_INPUT;
			goto out;
		}
	} else if (r.optimal) {
		ui_error("solve: %s: no partition into %d accelerator and up to %d CPU stages fits "
		         "(the hard memory limit, or ops no device may hold; proven by the exact "
		         "DP)",
		         g->source, set.k, set.cpus);
		status = UI_EXIT_INFEASIBLE;
	} else {
		ui_error(
		        "solve: %s: the search found no partition into %d accelerator and up to %d "
		        "CPU stages that fits, and none is proven impossible; try -m exact or a "
		        "longer --time",
		        g->source, set.k, set.cpus);
		status = UI_EXIT_UNDECIDED;
	}
	double gap = feasible && r.optimal     ? 0
	             : feasible && r.lower > 0 ? fmax(0, objective / r.lower - 1)
	                                       : NAN;
	if (o->json) {
		json_t *root = json_pack("{s:s, s:s, s:i, s:i, s:I, s:o, s:o, s:b, s:b, s:I, s:f}",
		                         "graph", g->name, "method", method, "k", set.k, "cpus",
		                         set.cpus, "seed", (json_int_t)p.seed, "bottleneck",
		                         feasible ? json_real(bn) : json_null(), "bottleneck_stage",
		                         feasible ? json_integer(at + 1) : json_null(), "feasible",
		                         (int)feasible, "optimal", (int)r.optimal, "evaluations",
		                         (json_int_t)r.pr.evals, "seconds", r.pr.elapsed);
		json_object_set_new(root, "found_by", json_string(method));
		json_object_set_new(root, "proof", json_string(ui_proof_status_name(r.proof)));
		json_object_set_new(root, "proven_by", r.by ? json_string(r.by) : json_null());
		json_object_set_new(root, "optimal_within",
		                    r.optimal && feasible ? json_real(0) : json_null());
		json_object_set_new(root, "lower_bound",
		                    isfinite(r.lower) ? json_real(r.lower) : json_null());
		json_object_set_new(root, "gap", isfinite(gap) ? json_real(gap) : json_null());
		json_object_set_new(root, "proof_seconds", json_real(0));
		json_object_set_new(root, "partition",
		                    feasible && o->output ? sc_json_text(o->output) : json_null());
		json_object_set_new(root, "pins", json_array());
		json_object_set_new(root, "devices",
		                    feasible ? sc_report_devices(cpu, K) : json_array());
		json_object_set_new(root, "stages", feasible ? sc_report_stages(c) : json_array());
		if (feasible && sc_graph_is_training(g)) {
			json_object_set_new(root, "objective", json_real(objective));
			json_object_set_new(root, "training", sc_report_objective(c));
		}
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
	printf("bottleneck %s (stage %d)%s   %ld evaluations in %.2f s\n", ui_num(bn, b, sizeof b),
	       at + 1, r.optimal ? ", proven optimal" : "", r.pr.evals, r.pr.elapsed);
	ui_print_objective(c, "", stdout);
	if (r.proof == UI_PROOF_BOUND)
		printf("not proven: the simple bound with CPU stages is %s, gap %.2f%% (bounds "
		       "--cpus climbs the ladder; -m exact proves its result)\n",
		       ui_num(r.lower, b, sizeof b), 100 * gap);
	else if (r.proof == UI_PROOF_NO_BOUND)
		printf("not proven: no lower bound (-m exact proves its result)\n");
	else if (r.proof == UI_PROOF_PROVEN)
		printf("proven optimal by the simple bound with CPU stages\n");
	ui_print_devices(c, stdout);
	if (o->output)
		printf("partition written to %s\n", o->output);
	if (ui_interrupted()) {
		ui_error("solve: interrupted; the best partition found so far is above");
		status = 130;
	}
out:
	sc_costs_free(c);
	free(stage);
	free(start);
	free(cpu);
	free(start_cpu);
	return status;
}
