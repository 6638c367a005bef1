/*
 * test_devices.c - solve --devices (core/fleet.h): a pipeline over devices
 * of several kinds.  On small DOT graphs with work_NAME tables and CPU
 * times, solve's optimum equals a brute force written here apart from the
 * program (every arrangement of the kinds and every valid assignment, each
 * stage costed from ts_costs's io and the kind's op times); every method's
 * partition names each stage's kind within the counts and is never below
 * that optimum; the file written names the kinds.  On an ONNX model the
 * other kinds' times come from their device profiles: one kind h100 on a
 * model loaded for the a100 solves as --device h100 does, and a100 + h100
 * (links of different speeds) is proven or bounded by the DP's relaxation.
 * With --pin and under GPipe, against the brute force of
 * tests/support_kinds.c.  Bad specs, unknown kinds, -k and --cpus beside
 * --devices exit 2.
 */
#include "cli_test.h"

#include <math.h>
#include <stdarg.h>

#include "core/fleet.h"

TestSuite(devices, .init = ts_scratch_init, .fini = ts_scratch_fini);

/* The JSON of a run that may find a partition or not (exit 0, 1 or 3). */
static json_t *any_json(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static json_t *any_json(const char *fmt, ...)
{
	char args[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(args, sizeof args, fmt, ap);
	va_end(ap);
	int status;
	json_t *j = ts_json_of(0, 3, &status, args);
	cr_assert(status != 2, "'%s': exit 2", args);
	return j;
}

#define NOPS 6

/* A random graph of NOPS ops in DOT with work, work_b (absent: the op may
 * not run on b) and cpu_work (absent: not on a CPU). */
static void write_graph(ts_rng *r, const char *path)
{
	char text[4096];
	int at =
	        snprintf(text, sizeof text, "digraph g { bandwidth = %.3f;\n", 0.5 + ts_uniform(r));
	for (int v = 0; v < NOPS; v++) {
		at += snprintf(text + at, sizeof text - (size_t)at, " n%d [work=%.3f, out=%.3f", v,
		               1 + 9 * ts_uniform(r), 3 * ts_uniform(r));
		if (ts_uniform(r) < 0.85)
			at += snprintf(text + at, sizeof text - (size_t)at, ", work_b=%.3f",
			               1 + 9 * ts_uniform(r));
		if (ts_uniform(r) < 0.6)
			at += snprintf(text + at, sizeof text - (size_t)at, ", cpu_work=%.3f",
			               2 + 20 * ts_uniform(r));
		at += snprintf(text + at, sizeof text - (size_t)at, "];\n");
	}
	for (int u = 0; u < NOPS; u++)
		for (int v = u + 1; v < NOPS; v++)
			if (ts_uniform(r) < 0.35)
				at += snprintf(text + at, sizeof text - (size_t)at,
				               " n%d -> n%d;\n", u, v);
	snprintf(text + at, sizeof text - (size_t)at, "}\n");
	ts_write_text(path, text);
}

/* The bottleneck of stage[] with kinds kind[] (names: "accel", "b",
 * "cpu"), by the model of fleet.h written apart: INFINITY when an op sits
 * on a kind that may not run it; NAN when the partition is invalid. */
static double bottleneck(const sc_graph *g, const int *stage, char *const *kind, int K)
{
	if (!ts_valid(g, stage, K))
		return NAN;
	ts_cost c[8];
	double t[8] = {0};
	sc_settings set = g->settings;
	ts_costs(g, stage, &set, K, c);
	int b = -1;
	for (int i = 0; i < g->nkinds; i++)
		if (strcmp(g->kind_name[i], "b") == 0)
			b = i;
	cr_assert(b >= 0, "the graph has the table work_b");
	double worst = 0;
	for (int v = 0; v < g->n; v++) {
		const char *k = kind[stage[v]];
		double w;
		if (strcmp(k, "cpu") == 0)
			w = g->cpu_ok && g->cpu_ok[v] ? g->cpu_work[v] : INFINITY;
		else if (strcmp(k, "b") == 0)
			w = isnan(g->kind_work[b][v]) ? INFINITY : g->kind_work[b][v];
		else
			w = g->work[v];
		t[stage[v]] += w;
	}
	for (int s = 0; s < K; s++) {
		double cost = t[s];
		if (strcmp(kind[s], "cpu") != 0)
			cost += (c[s].in_bytes + c[s].out_bytes) / set.bandwidth;
		worst = fmax(worst, cost);
	}
	return worst;
}

/* The optimum over every arrangement of the kinds (names[e], count[e]
 * stages each) and every assignment of the ops. */
static double brute(const sc_graph *g, char *const *names, const int *count, int nk)
{
	int K = 0;
	for (int e = 0; e < nk; e++)
		K += count[e];
	double opt = INFINITY;
	int total = 1;
	for (int s = 0; s < K; s++)
		total *= nk;
	char *kind[8];
	int stage[NOPS];
	for (int code = 0; code < total; code++) {
		int left[4] = {0}, c = code;
		for (int e = 0; e < nk; e++)
			left[e] = count[e];
		bool ok = true;
		for (int s = 0; s < K; s++, c /= nk) {
			int e = c % nk;
			kind[s] = names[e];
			ok &= left[e]-- > 0;
		}
		if (!ok)
			continue;
		memset(stage, 0, sizeof stage);
		for (;;) {
			double v = bottleneck(g, stage, kind, K);
			if (v < opt)
				opt = v;
			int i = 0;
			while (i < g->n && ++stage[i] == K)
				stage[i++] = 0;
			if (i == g->n)
				break;
		}
	}
	return opt;
}

Test(devices, solve_equals_brute_force_and_every_method_stays_within_the_fleet, .timeout = 120)
{
	ts_rng r = {0xd1ce5ULL};
	char g[512], part[512];
	ts_tpath(g, sizeof g, "kinds.dot");
	ts_tpath(part, sizeof part, "kinds.json");
	const char *specs[] = {"accel:1,b:2", "accel:2,b:1,cpu:1", "b:2,cpu:1"};
	char *names[][3] = {{"accel", "b", ""}, {"accel", "b", "cpu"}, {"b", "cpu", ""}};
	int counts[][3] = {{1, 2, 0}, {2, 1, 1}, {2, 1, 0}};
	int nks[] = {2, 3, 2};
	for (int t = 0; t < 12; t++) {
		write_graph(&r, g);
		int i = t % 3;
		sc_graph *graph = ts_load(g);
		double want = brute(graph, names[i], counts[i], nks[i]);
		json_t *j = any_json("solve %s --devices %s --json -o %s", g, specs[i], part);
		if (!isfinite(want)) {
			/* nothing fits: not reported as a partition */
			cr_assert(!ts_jbool(j, "feasible"), "case %d: brute force finds none", t);
			json_decref(j);
			sc_graph_free(graph);
			continue;
		}
		cr_assert(ts_jbool(j, "optimal"), "case %d (%s)", t, specs[i]);
		cr_assert(ts_close_rel(ts_jnum(j, "bottleneck"), want, 1e-9),
		          "case %d (%s): solve %.17g, brute force %.17g", t, specs[i],
		          ts_jnum(j, "bottleneck"), want);
		cr_assert_str_eq(ts_jstr(j, "fleet"), specs[i]);
		/* each stage's kind, within the counts; the file names them too */
		json_t *dev = ts_jget(j, "devices");
		int seen[3] = {0};
		for (size_t s = 0; s < json_array_size(dev); s++)
			for (int e = 0; e < nks[i]; e++)
				seen[e] += strcmp(json_string_value(json_array_get(dev, s)),
				                  names[i][e]) == 0;
		for (int e = 0; e < nks[i]; e++)
			cr_assert_eq(seen[e], counts[i][e], "case %d: %d stages of %s", t, seen[e],
			             names[i][e]);
		json_t *file = json_load_file(part, 0, NULL);
		cr_assert(json_equal(json_object_get(file, "devices"), dev), "case %d", t);
		json_decref(file);
		/* eval --devices reads the kinds back: the same bottleneck */
		json_t *ev = ts_run_json(0, "eval %s %s --devices %s --json", g, part, specs[i]);
		cr_assert(ts_close_rel(ts_jnum(ev, "bottleneck"), want, 1e-9),
		          "case %d: eval %.17g", t, ts_jnum(ev, "bottleneck"));
		cr_assert(json_equal(ts_jget(ev, "devices"), dev), "case %d", t);
		cr_assert(!ts_jbool(ev, "devices_placed"));
		json_decref(ev);
		json_decref(j);
		const char *methods[] = {"kahn", "slice", "brkga", "random"};
		for (int m = 0; m < 4; m++) {
			j = any_json("solve %s --devices %s -m %s --evals 300 --json", g, specs[i],
			             methods[m]);
			if (ts_jbool(j, "feasible"))
				cr_assert(ts_jnum(j, "bottleneck") >= want * (1 - 1e-9),
				          "case %d, %s: %.17g below the optimum %.17g", t,
				          methods[m], ts_jnum(j, "bottleneck"), want);
			dev = ts_jget(j, "devices");
			int n[3] = {0};
			for (size_t s = 0; s < json_array_size(dev); s++)
				for (int e = 0; e < nks[i]; e++)
					n[e] += strcmp(json_string_value(json_array_get(dev, s)),
					               names[i][e]) == 0;
			for (int e = 0; ts_jbool(j, "feasible") && e < nks[i]; e++)
				cr_assert_eq(n[e], counts[i][e], "case %d, %s: %d stages of %s", t,
				             methods[m], n[e], names[i][e]);
			json_decref(j);
		}
		sc_graph_free(graph);
	}
}

/* The kinds of an ONNX model come from the device profiles: one h100 kind
 * on the model loaded for the a100 solves as --device h100 does; a100 and
 * h100 together (links of different speeds) end proven or with the DP
 * relaxation's bound, never above the result. */
Test(devices, onnx_kinds_from_device_profiles, .timeout = 60)
{
	const char *m = "samples/onnx/resnet50.onnx";
	json_t *one = ts_run_json(0, "solve %s --devices h100:4 -m exact --json", m);
	json_t *native = ts_run_json(0, "solve %s --device h100 -k 4 -m exact --json", m);
	cr_assert(ts_close_rel(ts_jnum(one, "bottleneck"), ts_jnum(native, "bottleneck"), 1e-9),
	          "--devices h100:4 %.17g, --device h100 %.17g", ts_jnum(one, "bottleneck"),
	          ts_jnum(native, "bottleneck"));
	json_decref(one);
	json_decref(native);
	json_t *mix = ts_run_json(0, "solve %s --devices a100:2,h100:2 --json", m);
	json_t *h = ts_run_json(0, "solve %s --devices h100:4 --json", m);
	json_t *a = ts_run_json(0, "solve %s --devices a100:4 --json", m);
	double bm = ts_jnum(mix, "bottleneck");
	/* two h100s in place of two a100s cannot be slower, nor faster than
	 * four h100s */
	cr_assert(bm <= ts_jnum(a, "bottleneck") * (1 + 1e-9) &&
	                  bm >= ts_jnum(h, "bottleneck") * (1 - 1e-9),
	          "a100:2,h100:2 %g, a100:4 %g, h100:4 %g", bm, ts_jnum(a, "bottleneck"),
	          ts_jnum(h, "bottleneck"));
	cr_assert(ts_jnum(mix, "lower_bound") <= bm * (1 + 1e-9));
	json_decref(mix);
	json_decref(h);
	json_decref(a);
}

/* eval --devices on a file of one kind places the kinds (the least
 * bottleneck of that split, never below the optimum); without --devices a
 * file's own kinds stand; a file whose kinds --devices lacks, or holds too
 * many of, exits 2 naming the problem. */
Test(devices, eval_reads_and_places_kinds)
{
	char g[512], plain[512], kinds[512];
	ts_tpath(g, sizeof g, "e.dot");
	ts_tpath(plain, sizeof plain, "plain.json");
	ts_tpath(kinds, sizeof kinds, "kinds.json");
	ts_write_text(g, "digraph { a [work=4, work_b=6, out=2]; c [work=8, work_b=12, out=2]; "
	                 "d [work=6, work_b=3, out=1]; e [work=7, work_b=7, out=1]; "
	                 "a -> c -> e; a -> d -> e; }");
	json_t *opt = ts_run_json(0, "solve %s --devices accel:1,b:2 --json -o %s", g, kinds);
	json_decref(ts_run_json(0, "solve %s -k 3 -m kahn --no-refine --json -o %s", g, plain));
	json_t *e = ts_run_json(0, "eval %s %s --devices accel:1,b:2 --json", g, plain);
	cr_assert(ts_jbool(e, "devices_placed"));
	cr_assert(ts_jnum(e, "bottleneck") >= ts_jnum(opt, "bottleneck") * (1 - 1e-9));
	json_t *dev = ts_jget(e, "devices");
	int nb = 0;
	for (size_t s = 0; s < json_array_size(dev); s++)
		nb += strcmp(json_string_value(json_array_get(dev, s)), "b") == 0;
	cr_assert_eq(nb, 2);
	json_decref(e);
	/* without --devices the file's own kinds stand: the same costs as
	 * the solve that wrote it */
	json_t *own = ts_run_json(0, "eval %s %s --json", g, kinds);
	cr_assert(ts_close_rel(ts_jnum(own, "bottleneck"), ts_jnum(opt, "bottleneck"), 1e-12),
	          "eval %.17g, solve %.17g", ts_jnum(own, "bottleneck"),
	          ts_jnum(opt, "bottleneck"));
	cr_assert(json_equal(ts_jget(own, "devices"), ts_jget(opt, "devices")));
	cr_assert_null(json_object_get(own, "devices_placed"));
	json_decref(own);
	json_decref(opt);
	const char *bad[][2] = {
	        {"--devices accel:2,b:1", "more stages of 'b' than the 1 asked for"},
	        {"--devices accel:3", "none of the devices asked for"}};
	for (int i = 0; i < 2; i++) {
		char *out, *err;
		cr_assert_eq(ts_runf(&out, &err, "eval %s %s %s", g, kinds, bad[i][0]), 2, "%s: %s",
		             bad[i][0], err);
		cr_assert(strstr(err, bad[i][1]), "%s: %s", bad[i][0], err);
		free(out);
		free(err);
	}
}

/* A kind that may run no op (a CPU on a graph without CPU times) stays
 * empty: the optimum is that of the other kinds alone (figure2 at k 2),
 * for the exact DP (whose first bound must be a partition of the fleet,
 * not the one-kind split's) and every method; and --cpus on such a graph
 * still solves, its CPU stage empty. */
Test(devices, a_kind_no_op_may_use_stays_empty)
{
	const char *f2 = "samples/paper/figure2.dot";
	json_t *k2 = ts_run_json(0, "solve %s -k 2 -m exact --json", f2);
	double want = ts_jnum(k2, "bottleneck");
	json_decref(k2);
	const char *methods[] = {"best", "exact", "kahn", "slice", "brkga"};
	for (int m = 0; m < 5; m++) {
		json_t *j = ts_run_json(0, "solve %s --devices accel:2,cpu:1 -m %s --json", f2,
		                        methods[m]);
		cr_assert(ts_jbool(j, "feasible"), "%s", methods[m]);
		cr_assert(ts_jnum(j, "bottleneck") >= want * (1 - 1e-9), "%s: %.17g", methods[m],
		          ts_jnum(j, "bottleneck"));
		if (m < 2)
			cr_assert(ts_close_rel(ts_jnum(j, "bottleneck"), want, 1e-9) &&
			                  ts_jbool(j, "optimal"),
			          "%s: %.17g, not the optimum %.17g", methods[m],
			          ts_jnum(j, "bottleneck"), want);
		json_decref(j);
	}
	json_t *c = ts_run_json(0, "solve %s -k 2 --cpus 1 --json", f2);
	cr_assert(ts_close_rel(ts_jnum(c, "bottleneck"), want, 1e-9));
	json_decref(c);
}

Test(devices, bad_specs_and_names_exit_2)
{
	char g[512];
	ts_tpath(g, sizeof g, "b.dot");
	ts_write_text(g, "digraph { a [work=1, work_b=2]; c [work=1]; a -> c; }");
	const char *bad[] = {"--devices accel",
	                     "--devices accel:0",
	                     "--devices b:1,b:1",
	                     "--devices h100:2",
	                     "--devices accel:1,b:1 -k 3",
	                     "--devices accel:1,b:1 --cpus 1",
	                     "--devices b:1,gpu:1"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *out, *err;
		int st = ts_runf(&out, &err, "solve %s %s", g, bad[i]);
		cr_assert_eq(st, 2, "%s: exit %d (%s)", bad[i], st, err);
		cr_assert(strstr(err, "--devices"), "%s: %s", bad[i], err);
		free(out);
		free(err);
	}
	/* a DOT attribute work_cpu is no kind: cpu_work gives CPU times */
	ts_write_text(g, "digraph { a [work=1, work_cpu=2]; }");
	char *out, *err;
	cr_assert_eq(ts_runf(&out, &err, "info %s", g), 2);
	cr_assert(strstr(err, "work_cpu"), "%s", err);
	free(out);
	free(err);
}

/* The row of bounds --json's rungs named name. */
static json_t *rung(json_t *j, const char *name)
{
	json_t *rungs = ts_jget(j, "rungs");
	for (size_t i = 0; i < json_array_size(rungs); i++) {
		json_t *ri = json_array_get(rungs, i);
		if (strcmp(json_string_value(json_object_get(ri, "name")), name) == 0)
			return ri;
	}
	cr_assert_fail("no rung %s", name);
	return NULL;
}

/* bounds --devices: the ladder on the fleet.  Its exact MIP, with a kind
 * per stage, reaches the brute force's optimum from a poor start (-m
 * kahn, the DP not run: --all-rungs so every rung reports); the simple,
 * bottleneck and guess rungs (the latter two on mip.c's relaxation of the
 * kinds) stay below it; cover is skipped on kinds beyond the graph's
 * device and CPUs, with its reason; the devices of
 * the partition -o writes are the fleet's.  solve --proof with --devices
 * asks the same MIP, which proves a heuristic's result or finds the
 * optimum. */
Test(devices, bounds_and_proof_on_a_fleet, .timeout = 180)
{
	ts_rng r = {0xb0a7dULL};
	char g[512], part[512];
	ts_tpath(g, sizeof g, "bk.dot");
	ts_tpath(part, sizeof part, "bk.json");
	const char *specs[] = {"accel:1,b:2", "b:2,cpu:1"};
	char *names[][3] = {{"accel", "b", ""}, {"b", "cpu", ""}};
	int counts[][3] = {{1, 2, 0}, {2, 1, 0}};
	for (int t = 0; t < 4; t++) {
		write_graph(&r, g);
		int i = t % 2;
		sc_graph *graph = ts_load(g);
		double want = brute(graph, names[i], counts[i], 2);
		sc_graph_free(graph);
		json_t *j =
		        any_json("bounds %s --devices %s -m kahn --all-rungs -t 60 --json -o %s", g,
		                 specs[i], part);
		json_t *ex = rung(j, "exact");
		if (!isfinite(want)) {
			cr_assert(json_is_null(ts_jget(j, "upper_bound")), "case %d", t);
			json_decref(j);
			continue;
		}
		cr_assert(ts_close_rel(ts_jnum(j, "upper_bound"), want, 1e-6),
		          "case %d (%s): upper %.17g, brute force %.17g", t, specs[i],
		          ts_jnum(j, "upper_bound"), want);
		cr_assert(ts_close_rel(json_real_value(json_object_get(ex, "value")), want, 1e-6),
		          "case %d: exact rung %.17g", t,
		          json_real_value(json_object_get(ex, "value")));
		const char *below[] = {"simple", "bottleneck", "guess"};
		for (int s = 0; s < 3; s++) {
			json_t *ri = rung(j, below[s]);
			cr_assert(json_is_number(json_object_get(ri, "value")), "case %d: %s (%s)",
			          t, below[s], json_string_value(json_object_get(ri, "status")));
			double v = json_number_value(json_object_get(ri, "value"));
			cr_assert(v <= want * (1 + 1e-6), "case %d: %s %.17g above %.17g", t,
			          below[s], v, want);
		}
		json_t *cover = rung(j, "cover");
		cr_assert_str_eq(json_string_value(json_object_get(cover, "status")), "skipped",
		                 "case %d: cover", t);
		cr_assert(json_is_null(json_object_get(cover, "value")));
		cr_assert_str_eq(ts_jstr(j, "fleet"), specs[i]);
		json_t *file = json_load_file(part, 0, NULL);
		cr_assert(
		        file && json_equal(json_object_get(file, "devices"), ts_jget(j, "devices")),
		        "case %d: the file's devices", t);
		json_decref(file);
		json_decref(j);
		j = any_json("solve %s --devices %s -m kahn --no-refine --proof -t 60 --json", g,
		             specs[i]);
		cr_assert(ts_jbool(j, "optimal"), "case %d: not proven", t);
		cr_assert(ts_close_rel(ts_jnum(j, "bottleneck"), want, 1e-6),
		          "case %d: solve --proof %.17g, brute force %.17g", t,
		          ts_jnum(j, "bottleneck"), want);
		json_decref(j);
	}
}

/* info --devices: each kind's ops and time, and the table of the fleet
 * and the fleets one device smaller or larger of each kind, every row the
 * brute-force optimum on that mix (one link here, so every row proven). */
Test(devices, info_mixes_equal_brute_force, .timeout = 120)
{
	ts_rng r = {0x1f0ULL};
	char g[512];
	ts_tpath(g, sizeof g, "mixes.dot");
	char *names[] = {"accel", "b", "cpu"};
	for (int t = 0; t < 3; t++) {
		write_graph(&r, g);
		sc_graph *graph = ts_load(g);
		json_t *j = ts_run_json(0, "info %s --devices accel:1,b:1,cpu:1 --json", g);
		json_t *d = ts_jget(j, "devices");
		cr_assert_str_eq(ts_jstr(d, "fleet"), "accel:1,b:1,cpu:1");
		/* the kinds: b runs the ops with a work_b, cpu those with a CPU time */
		json_t *kinds = ts_jget(d, "kinds");
		int nb = 0, nc = 0;
		for (int v = 0; v < graph->n; v++) {
			nb += !isnan(graph->kind_work[0][v]);
			nc += sc_graph_cpu_ok(graph, v);
		}
		cr_assert_eq(ts_jint(json_array_get(kinds, 0), "ops"), graph->n);
		cr_assert_eq(ts_jint(json_array_get(kinds, 1), "ops"), nb);
		cr_assert_eq(ts_jint(json_array_get(kinds, 2), "ops"), nc);
		/* the fleet, then 0 and 2 of each kind: 7 rows */
		json_t *table = ts_jget(d, "table");
		cr_assert_eq(json_array_size(table), 7);
		for (size_t i = 0; i < json_array_size(table); i++) {
			json_t *row = json_array_get(table, i);
			int count[3];
			cr_assert_eq(sscanf(ts_jstr(row, "devices"), "accel:%d,b:%d,cpu:%d",
			                    &count[0], &count[1], &count[2]),
			             3);
			cr_assert_eq(ts_jint(row, "stages"), count[0] + count[1] + count[2]);
			double want = brute(graph, names, count, 3);
			cr_assert(ts_jbool(row, "proven"), "case %d, %s", t,
			          ts_jstr(row, "devices"));
			if (!isfinite(want)) {
				cr_assert(!ts_jbool(row, "fits"), "case %d, %s", t,
				          ts_jstr(row, "devices"));
				continue;
			}
			cr_assert(ts_close_rel(ts_jnum(row, "bottleneck"), want, 1e-9),
			          "case %d, %s: info %.17g, brute force %.17g", t,
			          ts_jstr(row, "devices"), ts_jnum(row, "bottleneck"), want);
		}
		json_decref(j);
		sc_graph_free(graph);
	}
}

/* solve --devices with --pin (a stage of all of them in pipeline order)
 * and, on a training graph, --schedule gpipe: -m exact and best equal the
 * brute force of tests/support_kinds.c (with the pins, under GPipe) and
 * prove it; no method's result is below it; bounds climbs the ladder there,
 * every rung at or below that optimum. */
Test(devices, pins_and_gpipe_equal_brute_force, .timeout = 240)
{
	ts_rng r = {0x91e5ULL};
	char g[512];
	ts_tpath(g, sizeof g, "kinds.dot");
	const char *spec = "accel:1,b:1,cpu:1";
	const char *methods[] = {"exact", "best", "brkga", "kahn", "dpl"};
	for (int t = 0; t < 6; t++) {
		bool gpipe = t % 2 == 1;
		if (gpipe) {
			/* a forward chain and its backward ops in the groups of theirs */
			char text[1024];
			snprintf(text, sizeof text,
			         "digraph t { bandwidth = 1;\n"
			         " a [work=%.3f, work_b=%.3f, cpu_work=%.3f, out=1, group=ga];\n"
			         " b [work=%.3f, work_b=%.3f, out=2, group=gb];\n"
			         " c [work=%.3f, work_b=%.3f, cpu_work=%.3f, out=1];\n"
			         " ag [work=%.3f, work_b=%.3f, out=1, group=ga, backward=true];\n"
			         " bg [work=%.3f, work_b=%.3f, cpu_work=%.3f, out=1, group=gb, "
			         "backward=true];\n"
			         " a -> b; b -> c; c -> bg; bg -> ag; a -> bg;\n}\n",
			         1 + 9 * ts_uniform(&r), 1 + 9 * ts_uniform(&r),
			         20 * ts_uniform(&r), 1 + 9 * ts_uniform(&r),
			         1 + 9 * ts_uniform(&r), 1 + 9 * ts_uniform(&r),
			         1 + 9 * ts_uniform(&r), 20 * ts_uniform(&r),
			         1 + 9 * ts_uniform(&r), 1 + 9 * ts_uniform(&r),
			         1 + 9 * ts_uniform(&r), 1 + 9 * ts_uniform(&r),
			         20 * ts_uniform(&r));
			FILE *f = fopen(g, "w");
			cr_assert(f);
			fputs(text, f);
			fclose(f);
		} else {
			write_graph(&r, g);
		}
		sc_graph *graph = ts_load(g);
		sc_fleet fl;
		sc_error err;
		cr_assert(sc_fleet_parse(spec, &fl, &err), "%s", err.msg);
		sc_settings set = graph->settings;
		set.fleet = &fl;
		set.k = 3;
		set.schedule = gpipe ? SC_SCHEDULE_GPIPE : SC_SCHEDULE_1F1B;
		cr_assert(sc_fleet_resolve(graph, &set, &fl, &err), "%s", err.msg);
		int pin[NOPS], pv = ts_below(&r, graph->n), ps = ts_below(&r, 3);
		for (int v = 0; v < graph->n; v++)
			pin[v] = v == pv && !gpipe ? ps : -1;
		double want = ts_brute_kinds(graph, &fl, pin, set.schedule);
		char opts[128];
		snprintf(opts, sizeof opts, gpipe ? "--schedule gpipe" : "--pin %s=%d",
		         graph->op_name[pv], ps + 1);
		for (size_t m = 0; m < sizeof methods / sizeof *methods; m++) {
			json_t *j = any_json("solve %s --devices %s %s -m %s --json", g, spec, opts,
			                     methods[m]);
			bool exact = m < 2;
			if (!isfinite(want) || !ts_jbool(j, "feasible")) {
				cr_assert(!exact || !isfinite(want) || ts_jbool(j, "feasible"),
				          "case %d %s: none found", t, methods[m]);
				json_decref(j);
				continue;
			}
			/* "objective" on a training graph, else the bottleneck */
			double got = ts_jnum(j, gpipe ? "objective" : "bottleneck");
			cr_assert_geq(got, want * (1 - 1e-9), "case %d %s: %.17g below %.17g", t,
			              methods[m], got, want);
			/* with pins the proof is of the pinned problem, in "pinned" */
			if (exact)
				cr_assert(ts_jbool(gpipe ? j : ts_jget(j, "pinned"), "optimal") &&
				                  ts_close_rel(got, want, 1e-9),
				          "case %d %s %s: %.17g, brute force %.17g", t, methods[m],
				          opts, got, want);
			json_decref(j);
		}
		json_t *b = any_json("bounds %s --devices %s %s -t 20 --json", g, spec,
		                     gpipe ? "--schedule gpipe" : "");
		json_t *rungs = ts_jget(b, "rungs");
		for (size_t i = 0; isfinite(want) && i < json_array_size(rungs); i++) {
			json_t *ri = json_array_get(rungs, i);
			json_t *v = json_object_get(ri, "value");
			cr_assert(!json_is_number(v) || json_number_value(v) <= want * (1 + 1e-6),
			          "case %d: rung %s %.17g above %.17g", t,
			          json_string_value(json_object_get(ri, "name")),
			          json_number_value(v), want);
		}
		json_decref(b);
		sc_graph_free(graph);
	}
}
