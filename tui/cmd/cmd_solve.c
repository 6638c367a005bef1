/*
 * cmd_solve.c - `stagecut solve FILE -k K`: run a search, then, when it
 * proved nothing, ask the exact MIP for a certificate (solve_proof.h) in
 * the time left, print the stage table (or JSON), write the partition file
 * with -o.  Progress is drawn on stderr, on one line, only when stderr is a
 * terminal.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui/ui.h"
#include "core/clock.h"
#include "core/cost.h"
#include "core/formats/partition_file.h"
#include "core/modules.h"
#include "core/parse.h"
#include "core/partition.h"
#include "core/report.h"
#include "solvers/search.h"
#include "solvers/ladder.h"
#include "solve_cpu.h"
#include "solve_proof.h"

/* --pin OP=STAGE, each: op -> stage - 1 into pin (every other op -1).
 * False after a message naming the option and what is wrong. */
static bool read_pins(const ui_opts *o, const sc_graph *g, int k, int *pin)
{
	for (int v = 0; v < g->n; v++)
		pin[v] = -1;
	for (int i = 0; i < o->npins; i++) {
		const char *a = o->pins[i], *eq = strrchr(a, '=');
		char name[4096];
		size_t len = (size_t)(eq - a);
		char *end;
		long st = strtol(eq + 1, &end, 10);
		if (!eq[1] || *end || st < 1 || st > k) {
			ui_error("solve: --pin '%s': the stage must be an integer from 1 to %d", a,
			         k);
			return false;
		}
		if (len == 0 || len >= sizeof name) {
			ui_error("solve: --pin '%s': expected OP=STAGE", a);
			return false;
		}
		memcpy(name, a, len);
		name[len] = '\0';
		int v = sc_graph_find(g, name);
		if (v < 0) {
			ui_error("solve: --pin '%s': %s has no op named '%s'", a, g->source, name);
			return false;
		}
		if (pin[v] >= 0 && pin[v] != st - 1) {
			ui_error("solve: --pin '%s': '%s' is pinned to stage %d already", a, name,
			         pin[v] + 1);
			return false;
		}
		pin[v] = (int)st - 1;
	}
	return true;
}

/* --align: the aligned problem's description and the unconstrained
 * optimum it is compared with. */
typedef struct align_run {
	int depth;
	int units;         /* distinct alignment units (modules) the ops fall in */
	double free_best;  /* the objective without alignment (the better of its
	                    * search and the aligned partition) */
	bool free_optimal; /* free_best is proven optimal (the exact DP) */
	const char *free_method;
	double seconds;
} align_run;

/* Replaces *g by its copy aligned at o->align (core/modules.h), keeping
 * the graph as loaded in *orig.  False after a message. */
static bool align_graph(const ui_opts *o, sc_graph **g, sc_graph **orig, align_run *al)
{
	sc_error err;
	sc_error_clear(&err);
	sc_modules *m = sc_modules_new(*g, &err);
	sc_graph *a = m ? sc_modules_aligned_graph(*g, m, o->align, &err) : NULL;
	if (!a) {
		ui_error("solve: %s: %s", (*g)->source, err.msg);
		sc_modules_free(m);
		return false;
	}
	al->depth = o->align;
	char *seen = calloc((size_t)m->n, 1);
	for (int v = 0; seen && v < (*g)->n; v++) {
		int u = sc_modules_align_unit(m, *g, v, o->align);
		if (u >= 0 && !seen[u]) {
			seen[u] = 1;
			al->units++;
		}
	}
	free(seen);
	sc_modules_free(m);
	*orig = *g;
	*g = a;
	return true;
}

/* Solves the graph as loaded, without alignment, with the same method
 * (best for refine) in what -t leaves; aligned is the aligned result, a
 * partition of the same graph too. */
static void solve_free(const ui_opts *o, const sc_graph *orig, const sc_settings *set,
                       double deadline, double aligned, align_run *al)
{
	sc_search_params p;
	ui_search_params(o, &p);
	if (!p.method || strcmp(p.method, "refine") == 0)
		p.method = "best";
	p.start = NULL;
	p.interrupted = ui_interrupted;
	if (deadline > 0)
		p.time_limit = fmax(0.05, deadline - sc_clock_now());
	al->free_method = p.method;
	al->free_best = aligned;
	al->free_optimal = false;
	sc_error err;
	sc_search *s = sc_search_new(orig, set, &p, &err);
	if (!s || sc_search_run(s, &err) != SC_OK) {
		sc_search_free(s);
		return;
	}
	bool optimal = false;
	double v = sc_search_result(s, NULL, &optimal);
	sc_progress pr;
	sc_search_progress(s, &pr);
	al->seconds = pr.elapsed;
	if (v <= aligned) {
		al->free_best = v;
		al->free_optimal = optimal && isfinite(v);
	}
	sc_search_free(s);
}

int ui_cmd_solve(const ui_opts *o)
{
	/* -t bounds the whole run, loading included */
	double deadline = ui_deadline(o);
	int status = UI_EXIT_OK;
	sc_graph *g = ui_load(o->pos[0], o, &status);
	if (!g)
		return status;
	sc_settings set = g->settings;
	sc_graph *orig = NULL; /* --align: the graph as loaded (g is its aligned copy) */
	align_run al = {0};
	int *stage = NULL, *start = NULL, *pin = NULL;
	sc_search *s = NULL;
	sc_costs *c = NULL;
	ui_interrupts saved;
	bool caught = false;
	sc_error err;
	sc_error_clear(&err);
	if (set.k < 1) {
		ui_error("solve: %s does not set k; give -k K", g->source);
		status = UI_EXIT_INPUT;
		goto out;
	}
	if (o->align > 0 && set.cpus > 0) {
		ui_error("solve: --align and --cpus cannot be used together yet (the aligned "
		         "search has no CPU stages)");
		status = UI_EXIT_INPUT;
		goto out;
	}
	if (set.cpus > 0) {
		/* CPU stages (issue 29): every method places them (solve_cpu.c) */
		status = ui_solve_cpus(o, g, deadline);
		goto out;
	}
	if (o->align > 0 && !align_graph(o, &g, &orig, &al)) {
		status = UI_EXIT_INPUT;
		goto out;
	}
	sc_search_params p;
	ui_search_params(o, &p);
	/* with --align, half of what -t leaves is for the unaligned solve */
	if (o->time_limit > 0)
		p.time_limit = fmax(0.05, (deadline - sc_clock_now()) / (orig ? 2 : 1));
	p.interrupted = ui_interrupted; /* ^C holds inside one evaluation too */
	stage = sc_part_new(g);
	start = o->partition ? sc_part_new(g) : NULL;
	if (!stage || (o->partition && !start)) {
		ui_error("out of memory");
		status = UI_EXIT_INPUT;
		goto out;
	}
	if (o->npins > 0) {
		pin = sc_part_new(g);
		if (!pin) {
			ui_error("out of memory");
			status = UI_EXIT_INPUT;
			goto out;
		}
		if (!read_pins(o, g, set.k, pin)) {
			status = UI_EXIT_INPUT;
			goto out;
		}
		set.pin = pin;
	}
	if (o->partition) {
		int k2;
		sc_status st = sc_part_load(o->partition, g, set.k, &k2, start, NULL, &err);
		if (st != SC_OK) {
			ui_error("%s", err.msg);
			status = ui_exit_status(st);
			goto out;
		}
		p.start = start;
		if (!o->method)
			p.method = "refine";
	}
	s = sc_search_new(g, &set, &p, &err);
	if (!s) {
		ui_error("solve: %s: %s", g->source, err.msg);
		status = UI_EXIT_INPUT;
		goto out;
	}
	bool tty = isatty(STDERR_FILENO);
	double last = -1;
	/* ^C stops the search; the best partition so far is reported */
	ui_catch_interrupts(&saved);
	caught = true;
	/* the search polls ui_interrupted itself (p.interrupted) and ends
	 * with the best so far, or the greedy split before any */
	while (sc_search_step(s))
		ui_search_progress(s, tty, &last);
	ui_search_progress(s, tty, &last);
	if (tty)
		fputc('\n', stderr);
	if (sc_search_error(s)) {
		ui_error("solve: %s: %s", g->source, sc_search_error(s)->msg);
		status = UI_EXIT_INPUT;
		goto out;
	}
	sc_progress pr;
	sc_search_progress(s, &pr);
	bool optimal;
	double best = sc_search_result(s, stage, &optimal);
	bool feasible = isfinite(best);
	int at = 0;
	double bn = NAN;
	ui_proof pf = {.status = optimal ? UI_PROOF_SEARCH : UI_PROOF_NONE,
	               .within = optimal ? 0 : NAN,
	               .lower = optimal ? best : NAN};
	/* the exact MIP's time: what --time leaves (UI_PROOF_SECONDS without) */
	double left = deadline > 0 ? deadline - sc_clock_now() : UI_PROOF_SECONDS;
	bool decided = false; /* the exact MIP ran on an empty search (below) */
	if (!feasible && !optimal && !o->no_proof && !ui_interrupted()) {
		/* the search found nothing that fits, which proves nothing (issue
		 * 31): the exact MIP decides, finding a partition or proving
		 * that none fits, in what --time leaves */
		if (left >= UI_PROOF_MIN_SECONDS) {
			ui_proof_run(g, &set, stage, INFINITY, left, tty, &pf);
			decided = true;
			if (pf.improved) {
				feasible = true;
				pf.searched = INFINITY;
			} else if (pf.status == UI_PROOF_PROVEN) {
				optimal = true; /* that nothing fits */
			}
		}
	}
	if (feasible) {
		c = sc_costs_new(g, &set, &err);
		if (!c) {
			ui_error("%s", err.msg);
			status = UI_EXIT_INPUT;
			goto out;
		}
		sc_costs_eval(c, stage);
		double objective = sc_costs_objective(c);
		if (!decided)
			pf.upper = pf.searched = objective;
		/* by default after best only: a method named on purpose (kahn,
		 * brkga, ...) gives its own result, and --proof asks for more */
		bool best_method = !o->method || strcmp(o->method, "best") == 0;
		if (decided)
			; /* the exact MIP found this partition: its verdict stands */
		else if (optimal)
			pf.by = "exact DP";
		else if (o->no_proof || !(best_method || o->proof))
			pf.status = UI_PROOF_OFF;
		else if (ui_interrupted())
			pf.status = UI_PROOF_INTERRUPTED;
		else if (left < UI_PROOF_MIN_SECONDS)
			pf.status = UI_PROOF_NO_TIME;
		else
			ui_proof_run(g, &set, stage, objective, left, tty, &pf);
		if (pf.status == UI_PROOF_FAILED)
			ui_error("solve: %s: the exact MIP failed (%s); the partition is unproven",
			         g->source, pf.message);
		if (pf.improved)
			sc_costs_eval(c, stage);
		optimal = pf.status == UI_PROOF_SEARCH || pf.status == UI_PROOF_PROVEN;
		best = sc_costs_objective(c);
		bn = sc_costs_bottleneck(c, &at);
		if (o->output && sc_part_write(o->output, g, stage, set.k, c, &err) != SC_OK) {
			ui_error("%s", err.msg);
			status = UI_EXIT_INPUT;
			goto out;
		}
	}
	if (orig && feasible && !ui_interrupted())
		solve_free(o, orig, &set, deadline, best, &al);
	/* the price of alignment: aligned / unaligned - 1 */
	double align_gap = orig && feasible && al.free_best > 0 ? best / al.free_best - 1
	                   : orig && feasible                   ? 0
	                                                        : NAN;
	if (!feasible && optimal) {
		/* not bad input: the answer is that nothing fits, proven */
		ui_error("solve: %s: no partition into %d stages keeps every stage within the hard "
		         "memory limit (proven by %s)",
		         g->source, set.k, pf.status == UI_PROOF_PROVEN ? pf.by : "the exact DP");
		status = UI_EXIT_INFEASIBLE;
	} else if (!feasible) {
		/* found nothing, proved nothing: not the graph's answer */
		ui_error("solve: %s: the search found no partition into %d stages within the hard "
		         "memory limit, and none is proven impossible (%s); try -m exact or a "
		         "longer --time",
		         g->source, set.k,
		         decided       ? "the exact MIP ran out of time"
		         : o->no_proof ? "--no-proof"
		                       : "no time was left for the exact MIP");
		status = UI_EXIT_UNDECIDED;
	}
	/* the certified gap: objective / lower bound - 1 */
	double gap = feasible && pf.lower > 0 ? fmax(0, best / pf.lower - 1)
	             : feasible && best == 0  ? 0
	                                      : NAN;
	if (o->json) {
		/* one shape whatever the outcome: unknowns are null */
		json_t *root = json_pack("{s:s, s:s, s:i, s:I, s:o, s:o, s:b, s:b, s:I, s:f}",
		                         "graph", g->name, "method", p.method, "k", set.k, "seed",
		                         (json_int_t)p.seed, "bottleneck",
		                         feasible ? json_real(bn) : json_null(), "bottleneck_stage",
		                         feasible ? json_integer(at + 1) : json_null(), "feasible",
		                         (int)feasible, "optimal", (int)optimal, "evaluations",
		                         (json_int_t)pr.evals, "seconds", pr.elapsed);
		json_object_set_new(root, "found_by",
		                    json_string(pf.improved ? "exact MIP" : p.method));
		json_object_set_new(root, "proof", json_string(ui_proof_status_name(pf.status)));
		/* optimal, or (not feasible) that nothing fits: who proved it */
		const char *by = pf.status == UI_PROOF_PROVEN || feasible ? pf.by : "exact DP";
		json_object_set_new(root, "proven_by",
		                    optimal && by ? json_string(by) : json_null());
		json_object_set_new(root, "optimal_within",
		                    optimal && feasible ? json_real(pf.within) : json_null());
		json_object_set_new(root, "lower_bound",
		                    isfinite(pf.lower) ? json_real(pf.lower) : json_null());
		json_object_set_new(root, "gap", isfinite(gap) ? json_real(gap) : json_null());
		json_object_set_new(root, "proof_seconds", json_real(pf.seconds));
		json_object_set_new(root, "partition",
		                    feasible && o->output ? sc_json_text(o->output) : json_null());
		json_t *pins = json_array();
		for (int v = 0; pin && v < g->n; v++)
			if (pin[v] >= 0)
				json_array_append_new(pins,
				                      json_pack("{s:s, s:i}", "op", g->op_name[v],
				                                "stage", pin[v] + 1));
		json_object_set_new(root, "pins", pins);
		if (orig)
			json_object_set_new(
			        root, "align",
			        json_pack("{s:i, s:i, s:o, s:b, s:s, s:o, s:b, s:f}", "depth",
			                  al.depth, "modules", al.units, "unaligned",
			                  feasible ? json_real(al.free_best) : json_null(),
			                  "unaligned_optimal", (int)al.free_optimal,
			                  "unaligned_method",
			                  al.free_method ? al.free_method : p.method, "gap",
			                  isfinite(align_gap) ? json_real(align_gap) : json_null(),
			                  "gap_proven", (int)(optimal && al.free_optimal),
			                  "unaligned_seconds", al.seconds));
		json_object_set_new(root, "stages", feasible ? sc_report_stages(c) : json_array());
		/* a training graph: the objective under the schedule, its parts */
		if (feasible && sc_graph_is_training(g)) {
			json_object_set_new(root, "objective", json_real(best));
			json_object_set_new(root, "training", sc_report_objective(c));
		}
		ui_json_costs(root, g);
		if (!ui_print_json(root))
			status = UI_EXIT_INPUT;
		goto out;
	}
	if (!feasible)
		goto out;
	ui_print_line("%s, k %d, method %s, seed %llu", g->name, set.k, p.method,
	              (unsigned long long)p.seed); /* the file's name, escaped */
	ui_print_stage_table(c, stdout);
	char b[32], b2[32], proven[64] = "";
	/* under GPipe the proof is of the GPipe objective, on its own line */
	bool gpipe = sc_graph_is_training(g) && set.schedule == SC_SCHEDULE_GPIPE;
	if (pf.status == UI_PROOF_SEARCH)
		snprintf(proven, sizeof proven, ", proven optimal");
	else if (optimal)
		snprintf(proven, sizeof proven, ", proven optimal (%s)", pf.by);
	if (g->time_unit)
		printf("times in %s\n", g->time_unit);
	ui_print_costs(g);
	if (pin)
		printf("%d op%s pinned (--pin): the result is the best with %s in place%s\n",
		       o->npins, o->npins == 1 ? "" : "s", o->npins == 1 ? "it" : "them",
		       optimal ? ", and its proof holds with them" : "");
	printf("bottleneck %s (stage %d)%s   %ld evaluations in %.2f s\n", ui_num(bn, b, sizeof b),
	       at + 1, gpipe ? "" : proven, pr.evals, pr.elapsed);
	ui_print_objective(c, gpipe ? proven : "", stdout);
	if (pf.improved && !isfinite(pf.searched))
		printf("the exact MIP found this partition (the search found none that fits)\n");
	else if (pf.improved)
		printf("the exact MIP found a better partition than %s's %s: %.2f%% lower\n",
		       p.method, ui_num(pf.searched, b2, sizeof b2),
		       100 * (pf.searched - best) / pf.searched);
	if (pf.status == UI_PROOF_PROVEN)
		printf("proof: %s%s%s in %.2f s\n", pf.by,
		       pf.within > 0 ? ", optimal within " SC_LADDER_REL_TOL_TEXT " relative" : "",
		       pf.improved ? " (its own partition)" : "", pf.seconds);
	else if (pf.status == UI_PROOF_TIME_LIMIT && isfinite(gap))
		printf("not proven: certified gap %.2f%% (objective / the exact MIP's lower bound "
		       "%s - 1) after %.2f s\n",
		       100 * gap, ui_num(pf.lower, b2, sizeof b2), pf.seconds);
	else if (pf.status == UI_PROOF_TIME_LIMIT)
		printf("not proven: the exact MIP proved no lower bound in %.2f s\n", pf.seconds);
	else if (pf.status == UI_PROOF_NO_TIME)
		printf("not proven: --time left no time for the exact MIP\n");
	if (orig) {
		printf("aligned at depth %d: every one of %d modules in one stage; without "
		       "alignment %s (%s)\n",
		       al.depth, al.units, ui_num(al.free_best, b2, sizeof b2),
		       al.free_optimal ? "proven optimal" : "the best found, not proven optimal");
		printf("alignment costs %.2f%% (%s)\n", 100 * align_gap,
		       optimal && al.free_optimal ? "proven: both optima"
		       : optimal                  ? "at most: the unaligned optimum may be lower"
		       : al.free_optimal          ? "at least: the aligned optimum may be lower"
		                                  : "neither side proven");
	}
	if (o->output)
		printf("partition written to %s\n", o->output);
	if (ui_interrupted()) {
		ui_error("solve: interrupted; the best partition found so far is above");
		status = 130;
	}
out:
	if (caught)
		ui_release_interrupts(&saved);
	sc_costs_free(c);
	sc_search_free(s);
	free(stage);
	free(start);
	free(pin);
	sc_graph_free(g);
	sc_graph_free(orig);
	return status;
}
