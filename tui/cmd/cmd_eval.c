/*
 * cmd_eval.c - `stagecut eval FILE PARTITION`: stage costs, bottleneck and
 * validity.  An invalid partition (stage out of range, an edge that breaks
 * its rule of the stage order, a split group) or one over a hard memory
 * limit exits 1 and says why.  Training graphs are taken: each stage's
 * cost by pass, and the objective under the schedule.  --timeline adds
 * the pipeline schedule of core/timeline.h (its figures; with --json every
 * segment).  A partition file naming CPU stages (001 section 3) shows each
 * stage's device; a CPU stage costs its ops' CPU times, and its timeline
 * lane computes only (core/timeline.h); a file written by solve --devices
 * names each stage's kind.  The file's devices stand without --cpus or
 * --devices; a --cpus below them, or GPipe, is refused
 * (ui_check_part_kinds).
 */
#include <math.h>
#include <stdlib.h>

#include "tui/ui.h"
#include "core/cost.h"
#include "core/formats/partition_file.h"
#include "core/parse.h"
#include "core/partition.h"
#include "core/report.h"
#include "core/timeline.h"

/* The timeline's figures, one line each, then the idle fraction per stage. */
static void print_timeline(const sc_timeline *t, const char *unit)
{
	char a[32], b[32], c[32], d[32], e[32];
	printf("timeline: %d micro-batches, %s   [%s]\n", t->m,
	       t->training ? sc_schedule_name(t->schedule) : "inference",
	       unit ? unit : "time units");
	printf("  makespan %s  period %s  throughput %s per time unit\n",
	       ui_num(t->makespan, a, sizeof a), ui_num(t->period, b, sizeof b),
	       ui_num(t->throughput, c, sizeof c));
	printf("  latency %s  fill %s  drain %s  bottleneck %s (stage %d%s%s)\n",
	       ui_num(t->latency, a, sizeof a), ui_num(t->fill, b, sizeof b),
	       ui_num(t->drain, d, sizeof d), ui_num(t->bottleneck, e, sizeof e),
	       t->bottleneck_at + 1,
	       t->cpu[t->bottleneck_at] ? ", CPU"
	       : t->device              ? ", "
	                                : "",
	       t->device && !t->cpu[t->bottleneck_at] ? t->device[t->bottleneck_at] : "");
	printf("  idle:");
	for (int s = 0; s < t->k; s++)
		printf(" %d:%.1f%%", s + 1, 100 * t->idle[s]);
	printf("\n");
	if (t->cpus > 0) {
		/* CPU stages (001 section 3): their lanes compute only */
		printf("  CPU lanes (compute only, no communication):");
		for (int s = 0; s < t->k; s++)
			if (t->cpu[s])
				printf(" %d", s + 1);
		printf("\n");
	}
}

/* What eval found, for its printers (compute, then print). */
typedef struct eval_report {
	const sc_graph *g;
	const char *path; /* the partition file */
	int k;
	bool valid, feasible;
	const char *why;   /* the violation, when not valid or not feasible */
	bool kinds;        /* --devices, or a file naming devices: each stage's kind (in c) */
	bool given;        /* --devices */
	bool assigned;     /* --devices on a file that names none: kinds placed */
	const sc_costs *c; /* NULL when a stage number is out of range */
	double bottleneck;
	int at;
	sc_schedule schedule;
	const sc_timeline *tl; /* --timeline, or NULL */
} eval_report;

/* eval --json: one object.  False after a message (out of memory) or when
 * it could not be written. */
static bool print_json(const eval_report *r)
{
	const sc_graph *g = r->g;
	json_t *root = json_pack("{s:s, s:o, s:i, s:b, s:b}", "graph", g->name, "partition",
	                         sc_json_text(r->path), "k", r->k, "valid", (int)r->valid,
	                         "feasible", (int)r->feasible);
	if (!r->valid || !r->feasible)
		json_object_set_new(root, "violation", json_string(r->why));
	if (r->kinds && r->c)
		json_object_set_new(root, "devices", sc_report_kinds(r->c));
	if (r->given)
		json_object_set_new(root, "devices_placed", json_boolean(r->assigned));
	if (r->c) {
		json_object_set_new(root, "bottleneck", json_real(r->bottleneck));
		json_object_set_new(root, "bottleneck_stage", json_integer(r->at + 1));
		json_object_set_new(root, "stages", sc_report_stages(r->c));
		json_t *obj = sc_report_objective(r->c);
		if (obj) {
			json_object_set_new(
			        root, "objective",
			        json_real(r->schedule == SC_SCHEDULE_GPIPE
			                          ? json_real_value(json_object_get(obj, "gpipe"))
			                          : r->bottleneck));
			json_object_set_new(root, "training", obj);
		}
	} else {
		json_object_set_new(root, "bottleneck", json_null());
		json_object_set_new(root, "bottleneck_stage", json_null());
		json_object_set_new(root, "stages", json_array());
	}
	if (r->tl) {
		json_t *tj = sc_report_timeline(r->tl, g->time_unit);
		if (!tj) {
			json_decref(root);
			ui_error("out of memory");
			return false;
		}
		json_object_set_new(root, "timeline", tj);
	}
	ui_json_costs(root, g);
	return ui_print_json(root);
}

/* eval's lines: the stage table, the bottleneck and objective, the costs'
 * origin, the devices and the timeline when there are any, then valid, or
 * why not.  True (a failed write is told at exit, ui_main). */
static bool print_text(const eval_report *r)
{
	const sc_graph *g = r->g;
	ui_print_line("%s, partition %s, k %d", g->name, r->path, r->k);
	if (r->c) {
		ui_print_stage_table(r->c, stdout);
		char b[32];
		printf("bottleneck %s (stage %d)   [%s; params and tensors in bytes]\n",
		       ui_num(r->bottleneck, b, sizeof b), r->at + 1,
		       g->time_unit ? g->time_unit : "time units");
		ui_print_objective(r->c, "", stdout);
		ui_print_costs(g);
		if (r->kinds)
			ui_print_devices(r->c, stdout);
		if (r->assigned)
			printf("the file names no devices: each stage has the kind that makes the "
			       "bottleneck least (--devices)\n");
	}
	if (r->tl)
		print_timeline(r->tl, g->time_unit);
	if (r->valid && r->feasible)
		printf("valid\n");
	else /* names ops */
		ui_print_line("%s: %s", r->valid ? "infeasible" : "invalid", r->why);
	return true;
}

int ui_cmd_eval(const ui_opts *o)
{
	int status = UI_EXIT_OK;
	sc_graph *g = ui_load(o->pos[0], o, &status);
	if (!g)
		return status;
	int *stage = sc_part_new(g);
	sc_costs *c = NULL;
	sc_timeline *tl = NULL;
	sc_error err;
	sc_error_clear(&err);
	int k = 0;
	if (!stage) {
		ui_error("out of memory");
		status = UI_EXIT_INPUT;
		goto out;
	}
	/* an invalid partition is still reported, with its costs, and exits 1 */
	sc_violation viol;
	/* the devices: --devices, or the file's own (001's CPU stages, or the
	 * kinds a solve --devices wrote) */
	int *kind = NULL; /* each stage's kind, or NULL: --devices places them */
	sc_fleet fleet;
	sc_status st = ui_part_load_devices("eval", o, g, o->pos[1], &k, stage, &fleet, &kind,
	                                    &viol, &err);
	if (st != SC_OK && st != SC_ERR_INVALID) {
		ui_error("%s", err.msg);
		status = ui_exit_status(st);
		goto out;
	}
	if (!ui_check_part_kinds("eval", o->pos[1], g, &fleet, kind, k, o)) {
		status = UI_EXIT_INPUT;
		goto out;
	}
	sc_settings set = g->settings;
	set.k = k;
	ui_settings_fleet(&set, g, &fleet);
	bool valid = st == SC_OK;
	char why[SC_PART_WHY_SIZE];
	sc_part_describe(g, stage, &viol, why, sizeof why);
	/* costs are meaningful unless a stage number is out of range */
	if (viol.kind != SC_VIOL_RANGE) {
		c = sc_costs_new(g, &set, &err);
		if (!c) {
			ui_error("%s", err.msg);
			status = UI_EXIT_INPUT;
			goto out;
		}
		if (o->devices && !kind) {
			if (!sc_costs_assign_kinds(c, stage, NULL)) {
				ui_error("eval: out of memory");
				status = UI_EXIT_INPUT;
				goto out;
			}
		} else {
			sc_costs_set_kinds(c, kind);
			sc_costs_eval(c, stage);
		}
	}
	int at = 0;
	double bottleneck = c ? sc_costs_bottleneck(c, &at) : NAN;
	bool feasible = c ? sc_costs_feasible(c) : false;
	for (int s = 0; valid && !feasible && s < k; s++)
		if (c->st[s].over_memory) {
			sc_mem_parts p = sc_costs_memory_parts(c, s);
			char part[64] = "";
			if (g->acts)
				snprintf(part, sizeof part, " (its largest part: %s)",
				         sc_mem_parts_largest(&p));
			snprintf(
			        why, sizeof why,
			        "stage %d holds %.17g bytes of %s%s, over the hard memory limit of "
			        "%.17g",
			        s + 1, c->st[s].need, g->acts ? "memory" : "parameters", part,
			        sc_costs_stage_memory(c, s));
			break;
		}
	status = valid && feasible ? UI_EXIT_OK : UI_EXIT_INFEASIBLE;
	if (c && o->timeline) {
		int m = o->batches ? o->batches : sc_timeline_default_batches(k);
		tl = sc_timeline_new(c, m, set.schedule, &err);
		if (!tl) {
			ui_error("%s", err.msg);
			status = ui_exit_status(err.code);
			goto out;
		}
	}

	eval_report r = {.g = g,
	                 .path = o->pos[1],
	                 .k = k,
	                 .valid = valid,
	                 .feasible = feasible,
	                 .why = why,
	                 .kinds = o->devices != NULL || (c && sc_costs_names_devices(c, k)),
	                 .given = o->devices != NULL,
	                 .assigned = o->devices && !kind,
	                 .c = c,
	                 .bottleneck = bottleneck,
	                 .at = at,
	                 .schedule = set.schedule,
	                 .tl = tl};
	if (o->json ? !print_json(&r) : !print_text(&r))
		status = UI_EXIT_INPUT;
out:
	sc_timeline_free(tl);
	sc_costs_free(c);
	free(kind);
	free(stage);
	sc_graph_free(g);
	return status;
}
