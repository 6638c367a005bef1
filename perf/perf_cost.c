/*
 * perf_cost.c - how good the device model is for partitioning, measured
 * against op times measured on the device (DESIGN.md, where costs come from).
 *
 * For every run of a measured-times file (samples/h100/measured.json: model,
 * dims, dtype, each ONNX node's time), the model is loaded twice with the
 * same device, precision (fp16 runs: fp16; fp32 runs, which ran with TF32
 * allowed: tf32) and dims: once with the device model's costs, once with
 * the measured times (--times, through a CSV this program writes; Constant,
 * Shape and ConstantOfShape count 0, as the data's README says).  Both have
 * the same io and memory.  For k = 2, 4, 8 the exact DP finds the optimum of
 * each; then
 *   regret    = measured bottleneck of the model's optimum / the measured optimum
 *   pred/meas = the model's bottleneck of its optimum / its measured bottleneck
 * The goals (fp16, default h100 profile): median regret <= 1.05, worst
 * <= 1.25, median pred/meas in 0.8 .. 1.25.
 *
 * --fit prints the overheads, efficiencies and GEMM halves that fit the
 * measured op times best: the mean of |log(model / measured)| over every op
 * of every run, each weighted by the square root of its measured time (a
 * robust fit: the harness's outliers, such as ViT's qkv MatMul at 70 us,
 * cannot pull it; --l2 squares the errors instead, --power P weighs by
 * the time to the power P), by coordinate descent from the device's own
 * numbers (core/calibrate.h: the fit `stagecut calibrate` runs); the h100
 * profile in core/device.c holds its result (--write
 * FILE saves it as a profile file; --exclude MODEL leaves that model's
 * runs out).  It fits the overheads, the efficiencies, the halves of the
 * three GEMM kinds, strided_eff and the cache.  PERF_COST_DUMP=1 prints
 * every op's model and measured time.
 *
 * --cross benches each model under the fit to the other models (leave one
 * model out): what the calibration promises for a model it has not seen.
 *
 * The models a run names are looked for beside MEASURED.json (in its onnx/
 * folder, then its own), then in samples/h100/onnx/ and samples/onnx/.
 *
 *   build/perf-cost [--fit [--l2] [--power P] [--write FILE] [--exclude MODEL] | --cross]
 *                   [--device D] [MEASURED.json]
 */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/calibrate.h"
#include "core/cost.h"
#include "core/fileio.h"
#include "core/formats/load.h"
#include "core/formats/onnx.h"
#include "core/formats/times.h"
#include "solvers/search.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	if (n == 0)
		return NAN;
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* the model file of a run: beside the measured file (DIR/onnx/, DIR/), else
 * in samples/h100/onnx/ or samples/onnx/ (the models the data names) */
static void model_path(const char *measured, const char *model, char *buf, size_t size)
{
	const char *slash = strrchr(measured, '/');
	int dir = slash ? (int)(slash - measured) : 1;
	const char *base = slash ? measured : ".";
	const char *const fmt[] = {"%.*s/onnx/%s", "%.*s/%s"};
	for (int i = 0; i < 2; i++) {
		snprintf(buf, size, fmt[i], dir, base, model);
		if (access(buf, R_OK) == 0)
			return;
	}
	snprintf(buf, size, "samples/h100/onnx/%s", model);
	if (access(buf, R_OK) != 0)
		snprintf(buf, size, "samples/onnx/%s", model);
}

/* one op of one run, for the fit */
typedef struct sample {
	sc_op_size size;
	double measured;
	sc_precision prec;
	int run; /* its run's index in the file */
} sample;

typedef struct samples {
	sample *s;
	int n, cap;
} samples;

static void add_sample(samples *S, sample x)
{
	if (S->n == S->cap) {
		S->cap = S->cap ? 2 * S->cap : 4096;
		S->s = realloc(S->s, (size_t)S->cap * sizeof *S->s);
		if (!S->s) {
			fprintf(stderr, "perf-cost: out of memory\n");
			exit(1);
		}
	}
	S->s[S->n++] = x;
}

/* the exact optimum of g at k; stage per op into stage */
static double optimum(const sc_graph *g, int k, int *stage)
{
	sc_settings set = g->settings;
	set.k = k;
	sc_search_params p;
	sc_search_params_init(&p);
	p.method = "exact";
	p.time_limit = 120;
	sc_error err;
	sc_error_clear(&err);
	sc_search *s = sc_search_new(g, &set, &p, &err);
	if (!s || sc_search_run(s, &err) != SC_OK) {
		fprintf(stderr, "perf-cost: %s: exact at k=%d: %s\n", g->name, k, err.msg);
		sc_search_free(s);
		return NAN;
	}
	bool opt = false;
	double f = sc_search_result(s, stage, &opt);
	sc_search_free(s);
	return opt ? f : NAN;
}

static double bottleneck(const sc_graph *g, int k, const int *stage)
{
	sc_settings set = g->settings;
	set.k = k;
	sc_error err;
	sc_costs *c = sc_costs_new(g, &set, &err);
	if (!c)
		return NAN;
	sc_costs_eval(c, stage);
	double f = sc_costs_bottleneck(c, NULL);
	sc_costs_free(c);
	return f;
}

typedef struct run_result {
	double regret[3], ratio[3];
	bool fp16;
} run_result;

static const int ks[3] = {2, 4, 8};

/* the run being loaded (the samples' run) */
static int current_run;

/* loads one run both ways; returns false when it cannot */
static bool do_run(json_t *run, const char *measured, const char *device, const char *csv,
                   samples *S, bool fit, run_result *out)
{
	const char *model = json_string_value(json_object_get(run, "model"));
	const char *dtype = json_string_value(json_object_get(run, "dtype"));
	json_t *dims = json_object_get(run, "dims"), *ops = json_object_get(run, "ops");
	if (!model || !dtype || !json_is_object(ops))
		return false;
	char path[512];
	model_path(measured, model, path, sizeof path);
	const char *prec = strcmp(dtype, "fp16") == 0 ? "fp16" : "tf32";
	out->fp16 = strcmp(dtype, "fp16") == 0;
	/* the measured times as a CSV */
	sc_times *t = sc_times_new("measured.json");
	sc_error err;
	sc_error_clear(&err);
	const char *name;
	json_t *op;
	json_object_foreach(ops, name, op)
	{
		const char *type = json_string_value(json_object_get(op, "op"));
		json_t *gu = json_object_get(op, "graph_us");
		double us = json_is_number(gu) ? json_number_value(gu)
		                               : json_number_value(json_object_get(op, "eager_us"));
		if (type && (!strcmp(type, "Constant") || !strcmp(type, "Shape") ||
		             !strcmp(type, "ConstantOfShape")))
			us = 0;
		if (sc_times_add(t, name, us, &err) != SC_OK) {
			fprintf(stderr, "perf-cost: %s\n", err.msg);
			sc_times_free(t);
			return false;
		}
	}
	bool ok = sc_times_write_csv(t, csv, &err) == SC_OK;
	sc_times_free(t);
	if (!ok) {
		fprintf(stderr, "perf-cost: %s\n", err.msg);
		return false;
	}
	const char *dn[8];
	long long dv[8];
	int nd = 0;
	const char *key;
	json_t *val;
	json_object_foreach(dims, key, val)
	{
		if (nd < 8) {
			dn[nd] = key;
			dv[nd++] = json_integer_value(val);
		}
	}
	sc_onnx_report rep = {0};
	sc_load_opts lo = {.device = device,
	                   .precision = prec,
	                   .ndims = nd,
	                   .dim_name = dn,
	                   .dim_value = dv,
	                   .report = &rep};
	sc_graph *gm = sc_load_with(path, &lo, &err);
	sc_onnx_report rep2 = {0};
	lo.report = &rep2;
	lo.times = csv;
	sc_graph *gt = gm ? sc_load_with(path, &lo, &err) : NULL;
	if (!gm || !gt || gm->n != gt->n) {
		fprintf(stderr, "perf-cost: %s\n", err.msg);
		sc_graph_free(gm);
		sc_graph_free(gt);
		sc_onnx_report_fini(&rep);
		sc_onnx_report_fini(&rep2);
		return false;
	}
	char dimtext[64] = "";
	for (int i = 0; i < nd; i++)
		snprintf(dimtext + strlen(dimtext), sizeof dimtext - strlen(dimtext), "%s=%lld",
		         dn[i], dv[i]);
	if (getenv("PERF_COST_DUMP"))
		for (int v = 0; v < gm->n; v++)
			printf("op\t%s\t%s\t%s\t%s\t%d\t%g\t%g\t%g\t%g\t%g\t%g\t%g\n", model,
			       dimtext, dtype, gm->op_name[v], rep.op_size[v].kind,
			       rep.op_size[v].flops, rep.op_size[v].bytes, gm->work[v], gt->work[v],
			       rep.op_size[v].m, rep.op_size[v].n, rep.op_size[v].k);
	if (fit) {
		for (int v = 0; v < gm->n; v++)
			if (rep.op_size[v].flops >= 0 && gt->work[v] > 0)
				add_sample(S, (sample){rep.op_size[v], gt->work[v], rep.precision,
				                       current_run});
	} else {
		int *pm = malloc((size_t)gm->n * sizeof *pm),
		    *pt = malloc((size_t)gm->n * sizeof *pt);
		double wm = sc_graph_total_work(gm), wt = sc_graph_total_work(gt);
		printf("%-26s %-5s %-5s %4d ops  total model/measured %6.3f", model, dimtext, dtype,
		       gm->n, wm / wt);
		for (int i = 0; i < 3; i++) {
			double fm = optimum(gm, ks[i], pm), ft = optimum(gt, ks[i], pt);
			double ftm = bottleneck(gt, ks[i], pm);
			out->regret[i] = ftm / ft;
			out->ratio[i] = fm / ftm;
			printf("  k=%d %5.3f %5.3f", ks[i], out->regret[i], out->ratio[i]);
		}
		printf("\n");
		fflush(stdout);
		free(pm);
		free(pt);
	}
	sc_graph_free(gm);
	sc_graph_free(gt);
	sc_onnx_report_fini(&rep);
	sc_onnx_report_fini(&rep2);
	return true;
}

/* ---- the fit ------------------------------------------------------------------ */

/* each op's log error weighs its measured time to this power: 0 counts
 * every op alike, 1 weighs them by the time they take */
static double fit_power = 0.5;
/* absolute instead of squared log errors: a robust fit, which a few
 * outliers of the measurement cannot pull */
static bool fit_l1 = true;

/* d fitted to the samples by the fit `stagecut calibrate` runs
 * (core/calibrate.h); prints the error before and after, and the numbers,
 * when verbose */
static void fit(sc_device *d, const samples *S, bool verbose)
{
	sc_calib_sample *cs = malloc((size_t)(S->n > 0 ? S->n : 1) * sizeof *cs);
	if (!cs) {
		fprintf(stderr, "perf-cost: out of memory\n");
		exit(1);
	}
	for (int i = 0; i < S->n; i++)
		cs[i] = (sc_calib_sample){S->s[i].size, S->s[i].prec, S->s[i].measured};
	sc_calib_params p;
	sc_calib_params_init(&p);
	p.power = fit_power;
	p.l2 = !fit_l1;
	sc_calib_result res;
	sc_error err;
	sc_error_clear(&err);
	sc_status st = sc_calibrate_fit(d, cs, S->n, &p, &res, &err);
	free(cs);
	if (st != SC_OK) {
		fprintf(stderr, "perf-cost: %s\n", err.msg);
		exit(1);
	}
	if (!verbose)
		return;
	const char *what = fit_l1 ? "mean |log(model/measured)|" : "mean log(model/measured)^2";
	printf("before: %s %.3f\n", what, res.loss_before);
	printf("fit over %d ops: %s %.3f\n", S->n, what, res.loss_after);
	printf("  strided convolutions reach %.3f of their kind's compute efficiency\n",
	       d->strided_eff);
	printf("  ops of at most %.3g bytes move them at %.3g B/s (the cache)\n", d->cache,
	       d->cache_bandwidth);
	for (int k = 0; k < SC_OPK_N; k++)
		printf("  %-12s overhead %6.2f us  compute_eff %5.3f  mem_eff %5.3f  half m/n/k "
		       "%g %g %g\n",
		       sc_op_kind_name((sc_op_kind)k), d->overhead_us[k], d->compute_eff[k],
		       d->mem_eff[k], d->half_m[k], d->half_n[k], d->half_k[k]);
}

/* d as a profile file (sc_device_format) */
static void write_profile(const sc_device *d, const char *path)
{
	char *text = NULL;
	size_t len = 0;
	sc_error err;
	if (sc_device_format(d, d->default_precision, &text, &len, &err) != SC_OK ||
	    sc_file_write_atomic(path, text, len, &err) != SC_OK)
		fprintf(stderr, "perf-cost: %s\n", err.msg);
	free(text);
}

/* the regrets and ratios of the runs benched, by dtype */
typedef struct tally {
	double *reg16, *reg32, *rat16, *rat32;
	int n16, n32;
} tally;

static bool tally_init(tally *t, size_t runs)
{
	*t = (tally){calloc(3 * runs + 1, sizeof(double)),
	             calloc(3 * runs + 1, sizeof(double)),
	             calloc(3 * runs + 1, sizeof(double)),
	             calloc(3 * runs + 1, sizeof(double)),
	             0,
	             0};
	return t->reg16 && t->reg32 && t->rat16 && t->rat32;
}

static void tally_add(tally *t, const run_result *r)
{
	for (int i = 0; i < 3; i++) {
		if (r->fp16) {
			t->reg16[t->n16] = r->regret[i];
			t->rat16[t->n16++] = r->ratio[i];
		} else {
			t->reg32[t->n32] = r->regret[i];
			t->rat32[t->n32++] = r->ratio[i];
		}
	}
}

static void tally_print(tally *t, const char *what)
{
	double w16 = 0, w32 = 0;
	for (int i = 0; i < t->n16; i++)
		w16 = fmax(w16, t->reg16[i]);
	for (int i = 0; i < t->n32; i++)
		w32 = fmax(w32, t->reg32[i]);
	printf("%sfp16 (%d run-k pairs): regret median %.3f worst %.3f (goal <= 1.05, <= 1.25); "
	       "pred/meas median %.3f (goal 0.8 .. 1.25)\n",
	       what, t->n16, median(t->reg16, t->n16), w16, median(t->rat16, t->n16));
	printf("%stf32 (%d run-k pairs): regret median %.3f worst %.3f; pred/meas median %.3f\n",
	       what, t->n32, median(t->reg32, t->n32), w32, median(t->rat32, t->n32));
}

static void tally_fini(tally *t)
{
	free(t->reg16);
	free(t->reg32);
	free(t->rat16);
	free(t->rat32);
}

/* Leave one model out: for each model of the file, the device fitted on
 * the other models' op times (from device's own numbers), then the regret
 * of that model's runs under it: what the calibration promises for a model
 * it has not seen. */
static int cross_validate(json_t *runs, const char *file, const char *device, const char *csv,
                          samples *S)
{
	size_t nr = json_array_size(runs);
	tally t;
	char prof[] = "/tmp/perf-cost-prof-XXXXXX";
	int fd = mkstemp(prof);
	if (fd < 0 || !tally_init(&t, nr))
		return 1;
	close(fd);
	int status = 0;
	printf("leave one model out: each model benched under the fit to the others\n");
	for (size_t r = 0; r < nr; r++) {
		const char *model =
		        json_string_value(json_object_get(json_array_get(runs, r), "model"));
		bool first = model != NULL;
		for (size_t q = 0; q < r && first; q++) {
			const char *mq = json_string_value(
			        json_object_get(json_array_get(runs, q), "model"));
			first = !mq || strcmp(model, mq) != 0;
		}
		if (!first)
			continue;
		samples rest = {0};
		for (int i = 0; i < S->n; i++) {
			const char *m = json_string_value(json_object_get(
			        json_array_get(runs, (size_t)S->s[i].run), "model"));
			if (!m || strcmp(m, model) != 0)
				add_sample(&rest, S->s[i]);
		}
		sc_device d;
		sc_error err;
		if (sc_device_get(device, &d, &err) != SC_OK) {
			fprintf(stderr, "perf-cost: %s\n", err.msg);
			status = 1;
			free(rest.s);
			break;
		}
		fit(&d, &rest, false);
		free(rest.s);
		write_profile(&d, prof);
		for (size_t q = r; q < nr; q++) {
			json_t *run = json_array_get(runs, q);
			const char *m = json_string_value(json_object_get(run, "model"));
			run_result res;
			if (m && strcmp(m, model) == 0 &&
			    do_run(run, file, prof, csv, S, false, &res))
				tally_add(&t, &res);
		}
	}
	unlink(prof);
	tally_print(&t, "held out: ");
	tally_fini(&t);
	return status;
}

int main(int argc, char **argv)
{
	bool do_fit = false, cross = false;
	const char *write_to = NULL, *exclude = NULL;
	const char *device = "h100", *file = "samples/h100/measured.json";
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--fit"))
			do_fit = true;
		else if (!strcmp(argv[i], "--cross"))
			cross = true;
		else if (!strcmp(argv[i], "--exclude") && i + 1 < argc)
			exclude = argv[++i];
		else if (!strcmp(argv[i], "--write") && i + 1 < argc)
			write_to = argv[++i];
		else if (!strcmp(argv[i], "--l2"))
			fit_l1 = false;
		else if (!strcmp(argv[i], "--power") && i + 1 < argc)
			fit_power = atof(argv[++i]);
		else if (!strcmp(argv[i], "--device") && i + 1 < argc)
			device = argv[++i];
		else
			file = argv[i];
	}
	json_error_t jerr;
	json_t *root = json_load_file(file, 0, &jerr);
	json_t *runs = json_object_get(root, "runs");
	if (!json_is_array(runs)) {
		fprintf(stderr, "perf-cost: %s: no runs (%s)\n", file, jerr.text);
		return 1;
	}
	char csv[] = "/tmp/perf-cost-XXXXXX";
	int fd = mkstemp(csv);
	if (fd < 0)
		return 1;
	close(fd);
	samples S = {0};
	size_t nr = json_array_size(runs);
	tally t;
	if (!tally_init(&t, nr))
		return 1;
	bool collect = do_fit || cross;
	int status = 0;
	if (!collect)
		printf("%-26s %-5s %-5s %8s  %27s  per k: regret, pred/meas\n", "model", "dims",
		       "dtype", "ops", "");
	for (size_t r = 0; r < nr; r++) {
		run_result res;
		current_run = (int)r;
		const char *m =
		        json_string_value(json_object_get(json_array_get(runs, r), "model"));
		if (exclude && m && strcmp(m, exclude) == 0)
			continue;
		if (do_run(json_array_get(runs, r), file, device, csv, &S, collect, &res) &&
		    !collect)
			tally_add(&t, &res);
	}
	if (cross) {
		status = cross_validate(runs, file, device, csv, &S);
	} else if (do_fit) {
		sc_device d;
		sc_error err;
		if (sc_device_get(device, &d, &err) != SC_OK) {
			fprintf(stderr, "perf-cost: %s\n", err.msg);
			status = 1;
		} else {
			fit(&d, &S, true);
			if (write_to)
				write_profile(&d, write_to);
		}
	} else if (t.n16 + t.n32 == 0) {
		fprintf(stderr, "perf-cost: %s: no run could be loaded (see above)\n", file);
		status = 1;
	} else {
		tally_print(&t, "");
	}
	unlink(csv);
	free(S.s);
	tally_fini(&t);
	json_decref(root);
	return status;
}
