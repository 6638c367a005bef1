/*
 * cmd_calibrate.c - `stagecut calibrate [--device BASE] [--precision P]
 * -o OUT.profile RUN...`: a device profile fitted to measured op times.
 *
 * Each RUN is MODEL.onnx,TIMES[,DIM=VALUE...]: an ONNX model, the op times
 * measured on the device (a CSV or an ONNX Runtime profile, as --times
 * reads them) and the values of its symbolic dims for that run.  Every run
 * is loaded with its times (core/formats/times.h maps them to ops); each op
 * whose work is now measured and > 0 becomes one sample of the fit
 * (core/calibrate.h), with the FLOPs, bytes and GEMM sizes the ONNX import
 * computed for it at the run's precision.  The base device gives the
 * datasheet (peaks, bandwidths, memory, link) and the numbers the fit
 * starts from; the fitted profile is written atomically to OUT in the
 * format --device FILE reads (sc_device_format), so it serves any model and
 * batch at that precision.  Run, then print: calibrate_run loads, fits and
 * writes; calibrate_print reports the fit per kind.  Every bad input (a
 * RUN that does not parse, a missing file, a times file naming no op of its
 * model, a DIM the model does not have, -o naming an input) is one message
 * naming the file, exit 2, before anything is written.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/ui.h"
#include "tui/cmd/outputs.h"
#include "core/calibrate.h"
#include "core/fileio.h"
#include "core/formats/load.h"
#include "core/formats/times.h"
#include "core/parse.h"

/* One RUN argument split at its commas (the copy owns the strings). */
typedef struct calib_run {
	char *copy;
	const char *model, *times;
	int ndims;
	const char *dim_name[UI_MAX_DIMS];
	long long dim_value[UI_MAX_DIMS];
	int ops; /* samples it gave */
} calib_run;

typedef struct calib_result {
	sc_device base, fit;
	sc_precision prec;
	sc_calib_result res;
	int nruns;
} calib_result;

/* arg into r; false after a message */
static bool parse_run(const char *arg, calib_run *r)
{
	*r = (calib_run){0};
	r->copy = strdup(arg);
	if (!r->copy) {
		ui_error("out of memory");
		return false;
	}
	char *save = NULL;
	int field = 0;
	for (char *f = strtok_r(r->copy, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
		if (field == 0) {
			r->model = f;
		} else if (field == 1) {
			r->times = f;
		} else {
			char *eq = strchr(f, '=');
			long long v = 0;
			char *end = NULL;
			if (eq)
				v = strtoll(eq + 1, &end, 10);
			if (!eq || eq == f || !end || end == eq + 1 || *end || v < 1 ||
			    r->ndims == UI_MAX_DIMS) {
				ui_error(
				        "calibrate: run '%s': '%s' is not DIM=VALUE (a name and an "
				        "integer >= 1; at most %d)",
				        arg, f, UI_MAX_DIMS);
				return false;
			}
			*eq = '\0';
			r->dim_name[r->ndims] = f;
			r->dim_value[r->ndims++] = v;
		}
		field++;
	}
	if (field < 2) {
		ui_error("calibrate: run '%s': expected MODEL.onnx,TIMES[,DIM=VALUE...]", arg);
		return false;
	}
	return true;
}

/* Loads run r at R's precision and appends its measured ops to *s (*n of
 * them, *cap allocated); returns the exit status, having printed the error
 * when it is not UI_EXIT_OK. */
static int load_run(const ui_opts *o, calib_result *R, calib_run *r, sc_calib_sample **s, int *n,
                    int *cap)
{
	sc_onnx_report rep = {0};
	sc_times_report trep = {0};
	sc_load_opts lo = {.device = o->device,
	                   .precision = sc_precision_name(R->prec),
	                   .ndims = r->ndims,
	                   .dim_name = r->dim_name,
	                   .dim_value = r->dim_value,
	                   .report = &rep,
	                   .times = r->times,
	                   .times_report = &trep};
	sc_error err;
	sc_error_clear(&err);
	sc_graph *g = sc_load_with(r->model, &lo, &err);
	int status = UI_EXIT_OK;
	if (!g) {
		ui_error("%s", err.msg);
		status = UI_EXIT_INPUT;
		goto out;
	}
	if (!rep.filled || !g->work_source) {
		ui_error("calibrate: %s: not an ONNX model (calibrate fits the costs of ONNX "
		         "imports)",
		         r->model);
		status = UI_EXIT_INPUT;
		goto out;
	}
	for (int i = 0; i < r->ndims; i++) {
		bool used = false;
		for (int j = 0; j < rep.ndims; j++)
			used |= strcmp(rep.dim_name[j], r->dim_name[i]) == 0;
		if (!used) {
			ui_error("calibrate: %s: the model has no dimension '%s'", r->model,
			         r->dim_name[i]);
			status = UI_EXIT_INPUT;
			goto out;
		}
	}
	for (int v = 0; v < g->n && v < rep.nops; v++) {
		if (g->work_source[v] != SC_WORK_MEASURED || !(g->work[v] > 0) ||
		    rep.op_size[v].flops < 0)
			continue;
		if (*n == *cap) {
			int c = *cap ? 2 * *cap : 1024;
			sc_calib_sample *t = realloc(*s, (size_t)c * sizeof *t);
			if (!t) {
				ui_error("out of memory");
				status = UI_EXIT_INPUT;
				goto out;
			}
			*s = t, *cap = c;
		}
		(*s)[(*n)++] = (sc_calib_sample){rep.op_size[v], R->prec, g->work[v]};
		r->ops++;
	}
	if (r->ops == 0) {
		ui_error("calibrate: %s: no op of %s has a measured time > 0", r->times, r->model);
		status = UI_EXIT_INPUT;
	}
out:
	sc_graph_free(g);
	sc_onnx_report_fini(&rep);
	return status;
}

/* -o naming a model or times file of a run: false after a message */
static bool output_apart(const ui_opts *o, const calib_run *runs, int nruns)
{
	for (int i = 0; i < nruns; i++) {
		const char *in[2] = {runs[i].model, runs[i].times};
		for (int j = 0; j < 2; j++)
			if (ui_same_file(o->output, in[j])) {
				ui_error("%s: -o names a file the command reads (%s): the output "
				         "would replace it; write to another file",
				         o->output, in[j]);
				return false;
			}
	}
	return true;
}

/* OUT's file name without its directory and a ".profile" ending */
static void profile_name(const char *out, char *buf, size_t size)
{
	const char *base = strrchr(out, '/');
	base = base ? base + 1 : out;
	size_t len = strlen(base);
	if (len > 8 && strcmp(base + len - 8, ".profile") == 0)
		len -= 8;
	snprintf(buf, size, "%.*s", (int)len, base);
}

static int calibrate_run(const ui_opts *o, calib_run *runs, calib_result *R)
{
	sc_error err;
	sc_error_clear(&err);
	if (!o->output) {
		ui_error("calibrate: -o OUT.profile is needed (the profile to write)");
		return UI_EXIT_INPUT;
	}
	for (int i = 0; i < o->npos; i++)
		if (!parse_run(o->pos[i], &runs[i]))
			return UI_EXIT_INPUT;
	if (!output_apart(o, runs, o->npos))
		return UI_EXIT_INPUT;
	if (sc_device_get(o->device, &R->base, &err) != SC_OK ||
	    sc_device_precision(&R->base, o->precision, &R->prec, &err) != SC_OK) {
		ui_error("%s", err.msg);
		return UI_EXIT_INPUT;
	}
	sc_calib_sample *s = NULL;
	int n = 0, cap = 0, status = UI_EXIT_OK;
	for (int i = 0; i < o->npos && status == UI_EXIT_OK; i++)
		status = load_run(o, R, &runs[i], &s, &n, &cap);
	R->nruns = o->npos;
	R->fit = R->base;
	if (status == UI_EXIT_OK && sc_calibrate_fit(&R->fit, s, n, NULL, &R->res, &err) != SC_OK) {
		ui_error("calibrate: %s", err.msg);
		status = UI_EXIT_INPUT;
	}
	free(s);
	if (status != UI_EXIT_OK)
		return status;
	profile_name(o->output, R->fit.name, sizeof R->fit.name);
	snprintf(R->fit.calibration, sizeof R->fit.calibration,
	         "fitted by stagecut calibrate to %d measured ops of %d run%s at %s, from %.60s", n,
	         R->nruns, R->nruns == 1 ? "" : "s", sc_precision_name(R->prec), R->base.name);
	char *text = NULL;
	size_t len = 0;
	if (sc_device_format(&R->fit, R->prec, &text, &len, &err) != SC_OK ||
	    sc_file_write_atomic(o->output, text, len, &err) != SC_OK) {
		ui_error("%s", err.msg);
		status = UI_EXIT_INPUT;
	}
	free(text);
	return status;
}

static json_t *stats_json(const sc_calib_stats *st)
{
	return json_pack("{s:o, s:o}", "median",
	                 isnan(st->median) ? json_null() : json_real(st->median), "worst",
	                 isnan(st->worst) ? json_null() : json_real(st->worst));
}

static void calibrate_print_json(const ui_opts *o, const calib_result *R)
{
	const sc_calib_result *r = &R->res;
	json_t *kinds = json_object();
	for (int k = 0; k < SC_OPK_N; k++) {
		const sc_device *d = &R->fit;
		json_object_set_new(kinds, sc_op_kind_name((sc_op_kind)k),
		                    json_pack("{s:i, s:b, s:o, s:o, s:f, s:f, s:f}", "ops",
		                              r->kind_ops[k], "fitted", r->kind_ops[k] > 0,
		                              "ratio_before", stats_json(&r->before[k]),
		                              "ratio_after", stats_json(&r->after[k]),
		                              "overhead_us", d->overhead_us[k], "compute_eff",
		                              d->compute_eff[k], "mem_eff", d->mem_eff[k]));
	}
	json_t *root =
	        json_pack("{s:s, s:o, s:o, s:s, s:i, s:i, s:f, s:f, s:o, s:o, s:o}", "profile",
	                  o->output, "device", sc_json_text(R->fit.name), "base",
	                  sc_json_text(R->base.name), "precision", sc_precision_name(R->prec),
	                  "runs", R->nruns, "ops", r->ops, "error_before", r->loss_before,
	                  "error_after", r->loss_after, "ratio_before", stats_json(&r->all_before),
	                  "ratio_after", stats_json(&r->all_after), "kinds", kinds);
	char *text = root ? json_dumps(root, JSON_INDENT(2) | JSON_ENSURE_ASCII) : NULL;
	if (text)
		printf("%s\n", text);
	else
		ui_error("out of memory");
	free(text);
	json_decref(root);
}

static void print_row(const char *kind, int ops, const sc_calib_stats *before,
                      const sc_calib_stats *after)
{
	printf("%-12s %5d  %7.3f %7.3f  %7.3f %7.3f\n", kind, ops, before->median, before->worst,
	       after->median, after->worst);
}

static void calibrate_print(const ui_opts *o, const calib_run *runs, const calib_result *R)
{
	if (o->json) {
		calibrate_print_json(o, R);
		return;
	}
	const sc_calib_result *r = &R->res;
	for (int i = 0; i < R->nruns; i++)
		ui_print_line("run %-3d %s, %s: %d measured ops", i + 1, runs[i].model,
		              runs[i].times, runs[i].ops);
	ui_print_line("fit     %d ops at %s from %s, %d rounds of coordinate descent", r->ops,
	              sc_precision_name(R->prec), R->base.name, r->rounds);
	printf("%-20s%-17s%s\n", "predicted/measured", "before", "after the fit");
	printf("%-12s %5s  %7s %7s  %7s %7s\n", "kind", "ops", "median", "worst", "median",
	       "worst");
	for (int k = 0; k < SC_OPK_N; k++) {
		const char *kn = sc_op_kind_name((sc_op_kind)k);
		if (r->kind_ops[k] == 0)
			ui_print_line("%-12s %5d  no measured op: %s's numbers kept", kn, 0,
			              R->base.name);
		else
			print_row(kn, r->kind_ops[k], &r->before[k], &r->after[k]);
	}
	print_row("all", r->ops, &r->all_before, &r->all_after);
	printf("error   mean |log(predicted / measured)|, weighted by sqrt(measured): %.4f -> "
	       "%.4f\n",
	       r->loss_before, r->loss_after);
	ui_print_line("wrote   %s (--device %s --precision %s)", o->output, o->output,
	              sc_precision_name(R->prec));
}

int ui_cmd_calibrate(const ui_opts *o)
{
	calib_run *runs = calloc((size_t)o->npos, sizeof *runs);
	calib_result *R = calloc(1, sizeof *R);
	int status = UI_EXIT_INPUT;
	if (!runs || !R)
		ui_error("out of memory");
	else if ((status = calibrate_run(o, runs, R)) == UI_EXIT_OK)
		calibrate_print(o, runs, R);
	for (int i = 0; runs && i < o->npos; i++)
		free(runs[i].copy);
	free(runs);
	free(R);
	return status;
}
