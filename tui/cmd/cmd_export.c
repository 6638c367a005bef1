/*
 * cmd_export.c - `stagecut export FILE PARTITION --format pytorch|deepspeed
 * [--align DEPTH] [-o OUT]`: a partition as the split points a framework
 * takes.
 *
 * Run, then print: export_run loads the graph and the
 * partition, computes the split points (core/formats/export.h has the
 * rules) and has the writer --format chose from the registry spell them,
 * into an export_result; export_print writes that text to stdout, or to OUT
 * atomically with -o.  A partition that is well formed but not exportable
 * (a module split across stages, a stage going back along the program
 * order, a stage not beginning at a module) exits 1, as eval's invalid
 * partitions do; bad input exits 2.  Nothing is written unless the whole
 * text was made.  A partition on devices (solve --cpus, --devices) has
 * its stages' kinds named in the text.
 */
#include <stdio.h>
#include <stdlib.h>

#include "tui/ui.h"
#include "core/fileio.h"
#include "core/fleet.h"
#include "core/formats/export.h"
#include "core/formats/partition_file.h"
#include "core/modules.h"
#include "core/partition.h"

/* What export computed: the writer's text. */
typedef struct export_result {
	char *text; /* malloc'd, len bytes */
	size_t len;
} export_result;

/* Prints the failure st of the plan or the writer; returns the exit
 * status: 1 for a partition that does not export, 2 for the rest.  The
 * library's messages are export's to give, out of memory's as every
 * command gives it. */
static int export_failed(sc_status st, const sc_error *err)
{
	if (st == SC_ERR_NOMEM)
		ui_error("out of memory");
	else
		ui_error("export: %s", err->msg);
	return ui_exit_status(st);
}

/* Warns of what the text leaves to the user: stages that hold no op, and
 * for DeepSpeed's list the modules the exporter folded away. */
static void export_warn(const sc_export_plan *p, const sc_export_writer *writer)
{
	if (p->used < p->k)
		ui_error("export: warning: %d of the %d stages of %s hold no op; the frameworks "
		         "take "
		         "no empty stage, so the export has %d",
		         p->k - p->used, p->k, p->partition, p->used);
	if (writer != &sc_export_deepspeed || !p->nfolded)
		return;
	int first = 0;
	while (!p->folded[first])
		first++;
	ui_error("export: warning: %d layer%s ('%s'%s) run%s a module torch.onnx folded away (a "
	         "BatchNorm: the convolution reads a weight named onnx::Conv_N), which the file "
	         "does not name: add it after each layer marked 'folded'",
	         p->nfolded, p->nfolded == 1 ? "" : "s",
	         p->m->m[sc_modules_called(p->m, p->layers->module[first])].name,
	         p->nfolded > 1 ? ", ..." : "", p->nfolded == 1 ? "s" : "");
}

/* Loads, plans and writes with writer into r; returns the exit status,
 * having printed the error when it is not UI_EXIT_OK. */
static int export_run(const ui_opts *o, const sc_export_writer *writer, export_result *r)
{
	int status = UI_EXIT_OK;
	sc_graph *g = ui_load(o->pos[0], o, &status);
	if (!g)
		return status;
	sc_error err;
	sc_error_clear(&err);
	sc_modules *m = NULL;
	sc_export_plan plan = {0};
	int *stage = sc_part_new(g), k = 0, *kind = NULL;
	const char **device = NULL; /* each stage's kind's name, when the file names them */
	if (!stage) {
		status = export_failed(SC_ERR_NOMEM, &err);
		goto out;
	}
	/* the devices: --devices, or the file's own (CPU stages, kinds) */
	sc_fleet fleet;
	sc_status st = ui_part_load_devices("export", o, g, o->pos[1], &k, stage, &fleet, &kind,
	                                    NULL, &err);
	if (st != SC_OK) {
		ui_error("%s", err.msg);
		status = ui_exit_status(st);
		goto out;
	}
	if (kind && !(device = calloc((size_t)k, sizeof *device))) {
		status = export_failed(SC_ERR_NOMEM, &err);
		goto out;
	}
	for (int s = 0; device && s < k; s++)
		device[s] = fleet.kind[kind[s]].name;
	m = sc_modules_new(g, &err);
	if (!m) {
		ui_error("%s", err.msg);
		status = UI_EXIT_INPUT;
		goto out;
	}
	st = sc_export_plan_init(&plan, g, m, stage, k, o->align, o->pos[1], &err);
	plan.device = device;
	if (st == SC_OK)
		st = writer->write(&plan, &r->text, &r->len, &err);
	if (st == SC_OK)
		export_warn(&plan, writer);
	if (st != SC_OK)
		status = export_failed(st, &err);
out:
	sc_export_plan_fini(&plan);
	free(device);
	free(kind);
	free(stage);
	sc_modules_free(m);
	sc_graph_free(g);
	return status;
}

/* Writes r's text to -o OUT (atomically) or stdout; returns the exit
 * status, having printed the error when it is not UI_EXIT_OK. */
static int export_print(const ui_opts *o, const export_result *r)
{
	if (!o->output) {
		fwrite(r->text, 1, r->len, stdout);
		return UI_EXIT_OK;
	}
	sc_error err;
	if (sc_file_write_atomic(o->output, r->text, r->len, &err) != SC_OK) {
		ui_error("%s", err.msg);
		return UI_EXIT_INPUT;
	}
	return UI_EXIT_OK;
}

int ui_cmd_export(const ui_opts *o)
{
	char names[256];
	if (!o->format) {
		ui_error("export: give %s",
		         sc_export_writer_names(names, sizeof names, "--format "));
		return UI_EXIT_INPUT;
	}
	const sc_export_writer *writer = sc_export_writer_find(o->format);
	if (!writer) {
		ui_error("export: --format '%s' is not %s", o->format,
		         sc_export_writer_names(names, sizeof names, ""));
		return UI_EXIT_INPUT;
	}
	export_result r = {0};
	int status = export_run(o, writer, &r);
	if (status == UI_EXIT_OK)
		status = export_print(o, &r);
	free(r.text);
	return status;
}
