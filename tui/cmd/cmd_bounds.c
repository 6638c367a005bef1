/*
 * cmd_bounds.c - `stagecut bounds FILE -k K`: an upper bound from the
 * default search (or your partition file, -p), then the ladder of lower
 * bounds, with live progress on stderr when it is a terminal.
 *
 * With -p the report is about your partition: its cost heads it and its
 * certified gap is its own (k is the file's when -k is absent).  The exact
 * DP over ideals runs first (run_dp; DESIGN.md section 3) and, when it
 * finishes, proves the optimum: your partition is then proven optimal, or
 * the DP's partition is the upper bound and your gap is exact.  A better
 * partition (the DP's, or one the exact MIP finds on the way) is reported
 * apart (and becomes the upper bound of the JSON), a rung stopped at a
 * proof says what was proven about your partition (rung_message), and -o
 * writes the best partition found.  A proof that holds only within the
 * ladder's tolerance (SC_LADDER_REL_TOL) says so.
 *
 * On devices (--cpus L, 001 section 3; --devices SPEC) the upper bound is
 * the exact DP's on them (solvers/dp_exact.h: proven optimal when it
 * finishes and the kinds' links agree, a lower bound beside its partition
 * when they differ; when it cannot finish, brkga's on the devices),
 * another method's search on them (-m), or your partition with its
 * devices; the ladder then bounds the optimum on the devices (ladder.h
 * says how each rung does, and which are skipped) and the reports name
 * each stage's kind.
 *
 * Longer than 600 lines: the run and its two printers (text and JSON)
 * share the one bounds_report and the helpers above them; apart, they
 * would need it in a private header for no gain in clarity.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui/ui.h"
#include "core/cost.h"
#include "core/fleet.h"
#include "core/formats/partition_file.h"
#include "core/partition.h"
#include "core/report.h"
#include "core/parse.h"
#include "solvers/ideals.h"
#include "solvers/jobs.h"
#include "core/clock.h"
#include "solvers/ladder.h"
#include "tui/cmd/bounds_devices.h"

static void show(const sc_ladder *l, unsigned rungs, bool tty, double *last, double t)
{
	if (!tty || t - *last < 0.2)
		return;
	*last = t;
	ui_progress("%s", "");
	for (int r = 0; r < SC_RUNG_COUNT; r++) {
		if (!(rungs & (1u << r)))
			continue;
		sc_rung_info ri;
		sc_ladder_info(l, (sc_rung)r, &ri);
		char b[32];
		fprintf(stderr, "%s%s %s", r ? "  " : "", sc_rung_name((sc_rung)r),
		        ui_num(ri.value, b, sizeof b));
		if (ri.state == SC_RS_SKIPPED) {
			fputs(" (skipped)", stderr);
		} else if (ri.state == SC_RS_UNNEEDED) {
			fputs(" (not needed)", stderr);
		} else if (ri.state == SC_RS_RUNNING) {
			if (r == SC_RUNG_GUESS)
				fprintf(stderr, " (%d/%d, %.0fs)", ri.parts_done, ri.parts,
				        ri.seconds);
			else
				fprintf(stderr, " (%.0fs)", ri.seconds);
		} else if (ri.state == SC_RS_WAITING) {
			fputs(" (waiting)", stderr);
		}
	}
	fflush(stderr);
}

/* What bounds says when the best partition costs 0 (a graph without work). */
#define ZERO_NOTE                                                                                  \
	"the upper bound is 0 (no work and no tensor between its stages), which no partition "     \
	"can beat, so it is optimal"

/* A lower bound's ratio to the upper bound; 1 when both are 0. */
/* The search for the upper bound, waited for (sc_engine_run_until): its
 * info after each poll, a cancel on ^C, the progress line on a terminal. */
typedef struct search_wait {
	sc_engine *e;
	int id;
	bool tty;
	double last;
	sc_job_info ji;
} search_wait;

static bool search_done(void *ctx)
{
	return sc_job_finished(((search_wait *)ctx)->ji.state);
}

static void search_each(void *ctx)
{
	search_wait *w = ctx;
	sc_engine_info(w->e, w->id, &w->ji);
	if (ui_interrupted())
		sc_engine_cancel(w->e, w->id);
	if (w->tty && w->ji.elapsed - w->last >= 0.2) {
		char b[32];
		w->last = w->ji.elapsed;
		ui_progress("search %s: %ld evals, best %s, %.1f s", w->ji.search.phase,
		            w->ji.search.evals, ui_num(w->ji.search.best, b, sizeof b),
		            w->ji.elapsed);
		ui_print_dp_progress(&w->ji.search);
		fflush(stderr);
	}
}

/* Waits for search job id, drawing its progress on a terminal; its info
 * once finished (cancelled on ^C). */
static sc_job_info wait_search(sc_engine *e, int id, bool tty)
{
	search_wait sw = {.e = e, .id = id, .tty = tty, .last = -1};
	sc_engine_info(e, id, &sw.ji);
	/* 100 ms: ^C is a flag the engine does not report */
	sc_engine_run_until(e, 100, search_done, search_each, &sw);
	if (tty)
		ui_progress_done();
	return sw.ji;
}

/* -p: what the exact DP over ideals did beside your partition. */
typedef struct dp_run {
	bool ran;       /* it was asked for (-m best or exact, no CPU stages) */
	bool proved;    /* it finished: value is the optimum */
	double value;   /* the optimum (INFINITY: nothing fits), when proved */
	double seconds; /* its wall time */
	int *stage;     /* an optimal partition, when proved and value is finite */
	char why[256];  /* ran but not proved: why not */
} dp_run;

/* -p: runs the exact DP over ideals (the search method exact) within the
 * search's budget (ui_budget_search_now; without one, SC_BEST_DP_SECONDS
 * and for -m best only where best would run it) and the ideals its memory
 * holds, for -m best (the default) or exact, without CPU stages; a DP past
 * either limit leaves the proof to the rungs (out->why says so).  Returns an exit status:
 * UI_EXIT_OK unless the job could not be queued. */
static int run_dp(const ui_opts *o, sc_engine *e, const sc_graph *g, const sc_settings *set,
                  const ui_budget *budget, bool tty, dp_run *out)
{
	const char *m = o->method ? o->method : "best";
	if (set->cpus > 0 || set->fleet || (strcmp(m, "best") != 0 && strcmp(m, "exact") != 0))
		return UI_EXIT_OK;
	out->ran = true;
	out->stage = sc_part_new(g);
	if (!out->stage) {
		ui_error("out of memory");
		return UI_EXIT_INPUT;
	}
	sc_search_params p;
	ui_search_params(o, &p);
	p.method = "exact";
	p.refine = false; /* the optimum is what counts, not its balance */
	double t = ui_budget_search_now(budget);
	sc_error err;
	bool exact = true;
	/* without a budget, only where `best` would run it (its estimate of
	 * two minutes), so a graph too wide for it does not hold the rungs
	 * back; within a budget it is tried: the estimate is pessimistic */
	if (t <= 0 && strcmp(m, "best") == 0 &&
	    sc_search_best_is_exact(g, set, &p, &exact, &err) != SC_OK) {
		ui_error("bounds: %s: %s", g->source, err.msg);
		return UI_EXIT_INPUT;
	}
	if (!exact) {
		snprintf(out->why, sizeof out->why,
		         "the exact DP over ideals did not run: more ideals than best runs it on "
		         "without a time limit (give -t T to try it within a quarter of T)");
		return UI_EXIT_OK;
	}
	p.time_limit = t > 0 ? t : SC_BEST_DP_SECONDS;
	int id = sc_engine_add_search(e, g, set, &p, &err);
	if (id < 0) {
		ui_error("bounds: %s: %s", g->source, err.msg);
		return UI_EXIT_INPUT;
	}
	sc_job_info ji = wait_search(e, id, tty);
	out->seconds = ji.elapsed;
	if (ji.state == SC_JOB_FAILED) {
		snprintf(out->why, sizeof out->why, "the exact DP over ideals did not run: %.200s",
		         ji.message);
		return UI_EXIT_OK;
	}
	bool optimal = false;
	double v = sc_engine_result(e, id, out->stage, &optimal);
	if (optimal && ji.state == SC_JOB_DONE) {
		out->proved = true;
		out->value = v;
	} else if (ui_interrupted()) {
		snprintf(out->why, sizeof out->why, "the exact DP over ideals was interrupted");
	} else {
		snprintf(out->why, sizeof out->why,
		         "the exact DP over ideals did not finish within its %.3g s", p.time_limit);
	}
	return UI_EXIT_OK;
}

static double ratio(double v, double upper)
{
	return upper == 0 ? 1 : v / upper;
}

/* What the ladder's progress line needs between turns. */
typedef struct ladder_view {
	const sc_ladder *l;
	unsigned rungs;
	bool tty;
	double last; /* when the line was last drawn */
} ladder_view;

/* Once a turn of the ladder's loop: redraws the progress line, and asks to
 * stop after ^C. */
static bool ladder_turn(void *ctx)
{
	ladder_view *v = ctx;
	bool stop = ui_interrupted();
	show(v->l, v->rungs, v->tty, &v->last, sc_clock_now());
	return stop;
}

/* x / lower - 1, the certified gap of a partition of cost x: 0 when the
 * bound reaches x (an x of 0 cannot be beaten, so 0, not 0/0), INFINITY
 * when x is unknown or the bound is 0 under a positive x (no ratio). */
static double gap_of(double x, double lower)
{
	return !isfinite(x) ? INFINITY : lower >= x ? 0 : lower > 0 ? x / lower - 1 : INFINITY;
}

/* A gap or a gain as a percentage into buf: two decimals, or two
 * significant digits when those would show a positive value as 0.00%. */
static const char *pct(double x, char *buf, size_t size)
{
	if (x > 0 && x < 5e-5)
		snprintf(buf, size, "%.1e%%", 100 * x);
	else
		snprintf(buf, size, "%.2f%%", 100 * x);
	return buf;
}

/* A number, or null when it is infinite or not a number. */
static json_t *json_num(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

/* "; SUBJECT is proven optimal by BY", or "...optimal within 1e-6 relative,
 * proven by BY" when the proof holds within the ladder's tolerance only
 * (within > 0); empty without a proof (by NULL). */
static void proof_text(char *buf, size_t size, const char *subject, const char *by, double within)
{
	if (!by)
		buf[0] = '\0';
	else if (within > 0)
		snprintf(buf, size, "; %s is optimal within %s relative, proven by %s", subject,
		         SC_LADDER_REL_TOL_TEXT, by);
	else
		snprintf(buf, size, "; %s is proven optimal by %s", subject, by);
}

/* The costs of the best partition found (stage, nstages stages, kind
 * their kinds or NULL), for its devices and -o; NULL after a message. */
static sc_costs *best_costs(const sc_graph *g, const sc_settings *set, const int *stage,
                            int nstages, const int *kind)
{
	sc_error err;
	sc_settings s = *set;
	s.k = nstages;
	sc_costs *c = sc_costs_new(g, &s, &err);
	if (!c) {
		ui_error("%s", err.msg);
		return NULL;
	}
	if (kind)
		sc_costs_set_kinds(c, kind);
	sc_costs_eval(c, stage);
	return c;
}

/* Writes the best partition found (c, its costs) to path as solve -o
 * does; false (after an error, *status set) when it cannot. */
static bool write_best(const char *path, const sc_graph *g, const int *stage, const sc_costs *c,
                       int *status)
{
	sc_error err;
	if (sc_part_write(path, g, stage, c->k, c, &err) == SC_OK)
		return true;
	ui_error("%s", err.msg);
	*status = UI_EXIT_INPUT;
	return false;
}

/* The requested rungs that ended in error, in ladder order, into out;
 * returns how many. */
static int rungs_in_error(const sc_ladder *l, unsigned rungs, sc_rung *out)
{
	int n = 0;
	for (int r = 0; r < SC_RUNG_COUNT; r++) {
		sc_rung_info ri;
		sc_ladder_info(l, (sc_rung)r, &ri);
		if ((rungs & (1u << r)) && ri.state == SC_RS_FAILED)
			out[n++] = (sc_rung)r;
	}
	return n;
}

/* What bounds found, for the two printers: computed once by ui_cmd_bounds,
 * printed as text or as JSON (the man page's keys, in order). */
typedef struct bounds_report {
	const sc_graph *g;
	const sc_settings *set;
	const sc_ladder *l;
	unsigned rungs;        /* the rungs asked for */
	const char *partition; /* -p, or NULL */
	const char *method;    /* the upper bound's search, or "partition" */
	double mine;           /* -p: your partition's objective (INFINITY over a hard limit) */
	double mine_gap;       /* -p: its certified gap */
	double upper, lower;   /* the best partition's objective; the best lower bound */
	const char *lower_by;  /* "ladder" or "dp" */
	double search_seconds;
	bool improved;         /* the exact MIP found a better partition than the upper bound's */
	bool ub_optimal;       /* the search's partition is proven optimal (the exact DP) */
	bool feasible;         /* some partition fits */
	const char *proven_by; /* what proved the best partition optimal, or NULL */
	double within;         /* the proof's tolerance (sc_ladder_proof_tolerance) */
	double gap;            /* the upper bound's certified gap */
	bool better;           /* -p: a better partition than yours was found */
	const char *better_by; /* -p: what found it: "the exact MIP" or "the exact DP" */
	const dp_run *dp;      /* -p: what the exact DP did */
	double optimum;        /* the optimum when proven (by proven_by), else NAN */
	double gain;           /* -p: by how much, relative to yours */
	double about;          /* what the report is about: your partition, else upper */
	bool zero;             /* it costs 0 */
	int stages;            /* the stages that can be non-empty */
	const char *written;   /* -o, when written */
	/* on devices: the best partition's costs, each stage with its kind
	 * (NULL when none is feasible or without devices) */
	const sc_costs *dc;
} bounds_report;

/* What a rung's line says under it: the ladder's message, but with -p,
 * for a rung stopped at proof, what was proven about your partition (the
 * ladder's upper bound is the better partition when one was found, and
 * its message speaks of that). */
static const char *rung_message(const bounds_report *r, const sc_rung_info *ri, char *buf,
                                size_t size)
{
	if (ri->state != SC_RS_UNNEEDED || !r->partition || !r->proven_by || !isfinite(r->mine))
		return ri->message;
	bool tol = r->within > 0;
	char x[32], y[32];
	if (!r->better)
		snprintf(buf, size, "stopped: your partition %s %s",
		         tol ? "is optimal within " SC_LADDER_REL_TOL_TEXT " relative, proven by"
		             : "was proven optimal by",
		         r->proven_by);
	else
		snprintf(
		        buf, size,
		        "stopped: the optimum is %s%s, proven by %s; your partition is %s above it",
		        ui_num(r->upper, x, sizeof x),
		        tol ? " (within " SC_LADDER_REL_TOL_TEXT " relative)" : "", r->proven_by,
		        pct(gap_of(r->mine, r->upper), y, sizeof y));
	return buf;
}

/* The rungs asked for as the JSON array of `bounds --json`, their ratios
 * over upper (when feasible). */
static json_t *json_rungs(const bounds_report *rep)
{
	const sc_ladder *l = rep->l;
	unsigned rungs = rep->rungs;
	bool feasible = rep->feasible;
	double upper = rep->upper;
	int stages = rep->stages;
	char msg[256];
	json_t *arr = json_array();
	for (int r = 0; r < SC_RUNG_COUNT; r++) {
		if (!(rungs & (1u << r)))
			continue;
		sc_rung_info ri;
		sc_ladder_info(l, (sc_rung)r, &ri);
		json_t *row =
		        json_pack("{s:s, s:o, s:o, s:s, s:f}", "name", sc_rung_name((sc_rung)r),
		                  "value", json_num(ri.value), "ratio",
		                  feasible && isfinite(ri.value) ? json_real(ratio(ri.value, upper))
		                                                 : json_null(),
		                  "status", ui_rung_status_name(ri.state), "seconds", ri.seconds);
		/* a rung whose bound is infinite proved that no partition fits:
		 * its value (no number) is null, and this says why */
		json_object_set_new(row, "infeasible",
		                    json_boolean(ri.state != SC_RS_SKIPPED && isinf(ri.value)));
		if (ri.state == SC_RS_FAILED || ri.state == SC_RS_UNNEEDED ||
		    ri.state == SC_RS_SKIPPED || (ri.state == SC_RS_STOPPED && ri.message[0]))
			json_object_set_new(row, "message",
			                    json_string(rung_message(rep, &ri, msg, sizeof msg)));
		if (r == SC_RUNG_GUESS) {
			json_t *parts = json_array();
			for (int j = 1; j <= stages; j++) {
				sc_rung_state st;
				double v;
				sc_ladder_guess_part(l, j, &st, &v);
				json_array_append_new(parts,
				                      json_pack("{s:i, s:o, s:s, s:b}", "position",
				                                j, "value", json_num(v), "status",
				                                ui_rung_status_name(st),
				                                "infeasible", (int)isinf(v)));
			}
			json_object_set_new(row, "solves", parts);
		}
		json_array_append_new(arr, row);
	}
	return arr;
}

/* bounds --json; false when stdout fails. */
static bool print_json(const bounds_report *r)
{
	bool yours = r->partition != NULL;
	json_t *root = json_pack("{s:s, s:i, s:i}", "graph", r->g->name, "k", r->set->k, "cpus",
	                         r->set->cpus);
	json_object_set_new(root, "partition_bottleneck",
	                    yours && isfinite(r->mine) ? json_real(r->mine) : json_null());
	json_object_set_new(root, "partition_gap", json_num(r->mine_gap));
	/* true or false only when known: proven optimal, or beaten */
	bool known = yours && isfinite(r->mine) && (r->better || r->proven_by);
	json_object_set_new(root, "partition_optimal",
	                    known ? json_boolean(!r->better) : json_null());
	json_object_set_new(root, "partition_above_optimum",
	                    yours && isfinite(r->mine) && isfinite(r->optimum)
	                            ? json_num(gap_of(r->mine, r->optimum))
	                            : json_null());
	/* whether a partition fits: true when one was found, false when it is
	 * proven that none does (an infinite lower bound), null when unknown */
	json_object_set_new(root, "feasible",
	                    r->feasible       ? json_true()
	                    : isinf(r->lower) ? json_false()
	                    : r->ub_optimal   ? json_false()
	                                      : json_null());
	json_object_set_new(root, "upper_bound", r->feasible ? json_real(r->upper) : json_null());
	json_object_set_new(root, "upper_bound_method",
	                    json_string(r->improved || r->better ? "exact" : r->method));
	/* the best partition known is never shown not optimal (a better one
	 * would take its place): true when proven, else unknown */
	json_object_set_new(root, "upper_bound_optimal",
	                    r->feasible && r->proven_by ? json_true() : json_null());
	json_object_set_new(root, "optimum", json_num(r->optimum));
	json_object_set_new(root, "search_seconds", json_real(r->search_seconds));
	json_object_set_new(root, "lower_bound",
	                    isfinite(r->lower) ? json_real(r->lower) : json_null());
	json_object_set_new(root, "lower_bound_by", json_string(r->lower_by));
	json_object_set_new(root, "gap", json_num(r->gap));
	json_object_set_new(root, "proven_by",
	                    r->proven_by ? json_string(r->proven_by) : json_null());
	json_object_set_new(root, "optimal_within", json_num(r->within));
	json_object_set_new(root, "better_partition",
	                    r->better ? json_real(r->upper) : json_null());
	json_object_set_new(root, "better_partition_by",
	                    r->better ? json_string(r->better_by) : json_null());
	json_object_set_new(root, "better_partition_gain", json_num(r->gain));
	json_object_set_new(root, "partition_written",
	                    r->written ? sc_json_text(r->written) : json_null());
	json_object_set_new(root, "stages_used", json_integer(r->stages));
	if (r->set->cpus > 0)
		json_object_set_new(root, "cpus_used", json_integer(sc_ladder_cpus(r->l)));
	if (r->set->fleet) {
		char spec[256];
		sc_fleet_format(r->set->fleet, spec, sizeof spec);
		json_object_set_new(root, "fleet", json_string(spec));
	}
	if (r->set->cpus > 0 || r->set->fleet)
		json_object_set_new(root, "devices", r->dc ? sc_report_kinds(r->dc) : json_array());
	sc_rung in_error[SC_RUNG_COUNT];
	int nerror = rungs_in_error(r->l, r->rungs, in_error);
	json_t *failed = json_array();
	for (int i = 0; i < nerror; i++)
		json_array_append_new(failed, json_string(sc_rung_name(in_error[i])));
	json_object_set_new(root, "failed_rungs", failed);
	if (r->zero)
		json_object_set_new(root, "note", json_string(ZERO_NOTE));
	/* the settings the bounds hold for (render --bounds checks them) */
	json_object_set_new(root, "bandwidth", json_real(r->set->bandwidth));
	json_object_set_new(root, "memory",
	                    isinf(r->set->memory) ? json_null() : json_real(r->set->memory));
	json_object_set_new(root, "memory_unlimited", json_boolean(isinf(r->set->memory)));
	json_object_set_new(root, "memory_policy", json_string(sc_mem_policy_name(r->set->policy)));
	if (sc_graph_is_training(r->g))
		json_object_set_new(root, "schedule",
		                    json_string(sc_schedule_name(r->set->schedule)));
	json_object_set_new(root, "rungs", json_rungs(r));
	ui_json_costs(root, r->g);
	return ui_print_json(root);
}

/* bounds' text report; false when stdout fails. */
static bool print_text(const bounds_report *r)
{
	bool yours = r->partition != NULL;
	char b[32], c2[32], proof[160], head[160], msg[256];
	/* "name, k 4", with CPU stages "name, k 4, cpus 1", on a fleet
	 * "name, devices h100:2,a100:2" */
	char spec[128] = "";
	if (r->set->fleet)
		sc_fleet_format(r->set->fleet, spec, sizeof spec);
	int len = r->set->fleet ? snprintf(head, sizeof head, "%s, devices %s", r->g->name, spec)
	                        : snprintf(head, sizeof head, "%s, k %d", r->g->name, r->set->k);
	if (r->set->cpus > 0 && len > 0 && (size_t)len < sizeof head)
		snprintf(head + len, sizeof head - (size_t)len, ", cpus %d", r->set->cpus);
	if (yours && isfinite(r->mine))
		ui_print_line("%s: your partition %s (%s)", head, ui_num(r->mine, b, sizeof b),
		              r->partition);
	else if (yours)
		ui_print_line("%s: your partition breaks the hard memory limit (%s)", head,
		              r->partition);
	else
		ui_print_line("%s: upper bound %s (%s%s)", head,
		              r->feasible ? ui_num(r->upper, b, sizeof b) : "none",
		              r->improved ? sc_rung_label(SC_RUNG_EXACT) : r->method,
		              !r->ub_optimal ? ""
		              : r->feasible  ? ", proven optimal"
		                             : ": no partition fits, proven by the exact DP");
	if (r->set->cpus > 0)
		printf("  CPU stages: up to %d beside the %d accelerator stages, in any order; "
		       "each "
		       "rung bounds the optimum with them (stagecut(1), CPU stages)\n",
		       r->set->cpus, r->set->k);
	if (r->set->fleet)
		printf("  devices: each stage's kind chosen with the split; each rung bounds the "
		       "optimum on these devices (stagecut(1), Devices of several kinds)\n");
	if (r->dc)
		ui_print_devices(r->dc, stdout);
	ui_print_costs(r->g);
	if (r->dp->ran && !r->dp->proved)
		printf("  %s; the rungs bound the optimum\n", r->dp->why);
	/* on devices the MIP rungs model the bottleneck (ladder.h) */
	if (sc_graph_is_training(r->g) && r->set->schedule == SC_SCHEDULE_GPIPE)
		printf("  schedule GPipe: the upper bound is a GPipe objective (max forward + max "
		       "backward cost); %s\n",
		       r->set->cpus > 0 || r->set->fleet
		               ? "on devices the MIP rungs bound the bottleneck, which the GPipe "
		                 "objective never falls below: they bound the GPipe optimum, the "
		                 "exact one without solving it"
		               : "the MIP rungs bound the GPipe optimum, the exact one solves it");
	if (r->stages < r->set->k && !r->set->fleet)
		printf("  at most %d of the %d stages can be non-empty (one op or group each); the "
		       "bounds are those of %d stages, the other stages stay empty\n",
		       r->stages, r->set->k, r->stages);
	/* LB/UB: each bound over what the report is about (your partition) */
	printf("  rung          lower bound     LB/UB  status            seconds\n");
	for (int x = 0; x < SC_RUNG_COUNT; x++) {
		if (!(r->rungs & (1u << x)))
			continue;
		sc_rung_info ri;
		sc_ladder_info(r->l, (sc_rung)x, &ri);
		bool skipped = ri.state == SC_RS_SKIPPED; /* no value */
		printf("  %-12s %12s  %8s  %-16s %8.2f\n", sc_rung_name((sc_rung)x),
		       skipped ? "-" : ui_num(ri.value, b, sizeof b),
		       isfinite(r->about) && !skipped
		               ? (snprintf(c2, sizeof c2, "%.4f", ratio(ri.value, r->about)), c2)
		               : "-",
		       ui_rung_status_name(ri.state), ri.seconds);
		if (ri.state == SC_RS_FAILED || ri.state == SC_RS_UNNEEDED || skipped ||
		    (ri.state == SC_RS_STOPPED && ri.message[0]))
			printf("      %s\n", rung_message(r, &ri, msg, sizeof msg));
	}
	double about_gap = yours && isfinite(r->mine) ? r->mine_gap : r->gap;
	const char *subject = yours ? "your partition" : "the upper bound";
	/* your partition's proof is the upper bound's while it is the best */
	proof_text(proof, sizeof proof, subject, yours && r->better ? NULL : r->proven_by,
	           r->within);
	if (r->zero)
		printf("certified gap 0.00%%: %s\n", ZERO_NOTE);
	else if (isfinite(r->about) && isinf(about_gap))
		printf("certified gap unbounded: the best lower bound is 0\n");
	else if (isfinite(r->about) && r->better && r->within == 0 && r->lower >= r->upper)
		printf("certified gap %s (your partition / best lower bound - 1); the best lower "
		       "bound is the optimum, proven by %s, so the gap is exact\n",
		       pct(about_gap, c2, sizeof c2), r->proven_by);
	else if (isfinite(r->about))
		printf("certified gap %s (%s / best lower bound - 1)%s\n",
		       pct(about_gap, c2, sizeof c2), yours ? "your partition" : "upper", proof);
	/* a rung in error is named in the verdict: the gap above stands on
	 * the others (a failed rung keeps the floor it had) */
	sc_rung in_error[SC_RUNG_COUNT];
	int nfailed = rungs_in_error(r->l, r->rungs, in_error);
	char failed[128] = "";
	for (int i = 0; i < nfailed; i++) {
		size_t at = strlen(failed);
		snprintf(failed + at, sizeof failed - at, "%s%s", i ? ", " : "",
		         sc_rung_name(in_error[i]));
	}
	if (nfailed)
		printf("%d rung%s in error (%s): the bounds above stand on the others, and %s "
		       "the floor it had\n",
		       nfailed, nfailed == 1 ? "" : "s", failed,
		       nfailed == 1 ? "it keeps" : "each keeps");
	if (r->better) {
		/* its proof, else its own gap */
		char gain_text[80] = "", its[80];
		if (!isnan(r->gain))
			snprintf(gain_text, sizeof gain_text, ", %s better than yours",
			         pct(r->gain, c2, sizeof c2));
		proof_text(proof, sizeof proof, "it", r->proven_by, r->within);
		snprintf(its, sizeof its, "; its certified gap %s",
		         isinf(r->gap) ? "unbounded" : pct(r->gap, c2, sizeof c2));
		/* as many digits as tell it from yours */
		char yb[32];
		if (isfinite(r->mine) &&
		    strcmp(ui_num(r->upper, b, sizeof b), ui_num(r->mine, yb, sizeof yb)) == 0)
			snprintf(b, sizeof b, "%.10g", r->upper);
		printf("a better partition exists: %s (%s)%s%s\n", b,
		       r->improved ? sc_rung_label(SC_RUNG_EXACT) : "exact DP", gain_text,
		       r->proven_by ? proof : its);
	}
	if (r->written)
		ui_print_line("%s written to %s",
		              r->better || !yours ? "best partition" : "your partition",
		              r->written);
	fflush(stdout);
	return !ferror(stdout);
}

/* What ui_cmd_bounds works with, from the upper bound to the report. */
typedef struct bounds_run {
	sc_graph *g;
	sc_settings set;
	ui_budget budget;
	bool tty, devices; /* devices: CPU stages or a fleet (bounds_devices.h) */
	sc_engine *e;
	int *stage, *kind;  /* the best partition's stages, and on devices kinds */
	int nstages;        /* its stages */
	const char *method; /* what gave the upper bound */
	double upper, mine; /* mine: -p's objective (INFINITY over a hard limit) */
	double search_seconds;
	bool ub_optimal, dp_better;
	dp_run dp;
	ui_devices_upper cu; /* on devices: the best partition's kinds */
} bounds_run;

/* -p without devices: the file's partition is the upper bound, unless the
 * exact DP, when it finishes, proves a better one.  Returns the exit
 * status. */
static int upper_of_file(const ui_opts *o, bounds_run *b)
{
	sc_error err;
	int k2;
	sc_status st = sc_part_load(o->partition, b->g, b->set.k, &k2, b->stage, NULL, &err);
	if (st != SC_OK) {
		ui_error("%s", err.msg);
		return ui_exit_status(st);
	}
	sc_costs *c = sc_costs_new(b->g, &b->set, &err);
	if (!c) {
		ui_error("%s", err.msg);
		return UI_EXIT_INPUT;
	}
	sc_costs_eval(c, b->stage);
	b->upper = b->mine = sc_costs_objective(c);
	sc_costs_free(c);
	b->method = "partition";
	/* the exact DP, when it finishes, proves the optimum: the upper bound
	 * is then yours when it is as good, else the DP's */
	int status = run_dp(o, b->e, b->g, &b->set, &b->budget, b->tty, &b->dp);
	if (status != UI_EXIT_OK)
		return status;
	b->search_seconds = b->dp.seconds;
	if (b->dp.proved && b->dp.value < b->mine) {
		memcpy(b->stage, b->dp.stage, (size_t)b->g->n * sizeof *b->stage);
		b->upper = b->dp.value;
		b->dp_better = true;
	}
	b->ub_optimal = b->dp.proved;
	return UI_EXIT_OK;
}

/* No -p: the search's partition (on devices the method the devices' own
 * search chose) is the upper bound.  Returns the exit status. */
static int upper_of_search(const ui_opts *o, bounds_run *b)
{
	sc_error err;
	sc_search_params p;
	ui_search_params(o, &p);
	p.time_limit = ui_budget_search_now(&b->budget);
	/* ^C also stops what the search does before its first step (counting
	 * the ideals for `best`) */
	p.interrupted = ui_interrupted;
	/* on devices and no DP: the method's search on them (brkga when the DP
	 * could not finish) */
	if (b->devices)
		p.method = b->cu.method;
	int id = sc_engine_add_search(b->e, b->g, &b->set, &p, &err);
	if (id < 0) {
		ui_error("bounds: %s: %s", b->g->source, err.msg);
		return UI_EXIT_INPUT;
	}
	sc_job_info ji = wait_search(b->e, id, b->tty);
	if (ji.state == SC_JOB_FAILED) {
		ui_error("bounds: %s: %s", b->g->source, ji.message);
		return UI_EXIT_INPUT;
	}
	b->upper = sc_engine_result(b->e, id, b->stage, &b->ub_optimal);
	b->search_seconds = ji.elapsed;
	if (b->devices && isfinite(b->upper) && !sc_engine_result_kinds(b->e, id, b->kind)) {
		ui_error("bounds: %s: the search gave no devices for its stages", b->g->source);
		return UI_EXIT_INPUT;
	}
	return UI_EXIT_OK;
}

/* The upper bound the ladder starts from: on devices the devices' own
 * (bounds_devices.h), else -p's partition or the search's.  Returns the
 * exit status. */
static int find_upper(const ui_opts *o, bounds_run *b)
{
	if (b->devices) {
		int status = ui_bounds_devices_upper(o, b->g, &b->budget, b->stage, &b->cu);
		if (status != UI_EXIT_OK)
			return status;
		b->upper = b->cu.upper;
		b->mine = b->cu.mine;
		b->ub_optimal = b->cu.optimal;
		b->method = b->cu.method;
		b->search_seconds = b->cu.seconds;
		b->nstages = b->cu.nstages;
		/* room for the ladder's partition too (the fleet's stages at most) */
		int K = sc_settings_stages(&b->set);
		b->kind = calloc((size_t)(b->nstages > K ? b->nstages : K), sizeof *b->kind);
		if (!b->kind) {
			ui_error("out of memory");
			return UI_EXIT_INPUT;
		}
		if (b->cu.kind)
			memcpy(b->kind, b->cu.kind, (size_t)b->nstages * sizeof *b->kind);
		if (!b->cu.fallback)
			return UI_EXIT_OK;
	}
	return o->partition ? upper_of_file(o, b) : upper_of_search(o, b);
}

/* No partition fits (or none was found): says which, and how it is known.
 * Returns the exit status (UI_EXIT_INFEASIBLE). */
static int say_none_fits(const ui_opts *o, const bounds_run *b, double lower)
{
	const sc_graph *g = b->g;
	const char *found = isinf(lower) ? "no" : "the search found no";
	const char *proof = b->ub_optimal && isinf(lower) ? "; proven by the exact DP" : "";
	if (b->set.fleet)
		ui_error("bounds: %s: %s partition on the devices %s fits (the hard memory limit, "
		         "or ops no kind may run)%s",
		         g->source, found, o->devices, proof);
	else if (b->set.cpus > 0)
		ui_error(
		        "bounds: %s: %s partition into %d accelerator and up to %d CPU stages fits "
		        "(the hard memory limit, or ops no device may hold)%s",
		        g->source, found, b->set.k, b->set.cpus, proof);
	else
		ui_error(
		        "bounds: %s: %s partition into %d stages keeps every stage within the hard "
		        "memory limit",
		        g->source, isinf(lower) || b->ub_optimal ? "no" : "the search found no",
		        b->set.k);
	return UI_EXIT_INFEASIBLE;
}

/* The report of the ladder l run from b's upper bound: the best partition
 * (the exact MIP's when it found a better one, into b), the best lower
 * bound and what proved what. */
static bounds_report report_of(const ui_opts *o, bounds_run *b, const sc_ladder *l, unsigned rungs)
{
	/* stage keeps the partition as given or found unless the exact MIP
	 * found a better one (on devices of any number of stages) */
	double best_upper =
	        sc_ladder_take_upper(l, b->upper, 0, b->stage, b->devices ? b->kind : NULL,
	                             b->devices ? &b->nstages : NULL);
	bool improved = best_upper < b->upper;
	double upper = b->upper = best_upper, lower = sc_ladder_lower(l);
	const char *lower_by = "ladder";
	if (b->ub_optimal && !improved && upper > lower) {
		/* the exact DP over ideals proved the search's partition optimal */
		lower = upper;
		lower_by = "dp";
	}
	if (b->cu.relaxed && b->cu.dp_value > lower) {
		/* the exact DP with each stage's io over its own link */
		lower = b->cu.dp_value;
		lower_by = "dp";
	}
	bool feasible = isfinite(upper);
	const char *proven_by = NULL;
	double within = NAN; /* the proof's tolerance (sc_ladder_proof_tolerance) */
	if (feasible && b->ub_optimal && !improved) {
		proven_by = "the exact DP";
		within = 0;
	} else if (feasible && sc_ladder_proven(l, &proven_by)) {
		within = sc_ladder_proof_tolerance(l);
	} else {
		proven_by = NULL;
	}
	/* -p and the exact DP found better than yours: the DP's partition is
	 * the upper bound, proven optimal */
	bool yours = o->partition != NULL;
	bool better = yours && (improved || b->dp_better) && feasible;
	bounds_report r = {.g = b->g,
	                   .set = &b->set,
	                   .l = l,
	                   .rungs = rungs,
	                   .partition = o->partition,
	                   .method = b->method,
	                   .mine = b->mine,
	                   .upper = upper,
	                   .lower = lower,
	                   .lower_by = lower_by,
	                   .search_seconds = b->search_seconds,
	                   .improved = improved,
	                   .ub_optimal = b->ub_optimal,
	                   .feasible = feasible,
	                   .proven_by = proven_by,
	                   .within = within,
	                   .dp = &b->dp,
	                   .better = better,
	                   .better_by = improved ? "the exact MIP" : "the exact DP",
	                   .optimum = proven_by ? upper : NAN};
	r.gap = gap_of(upper, lower);
	/* your partition (-p): its own gap, and a better one found apart */
	r.mine_gap = yours ? gap_of(b->mine, lower) : NAN;
	r.gain = better && isfinite(b->mine) && b->mine > 0 ? (b->mine - upper) / b->mine : NAN;
	/* what the report is about: your partition, else the upper bound */
	r.about = yours && isfinite(b->mine) ? b->mine : upper;
	r.zero = feasible && r.about == 0;
	/* the stages that can be non-empty: of the graph's device (with CPU
	 * stages, cpus_used counts those), or on a fleet all its stages */
	r.stages = b->set.fleet ? sc_ladder_stages_all(l) : sc_ladder_stages(l);
	return r;
}

int ui_cmd_bounds(const ui_opts *o)
{
	/* -t T bounds the whole run, loading included: the search a quarter
	 * of it at most (or --search-time), the rungs the rest (each at most T,
	 * or --rung-time) */
	int status = UI_EXIT_OK;
	unsigned rungs = SC_RUNGS_ALL;
	if (o->rungs && !ui_parse_rungs(o->rungs, &rungs))
		return UI_EXIT_INPUT;
	bounds_run b = {.budget = ui_budget_of(o),
	                .method = o->method ? o->method : "best",
	                .upper = INFINITY,
	                .mine = NAN,
	                .dp = {.value = INFINITY},
	                .tty = isatty(STDERR_FILENO)};
	b.g = ui_load(o->pos[0], o, &status);
	if (!b.g)
		return status;
	sc_graph *g = b.g;
	b.set = g->settings;
	b.devices = b.set.cpus > 0 || b.set.fleet;
	b.nstages = b.set.k;
	b.stage = sc_part_new(g);
	sc_ladder *l = NULL;
	sc_costs *dc = NULL;
	sc_error err;
	ui_interrupts saved;
	ui_catch_interrupts(&saved);
	if (!b.stage) {
		ui_error("out of memory");
		status = UI_EXIT_INPUT;
		goto out;
	}
	if (o->partition && o->k <= 0 && !b.devices) {
		/* no -k: the partition file's k, as eval and render take it */
		int fk;
		sc_status st = sc_part_load(o->partition, g, 0, &fk, b.stage, NULL, &err);
		if (st != SC_OK) {
			ui_error("%s", err.msg);
			status = ui_exit_status(st);
			goto out;
		}
		b.set.k = b.nstages = fk;
	}
	if (b.set.k < 1) {
		ui_error("bounds: %s does not set k; give -k K", g->source);
		status = UI_EXIT_INPUT;
		goto out;
	}
	if (!(b.e = sc_engine_new(0, &err))) {
		ui_error("%s", err.msg);
		status = UI_EXIT_INPUT;
		goto out;
	}
	if ((status = find_upper(o, &b)) != UI_EXIT_OK)
		goto out;
	sc_ladder_params lp = {.rungs = rungs,
	                       .time_limit = b.budget.rung,
	                       .deadline = b.budget.deadline,
	                       .upper = b.upper,
	                       .start = isfinite(b.upper) ? b.stage : NULL,
	                       .start_kind = b.kind,
	                       .stop_at_proof = !o->all_rungs,
	                       .upper_optimal = b.ub_optimal};
	if (!(l = sc_ladder_new(b.e, g, &b.set, &lp, &err))) {
		ui_error("bounds: %s", err.msg);
		status = UI_EXIT_INPUT;
		goto out;
	}
	ladder_view view = {.l = l, .rungs = rungs, .tty = b.tty, .last = -1};
	sc_ladder_wait(b.e, l, ladder_turn, &view);
	if (b.tty)
		ui_progress_done();
	bounds_report r = report_of(o, &b, l, rungs);
	if (b.devices && r.feasible && !(dc = best_costs(g, &b.set, b.stage, b.nstages, b.kind))) {
		status = UI_EXIT_INPUT;
		goto out;
	}
	r.dc = dc;
	if (!r.feasible)
		status = say_none_fits(o, &b, r.lower);
	if (r.feasible && o->output) {
		if (!dc && !(dc = best_costs(g, &b.set, b.stage, b.nstages, NULL))) {
			status = UI_EXIT_INPUT;
			goto out;
		}
		if (!write_best(o->output, g, b.stage, dc, &status))
			goto out;
	}
	r.written = r.feasible ? o->output : NULL;
	if (o->json ? !print_json(&r) : !print_text(&r))
		status = UI_EXIT_INPUT;
out:
	sc_ladder_free(l);
	sc_engine_free(b.e);
	ui_release_interrupts(&saved);
	free(b.stage);
	sc_costs_free(dc);
	free(b.kind);
	free(b.cu.kind);
	free(b.dp.stage);
	sc_graph_free(g);
	if (status == UI_EXIT_OK && ui_interrupted())
		status = ui_interrupt_status();
	return status;
}
