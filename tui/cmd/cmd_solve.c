/*
 * cmd_solve.c - `stagecut solve FILE -k K`: run a search, then, when it
 * proved nothing, ask the exact MIP for a certificate (solve_proof.h) in
 * the time left, print the stage table (or JSON), write the partition file
 * with -o.  Progress is drawn on stderr, on one line, only when stderr is a
 * terminal.
 *
 * The run fills a ui_solve_report (solve_report.h), which one text and one
 * JSON printer read (compute, then print).  On the accelerators
 * alone it is here, in steps: load and check, prepare (--align, --pin,
 * --partition), search, decide (the exact MIP, when the search found
 * nothing), prove, write, and compare with the unaligned optimum (--align);
 * with CPU stages solve_cpu.c fills the same report.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui/ui.h"
#include "core/clock.h"
#include "core/cost.h"
#include "core/formats/partition_file.h"
#include "core/layers.h"
#include "core/modules.h"
#include "core/partition.h"
#include "solvers/search.h"
#include "solve_cpu.h"
#include "solve_proof.h"
#include "solve_report.h"

/* --pin OP=STAGE, each: op -> stage - 1 into pin (every other op -1).
 * Returns the number of ops pinned (an op pinned twice to its stage counts
 * once), or -1 after a message naming the option and what is wrong. */
static int read_pins(const ui_opts *o, const sc_graph *g, int k, int *pin)
{
	int count = 0;
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
			return -1;
		}
		if (len == 0 || len >= sizeof name) {
			ui_error("solve: --pin '%s': expected OP=STAGE", a);
			return -1;
		}
		memcpy(name, a, len);
		name[len] = '\0';
		int v = sc_graph_find(g, name);
		if (v < 0) {
			ui_error("solve: --pin '%s': %s has no op named '%s'", a, g->source, name);
			return -1;
		}
		if (pin[v] >= 0 && pin[v] != st - 1) {
			ui_error("solve: --pin '%s': '%s' is pinned to stage %d already", a, name,
			         pin[v] + 1);
			return -1;
		}
		count += pin[v] < 0;
		pin[v] = (int)st - 1;
	}
	return count;
}

/* --pin's stages into r->pin and r->set.pin, each a stage of the K in
 * pipeline order (with devices every kind's, ui_solve_stages).  Returns
 * UI_EXIT_OK, or UI_EXIT_INPUT after a message. */
static int pins(const ui_opts *o, ui_solve_report *r)
{
	if (o->npins == 0)
		return UI_EXIT_OK;
	r->pin = sc_part_new(r->g);
	if (!r->pin) {
		ui_error("out of memory");
		return UI_EXIT_INPUT;
	}
	r->npins = read_pins(o, r->g, ui_solve_stages(r), r->pin);
	if (r->npins < 0)
		return UI_EXIT_INPUT;
	r->set.pin = r->pin;
	return UI_EXIT_OK;
}

/* What the run on the accelerators keeps besides its report. */
typedef struct solve_run {
	const ui_opts *o;
	double deadline;      /* ui_deadline(o): -t bounds the whole run */
	const sc_graph *orig; /* the graph as loaded (with --align the report's is its
	                       * aligned copy) */
	sc_search_params p;
	int *start;          /* --partition: the search's start (owned) */
	double left;         /* the exact MIP's time, once the search is done */
	bool tty;            /* progress lines on stderr */
	ui_interrupts saved; /* ^C, caught from the search to the end of the report */
	bool caught;
} solve_run;

/* Replaces r->g by its copy aligned at o->align (core/modules.h), owned by
 * r->aligned, and describes it in r->al.  False after a message. */
static bool align_graph(const ui_opts *o, const sc_graph *g, ui_solve_report *r)
{
	sc_error err;
	sc_error_clear(&err);
	sc_modules *m = sc_modules_new(g, &err);
	sc_layers *l = m ? sc_layers_new(g, m, o->align, &err) : NULL;
	sc_graph *a = l ? sc_layers_aligned_graph(g, m, l, &err) : NULL;
	if (!a) {
		ui_error("solve: %s: %s", g->source, err.msg);
		sc_layers_free(l);
		sc_modules_free(m);
		return false;
	}
	r->al.depth = o->align;
	r->al.units = l->n;
	sc_layers_free(l);
	sc_modules_free(m);
	r->aligned = a;
	r->g = a;
	return true;
}

/* The run's parameters and arrays: --align's graph, the search's
 * parameters, --partition's start.  Returns UI_EXIT_OK, or
 * an exit status after a message. */
static int prepare(solve_run *run, ui_solve_report *r)
{
	const ui_opts *o = run->o;
	sc_search_params *p = &run->p;
	ui_search_params(o, p);
	/* with --align, half of what -t leaves is for the unaligned solve */
	if (o->time_limit > 0)
		p->time_limit = fmax(0.05, (run->deadline - sc_clock_now()) / (r->aligned ? 2 : 1));
	p->interrupted = ui_interrupted; /* ^C holds inside one evaluation too */
	r->stage = sc_part_new(r->g);
	run->start = o->partition ? sc_part_new(r->g) : NULL;
	if (!r->stage || (o->partition && !run->start)) {
		ui_error("out of memory");
		return UI_EXIT_INPUT;
	}
	if (o->partition) {
		int k2;
		sc_error err;
		sc_error_clear(&err);
		sc_status st =
		        sc_part_load(o->partition, r->g, r->set.k, &k2, run->start, NULL, &err);
		if (st != SC_OK) {
			ui_error("%s", err.msg);
			return ui_exit_status(st);
		}
		p->start = run->start;
		if (!o->method)
			p->method = "refine";
	}
	r->method = p->method;
	r->seed = p->seed;
	run->tty = isatty(STDERR_FILENO);
	return UI_EXIT_OK;
}

/* The search found nothing that fits, which proves nothing: the
 * exact MIP decides, finding a partition or proving that none fits, in
 * what --time leaves. */
static void decide(const solve_run *run, ui_solve_report *r)
{
	if (r->optimal || run->o->no_proof || ui_interrupted() || run->left < UI_PROOF_MIN_SECONDS)
		return;
	ui_proof_run(r->g, &r->set, r->stage, NULL, INFINITY, run->left, run->tty, &r->pf);
	r->decided = true;
	if (r->pf.improved) {
		r->feasible = true;
		r->pf.searched = INFINITY;
	} else if (r->pf.status == UI_PROOF_PROVEN) {
		r->optimal = true; /* that nothing fits */
	}
}

/* The partition's costs and its proof: the search's own (the exact DP),
 * else the exact MIP's, after best only by default (a method named on
 * purpose, kahn, brkga, ..., gives its own result, and --proof asks for
 * more).  Returns UI_EXIT_OK, or UI_EXIT_INPUT after a message. */
static int prove(const solve_run *run, ui_solve_report *r)
{
	const ui_opts *o = run->o;
	ui_proof *pf = &r->pf;
	int status = ui_solve_cost(r);
	if (status != UI_EXIT_OK)
		return status;
	if (!r->decided)
		pf->upper = pf->searched = r->objective;
	bool best_method = !o->method || strcmp(o->method, "best") == 0;
	if (r->decided)
		; /* the exact MIP found this partition: its verdict stands */
	else if (r->optimal)
		pf->by = "exact DP";
	else if (o->no_proof || !(best_method || o->proof))
		pf->status = UI_PROOF_OFF;
	else if (ui_interrupted())
		pf->status = UI_PROOF_INTERRUPTED;
	else if (run->left < UI_PROOF_MIN_SECONDS)
		pf->status = UI_PROOF_NO_TIME;
	else
		ui_proof_run(r->g, &r->set, r->stage, NULL, r->objective, run->left, run->tty, pf);
	if (pf->status == UI_PROOF_FAILED)
		ui_error("solve: %s: the exact MIP failed (%s); the partition is unproven",
		         r->g->source, pf->message);
	r->optimal = pf->status == UI_PROOF_SEARCH || pf->status == UI_PROOF_PROVEN;
	return pf->improved ? ui_solve_cost(r) : UI_EXIT_OK;
}

/* --align: solves the graph as loaded, without alignment, with the same
 * method (best for refine) in what -t leaves, into r->al; the aligned
 * partition is one of that graph's too. */
static void compare_unaligned(const solve_run *run, ui_solve_report *r)
{
	ui_solve_align *al = &r->al;
	sc_search_params p;
	ui_search_params(run->o, &p);
	if (!p.method || strcmp(p.method, "refine") == 0)
		p.method = "best";
	p.start = NULL;
	p.interrupted = ui_interrupted;
	if (run->deadline > 0)
		p.time_limit = fmax(0.05, run->deadline - sc_clock_now());
	al->free_method = p.method;
	al->free_best = r->objective;
	al->free_optimal = false;
	sc_error err;
	sc_search *s = sc_search_new(run->orig, &r->set, &p, &err);
	if (!s || sc_search_run(s, &err) != SC_OK) {
		sc_search_free(s);
		return;
	}
	bool optimal = false;
	double v = sc_search_result(s, NULL, &optimal);
	sc_progress pr;
	sc_search_progress(s, &pr);
	al->seconds = pr.elapsed;
	if (!r->feasible) {
		/* no aligned partition fits: the unaligned problem's own answer,
		 * a partition, or none (proven or not) */
		al->free_best = v;
		al->free_optimal = optimal;
	} else if (v <= r->objective) {
		al->free_best = v;
		al->free_optimal = optimal && isfinite(v);
	}
	sc_search_free(s);
}

/* The run on the accelerators alone, into r.  Returns UI_EXIT_OK when r
 * is to be printed, else an exit status after a message. */
static int solve(solve_run *run, ui_solve_report *r)
{
	const ui_opts *o = run->o;
	int status = prepare(run, r);
	if (status == UI_EXIT_OK)
		status = ui_solve_search(r, &run->p, &run->saved, &run->caught);
	if (status != UI_EXIT_OK)
		return status;
	r->pf = (ui_proof){.status = r->optimal ? UI_PROOF_SEARCH : UI_PROOF_NONE,
	                   .within = r->optimal ? 0 : NAN,
	                   .lower = r->optimal ? r->found : NAN};
	r->no_proof = o->no_proof;
	/* the exact MIP's time: what --time leaves (UI_PROOF_SECONDS without) */
	run->left = run->deadline > 0 ? run->deadline - sc_clock_now() : UI_PROOF_SECONDS;
	if (!r->feasible)
		decide(run, r);
	if (r->feasible)
		status = prove(run, r);
	if (status == UI_EXIT_OK && r->feasible && o->output)
		status = ui_solve_write(r, o->output);
	if (status != UI_EXIT_OK)
		return status;
	/* the certified gap: objective / lower bound - 1 */
	r->gap = r->feasible && r->pf.lower > 0     ? fmax(0, r->objective / r->pf.lower - 1)
	         : r->feasible && r->objective == 0 ? 0
	                                            : NAN;
	/* that nothing fits, proven by the search */
	if (!r->feasible && r->optimal && r->pf.status != UI_PROOF_PROVEN)
		r->pf.by = "exact DP";
	return UI_EXIT_OK;
}

/* --align after the run (on the accelerators or on devices): the
 * unaligned problem's answer, also when no aligned partition fits, and
 * the price of alignment, aligned / unaligned - 1. */
static void price_alignment(const solve_run *run, ui_solve_report *r)
{
	if (r->aligned && !ui_interrupted() && (r->feasible || r->optimal))
		compare_unaligned(run, r);
	if (r->aligned && r->feasible)
		r->al.gap = r->al.free_best > 0 ? r->objective / r->al.free_best - 1 : 0;
}

/* What solve needs of the graph loaded: k.  Returns UI_EXIT_OK, or
 * UI_EXIT_INPUT after a message. */
static int check(const ui_opts *o, const sc_graph *g)
{
	(void)o;
	if (g->settings.k < 1) {
		ui_error("solve: %s does not set k; give -k K", g->source);
		return UI_EXIT_INPUT;
	}
	return UI_EXIT_OK;
}

int ui_cmd_solve(const ui_opts *o)
{
	/* -t bounds the whole run, loading included */
	double deadline = ui_deadline(o);
	int status = UI_EXIT_OK;
	sc_graph *g = ui_load(o->pos[0], o, &status);
	if (!g)
		return status;
	ui_solve_report r;
	ui_solve_report_init(&r, g);
	solve_run run = {.o = o, .deadline = deadline, .orig = g};
	status = check(o, g);
	/* --align: the search's graph is the aligned copy */
	if (status == UI_EXIT_OK && o->align > 0 && !align_graph(o, g, &r))
		status = UI_EXIT_INPUT;
	if (status == UI_EXIT_OK)
		status = pins(o, &r);
	if (status == UI_EXIT_OK && (g->settings.cpus > 0 || g->settings.fleet))
		status = ui_solve_cpus(o, deadline, &r); /* devices (001 section 3 for CPUs) */
	else if (status == UI_EXIT_OK)
		status = solve(&run, &r);
	if (status == UI_EXIT_OK)
		price_alignment(&run, &r);
	if (status == UI_EXIT_OK)
		status = ui_solve_print(&r, o->json);
	if (run.caught)
		ui_release_interrupts(&run.saved);
	ui_solve_report_fini(&r);
	free(run.start);
	sc_graph_free(g);
	return status;
}
