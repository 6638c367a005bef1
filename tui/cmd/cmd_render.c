/*
 * cmd_render.c - `stagecut render FILE [PARTITION] -o OUT`: a picture of a
 * partition through Graphviz (viz/): the stage graph by default, every op
 * clustered by stage with --full, the graph itself without a partition.
 *
 * The partition is, in order: the PARTITION file; the graph file's own
 * stages; or, with -k, the default search's result (bounded by --time).
 * --bounds takes `stagecut bounds --json` output for the caption's lower
 * bound and gap; it must be about the same graph, k and settings, and its
 * bound may not exceed the partition's bottleneck (which would mean it was
 * computed for something else; under GPipe, the GPipe objective).
 *
 * A training graph is drawn too, its backward pass apart (viz/); a second
 * line of text and, with --json, the schedule, the objective and every
 * stage's cost split by pass say so.  Inference output is unchanged.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui/ui.h"
#include "outputs.h"
#include "render_caption.h"
#include "render_report.h"
#include "core/cost.h"
#include "core/formats/partition_file.h"
#include "core/parse.h"
#include "core/formats/load.h"
#include "core/mem.h"
#include "core/formats/onnx.h"
#include "core/partition.h"
#include "core/report.h"
#include "core/timeline.h"
#include "solvers/search.h"
#include "viz/full.h"
#include "viz/layout.h"
#include "viz/quotient.h"
#include "viz/timeline_draw.h"

/* Fills *stagep (malloc'd, the caller's to free) from the PARTITION file,
 * the graph's own stages or a search;
 * sets set->k, and from a file its devices: *kind (malloc'd, k kinds, or
 * NULL: every stage the graph's own device) into *fleet, set settled on
 * it (ui_settings_fleet).  Returns the exit status (UI_EXIT_OK to go on). */
static int find_partition(const ui_opts *o, const sc_graph *g, int file_k, sc_settings *set,
                          int **stagep, sc_fleet *fleet, int **kind, const char **from)
{
	sc_error err;
	sc_error_clear(&err);
	*kind = NULL;
	/* malloc, not sc_part_new's calloc (which bypasses glibc's tcache):
	 * --full's layout depends on heap addresses inside Graphviz, and
	 * calloc here changed the picture of regal-er-200-4 in
	 * scripts/golden.sh */
	int *stage = *stagep = sc_malloc_n((size_t)g->n, sizeof *stage);
	if (!stage) {
		ui_error("out of memory");
		return UI_EXIT_INPUT;
	}
	if (o->npos > 1) {
		const char *path = o->pos[1];
		int k;
		/* the file's k counts the CPU stages too; -k may give it or,
		 * as solve --cpus takes it, the accelerator stages alone */
		sc_status st = ui_part_load_devices("render", o, g, path, &k, stage, fleet, kind,
		                                    NULL, &err);
		if (st != SC_OK && st != SC_ERR_INVALID) {
			ui_error("%s", err.msg);
			return ui_exit_status(st);
		}
		/* a k other than asked is bad input before an invalid partition
		 * (as sc_part_load has it) */
		int ncpu = 0;
		for (int s = 0; *kind && s < k; s++)
			ncpu += fleet->kind[(*kind)[s]].cpu;
		if (!o->devices && o->k > 0 && o->k != k && o->k != k - ncpu) {
			if (ncpu == 0)
				ui_error("%s: the partition has k = %d, but k = %d is asked for",
				         path, k, o->k);
			else
				ui_error("%s: the partition has %d accelerator stage%s and %d CPU "
				         "stage%s, but -k %d is asked for",
				         path, k - ncpu, k - ncpu == 1 ? "" : "s", ncpu,
				         ncpu == 1 ? "" : "s", o->k);
			return UI_EXIT_INPUT;
		}
		if (st != SC_OK) {
			ui_error("%s", err.msg);
			return ui_exit_status(st);
		}
		if (!ui_check_part_kinds("render", path, g, fleet, *kind, k, o))
			return UI_EXIT_INPUT;
		set->k = k;
		ui_settings_fleet(set, g, fleet);
		*from = path;
		return UI_EXIT_OK;
	}
	if (g->init_stage && (o->k <= 0 || o->k == file_k)) {
		memcpy(stage, g->init_stage, (size_t)g->n * sizeof *stage);
		sc_violation viol;
		if (!sc_part_check(g, stage, set->k, &viol)) {
			char why[SC_PART_WHY_SIZE];
			sc_part_describe(g, stage, &viol, why, sizeof why);
			ui_error("%s: the file's own stages are invalid: %s", g->source, why);
			return UI_EXIT_INFEASIBLE;
		}
		*from = "the graph file";
		return UI_EXIT_OK;
	}
	sc_search_params p;
	ui_search_params(o, &p);
	sc_search *s = sc_search_new(g, set, &p, &err);
	if (!s) {
		ui_error("render: %s: %s", g->source, err.msg);
		return UI_EXIT_INPUT;
	}
	bool tty = isatty(STDERR_FILENO);
	/* ^C stops the search and the command, writing nothing */
	ui_interrupts saved;
	ui_catch_interrupts(&saved);
	while (!ui_interrupted() && sc_search_step(s))
		if (tty) {
			sc_progress pr;
			sc_search_progress(s, &pr);
			ui_progress("search %s: %ld evals, %.1f s", pr.phase, pr.evals, pr.elapsed);
		}
	if (tty)
		ui_progress_done();
	ui_release_interrupts(&saved);
	int status = UI_EXIT_OK;
	bool optimal;
	if (ui_interrupted()) {
		ui_error("render: interrupted during the search; nothing written");
		status = ui_interrupt_status();
	} else if (sc_search_error(s)) {
		ui_error("render: %s: %s", g->source, sc_search_error(s)->msg);
		status = UI_EXIT_INPUT;
	} else if (!(*kind = calloc((size_t)sc_settings_stages(set), sizeof **kind))) {
		ui_error("out of memory");
		status = UI_EXIT_INPUT;
	} else if (!isfinite(sc_search_result_kinds(s, stage, *kind, &optimal))) {
		ui_error(
		        "render: %s: %s partition into %d stages keeps every stage within the hard "
		        "memory limit",
		        g->source, optimal ? "no" : "the search found no", sc_settings_stages(set));
		status = UI_EXIT_INFEASIBLE;
	}
	/* the picture's stages: with devices every stage of the search's
	 * partition, the CPUs' too */
	set->k = sc_settings_stages(set);
	sc_search_free(s);
	*from = "the search";
	return status;
}

/* render --timeline: the pipeline schedule of stage over m micro-batches
 * drawn to o->output; with --json the schedule as eval --timeline gives it.
 * Returns the exit status. */
static int render_timeline(const ui_opts *o, const sc_graph *g, const sc_settings *set,
                           const int *stage, const int *kind, const char *format, const char *from)
{
	sc_error err;
	sc_error_clear(&err);
	int status = UI_EXIT_OK;
	sc_timeline *tl = NULL;
	sc_costs *c = sc_costs_new(g, set, &err);
	if (!c) {
		ui_error("%s", err.msg);
		return UI_EXIT_INPUT;
	}
	sc_costs_set_kinds(c, kind); /* a CPU lane computes only */
	sc_costs_eval(c, stage);
	int m = o->batches ? o->batches : sc_timeline_default_batches(set->k);
	tl = sc_timeline_new(c, m, set->schedule, &err);
	if (!tl) {
		ui_error("render: %s", err.msg);
		status = ui_exit_status(err.code);
		goto out;
	}
	if (sc_timeline_draw(tl, g->name, g->time_unit, o->output, format, &err) != SC_OK) {
		ui_error("render: %s", err.msg);
		status = ui_exit_status(err.code);
		goto out;
	}
	if (o->json) {
		json_t *root =
		        json_pack("{s:s, s:o, s:s, s:s, s:i, s:o}", "graph", g->name, "output",
		                  sc_json_text(o->output), "format", format, "picture", "timeline",
		                  "k", set->k, "partition", sc_json_text(from));
		json_t *tj = sc_report_timeline(tl, g->time_unit);
		if (!root || !tj) {
			json_decref(root);
			json_decref(tj);
			ui_error("out of memory");
			status = UI_EXIT_INPUT;
			goto out;
		}
		json_object_set_new(root, "timeline", tj);
		if (sc_costs_names_devices(c, set->k))
			json_object_set_new(root, "devices", sc_report_kinds(c));
		if (!ui_print_json(root))
			status = UI_EXIT_INPUT;
		goto out;
	}
	char b1[32], b2[32];
	ui_print_line("%s: the timeline of %s, k %d (partition from %s), %d micro-batches, "
	              "period %s, latency %s",
	              o->output, g->name, set->k, from, m, ui_num(tl->period, b1, sizeof b1),
	              ui_num(tl->latency, b2, sizeof b2));
out:
	sc_timeline_free(tl);
	sc_costs_free(c);
	return status;
}

/* The picture of every op (--full, or a graph without a partition), which
 * may take pages: drawn into a staging directory beside -o and moved into
 * place only once every page is drawn (outputs.h), then the pages of an
 * earlier, longer picture at -o removed.  ^C or SIGTERM while drawing
 * drops what was drawn and sets *stopped (SC_OK returned).
 * Returns what sc_render_full returns, err naming -o's files. */
static sc_status render_every_op(const ui_opts *o, const sc_graph *g, const sc_settings *set,
                                 const int *stage, const sc_caption *cap, const char *format,
                                 const sc_full_opts *fo, sc_full_result *fr, bool *stopped,
                                 sc_error *err)
{
	ui_staging stg;
	sc_status st = ui_staging_open(&stg, o->output, err);
	if (st != SC_OK)
		return st;
	ui_interrupts saved;
	ui_catch_interrupts(&saved);
	st = sc_render_full(g, set, stage, cap, format, stg.path, fo, fr, err);
	if (ui_interrupted()) {
		ui_staging_abort(&stg);
		ui_release_interrupts(&saved);
		*stopped = true;
		return SC_OK;
	}
	if (st != SC_OK) {
		ui_staging_rename_in(&stg, o->output, err->msg, sizeof err->msg);
		ui_staging_abort(&stg);
	} else {
		/* a signal now is held until every file is in place */
		st = ui_staging_commit(&stg, o->output, fr->pages, err);
	}
	ui_release_interrupts(&saved);
	char a[4096], z[4096];
	int stale = st == SC_OK ? ui_remove_stale_pages(o->output, fr->pages, a, z, sizeof a) : 0;
	if (stale == 1)
		ui_error("note: removed %s, a page of an earlier picture at %s", a, o->output);
	else if (stale > 1)
		ui_error("note: removed %d pages of an earlier picture at %s, %s to %s", stale,
		         o->output, a, z);
	return st;
}

/* The picture's format: -T, else OUT's extension; NULL after a message
 * when there is no -o, no format, or a timeline's format is not one a
 * timeline is drawn in. */
static const char *output_format(const ui_opts *o)
{
	if (!o->output) {
		ui_error("render: give the picture's file with -o OUT (its extension or -T names "
		         "the format)");
		return NULL;
	}
	const char *format = o->format ? o->format : ui_file_extension(o->output);
	if (!format) {
		ui_error("render: %s: say the format with -T (png, svg, pdf, dot) or a file "
		         "extension",
		         o->output);
		return NULL;
	}
	if (o->timeline && !sc_timeline_format_ok(format)) {
		ui_error("render: %s: a timeline is drawn as svg, png or pdf, not %s", o->output,
		         format);
		return NULL;
	}
	return format;
}

/* Loads FILE by hand (to know the file's own k, into *file_k, before -k
 * overrides it) with o's settings and devices, and the caption's device and
 * dims, which only an ONNX model's report knows.  NULL after a message. */
static sc_graph *load_graph(const ui_opts *o, char *device, size_t dsize, char *dims,
                            size_t dimsize, int *file_k)
{
	sc_error err;
	sc_error_clear(&err);
	sc_onnx_report rep = {0};
	sc_graph *g = ui_load_file(o->pos[0], o, &rep, &err);
	if (rep.filled)
		ui_render_caption_device(&rep, device, dsize, dims, dimsize);
	*file_k = g ? g->settings.k : 0;
	if (g)
		ui_opts_apply(o, &g->settings);
	/* --devices: each kind's op times (loaded with the graph) checked */
	bool costed = g && ui_graph_devices(g, o);
	sc_onnx_report_fini(&rep);
	if (!g) {
		ui_error("%s", err.msg);
		return NULL;
	}
	if (costed && sc_graph_check_totals(g, &g->settings, &err) != SC_OK) { /* -B, -M */
		ui_error("%s", err.msg);
		costed = false;
	}
	if (!costed) {
		sc_graph_free(g);
		return NULL;
	}
	return g;
}

/* Draws q's stage graph, or (--full, or no partition) every op, to
 * o->output in format; *scale and *fr say how.  Returns the exit status,
 * after a message when it is not UI_EXIT_OK. */
static int draw(const ui_opts *o, const sc_graph *g, const sc_settings *set, const int *stage,
                const int *kind, const sc_quotient *q, sc_caption *cap, const char *format,
                double *scale, sc_full_result *fr)
{
	sc_error err;
	sc_error_clear(&err);
	sc_full_opts fo = {.stop = ui_interrupted,
	                   .max_ops = o->max_ops,
	                   .depth = o->depth,
	                   .page_units = o->page_ops < 0 ? SC_FULL_PAGE_UNITS : o->page_ops,
	                   .kind = kind};
	bool stopped = false;
	sc_status st;
	if (q && !o->full) {
		st = sc_render_quotient(q, cap, format, o->output, scale, &err);
	} else {
		st = render_every_op(o, g, set, stage, cap, format, &fo, fr, &stopped, &err);
		*scale = fr->scale;
	}
	if (stopped) {
		ui_error("render: interrupted while drawing; nothing written");
		return ui_interrupt_status();
	}
	if (st != SC_OK) {
		if (st == SC_ERR_INPUT && g->n > (o->max_ops > 0 ? o->max_ops : SC_FULL_MAX_OPS))
			ui_error("render: %s (--max-ops N)%s", err.msg,
			         stage ? "" : "; give -k K or a partition for the stage graph");
		else
			ui_error("render: %s", err.msg);
		return UI_EXIT_INPUT;
	}
	return UI_EXIT_OK;
}

int ui_cmd_render(const ui_opts *o)
{
	const char *format = output_format(o);
	if (!format)
		return UI_EXIT_INPUT;
	sc_error err;
	sc_error_clear(&err);
	char device[120] = "", dims[400] = "";
	int status = UI_EXIT_OK, file_k = 0;
	sc_graph *g = load_graph(o, device, sizeof device, dims, sizeof dims, &file_k);
	if (!g)
		return UI_EXIT_INPUT;
	/* a training graph is drawn too, its backward pass apart (viz/) */
	sc_settings set = g->settings;
	int *stage = NULL;
	sc_fleet fleet;        /* the partition file's devices */
	int *kind = NULL;      /* its stages' kinds, or NULL: the graph's own device */
	json_t *stages = NULL; /* a training graph's cost per stage and pass (--json) */
	const char *from = NULL;
	bool staged = o->npos > 1 || g->init_stage || o->k > 0;
	char by[64];
	sc_caption cap = {.title = g->name,
	                  .lower = NAN,
	                  .costs = g->cost_short,
	                  .unit = g->time_unit ? g->time_unit : "time units",
	                  .device = device,
	                  .dims = dims};
	if (o->bounds && !staged) {
		ui_error("render: --bounds needs a partition (PARTITION or -k K) to compare with");
		status = UI_EXIT_INPUT;
		goto out;
	}
	if (staged) {
		status = find_partition(o, g, file_k, &set, &stage, &fleet, &kind, &from);
		if (status != UI_EXIT_OK)
			goto out;
	}
	if (o->timeline) {
		if (!staged) {
			ui_error("render: --timeline needs a partition (PARTITION or -k K)");
			status = UI_EXIT_INPUT;
		} else {
			status = render_timeline(o, g, &set, stage, kind, format, from);
		}
		goto out;
	}
	double bottleneck = NAN, objective = NAN;
	int at = 0;
	sc_quotient *q = NULL;
	if (staged) {
		q = sc_quotient_new_kinds(g, &set, stage, kind, &err);
		if (!q) {
			ui_error("%s", err.msg);
			status = UI_EXIT_INPUT;
			goto out;
		}
		bottleneck = q->bottleneck_cost;
		objective = q->objective; /* the GPipe objective or the bottleneck */
		at = q->bottleneck;
		if (o->json && q->training && !(stages = ui_render_training_stages(q))) {
			ui_error("out of memory");
			sc_quotient_free(q);
			status = UI_EXIT_INPUT;
			goto out;
		}
	}
	if (o->bounds &&
	    !ui_render_caption_bounds(o, g, &set, &cap, by, sizeof by, objective, bottleneck)) {
		sc_quotient_free(q);
		status = UI_EXIT_INPUT;
		goto out;
	}
	const char *picture = !staged ? "graph" : o->full ? "full" : "stages";
	double scale = 1;
	sc_full_result fr = {.scale = 1};
	char devices[160] = "";
	json_t *names = ui_render_device_names(q);
	if (q)
		sc_quotient_devices(q, devices, sizeof devices);
	status = draw(o, g, &set, stage, kind, q, &cap, format, &scale, &fr);
	sc_quotient_free(q);
	if (status != UI_EXIT_OK) {
		json_decref(names);
		goto out;
	}
	if (scale < 1)
		fprintf(stderr,
		        "stagecut: note: %s is too large for a %s bitmap at full size and was "
		        "drawn "
		        "at %.0f%%; svg or pdf keep every label sharp\n",
		        o->output, format, 100 * scale);
	ui_render_report r = {.g = g,
	                      .set = &set,
	                      .o = o,
	                      .format = format,
	                      .picture = picture,
	                      .staged = staged,
	                      .from = from,
	                      .devices = devices,
	                      .device_names = names,
	                      .bottleneck = bottleneck,
	                      .objective = objective,
	                      .at = at,
	                      .lower = cap.lower,
	                      .gap = sc_caption_gap(objective, cap.lower),
	                      .scale = scale,
	                      .pages = fr.pages,
	                      .overview_depth = fr.overview_depth,
	                      .stages = stages};
	stages = NULL; /* the report's now */
	if (!(o->json ? ui_render_print_json(&r) : ui_render_print_text(&r)))
		status = UI_EXIT_INPUT;
	json_decref(r.stages);
	json_decref(names);
out:
	json_decref(stages);
	free(kind);
	free(stage);
	sc_graph_free(g);
	return status;
}
