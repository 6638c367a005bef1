/*
 * test_cpus.c - CPU stages on the command line (issue 29): solve --cpus
 * reproduces the published optima with CPUs of the layer graphs
 * (samples/msr-fiddle/REFERENCE-CPU.tsv; the operator graphs are in the
 * unit test) and writes a partition that eval confirms, with its devices;
 * DOT's cpu_work and accel_ok; eval names an op on a device it may not go
 * to; --cpus 0 changes nothing; every method places CPU stages, its
 * partition file confirmed by `eval --cpus`, its result unproven unless
 * the exact DP proved it, never below the exact DP's optimum; refinement
 * starts from a partition file with devices; and every command and option
 * that does not place CPU stages yet refuses --cpus with exit status 2,
 * naming itself.
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
	        {"bounds " RESNET_LAYER " -k 2 --cpus 1", "not supported by bounds"},
	        {"render " RESNET_LAYER " -k 2 --cpus 1 -T dot", "not supported by render"},
	        {"bench " FIGURE2 " -k 2 --cpus 1", "not supported by bench"},
	        {"solve " RESNET_LAYER " -k 2 --cpus 1 --proof", "--proof (the exact MIP)"},
	        {"solve " RESNET_LAYER " -k 2 --cpus 1 --pin conv1=1", "--pin does not take"},
	        {"solve samples/onnx/resnet50.onnx -k 3 --cpus 1 --align 1", "--align and --cpus"},
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

/* solve -m METHOD --cpus 1 -o, then eval --cpus 1 of the file: the same
 * bottleneck, valid, its devices; returns solve's JSON (the caller frees
 * it). */
static json_t *method_and_eval(const char *graph, int k, const char *method, const char *more,
                               const char *part)
{
	json_t *r = ts_run_json(0, "solve %s -k %d --cpus 1 -m %s %s --json -o %s", graph, k,
	                        method, more, part);
	cr_assert(ts_jbool(r, "feasible"), "%s", method);
	cr_assert_eq(json_array_size(ts_jget(r, "devices")), (size_t)(k + 1), "%s", method);
	json_t *e = ts_run_json(0, "eval %s %s --cpus 1 --json", graph, part);
	cr_assert(ts_jbool(e, "valid") && ts_jbool(e, "feasible"), "%s", method);
	cr_assert(ts_close_rel(ts_jnum(e, "bottleneck"), ts_jnum(r, "bottleneck"), 1e-12),
	          "%s: eval %.17g, solve %.17g", method, ts_jnum(e, "bottleneck"),
	          ts_jnum(r, "bottleneck"));
	json_decref(e);
	return r;
}

/* Every method with one CPU stage (issue 29, item 2): a partition eval
 * confirms, no better than the exact DP's optimum, unproven unless the
 * exact DP proved it; brkga reaches the optimum on this graph. */
Test(cpus, every_method_places_cpu_stages, .timeout = 120)
{
	char part[256];
	ts_tpath(part, sizeof part, "m.json");
	json_t *x = method_and_eval(RESNET_LAYER, 2, "exact", "", part);
	double opt = ts_jnum(x, "bottleneck");
	cr_assert(ts_jbool(x, "optimal"));
	cr_assert_str_eq(ts_jstr(x, "proof"), "search");
	json_decref(x);
	static const char *const methods[] = {"best", "kahn",         "slice", "random", "brkga",
	                                      "mla",  "mla-weighted", "dpl",   "refine"};
	for (size_t i = 0; i < sizeof methods / sizeof *methods; i++) {
		json_t *r = method_and_eval(RESNET_LAYER, 2, methods[i], "--evals 300", part);
		double v = ts_jnum(r, "bottleneck");
		cr_assert_geq(v, opt * (1 - 1e-12), "%s: %.17g below the optimum %.17g", methods[i],
		              v, opt);
		if (strcmp(methods[i], "best") == 0) {
			cr_assert(ts_jbool(r, "optimal") && ts_close_rel(v, opt, 1e-12));
		} else {
			cr_assert(!ts_jbool(r, "optimal"), "%s", methods[i]);
			cr_assert_str_eq(ts_jstr(r, "proof"), "no_bound", "%s", methods[i]);
		}
		if (strcmp(methods[i], "brkga") == 0)
			cr_assert(ts_close_rel(v, opt, 1e-12), "brkga %.17g, optimum %.17g", v,
			          opt);
		json_decref(r);
	}
}

/* The bundled training sample, brkga with one CPU (1F1B): eval confirms
 * it, and the text report says it is unproven and counts the devices. */
Test(cpus, brkga_on_a_training_graph_and_the_text_report, .timeout = 60)
{
	char part[256], *out;
	ts_tpath(part, sizeof part, "t.json");
	json_t *r = method_and_eval(BERT24_TRAIN, 2, "brkga", "--evals 300", part);
	cr_assert(json_object_get(r, "objective") && json_object_get(r, "training"));
	json_decref(r);
	cr_assert_eq(
	        ts_runf(&out, NULL, "solve %s -k 2 --cpus 1 -m brkga --evals 300", RESNET_LAYER),
	        0);
	cr_assert(strstr(out, "not proven: no lower bound takes CPU stages yet"), "%s", out);
	cr_assert(strstr(out, "devices: 2 accelerator stages, 1 CPU stage"), "%s", out);
	cr_assert(strstr(out, "method brkga"), "%s", out);
	free(out);
}

/* Refinement from a partition file with devices: valid, no worse; a file
 * with more CPU stages than --cpus allows is refused, exit 2. */
Test(cpus, refine_starts_from_a_partition_with_devices, .timeout = 60)
{
	char part[256], out2[256], *err;
	ts_tpath(part, sizeof part, "start.json");
	ts_tpath(out2, sizeof out2, "refined.json");
	json_t *k = method_and_eval(RESNET_LAYER, 2, "kahn", "--no-refine", part);
	double start = ts_jnum(k, "bottleneck");
	json_decref(k);
	json_t *r = ts_run_json(0, "solve %s -k 2 --cpus 1 --partition %s --json -o %s",
	                        RESNET_LAYER, part, out2);
	cr_assert_str_eq(ts_jstr(r, "method"), "refine");
	cr_assert_leq(ts_jnum(r, "bottleneck"), start * (1 + 1e-12));
	json_decref(r);
	json_t *e = ts_run_json(0, "eval %s %s --cpus 1 --json", RESNET_LAYER, out2);
	cr_assert(ts_jbool(e, "valid") && ts_jbool(e, "feasible"));
	json_decref(e);
	/* two CPU stages in the file, one allowed */
	char g[256];
	ts_tpath(g, sizeof g, "abc.dot");
	ts_write_text(g, "digraph { a [work=1, cpu_work=1]; b [work=1]; c [work=1, cpu_work=1]; "
	                 "a -> b -> c }\n");
	ts_write_text(part, "{\"format\": \"stagecut-partition/1\", \"k\": 3, \"devices\": "
	                    "[\"cpu\", \"accel\", \"cpu\"], \"stages\": {\"a\": 1, \"b\": 2, "
	                    "\"c\": 3}}\n");
	cr_assert_eq(ts_runf(NULL, &err, "solve %s -k 2 --cpus 1 --partition %s", g, part), 2);
	cr_assert(strstr(err, "1 accelerator and 2 CPU stages, more than -k 2 --cpus 1 allow"),
	          "%s", err);
	free(err);
	cr_assert_eq(ts_runf(NULL, &err, "solve %s -k 2 --cpus 2 --partition %s --json", g, part),
	             0, "%s", err);
	free(err);
}
