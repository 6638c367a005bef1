/*
 * test_modules.c - the module tree of op names (core/modules.h): every
 * naming style by hand (torch.onnx slashes with torch-qualified children,
 * dotted names, flat names, Caffe2 device scopes, backward ops), the
 * invariants of the tree on the real samples, fully qualified names worked
 * out by hand from the real names, and a 10^5-op graph in linear time.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/gen.h"
#include "core/modules.h"
#include "tests/support.h"

/* A graph of named ops (no edges); backward marks backward ops when not
 * NULL, groups names each op's group (NULL or "" for none). */
static sc_graph *named(int n, const char *const *names, const bool *backward,
                       const char *const *groups)
{
	sc_error err;
	sc_builder *b = sc_builder_new();
	cr_assert(b);
	for (int i = 0; i < n; i++) {
		cr_assert(sc_builder_add_op(b, names[i], 1, 0, 1, groups ? groups[i] : NULL,
		                            &err) == i);
		if (backward && backward[i])
			cr_assert(sc_builder_set_backward(b, i, &err) == SC_OK);
	}
	sc_graph *g = sc_builder_finish(b, "t.dot", NULL, &err);
	cr_assert(g, "%s", err.msg);
	sc_builder_free(b);
	return g;
}

static sc_modules *modules_of(const sc_graph *g)
{
	sc_error err;
	sc_error_clear(&err);
	sc_modules *m = sc_modules_new(g, &err);
	cr_assert(m, "%s", err.msg);
	return m;
}

/* Preorder walk through first_child / next_sibling from i: each module must
 * come out at the next number, name its parent, and its children must be
 * ordered by their first op. */
static void walk(const sc_modules *m, const int *first_op, int i, int *next)
{
	cr_assert_eq(i, *next, "module %d ('%s') is visited %d-th in preorder", i, m->m[i].name,
	             *next);
	(*next)++;
	int prev = -1;
	for (int c = m->m[i].first_child; c >= 0; c = m->m[c].next_sibling) {
		cr_assert_eq(m->m[c].parent, i, "'%s' is a child of '%s'", m->m[c].name,
		             m->m[i].name);
		cr_assert_gt(first_op[c], prev, "siblings of '%s' in the order of their first op",
		             m->m[i].name);
		prev = first_op[c];
		walk(m, first_op, c, next);
	}
}

/* Checks every invariant of modules.h against g, computed independently of
 * first / end where it can be. */
static void check_invariants(const sc_graph *g, const sc_modules *m)
{
	cr_assert_geq(m->n, 1);
	const sc_module *root = &m->m[0];
	cr_assert_str_eq(root->name, "");
	cr_assert_eq(root->parent, -1);
	cr_assert_eq(root->depth, 0);
	cr_assert_eq(root->first, 0);
	cr_assert_eq(root->end, g->n);
	/* ops_sorted is a permutation */
	char *seen = calloc((size_t)g->n + 1, 1);
	for (int j = 0; j < g->n; j++) {
		int v = m->ops_sorted[j];
		cr_assert(v >= 0 && v < g->n && !seen[v], "ops_sorted[%d] = %d", j, v);
		seen[v] = 1;
	}
	free(seen);
	/* every op below a module, counted by walking up from its innermost
	 * module; and the smallest op index below each module */
	int *below = calloc((size_t)m->n, sizeof *below);
	int *first_op = malloc((size_t)m->n * sizeof *first_op);
	for (int i = 0; i < m->n; i++)
		first_op[i] = g->n;
	for (int v = 0; v < g->n; v++) {
		int i = m->of_op[v];
		cr_assert(i >= 0 && i < m->n);
		for (; i >= 0; i = m->m[i].parent) {
			below[i]++;
			if (v < first_op[i])
				first_op[i] = v;
		}
	}
	int max_depth = 0;
	for (int i = 0; i < m->n; i++) {
		const sc_module *q = &m->m[i];
		cr_assert_eq(q->end - q->first, below[i], "'%s' holds %d ops, %d below it", q->name,
		             q->end - q->first, below[i]);
		cr_assert_gt(below[i], 0, "'%s' has ops", q->name);
		/* contiguity: every op in its range is below it */
		for (int j = q->first; j < q->end; j++) {
			int a = m->of_op[m->ops_sorted[j]];
			while (a >= 0 && a != i)
				a = m->m[a].parent;
			cr_assert_eq(a, i, "op '%s' in the range of '%s' is not below it",
			             g->op_name[m->ops_sorted[j]], q->name);
		}
		if (i > 0) {
			const sc_module *p = &m->m[q->parent];
			cr_assert_lt(q->parent, i, "preorder: the parent first");
			cr_assert_eq(q->depth, p->depth + 1, "'%s' depth", q->name);
			cr_assert_gt(strlen(q->label), 0);
			if (q->parent == 0)
				cr_assert_str_eq(q->name, q->label);
			else {
				size_t pl = strlen(p->name);
				cr_assert(strncmp(q->name, p->name, pl) == 0 &&
				                  q->name[pl] == '.' && q->name[pl + 1],
				          "'%s' is qualified by its parent '%s'", q->name, p->name);
			}
		}
		if (q->depth > max_depth)
			max_depth = q->depth;
	}
	cr_assert_eq(m->max_depth, max_depth);
	int next = 0;
	walk(m, first_op, 0, &next);
	cr_assert_eq(next, m->n, "every module is reachable from the root");
	/* sc_modules_at_depth: the ancestor at d, or the innermost when shallower */
	for (int v = 0; v < g->n; v++) {
		int in = m->of_op[v];
		for (int d = 0; d <= m->max_depth + 1; d++) {
			int a = sc_modules_at_depth(m, v, d);
			int want = d < m->m[in].depth ? d : m->m[in].depth;
			cr_assert_eq(m->m[a].depth, want);
			int b = in;
			while (b >= 0 && b != a)
				b = m->m[b].parent;
			cr_assert_eq(b, a, "at depth %d, op '%s' gets an ancestor", d,
			             g->op_name[v]);
		}
	}
	free(below);
	free(first_op);
}

static const char *module_of(const sc_graph *g, const sc_modules *m, const char *op)
{
	int v = sc_graph_find(g, op);
	cr_assert_geq(v, 0, "op '%s'", op);
	return m->m[m->of_op[v]].name;
}

Test(modules, every_style_by_hand)
{
	const char *names[] = {
	        "/layer1/layer1.0/conv1/Conv",
	        "/layer1/layer1.0/relu/Relu",
	        "/layer1/layer1.0/Add",
	        "/layer1/layer1.1/conv1/Conv",
	        "/encoder/layers/encoder_layer_3/mlp/mlp.1/Mul_1",
	        "bert.encoder.layer.3.attention.self.query.weight",
	        "node4",
	        "Add_1",
	        "/Reshape",
	        "gpu_0/res4_2_branch2b_w_0",
	        "BatchNormalization37_gpu_0/res4_3_branch2c_bn_1",
	        "a..b",
	        ".hidden",
	        "trailing.",
	        "//x//Op",
	        "/mlp/mlp/Op", /* "mlp" under "mlp": no dot, an ordinary child */
	};
	int n = (int)(sizeof names / sizeof *names);
	sc_graph *g = named(n, names, NULL, NULL);
	sc_modules *m = modules_of(g);
	check_invariants(g, m);
	cr_assert_str_eq(module_of(g, m, "/layer1/layer1.0/conv1/Conv"), "layer1.0.conv1");
	cr_assert_str_eq(module_of(g, m, "/layer1/layer1.0/relu/Relu"), "layer1.0.relu");
	cr_assert_str_eq(module_of(g, m, "/layer1/layer1.0/Add"), "layer1.0");
	cr_assert_str_eq(module_of(g, m, "/layer1/layer1.1/conv1/Conv"), "layer1.1.conv1");
	cr_assert_str_eq(module_of(g, m, "/encoder/layers/encoder_layer_3/mlp/mlp.1/Mul_1"),
	                 "encoder.layers.encoder_layer_3.mlp.1");
	cr_assert_str_eq(module_of(g, m, "bert.encoder.layer.3.attention.self.query.weight"),
	                 "bert.encoder.layer.3.attention.self.query");
	const char *flat[] = {"node4",
	                      "Add_1",
	                      "/Reshape",
	                      "gpu_0/res4_2_branch2b_w_0",
	                      "BatchNormalization37_gpu_0/res4_3_branch2c_bn_1",
	                      "a..b",
	                      ".hidden",
	                      "trailing."};
	for (size_t i = 0; i < sizeof flat / sizeof *flat; i++)
		cr_assert_str_eq(module_of(g, m, flat[i]), "", "'%s' belongs to the root", flat[i]);
	cr_assert_str_eq(module_of(g, m, "//x//Op"), "x", "empty segments are skipped");
	cr_assert_str_eq(module_of(g, m, "/mlp/mlp/Op"), "mlp.mlp");
	/* labels as the names spell them; depth */
	int i = sc_modules_find(m, "layer1.0");
	cr_assert_geq(i, 0);
	cr_assert_str_eq(m->m[i].label, "layer1.0");
	cr_assert_eq(m->m[i].depth, 2);
	cr_assert_str_eq(m->m[m->m[i].parent].name, "layer1");
	cr_assert_eq(m->m[i].end - m->m[i].first, 3, "layer1.0 holds conv1, relu and Add");
	cr_assert_eq(sc_modules_own_ops(m, i), 1, "layer1.0's own op is Add");
	i = sc_modules_find(m, "encoder.layers.encoder_layer_3.mlp.1");
	cr_assert_str_eq(m->m[i].label, "mlp.1");
	cr_assert_eq(m->m[i].depth, 5);
	cr_assert_eq(m->max_depth, 7, "bert.encoder.layer.3.attention.self.query");
	/* the top level: layer1, encoder, bert, x, mlp in the order of their
	 * first op */
	const char *top[] = {"layer1", "encoder", "bert", "x", "mlp"};
	int c = m->m[0].first_child;
	for (size_t t = 0; t < sizeof top / sizeof *top; t++, c = m->m[c].next_sibling) {
		cr_assert_geq(c, 0);
		cr_assert_str_eq(m->m[c].name, top[t]);
	}
	cr_assert_eq(c, -1);
	sc_modules_free(m);
	sc_graph_free(g);
}

Test(modules, preorder_and_layout_exactly)
{
	/* root op, then b.x, a, b.y, a.z, b.x: root 0, b 1, b.x 2, b.y 3, a 4,
	 * a.z 5; ops laid out root's, b's subtree (b.x: 1 5, b.y: 3), a's (a: 2,
	 * a.z: 4) */
	const char *names[] = {"Add_1", "/b/x/Op", "/a/Op", "/b/y/Op", "/a/z/Op", "/b/x/Op2"};
	sc_graph *g = named(6, names, NULL, NULL);
	sc_modules *m = modules_of(g);
	check_invariants(g, m);
	const char *order[] = {"", "b", "b.x", "b.y", "a", "a.z"};
	cr_assert_eq(m->n, 6);
	for (int i = 0; i < 6; i++)
		cr_assert_str_eq(m->m[i].name, order[i]);
	const int sorted[] = {0, 1, 5, 3, 2, 4};
	for (int j = 0; j < 6; j++)
		cr_assert_eq(m->ops_sorted[j], sorted[j], "ops_sorted[%d]", j);
	cr_assert_eq(m->m[1].first, 1);
	cr_assert_eq(m->m[1].end, 4);
	cr_assert_eq(m->m[4].first, 4);
	cr_assert_eq(m->m[4].end, 6);
	cr_assert_eq(sc_modules_own_ops(m, 0), 1);
	cr_assert_eq(sc_modules_own_ops(m, 1), 0);
	cr_assert_eq(sc_modules_at_depth(m, 5, 1), 1);
	cr_assert_eq(sc_modules_at_depth(m, 5, 0), 0);
	cr_assert_eq(sc_modules_at_depth(m, 2, 2), 4, "op a/Op is no deeper than a");
	sc_modules_free(m);
	sc_graph_free(g);
}

Test(modules, flat_names_have_the_root_alone)
{
	const char *names[] = {"node1", "node2", "Add_3"};
	sc_graph *g = named(3, names, NULL, NULL);
	sc_modules *m = modules_of(g);
	check_invariants(g, m);
	cr_assert_eq(m->n, 1);
	cr_assert_eq(m->max_depth, 0);
	cr_assert_eq(m->m[0].first_child, -1);
	sc_modules_free(m);
	sc_graph_free(g);
}

Test(modules, backward_ops_join_their_forward_op)
{
	const char *names[] = {
	        "s1.c.conv",               /* 0 forward, group g1 */
	        "s1.c.conv.grad",          /* 1 backward, group g1: s1.c */
	        "a.b.MatMul7",             /* 2 forward, no group */
	        "a.b.MatMul7_Grad/Gemm_7", /* 3 backward, named: a.b */
	        "a.b.Relu",                /* 4 forward */
	        "a.b.Relu_grad",           /* 5 backward, named: a.b */
	        "x.y.AccumulateGrad_grad", /* 6 backward, names no op: root */
	        "/m/n/Op",                 /* 7 forward, group g2 */
	        "q.r.s.t",                 /* 8 backward, group g2: m.n, not q.r.s */
	};
	const bool bw[] = {false, true, false, true, false, true, true, false, true};
	const char *groups[] = {"g1", "g1", NULL, NULL, NULL, NULL, NULL, "g2", "g2"};
	sc_graph *g = named(9, names, bw, groups);
	cr_assert(sc_graph_is_training(g));
	sc_modules *m = modules_of(g);
	check_invariants(g, m);
	cr_assert_str_eq(module_of(g, m, "s1.c.conv.grad"), "s1.c");
	cr_assert_str_eq(module_of(g, m, "a.b.MatMul7_Grad/Gemm_7"), "a.b");
	cr_assert_str_eq(module_of(g, m, "a.b.Relu_grad"), "a.b");
	cr_assert_str_eq(module_of(g, m, "x.y.AccumulateGrad_grad"), "");
	cr_assert_str_eq(module_of(g, m, "q.r.s.t"), "m.n");
	cr_assert_eq(sc_modules_find(m, "s1.c.conv"), -1, "an op is never a module");
	cr_assert_eq(sc_modules_find(m, "x.y"), -1, "backward names make no modules");
	sc_modules_free(m);
	sc_graph_free(g);
}

/* Ops whose name starts with prefix. */
static int count_prefix(const sc_graph *g, const char *prefix)
{
	int c = 0;
	for (int v = 0; v < g->n; v++)
		c += strncmp(g->op_name[v], prefix, strlen(prefix)) == 0;
	return c;
}

static int size_of(const sc_modules *m, const char *name)
{
	int i = sc_modules_find(m, name);
	cr_assert_geq(i, 0, "module '%s'", name);
	return m->m[i].end - m->m[i].first;
}

Test(modules, resnet50_onnx)
{
	sc_graph *g = ts_load("samples/onnx/resnet50.onnx");
	sc_modules *m = modules_of(g);
	check_invariants(g, m);
	/* torchvision's resnet50, top level by the names' first segment */
	const char *top[] = {"conv1",  "relu",   "maxpool", "layer1", "layer2",
	                     "layer3", "layer4", "avgpool", "fc"};
	int c = m->m[0].first_child;
	for (size_t t = 0; t < sizeof top / sizeof *top; t++, c = m->m[c].next_sibling) {
		cr_assert_geq(c, 0, "top-level module %zu", t);
		cr_assert_str_eq(m->m[c].name, top[t]);
	}
	cr_assert_eq(c, -1);
	cr_assert_str_eq(module_of(g, m, "/layer1/layer1.0/conv1/Conv"), "layer1.0.conv1");
	cr_assert_str_eq(module_of(g, m, "/layer1/layer1.0/Add"), "layer1.0");
	cr_assert_eq(m->max_depth, 4, "layer1.0.downsample.0");
	cr_assert_eq(size_of(m, "layer3"), count_prefix(g, "/layer3/"));
	cr_assert_eq(size_of(m, "layer2.1"), count_prefix(g, "/layer2/layer2.1/"));
	/* layer3 holds six bottlenecks, layer3.0 to layer3.5 */
	int kids = 0, i = sc_modules_find(m, "layer3");
	for (c = m->m[i].first_child; c >= 0; c = m->m[c].next_sibling, kids++) {
		char want[32];
		snprintf(want, sizeof want, "layer3.%d", kids);
		cr_assert_str_eq(m->m[c].name, want);
	}
	cr_assert_eq(kids, 6);
	sc_modules_free(m);
	sc_graph_free(g);
}

Test(modules, vit_b_16_onnx)
{
	sc_graph *g = ts_load("samples/onnx/vit_b_16.onnx");
	cr_assert_eq(g->n, 616, "952 nodes, constants folded");
	sc_modules *m = modules_of(g);
	check_invariants(g, m);
	cr_assert_str_eq(module_of(g, m, "/encoder/layers/encoder_layer_3/mlp/mlp.1/Mul_1"),
	                 "encoder.layers.encoder_layer_3.mlp.1");
	cr_assert_str_eq(module_of(g, m, "/encoder/layers/encoder_layer_3/ln_1/Sqrt"),
	                 "encoder.layers.encoder_layer_3.ln_1");
	cr_assert_eq(m->max_depth, 5);
	cr_assert_eq(size_of(m, "encoder"), count_prefix(g, "/encoder/"));
	cr_assert_eq(size_of(m, "encoder.layers.encoder_layer_3"),
	             count_prefix(g, "/encoder/layers/encoder_layer_3/"));
	/* twelve encoder layers, in order */
	int i = sc_modules_find(m, "encoder.layers"), kids = 0;
	for (int c = m->m[i].first_child; c >= 0; c = m->m[c].next_sibling, kids++) {
		char want[64];
		snprintf(want, sizeof want, "encoder.layers.encoder_layer_%d", kids);
		cr_assert_str_eq(m->m[c].name, want);
	}
	cr_assert_eq(kids, 12);
	/* an encoder layer's children in the order of their first op */
	const char *layer[] = {"ln_1", "self_attention", "ln_2", "mlp"};
	int c = m->m[sc_modules_find(m, "encoder.layers.encoder_layer_3")].first_child;
	for (int t = 0; t < 4; t++, c = m->m[c].next_sibling)
		cr_assert_str_eq(m->m[c].label, layer[t]);
	sc_modules_free(m);
	sc_graph_free(g);
}

Test(modules, msr_fiddle_samples)
{
	const char *files[] = {"bert_l-3_inference", "bert_l-3_training",  "bert_l-6_inference",
	                       "bert_l-6_training",  "resnet50_inference", "resnet50_training"};
	for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
		char path[128];
		snprintf(path, sizeof path, "samples/msr-fiddle/operator/%s.json", files[f]);
		sc_graph *g = ts_load(path);
		sc_modules *m = modules_of(g);
		check_invariants(g, m);
		if (strncmp(files[f], "resnet50", 8) == 0) {
			/* Caffe2 names ("gpu_0/res4_2_branch2b_w_0", "Relu47"): flat */
			cr_assert_eq(m->n, 1, "%s", files[f]);
		} else {
			int bert = sc_modules_find(m, "bert");
			cr_assert(bert > 0 && m->m[bert].parent == 0, "%s", files[f]);
			cr_assert_str_eq(
			        module_of(g, m, "bert.encoder.layer.1.attention.self.query.bias"),
			        "bert.encoder.layer.1.attention.self.query");
			/* forward ops named bert.encoder.layer.1.*; backward ops join their
			 * group's forward op */
			int fw = 0;
			for (int v = 0; v < g->n; v++)
				fw += (!g->backward || !g->backward[v]) &&
				      strncmp(g->op_name[v], "bert.encoder.layer.1.", 21) == 0;
			cr_assert_eq(fw, 16, "%s", files[f]);
			int i = sc_modules_find(m, "bert.encoder.layer.1");
			cr_assert_geq(size_of(m, "bert.encoder.layer.1"), fw);
			cr_assert_eq(m->m[i].depth, 4);
		}
		for (int v = 0; g->backward && v < g->n; v++) {
			if (!g->backward[v] || g->group[v] < 0)
				continue;
			int gi = g->group[v], fwop = -1;
			for (int j = g->group_off[gi]; j < g->group_off[gi + 1] && fwop < 0; j++)
				if (!g->backward[g->group_ops[j]])
					fwop = g->group_ops[j];
			if (fwop >= 0)
				cr_assert_eq(m->of_op[v], m->of_op[fwop], "%s: '%s'", files[f],
				             g->op_name[v]);
		}
		sc_modules_free(m);
		sc_graph_free(g);
	}
}

Test(modules, a_hundred_thousand_ops_fast)
{
	sc_error err;
	sc_gen_spec p;
	sc_gen_spec_init(&p);
	p.model = SC_GEN_RESNET;
	p.nodes = 100000;
	sc_graph *g = sc_gen(&p, &err);
	cr_assert(g, "%s", err.msg);
	cr_assert_geq(g->n, 90000);
	double t0 = sc_clock_now();
	sc_modules *m = modules_of(g);
	double dt = sc_clock_now() - t0;
	cr_assert_lt(dt, 1.0, "%d ops took %.3f s", g->n, dt);
	cr_assert_gt(m->n, 1000, "the generated names are dotted: s1.b2.c1.conv");
	check_invariants(g, m);
	sc_modules_free(m);
	sc_graph_free(g);
}
