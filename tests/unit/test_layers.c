/*
 * test_layers.c - the layers at a module depth (core/layers.h) on small
 * graphs built by hand, each shaped as a torchvision module is: a residual
 * block (its own Add reads the block's input: whole), ViT's encoder (its
 * own position-embedding Add comes first and reads only the part before:
 * opened, the Add joins the layer before), Inception's branches (two
 * children read the same input: whole), own ops before the first layer, a
 * child in two pieces, a model whose parts are no chain; torch.onnx's "_N"
 * call names (sc_modules_called); and the aligned graph's groups.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "core/layers.h"
#include "core/modules.h"

/* A graph of the named ops with the edges from[i] -> to[i], its module
 * tree in *m. */
static sc_graph *build(int n, const char *const *names, int ne, const int *from, const int *to,
                       sc_modules **m)
{
	sc_error err;
	sc_error_clear(&err);
	sc_builder *b = sc_builder_new();
	cr_assert(b);
	for (int i = 0; i < n; i++)
		cr_assert_eq(sc_builder_add_op(b, names[i], 1, 0, 1, NULL, &err), i, "%s", err.msg);
	for (int e = 0; e < ne; e++)
		cr_assert_eq(sc_builder_add_edge(b, from[e], to[e], &err), SC_OK, "%s", err.msg);
	sc_graph *g = sc_builder_finish(b, "t.dot", "t", &err);
	cr_assert(g, "%s", err.msg);
	sc_builder_free(b);
	*m = sc_modules_new(g, &err);
	cr_assert(*m, "%s", err.msg);
	return g;
}

static sc_layers *layers(const sc_graph *g, const sc_modules *m, int depth)
{
	sc_error err;
	sc_error_clear(&err);
	sc_layers *l = sc_layers_new(g, m, depth, &err);
	cr_assert(l, "%s", err.msg);
	return l;
}

/* The layers' module names joined by spaces, "-" for the whole model. */
static const char *names_of(const sc_layers *l, const sc_modules *m, char *buf, size_t size)
{
	size_t at = 0;
	buf[0] = '\0';
	for (int i = 0; i < l->n; i++)
		at += (size_t)snprintf(buf + at, size - at, "%s%s", i ? " " : "",
		                       l->module[i] ? m->m[l->module[i]].name : "-");
	return buf;
}

/* stem -> b.c1 -> b.c2 -> b.Add <- stem, b.Add -> head: b's own Add reads
 * the block's input, so b runs whole at every depth. */
Test(layers, a_residual_block_runs_whole)
{
	const char *ops[] = {"/stem/Op", "/b/c1/Op", "/b/c2/Op", "/b/Add", "/head/Op"};
	sc_modules *m;
	sc_graph *g =
	        build(5, ops, 5, (const int[]){0, 1, 2, 0, 3}, (const int[]){1, 2, 3, 3, 4}, &m);
	char buf[256];
	for (int d = 1; d <= 2; d++) {
		sc_layers *l = layers(g, m, d);
		cr_assert_str_eq(names_of(l, m, buf, sizeof buf), "stem b head", "depth %d", d);
		cr_assert_not(l->opened[sc_modules_find(m, "b")]);
		cr_assert(l->opened[0]);
		cr_assert_eq(l->of_op[3], 1);
		cr_assert_eq(sc_layers_piece(l, m, 3), sc_modules_find(m, "b"));
		sc_layers_free(l);
	}
	/* without the residual edge b is a chain: cut at depth 2 */
	sc_modules *m2;
	sc_graph *g2 = build(5, ops, 4, (const int[]){0, 1, 2, 3}, (const int[]){1, 2, 3, 4}, &m2);
	sc_layers *l = layers(g2, m2, 2);
	cr_assert_str_eq(names_of(l, m2, buf, sizeof buf), "stem b.c1 b.c2 head");
	/* b's own Add joins b.c2, the layer before it */
	cr_assert_eq(l->of_op[3], 2);
	cr_assert_eq(sc_layers_piece(l, m2, 3), -1);
	cr_assert_eq(sc_layers_piece(l, m2, 2), sc_modules_find(m2, "b.c2"));
	sc_layers_free(l);
	sc_modules_free(m2);
	sc_graph_free(g2);
	sc_modules_free(m);
	sc_graph_free(g);
}

/* ViT: emb -> enc.Add -> enc.l0 -> enc.l1 -> head; the encoder's own Add
 * reads only emb, so the encoder opens and the Add runs in emb's layer. */
Test(layers, a_leading_own_op_joins_the_layer_before)
{
	const char *ops[] = {"/emb/Op", "/enc/Add", "/enc/l0/Op", "/enc/l1/Op", "/head/Op"};
	sc_modules *m;
	sc_graph *g = build(5, ops, 4, (const int[]){0, 1, 2, 3}, (const int[]){1, 2, 3, 4}, &m);
	char buf[256];
	sc_layers *l = layers(g, m, 2);
	cr_assert_str_eq(names_of(l, m, buf, sizeof buf), "emb enc.l0 enc.l1 head");
	cr_assert_eq(l->of_op[1], 0);
	cr_assert_eq(l->first[1], 2);
	cr_assert(l->file_order);
	sc_layers_free(l);
	l = layers(g, m, 1);
	cr_assert_str_eq(names_of(l, m, buf, sizeof buf), "emb enc head");
	sc_layers_free(l);
	sc_modules_free(m);
	sc_graph_free(g);
}

/* Inception: stem feeds both branches m.a and m.b, which head reads: m's
 * parts are no chain (stem feeds m.b, not m's first part), so m is whole. */
Test(layers, branches_run_whole)
{
	const char *ops[] = {"/stem/Op", "/m/a/Op", "/m/b/Op", "/head/Op"};
	sc_modules *m;
	sc_graph *g = build(4, ops, 4, (const int[]){0, 0, 1, 2}, (const int[]){1, 2, 3, 3}, &m);
	char buf[256];
	sc_layers *l = layers(g, m, 2);
	cr_assert_str_eq(names_of(l, m, buf, sizeof buf), "stem m head");
	sc_layers_free(l);
	sc_modules_free(m);
	sc_graph_free(g);
}

/* The model's own ops before its first module join the first layer, which
 * then begins at them. */
Test(layers, own_ops_before_the_first_layer_join_it)
{
	const char *ops[] = {"Pre", "/a/Op", "/b/Op"};
	sc_modules *m;
	sc_graph *g = build(3, ops, 2, (const int[]){0, 1}, (const int[]){1, 2}, &m);
	char buf[256];
	sc_layers *l = layers(g, m, 1);
	cr_assert_str_eq(names_of(l, m, buf, sizeof buf), "a b");
	cr_assert_eq(l->of_op[0], 0);
	cr_assert_eq(l->first[0], 0);
	cr_assert_eq(l->first[1], 2);
	sc_layers_free(l);
	sc_modules_free(m);
	sc_graph_free(g);
}

/* m.a, m.b, m.a again: m.a runs in two pieces, so m is whole at depth 2;
 * and a model whose second module reads nothing of the first runs as one
 * layer, with the reason kept. */
Test(layers, pieces_and_unfed_parts_run_whole)
{
	const char *ops[] = {"/m/a/Op", "/m/b/Op", "/m/a/Op2"};
	sc_modules *m;
	sc_graph *g = build(3, ops, 2, (const int[]){0, 1}, (const int[]){1, 2}, &m);
	char buf[256];
	sc_layers *l = layers(g, m, 2);
	cr_assert_str_eq(names_of(l, m, buf, sizeof buf), "m");
	sc_layers_free(l);
	sc_modules_free(m);
	sc_graph_free(g);
	const char *two[] = {"/a/Op", "/b/Op"};
	g = build(2, two, 0, NULL, NULL, &m);
	l = layers(g, m, 1);
	cr_assert_str_eq(names_of(l, m, buf, sizeof buf), "-");
	cr_assert_eq(l->of_op[0], 0);
	cr_assert_eq(l->of_op[1], 0);
	cr_assert_str_eq(l->why_whole, "op '/b/Op' reads nothing the part of the model before it "
	                               "computes");
	sc_layers_free(l);
	sc_modules_free(m);
	sc_graph_free(g);
}

/* torch.onnx names one nn.ReLU called three times relu, relu_1, relu_2,
 * and a block called twice blk, blk_1 (with its children); a label that
 * only looks like a call (encoder_layer_1, no sibling encoder_layer) is
 * its own module. */
Test(layers, call_names_map_to_the_module_called)
{
	const char *ops[] = {"/relu/Relu",   "/relu_1/Relu",       "/relu_2/Relu",
	                     "/blk/conv/Op", "/blk_1/conv/Op",     "/blk_x/Op",
	                     "/relu_1a/Op",  "/encoder_layer_1/Op"};
	sc_modules *m;
	sc_graph *g = build(8, ops, 0, NULL, NULL, &m);
	const char *want[][2] = {
	        {"relu", "relu"},           {"relu_1", "relu"},
	        {"relu_2", "relu"},         {"blk_1", "blk"},
	        {"blk_1.conv", "blk.conv"}, {"blk_x", "blk_x"},
	        {"relu_1a", "relu_1a"},     {"encoder_layer_1", "encoder_layer_1"}};
	for (int i = 0; i < 8; i++) {
		int x = sc_modules_find(m, want[i][0]);
		cr_assert_geq(x, 0, "%s", want[i][0]);
		cr_assert_str_eq(m->m[sc_modules_called(m, x)].name, want[i][1], "%s", want[i][0]);
	}
	cr_assert_eq(sc_modules_called(m, 0), 0);
	sc_modules_free(m);
	sc_graph_free(g);
}

/* a -> act -> b -> act_1 -> c: one activation module called twice joins
 * the layer before each call, since no split point can tell its calls
 * apart; the names map back to the module called. */
Test(layers, a_module_called_twice_joins_the_layer_before)
{
	const char *ops[] = {"/a/Op", "/act/Relu", "/b/Op", "/act_1/Relu", "/c/Op"};
	sc_modules *m;
	sc_graph *g = build(5, ops, 4, (const int[]){0, 1, 2, 3}, (const int[]){1, 2, 3, 4}, &m);
	char buf[256];
	sc_layers *l = layers(g, m, 1);
	cr_assert_str_eq(names_of(l, m, buf, sizeof buf), "a b c");
	const int want[] = {0, 0, 1, 1, 2};
	for (int v = 0; v < 5; v++)
		cr_assert_eq(l->of_op[v], want[v], "%s", ops[v]);
	cr_assert_eq(sc_layers_piece(l, m, 3), sc_modules_find(m, "act_1"));
	sc_layers_free(l);
	sc_modules_free(m);
	sc_graph_free(g);
	/* called once, an activation is a layer of its own */
	const char *once[] = {"/a/Op", "/act/Relu", "/b/Op", "/act_x/Relu", "/c/Op"};
	g = build(5, once, 4, (const int[]){0, 1, 2, 3}, (const int[]){1, 2, 3, 4}, &m);
	l = layers(g, m, 1);
	cr_assert_str_eq(names_of(l, m, buf, sizeof buf), "a act b act_x c");
	sc_layers_free(l);
	sc_modules_free(m);
	sc_graph_free(g);
}

/* The aligned graph groups each layer's ops, the joined own ops too, and
 * names the group after the layer's module. */
Test(layers, the_aligned_graph_groups_the_layers)
{
	const char *ops[] = {"/emb/Op", "/enc/Add", "/enc/l0/a/Op", "/enc/l0/b/Op", "/head/Op"};
	sc_modules *m;
	sc_graph *g = build(5, ops, 4, (const int[]){0, 1, 2, 3}, (const int[]){1, 2, 3, 4}, &m);
	sc_layers *l = layers(g, m, 2);
	sc_error err;
	sc_graph *a = sc_layers_aligned_graph(g, m, l, &err);
	cr_assert(a, "%s", err.msg);
	cr_assert_eq(a->n, g->n);
	cr_assert_eq(a->m, g->m);
	cr_assert_eq(a->group[0], a->group[1]);
	cr_assert_eq(a->group[2], a->group[3]);
	cr_assert_neq(a->group[0], a->group[2]);
	cr_assert_str_eq(a->group_name[a->group[0]], "module emb");
	cr_assert_str_eq(a->group_name[a->group[2]], "module enc.l0");
	sc_graph_free(a);
	sc_layers_free(l);
	sc_modules_free(m);
	sc_graph_free(g);
}
