/*
 * test_times.c - measured op times (core/formats/times.h): the real ONNX Runtime
 * profiles of samples/h100/ort read and checked against medians computed
 * here with jansson; a CSV written and read back; times put in a small
 * graph by name from a CSV, and through a fake loader's tensor and folded
 * names from a small profile with fused kernels (shares worked out by hand
 * in the comments); the real profiles of tests/data/ort (small models at
 * every optimization level) mapped whole; and bad files, each refused with
 * one line naming the file (and the line of a CSV).
 *
 * Longer than 600 lines: one suite for the module, with its own small
 * profile writer, fake loader and independent median.
 */
#define _XOPEN_SOURCE 700
#include <criterion/criterion.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/formats/load.h"
#include "core/formats/times.h"
#include "tests/support.h"

#define NOOPT "samples/h100/ort/resnet18.ort-noopt.json"
#define OPT "samples/h100/ort/resnet18.ort-opt.json"

static char dir[64];

static void make_scratch(void)
{
	ts_make_dir(dir, "sc-times");
}

static void remove_scratch(void)
{
	ts_remove_dir(dir);
}

TestSuite(times, .init = make_scratch, .fini = remove_scratch, .timeout = 60);

/* the path of name in the scratch directory, holding text when not NULL */
static const char *scratch(const char *name, const char *text)
{
	static char path[4][160];
	static int next;
	char *p = path[next++ % 4];
	snprintf(p, sizeof path[0], "%s/%s", dir, name);
	if (text) {
		FILE *f = fopen(p, "wb");
		cr_assert_not_null(f, "cannot write %s", p);
		fputs(text, f);
		fclose(f);
	}
	return p;
}

static sc_times *read_ok(const char *path)
{
	sc_error err;
	sc_error_clear(&err);
	sc_times *t = sc_times_read(path, &err);
	cr_assert_not_null(t, "%s", err.msg);
	return t;
}

/* sc_times_read fails on path with code and a message holding path and
 * every one of the NULL-terminated texts */
static void read_fails(const char *path, sc_status code, ...)
{
	sc_error err;
	sc_error_clear(&err);
	sc_times *t = sc_times_read(path, &err);
	cr_assert_null(t, "%s was read", path);
	cr_assert_eq(err.code, code, "%s: code %d: %s", path, err.code, err.msg);
	cr_assert(strstr(err.msg, path), "'%s' does not name the file", err.msg);
	cr_assert_null(strchr(err.msg, '\n'), "'%s' is more than a line", err.msg);
	va_list ap;
	va_start(ap, code);
	for (const char *s; (s = va_arg(ap, const char *));)
		cr_assert(strstr(err.msg, s), "'%s' lacks '%s'", err.msg, s);
	va_end(ap);
}

static double sum_us(const sc_times *t)
{
	double s = 0;
	for (int i = 0; i < t->n; i++)
		s += t->e[i].us;
	return s;
}

/* ---- 1. medians of the real profiles, computed here apart from times.c ------ */

typedef struct kernel {
	char name[256];
	char op[64];
	int count;
	double dur[64];
} kernel;

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The kernels of the profile at path, in the order of their first event,
 * each with its durations, by a plain scan of the JSON; returns the count
 * and the model_run events in *runs. */
static int kernels_of(const char *path, kernel *k, int max, int *runs)
{
	json_error_t jerr;
	json_t *root = json_load_file(path, 0, &jerr);
	cr_assert_not_null(root, "%s: %s", path, jerr.text);
	int n = 0;
	*runs = 0;
	size_t i;
	json_t *e;
	json_array_foreach(root, i, e)
	{
		const char *cat = json_string_value(json_object_get(e, "cat"));
		const char *name = json_string_value(json_object_get(e, "name"));
		if (!strcmp(cat, "Session") && !strcmp(name, "model_run"))
			(*runs)++;
		size_t len = strlen(name), s = strlen("_kernel_time");
		if (strcmp(cat, "Node") || len <= s || strcmp(name + len - s, "_kernel_time"))
			continue;
		int j = 0;
		while (j < n && (strlen(k[j].name) != len - s || strncmp(k[j].name, name, len - s)))
			j++;
		if (j == n) {
			cr_assert_lt(n, max);
			memset(&k[n], 0, sizeof k[n]);
			memcpy(k[n].name, name, len - s);
			const char *op = json_string_value(
			        json_object_get(json_object_get(e, "args"), "op_name"));
			snprintf(k[n].op, sizeof k[n].op, "%s", op ? op : "");
			n++;
		}
		cr_assert_lt(k[j].count, 64);
		k[j].dur[k[j].count++] = json_number_value(json_object_get(e, "dur"));
	}
	json_decref(root);
	return n;
}

static double median_of(kernel *k)
{
	qsort(k->dur, (size_t)k->count, sizeof k->dur[0], by_value);
	int c = k->count;
	return c % 2 ? k->dur[c / 2] : (k->dur[c / 2 - 1] + k->dur[c / 2]) / 2;
}

static void check_medians(const char *path, int want_kernels)
{
	static kernel k[200];
	int runs;
	int n = kernels_of(path, k, 200, &runs);
	cr_assert_eq(n, want_kernels, "%s: %d kernels by the test's own scan", path, n);
	sc_times *t = read_ok(path);
	cr_assert_eq(t->format, SC_TIMES_ORT);
	cr_assert_str_eq(t->path, path);
	cr_assert_eq(t->runs, 11);
	cr_assert_eq(runs, 11);
	cr_assert_eq(t->n, n);
	for (int i = 0; i < n; i++) {
		cr_assert_eq(k[i].count, 11, "%s ran %d times", k[i].name, k[i].count);
		cr_assert_str_eq(t->e[i].name, k[i].name, "entry %d", i);
		cr_assert_str_eq(t->e[i].op_type, k[i].op, "%s", k[i].name);
		cr_assert_eq(t->e[i].line, 0);
		double m = median_of(&k[i]);
		cr_assert_eq(t->e[i].us, m, "%s: %.17g, the test's median %.17g", k[i].name,
		             t->e[i].us, m);
	}
	sc_times_free(t);
}

Test(times, ort_noopt_medians)
{
	check_medians(NOOPT, 65);
	/* a few by hand, so that a scan that agrees with times.c for a wrong
	 * reason still fails: the first kernel ran first, as a Conv */
	sc_times *t = read_ok(NOOPT);
	cr_assert_str_eq(t->e[0].name, "/conv1/Conv");
	cr_assert_str_eq(t->e[0].op_type, "Conv");
	cr_assert_str_eq(t->e[3].name, "Identity_15");
	cr_assert_str_eq(t->e[t->n - 1].op_type, "Gemm");
	sc_times_free(t);
}

Test(times, ort_opt_medians)
{
	check_medians(OPT, 25);
	sc_times *t = read_ok(OPT);
	cr_assert_str_eq(t->e[0].name, "/relu/Relu_output_0_nchwc");
	cr_assert_str_eq(t->e[0].op_type, "Conv");
	cr_assert_str_eq(t->e[22].name, "ReorderOutput");
	sc_times_free(t);
}

/* ---- 2. CSV round trip -------------------------------------------------------- */

static void same_times(const sc_times *a, const sc_times *b)
{
	cr_assert_eq(a->n, b->n);
	for (int i = 0; i < a->n; i++) {
		cr_assert_str_eq(a->e[i].name, b->e[i].name, "entry %d", i);
		cr_assert_eq(a->e[i].us, b->e[i].us, "%s: %.17g then %.17g", a->e[i].name,
		             a->e[i].us, b->e[i].us);
	}
}

Test(times, csv_round_trip)
{
	sc_error err;
	sc_times *t = read_ok(NOOPT);
	const char *csv = scratch("noopt.csv", NULL);
	cr_assert_eq(sc_times_write_csv(t, csv, &err), SC_OK, "%s", err.msg);
	sc_times *back = read_ok(csv);
	cr_assert_eq(back->format, SC_TIMES_CSV);
	cr_assert_eq(back->runs, 1);
	same_times(t, back);
	for (int i = 0; i < back->n; i++)
		cr_assert_eq(back->e[i].line, i + 2, "after the header line");
	sc_times_free(back);
	sc_times_free(t);

	/* names a CSV must quote, and times %g would round */
	static const char *names[] = {"a,b",        "say \"hi\"", "#not a comment",   " padded ",
	                              "two\nlines", "plain",      "\xc3\xa9t\xc3\xa9"};
	static const double us[] = {0.1, 1.0 / 3, 0, 1e-300, 12345678.901234567, 2.5e17, 7};
	t = sc_times_new("odd names");
	cr_assert_eq(t->format, SC_TIMES_MEMORY);
	for (int i = 0; i < 7; i++)
		cr_assert_eq(sc_times_add(t, names[i], us[i], &err), SC_OK, "%s", err.msg);
	csv = scratch("odd.csv", NULL);
	cr_assert_eq(sc_times_write_csv(t, csv, &err), SC_OK, "%s", err.msg);
	back = read_ok(csv);
	same_times(t, back);
	/* "two\nlines" takes lines 6 and 7: the next entry is on line 8 */
	cr_assert_eq(back->e[4].line, 6);
	cr_assert_eq(back->e[5].line, 8);
	sc_times_free(back);
	sc_times_free(t);
}

Test(times, csv_syntax)
{
	/* a byte order mark, CRLF, comments, blank lines, a header, quoted
	 * names with "" and blanks round the fields */
	const char *p = scratch("syntax.csv", "\xEF\xBB\xBFop , time (us)\r\n"
	                                      "# measured by hand\r\n"
	                                      "\r\n"
	                                      "  a ,1.5\r\n"
	                                      "\"b,\"\"c\"\"\" , 2e3 \r\n"
	                                      "   # indented comment\n"
	                                      "d,0\n"
	                                      "\"\"\"\",+7");
	sc_times *t = read_ok(p);
	cr_assert_eq(t->n, 4);
	cr_assert_str_eq(t->e[0].name, "a");
	cr_assert_eq(t->e[0].us, 1.5);
	cr_assert_eq(t->e[0].line, 4);
	cr_assert_str_eq(t->e[1].name, "b,\"c\"");
	cr_assert_eq(t->e[1].us, 2000);
	cr_assert_eq(t->e[1].line, 5);
	cr_assert_str_eq(t->e[2].name, "d");
	cr_assert_eq(t->e[2].line, 7);
	cr_assert_str_eq(t->e[3].name, "\"");
	cr_assert_eq(t->e[3].us, 7);
	cr_assert_null(t->e[0].op_type);
	sc_times_free(t);

	/* a header whose time column starts like a number word */
	t = read_ok(scratch("inf_head.csv", "op,inference_us\nx,3\n"));
	cr_assert_eq(t->n, 1);
	cr_assert_eq(t->e[0].us, 3);
	sc_times_free(t);

	/* no header: the first line is data */
	t = read_ok(scratch("nohead.csv", "x,3\ny,4\n"));
	cr_assert_eq(t->n, 2);
	cr_assert_str_eq(t->e[0].name, "x");
	cr_assert_eq(t->e[0].line, 1);
	sc_times_free(t);
}

Test(times, add_refuses_bad_entries)
{
	sc_error err;
	sc_times *t = sc_times_new("mine");
	cr_assert_eq(sc_times_add(t, "a", 1, &err), SC_OK);
	cr_assert_eq(sc_times_add(t, "a", 2, &err), SC_ERR_INPUT);
	cr_assert(strstr(err.msg, "'a'") && strstr(err.msg, "mine"), "%s", err.msg);
	cr_assert_eq(sc_times_add(t, "b", -1, &err), SC_ERR_INPUT);
	cr_assert_eq(sc_times_add(t, "b", NAN, &err), SC_ERR_INPUT);
	cr_assert_eq(sc_times_add(t, "b", INFINITY, &err), SC_ERR_INPUT);
	cr_assert_eq(sc_times_add(t, "", 1, &err), SC_ERR_INPUT);
	/* many adds grow the table; the first stays */
	char name[16];
	for (int i = 0; i < 1000; i++) {
		snprintf(name, sizeof name, "op%d", i);
		cr_assert_eq(sc_times_add(t, name, i, &err), SC_OK, "%s", err.msg);
	}
	cr_assert_eq(t->n, 1001);
	cr_assert_str_eq(t->e[0].name, "a");
	cr_assert_eq(t->e[1000].us, 999);
	sc_times_free(t);
	sc_times_free(NULL);
}

/* ---- 3. by name from a CSV ---------------------------------------------------- */

/* a -> b -> c -> d with work 1, 2, 3, 4 */
static sc_graph *chain(const double *work)
{
	sc_error err;
	sc_builder *b = sc_builder_new();
	const char *name[] = {"a", "b", "c", "d"};
	for (int i = 0; i < 4; i++)
		cr_assert_eq(sc_builder_add_op(b, name[i], work[i], 0, 1, NULL, &err), i);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(sc_builder_add_edge(b, i, i + 1, &err), SC_OK);
	sc_graph *g = sc_builder_finish(b, "chain.dot", "chain", &err);
	cr_assert_not_null(g, "%s", err.msg);
	sc_builder_free(b);
	return g;
}

Test(times, apply_csv_by_name)
{
	sc_graph *g = chain((double[]){1, 2, 3, 4});
	cr_assert_null(g->work_source);
	sc_times *t = read_ok(scratch("chain.csv", "name,us\n# two ops\nc,2.5\nb,10\n"));
	sc_times_report rep;
	sc_error err;
	cr_assert_eq(sc_times_apply(g, t, NULL, &rep, &err), SC_OK, "%s", err.msg);
	cr_assert_eq(g->work[0], 1); /* not in the file: keeps its work */
	cr_assert_eq(g->work[1], 10);
	cr_assert_eq(g->work[2], 2.5);
	cr_assert_eq(g->work[3], 4);
	cr_assert_not_null(g->work_source);
	const unsigned char want[] = {SC_WORK_FILE, SC_WORK_MEASURED, SC_WORK_MEASURED,
	                              SC_WORK_FILE};
	cr_assert_arr_eq(g->work_source, want, 4);
	cr_assert(rep.filled);
	cr_assert_eq(rep.entries, 2);
	cr_assert_eq(rep.by_name, 2);
	cr_assert_eq(rep.by_tensor + rep.to_folded + rep.attached, 0);
	cr_assert_eq(rep.ops_measured, 2);
	cr_assert_eq(rep.ops_fused, 0);
	cr_assert_eq(rep.kernels_fused, 0);
	cr_assert_eq(rep.ops_modelled, 2);
	cr_assert_eq(rep.work_measured, 12.5);
	cr_assert_eq(rep.work_total, 17.5);
	cr_assert_eq(rep.time_in_file, 12.5);
	cr_assert_eq(rep.time_dropped, 0);

	cr_assert_eq(sc_times_describe(g, t, &rep, NULL, &err), SC_OK);
	char want_origin[512];
	snprintf(want_origin, sizeof want_origin,
	         "measured 2 of 4 ops (71.4 %% of the work) from %s (CSV); the other 2 ops (a, d): "
	         "the file's numbers",
	         t->path);
	cr_assert_str_eq(g->cost_origin, want_origin);
	cr_assert_str_eq(g->cost_short, "measured 71% (chain.csv)");
	/* a second description replaces the first (ASan sees the old freed) */
	cr_assert_eq(sc_times_describe(g, t, &rep, "h100 fp16 model", &err), SC_OK);
	cr_assert(strstr(g->cost_origin, "; the other 2 ops (a, d): h100 fp16 model"), "%s",
	          g->cost_origin);

	/* applied again, the measured ops are measured again, and the times
	 * of ops the file does not name stay as they were */
	cr_assert_eq(sc_times_apply(g, t, NULL, &rep, &err), SC_OK, "%s", err.msg);
	cr_assert_eq(g->work[1], 10);
	cr_assert_eq(g->work[3], 4);
	sc_times_free(t);
	sc_graph_free(g);
}

/* A kind's own times (sc_times_apply_kind): the entries replace the kind's
 * table, by the same rules as the graph's work, and the graph's work and
 * its sources stay as they were; an op the kind could not run (NAN) runs
 * there once an entry gives it a time. */
Test(times, apply_kind_csv_by_name)
{
	sc_graph *g = chain((double[]){1, 2, 3, 4});
	sc_error err;
	double *w = malloc(4 * sizeof *w);
	memcpy(w, (double[]){5, NAN, 7, 8}, 4 * sizeof *w);
	cr_assert_eq(sc_graph_add_kind(g, "b", w, NAN, NAN, &err), SC_OK, "%s", err.msg);
	sc_times *t = read_ok(scratch("kind.csv", "name,us\nb,3\nc,2\n"));
	sc_times_report rep;
	cr_assert_eq(sc_times_apply_kind(g, "b", t, NULL, &rep, &err), SC_OK, "%s", err.msg);
	const double *kb = g->kind_work[sc_graph_find_kind(g, "b")];
	cr_assert_eq(kb[0], 5);
	cr_assert_eq(kb[1], 3);
	cr_assert_eq(kb[2], 2);
	cr_assert_eq(kb[3], 8);
	for (int v = 0; v < 4; v++)
		cr_assert_eq(g->work[v], v + 1);
	cr_assert_null(g->work_source);
	cr_assert_eq(rep.ops_measured, 2);
	cr_assert_eq(rep.ops_modelled, 2);
	cr_assert_eq(rep.work_measured, 5);
	cr_assert_eq(rep.work_total, 18);
	/* no table of that name: an error naming the graph */
	cr_assert_eq(sc_times_apply_kind(g, "zz", t, NULL, &rep, &err), SC_ERR_INPUT);
	cr_assert(strstr(err.msg, "'zz'"), "%s", err.msg);
	sc_times_free(t);

	/* through sc_times_load: the kind's origin follows the graph's */
	const char *csv = scratch("kind2.csv", "name,us\nd,1\n");
	cr_assert_eq(sc_times_load(g, "b", csv, NULL, "the file's work_b", NULL, &err), SC_OK, "%s",
	             err.msg);
	cr_assert_eq(kb[3], 1);
	char want[512];
	snprintf(want, sizeof want,
	         "the file's numbers; b stages: measured 1 of 4 ops (9.1 %% of the work) from %s "
	         "(CSV); the other 3 ops (a, b, c): the file's work_b",
	         csv);
	cr_assert_str_eq(g->cost_origin, want);
	cr_assert_str_eq(g->cost_short, "file's numbers, b measured 9% (kind2.csv)");
	sc_graph_free(g);
}

/* Every loader's last step (sc_load_kinds) on a DOT file: a kind with a
 * table of the file's (work_b) takes its measured times there; a kind
 * without one starts from the graph's work; the kind named as the graph's
 * own ("accel") measures the graph's work, as --times does, and not twice;
 * a profile, or times for the CPU, are refused. */
Test(times, load_kinds_of_a_dot_file)
{
	const char *dot = scratch("k.dot", "digraph k { a [work=1, work_b=10]; b [work=2, "
	                                   "work_b=20]; c [work=3]; a -> b -> c; }\n");
	const char *csv = scratch("k.csv", "name,us\nb,7\nc,9\n");
	sc_load_kind kinds[] = {{.name = "b", .times = csv}, {.name = "c", .times = csv}};
	sc_load_opts o = {.nkinds = 2, .kinds = kinds};
	sc_error err;
	sc_graph *g = sc_load_with(dot, &o, &err);
	cr_assert_not_null(g, "%s", err.msg);
	const double *b = g->kind_work[sc_graph_find_kind(g, "b")];
	const double *c = g->kind_work[sc_graph_find_kind(g, "c")];
	/* b: a keeps work_b, b measured, c (no work_b: not on b) measured */
	cr_assert_eq(b[0], 10);
	cr_assert_eq(b[1], 7);
	cr_assert_eq(b[2], 9);
	/* c: a keeps its work */
	cr_assert_eq(c[0], 1);
	cr_assert_eq(c[1], 7);
	cr_assert_eq(c[2], 9);
	cr_assert_eq(g->work[1], 2);
	sc_graph_free(g);

	sc_load_kind own[] = {{.name = "accel", .times = csv}};
	o = (sc_load_opts){.nkinds = 1, .kinds = own};
	g = sc_load_with(dot, &o, &err);
	cr_assert_not_null(g, "%s", err.msg);
	cr_assert_eq(g->work[0], 1);
	cr_assert_eq(g->work[1], 7);
	cr_assert_eq(g->work[2], 9);
	sc_graph_free(g);
	o.times = csv;
	cr_assert_null(sc_load_with(dot, &o, &err));
	cr_assert(strstr(err.msg, "two files of measured times for the device 'accel'"), "%s",
	          err.msg);

	sc_load_kind bad[][1] = {{{.name = "q", .profile = "h100"}},
	                         {{.name = "b", .profile = "h100"}},
	                         {{.name = "cpu", .times = csv}},
	                         {{.name = "z", .profile = "h100", .from = "dev.json"}}};
	const char *want[] = {
	        "a profile applies to ONNX models only",
	        "the device 'b' has op times in the file: no profile may replace them",
	        "no measured times for the device 'cpu'", "(dev.json)"};
	for (int i = 0; i < 4; i++) {
		o = (sc_load_opts){.nkinds = 1, .kinds = bad[i]};
		cr_assert_null(sc_load_with(dot, &o, &err), "%d", i);
		cr_assert(strstr(err.msg, want[i]), "%d: %s", i, err.msg);
		cr_assert(strstr(err.msg, dot), "%d: %s", i, err.msg);
	}
}

/* ---- 4. fused kernels through a loader's names ---------------------------------- */

/* conv1 -> relu -> conv2 -> add -> relu2 -> pool -> fc, with the block's
 * input relu -> add and relu2 -> fc; ops in that order, work w[] */
enum { CONV1, RELU, CONV2, ADD, RELU2, POOL, FC, NOPS };
static const char *op_names[NOPS] = {"/conv1/Conv", "/relu/Relu", "/conv2/Conv", "/Add",
                                     "/relu2/Relu", "/pool/Pool", "/fc/Gemm"};

static sc_graph *block(const double *w)
{
	sc_error err;
	sc_builder *b = sc_builder_new();
	for (int i = 0; i < NOPS; i++)
		cr_assert_eq(sc_builder_add_op(b, op_names[i], w[i], 0, 1, NULL, &err), i);
	static const int edge[][2] = {{CONV1, RELU}, {RELU, CONV2}, {RELU, ADD}, {CONV2, ADD},
	                              {ADD, RELU2},  {RELU2, POOL}, {RELU2, FC}, {POOL, FC}};
	for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++)
		cr_assert_eq(sc_builder_add_edge(b, edge[i][0], edge[i][1], &err), SC_OK);
	sc_graph *g = sc_builder_finish(b, "block.onnx", "block", &err);
	cr_assert_not_null(g, "%s", err.msg);
	sc_builder_free(b);
	/* as the ONNX loader leaves it: every op's work from the model */
	g->work_source = malloc(NOPS);
	memset(g->work_source, SC_WORK_MODEL, NOPS);
	return g;
}

/* the fake loader: op i produces tensor "<name>_output_0"; Identity_1 was
 * folded into conv2, Identity_9 into nothing */
static int fake_producer(void *ctx, const char *name)
{
	int *calls = ctx;
	(*calls)++;
	for (int i = 0; i < NOPS; i++) {
		size_t n = strlen(op_names[i]);
		if (!strncmp(name, op_names[i], n) && !strcmp(name + n, "_output_0"))
			return i;
	}
	return -1;
}

static bool fake_folded(void *ctx, const char *name, int *to)
{
	(void)ctx;
	if (!strcmp(name, "Identity_1"))
		*to = CONV2;
	else if (!strcmp(name, "Identity_9"))
		*to = -1;
	else
		return false;
	return true;
}

static int producer_calls;
static const sc_times_names fake = {
        .ctx = &producer_calls, .producer = fake_producer, .folded = fake_folded};

/* A profile of two runs of the kernels k[0..n) with durations a[i] then
 * b[i] (in microseconds), as ORT writes it: object form, fences around
 * each kernel (their durations must not count), Session events. */
static const char *profile(const char *file, int n, const char *const *k, const double *a,
                           const double *b)
{
	size_t cap = 8192, len = 0;
	char *s = malloc(cap);
	len += (size_t)snprintf(s + len, cap - len,
	                        "{\"traceEvents\": [{\"cat\": \"Session\", \"name\": "
	                        "\"session_initialization\", \"dur\": 99999}");
	for (int run = 0; run < 2; run++) {
		len += (size_t)snprintf(s + len, cap - len,
		                        ", {\"cat\": \"Session\", \"name\": \"model_run\", "
		                        "\"dur\": 500}");
		for (int i = 0; i < n; i++) {
			const char *fmt =
			        ", {\"cat\": \"Node\", \"name\": \"%s_fence_before\", "
			        "\"dur\": 1000}, {\"cat\": \"Node\", \"ph\": \"X\", \"name\": "
			        "\"%s_kernel_time\", \"dur\": %.17g, \"args\": {\"op_name\": "
			        "\"Op%d\"}}, {\"cat\": \"Node\", \"name\": "
			        "\"%s_fence_after\", \"dur\": 1000}";
			len += (size_t)snprintf(s + len, cap - len, fmt, k[i], k[i],
			                        run ? b[i] : a[i], i, k[i]);
			cr_assert_lt(len, cap - 512);
		}
	}
	snprintf(s + len, cap - len, "]}\n");
	const char *p = scratch(file, s);
	free(s);
	return p;
}

static void close_to(double got, double want, const char *what)
{
	cr_assert(fabs(got - want) <= 1e-12 * fmax(1, fabs(want)), "%s: %.17g, want %.17g", what,
	          got, want);
}

Test(times, fused_kernels_by_tensor)
{
	/* kernel 1 = conv1 + relu, named after relu's output with ORT's
	 * "_nchwc"; Identity_1 folded into conv2; kernel 2 = conv2 (+ add +
	 * relu2 after it) named after conv2's output; a layout conversion in
	 * no op; pool and fc by name; Identity_9 folded into nothing */
	static const char *const k[] = {"/relu/Relu_output_0_nchwc",
	                                "Identity_1",
	                                "/conv2/Conv_output_0_nchwc",
	                                "ReorderOutput",
	                                "/pool/Pool",
	                                "/fc/Gemm",
	                                "Identity_9"};
	static const double a[] = {39, 0.5, 70, 6, 10, 2, 1}, b[] = {41, 0.5, 50, 8, 10, 4, 2};
	/* medians (the mean of two): 40, 0.5, 60, 7, 10, 3, 1.5 (122 in all) */
	sc_times *t = read_ok(profile("block.json", 7, k, a, b));
	cr_assert_eq(t->runs, 2);
	cr_assert_eq(t->n, 7);
	cr_assert_str_eq(t->e[2].name, "/conv2/Conv_output_0_nchwc");
	cr_assert_eq(t->e[2].us, 60);
	cr_assert_str_eq(t->e[2].op_type, "Op2");

	/* old work: conv1 6 + relu 2 = 8; conv2 4 + add 1 + relu2 3 = 8 */
	sc_graph *g = block((double[]){6, 2, 4, 1, 3, 5, 4});
	sc_times_report rep;
	sc_error err;
	producer_calls = 0;
	cr_assert_eq(sc_times_apply(g, t, &fake, &rep, &err), SC_OK, "%s", err.msg);
	cr_assert_gt(producer_calls, 0);
	/* kernel 1: 40 as 6 : 2 */
	close_to(g->work[CONV1], 30, "conv1");
	close_to(g->work[RELU], 10, "relu");
	/* kernel 2: 60 + Identity_1's 0.5 + ReorderOutput's 7 = 67.5 as 4 : 1 : 3;
	 * add follows conv2 (the producer that ran last), not relu (the first
	 * by index, the block's input) */
	close_to(g->work[CONV2], 33.75, "conv2");
	close_to(g->work[ADD], 8.4375, "add");
	close_to(g->work[RELU2], 25.3125, "relu2");
	close_to(g->work[POOL], 10, "pool");
	close_to(g->work[FC], 3, "fc");
	for (int v = 0; v < NOPS; v++)
		cr_assert_eq(g->work_source[v], SC_WORK_MEASURED, "%s", op_names[v]);

	cr_assert_eq(rep.entries, 7);
	cr_assert_eq(rep.by_name, 2);
	cr_assert_eq(rep.by_tensor, 2);
	cr_assert_eq(rep.to_folded, 2);
	cr_assert_eq(rep.attached, 1);
	cr_assert_eq(rep.ops_measured, 7);
	cr_assert_eq(rep.ops_fused, 5);
	cr_assert_eq(rep.kernels_fused, 2);
	cr_assert_eq(rep.ops_modelled, 0);
	close_to(rep.time_in_file, 122, "time in file");
	close_to(rep.time_dropped, 1.5, "dropped");
	/* no time lost: the graph's work is the file's less the dropped */
	double total = sc_graph_total_work(g);
	cr_assert(ts_close_rel(total, sum_us(t) - rep.time_dropped, 1e-9), "%.17g", total);
	close_to(rep.work_measured, total, "work measured");
	close_to(rep.work_total, total, "work total");

	cr_assert_eq(sc_times_describe(g, t, &rep, "h100 fp16", &err), SC_OK);
	char want[1024];
	snprintf(want, sizeof want,
	         "measured 7 of 7 ops (100.0 %% of the work) from %s (ONNX Runtime profile, 2 "
	         "runs, median per kernel; 2 fused kernels shared over 5 ops; 1 kernel of no op "
	         "of the model (ReorderOutput) added to the kernel it serves; 1.5 us of folded "
	         "ops with no consumer left out)",
	         t->path);
	cr_assert_str_eq(g->cost_origin, want);
	cr_assert_str_eq(g->cost_short, "measured 100% (block.json)");
	sc_graph_free(g);
	sc_times_free(t);
}

Test(times, fused_shares_equal_when_no_work)
{
	sc_error err;
	sc_times *t = sc_times_new("by hand");
	cr_assert_eq(sc_times_add(t, "/relu/Relu_output_0", 20, &err), SC_OK);
	cr_assert_eq(sc_times_add(t, "/conv2/Conv", 5, &err), SC_OK);
	sc_graph *g = block((double[]){0, 0, 4, 1, 3, 5, 4});
	sc_times_report rep;
	cr_assert_eq(sc_times_apply(g, t, &fake, &rep, &err), SC_OK, "%s", err.msg);
	cr_assert_eq(g->work[CONV1], 10);
	cr_assert_eq(g->work[RELU], 10);
	/* add and relu2 go with conv2, and so do pool and fc (each op no entry
	 * names joins the kernel of its last producer): 5 as 4 : 1 : 3 : 5 : 4 */
	cr_assert_eq(rep.by_tensor, 1);
	cr_assert_eq(rep.by_name, 1);
	cr_assert_eq(rep.ops_measured, 7);
	cr_assert_eq(rep.kernels_fused, 2);
	close_to(g->work[CONV2], 5 * 4 / 17.0, "conv2");
	close_to(g->work[POOL], 5 * 5 / 17.0, "pool");
	close_to(g->work[FC], 5 * 4 / 17.0, "fc");
	cr_assert(ts_close_rel(sc_graph_total_work(g), 25, 1e-12));
	sc_graph_free(g);
	sc_times_free(t);
}

Test(times, no_fusing_without_tensor_kernels)
{
	/* a profile without optimizations names ops (and folded ops) only:
	 * the ops it does not name keep their modelled work */
	sc_error err;
	sc_times *t = sc_times_new("noopt");
	cr_assert_eq(sc_times_add(t, "/conv1/Conv", 5, &err), SC_OK);
	cr_assert_eq(sc_times_add(t, "Identity_1", 0.25, &err), SC_OK);
	cr_assert_eq(sc_times_add(t, "/Add", 2, &err), SC_OK);
	sc_graph *g = block((double[]){6, 2, 4, 1, 3, 5, 4});
	sc_times_report rep;
	cr_assert_eq(sc_times_apply(g, t, &fake, &rep, &err), SC_OK, "%s", err.msg);
	const double want[] = {5, 2, 0.25, 2, 3, 5, 4};
	const unsigned char src[] = {SC_WORK_MEASURED, SC_WORK_MODEL, SC_WORK_MEASURED,
	                             SC_WORK_MEASURED, SC_WORK_MODEL, SC_WORK_MODEL,
	                             SC_WORK_MODEL};
	for (int v = 0; v < NOPS; v++) {
		cr_assert_eq(g->work[v], want[v], "%s", op_names[v]);
		cr_assert_eq(g->work_source[v], src[v], "%s", op_names[v]);
	}
	cr_assert_eq(rep.ops_measured, 3);
	cr_assert_eq(rep.ops_modelled, 4);
	cr_assert_eq(rep.ops_fused, 0);
	cr_assert_eq(rep.to_folded, 1);
	cr_assert_eq(rep.work_measured, 7.25);
	cr_assert_eq(rep.work_total, 21.25);
	cr_assert_eq(sc_times_describe(g, t, &rep, "h100 fp16", &err), SC_OK);
	cr_assert(strstr(g->cost_origin, "measured 3 of 7 ops (34.1 % of the work) from noopt "
	                                 "(given times); the other 4 ops (/relu/Relu, /relu2/Relu, "
	                                 "/pool/Pool, /fc/Gemm): h100 fp16"),
	          "%s", g->cost_origin);
	cr_assert_str_eq(g->cost_short, "measured 34% (noopt)");
	sc_graph_free(g);
	sc_times_free(t);
}

Test(times, kernels_of_no_op)
{
	sc_error err;
	sc_times_report rep;
	/* one in four names nothing: allowed, and when it is the first, its
	 * time goes to the op of the entry after it */
	sc_times *t = sc_times_new("partly");
	cr_assert_eq(sc_times_add(t, "Reorder", 1, &err), SC_OK);
	cr_assert_eq(sc_times_add(t, "/pool/Pool", 2, &err), SC_OK);
	cr_assert_eq(sc_times_add(t, "/fc/Gemm", 3, &err), SC_OK);
	cr_assert_eq(sc_times_add(t, "/Add", 4, &err), SC_OK);
	sc_graph *g = block((double[]){6, 2, 4, 1, 3, 5, 4});
	cr_assert_eq(sc_times_apply(g, t, &fake, &rep, &err), SC_OK, "%s", err.msg);
	cr_assert_eq(g->work[POOL], 3);
	cr_assert_eq(rep.attached, 1);
	sc_graph_free(g);

	/* two in five (a transformer's profile at level all has more than a
	 * quarter of nodes ONNX Runtime made): still allowed, and listed */
	cr_assert_eq(sc_times_add(t, "Other", 1, &err), SC_OK);
	g = block((double[]){6, 2, 4, 1, 3, 5, 4});
	cr_assert_eq(sc_times_apply(g, t, &fake, &rep, &err), SC_OK, "%s", err.msg);
	cr_assert_eq(rep.attached, 2);
	cr_assert_str_eq(rep.unmapped, "Reorder, Other");
	sc_graph_free(g);

	/* more than half: a profile of another model; the graph is left alone */
	cr_assert_eq(sc_times_add(t, "Else", 1, &err), SC_OK);
	cr_assert_eq(sc_times_add(t, "More", 1, &err), SC_OK);
	g = block((double[]){6, 2, 4, 1, 3, 5, 4});
	cr_assert_eq(sc_times_apply(g, t, &fake, &rep, &err), SC_ERR_INPUT);
	cr_assert(strstr(err.msg, "partly: 4 of 7 kernels name no op or tensor of the model "
	                          "(first: 'Reorder'): a profile of another model?"),
	          "%s", err.msg);
	cr_assert_eq(g->work[POOL], 5);
	cr_assert_eq(g->work_source[POOL], SC_WORK_MODEL);

	/* without a loader's names, a name of no op is an error at once */
	sc_times_free(t);
	t = sc_times_new("plain");
	cr_assert_eq(sc_times_add(t, "/pool/Pool", 2, &err), SC_OK);
	cr_assert_eq(sc_times_add(t, "/relu/Relu_output_0", 2, &err), SC_OK);
	cr_assert_eq(sc_times_apply(g, t, NULL, &rep, &err), SC_ERR_INPUT);
	cr_assert(strstr(err.msg, "plain: '/relu/Relu_output_0' names no op of block"), "%s",
	          err.msg);
	cr_assert_eq(g->work[POOL], 5);
	sc_graph_free(g);
	sc_times_free(t);
}

/* ---- 5. bad files ------------------------------------------------------------- */

Test(times, bad_profiles)
{
	/* the first 1000 bytes of a real profile */
	char *whole = ts_slurp(NOOPT, NULL);
	cr_assert_not_null(whole);
	whole[1000] = '\0';
	read_fails(scratch("truncated.json", whole), SC_ERR_INPUT, "malformed JSON", NULL);
	free(whole);

	const char *head = "[{\"cat\": \"Session\", \"name\": \"model_run\", \"dur\": 5},\n";
	char text[512];
	snprintf(text, sizeof text,
	         "%s{\"cat\": \"Node\", \"name\": \"a_kernel_time\", \"dur\": NaN}]", head);
	read_fails(scratch("nan.json", text), SC_ERR_INPUT, "nan.json:2:", "malformed JSON", NULL);
	snprintf(text, sizeof text,
	         "%s{\"cat\": \"Node\", \"name\": \"a_kernel_time\", \"dur\": \"NaN\"}]", head);
	read_fails(scratch("string.json", text), SC_ERR_INPUT, "event [1] 'a_kernel_time'",
	           "\"dur\" is a string", NULL);
	snprintf(text, sizeof text,
	         "%s{\"cat\": \"Node\", \"name\": \"a_kernel_time\", \"dur\": -3}]", head);
	read_fails(scratch("negative.json", text), SC_ERR_INPUT, "event [1] 'a_kernel_time'", "-3",
	           ">= 0", NULL);
	snprintf(text, sizeof text, "%s{\"cat\": \"Node\", \"name\": \"a_kernel_time\"}]", head);
	read_fails(scratch("nodur.json", text), SC_ERR_INPUT, "\"dur\" is missing", NULL);
	read_fails(scratch("scalar.json", "[1, 2]"), SC_ERR_INPUT, "event [0] is a number", NULL);
	read_fails(scratch("object.json", "{\"events\": []}"), SC_ERR_INPUT, "traceEvents", NULL);
	read_fails(scratch("empty.json", "[]"), SC_ERR_INPUT, "no kernel events", NULL);
	snprintf(text, sizeof text, "%s{\"cat\": \"Node\", \"name\": \"a_fence_before\"}]", head);
	read_fails(scratch("fences.json", text), SC_ERR_INPUT, "no kernel events", NULL);
	read_fails(scratch("nothing/here.json", NULL), SC_ERR_IO, "cannot open", NULL);
	read_fails(dir, SC_ERR_IO, "directory", NULL);
}

Test(times, bad_csvs)
{
	read_fails(scratch("neg.csv", "name,us\na,1\nb,-1\n"), SC_ERR_INPUT, "neg.csv:3:", "'b'",
	           "'-1'", NULL);
	read_fails(scratch("nan.csv", "a,1\nb,nan\n"), SC_ERR_INPUT, "nan.csv:2:", "'nan'", NULL);
	read_fails(scratch("inf.csv", "a,1\n\nb,1e999\n"), SC_ERR_INPUT, "inf.csv:3:", NULL);
	read_fails(scratch("text.csv", "a,1\nb,fast\n"), SC_ERR_INPUT, "text.csv:2:", "'fast'",
	           NULL);
	read_fails(scratch("tail.csv", "a,12abc\n"), SC_ERR_INPUT, "tail.csv:1:", "'12abc'", NULL);
	read_fails(scratch("none.csv", "a,1\nb,\n"), SC_ERR_INPUT, "none.csv:2:", NULL);
	read_fails(scratch("three.csv", "a,1\nb,2,3\n"), SC_ERR_INPUT, "three.csv:2:", "3 fields",
	           NULL);
	read_fails(scratch("one.csv", "a,1\n# x\nb\n"), SC_ERR_INPUT, "one.csv:3:", "1 field",
	           NULL);
	read_fails(scratch("dup.csv", "name,us\na,1\nb,2\n\na,3\nb,4\n"), SC_ERR_INPUT,
	           "dup.csv:5: 'a' again (first on line 2)", NULL);
	read_fails(scratch("quote.csv", "a,1\n\"b,2\n"), SC_ERR_INPUT,
	           "quote.csv:2:", "never closed", NULL);
	read_fails(scratch("after.csv", "\"b\"x,2\n"), SC_ERR_INPUT, "after.csv:1:", NULL);
	read_fails(scratch("noname.csv", "a,1\n\"\",2\n"), SC_ERR_INPUT, "noname.csv:2:", NULL);
	read_fails(scratch("latin1.csv", "a,1\n\xe9t\xe9,2\n"), SC_ERR_INPUT,
	           "latin1.csv:2:", "UTF-8", NULL);
	read_fails(scratch("blank.csv", "# only a comment\n\n"), SC_ERR_INPUT, "no times", NULL);
	read_fails(scratch("header.csv", "name,us\n"), SC_ERR_INPUT, "no times", NULL);
	/* only the first line may be a header */
	read_fails(scratch("late.csv", "a,1\nname,us\n"), SC_ERR_INPUT, "late.csv:2:", NULL);

	/* a name of no op of the graph: the line and the name */
	sc_times *t = read_ok(scratch("unknown.csv", "name,us\nb,1\nzz,2\n"));
	sc_graph *g = chain((double[]){1, 2, 3, 4});
	sc_times_report rep;
	sc_error err;
	cr_assert_eq(sc_times_apply(g, t, NULL, &rep, &err), SC_ERR_INPUT);
	cr_assert(strstr(err.msg, "unknown.csv:3: 'zz' names no op of chain"), "%s", err.msg);
	cr_assert_eq(g->work[1], 2, "the graph changed on an error");
	cr_assert_null(g->work_source);
	/* a loader's names do not make a CSV's unknown name a layout kernel */
	cr_assert_eq(sc_times_apply(g, t, &fake, &rep, &err), SC_ERR_INPUT);
	cr_assert(strstr(err.msg, "unknown.csv:3: 'zz'"), "%s", err.msg);
	sc_graph_free(g);
	sc_times_free(t);
}

/* ---- the real ONNX loader on both profiles ------------------------------------ */

/* End to end: resnet18 loaded with --times at both optimization levels.
 * Needs the ONNX loader's side of --times (load_onnx.c filling
 * opts.times_report through sc_times_apply with its tensor and folded
 * names); until that lands the test is skipped. */
Test(times, onnx_both_levels)
{
	static const char *const profiles[] = {NOOPT, OPT};
	for (int i = 0; i < 2; i++) {
		const char *dim_name[] = {"N"};
		long long dim_value[] = {8};
		sc_times_report rep = {0};
		sc_load_opts opts = {.ndims = 1,
		                     .dim_name = dim_name,
		                     .dim_value = dim_value,
		                     .times = profiles[i],
		                     .times_report = &rep};
		sc_error err;
		sc_error_clear(&err);
		sc_graph *g = sc_load_with("samples/h100/onnx/resnet18.onnx", &opts, &err);
		cr_assert_not_null(g, "%s", err.msg);
		if (!rep.filled) {
			sc_graph_free(g);
			cr_skip_test("the ONNX loader does not apply --times yet");
		}
		sc_times *t = read_ok(profiles[i]);
		double total = sc_graph_total_work(g), want = sum_us(t);
		cr_assert(fabs(total - want) <= 1e-6 * want,
		          "%s: the graph's work %.17g, the profile's kernels %.17g (%.6g dropped, "
		          "%d ops modelled)",
		          profiles[i], total, want, rep.time_dropped, rep.ops_modelled);
		cr_assert_eq(rep.entries, t->n);
		cr_assert_not_null(g->cost_origin);
		sc_times_free(t);
		sc_graph_free(g);
	}
}

/* ---- real profiles of small models at every optimization level --------------- */

/* tests/data/ort (scripts/make_ort_profiles.sh): a tiny ViT (torchvision's
 * VisionTransformer), a tiny post-norm Transformer encoder and a tiny
 * ResNet, exported by torch 1.13, profiled by onnxruntime-node 1.31 on the
 * CPU at each graph optimization level. */
#define ORT_DIR "tests/data/ort/"

static const char *const ort_models[] = {"vit_tiny", "encoder_tiny", "resnet_tiny"};
static const char *const ort_levels[] = {"disabled", "basic", "extended", "all"};

/* model loaded with --times profile; rep filled */
static sc_graph *load_profiled(const char *model, const char *profile, sc_times_report *rep,
                               sc_error *err)
{
	memset(rep, 0, sizeof *rep);
	sc_load_opts opts = {.times = profile, .times_report = rep};
	sc_error_clear(err);
	return sc_load_with(model, &opts, err);
}

/* Every profile loads, every op is measured (the ops a fused kernel
 * replaced share its time), and no time is lost or made up: the graph's
 * work is the sum of the profile's kernels. */
Test(times, ort_every_level_measures_every_op)
{
	for (int m = 0; m < 3; m++)
		for (int l = 0; l < 4; l++) {
			char model[128], profile[128];
			snprintf(model, sizeof model, ORT_DIR "%s.onnx", ort_models[m]);
			snprintf(profile, sizeof profile, ORT_DIR "%s.ort-%s.json", ort_models[m],
			         ort_levels[l]);
			sc_times_report rep;
			sc_error err;
			sc_graph *g = load_profiled(model, profile, &rep, &err);
			cr_assert_not_null(g, "%s: %s", profile, err.msg);
			cr_assert(rep.filled, "%s", profile);
			cr_assert_eq(rep.ops_measured, g->n, "%s: %d of %d ops measured (left: %s)",
			             profile, rep.ops_measured, g->n, rep.modelled);
			cr_assert_eq(rep.ops_modelled, 0, "%s", profile);
			cr_assert_str_eq(rep.modelled, "", "%s", profile);
			for (int v = 0; v < g->n; v++)
				cr_assert_eq(g->work_source[v], SC_WORK_MEASURED, "%s: %s", profile,
				             g->op_name[v]);
			sc_times *t = read_ok(profile);
			double total = sc_graph_total_work(g), want = sum_us(t);
			cr_assert_eq(rep.time_dropped, 0, "%s", profile);
			cr_assert(ts_close_rel(total, want, 1e-9),
			          "%s: the ops' work %.17g, the "
			          "kernels' %.17g",
			          profile, total, want);
			close_to(rep.work_measured / rep.work_total, 1, profile);
			cr_assert_eq(rep.entries, t->n, "%s", profile);
			cr_assert_eq(rep.by_name + rep.by_tensor + rep.by_fused + rep.to_folded +
			                     rep.attached,
			             t->n, "%s", profile);
			/* without optimizations every kernel is one node of the model */
			if (l == 0)
				cr_assert_eq(rep.by_name + rep.to_folded, t->n, "%s", profile);
			sc_times_free(t);
			sc_graph_free(g);
		}
}

/* What ONNX Runtime made of the ViT at level all, mapped by its names:
 * fused kernels named after the node they were made from, and the nodes it
 * inserted listed by name and count. */
Test(times, ort_vit_at_level_all)
{
	sc_times_report rep;
	sc_error err;
	sc_graph *g =
	        load_profiled(ORT_DIR "vit_tiny.onnx", ORT_DIR "vit_tiny.ort-all.json", &rep, &err);
	cr_assert_not_null(g, "%s", err.msg);
	/* per layer: 2 LayerNormFusion, 3 MatMulAddFusion, a
	 * GatherSliceToSplitFusion and 2 MatmulTransposeFusion */
	cr_assert_eq(rep.by_fused, 16);
	cr_assert_eq(rep.by_tensor, 1, "the patch Conv, named after its output + _nchwc");
	cr_assert_eq(rep.attached, 17);
	cr_assert_str_eq(rep.unmapped, "ReorderOutput, Transpose, gemm_input_reshape x6, "
	                               "gemm_output_reshape x6, Gelu x2, SkipLayerNormalization");
	/* the first LayerNorm (ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div,
	 * Mul, Add) is one kernel, named after its Mul: its 9 ops hold exactly
	 * that kernel's time, and nothing else does */
	sc_times *t = read_ok(ORT_DIR "vit_tiny.ort-all.json");
	double ln_us = -1, ops = 0;
	int n = 0;
	for (int i = 0; i < t->n; i++)
		if (!strcmp(t->e[i].name,
		            "/encoder/layers/encoder_layer_0/ln_1/Mul/LayerNormFusion/"))
			ln_us = t->e[i].us;
	for (int v = 0; v < g->n; v++)
		if (strstr(g->op_name[v], "/encoder_layer_0/ln_1/")) {
			cr_assert_gt(g->work[v], 0, "%s", g->op_name[v]);
			ops += g->work[v];
			n++;
		}
	cr_assert_eq(n, 9);
	cr_assert_gt(ln_us, 0);
	cr_assert(ts_close_rel(ops, ln_us, 1e-9), "the LayerNorm's ops %.17g, its kernel %.17g",
	          ops, ln_us);
	cr_assert_eq(sc_times_describe(g, t, &rep, "the a100 model", &err), SC_OK);
	cr_assert(strstr(g->cost_origin, "measured 116 of 116 ops (100.0 % of the work)"), "%s",
	          g->cost_origin);
	cr_assert(strstr(g->cost_origin, "; 17 kernels of no op of the model (ReorderOutput, "
	                                 "Transpose, gemm_input_reshape x6, gemm_output_reshape "
	                                 "x6, Gelu x2, SkipLayerNormalization) added to the "
	                                 "kernel they serve"),
	          "%s", g->cost_origin);
	sc_times_free(t);
	sc_graph_free(g);
}

/* A real profile of one model put on another is still refused, and the
 * graph keeps its modelled work. */
Test(times, ort_profile_of_another_model_refused)
{
	static const char *const pairs[][2] = {
	        {"vit_tiny.onnx", "resnet_tiny.ort-all.json"},
	        {"vit_tiny.onnx", "encoder_tiny.ort-all.json"},
	        {"encoder_tiny.onnx", "vit_tiny.ort-disabled.json"},
	        {"resnet_tiny.onnx", "vit_tiny.ort-basic.json"},
	};
	for (int i = 0; i < 4; i++) {
		char model[128], profile[128];
		snprintf(model, sizeof model, ORT_DIR "%s", pairs[i][0]);
		snprintf(profile, sizeof profile, ORT_DIR "%s", pairs[i][1]);
		sc_times_report rep;
		sc_error err;
		sc_graph *g = load_profiled(model, profile, &rep, &err);
		cr_assert_null(g, "%s on %s loaded", profile, model);
		cr_assert_eq(err.code, SC_ERR_INPUT);
		cr_assert(strstr(err.msg, profile), "%s", err.msg);
		cr_assert(strstr(err.msg, "a profile of another model?"), "%s", err.msg);
	}
}

/* ONNX Runtime's names for what it made, read as the optimizers write them
 * (the node made from "<op>" by an optimizer, "_token_<n>" when a name was
 * taken; inserted nodes named after what they convert). */
static int fused_producer(void *ctx, const char *name)
{
	(void)ctx;
	(void)name;
	return -1;
}

/* Mul and the Adds are ONNX's elementwise ops */
static bool fused_follows(void *ctx, int v)
{
	(void)ctx;
	return v == 1 || v == 2 || v == 4;
}

Test(times, ort_fused_names)
{
	static const char *const names[] = {"/ln/ReduceMean", "/ln/Mul", "/ln/Add", "/fc/MatMul",
	                                    "/fc/Add"};
	sc_error err;
	sc_builder *b = sc_builder_new();
	for (int i = 0; i < 5; i++)
		cr_assert_eq(sc_builder_add_op(b, names[i], i == 3 ? 6 : 2, 0, 1, NULL, &err), i);
	for (int i = 0; i < 4; i++)
		cr_assert_eq(sc_builder_add_edge(b, i, i + 1, &err), SC_OK);
	sc_graph *g = sc_builder_finish(b, "ln.onnx", "ln", &err);
	sc_builder_free(b);
	cr_assert_not_null(g);
	sc_times *t = sc_times_new("fused");
	/* the LayerNorm as one kernel, an input reshape for the Gemm (its time
	 * goes to the Gemm after it), the Gemm, an output reshape (to the Gemm
	 * before it) */
	cr_assert_eq(sc_times_add(t, "/ln/Mul/LayerNormFusion/", 12, &err), SC_OK);
	cr_assert_eq(sc_times_add(t, "gemm_input_reshape_token_3", 1, &err), SC_OK);
	cr_assert_eq(sc_times_add(t, "/fc/MatMul/MatMulAddFusion_token_12", 16, &err), SC_OK);
	cr_assert_eq(sc_times_add(t, "gemm_output_reshape", 3, &err), SC_OK);
	sc_times_names nm = {.producer = fused_producer, .follows = fused_follows};
	sc_times_report rep;
	cr_assert_eq(sc_times_apply(g, t, &nm, &rep, &err), SC_OK, "%s", err.msg);
	cr_assert_eq(rep.by_fused, 2);
	cr_assert_eq(rep.attached, 2);
	cr_assert_str_eq(rep.unmapped, "gemm_input_reshape, gemm_output_reshape");
	/* 12 over ReduceMean, Mul, Add (2 : 2 : 2); 1 + 16 + 3 = 20 over
	 * MatMul and Add (6 : 2) */
	close_to(g->work[0], 4, "/ln/ReduceMean");
	close_to(g->work[1], 4, "/ln/Mul");
	close_to(g->work[2], 4, "/ln/Add");
	close_to(g->work[3], 15, "/fc/MatMul");
	close_to(g->work[4], 5, "/fc/Add");
	cr_assert_eq(rep.kernels_fused, 2);
	cr_assert_eq(rep.ops_fused, 5);
	/* a CSV is read as written: such a name is no op of the graph */
	sc_times_free(t);
	t = read_ok(scratch("fused.csv", "/ln/Mul/LayerNormFusion/,12\n"));
	cr_assert_eq(sc_times_apply(g, t, &nm, &rep, &err), SC_ERR_INPUT);
	cr_assert(strstr(err.msg, "fused.csv:1: '/ln/Mul/LayerNormFusion/' names no op of ln"),
	          "%s", err.msg);
	sc_times_free(t);
	sc_graph_free(g);
}

/* The last block of a ResNet: conv -> add -> relu -> pool, the pool named
 * by its own kernel.  Without `follows` the add and relu, whose consumers
 * all lie in the pool's kernel, would join it; with it (ONNX's elementwise
 * ops, as the loader says) they join the Conv they were fused with. */
static bool follows_add_relu(void *ctx, int v)
{
	(void)ctx;
	return v == 1 || v == 2;
}

static int tail_producer(void *ctx, const char *name)
{
	(void)ctx;
	return !strcmp(name, "/conv/Conv_output_0") ? 0 : -1;
}

Test(times, elementwise_ops_join_the_kernel_before)
{
	static const char *const names[] = {"/conv/Conv", "/Add", "/relu/Relu", "/pool/Pool"};
	for (int with = 0; with < 2; with++) {
		sc_error err;
		sc_builder *b = sc_builder_new();
		for (int i = 0; i < 4; i++)
			cr_assert_eq(sc_builder_add_op(b, names[i], 2, 0, 1, NULL, &err), i);
		for (int i = 0; i < 3; i++)
			cr_assert_eq(sc_builder_add_edge(b, i, i + 1, &err), SC_OK);
		sc_graph *g = sc_builder_finish(b, "tail.onnx", "tail", &err);
		sc_builder_free(b);
		cr_assert_not_null(g);
		sc_times *t = sc_times_new("tail");
		cr_assert_eq(sc_times_add(t, "/conv/Conv_output_0_nchwc", 30, &err), SC_OK);
		cr_assert_eq(sc_times_add(t, "/pool/Pool", 4, &err), SC_OK);
		sc_times_names nm = {.producer = tail_producer,
		                     .follows = with ? follows_add_relu : NULL};
		sc_times_report rep;
		cr_assert_eq(sc_times_apply(g, t, &nm, &rep, &err), SC_OK, "%s", err.msg);
		if (with) { /* 30 over conv, add, relu (2 each); the pool alone */
			close_to(g->work[0], 10, "conv");
			close_to(g->work[1], 10, "add");
			close_to(g->work[2], 10, "relu");
			close_to(g->work[3], 4, "pool");
		} else { /* add and relu drawn into the pool's kernel */
			close_to(g->work[0], 30, "conv");
			close_to(g->work[3], 4.0 / 3, "pool");
		}
		sc_times_free(t);
		sc_graph_free(g);
	}
}

/* A GPU profile with ORT's CUDA profiling: each node's "Node" event is
 * followed by the "Kernel" events of the device kernels it launched; the
 * node's time is their sum (the device's), not the host's launch time. */
Test(times, gpu_profiles_take_the_device_kernels_time)
{
	const char *text = "[{\"cat\": \"Session\", \"name\": \"model_run\", \"dur\": 100},"
	                   " {\"cat\": \"Node\", \"name\": \"conv_kernel_time\", \"dur\": 9},"
	                   " {\"cat\": \"Kernel\", \"name\": \"implicit_gemm\", \"dur\": 30},"
	                   " {\"cat\": \"Kernel\", \"name\": \"bias_add\", \"dur\": 2},"
	                   " {\"cat\": \"Node\", \"name\": \"reshape_kernel_time\", \"dur\": 3},"
	                   " {\"cat\": \"Node\", \"name\": \"relu_kernel_time\", \"dur\": 8},"
	                   " {\"cat\": \"Kernel\", \"name\": \"relu\", \"dur\": 4},"
	                   " {\"cat\": \"Session\", \"name\": \"model_run\", \"dur\": 100},"
	                   " {\"cat\": \"Node\", \"name\": \"conv_kernel_time\", \"dur\": 9},"
	                   " {\"cat\": \"Kernel\", \"name\": \"implicit_gemm\", \"dur\": 34},"
	                   " {\"cat\": \"Kernel\", \"name\": \"bias_add\", \"dur\": 2},"
	                   " {\"cat\": \"Node\", \"name\": \"reshape_kernel_time\", \"dur\": 3},"
	                   " {\"cat\": \"Node\", \"name\": \"relu_kernel_time\", \"dur\": 8},"
	                   " {\"cat\": \"Kernel\", \"name\": \"relu\", \"dur\": 6}]";
	sc_times *t = read_ok(scratch("gpu.json", text));
	cr_assert(t->device_times);
	cr_assert_eq(t->runs, 2);
	cr_assert_eq(t->n, 3);
	cr_assert_str_eq(t->e[0].name, "conv");
	close_to(t->e[0].us, 34, "conv: (32 + 36) / 2");
	cr_assert_str_eq(t->e[1].name, "reshape");
	close_to(t->e[1].us, 0, "reshape launched no kernel");
	close_to(t->e[2].us, 5, "relu: (4 + 6) / 2");
	sc_times_free(t);
	/* without Kernel events, the nodes' own durations */
	t = read_ok(scratch("cpu.json", "[{\"cat\": \"Node\", \"name\": \"conv_kernel_time\", "
	                                "\"dur\": 9}]"));
	cr_assert(!t->device_times);
	close_to(t->e[0].us, 9, "conv on the host");
	sc_times_free(t);
	read_fails(scratch("badk.json",
	                   "[{\"cat\": \"Node\", \"name\": \"a_kernel_time\", \"dur\": "
	                   "1}, {\"cat\": \"Kernel\", \"name\": \"k\", \"dur\": -2}]"),
	           SC_ERR_INPUT, "\"Kernel\" event", NULL);
}
