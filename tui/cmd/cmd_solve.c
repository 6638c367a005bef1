/*
 * cmd_solve.c - `stagecut solve FILE -k K`: run a search, print the stage
 * table (or JSON), write the partition file with -o.  Progress is drawn on
 * stderr, on one line, only when stderr is a terminal.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui/ui.h"
#include "core/cost.h"
#include "core/partition.h"
#include "core/report.h"
#include "solvers/search.h"

static void show_progress(sc_search *s, bool tty, double *last)
{
	if (!tty)
		return;
	sc_progress p;
	sc_search_progress(s, &p);
	if (p.elapsed - *last < 0.1 && !p.done)
		return;
	*last = p.elapsed;
	char b[32];
	fprintf(stderr, "\r\033[K%-8s %9ld evals  best %s  %.1f s", p.phase, p.evals,
	        isfinite(p.best) ? ui_num(p.best, b, sizeof b) : "-", p.elapsed);
	ui_print_dp_progress(&p);
	fflush(stderr);
}

int ui_cmd_solve(const ui_opts *o)
{
	int status = UI_EXIT_OK;
	sc_graph *g = ui_load(o->pos[0], o, &status);
	if (!g)
		return status;
	sc_settings set = g->settings;
	int *stage = NULL, *start = NULL;
	sc_search *s = NULL;
	sc_costs *c = NULL;
	sc_error err;
	sc_error_clear(&err);
	if (set.k < 1) {
		ui_error("solve: %s does not set k; give -k K", g->source);
		status = UI_EXIT_INPUT;
		goto out;
	}
	sc_search_params p;
	ui_search_params(o, &p);
	p.interrupted = ui_interrupted; /* ^C holds inside one evaluation too */
	stage = sc_part_new(g);
	start = o->partition ? sc_part_new(g) : NULL;
	if (!stage || (o->partition && !start)) {
		ui_error("out of memory");
		status = UI_EXIT_INPUT;
		goto out;
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
	ui_interrupts saved;
	ui_catch_interrupts(&saved);
	/* the search polls ui_interrupted itself (p.interrupted) and ends
	 * with the best so far, or the greedy split before any */
	while (sc_search_step(s))
		show_progress(s, tty, &last);
	ui_release_interrupts(&saved);
	show_progress(s, tty, &last);
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
	if (feasible) {
		c = sc_costs_new(g, &set, &err);
		if (!c) {
			ui_error("%s", err.msg);
			status = UI_EXIT_INPUT;
			goto out;
		}
		sc_costs_eval(c, stage);
		bn = sc_costs_bottleneck(c, &at);
		if (o->output && sc_part_write(o->output, g, stage, set.k, c, &err) != SC_OK) {
			ui_error("%s", err.msg);
			status = UI_EXIT_INPUT;
			goto out;
		}
	}
	if (!feasible) {
		/* not bad input: the answer is that nothing fits */
		ui_error("solve: %s: %s partition into %d stages keeps every stage within the hard "
		         "memory limit",
		         g->source, optimal ? "no" : "the search found no", set.k);
		status = UI_EXIT_INFEASIBLE;
	}
	if (o->json) {
		/* one shape whatever the outcome: unknowns are null */
		json_t *root = json_pack("{s:s, s:s, s:i, s:I, s:o, s:o, s:b, s:b, s:I, s:f}",
		                         "graph", g->name, "method", p.method, "k", set.k, "seed",
		                         (json_int_t)p.seed, "bottleneck",
		                         feasible ? json_real(bn) : json_null(), "bottleneck_stage",
		                         feasible ? json_integer(at + 1) : json_null(), "feasible",
		                         (int)feasible, "optimal", (int)optimal, "evaluations",
		                         (json_int_t)pr.evals, "seconds", pr.elapsed);
		json_object_set_new(root, "partition",
		                    feasible && o->output ? json_string(o->output) : json_null());
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
	char b[32];
	/* under GPipe the proof is of the GPipe objective, on its own line */
	bool gpipe = sc_graph_is_training(g) && set.schedule == SC_SCHEDULE_GPIPE;
	const char *proven = optimal ? ", proven optimal" : "";
	if (g->time_unit)
		printf("times in %s\n", g->time_unit);
	ui_print_costs(g);
	printf("bottleneck %s (stage %d)%s   %ld evaluations in %.2f s\n", ui_num(bn, b, sizeof b),
	       at + 1, gpipe ? "" : proven, pr.evals, pr.elapsed);
	ui_print_objective(c, gpipe ? proven : "", stdout);
	if (o->output)
		printf("partition written to %s\n", o->output);
	if (ui_interrupted()) {
		ui_error("solve: interrupted; the best partition found so far is above");
		status = 130;
	}
out:
	sc_costs_free(c);
	sc_search_free(s);
	free(stage);
	free(start);
	sc_graph_free(g);
	return status;
}
