/*
 * Longer than 600 lines: one suite for every command that takes --cpus, sharing its helpers.
 * test_cpus.c - CPU stages on the command line (001 section 3): solve --cpus
 * reproduces the published optima with CPUs of the layer graphs
 * (samples/msr-fiddle/REFERENCE-CPU.tsv; the operator graphs are in the
 * unit test) and writes a partition that eval confirms, with its devices;
 * DOT's cpu_work and accel_ok; eval names an op on a device it may not go
 * to; --cpus 0 changes nothing; every method places CPU stages, its
 * partition file confirmed by `eval --cpus`, its result unproven unless
 * the exact DP proved it, never below the exact DP's optimum; refinement
 * starts from a partition file with devices; and every command and option
 * that does not place CPU stages yet refuses --cpus with exit status 2,
 * naming itself.  bounds --cpus: the ladder with CPU stages, every rung at
 * or below solve's optimum, the cover rung skipped with its reason, the
 * reports naming the CPUs; bench --cpus records.
 *
 * Longer than 600 lines: one suite for one model across the commands, so
 * that the helpers (RESNET_LAYER, method_and_eval, solved) are shared and
 * a reader finds every CPU-stage behaviour of the command line in one file.
 */
#include "cli_test.h"

#include <cairo.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#include "solvers/ladder.h"

#define RESNET_LAYER FIDDLE "layer/resnet50_inference.json"
#define BERT24_TRAIN FIDDLE "layer/bert24_training.json"
#define RESNET_TRAIN FIDDLE "layer/resnet50_training.json"
#define GNMT_LAYER FIDDLE "layer/gnmt_inference.json"

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
	/* a run without CPU stages refuses the file, saying how to read it */
	char *err;
	cr_assert_eq(ts_runf(NULL, &err, "solve %s -k 3 --partition %s", RESNET_LAYER, part), 2);
	cr_assert(strstr(err, "runs on 'cpu'") && strstr(err, "--cpus"), "%s", err);
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
/* A heuristic without refinement may leave an op on a device that cannot
 * run it: then the exact MIP decides, as without CPU stages, finding the
 * optimum (the exact DP's) or proving that nothing fits (exit 1), never
 * "no proof" with exit 3. */
Test(cpus, a_search_that_finds_nothing_is_decided, .timeout = 60)
{
	char g[512];
	ts_tpath(g, sizeof g, "kahn.dot");
	ts_write_text(g, "digraph { n0 [work=4, out=3, cpu_work=16, accel_ok=false]; "
	                 "n1 [work=9, out=1, param=3]; "
	                 "n2 [work=7, out=1, cpu_work=8, accel_ok=false]; "
	                 "n3 [work=4, out=3, param=3, cpu_work=19, accel_ok=false]; "
	                 "n4 [work=5, cpu_work=15]; n1 -> n3; n2 -> n3; }");
	json_t *dp = ts_run_json(0, "solve %s -k 2 --cpus 1 -m exact --json", g);
	json_t *r = ts_run_json(0, "solve %s -k 2 --cpus 1 -m kahn --no-refine --proof --json", g);
	cr_assert(ts_jbool(r, "feasible"));
	cr_assert(ts_jbool(r, "optimal"));
	cr_assert(ts_close_rel(ts_jnum(r, "bottleneck"), ts_jnum(dp, "bottleneck"), 1e-9),
	          "kahn then the MIP: %g, the exact DP: %g", ts_jnum(r, "bottleneck"),
	          ts_jnum(dp, "bottleneck"));
	json_decref(dp);
	json_decref(r);
	/* n1 -> n3 with n0, n2, n3 CPU-only and one CPU: n2 and n3 share it,
	 * n0 has none left */
	ts_write_text(g, "digraph { n0 [work=4, cpu_work=16, accel_ok=false]; "
	                 "n2 [work=7, out=1, cpu_work=8, accel_ok=false]; "
	                 "n5 [work=1, out=1]; "
	                 "n3 [work=4, cpu_work=19, accel_ok=false]; n2 -> n5 -> n3; }");
	r = ts_run_json(1, "solve %s -k 2 --cpus 1 -m kahn --no-refine --proof --json", g);
	cr_assert(!ts_jbool(r, "feasible"));
	cr_assert(ts_jbool(r, "optimal"), "that nothing fits is proven");
	cr_assert_str_eq(ts_jstr(r, "proof"), "proven");
	json_decref(r);
}

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

/* What does not place CPU stages yet says so, exit 2 (the workbench does;
 * --pin and the GPipe schedule take them: tests/unit/test_search_cpu.c). */
Test(cpus, the_rest_refuses_cpus)
{
	static const char *const cases[][2] = {
	        /* the workbench takes them: what stops it here is the terminal */
	        {RESNET_LAYER " --cpus 1", "the workbench needs a terminal"},
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

/* Every method with one CPU stage: a partition eval
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
			/* proven only by a bound that reaches it, else that bound
			 * and its gap; the bound never above the optimum */
			double lb = ts_jnum(r, "lower_bound");
			cr_assert_leq(lb, opt * (1 + 1e-9), "%s: bound %.17g", methods[i], lb);
			if (ts_jbool(r, "optimal")) {
				cr_assert_str_eq(ts_jstr(r, "proof"), "proven", "%s", methods[i]);
				cr_assert(ts_close_rel(v, opt, 1e-12), "%s", methods[i]);
			} else {
				cr_assert_str_eq(ts_jstr(r, "proof"), "simple_bound", "%s",
				                 methods[i]);
				cr_assert(ts_close_rel(ts_jnum(r, "gap"), v / lb - 1, 1e-9), "%s",
				          methods[i]);
			}
		}
		if (strcmp(methods[i], "brkga") == 0)
			cr_assert(ts_close_rel(v, opt, 1e-12), "brkga %.17g, optimum %.17g", v,
			          opt);
		json_decref(r);
	}
}

/* The bundled training sample, brkga with one CPU (1F1B): eval confirms
 * it, and the text report gives the simple bound and counts the devices. */
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
	cr_assert(strstr(out, "not proven: the simple bound with CPU stages is"), "%s", out);
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
	cr_assert(strstr(err, "more stages of 'cpu' than the 1 asked for"), "%s", err);
	free(err);
	cr_assert_eq(ts_runf(NULL, &err, "solve %s -k 2 --cpus 2 --partition %s --json", g, part),
	             0, "%s", err);
	free(err);
}

/* solve -m exact --cpus L writes the partition file name (in the scratch
 * directory) into buf; returns buf.  Its devices in cpu[0..k + L). */
static const char *solved(char *buf, size_t size, const char *name, const char *graph, int k, int L,
                          bool *cpu)
{
	ts_tpath(buf, size, name);
	cr_assert_eq(
	        ts_runf(NULL, NULL, "solve %s -k %d --cpus %d -m exact -o %s", graph, k, L, buf),
	        0);
	json_error_t je;
	json_t *p = json_load_file(buf, 0, &je);
	cr_assert(p);
	json_t *dev = ts_jget(p, "devices");
	cr_assert_eq(json_array_size(dev), (size_t)(k + L));
	for (int s = 0; s < k + L; s++)
		cpu[s] = strcmp(json_string_value(json_array_get(dev, (size_t)s)), "cpu") == 0;
	json_decref(p);
	return buf;
}

/* The same partition file without its devices (every stage an
 * accelerator), at name in the scratch directory. */
static const char *without_devices(char *buf, size_t size, const char *name, const char *part)
{
	json_error_t je;
	json_t *p = json_load_file(part, 0, &je);
	cr_assert(p);
	cr_assert_eq(json_object_del(p, "devices"), 0);
	ts_tpath(buf, size, name);
	cr_assert_eq(json_dump_file(p, buf, 0), 0);
	json_decref(p);
	return buf;
}

/* The start of lane's segment (batch 1-based, pass, kind) in a timeline's
 * JSON. */
static double seg_start(json_t *lane, int batch, const char *pass, const char *kind)
{
	json_t *segs = ts_jget(lane, "segments"), *x;
	size_t i;
	json_array_foreach(segs, i, x)
	{
		if (ts_jint(x, "batch") == batch && !strcmp(ts_jstr(x, "pass"), pass) &&
		    !strcmp(ts_jstr(x, "kind"), kind))
			return ts_jnum(x, "start");
	}
	cr_assert_fail("no segment %d %s %s", batch, pass, kind);
	return NAN;
}

/* eval --timeline and render --timeline on a training graph with two CPU
 * stages (resnet50 training, k 2, 2 CPUs: stages 2 and 3, the bottleneck
 * a CPU): each lane busy m times its stage's cost as eval gives it, the
 * bottleneck, its stage and the period eval's bottleneck, the measured
 * steady state too; CPU lanes named and without communication. */
Test(cpus, timeline_agrees_with_eval)
{
	char part[256], svg[256], *out;
	bool cpu[4];
	solved(part, sizeof part, "rt.json", RESNET_TRAIN, 2, 2, cpu);
	cr_assert(!cpu[0] && cpu[1] && cpu[2] && !cpu[3], "the optimum's devices changed");
	json_t *e = ts_run_json(0, "eval %s %s --json", RESNET_TRAIN, part);
	double bn = ts_jnum(e, "bottleneck");
	int bn_at = (int)ts_jint(e, "bottleneck_stage");
	cr_assert(cpu[bn_at - 1], "the bottleneck should be a CPU stage");
	const int m = 8;
	json_t *te =
	        ts_run_json(0, "eval %s %s --timeline --batches %d --json", RESNET_TRAIN, part, m);
	ts_tpath(svg, sizeof svg, "rt.svg");
	json_t *tr = ts_run_json(0, "render %s %s --timeline --batches %d --json -o %s",
	                         RESNET_TRAIN, part, m, svg);
	cr_assert_eq(json_array_size(ts_jget(tr, "devices")), 4);
	json_t *tls[] = {ts_jget(te, "timeline"), ts_jget(tr, "timeline")};
	for (int w = 0; w < 2; w++) {
		json_t *t = tls[w];
		cr_assert(ts_close_rel(ts_jnum(t, "bottleneck"), bn, 1e-12));
		cr_assert(ts_close_rel(ts_jnum(t, "period"), bn, 1e-12));
		cr_assert_eq(ts_jint(t, "bottleneck_stage"), bn_at);
		cr_assert_eq(ts_jint(t, "cpus"), 2);
		json_t *lanes = ts_jget(t, "lanes");
		cr_assert_eq(json_array_size(lanes), 4);
		for (int s = 0; s < 4; s++) {
			json_t *lane = json_array_get(lanes, (size_t)s);
			double cost =
			        ts_jnum(json_array_get(ts_jget(e, "stages"), (size_t)s), "cost");
			cr_assert(ts_close_rel(ts_jnum(lane, "busy"), m * cost, 1e-9),
			          "lane %d busy %.17g, %d x eval's %.17g", s + 1,
			          ts_jnum(lane, "busy"), m, cost);
			char label[32];
			snprintf(label, sizeof label, "stage %d%s", s + 1, cpu[s] ? " (CPU)" : "");
			cr_assert_str_eq(ts_jstr(lane, "label"), label);
			cr_assert_str_eq(ts_jstr(lane, "device"), cpu[s] ? "cpu" : "accel");
			json_t *x;
			size_t i;
			json_array_foreach(ts_jget(lane, "segments"), i, x)
			{
				if (cpu[s] && strcmp(ts_jstr(x, "kind"), "compute") != 0)
					cr_assert_eq(ts_jnum(x, "start"), ts_jnum(x, "end"),
					             "CPU lane %d communicates", s + 1);
			}
		}
		/* the steady state on the bottleneck lane */
		json_t *lane = json_array_get(lanes, (size_t)bn_at - 1);
		double d = seg_start(lane, m / 2 + 1, "forward", "compute") -
		           seg_start(lane, m / 2, "forward", "compute");
		cr_assert(ts_close_rel(d, bn, 1e-9), "steady period %.17g, bottleneck %.17g", d,
		          bn);
	}
	json_decref(tr);
	json_decref(te);
	json_decref(e);
	/* the text report and the picture's description name the CPU lanes */
	cr_assert_eq(ts_runf(&out, NULL, "eval %s %s --timeline", RESNET_TRAIN, part), 0);
	cr_assert(strstr(out, "CPU lanes (compute only, no communication): 2 3\n"), "%s", out);
	cr_assert(strstr(out, "(stage 3, CPU)\n"), "%s", out);
	free(out);
	char *text = ts_slurp(svg, NULL);
	cr_assert(strstr(text, "\nstage 1: busy "));
	cr_assert(strstr(text, "\nstage 2 (CPU): busy "));
	cr_assert(strstr(text, "\nstage 3 (CPU): busy "));
	cr_assert(strstr(text, "2 accelerator stages, 2 CPU stages"));
	free(text);
}

/* Rows of an RGB24 image holding a pixel of colour rgb (within 2 of each
 * channel), as bands of consecutive rows: top[i] and height[i] of at most
 * max bands; returns the number of bands. */
static int colour_bands(cairo_surface_t *img, const int rgb[3], int *top, int *height, int max)
{
	int w = cairo_image_surface_get_width(img), h = cairo_image_surface_get_height(img);
	int stride = cairo_image_surface_get_stride(img), n = 0;
	const unsigned char *d = cairo_image_surface_get_data(img);
	bool prev = false;
	for (int y = 0; y < h; y++) {
		bool has = false;
		for (int x = 0; x < w && !has; x++) {
			uint32_t p = *(const uint32_t *)(d + y * stride + 4 * x);
			int c[3] = {(int)(p >> 16 & 255), (int)(p >> 8 & 255), (int)(p & 255)};
			has = abs(c[0] - rgb[0]) <= 2 && abs(c[1] - rgb[1]) <= 2 &&
			      abs(c[2] - rgb[2]) <= 2;
		}
		if (has && !prev && n < max)
			top[n] = y, height[n++] = 0;
		if (has && n <= max && n > 0)
			height[n - 1]++;
		prev = has;
	}
	return n;
}

/* The timeline PNG of resnet50 (k 2, 1 CPU: stage 2 of 3) against the
 * same partition read without its devices: the same three lanes, and
 * only with the devices one lane, the middle one, in the CPU's compute
 * colour (SC_TL_CPU_COMPUTE_RGB), the other two in the accelerators'. */
Test(cpus, timeline_png_draws_the_cpu_lane)
{
	char part[256], plain[256], png[256], png2[256];
	bool cpu[3];
	solved(part, sizeof part, "r.json", RESNET_LAYER, 2, 1, cpu);
	cr_assert(!cpu[0] && cpu[1] && !cpu[2]);
	without_devices(plain, sizeof plain, "plain.json", part);
	ts_tpath(png, sizeof png, "cpu.png");
	ts_tpath(png2, sizeof png2, "plain.png");
	cr_assert_eq(ts_runf(NULL, NULL, "render %s %s --timeline -o %s", RESNET_LAYER, part, png),
	             0);
	cr_assert_eq(
	        ts_runf(NULL, NULL, "render %s %s --timeline -o %s", RESNET_LAYER, plain, png2), 0);
	cairo_surface_t *a = cairo_image_surface_create_from_png(png);
	cairo_surface_t *b = cairo_image_surface_create_from_png(png2);
	cr_assert(cairo_surface_status(a) == CAIRO_STATUS_SUCCESS &&
	          cairo_surface_status(b) == CAIRO_STATUS_SUCCESS);
	cr_assert_eq(cairo_image_surface_get_height(a), cairo_image_surface_get_height(b));
	cr_assert_eq(cairo_image_surface_get_format(a), CAIRO_FORMAT_RGB24);
	static const int purple[3] = {153, 76, 179}, blue[3] = {51, 102, 204};
	int top[8], h[8], btop[8], bh[8];
	/* with devices: the CPU lane (26 rows: a lane less its margins) and
	 * the legend's swatch (14) in purple; two lanes and a swatch in blue */
	int n = colour_bands(a, purple, top, h, 8), nb = colour_bands(a, blue, btop, bh, 8);
	cr_assert_eq(n, 2, "%d purple bands", n);
	cr_assert(h[0] == 26 && h[1] == 14, "purple bands %d, %d rows tall", h[0], h[1]);
	cr_assert_eq(nb, 3, "%d blue bands", nb);
	cr_assert(bh[0] == 26 && bh[1] == 26 && bh[2] == 14);
	cr_assert(btop[0] < top[0] && top[0] < btop[1], "the CPU lane is not the middle one");
	/* without: no purple, three blue lanes */
	cr_assert_eq(colour_bands(b, purple, top, h, 8), 0);
	nb = colour_bands(b, blue, btop, bh, 8);
	cr_assert(nb == 4 && bh[0] == 26 && bh[1] == 26 && bh[2] == 26, "%d blue bands", nb);
	cairo_surface_destroy(a);
	cairo_surface_destroy(b);
}

/* Whether the DOT text marks stage s (1-based) as a CPU stage: its node's
 * class (the stage graph) or its heading (both pictures). */
static bool dot_names_cpu(const char *dot, int s, bool full)
{
	char head[64], node[32];
	snprintf(head, sizeof head, "stage %d &#183; CPU</B>", s);
	snprintf(node, sizeof node, "\ts%d\t[class=cpu,", s);
	bool h = strstr(dot, head) != NULL, c = strstr(dot, node) != NULL;
	cr_assert(full || h == c, "stage %d: heading %d, class %d", s, h, c);
	return h;
}

/* render's DOT (the stage graph and --full) marks exactly the CPU stages
 * of gnmt's optimum (k 2, 2 CPUs: two of its 4 stages, which two as the
 * balancing leaves them) and counts both devices in the caption; the same
 * partition without devices marks none. */
Test(cpus, render_dot_marks_the_cpu_stages)
{
	char part[256], plain[256], dot[256], *out;
	bool cpu[4];
	solved(part, sizeof part, "g.json", GNMT_LAYER, 2, 2, cpu);
	cr_assert_eq(cpu[0] + cpu[1] + cpu[2] + cpu[3], 2, "the optimum uses both CPUs");
	without_devices(plain, sizeof plain, "plain.json", part);
	ts_tpath(dot, sizeof dot, "g.dot");
	for (int full = 0; full < 2; full++) {
		cr_assert_eq(ts_runf(&out, NULL, "render %s %s -o %s %s", GNMT_LAYER, part, dot,
		                     full ? "--full" : ""),
		             0);
		cr_assert(strstr(out, "devices: 2 accelerator stages, 2 CPU stages\n"), "%s", out);
		free(out);
		char *text = ts_slurp(dot, NULL);
		for (int s = 1; s <= 4; s++)
			cr_assert_eq(dot_names_cpu(text, s, full), cpu[s - 1], "%s: stage %d",
			             full ? "--full" : "stage graph", s);
		cr_assert(strstr(text, "2 accelerator stages, 2 CPU stages ("), "%s", text);
		free(text);
		cr_assert_eq(ts_runf(NULL, NULL, "render %s %s -o %s %s", GNMT_LAYER, plain, dot,
		                     full ? "--full" : ""),
		             0);
		text = ts_slurp(dot, NULL);
		cr_assert(!strstr(text, "CPU"), "no device, no CPU: %s", text);
		free(text);
	}
	/* --json names the devices as eval does */
	json_t *r = ts_run_json(0, "render %s %s -o %s --json", GNMT_LAYER, part, dot);
	json_t *dev = ts_jget(r, "devices");
	for (int s = 0; s < 4; s++)
		cr_assert_str_eq(json_string_value(json_array_get(dev, (size_t)s)),
		                 cpu[s] ? "cpu" : "accel");
	json_decref(r);
}

/* A partition with CPU stages: without --cpus its devices stand (as eval
 * has always read them); a --cpus below them, a -k that is neither the
 * file's k nor its accelerators, or the GPipe schedule, exit 2 with one
 * line naming the file, writing nothing. */
Test(cpus, partition_devices_against_the_options)
{
	char part[256], tpart[256], out[256];
	bool cpu[4];
	solved(part, sizeof part, "r.json", RESNET_LAYER, 2, 1, cpu);
	solved(tpart, sizeof tpart, "t.json", RESNET_TRAIN, 2, 1, cpu);
	ts_tpath(out, sizeof out, "x.png");
	static const struct {
		const char *cmd, *graph;
		bool training;
		const char *more, *want;
	} bad[] = {
	        {"eval", RESNET_LAYER, false, "--cpus 0", "1 CPU stage, more than --cpus 0 allows"},
	        {"eval", RESNET_LAYER, false, "--timeline --cpus 0", "more than --cpus 0"},
	        {"render", RESNET_LAYER, false, "--cpus 0", "more than --cpus 0 allows"},
	        {"render", RESNET_LAYER, false, "--timeline --cpus 0", "more than --cpus 0"},
	        {"render", RESNET_LAYER, false, "-k 4",
	         "2 accelerator stages and 1 CPU stage, but -k 4"},
	        {"eval", RESNET_TRAIN, true, "--timeline --schedule gpipe", "GPipe schedule"},
	        {"render", RESNET_TRAIN, true, "--schedule gpipe", "GPipe schedule"},
	        {"render", RESNET_TRAIN, true, "--timeline --schedule gpipe", "GPipe schedule"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		const char *p = bad[i].training ? tpart : part;
		char *err = NULL;
		int st = ts_runf(NULL, &err, "%s %s %s %s %s %s", bad[i].cmd, bad[i].graph, p,
		                 bad[i].more, strcmp(bad[i].cmd, "render") ? "" : "-o",
		                 strcmp(bad[i].cmd, "render") ? "" : out);
		cr_assert_eq(st, 2, "%s %s: exit %d (%s)", bad[i].cmd, bad[i].more, st, err);
		cr_assert(strstr(err, bad[i].want) && strstr(err, p), "%s %s: %s", bad[i].cmd,
		          bad[i].more, err);
		cr_assert(strchr(err, '\n') == err + strlen(err) - 1, "one line: %s", err);
		free(err);
		cr_assert_neq(access(out, F_OK), 0, "%s %s wrote %s", bad[i].cmd, bad[i].more, out);
	}
	/* the file's devices stand without --cpus; -k gives k or the
	 * accelerators */
	static const char *const good[] = {"", "--cpus 1", "--cpus file", "-k 2", "-k 3"};
	for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
		char *err = NULL;
		int st = ts_runf(NULL, &err, "render %s %s --timeline -o %s %s", RESNET_LAYER, part,
		                 out, good[i]);
		cr_assert_eq(st, 0, "render %s: exit %d (%s)", good[i], st, err);
		free(err);
	}
	cr_assert_eq(ts_runf(NULL, NULL, "eval %s %s --timeline", RESNET_LAYER, part), 0);
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
 * 0.4 against its 1.5 s), the upper bound is brkga's with CPU stages, not
 * proven optimal; -m brkga asks for it at once.  Its partition (-o) is
 * valid with its devices, eval agreeing with the upper bound, and the
 * bound is at or below it; on bert24 the brkga upper bound is at or above
 * the exact DP's optimum and the lower bound at or below. */
Test(cpus, bounds_falls_back_to_the_search_with_cpus, .timeout = 60)
{
	char part[256];
	ts_tpath(part, sizeof part, "fb.json");
	const char *g = FIDDLE "operator/bert_l-6_training.json";
	json_t *r = ts_run_json(0, "bounds %s -k 4 --cpus 2 -t 0.4 --rungs simple --json -o %s", g,
	                        part);
	cr_assert_str_eq(ts_jstr(r, "upper_bound_method"), "brkga");
	/* not proven: unknown (null), not false */
	cr_assert(json_is_null(ts_jget(r, "upper_bound_optimal")));
	cr_assert_eq(json_array_size(ts_jget(r, "devices")), 6);
	cr_assert_leq(ts_jnum(r, "lower_bound"), ts_jnum(r, "upper_bound"));
	json_t *e = ts_run_json(0, "eval %s %s --cpus 2 --json", g, part);
	cr_assert(ts_jbool(e, "valid") && ts_jbool(e, "feasible"));
	cr_assert(ts_close_rel(ts_jnum(e, "bottleneck"), ts_jnum(r, "upper_bound"), 1e-9),
	          "eval %.17g, bounds %.17g", ts_jnum(e, "bottleneck"), ts_jnum(r, "upper_bound"));
	json_decref(e);
	json_decref(r);
	json_t *x = ts_run_json(0, "solve %s -k 2 --cpus 1 -m exact --json", BERT24_INF);
	double opt = ts_jnum(x, "bottleneck");
	json_decref(x);
	r = ts_run_json(0, "bounds %s -k 2 --cpus 1 -m brkga --rungs simple --json", BERT24_INF);
	cr_assert_str_eq(ts_jstr(r, "upper_bound_method"), "brkga");
	cr_assert_geq(ts_jnum(r, "upper_bound"), opt * (1 - 1e-9));
	cr_assert_leq(ts_jnum(r, "lower_bound"), opt * (1 + 1e-9));
	json_decref(r);
}

/* solve --proof with CPU stages: the exact MIP with a device per stage
 * proves (here improving kahn's partition to) the exact DP's optimum, and
 * eval confirms the partition with its devices. */
Test(cpus, solve_proof_with_cpus, .timeout = 120)
{
	json_t *x = ts_run_json(0, "solve %s -k 2 --cpus 1 -m exact --json", BERT24_INF);
	double opt = ts_jnum(x, "bottleneck");
	json_decref(x);
	char part[256];
	ts_tpath(part, sizeof part, "proof.json");
	json_t *r = method_and_eval(BERT24_INF, 2, "kahn", "--proof", part);
	cr_assert_str_eq(ts_jstr(r, "proof"), "proven");
	cr_assert_str_eq(ts_jstr(r, "proven_by"), "exact MIP");
	cr_assert(ts_jbool(r, "optimal"));
	cr_assert(ts_close_rel(ts_jnum(r, "bottleneck"), opt, 1e-9), "%.17g against %.17g",
	          ts_jnum(r, "bottleneck"), opt);
	cr_assert_eq(ts_jnum(r, "gap"), 0);
	/* the MIP found the optimum (kahn's is above it), in its own time,
	 * proven within the MIP's tolerance (they said kahn, 0 s and 0) */
	cr_assert_str_eq(ts_jstr(r, "found_by"), "exact MIP");
	cr_assert_gt(ts_jnum(r, "proof_seconds"), 0);
	cr_assert(ts_close_rel(ts_jnum(r, "optimal_within"), SC_LADDER_REL_TOL, 1e-12));
	json_decref(r);
}

/* solve --proof with CPU stages names what proved the result, as the JSON
 * does: the exact MIP (the text said the simple bound).  Kahn's partition
 * of this graph (a | x d on the CPU | c: 6, 5, 4 + io 3 = 7) is above the
 * simple bound with CPU stages, so that cannot prove it. */
Test(cpus, solve_proof_names_the_exact_mip)
{
	char g[256], *out = NULL;
	ts_tpath(g, sizeof g, "proof.dot");
	ts_write_text(g, "digraph { a [work=4, out=2, cpu_work=9]; x [work=1, out=2, "
	                 "cpu_work=3]; c [work=4, cpu_work=5]; d [work=3, out=1, cpu_work=2]; "
	                 "a -> x -> c; a -> d -> c }\n");
	json_t *r = ts_run_json(0, "solve %s -k 2 --cpus 1 -m kahn --no-refine --proof --json", g);
	cr_assert_str_eq(ts_jstr(r, "proof"), "proven");
	cr_assert_str_eq(ts_jstr(r, "proven_by"), "exact MIP");
	json_decref(r);
	cr_assert_eq(ts_runf(&out, NULL, "solve %s -k 2 --cpus 1 -m kahn --no-refine --proof", g),
	             0);
	cr_assert(strstr(out, "\nproven optimal by the exact MIP with CPU stages, within "
	                      "1e-6 relative in "),
	          "%s", out);
	cr_assert_null(strstr(out, "simple bound"), "%s", out);
	free(out);
}

/* A heuristic's result the simple bound with CPU stages meets is proven by
 * it, under the name the man page gives ("simple bound", as the ladder's
 * rung label; it said "simple"), and the JSON's lower bound is that bound:
 * a dominant op alone in its stage. */
Test(cpus, the_simple_bound_proof_is_named_as_the_man_page_says)
{
	char g[256];
	ts_tpath(g, sizeof g, "sb.dot");
	ts_write_text(g, "digraph { a [work=10, cpu_work=12, out=0]; b [work=1, cpu_work=2, "
	                 "out=0]; c [work=1, cpu_work=2, out=0]; a -> b -> c; }\n");
	json_t *r = ts_run_json(0, "solve %s -k 2 --cpus 1 -m kahn --json", g);
	cr_assert_str_eq(ts_jstr(r, "proof"), "proven");
	cr_assert_str_eq(ts_jstr(r, "proven_by"), "simple bound");
	cr_assert_float_eq(ts_jnum(r, "lower_bound"), 10, 1e-12);
	cr_assert_float_eq(ts_jnum(r, "bottleneck"), 10, 1e-12);
	json_decref(r);
	char *man = ts_slurp("man/stagecut.1", NULL);
	cr_assert(man && strstr(man, "\\(dqsimple bound\\(dq"), "the man page names it");
	free(man);
}

/* bench --cpus 1: each record names the CPUs and its key
 * counts them (a rerun skips what is done, a run without CPUs does not);
 * no method below the exact DP's optimum with CPU stages, no rung and not
 * the simple bound above it, and the exact method equal to it. */
Test(cpus, bench_with_cpus, .timeout = 120)
{
	char res[256], *out, *err;
	ts_tpath(res, sizeof res, "b.jsonl");
	const char *graphs[] = {RESNET_LAYER, BERT24_TRAIN};
	double opt[2][2];
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++) {
			json_t *s = ts_run_json(0, "solve %s -k %d --cpus 1 -m exact --json",
			                        graphs[i], 2 + 2 * j);
			opt[i][j] = ts_jnum(s, "bottleneck"); /* 1F1B: the objective */
			json_decref(s);
		}
	const char *run = "bench %s %s -k 2,4 --cpus 1 --methods brkga-100,exact --rungs "
	                  "simple,bottleneck -t 2 -o %s";
	cr_assert_eq(ts_runf(&out, &err, run, graphs[0], graphs[1], res), 0, "%s", err);
	free(out);
	free(err);
	FILE *f = fopen(res, "r");
	cr_assert(f);
	char line[1 << 16];
	int records = 0;
	while (fgets(line, sizeof line, f)) {
		json_t *r = json_loads(line, 0, NULL);
		cr_assert(r, "%s", line);
		cr_assert_eq(ts_jint(r, "cpus"), 1);
		cr_assert(strstr(ts_jstr(r, "config"), ";cpus=1"), "%s", ts_jstr(r, "config"));
		int i = strstr(ts_jstr(r, "graph"), "bert24") != NULL, j = ts_jint(r, "k") == 4;
		double o = opt[i][j];
		json_t *m = ts_jget(r, "methods");
		double b = ts_jnum(json_object_get(m, "brkga-100"), "bottleneck");
		double x = ts_jnum(json_object_get(m, "exact"), "bottleneck");
		cr_assert_geq(b, o * (1 - 1e-9), "brkga %.17g below %.17g", b, o);
		cr_assert(ts_close_rel(x, o, 1e-9), "exact %.17g, optimum %.17g", x, o);
		cr_assert_leq(ts_jnum(r, "simple"), o * (1 + 1e-9));
		json_t *rungs = ts_jget(r, "rungs");
		const char *key;
		json_t *v;
		json_object_foreach(rungs, key, v)
		{
			json_t *val = json_object_get(v, "value");
			if (json_is_number(val))
				cr_assert_leq(json_number_value(val), o * (1 + 1e-6), "rung %s",
				              key);
		}
		json_decref(r);
		records++;
	}
	fclose(f);
	cr_assert_eq(records, 4);
	/* the same run again does nothing new */
	cr_assert_eq(ts_runf(&out, &err, run, graphs[0], graphs[1], res), 0, "%s", err);
	free(out);
	free(err);
	char *all = ts_slurp(res, NULL);
	int lines = 0;
	for (char *p = all; *p; p++)
		lines += *p == '\n';
	cr_assert_eq(lines, 4, "a rerun added records");
	free(all);
}

/* ^C during --proof's exact MIP with CPU stages (it once
 * killed the program, the partition found lost) stops the proof: the
 * search's partition is printed, the proof says interrupted, exit 130;
 * and solve --json exits 130 after ^C as the text does (it said 0). */
Test(cpus, interrupting_the_proof_keeps_the_partition, .timeout = 90)
{
	char out[256], cmd[1024];
	ts_tpath(out, sizeof out, "int.json");
	snprintf(cmd, sizeof cmd,
	         "exec %s solve " FIDDLE "operator/resnet50_inference.json -k 4 --cpus 1 -m kahn "
	         "--proof --json > %s 2>/dev/null",
	         ts_program(), out);
	pid_t pid = ts_spawn(cmd, false);
	/* loading and kahn take well under a second; the MIP then runs for
	 * its minute */
	struct timespec nap = {2, 500000000};
	nanosleep(&nap, NULL);
	kill(pid, SIGINT);
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 130, "exit status %d",
	          WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st));
	json_error_t je;
	json_t *r = json_load_file(out, 0, &je);
	cr_assert(r, "%s: %s", out, je.text);
	cr_assert(ts_jbool(r, "feasible"));
	cr_assert_str_eq(ts_jstr(r, "proof"), "interrupted");
	cr_assert_gt(ts_jnum(r, "bottleneck"), 0);
	json_decref(r);
}

/* render -k K --cpus L without a partition draws the search's partition
 * with its CPU stages (its k + L stages were once out of the picture's
 * range: "op ... is in stage 3, outside 1..2"); the bottleneck is solve's
 * proven optimum. */
Test(cpus, render_searches_with_cpu_stages)
{
	char pic[512];
	ts_tpath(pic, sizeof pic, "searched.dot");
	json_t *s = ts_run_json(0, "solve %s -k 2 --cpus 1 --json", RESNET_LAYER);
	cr_assert(ts_jbool(s, "optimal"));
	json_t *r = ts_run_json(0, "render %s -k 2 --cpus 1 -o %s --json", RESNET_LAYER, pic);
	cr_assert_eq(ts_jint(r, "k"), 3);
	json_t *dev = ts_jget(r, "devices");
	int cpus = 0;
	for (size_t i = 0; i < json_array_size(dev); i++)
		cpus += strcmp(json_string_value(json_array_get(dev, i)), "cpu") == 0;
	cr_assert_eq(json_array_size(dev), 3);
	cr_assert_leq(cpus, 1);
	cr_assert(ts_close_rel(ts_jnum(r, "bottleneck"), ts_jnum(s, "bottleneck"), 1e-9),
	          "render %.17g, solve %.17g", ts_jnum(r, "bottleneck"), ts_jnum(s, "bottleneck"));
	json_decref(r);
	json_decref(s);
}
