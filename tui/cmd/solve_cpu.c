/*
 * solve_cpu.c - `stagecut solve --cpus L` (001 section 3): any method with CPU
 * stages beside the k accelerator stages.  Every search places them
 * (solvers/search.h): the slicing methods and BRKGA choose each stage's
 * device with the split, `exact` (and `best` when its ideals fit) runs the
 * exact DP with a CPU dimension, and refinement keeps the devices, from a
 * search's partition or from --partition (a file with a "devices" array).
 * The report is solve's with a device per stage and the devices line.
 *
 * The proof: the exact DP proves its result optimal; a heuristic's result
 * is proven only when it equals a proven lower bound, the simple bound
 * with CPU stages (cpu_lower_bound), or (--proof) by the exact MIP with
 * CPU stages, and is otherwise reported with that bound and its gap
 * (`bounds --cpus` climbs the whole ladder).  --pin names a stage of the
 * K in pipeline order, whatever the kinds (cmd_solve.c reads it); every
 * search keeps the pins, and the bounds, which do not model them, bound
 * the optimum without pins and so the one with them.
 *
 * The run fills solve's report (solve_report.h), whose printers say what
 * differs with CPU stages; cmd_solve.c prints it.
 */
#define _POSIX_C_SOURCE 200809L
#include "solve_cpu.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/cost.h"
#include "core/fleet.h"
#include "core/formats/partition_file.h"
#include "core/parse.h"
#include "core/partition.h"
#include "solve_proof.h"
#include "solve_report.h"
#include "solvers/mip.h"
#include "solvers/search.h"
#include "solvers/simple.h"

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
	if (set->fleet) {
		/* each op at its least time on a kind that may run it */
		sc_fleet f;
		if (!sc_fleet_resolve(g, set, &f, NULL))
			return NAN;
		lb = sc_bound_simple_kinds(g, &f);
		if (!isfinite(lb) || lb <= 0)
			return NAN;
		*by = sc_rung_label(SC_RUNG_SIMPLE);
		return lb;
	}
	if (sc_bound_simple_cpus(g, sc_stages_useful(g, set->k), set->cpus, &lb, &err) != SC_OK ||
	    !isfinite(lb) || lb <= 0)
		return NAN;
	*by = sc_rung_label(SC_RUNG_SIMPLE);
	return lb;
}

/* --partition on devices: the file's stages in order with its kinds
 * (checked against the fleet; the graph's own device for a file that
 * names none), then, when it has fewer than the fleet's stages, empty
 * stages of the kinds left, in the fleet's order.  Fills start and
 * start_kind (K = the fleet's stages).  False after a message (*status
 * set). */
static bool load_start(const ui_opts *o, const sc_graph *g, const sc_settings *set, int *start,
                       int *start_kind, int *status)
{
	sc_error err;
	sc_error_clear(&err);
	sc_fleet f, used;
	if (!sc_fleet_resolve(g, set, &f, &err)) {
		ui_error("solve: %s", err.msg);
		*status = UI_EXIT_INPUT;
		return false;
	}
	int kf = 0, *kind = NULL;
	sc_status st =
	        sc_part_load_kinds(o->partition, g, &f, 0, &kf, start, &used, &kind, NULL, &err);
	if (st != SC_OK) {
		ui_error("%s", err.msg);
		*status = ui_exit_status(st);
		free(kind);
		return false;
	}
	int left[SC_KINDS_MAX];
	for (int d = 0; d < f.n; d++)
		left[d] = f.kind[d].count;
	for (int s = 0; s < kf; s++)
		left[start_kind[s] = kind ? kind[s] : 0]--;
	free(kind);
	int at = kf;
	for (int d = 0; d < f.n; d++)
		while (left[d]-- > 0)
			start_kind[at++] = d;
	return true;
}

/* The instant proof: a heuristic's result is proven when the simple bound
 * with CPU stages reaches it, and is otherwise reported with that bound
 * (UI_PROOF_BOUND) or without one (UI_PROOF_NO_BOUND). */
static void bound_proof(const ui_opts *o, ui_solve_report *r)
{
	if (r->optimal || o->no_proof || ui_interrupted())
		return;
	const char *by;
	double lb = cpu_lower_bound(r->g, &r->set, &by);
	/* the search's own bound: with --devices whose links differ, the
	 * exact DP's relaxation (each stage's io over its own link) */
	if (r->pr.lower > 0 && !(lb >= r->pr.lower)) {
		lb = r->pr.lower;
		by = "exact DP";
	}
	if (isfinite(lb) && lb >= r->objective * (1 - 1e-9)) {
		r->optimal = true;
		r->pf.status = UI_PROOF_PROVEN;
		r->pf.by = by;
	}
	if (isfinite(lb)) {
		r->pf.lower = lb;
		r->pf.by = by; /* (the JSON names it only once it proves) */
	}
	if (!r->optimal)
		r->pf.status = isfinite(lb) ? UI_PROOF_BOUND : UI_PROOF_NO_BOUND;
}

/* --proof: the exact MIP on the devices (ladder.h) in what --time leaves,
 * when nothing proved the result yet.  The report takes its verdict, its
 * bound, its time, its tolerance and a better partition it finds (then
 * found by the exact MIP).  Returns UI_EXIT_OK, or UI_EXIT_INPUT after a
 * message. */
static int mip_proof(const ui_opts *o, double deadline, ui_solve_report *r)
{
	double left = deadline > 0 ? deadline - sc_clock_now() : UI_PROOF_SECONDS;
	if (r->optimal || !o->proof || ui_interrupted() || left < UI_PROOF_MIN_SECONDS)
		return UI_EXIT_OK;
	ui_proof pf;
	ui_proof_run(r->g, &r->set, r->stage, r->kind, r->objective, left, isatty(STDERR_FILENO),
	             &pf);
	if (pf.status == UI_PROOF_FAILED)
		ui_error("solve: %s: the exact MIP failed (%s); the partition is unproven",
		         r->g->source, pf.message);
	if (pf.improved && ui_solve_cost(r) != UI_EXIT_OK)
		return UI_EXIT_INPUT;
	if (isfinite(pf.lower) && !(pf.lower <= r->pf.lower))
		r->pf.lower = pf.lower;
	if (pf.status != UI_PROOF_FAILED)
		r->pf.status = pf.status;
	r->pf.seconds = pf.seconds;
	r->pf.improved = pf.improved;
	r->pf.searched = pf.searched;
	r->optimal = pf.status == UI_PROOF_PROVEN;
	if (r->optimal) {
		r->pf.by = pf.by;
		r->pf.within = pf.within; /* the MIP proves within its tolerance */
	}
	return UI_EXIT_OK;
}

/* The search with CPU stages (from --partition's start when given) into
 * r; ^C is caught from then on (into *saved, *caught set) for the caller
 * to release once the proof is over.  Returns UI_EXIT_OK, or an exit
 * status after a message. */
static int search(const ui_opts *o, double deadline, ui_solve_report *r, ui_interrupts *saved,
                  bool *caught)
{
	int K = ui_solve_stages(r), status = UI_EXIT_OK;
	sc_search_params p;
	ui_search_params(o, &p);
	if (o->time_limit > 0)
		p.time_limit = fmax(0.05, deadline - sc_clock_now());
	p.interrupted = ui_interrupted; /* ^C holds inside one evaluation too */
	int *start = o->partition ? sc_part_new(r->g) : NULL;
	int *start_kind = o->partition ? calloc((size_t)K, sizeof *start_kind) : NULL;
	if (o->partition && (!start || !start_kind)) {
		ui_error("out of memory");
		status = UI_EXIT_INPUT;
	} else if (o->partition && load_start(o, r->g, &r->set, start, start_kind, &status)) {
		p.start = start;
		p.start_kind = start_kind;
		if (!o->method)
			p.method = "refine";
	}
	r->method = p.method ? p.method : "best";
	r->seed = p.seed;
	if (status == UI_EXIT_OK)
		status = ui_solve_search(r, &p, saved, caught);
	free(start);
	free(start_kind);
	return status;
}

/* The search found nothing that fits, which proves nothing: the exact MIP
 * with CPU stages decides, as solve's does without them, finding a
 * partition or proving that none fits, in what --time leaves (unless
 * --no-proof).  A heuristic without refinement may leave ops on a device
 * that cannot run them. */
static void decide(const ui_opts *o, double deadline, ui_solve_report *r)
{
	double left = deadline > 0 ? deadline - sc_clock_now() : UI_PROOF_SECONDS;
	if (r->optimal || o->no_proof || ui_interrupted() || left < UI_PROOF_MIN_SECONDS)
		return;
	ui_proof pf;
	ui_proof_run(r->g, &r->set, r->stage, r->kind, INFINITY, left, isatty(STDERR_FILENO), &pf);
	r->decided = true;
	if (pf.status == UI_PROOF_FAILED)
		ui_error("solve: %s: the exact MIP failed (%s)", r->g->source, pf.message);
	if (pf.improved) {
		r->feasible = true;
		r->pf = pf;
		r->pf.searched = INFINITY;
	} else if (pf.status == UI_PROOF_PROVEN) {
		r->pf = pf;
		r->optimal = true; /* that nothing fits */
	}
}

/* After the search: the costs, the proofs (the simple bound, --proof's
 * MIP), -o, and the gap. */
static int prove_and_write(const ui_opts *o, double deadline, ui_solve_report *r)
{
	int status = UI_EXIT_OK;
	bool optimal = r->optimal;
	r->pf = (ui_proof){.status = optimal       ? UI_PROOF_SEARCH
	                             : r->feasible ? UI_PROOF_OFF
	                                           : UI_PROOF_NONE,
	                   .by = optimal ? "exact DP" : NULL,
	                   .lower = optimal && r->feasible ? r->found : NAN};
	if (!r->feasible)
		decide(o, deadline, r);
	if (r->feasible)
		status = ui_solve_cost(r);
	if (status == UI_EXIT_OK && r->feasible) {
		bound_proof(o, r);
		status = mip_proof(o, deadline, r);
	}
	if (r->feasible && ui_interrupted() && !r->optimal)
		r->pf.status = UI_PROOF_INTERRUPTED;
	if (status == UI_EXIT_OK && r->feasible && o->output)
		status = ui_solve_write(r, o->output);
	/* a proof with CPU stages is exact (the DP, the simple bound) or the
	 * MIP's, within its tolerance (set above) */
	if (!r->optimal)
		r->pf.within = NAN;
	else if (!(r->pf.within > 0))
		r->pf.within = 0;
	r->gap = r->feasible && r->optimal        ? 0
	         : r->feasible && r->pf.lower > 0 ? fmax(0, r->objective / r->pf.lower - 1)
	                                          : NAN;
	return status;
}

int ui_solve_cpus(const ui_opts *o, double deadline, ui_solve_report *r)
{
	r->stage = sc_part_new(r->g);
	r->kind = calloc((size_t)ui_solve_stages(r), sizeof *r->kind);
	if (!r->stage || !r->kind) {
		ui_error("out of memory");
		return UI_EXIT_INPUT;
	}
	/* ^C, caught from the search to the end of the proof, stops them
	 * with what they have */
	ui_interrupts saved;
	bool caught = false;
	int status = search(o, deadline, r, &saved, &caught);
	if (status == UI_EXIT_OK)
		status = prove_and_write(o, deadline, r);
	if (caught)
		ui_release_interrupts(&saved);
	return status;
}
