/*
 * test_cpus.c - CPU stages on the command line (issue 29): solve --cpus
 * reproduces the published optima with CPUs of the layer graphs
 * (samples/msr-fiddle/REFERENCE-CPU.tsv; the operator graphs are in the
 * unit test) and writes a partition that eval confirms, with its devices;
 * DOT's cpu_work and accel_ok; eval names an op on a device it may not go
 * to; --cpus 0 changes nothing; and every command, method and option that
 * does not place CPU stages yet refuses --cpus with exit status 2, naming
 * itself.  bounds --cpus: the ladder with CPU stages, every rung at or
 * below solve's optimum, the cover rung skipped with its reason, the
 * reports naming the CPUs.
 */
#include "cli_test.h"

#define RESNET_LAYER FIDDLE "layer/resnet50_inference.json"
#define BERT24_TRAIN FIDDLE "layer/bert24_training.json"

TestSuite(cpus, .init = ts_scratch_init, .fini = ts_scratch_fini);

/* solve -o, then eval of the file: the bottleneck solve reports, eval's
 * own, valid; returns solve's bottleneck. */
static double solve_and_eval(const char *graph, int k, int L)
{
	char part[256];
	ts_tpath(part, sizeof part, "cpu.json");
	json_t *r =
	        ts_run_json(0, "solve %s -k %d --cpus %d -m exact --json -o %s", graph, k, L, part);
	double bn = ts_jnum(r, "bottleneck");
	cr_assert(ts_jbool(r, "optimal"));
	cr_assert_eq(ts_jint(r, "cpus"), L);
	cr_assert_eq(json_array_size(ts_jget(r, "devices")), (size_t)(k + L));
	json_decref(r);
	json_t *e = ts_run_json(0, "eval %s %s --json", graph, part);
	cr_assert(ts_jbool(e, "valid") && ts_jbool(e, "feasible"));
	cr_assert(ts_close_rel(ts_jnum(e, "bottleneck"), bn, 1e-12), "eval %.17g, solve %.17g",
	          ts_jnum(e, "bottleneck"), bn);
	/* every stage's device as the file says, CPU stages paying no io */
	json_t *st = ts_jget(e, "stages");
	for (size_t i = 0; i < json_array_size(st); i++) {
		json_t *s = json_array_get(st, i);
		if (strcmp(ts_jstr(s, "device"), "cpu") == 0) {
			cr_assert_eq(ts_jnum(s, "io_in") + ts_jnum(s, "io_out"), 0);
			cr_assert_eq(ts_jnum(s, "cost"), ts_jnum(s, "cpu_work"));
		}
	}
	json_decref(e);
	return bn;
}

Test(cpus, solve_reproduces_the_published_layer_optima, .timeout = 120)
{
	FILE *f = fopen(FIDDLE "REFERENCE-CPU.tsv", "r");
	cr_assert(f);
	char line[1024];
	int rows = 0;
	cr_assert(fgets(line, sizeof line, f));
	while (fgets(line, sizeof line, f)) {
		char graph[256], path[300];
		int k, L;
		double want, secs;
		cr_assert_eq(sscanf(line, "%255s %d %d %lf %lf", graph, &k, &L, &want, &secs), 5);
		if (strncmp(graph, "layer/", 6) != 0)
			continue;
		snprintf(path, sizeof path, FIDDLE "%s", graph);
		double got = solve_and_eval(path, k, L);
		cr_assert(fabs(got - want) <= 1e-9 * want,
		          "%s k=%d cpus=%d: %.17g, published %.17g", graph, k, L, got, want);
		rows++;
	}
	fclose(f);
	cr_assert_eq(rows, 20);
}

/* The text report: a device column, the CPU stage's time in the work
 * column, the devices line; the partition file's devices array. */
Test(cpus, solve_text_and_partition_file)
{
	char part[256], *out;
	ts_tpath(part, sizeof part, "r.json");
	cr_assert_eq(
	        ts_runf(&out, NULL, "solve %s -k 2 --cpus 1 -m exact -o %s", RESNET_LAYER, part),
	        0);
	cr_assert(strstr(out, " device "), "%s", out);
	cr_assert(strstr(out, "   cpu "), "%s", out);
	cr_assert(strstr(out, "bottleneck 96.3156"), "%s", out);
	cr_assert(strstr(out, "devices: 2 accelerator stages, 1 CPU stage"), "%s", out);
	free(out);
	json_error_t je;
	json_t *p = json_load_file(part, 0, &je);
	cr_assert(p);
	cr_assert_eq(ts_jint(p, "k"), 3);
	json_t *dev = ts_jget(p, "devices");
	int cpus = 0;
	for (size_t i = 0; i < json_array_size(dev); i++)
		cpus += strcmp(json_string_value(json_array_get(dev, i)), "cpu") == 0;
	cr_assert_eq(cpus, 1);
	json_decref(p);
	/* a reader that does not take CPU stages refuses the file */
	char *err;
	cr_assert_eq(ts_runf(NULL, &err, "render %s %s -T dot -o %s.dot", RESNET_LAYER, part, part),
	             2);
	cr_assert(strstr(err, "CPU stages"), "%s", err);
	free(err);
}

/* --cpus 0 is the default: the same report byte for byte. */
Test(cpus, cpus_zero_changes_nothing)
{
	char *a, *b;
	cr_assert_eq(ts_runf(&a, NULL, "solve %s -k 3 --evals 200", FIGURE2), 0);
	cr_assert_eq(ts_runf(&b, NULL, "solve %s -k 3 --evals 200 --cpus 0", FIGURE2), 0);
	/* the seconds differ; compare up to the bottleneck line */
	*strstr(a, "bottleneck") = '\0';
	*strstr(b, "bottleneck") = '\0';
	cr_assert_str_eq(a, b);
	free(a);
	free(b);
}

/* DOT: an op with accel_ok=false needs a CPU stage; an op without
 * cpu_work never goes to one.  a -> x -> c with x only on a CPU: with one
 * CPU x goes there (by hand: a 4 + out 2 = 6, x on the CPU 3, c 2 + 4 =
 * 6). */
Test(cpus, dot_attributes)
{
	char g[256], part[256], *err = NULL, *out = NULL;
	ts_tpath(g, sizeof g, "cpu.dot");
	ts_write_text(g, "digraph { a [work=4, out=2]; x [work=1, out=2, cpu_work=3, "
	                 "accel_ok=false]; c [work=4]; a -> x -> c }\n");
	cr_assert_eq(ts_runf(NULL, &err, "solve %s -k 2", g), 2);
	cr_assert(strstr(err, "'x' is not supported on an accelerator"), "%s", err);
	free(err);
	json_t *r = ts_run_json(0, "solve %s -k 2 --cpus 1 -m exact --json", g);
	cr_assert_float_eq(ts_jnum(r, "bottleneck"), 6, 1e-12);
	json_decref(r);
	/* x on an accelerator, or a (no CPU time) on a CPU: invalid, named */
	ts_tpath(part, sizeof part, "bad.json");
	ts_write_text(part, "{\"format\": \"stagecut-partition/1\", \"k\": 3, \"devices\": "
	                    "[\"cpu\", \"accel\", \"accel\"], \"stages\": {\"a\": 1, \"x\": "
	                    "2, \"c\": 3}}\n");
	cr_assert_eq(ts_runf(&out, NULL, "eval %s %s --cpus 1", g, part), 1);
	cr_assert(strstr(out, "'a' is on stage 1, a CPU stage, but has no CPU time"), "%s", out);
	free(out);
	cr_assert_eq(ts_runf(NULL, &err, "info %s --cpus x", g), 2);
	cr_assert(strstr(err, "--cpus: 'x' is not an integer from 0 to 1000 or 'file'"), "%s", err);
	free(err);
	cr_assert_eq(ts_runf(NULL, &err, "info %s --cpus file", g), 2);
	cr_assert(strstr(err, "gives no number of CPUs"), "%s", err);
	free(err);
}

/* info --cpus file: the file's maxCPUs and the table, whose cells are the
 * published optima where the table has them. */
Test(cpus, info_table, .timeout = 60)
{
	json_t *r = ts_run_json(0, "info %s -k 2 --cpus file --json", RESNET_LAYER);
	json_t *c = ts_jget(r, "cpus");
	cr_assert_eq(ts_jint(c, "max_cpus"), 1);
	cr_assert_eq(ts_jint(c, "asked"), 1);
	json_t *t = ts_jget(c, "table");
	cr_assert_eq(json_array_size(t), 6);
	/* REFERENCE-CPU.tsv: k 2 with 1 and 2 CPUs */
	cr_assert(
	        ts_close_rel(ts_jnum(json_array_get(t, 1), "bottleneck"), 96.31562890625001, 1e-9));
	cr_assert(
	        ts_close_rel(ts_jnum(json_array_get(t, 2), "bottleneck"), 92.69570312500001, 1e-9));
	json_decref(r);
	char *out;
	cr_assert_eq(ts_runf(&out, NULL, "info %s -k 2", RESNET_LAYER), 0);
	cr_assert(!strstr(out, "cpus "), "no CPU section without --cpus: %s", out);
	free(out);
}

/* What does not place CPU stages yet says so, exit 2. */
Test(cpus, the_rest_refuses_cpus)
{
	static const char *const cases[][2] = {
	        {"bounds " RESNET_LAYER " -k 2 --cpus 1 -m brkga", "method 'brkga' does not place"},
	        {"render " RESNET_LAYER " -k 2 --cpus 1 -T dot", "not supported by render"},
	        {"bench " FIGURE2 " -k 2 --cpus 1", "not supported by bench"},
	        {"solve " RESNET_LAYER " -k 2 --cpus 1 -m brkga", "method 'brkga' does not place"},
	        {"solve " RESNET_LAYER " -k 2 --cpus 1 -m refine", "method 'refine' does not"},
	        {"solve " RESNET_LAYER " -k 2 --cpus 1 --proof", "--proof (the exact MIP)"},
	        {"solve " RESNET_LAYER " -k 2 --cpus 1 --pin conv1=1", "--pin does not take"},
	        {"solve " BERT24_TRAIN " -k 2 --cpus 1 --schedule gpipe", "GPipe"},
	        {RESNET_LAYER " --cpus 1", "the workbench does not place CPU stages"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *err = NULL;
		int st = ts_runf(NULL, &err, "%s", cases[i][0]);
		cr_assert_eq(st, 2, "%s: exit %d (%s)", cases[i][0], st, err);
		cr_assert(strstr(err, cases[i][1]), "%s: %s", cases[i][0], err);
		free(err);
	}
}

#define BERT24_INF FIDDLE "layer/bert24_inference.json"

/* bounds --cpus 1 on a bundled sample: every rung at or below the
 * optimum solve -m exact --cpus 1 finds (every rung run, not stopped at
 * the DP's proof), the JSON naming the CPUs and the best partition's
 * devices; the cover rung skipped, with its reason and no value; the
 * text naming the CPUs. */
Test(cpus, bounds_with_cpus, .timeout = 120)
{
	json_t *s = ts_run_json(0, "solve %s -k 2 --cpus 1 -m exact --json", BERT24_INF);
	double opt = ts_jnum(s, "bottleneck");
	json_decref(s);
	json_t *r = ts_run_json(
	        0, "bounds %s -k 2 --cpus 1 --all-rungs --rungs simple,bottleneck,cover --json",
	        BERT24_INF);
	cr_assert_eq(ts_jint(r, "cpus"), 1);
	cr_assert_eq(ts_jint(r, "cpus_used"), 1);
	cr_assert_eq(json_array_size(ts_jget(r, "devices")), 3);
	cr_assert(ts_close_rel(ts_jnum(r, "upper_bound"), opt, 1e-12));
	json_t *rungs = ts_jget(r, "rungs");
	cr_assert_eq(json_array_size(rungs), 3);
	int valued = 0;
	for (size_t i = 0; i < json_array_size(rungs); i++) {
		json_t *x = json_array_get(rungs, i);
		const char *name = ts_jstr(x, "name");
		if (strcmp(name, "cover") == 0) {
			cr_assert_str_eq(ts_jstr(x, "status"), "skipped");
			cr_assert(json_is_null(json_object_get(x, "value")));
			cr_assert(strstr(ts_jstr(x, "message"), "no CPU version"));
			continue;
		}
		double v = ts_jnum(x, "value");
		cr_assert_str_eq(ts_jstr(x, "status"), "optimal", "%s", name);
		cr_assert_leq(v, opt * (1 + 1e-6), "%s %.17g above the optimum %.17g", name, v,
		              opt);
		cr_assert_gt(v, 0.9 * opt, "%s %.17g", name, v);
		valued++;
	}
	cr_assert_eq(valued, 2);
	json_decref(r);
	char *out;
	cr_assert_eq(
	        ts_runf(&out, NULL, "bounds %s -k 2 --cpus 1 --rungs simple,cover", BERT24_INF), 0);
	cr_assert(strstr(out, "bert24_inference.json, k 2, cpus 1: upper bound"), "%s", out);
	cr_assert(strstr(out, "CPU stages: up to 1 beside the 2 accelerator stages"), "%s", out);
	cr_assert(strstr(out, "skipped: the cover relaxation has no CPU version"), "%s", out);
	free(out);
}

/* When the exact DP with CPU stages cannot finish (here a quarter of -t
 * 0.4 against its 1.5 s), the upper bound is the accelerators' own
 * search, a partition with the CPU stages empty, not proven optimal. */
Test(cpus, bounds_falls_back_to_the_accelerators, .timeout = 60)
{
	json_t *r = ts_run_json(0, "bounds %s -k 4 --cpus 2 -t 0.4 --rungs simple --json",
	                        FIDDLE "operator/bert_l-6_training.json");
	cr_assert_str_eq(ts_jstr(r, "upper_bound_method"), "best, accelerators only");
	cr_assert(!ts_jbool(r, "upper_bound_optimal"));
	json_t *dev = ts_jget(r, "devices");
	cr_assert_eq(json_array_size(dev), 6);
	for (size_t s = 0; s < 6; s++)
		cr_assert_str_eq(json_string_value(json_array_get(dev, s)),
		                 s < 4 ? "accel" : "cpu");
	cr_assert_leq(ts_jnum(r, "lower_bound"), ts_jnum(r, "upper_bound"));
	json_decref(r);
}
