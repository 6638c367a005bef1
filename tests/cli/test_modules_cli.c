/*
 * test_modules_cli.c - modules on the command line: info's
 * module table, solve --align against brute force and on vit_b_16, and
 * export's split points (each stage begins at the module it names, every
 * named module's ops in that stage) and its refusals.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/formats/export.h"
#include "core/graph.h"
#include "core/modules.h"
#include "tests/support.h"

TestSuite(modules_cli, .init = ts_scratch_init, .fini = ts_scratch_fini, .timeout = 120);

/* ---- modules (stagecut(1), MODULES) ---------------------------------- */

/* The module table by hand: ops, work share, parameters and children of
 * each top-level module of a small DOT graph with torch.onnx names. */
Test(modules_cli, info_by_hand)
{
	char dot[256];
	ts_tpath(dot, sizeof dot, "mods.dot");
	ts_write_text(dot,
	              "digraph g { \"/enc/l0/a\" [work=1, param=10]; \"/enc/l0/b\" [work=2]; "
	              "\"/enc/l1/c\" [work=3, param=5]; \"/head/d\" [work=4]; e [work=10]; "
	              "\"/enc/l0/a\" -> \"/enc/l0/b\" -> \"/enc/l1/c\" -> \"/head/d\" -> e; }\n");
	json_t *j = ts_run_json(0, "info --json %s", dot);
	json_t *m = ts_jget(j, "modules");
	cr_assert_eq(ts_jint(m, "count"), 4, "enc, enc.l0, enc.l1, head");
	cr_assert_eq(ts_jint(m, "max_depth"), 2);
	cr_assert_eq(ts_jint(m, "root_ops"), 1, "e");
	json_t *pd = ts_jget(m, "per_depth");
	cr_assert_eq(json_array_size(pd), 2);
	cr_assert_eq(json_integer_value(json_array_get(pd, 0)), 2);
	cr_assert_eq(json_integer_value(json_array_get(pd, 1)), 2);
	/* enc is a chain of l0 and l1, so depth 2 cuts it; e joins head */
	json_t *lpd = ts_jget(m, "layers_per_depth");
	cr_assert_eq(json_array_size(lpd), 2);
	cr_assert_eq(json_integer_value(json_array_get(lpd, 0)), 2);
	cr_assert_eq(json_integer_value(json_array_get(lpd, 1)), 3);
	json_t *top = ts_jget(m, "top");
	cr_assert_eq(json_array_size(top), 2);
	json_t *enc = json_array_get(top, 0), *head = json_array_get(top, 1);
	cr_assert_str_eq(ts_jstr(enc, "name"), "enc");
	cr_assert_eq(ts_jint(enc, "ops"), 3);
	cr_assert_eq(ts_jnum(enc, "work"), 6);
	cr_assert(ts_close_rel(ts_jnum(enc, "work_share"), 0.3, 1e-12));
	cr_assert_eq(ts_jnum(enc, "param"), 15);
	cr_assert_eq(ts_jint(enc, "children"), 2);
	cr_assert_str_eq(ts_jstr(head, "name"), "head");
	cr_assert_eq(ts_jint(head, "ops"), 1);
	cr_assert(ts_close_rel(ts_jnum(head, "work_share"), 0.2, 1e-12));
	cr_assert_eq(ts_jint(head, "children"), 0);
	json_decref(j);
	char *out;
	cr_assert_eq(ts_runf(&out, NULL, "info %s", dot), 0);
	cr_assert(strstr(out, "modules        2 top-level, 4 in all, depth 2"), "%s", out);
	cr_assert(strstr(out, "\n               layers (solve --align DEPTH): 2 at 1, 3 at 2\n"),
	          "%s", out);
	char line[256];
	cr_assert(ts_line_of(out, "  enc ", line, sizeof line), "%s", out);
	ts_squeeze(line, line, sizeof line);
	cr_assert_str_eq(line, "enc 3 30.0% 15 2");
	free(out);
}

/* resnet50's top-level modules and their op counts, counted from the op
 * names of the DOT that info -o writes. */
Test(modules_cli, info_resnet50_matches_its_names)
{
	char dot[256];
	ts_tpath(dot, sizeof dot, "r50.dot");
	json_t *j = ts_run_json(0, "info --json samples/onnx/resnet50.onnx -o %s", dot);
	char *text = ts_slurp(dot, NULL);
	cr_assert(text);
	/* node statements: TAB "NAME" TAB [ ; names "/seg/..." count for seg */
	char seg[16][32];
	int count[16] = {0}, nseg = 0, root = 0;
	for (char *p = text; (p = strstr(p, "\n\t\"")) != NULL; p++) {
		char *q = strchr(p + 3, '"');
		if (!q || q[1] != '\t' || q[2] != '[')
			continue;
		const char *name = p + 3;
		const char *slash = memchr(name + 1, '/', (size_t)(q - name - 1));
		if (name[0] != '/' || !slash) {
			root++;
			continue;
		}
		int len = (int)(slash - name - 1), s = 0;
		while (s < nseg && (strncmp(seg[s], name + 1, (size_t)len) != 0 || seg[s][len]))
			s++;
		if (s == nseg) {
			cr_assert_lt(nseg, 16);
			snprintf(seg[nseg++], sizeof seg[0], "%.*s", len, name + 1);
		}
		count[s]++;
	}
	free(text);
	json_t *m = ts_jget(j, "modules");
	json_t *top = ts_jget(m, "top");
	cr_assert_eq((int)json_array_size(top), nseg);
	cr_assert_eq(ts_jint(m, "root_ops"), root);
	double share = 0;
	for (int s = 0; s < nseg; s++) {
		json_t *t = json_array_get(top, (size_t)s);
		cr_assert_str_eq(ts_jstr(t, "name"), seg[s], "top-level module %d", s);
		cr_assert_eq(ts_jint(t, "ops"), count[s], "%s", seg[s]);
		share += ts_jnum(t, "work_share");
	}
	cr_assert_str_eq(seg[3], "layer1");
	cr_assert_leq(share, 1 + 1e-9);
	json_decref(j);
}

/* ---- solve --align against brute force ---------------------------------- */

/* Four modules in two levels and the root: an op's module path by index. */
static const char *const paths[] = {"/a/a.0/", "/a/a.1/", "/b/", "/b/c/", ""};

/* Whether export takes stage (k stages) of g at depth (core/formats/
 * export.h). */
static bool exports(const sc_graph *g, const sc_modules *m, const int *stage, int k, int depth)
{
	sc_export_plan plan;
	sc_error err;
	sc_status st = sc_export_plan_init(&plan, g, m, stage, k, depth, "p.json", &err);
	sc_export_plan_fini(&plan);
	cr_assert(st == SC_OK || st == SC_ERR_INVALID, "%s", err.msg);
	return st == SC_OK;
}

/* The best bottleneck over valid partitions that export takes at depth, by
 * enumeration. */
static double brute_aligned(const sc_graph *g, const sc_modules *m, int k, int depth)
{
	int n = g->n, stage[12] = {0};
	double best = INFINITY;
	sc_settings set = g->settings;
	set.k = k;
	for (;;) {
		if (ts_valid(g, stage, k) && exports(g, m, stage, k, depth)) {
			ts_cost c[8];
			int at;
			ts_costs(g, stage, &set, k, c);
			double bn = ts_bottleneck(c, k, &at);
			if (bn < best)
				best = bn;
		}
		int i = 0;
		while (i < n && ++stage[i] == k)
			stage[i++] = 0;
		if (i == n)
			return best;
	}
}

/* solve --align D finds the best partition that export takes at D (core/
 * layers.h is the one definition both keep), and its partition exports. */
Test(modules_cli, align_matches_brute_force)
{
	ts_rng r = {.s = 28};
	int trials = ts_trials(30), proven = 0;
	for (int t = 0; t < trials; t++) {
		int n = 4 + ts_below(&r, 4), k = 2 + ts_below(&r, 2), depth = 1 + ts_below(&r, 2);
		int mod[12];
		char dot[4096];
		int used = snprintf(dot, sizeof dot, "digraph g { ");
		for (int v = 0; v < n; v++) {
			mod[v] = ts_below(&r, 5);
			used += snprintf(dot + used, sizeof dot - (size_t)used,
			                 "\"%sop%d\" [work=%d, out=%d]; ", paths[mod[v]], v,
			                 1 + ts_below(&r, 9), ts_below(&r, 3));
		}
		for (int v = 1; v < n; v++)
			for (int u = 0; u < v; u++)
				if (ts_below(&r, 3) == 0 || u == v - 1)
					used += snprintf(dot + used, sizeof dot - (size_t)used,
					                 "\"%sop%d\" -> \"%sop%d\"; ",
					                 paths[mod[u]], u, paths[mod[v]], v);
		snprintf(dot + used, sizeof dot - (size_t)used, "}\n");
		char path[256], part[256];
		ts_write_text(ts_tpath(path, sizeof path, "al.dot"), dot);
		ts_tpath(part, sizeof part, "al.json");
		json_t *j = ts_run_json(0, "solve --json %s -k %d --align %d -o %s", path, k, depth,
		                        part);
		sc_graph *g = ts_load(path);
		sc_error err;
		sc_modules *m = sc_modules_new(g, &err);
		cr_assert(m);
		int stage[12];
		double want = brute_aligned(g, m, k, depth);
		double free_opt = ts_brute_optimum(g, k, NULL);
		json_t *al = ts_jget(j, "align");
		cr_assert_eq(ts_jint(al, "depth"), depth);
		ts_read_partition(part, g, k, stage);
		ts_assert_valid(g, stage, k, "aligned");
		cr_assert(exports(g, m, stage, k, depth),
		          "t %d: export refuses solve's partition\n%s", t, dot);
		double got = ts_jnum(j, "bottleneck");
		cr_assert_geq(got, want * (1 - 1e-9) - 1e-12, "t %d: below the aligned optimum", t);
		if (ts_jbool(ts_jget(j, "aligned"), "optimal")) {
			proven++;
			cr_assert(ts_close_rel(got, want, 1e-9),
			          "t %d: %.17g, brute force %.17g\n%s", t, got, want, dot);
		}
		double unal = ts_jnum(al, "unaligned");
		cr_assert_geq(unal, free_opt * (1 - 1e-9) - 1e-12, "t %d", t);
		if (ts_jbool(al, "unaligned_optimal"))
			cr_assert(ts_close_rel(unal, free_opt, 1e-9),
			          "t %d: %.17g, brute force %.17g", t, unal, free_opt);
		if (ts_jbool(al, "gap_proven"))
			cr_assert(ts_close_rel(ts_jnum(al, "gap"), want / free_opt - 1, 1e-9),
			          "t %d", t);
		sc_modules_free(m);
		sc_graph_free(g);
		json_decref(j);
	}
	cr_assert_gt(proven, trials / 2, "only %d of %d proven", proven, trials);
}

/* ---- export ---------------------------------------------------------------- */

/* vit_b_16 at depth 3 into 4 stages: aligned, the gap reported, and the
 * split points begin each stage: the named module's first op is the
 * stage's first op in the op order, and all the module's ops are in it. */
Test(modules_cli, export_vit_b_16_split_points)
{
	char part[256], py[256];
	ts_tpath(part, sizeof part, "vit.json");
	ts_tpath(py, sizeof py, "vit.py");
	json_t *j = ts_run_json(0, "solve --json samples/onnx/vit_b_16.onnx -k 4 --align 3 -o %s",
	                        part);
	json_t *al = ts_jget(j, "align");
	cr_assert_geq(ts_jnum(j, "bottleneck"), ts_jnum(al, "unaligned") * (1 - 1e-12));
	cr_assert(ts_jbool(ts_jget(j, "aligned"), "optimal"));
	json_decref(j);
	char *out, *err;
	cr_assert_eq(ts_runf(&out, &err,
	                     "export samples/onnx/vit_b_16.onnx %s --format pytorch -o %s", part,
	                     py),
	             0, "%s", err);
	free(out);
	free(err);
	char *text = ts_slurp(py, NULL);
	cr_assert(text);
	sc_graph *g = ts_load("samples/onnx/vit_b_16.onnx");
	int *stage = malloc((size_t)g->n * sizeof *stage);
	ts_read_partition(part, g, 4, stage);
	int named = 0;
	for (char *p = strstr(text, "\n    \""); p; p = strstr(p + 1, "\n    \"")) {
		char name[256];
		int s;
		cr_assert_eq(
		        sscanf(p + 6, "%255[^\"]\": SplitPoint.BEGINNING,  # stage %d", name, &s),
		        2, "%s", p);
		/* the module's ops: names under "/" + its path, the torch.onnx
		 * spelling of "encoder.layers.encoder_layer_3" */
		char prefix[300] = "/";
		int dots = 0;
		for (const char *c = name; *c; c++) {
			size_t l = strlen(prefix);
			prefix[l] = *c == '.' ? '/' : *c;
			prefix[l + 1] = '\0';
			dots += *c == '.';
		}
		strcat(prefix, "/");
		int first = -1, in = 0;
		for (int v = 0; v < g->n; v++)
			if (strncmp(g->op_name[v], prefix, strlen(prefix)) == 0) {
				if (first < 0)
					first = v;
				cr_assert_eq(stage[v] + 1, s, "'%s' of %s is in stage %d",
				             g->op_name[v], name, stage[v] + 1);
				in++;
			}
		cr_assert_gt(in, 0, "module %s (%s) has no ops", name, prefix);
		for (int v = 0; v < first; v++)
			cr_assert_lt(stage[v] + 1, s, "op '%s' before %s is in stage %d",
			             g->op_name[v], name, stage[v] + 1);
		cr_assert_eq(dots, 2, "%s is at depth 3", name);
		named++;
	}
	cr_assert_eq(named, 3, "one split point per stage from the second:\n%s", text);
	free(text);
	/* deepspeed: parts cut the layer list where the stages change */
	cr_assert_eq(ts_runf(&out, &err, "export samples/onnx/vit_b_16.onnx %s --format deepspeed",
	                     part),
	             0, "%s", err);
	char *pl = strstr(out, "\nparts = [");
	cr_assert(pl, "%s", out);
	int p0, p1, p2, p3, p4;
	cr_assert_eq(sscanf(pl, "\nparts = [%d, %d, %d, %d, %d]", &p0, &p1, &p2, &p3, &p4), 5);
	cr_assert_eq(p0, 0);
	cr_assert(p0 < p1 && p1 < p2 && p2 < p3 && p3 < p4);
	char want[64];
	snprintf(want, sizeof want, "  # %d: stage 2\n", p1);
	cr_assert(strstr(out, want), "layer %d begins stage 2:\n%s", p1, out);
	snprintf(want, sizeof want, "  # %d: stage 1\n", p1 - 1);
	cr_assert(strstr(out, want), "layer %d ends stage 1:\n%s", p1 - 1, out);
	free(out);
	free(err);
	free(stage);
	sc_graph_free(g);
}

/* A partition that splits a module, one that begins a stage inside a
 * module, and bad usage: refused with the file, the stage and the op or
 * module named, nothing written. */
Test(modules_cli, export_refuses_unaligned_partitions)
{
	char dot[256], part[256], py[256];
	ts_write_text(ts_tpath(dot, sizeof dot, "m.dot"),
	              "digraph g { \"/a/x/Op\" [work=1]; \"/a/y/Op\" [work=1]; \"/b/Op\" [work=1]; "
	              "\"/b/Op2\" [work=1]; \"/a/x/Op\" -> \"/a/y/Op\" -> \"/b/Op\" -> \"/b/Op2\"; "
	              "}\n");
	ts_tpath(part, sizeof part, "m.json");
	ts_tpath(py, sizeof py, "m.py");
	ts_write_text(py, "keep\n");
	/* stage 2 begins at /b/Op2, inside b */
	ts_write_text(part, "{\"format\": \"stagecut-partition/1\", \"k\": 2, \"stages\": "
	                    "{\"/a/x/Op\": 1, \"/a/y/Op\": 1, \"/b/Op\": 1, \"/b/Op2\": 2}}\n");
	char *out, *err;
	cr_assert_eq(
	        ts_runf(&out, &err, "export %s %s --format pytorch --align 1 -o %s", dot, part, py),
	        1, "%s", err);
	cr_assert(strstr(err, part), "%s", err);
	cr_assert(strstr(err, "module 'b' (depth 1) is split"), "%s", err);
	free(out);
	free(err);
	char *kept = ts_slurp(py, NULL);
	cr_assert_str_eq(kept, "keep\n", "nothing overwritten");
	free(kept);
	/* at depth 2 a.y begins stage 2: aligned; at depth 1 it splits a */
	ts_write_text(part, "{\"format\": \"stagecut-partition/1\", \"k\": 2, \"stages\": "
	                    "{\"/a/x/Op\": 1, \"/a/y/Op\": 2, \"/b/Op\": 2, \"/b/Op2\": 2}}\n");
	cr_assert_eq(ts_runf(&out, &err, "export %s %s --format pytorch", dot, part), 0, "%s", err);
	cr_assert(strstr(out, "\"a.y\": SplitPoint.BEGINNING,  # stage 2"), "%s", out);
	free(out);
	free(err);
	cr_assert_eq(ts_runf(&out, &err, "export %s %s --format deepspeed --align 1", dot, part),
	             1);
	cr_assert(strstr(err, "module 'a' (depth 1) is split: op '/a/x/Op' in stage 1, op "
	                      "'/a/y/Op' in stage 2"),
	          "%s", err);
	free(out);
	free(err);
	/* a stage that begins at an own op of the model, which runs with the
	 * layer before it */
	ts_write_text(dot, "digraph g { \"/a/Op\" [work=1]; Free [work=1]; \"/b/Op\" [work=1]; "
	                   "\"/a/Op\" -> Free -> \"/b/Op\"; }\n");
	ts_write_text(part, "{\"format\": \"stagecut-partition/1\", \"k\": 2, \"stages\": "
	                    "{\"/a/Op\": 1, \"Free\": 2, \"/b/Op\": 2}}\n");
	cr_assert_eq(ts_runf(&out, &err, "export %s %s --format pytorch", dot, part), 1);
	cr_assert(strstr(err, "module 'a' (depth 1) is split: op '/a/Op' in stage 1, op 'Free' in "
	                      "stage 2"),
	          "%s", err);
	free(out);
	free(err);
	/* bad usage: exit 2 */
	cr_assert_eq(ts_runf(&out, &err, "export %s %s --format onnx", dot, part), 2);
	cr_assert(strstr(err, "--format 'onnx' is not pytorch or deepspeed"), "%s", err);
	free(out);
	free(err);
	cr_assert_eq(ts_runf(&out, &err, "export %s %s", dot, part), 2);
	free(out);
	free(err);
	cr_assert_eq(
	        ts_runf(&out, &err, "export samples/paper/figure2.dot %s --format pytorch", part),
	        2);
	free(out);
	free(err);
}

/* The program order when the file lists its ops out of order (a DOT file
 * written by hand): the split points are those of the same graph listed in
 * order, and the output says which order it took.  Read in the file's
 * order, stage 2's c.y came before stage 1's a.y and export refused. */
Test(modules_cli, export_takes_the_program_order_of_a_shuffled_file)
{
	const char *edges = "\"/a/x/Op\" -> \"/a/y/Op\" -> \"/b/x/Op\" -> \"/b/y/Op\" -> "
	                    "\"/c/x/Op\" -> \"/c/y/Op\"; }\n";
	const char *decl[2] = {
	        "\"/a/x/Op\" [work=1]; \"/a/y/Op\" [work=1]; \"/b/x/Op\" [work=1]; "
	        "\"/b/y/Op\" [work=1]; \"/c/x/Op\" [work=1]; \"/c/y/Op\" [work=1]; ",
	        "\"/c/y/Op\" [work=1]; \"/b/x/Op\" [work=1]; \"/a/y/Op\" [work=1]; "
	        "\"/c/x/Op\" [work=1]; \"/a/x/Op\" [work=1]; \"/b/y/Op\" [work=1]; "};
	char dot[256], part[256], text[1024];
	ts_tpath(part, sizeof part, "s.json");
	ts_write_text(part, "{\"format\": \"stagecut-partition/1\", \"k\": 3, \"stages\": "
	                    "{\"/a/x/Op\": 1, \"/a/y/Op\": 1, \"/b/x/Op\": 2, \"/b/y/Op\": 2, "
	                    "\"/c/x/Op\": 3, \"/c/y/Op\": 3}}\n");
	char *spec[2][2];
	for (int shuffled = 0; shuffled < 2; shuffled++) {
		snprintf(text, sizeof text, "digraph g { %s%s", decl[shuffled], edges);
		ts_write_text(ts_tpath(dot, sizeof dot, "s.dot"), text);
		for (int f = 0; f < 2; f++) {
			char *err;
			int st = ts_runf(&spec[shuffled][f], &err, "export %s %s --format %s", dot,
			                 part, f ? "deepspeed" : "pytorch");
			cr_assert_eq(st, 0, "shuffled %d: %s", shuffled, err);
			free(err);
			cr_assert_eq(strstr(spec[shuffled][f], "# Program order: an edge of the "
			                                       "file runs back") != NULL,
			             shuffled == 1, "%s", spec[shuffled][f]);
		}
	}
	cr_assert(strstr(spec[0][0], "\"b\": SplitPoint.BEGINNING,  # stage 2") &&
	                  strstr(spec[0][0], "\"c\": SplitPoint.BEGINNING,  # stage 3"),
	          "%s", spec[0][0]);
	for (int f = 0; f < 2; f++) {
		/* the same lines but the note */
		const char *a = strstr(spec[0][f], "split_spec") ? strstr(spec[0][f], "split_spec")
		                                                 : strstr(spec[0][f], "layers = [");
		const char *b = strstr(spec[1][f], "split_spec") ? strstr(spec[1][f], "split_spec")
		                                                 : strstr(spec[1][f], "layers = [");
		cr_assert(a && b);
		cr_assert_str_eq(a, b);
		free(spec[0][f]);
		free(spec[1][f]);
	}
}

/* --align under a hard memory limit no aligned partition meets: exit 1,
 * and the message says so of the aligned problem (every layer of the depth
 * in one stage), not of every partition; the unaligned problem is still
 * solved, its optimum given in the message and in align.unaligned (the
 * same as solve without --align).  With a limit nothing meets, the
 * unaligned problem is proven infeasible too (unaligned_feasible false). */
Test(modules_cli, align_that_fits_nothing_still_answers_the_unaligned_problem)
{
	const char *m = "samples/onnx/resnet50.onnx";
	json_t *free_ = ts_run_json(0, "solve %s -k 2 -M 3.2e7 --memory-policy hard --json", m);
	double want = ts_jnum(free_, "bottleneck");
	cr_assert(ts_jbool(free_, "optimal"));
	json_decref(free_);
	int status;
	json_t *j = ts_json_of(0, 3, &status,
	                       "solve samples/onnx/resnet50.onnx -k 2 --align 1 "
	                       "-M 3.2e7 --memory-policy hard --json");
	cr_assert_eq(status, 1);
	cr_assert(!ts_jbool(j, "feasible"));
	json_t *al = ts_jget(j, "align");
	cr_assert(ts_close_rel(json_real_value(json_object_get(al, "unaligned")), want, 1e-9),
	          "unaligned %.17g, solve without --align %.17g",
	          json_real_value(json_object_get(al, "unaligned")), want);
	cr_assert(json_is_true(json_object_get(al, "unaligned_feasible")));
	cr_assert(json_is_true(json_object_get(al, "unaligned_optimal")));
	cr_assert(json_is_null(json_object_get(al, "gap")));
	json_decref(j);
	char *out, *err;
	cr_assert_eq(
	        ts_runf(&out, &err, "solve %s -k 2 --align 1 -M 3.2e7 --memory-policy hard", m), 1);
	cr_assert(strstr(err, "with every layer of depth 1 in one stage (--align 1)") &&
	                  strstr(err, "without alignment the best partition costs"),
	          "%s", err);
	free(out);
	free(err);
	j = ts_json_of(0, 3, &status,
	               "solve samples/onnx/resnet50.onnx -k 2 --align 1 -M 1e6 "
	               "--memory-policy hard --json");
	cr_assert_eq(status, 1);
	al = ts_jget(j, "align");
	cr_assert(json_is_false(json_object_get(al, "unaligned_feasible")));
	cr_assert(json_is_null(json_object_get(al, "unaligned")));
	json_decref(j);
}
