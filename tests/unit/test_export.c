/*
 * test_export.c - export's split points and writers (core/formats/
 * export.h) on small graphs built by hand: a partition that exports (at
 * the depth asked and at the smallest that works), each refusal (a module
 * split across stages, a stage going back along the program order, a stage
 * beginning at an own op of the model, a graph without modules), empty
 * stages left out, the backward ops of a training graph left out, a file listed
 * out of order; the writers' text parsed back (split_spec's lines; the
 * DeepSpeed layers and parts read as JSON with jansson) against split
 * points worked out by hand; and the registry.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/formats/export.h"
#include "core/modules.h"

/* One op of a hand-built graph: name, group ("" for none), backward. */
typedef struct op_spec {
	const char *name;
	const char *group;
	bool backward;
} op_spec;

/* A graph "t" from "t.dot" of the n ops (declared in that order) and the
 * edges from[i] -> to[i] (indices into ops), with its module tree in *m. */
static sc_graph *build(int n, const op_spec *ops, int ne, const int *from, const int *to,
                       sc_modules **m)
{
	sc_error err;
	sc_error_clear(&err);
	sc_builder *b = sc_builder_new();
	cr_assert(b);
	for (int i = 0; i < n; i++) {
		cr_assert_eq(sc_builder_add_op(b, ops[i].name, 1, 0, 1, ops[i].group, &err), i,
		             "%s", err.msg);
		if (ops[i].backward)
			cr_assert_eq(sc_builder_set_backward(b, i, &err), SC_OK);
	}
	for (int e = 0; e < ne; e++)
		cr_assert_eq(sc_builder_add_edge(b, from[e], to[e], &err), SC_OK, "%s", err.msg);
	sc_graph *g = sc_builder_finish(b, "t.dot", "t", &err);
	cr_assert(g, "%s", err.msg);
	sc_builder_free(b);
	*m = sc_modules_new(g, &err);
	cr_assert(*m, "%s", err.msg);
	return g;
}

/* A chain of the ops in declared order. */
static sc_graph *chain(int n, const op_spec *ops, sc_modules **m)
{
	int from[16], to[16];
	cr_assert_leq(n, 16);
	for (int i = 0; i + 1 < n; i++) {
		from[i] = i;
		to[i] = i + 1;
	}
	return build(n, ops, n - 1, from, to, m);
}

/* The index of module name, failing the test when there is none. */
static int module(const sc_modules *m, const char *name)
{
	int i = sc_modules_find(m, name);
	cr_assert_geq(i, 0, "module '%s'", name);
	return i;
}

/* The plan of stage (1-based stages, converted here) at align, expected to
 * work. */
static void plan_ok(sc_export_plan *p, const sc_graph *g, const sc_modules *m, int *stage,
                    const int *stage1, int k, int align)
{
	for (int v = 0; v < g->n; v++)
		stage[v] = stage1[v] - 1;
	sc_error err;
	sc_error_clear(&err);
	sc_status st = sc_export_plan_init(p, g, m, stage, k, align, "p.json", &err);
	cr_assert_eq(st, SC_OK, "%s", err.msg);
}

/* The plan of stage, expected to fail with code; its message in err. */
static void plan_fails(const sc_graph *g, const sc_modules *m, int *stage, const int *stage1, int k,
                       int align, sc_status code, sc_error *err)
{
	for (int v = 0; v < g->n; v++)
		stage[v] = stage1[v] - 1;
	sc_error_clear(err);
	sc_export_plan p;
	sc_status st = sc_export_plan_init(&p, g, m, stage, k, align, "p.json", err);
	cr_assert_eq(st, code, "status %d: %s", st, err->msg);
	cr_assert_null(p.begin);
	cr_assert_null(p.order);
	sc_export_plan_fini(&p);
}

/* ---- the plan --------------------------------------------------------- */

/* emb, then the layers l.0 and l.1 of two sublayers each, then head, then
 * an op of no module: at depth 1 "l" is one unit, at depth 2 its layers
 * are, at depth 3 their sublayers. */
static const op_spec model[] = {
        {"/emb/Op", "", false},   {"/l/0/a/Op", "", false}, {"/l/0/b/Op", "", false},
        {"/l/1/a/Op", "", false}, {"/l/1/b/Op", "", false}, {"/head/Op", "", false},
        {"Free", "", false},
};
#define NMODEL 7

Test(export, plan_names_the_module_each_stage_begins_at)
{
	sc_modules *m;
	sc_graph *g = chain(NMODEL, model, &m);
	int stage[NMODEL];
	/* emb | l | head and Free: aligned at depth 1 already */
	sc_export_plan p;
	plan_ok(&p, g, m, stage, (const int[]){1, 2, 2, 2, 2, 3, 3}, 3, 0);
	cr_assert_eq(p.depth, 1);
	cr_assert(p.file_order);
	cr_assert_eq(p.begin[0], -1);
	cr_assert_eq(p.begin[1], module(m, "l"));
	cr_assert_eq(p.begin[2], module(m, "head"));
	for (int t = 0; t < g->n; t++)
		cr_assert_eq(p.order[t], t, "a chain in declared order keeps the file's order");
	sc_export_plan_fini(&p);
	cr_assert_null(p.begin);
	/* the same asked at depth 3: l.0.a is outermost no deeper than 3 that
	 * begins at /l/0/a/Op, but l (depth 1) begins there too and wins */
	plan_ok(&p, g, m, stage, (const int[]){1, 2, 2, 2, 2, 3, 3}, 3, 3);
	cr_assert_eq(p.depth, 3);
	cr_assert_eq(p.begin[1], module(m, "l"));
	sc_export_plan_fini(&p);
	sc_modules_free(m);
	sc_graph_free(g);
}

Test(export, plan_takes_the_smallest_depth_that_works)
{
	sc_modules *m;
	sc_graph *g = chain(NMODEL, model, &m);
	int stage[NMODEL];
	sc_export_plan p;
	/* emb, l.0 | l.1, head, Free: l is split at depth 1, whole below */
	const int s[NMODEL] = {1, 1, 1, 2, 2, 2, 2};
	plan_ok(&p, g, m, stage, s, 2, 0);
	cr_assert_eq(p.depth, 2);
	cr_assert_eq(p.begin[1], module(m, "l.1"));
	sc_export_plan_fini(&p);
	/* l.1's sublayers split: only depth 3 works */
	const int s3[NMODEL] = {1, 1, 1, 1, 2, 2, 2};
	plan_ok(&p, g, m, stage, s3, 2, 0);
	cr_assert_eq(p.depth, 3);
	cr_assert_eq(p.begin[1], module(m, "l.1.b"));
	sc_export_plan_fini(&p);
	sc_modules_free(m);
	sc_graph_free(g);
}

Test(export, plan_refuses_a_module_split_across_stages)
{
	sc_modules *m;
	sc_graph *g = chain(NMODEL, model, &m);
	int stage[NMODEL];
	sc_error err;
	const int s[NMODEL] = {1, 1, 1, 2, 2, 2, 2};
	plan_fails(g, m, stage, s, 2, 1, SC_ERR_INVALID, &err);
	cr_assert_str_eq(err.msg,
	                 "p.json: the partition is not aligned with the modules at depth 1: "
	                 "module 'l' (depth 1) is split: op '/l/0/a/Op' in stage 1, op "
	                 "'/l/1/a/Op' in stage 2; solve --align DEPTH gives one that is");
	/* l.0 split and stage 3 beginning at Free: no depth works; the
	 * reason is depth 1's */
	const int s4[NMODEL] = {1, 1, 2, 2, 2, 2, 3};
	plan_fails(g, m, stage, s4, 3, 0, SC_ERR_INVALID, &err);
	cr_assert_str_eq(err.msg,
	                 "p.json: the partition is not aligned with the modules at any depth "
	                 "from 1 to 3 (at 1: module 'l' (depth 1) is split: op '/l/0/a/Op' in "
	                 "stage 1, op '/l/0/b/Op' in stage 2); solve --align DEPTH gives one "
	                 "that is");
	sc_modules_free(m);
	sc_graph_free(g);
}

/* a, b and c without edges: the partition a:1 b:2 c:1 breaks no edge, but
 * no framework runs it: b reads nothing a computes, so the model's parts are
 * no list of layers and the model runs as one. */
Test(export, plan_refuses_parts_that_do_not_run_one_after_another)
{
	const op_spec ops[] = {{"/a/Op", "", false}, {"/b/Op", "", false}, {"/c/Op", "", false}};
	sc_modules *m;
	sc_graph *g = build(3, ops, 0, NULL, NULL, &m);
	int stage[3];
	sc_error err;
	plan_fails(g, m, stage, (const int[]){1, 2, 1}, 2, 1, SC_ERR_INVALID, &err);
	cr_assert_str_eq(err.msg, "p.json: the partition is not aligned with the modules at depth "
	                          "1: the model runs as one layer (its parts do not run one after "
	                          "another: op '/b/Op' reads nothing the part of the model before "
	                          "it computes), and op '/a/Op' is in stage 1, op '/b/Op' in "
	                          "stage 2; solve --align DEPTH gives one that is");
	sc_modules_free(m);
	sc_graph_free(g);
}

/* Free, an own op of the model, runs in the stage of the layer before it
 * (head's): a stage beginning at it splits that layer. */
Test(export, plan_keeps_an_own_op_with_the_layer_before_it)
{
	sc_modules *m;
	sc_graph *g = chain(NMODEL, model, &m);
	int stage[NMODEL];
	sc_error err;
	plan_fails(g, m, stage, (const int[]){1, 1, 1, 1, 1, 1, 2}, 2, 0, SC_ERR_INVALID, &err);
	cr_assert(strstr(err.msg, "(at 1: module 'head' (depth 1) is split: op '/head/Op' in "
	                          "stage 1, op 'Free' in stage 2)"),
	          "%s", err.msg);
	sc_modules_free(m);
	sc_graph_free(g);
}

/* The frameworks take no empty stage: the plan leaves them out, and the
 * writers say which. */
Test(export, plan_leaves_out_empty_stages)
{
	sc_modules *m;
	sc_graph *g = chain(NMODEL, model, &m);
	int stage[NMODEL];
	sc_export_plan p;
	/* stage 2 of four holds nothing, nor does stage 4 */
	plan_ok(&p, g, m, stage, (const int[]){1, 1, 1, 1, 1, 3, 3}, 4, 1);
	cr_assert_eq(p.used, 2);
	cr_assert_eq(p.first_stage, 0);
	cr_assert_eq(p.begin[1], -1);
	cr_assert_eq(p.begin[2], module(m, "head"));
	cr_assert_eq(p.begin[3], -1);
	char *text;
	size_t len;
	sc_error err;
	cr_assert_eq(sc_export_pytorch.write(&p, &text, &len, &err), SC_OK);
	cr_assert(strstr(text, "partition p.json, 2 stages at module depth 1\n"), "%s", text);
	cr_assert(strstr(text, "\n# Stages 2, 4 of the partition hold no op: the frameworks take "
	                       "no empty\n# stage, so 2 stages run.\n"),
	          "%s", text);
	free(text);
	sc_export_plan_fini(&p);
	/* everything in stage 2 of 2: one stage runs, no split point */
	plan_ok(&p, g, m, stage, (const int[]){2, 2, 2, 2, 2, 2, 2}, 2, 1);
	cr_assert_eq(p.used, 1);
	cr_assert_eq(p.first_stage, 1);
	cr_assert_eq(p.begin[0], -1);
	cr_assert_eq(p.begin[1], -1);
	cr_assert_eq(sc_export_deepspeed.write(&p, &text, &len, &err), SC_OK);
	cr_assert(strstr(text, "\n# Stage 1 of the partition holds no op: the frameworks take no "
	                       "empty\n# stage, so 1 stage runs.\n"),
	          "%s", text);
	cr_assert(strstr(text, "\nparts = [0, 4]\n"), "%s", text);
	free(text);
	sc_export_plan_fini(&p);
	sc_modules_free(m);
	sc_graph_free(g);
}

/* Plain names: no module to name, bad input rather than a bad partition. */
Test(export, plan_refuses_a_graph_without_modules)
{
	const op_spec ops[] = {{"x", "", false}, {"y", "", false}};
	sc_modules *m;
	sc_graph *g = chain(2, ops, &m);
	int stage[2];
	sc_error err;
	plan_fails(g, m, stage, (const int[]){1, 2}, 2, 0, SC_ERR_INPUT, &err);
	cr_assert_str_eq(err.msg, "t.dot: no op name carries a module path (stagecut(1), "
	                          "MODULES), so there are no split points to name");
	sc_modules_free(m);
	sc_graph_free(g);
}

/* The backward ops run in the stage of their forward op, against the
 * program order: not looked at. */
Test(export, plan_leaves_out_the_backward_ops)
{
	const op_spec ops[] = {{"/a/Op", "ga", false},
	                       {"/b/Op", "gb", false},
	                       {"/b/Op_grad", "gb", true},
	                       {"/a/Op_grad", "ga", true}};
	sc_modules *m;
	sc_graph *g = chain(4, ops, &m);
	int stage[4];
	sc_export_plan p;
	plan_ok(&p, g, m, stage, (const int[]){1, 2, 2, 1}, 2, 0);
	cr_assert_eq(p.depth, 1);
	cr_assert_eq(p.begin[1], module(m, "b"));
	sc_export_plan_fini(&p);
	sc_modules_free(m);
	sc_graph_free(g);
}

/* Declared c, a, b with edges a -> b -> c: the file's order runs back, so
 * the plan takes the topological order a, b, c and says so. */
Test(export, plan_takes_a_topological_order_when_the_file_runs_back)
{
	const op_spec ops[] = {{"/c/Op", "", false}, {"/a/Op", "", false}, {"/b/Op", "", false}};
	sc_modules *m;
	sc_graph *g = build(3, ops, 2, (const int[]){1, 2}, (const int[]){2, 0}, &m);
	int stage[3];
	sc_export_plan p;
	plan_ok(&p, g, m, stage, (const int[]){3, 1, 2}, 3, 0);
	cr_assert_not(p.file_order);
	cr_assert_eq(p.order[0], 1);
	cr_assert_eq(p.order[1], 2);
	cr_assert_eq(p.order[2], 0);
	cr_assert_eq(p.begin[1], module(m, "b"));
	cr_assert_eq(p.begin[2], module(m, "c"));
	char *text;
	size_t len;
	sc_error err;
	cr_assert_eq(sc_export_pytorch.write(&p, &text, &len, &err), SC_OK);
	cr_assert(strstr(text, "\n# Program order: an edge of the file runs back"), "%s", text);
	free(text);
	sc_export_plan_fini(&p);
	sc_modules_free(m);
	sc_graph_free(g);
}

/* ---- the writers ------------------------------------------------------ */

/* The split_spec entries of a pytorch text: names (unescaped) and stages. */
static int split_spec(const char *text, char names[][64], int *stages, int max)
{
	const char *p = strstr(text, "\nsplit_spec = {\n");
	cr_assert(p, "%s", text);
	p += strlen("\nsplit_spec = {\n");
	int n = 0;
	while (strncmp(p, "    \"", 5) == 0) {
		cr_assert_lt(n, max);
		p += 5;
		size_t j = 0;
		for (; *p != '"'; p++) {
			if (*p == '\\')
				p++;
			names[n][j++] = *p;
		}
		names[n][j] = '\0';
		int used = 0;
		cr_assert_eq(
		        sscanf(p, "\": SplitPoint.BEGINNING,  # stage %d%n", &stages[n], &used), 1,
		        "%s", p);
		cr_assert_gt(used, 0);
		p += used;
		cr_assert_eq(*p, '\n', "%s", p);
		p++;
		n++;
	}
	cr_assert_str_eq(p, "}\n\n# pipe = pipeline(model, mb_args=(example_input,), "
	                    "split_spec=split_spec)\n");
	return n;
}

Test(export, pytorch_names_the_split_points)
{
	sc_modules *m;
	sc_graph *g = chain(NMODEL, model, &m);
	int stage[NMODEL];
	sc_export_plan p;
	/* emb | l.0 | l.1, head, Free at depth 2: stage 2 begins where l
	 * and l.0 begin, and the outermost, l, is named */
	plan_ok(&p, g, m, stage, (const int[]){1, 2, 2, 3, 3, 3, 3}, 3, 2);
	char *text;
	size_t len;
	sc_error err;
	cr_assert_eq(sc_export_pytorch.write(&p, &text, &len, &err), SC_OK, "%s", err.msg);
	cr_assert_eq(strlen(text), len);
	const char *head = "# stagecut export: t, partition p.json, 3 stages at module depth 2\n";
	cr_assert_eq(strncmp(text, head, strlen(head)), 0, "%s", text);
	cr_assert_null(strstr(text, "Program order"), "the file's order needs no note");
	char names[4][64];
	int stages[4];
	cr_assert_eq(split_spec(text, names, stages, 4), 2);
	cr_assert_str_eq(names[0], "l");
	cr_assert_eq(stages[0], 2);
	cr_assert_str_eq(names[1], "l.1");
	cr_assert_eq(stages[1], 3);
	free(text);
	sc_export_plan_fini(&p);
	sc_modules_free(m);
	sc_graph_free(g);
}

/* A DOT name may hold a quote or a backslash: a Python literal escapes
 * them. */
Test(export, pytorch_escapes_module_names)
{
	const op_spec ops[] = {{"/a/Op", "", false}, {"/q\"\\x/Op", "", false}};
	sc_modules *m;
	sc_graph *g = chain(2, ops, &m);
	int stage[2];
	sc_export_plan p;
	plan_ok(&p, g, m, stage, (const int[]){1, 2}, 2, 0);
	char *text;
	size_t len;
	sc_error err;
	cr_assert_eq(sc_export_pytorch.write(&p, &text, &len, &err), SC_OK);
	cr_assert(strstr(text, "\n    \"q\\\"\\\\x\": SplitPoint.BEGINNING,  # stage 2\n"), "%s",
	          text);
	char names[2][64];
	int stages[2];
	cr_assert_eq(split_spec(text, names, stages, 2), 1);
	cr_assert_str_eq(names[0], "q\"\\x");
	free(text);
	sc_export_plan_fini(&p);
	sc_modules_free(m);
	sc_graph_free(g);
}

/* The Python list after "NAME = " in text as JSON: comments and the
 * trailing comma dropped (the names hold no '#', '[' or ']'). */
static json_t *python_list(const char *text, const char *name)
{
	char head[64];
	snprintf(head, sizeof head, "\n%s = [", name);
	const char *p = strstr(text, head);
	cr_assert(p, "no %s in %s", name, text);
	p += strlen(head) - 1;
	char buf[4096];
	size_t j = 0;
	for (int nest = 0; *p && (*p != ']' || nest > 1); p++) {
		nest += *p == '[' ? 1 : *p == ']' ? -1 : 0;
		if (*p == '#')
			while (p[1] && p[1] != '\n')
				p++;
		else
			buf[j++] = *p;
		cr_assert_lt(j, sizeof buf - 2);
	}
	while (j > 0 && (buf[j - 1] == ',' || buf[j - 1] == ' ' || buf[j - 1] == '\n'))
		j--;
	buf[j++] = ']';
	buf[j] = '\0';
	json_error_t jerr;
	json_t *v = json_loads(buf, 0, &jerr);
	cr_assert(v, "%s: %s in\n%s", name, jerr.text, buf);
	cr_assert(json_is_array(v));
	return v;
}

Test(export, deepspeed_lists_the_layers_and_the_parts)
{
	sc_modules *m;
	sc_graph *g = chain(NMODEL, model, &m);
	int stage[NMODEL];
	sc_export_plan p;
	/* emb, l.0 | l.1, head, Free: depth 2; layers emb, l.0, l.1, head and
	 * the model's own op Free, stage 2 from layer 2 */
	plan_ok(&p, g, m, stage, (const int[]){1, 1, 1, 2, 2, 2, 2}, 2, 0);
	char *text;
	size_t len;
	sc_error err;
	cr_assert_eq(sc_export_deepspeed.write(&p, &text, &len, &err), SC_OK, "%s", err.msg);
	cr_assert_eq(strlen(text), len);
	json_t *layers = python_list(text, "layers");
	const char *want[] = {"emb", "l.0", "l.1", "head"};
	cr_assert_eq(json_array_size(layers), 5, "%s", text);
	for (int i = 0; i < 4; i++)
		cr_assert_str_eq(json_string_value(json_array_get(layers, (size_t)i)), want[i]);
	json_t *own = json_array_get(layers, 4);
	cr_assert_str_eq(json_string_value(json_object_get(own, "own ops of")), "", "%s", text);
	json_t *ops = json_object_get(own, "ops");
	cr_assert_eq(json_array_size(ops), 1, "%s", text);
	cr_assert_str_eq(json_string_value(json_array_get(ops, 0)), "Free");
	json_t *parts = python_list(text, "parts");
	const int want_parts[] = {0, 2, 5};
	cr_assert_eq(json_array_size(parts), 3, "%s", text);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(json_integer_value(json_array_get(parts, (size_t)i)), want_parts[i]);
	/* each layer's comment says its index and stage */
	cr_assert(strstr(text, "    \"l.0\",  # 1: stage 1\n    \"l.1\",  # 2: stage 2\n"), "%s",
	          text);
	cr_assert(strstr(text, "    {\"own ops of\": \"\", \"ops\": [\"Free\"]},  # 4: stage 2\n"),
	          "%s", text);
	json_decref(layers);
	json_decref(parts);
	free(text);
	sc_export_plan_fini(&p);
	sc_modules_free(m);
	sc_graph_free(g);
}

/* A module called twice: listed at each call under its name, its calls in
 * the layer before them, and no split point at it. */
Test(export, deepspeed_lists_each_call_of_a_module)
{
	const op_spec ops[] = {{"/a/Op", "", false},
	                       {"/act/Relu", "", false},
	                       {"/b/Op", "", false},
	                       {"/act_1/Relu", "", false}};
	sc_modules *m;
	sc_graph *g = chain(4, ops, &m);
	int stage[4];
	sc_export_plan p;
	plan_ok(&p, g, m, stage, (const int[]){1, 1, 2, 2}, 2, 1);
	cr_assert_eq(p.begin[1], module(m, "b"));
	char *text;
	size_t len;
	sc_error err;
	cr_assert_eq(sc_export_deepspeed.write(&p, &text, &len, &err), SC_OK, "%s", err.msg);
	cr_assert(strstr(text, "layers = [\n    \"a\",  # 0: stage 1\n    \"act\",  # 1: stage 1\n"
	                       "    \"b\",  # 2: stage 2\n    \"act\",  # 3: stage 2\n]\n"
	                       "parts = [0, 2, 4]\n"),
	          "%s", text);
	free(text);
	sc_export_plan_fini(&p);
	plan_fails(g, m, stage, (const int[]){1, 2, 2, 2}, 2, 1, SC_ERR_INVALID, &err);
	cr_assert(strstr(err.msg, "module 'a' (depth 1) is split: op '/a/Op' in stage 1, op "
	                          "'/act/Relu' in stage 2;"),
	          "%s", err.msg);
	sc_modules_free(m);
	sc_graph_free(g);
}

/* At depth 3 the sublayers are the layers; no op outside a module. */
Test(export, deepspeed_at_a_deeper_depth)
{
	sc_modules *m;
	sc_graph *g = chain(NMODEL - 1, model, &m);
	int stage[NMODEL - 1];
	sc_export_plan p;
	plan_ok(&p, g, m, stage, (const int[]){1, 1, 2, 2, 3, 3}, 3, 0);
	cr_assert_eq(p.depth, 3);
	char *text;
	size_t len;
	sc_error err;
	cr_assert_eq(sc_export_deepspeed.write(&p, &text, &len, &err), SC_OK, "%s", err.msg);
	json_t *layers = python_list(text, "layers");
	const char *want[] = {"emb", "l.0.a", "l.0.b", "l.1.a", "l.1.b", "head"};
	cr_assert_eq(json_array_size(layers), 6, "%s", text);
	for (int i = 0; i < 6; i++)
		cr_assert_str_eq(json_string_value(json_array_get(layers, (size_t)i)), want[i]);
	json_t *parts = python_list(text, "parts");
	const int want_parts[] = {0, 2, 4, 6};
	cr_assert_eq(json_array_size(parts), 4, "%s", text);
	for (int i = 0; i < 4; i++)
		cr_assert_eq(json_integer_value(json_array_get(parts, (size_t)i)), want_parts[i]);
	cr_assert_null(strstr(text, "own ops of\": \""), "%s", text);
	json_decref(layers);
	json_decref(parts);
	free(text);
	sc_export_plan_fini(&p);
	sc_modules_free(m);
	sc_graph_free(g);
}

/* ---- the registry ----------------------------------------------------- */

Test(export, registry_finds_writers_by_name)
{
	cr_assert_eq(sc_export_writer_find("pytorch"), &sc_export_pytorch);
	cr_assert_eq(sc_export_writer_find("deepspeed"), &sc_export_deepspeed);
	cr_assert_null(sc_export_writer_find("onnx"));
	cr_assert_null(sc_export_writer_find("PyTorch"));
	cr_assert_null(sc_export_writer_find("pytorc"));
	cr_assert_null(sc_export_writer_find(""));
	int n;
	const sc_export_writer *const *w = sc_export_writers(&n);
	cr_assert_eq(n, 2);
	for (int i = 0; i < n; i++) {
		cr_assert_eq(sc_export_writer_find(w[i]->name), w[i], "%s", w[i]->name);
		cr_assert(w[i]->description && w[i]->description[0]);
		cr_assert_eq(w[i]->extension[0], '.');
		cr_assert(w[i]->write);
	}
}

/* The names as export's messages say them, and cut to a short buffer. */
Test(export, registry_names_join_as_a_sentence)
{
	char buf[128];
	cr_assert_str_eq(sc_export_writer_names(buf, sizeof buf, ""), "pytorch or deepspeed");
	cr_assert_str_eq(sc_export_writer_names(buf, sizeof buf, "--format "),
	                 "--format pytorch or --format deepspeed");
	char small[10];
	cr_assert_str_eq(sc_export_writer_names(small, sizeof small, ""), "pytorch o");
}
