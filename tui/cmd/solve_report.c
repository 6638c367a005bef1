/*
 * solve_report.c - the steps both solve runs share (the search, the
 * costs, the write of -o) and the printers of their one report.  See
 * solve_report.h.
 *
 * The printers read only the report.  What differs with CPU stages is
 * said where it is printed (r->set.cpus > 0): the header names the CPUs,
 * the proof lines are the simple bound's, and the devices line follows;
 * --align and --pin add their lines only when they were given, which
 * --cpus refuses.
 */
#define _POSIX_C_SOURCE 200809L
#include "tui/cmd/solve_report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/formats/partition_file.h"
#include "core/parse.h"
#include "core/partition.h"
#include "core/report.h"
#include "solvers/ladder.h"

void ui_solve_report_init(ui_solve_report *r, const sc_graph *g)
{
	*r = (ui_solve_report){.g = g,
	                       .set = g->settings,
	                       .found = NAN,
	                       .bottleneck = NAN,
	                       .objective = NAN,
	                       .pf = {.status = UI_PROOF_NONE, .within = NAN, .lower = NAN},
	                       .gap = NAN,
	                       .al = {.gap = NAN}};
}

int ui_solve_stages(const ui_solve_report *r)
{
	return sc_settings_stages(&r->set);
}

bool ui_solve_devices(const ui_solve_report *r)
{
	return r->set.fleet || r->set.cpus > 0;
}

void ui_solve_report_fini(ui_solve_report *r)
{
	sc_costs_free(r->c);
	free(r->stage);
	free(r->kind);
	free(r->pin);
	sc_graph_free(r->aligned);
	*r = (ui_solve_report){.g = NULL};
}

/* ---- the steps ----------------------------------------------------------- */

int ui_solve_search(ui_solve_report *r, const sc_search_params *p, ui_interrupts *saved,
                    bool *caught)
{
	sc_error err;
	sc_error_clear(&err);
	/* ^C stops the search; the best partition so far is reported.  Caught
	 * before the search is made: `best` counts the ideals there, which
	 * takes minutes on a wide graph, and a signal then must not kill the
	 * command before it prints what it found (the greedy split) */
	ui_catch_interrupts(saved);
	*caught = true;
	sc_search *s = sc_search_new(r->g, &r->set, p, &err);
	if (!s) {
		ui_error("solve: %s: %s", r->g->source, err.msg);
		return UI_EXIT_INPUT;
	}
	bool tty = isatty(STDERR_FILENO);
	double last = -1;
	/* the search polls ui_interrupted itself (p->interrupted) and ends
	 * with the best so far, or the greedy split before any */
	while (sc_search_step(s))
		ui_search_progress(s, tty, &last);
	ui_search_progress(s, tty, &last);
	if (tty)
		fputc('\n', stderr);
	int status = UI_EXIT_OK;
	if (sc_search_error(s)) {
		ui_error("solve: %s: %s", r->g->source, sc_search_error(s)->msg);
		status = UI_EXIT_INPUT;
	} else {
		sc_search_progress(s, &r->pr);
		r->found = sc_search_result_kinds(s, r->stage, r->kind, &r->optimal);
		r->feasible = isfinite(r->found);
	}
	sc_search_free(s);
	return status;
}

int ui_solve_cost(ui_solve_report *r)
{
	if (!r->c) {
		sc_settings cs = r->set;
		cs.k = ui_solve_stages(r); /* with CPU stages, k + cpus stages */
		sc_error err;
		sc_error_clear(&err);
		r->c = sc_costs_new(r->g, &cs, &err);
		if (!r->c) {
			ui_error("%s", err.msg);
			return UI_EXIT_INPUT;
		}
	}
	if (r->kind)
		sc_costs_set_kinds(r->c, r->kind);
	sc_costs_eval(r->c, r->stage);
	r->bottleneck = sc_costs_bottleneck(r->c, &r->at);
	r->objective = sc_costs_objective(r->c);
	return UI_EXIT_OK;
}

/* ^C or SIGTERM while a partition file is made (sc_part_write_until). */
static bool write_stopped(void *ctx)
{
	(void)ctx;
	return ui_interrupted();
}

int ui_solve_write(ui_solve_report *r, const char *path)
{
	sc_error err;
	sc_error_clear(&err);
	sc_status st = sc_part_write_until(path, r->g, r->stage, ui_solve_stages(r), r->c,
	                                   write_stopped, NULL, &err);
	if (st == SC_ERR_LIMIT && ui_interrupted()) {
		/* the report still follows, then the signal's exit status */
		ui_error("solve: interrupted while writing %s; nothing written", path);
		return UI_EXIT_OK;
	}
	if (st != SC_OK) {
		ui_error("%s", err.msg);
		return UI_EXIT_INPUT;
	}
	r->written = path;
	return UI_EXIT_OK;
}

/* ---- JSON ---------------------------------------------------------------- */

static json_t *json_num(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

/* --pin's ops and their stages (empty without). */
static json_t *json_pins(const ui_solve_report *r)
{
	json_t *pins = json_array();
	for (int v = 0; r->pin && v < r->g->n; v++)
		if (r->pin[v] >= 0)
			json_array_append_new(pins, json_pack("{s:s, s:i}", "op", r->g->op_name[v],
			                                      "stage", r->pin[v] + 1));
	return pins;
}

/* --align's comparison with the unaligned optimum. */
static json_t *json_align(const ui_solve_report *r)
{
	const ui_solve_align *al = &r->al;
	bool ran = al->free_method != NULL;
	/* the unaligned problem: a partition fits (found), none fits (proven),
	 * or unknown */
	json_t *fits = ran && isfinite(al->free_best) ? json_true()
	               : ran && al->free_optimal      ? json_false()
	                                              : json_null();
	return json_pack("{s:i, s:i, s:o, s:o, s:b, s:s, s:o, s:b, s:f}", "depth", al->depth,
	                 "modules", al->units, "unaligned",
	                 ran && isfinite(al->free_best) ? json_real(al->free_best) : json_null(),
	                 "unaligned_feasible", fits, "unaligned_optimal",
	                 (int)(al->free_optimal && isfinite(al->free_best)), "unaligned_method",
	                 al->free_method ? al->free_method : r->method, "gap", json_num(al->gap),
	                 "gap_proven", (int)(r->feasible && r->optimal && al->free_optimal),
	                 "unaligned_seconds", al->seconds);
}

bool ui_solve_print_json(const ui_solve_report *r)
{
	const ui_proof *pf = &r->pf;
	bool feasible = r->feasible;
	json_t *root = json_pack("{s:s, s:s, s:i}", "graph", r->g->name, "method", r->method, "k",
	                         r->set.k);
	if (r->set.cpus > 0)
		json_object_set_new(root, "cpus", json_integer(r->set.cpus));
	if (r->set.fleet) {
		char spec[SC_KINDS_MAX * (SC_KIND_NAME + 8)];
		sc_fleet_format(r->set.fleet, spec, sizeof spec);
		json_object_set_new(root, "fleet", json_string(spec));
	}
	json_object_set_new(root, "seed", json_integer((json_int_t)r->seed));
	json_object_set_new(root, "bottleneck", feasible ? json_real(r->bottleneck) : json_null());
	json_object_set_new(root, "bottleneck_stage",
	                    feasible ? json_integer(r->at + 1) : json_null());
	json_object_set_new(root, "feasible", json_boolean(feasible));
	/* with pins or --align what is proven is of the constrained problem:
	 * its own object, "pinned" (the pins in place, and aligned with
	 * --align too) or "aligned"; of the free problem nothing is proven (a
	 * constrained optimum is no bound of it) */
	bool constrained = r->npins > 0 || r->aligned;
	json_t *proof = json_object();
	json_object_set_new(proof, "optimal", json_boolean(r->optimal));
	/* optimal, or (not feasible) that nothing fits: who proved it */
	json_object_set_new(proof, "proven_by",
	                    r->optimal && pf->by ? json_string(pf->by) : json_null());
	/* how exact the proof is, of a partition or that none fits */
	json_object_set_new(proof, "optimal_within",
	                    r->optimal ? json_real(isfinite(pf->within) ? pf->within : 0)
	                               : json_null());
	json_object_set_new(proof, "lower_bound", json_num(pf->lower));
	json_object_set_new(proof, "gap", json_num(r->gap));
	json_object_set_new(root, "optimal", constrained ? json_false() : json_boolean(r->optimal));
	json_object_set_new(root, "evaluations", json_integer((json_int_t)r->pr.evals));
	json_object_set_new(root, "seconds", json_real(r->pr.elapsed));
	json_object_set_new(root, "found_by", json_string(pf->improved ? "exact MIP" : r->method));
	json_object_set_new(root, "proof",
	                    json_string(constrained ? (r->npins > 0 ? "pinned" : "aligned")
	                                            : ui_proof_status_name(pf->status)));
	const char *keys[] = {"proven_by", "optimal_within", "lower_bound", "gap"};
	for (int i = 0; i < 4; i++)
		json_object_set(root, keys[i],
		                constrained ? json_null() : json_object_get(proof, keys[i]));
	json_object_set_new(root, "proof_seconds", json_real(pf->seconds));
	json_object_set_new(root, "partition", r->written ? sc_json_text(r->written) : json_null());
	json_object_set_new(root, "pins", json_pins(r));
	json_object_set_new(proof, "proof", json_string(ui_proof_status_name(pf->status)));
	if (r->npins > 0)
		json_object_set_new(root, "pinned", json_incref(proof));
	if (r->aligned)
		json_object_set_new(root, "align", json_align(r));
	if (r->aligned && r->npins == 0)
		json_object_set_new(root, "aligned", json_incref(proof));
	json_decref(proof);
	if (ui_solve_devices(r))
		json_object_set_new(root, "devices",
		                    feasible ? sc_report_kinds(r->c) : json_array());
	/* (a million stages take seconds: ^C stops it, and the printing says
	 * so) */
	bool stopped = false;
	json_t *stages = feasible ? sc_report_stages_until(r->c, write_stopped, NULL, &stopped)
	                          : json_array();
	json_object_set_new(root, "stages", stages ? stages : json_array());
	/* a training graph: the objective under the schedule, its parts */
	if (feasible && sc_graph_is_training(r->g)) {
		json_object_set_new(root, "objective", json_real(r->objective));
		json_object_set_new(root, "training", sc_report_objective(r->c));
	}
	ui_json_costs(root, r->g);
	if (stopped) {
		/* half a report is not one: nothing, and the signal's status */
		json_decref(root);
		ui_error("interrupted while making the JSON output; nothing printed");
		return true;
	}
	return ui_print_json(root);
}

/* ---- text ---------------------------------------------------------------- */

/* What the exact MIP did to the partition: found it, or a better one. */
static void print_found(const ui_solve_report *r)
{
	const ui_proof *pf = &r->pf;
	char b[32];
	if (pf->improved && !isfinite(pf->searched))
		printf("the exact MIP found this partition (the search found none that fits)\n");
	else if (pf->improved)
		printf("the exact MIP found a better partition than %s's %s: %.2f%% lower\n",
		       r->method, ui_num(pf->searched, b, sizeof b),
		       100 * (pf->searched - r->objective) / pf->searched);
}

/* The proof's line: on the accelerators alone the exact MIP's verdict,
 * with CPU stages the simple bound's or (--proof) the exact MIP's. */
static void print_proof(const ui_solve_report *r)
{
	const ui_proof *pf = &r->pf;
	bool cpus = ui_solve_devices(r);
	char b[32];
	switch (pf->status) {
	case UI_PROOF_PROVEN:
		if (cpus && strcmp(pf->by, sc_rung_label(SC_RUNG_SIMPLE)) == 0)
			printf("proven optimal by the simple bound %s\n",
			       r->set.fleet ? "with these devices" : "with CPU stages");
		else if (cpus) /* --proof */
			printf("proven optimal by the %s %s%s in %.2f s\n", pf->by,
			       r->set.fleet ? "with these devices" : "with CPU stages",
			       pf->within > 0 ? ", within " SC_LADDER_REL_TOL_TEXT " relative" : "",
			       pf->seconds);
		else
			printf("proof: %s%s%s in %.2f s\n", pf->by,
			       pf->within > 0 ? ", optimal within " SC_LADDER_REL_TOL_TEXT
			                        " relative"
			                      : "",
			       pf->improved ? " (its own partition)" : "", pf->seconds);
		break;
	case UI_PROOF_TIME_LIMIT:
		if (cpus && isfinite(r->gap))
			printf("not proven: certified gap %.2f%% (objective / lower bound %s - 1) "
			       "after %.2f s of the exact MIP with CPU stages\n",
			       100 * r->gap, ui_num(pf->lower, b, sizeof b), pf->seconds);
		else if (cpus)
			printf("not proven: the exact MIP with CPU stages proved no lower bound in "
			       "%.2f s\n",
			       pf->seconds);
		else if (isfinite(r->gap))
			printf("not proven: certified gap %.2f%% (objective / the exact MIP's "
			       "lower "
			       "bound %s - 1) after %.2f s\n",
			       100 * r->gap, ui_num(pf->lower, b, sizeof b), pf->seconds);
		else
			printf("not proven: the exact MIP proved no lower bound in %.2f s\n",
			       pf->seconds);
		break;
	case UI_PROOF_NO_TIME: printf("not proven: --time left no time for the exact MIP\n"); break;
	case UI_PROOF_BOUND:
		if (r->set.fleet && pf->by && strcmp(pf->by, "exact DP") == 0)
			printf("not proven: the exact DP with each stage's io over its own link (a "
			       "lower bound when the links differ) gives %s, gap %.2f%%\n",
			       ui_num(pf->lower, b, sizeof b), 100 * r->gap);
		else if (r->set.fleet)
			printf("not proven: the simple bound with these devices is %s, gap %.2f%% "
			       "(-m "
			       "exact proves its result)\n",
			       ui_num(pf->lower, b, sizeof b), 100 * r->gap);
		else
			printf("not proven: the simple bound with CPU stages is %s, gap %.2f%% "
			       "(bounds "
			       "--cpus climbs the ladder; -m exact proves its result)\n",
			       ui_num(pf->lower, b, sizeof b), 100 * r->gap);
		break;
	case UI_PROOF_NO_BOUND:
		printf("not proven: no lower bound (-m exact proves its result)\n");
		break;
	default: break;
	}
}

/* --align's two lines: the unaligned optimum and the price of alignment. */
static void print_align(const ui_solve_report *r)
{
	const ui_solve_align *al = &r->al;
	char b[32];
	printf("aligned at depth %d: every one of %d layers in one stage; without "
	       "alignment %s (%s)\n",
	       al->depth, al->units, ui_num(al->free_best, b, sizeof b),
	       al->free_optimal ? "proven optimal" : "the best found, not proven optimal");
	printf("alignment costs %.2f%% (%s)\n", 100 * al->gap,
	       r->optimal && al->free_optimal ? "proven: both optima"
	       : r->optimal                   ? "at most: the unaligned optimum may be lower"
	       : al->free_optimal             ? "at least: the aligned optimum may be lower"
	                                      : "neither side proven");
}

void ui_solve_print_text(const ui_solve_report *r)
{
	const sc_graph *g = r->g;
	const ui_proof *pf = &r->pf;
	bool cpus = ui_solve_devices(r);
	/* the file's name, escaped */
	char spec[SC_KINDS_MAX * (SC_KIND_NAME + 8)];
	if (r->set.fleet)
		sc_fleet_format(r->set.fleet, spec, sizeof spec);
	if (r->set.fleet)
		ui_print_line("%s, devices %s, method %s, seed %llu", g->name, spec, r->method,
		              r->seed);
	else if (cpus)
		ui_print_line("%s, k %d, cpus %d, method %s, seed %llu", g->name, r->set.k,
		              r->set.cpus, r->method, r->seed);
	else
		ui_print_line("%s, k %d, method %s, seed %llu", g->name, r->set.k, r->method,
		              r->seed);
	ui_print_stage_table(r->c, stdout);
	char b[32], proven[64] = "";
	/* under GPipe the proof is of the GPipe objective, on its own line */
	bool gpipe = sc_graph_is_training(g) && r->set.schedule == SC_SCHEDULE_GPIPE;
	if (pf->status == UI_PROOF_SEARCH || (cpus && r->optimal))
		snprintf(proven, sizeof proven, ", proven optimal");
	else if (r->optimal)
		snprintf(proven, sizeof proven, ", proven optimal (%s)", pf->by);
	if (g->time_unit)
		printf("times in %s\n", g->time_unit);
	ui_print_costs(g);
	if (r->pin)
		printf("%d op%s pinned (--pin): the result is the best with %s in place%s\n",
		       r->npins, r->npins == 1 ? "" : "s", r->npins == 1 ? "it" : "them",
		       r->optimal ? ", and its proof holds with them" : "");
	printf("bottleneck %s (stage %d)%s   %ld evaluations in %.2f s\n",
	       ui_num(r->bottleneck, b, sizeof b), r->at + 1, gpipe ? "" : proven, r->pr.evals,
	       r->pr.elapsed);
	ui_print_objective(r->c, gpipe ? proven : "", stdout);
	print_found(r);
	print_proof(r);
	if (r->aligned)
		print_align(r);
	if (ui_solve_devices(r))
		ui_print_devices(r->c, stdout);
	if (r->written)
		printf("partition written to %s\n", r->written);
}

/* Says on stderr why nothing is reported when no partition fits (proven:
 * UI_EXIT_INFEASIBLE) or none was found (UI_EXIT_UNDECIDED); UI_EXIT_OK
 * when r is feasible. */
static int say_verdict(const ui_solve_report *r)
{
	const char *src = r->g->source;
	int k = r->set.k, cpus = r->set.cpus;
	if (r->feasible)
		return UI_EXIT_OK;
	if (r->optimal && cpus)
		ui_error("solve: %s: no partition into %d accelerator and up to %d CPU stages fits "
		         "(the hard memory limit, or ops no device may hold; proven by %s)",
		         src, k, cpus, r->pf.status == UI_PROOF_PROVEN ? r->pf.by : "the exact DP");
	else if (r->optimal && r->npins > 0)
		ui_error("solve: %s: no partition into %d stages with the %d pinned op%s in place "
		         "keeps every stage within the hard memory limit (proven by %s); without "
		         "the pins this is not proven (solve without --pin, or bounds)",
		         src, k, r->npins, r->npins == 1 ? "" : "s",
		         r->pf.status == UI_PROOF_PROVEN ? r->pf.by : "the exact DP");
	else if (r->optimal && r->aligned) {
		/* what is proven is about the aligned problem; the unaligned one
		 * has its own answer (compare_unaligned) */
		const ui_solve_align *al = &r->al;
		char b[32], free_[160];
		if (!al->free_method)
			snprintf(free_, sizeof free_, "the unaligned problem was not solved");
		else if (isfinite(al->free_best))
			snprintf(free_, sizeof free_,
			         "without alignment the best partition costs %s%s",
			         ui_num(al->free_best, b, sizeof b),
			         al->free_optimal ? " (proven optimal)" : " (found, not proven)");
		else
			snprintf(free_, sizeof free_, "without alignment %s",
			         al->free_optimal ? "none fits either (proven by the exact DP)"
			                          : "the search found none either");
		ui_error(
		        "solve: %s: no partition into %d stages with every layer of depth %d in "
		        "one "
		        "stage (--align %d) keeps every stage within the hard memory limit (proven "
		        "by %s); %s",
		        src, k, al->depth, al->depth,
		        r->pf.status == UI_PROOF_PROVEN ? r->pf.by : "the exact DP", free_);
	} else if (r->optimal) /* not bad input: the answer is that nothing fits, proven */
		ui_error("solve: %s: no partition into %d stages keeps every stage within the hard "
		         "memory limit (proven by %s)",
		         src, k, r->pf.status == UI_PROOF_PROVEN ? r->pf.by : "the exact DP");
	else if (cpus)
		ui_error(
		        "solve: %s: the search found no partition into %d accelerator and up to %d "
		        "CPU stages that fits, and none is proven impossible; try -m exact or a "
		        "longer --time",
		        src, k, cpus);
	else /* found nothing, proved nothing: not the graph's answer */
		ui_error("solve: %s: the search found no partition into %d stages within the hard "
		         "memory limit, and none is proven impossible (%s); try -m exact or a "
		         "longer --time",
		         src, k,
		         r->decided    ? "the exact MIP ran out of time"
		         : r->no_proof ? "--no-proof"
		                       : "no time was left for the exact MIP");
	return r->optimal ? UI_EXIT_INFEASIBLE : UI_EXIT_UNDECIDED;
}

int ui_solve_print(const ui_solve_report *r, bool json)
{
	int status = say_verdict(r);
	if (json) {
		/* the same status as the text's: 130 after ^C, 143 after SIGTERM */
		if (!ui_solve_print_json(r))
			return UI_EXIT_INPUT;
		return status == UI_EXIT_OK && ui_interrupted() ? ui_interrupt_status() : status;
	}
	if (!r->feasible)
		return status;
	ui_solve_print_text(r);
	if (ui_interrupted()) {
		ui_error("solve: interrupted; the best partition found so far is above");
		return ui_interrupt_status();
	}
	return status;
}
