/*
 * test_gen.c - `stagecut gen`: the REGAL-style random graphs, the
 * transformer and ResNet families (their ops, edges and determinism per
 * seed) and the bundled testbed files being what samples/testbed/make.sh
 * writes.
 *
 * Expected values never come from the program's own output: they are derived
 * by hand from the sample files, parsed from raw inputs, or computed by the
 * independent cost model and brute force of tests/support.c.  Hand-derived
 * values are sums of dyadic numbers, compared with ==; values from
 * real-valued inputs are compared to a relative 1e-9.  Split from the former
 * test_commands.c; the other commands' tests are test_<command>.c beside it.
 */
#include "tests/cli/cli_test.h"

TestSuite(gen, .init = ts_scratch_init, .fini = ts_scratch_fini, .timeout = 60);

/* ---- gen ------------------------------------------------------------- */

static int count_edges_in_dot(const char *text)
{
	int n = 0;
	for (const char *p = strstr(text, "->"); p; p = strstr(p + 2, "->"))
		n++;
	return n;
}

Test(gen, gen_writes_a_graph_of_n_ops)
{
	static const int sizes[] = {1, 2, 17, 120};
	static const char *const models[] = {"er", "ba", "ws", "any"};
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
		for (size_t j = 0; j < sizeof models / sizeof models[0]; j++) {
			char f[128];
			ts_tpath(f, sizeof f, "g.dot");
			char *err;
			int status = ts_runf(NULL, &err, "gen --nodes %d --seed 5 --model %s -o %s",
			                     sizes[i], models[j], f);
			cr_assert_eq(status, 0, "gen -n %d --model %s: %s", sizes[i], models[j],
			             err);
			free(err);
			json_t *info = ts_run_json(0, "info --json %s", f);
			cr_assert_eq(ts_jint(info, "ops"), sizes[i], "gen -n %d --model %s",
			             sizes[i], models[j]);
			char *text = ts_slurp(f, NULL);
			cr_assert_eq(ts_jint(info, "edges"), count_edges_in_dot(text),
			             "gen -n %d --model %s: edges", sizes[i], models[j]);
			/* named regal-MODEL-N-SEED */
			char tail[64];
			snprintf(tail, sizeof tail, "-%d-5\"", sizes[i]);
			char *nl = strchr(text, '\n');
			cr_assert(nl);
			*nl = '\0';
			cr_assert(strstr(text, "\"regal-") && strstr(text, tail), "first line: %s",
			          text);
			if (strcmp(models[j], "any") != 0) {
				char want[32];
				snprintf(want, sizeof want, "\"regal-%s-", models[j]);
				cr_assert(strstr(text, want), "first line: %s", text);
			}
			free(text);
			json_decref(info);
		}
	/* -k writes the graph's k */
	char f[128];
	ts_tpath(f, sizeof f, "k.dot");
	cr_assert_eq(ts_runf(NULL, NULL, "gen -n 30 -s 2 -k 6 -o %s", f), 0);
	json_t *info = ts_run_json(0, "info --json %s", f);
	cr_assert_eq(ts_jint(ts_jget(info, "settings"), "k"), 6);
	json_decref(info);
	/* without -k the graph has no k: six bounds, and solve needs -k */
	ts_tpath(f, sizeof f, "nok.dot");
	cr_assert_eq(ts_runf(NULL, NULL, "gen -n 30 -s 2 -o %s", f), 0);
	info = ts_run_json(0, "info --json %s", f);
	cr_assert(json_is_null(ts_jget(ts_jget(info, "settings"), "k")));
	cr_assert_eq(json_array_size(ts_jget(info, "simple_bound")), 6);
	json_decref(info);
	char *out, *err;
	cr_assert_eq(ts_runf(&out, &err, "solve %s", f), 2, "solve without k: %s", err);
	cr_assert_str_empty(out);
	cr_assert(strstr(err, "-k"), "stderr: %s", err);
	free(out);
	free(err);
	info = ts_run_json(0, "solve --json %s -k 3 -m dpl", f);
	cr_assert_eq(ts_jint(info, "k"), 3);
	json_decref(info);
}

Test(gen, gen_is_deterministic_per_seed)
{
	char a[128], b[128], c[128];
	ts_tpath(a, sizeof a, "a.dot");
	ts_tpath(b, sizeof b, "b.dot");
	ts_tpath(c, sizeof c, "c.dot");
	cr_assert_eq(ts_runf(NULL, NULL, "gen -n 60 -s 42 --model er -o %s", a), 0);
	cr_assert_eq(ts_runf(NULL, NULL, "gen -n 60 -s 42 --model er -o %s", b), 0);
	cr_assert_eq(ts_runf(NULL, NULL, "gen -n 60 -s 43 --model er -o %s", c), 0);
	size_t la, lb, lc;
	char *ta = ts_slurp(a, &la), *tb = ts_slurp(b, &lb), *tc = ts_slurp(c, &lc);
	cr_assert(ta && tb && tc);
	cr_assert(la == lb && memcmp(ta, tb, la) == 0, "the same seed gives different files");
	/* beyond the name, which holds the seed, the graphs differ */
	const char *ba = strchr(ta, '\n'), *bc = strchr(tc, '\n');
	cr_assert(ba && bc);
	cr_assert(strcmp(ba, bc) != 0, "seeds 42 and 43 give the same graph");
	/* without -o the same DOT goes to stdout */
	char *out, *err;
	cr_assert_eq(ts_runf(&out, &err, "gen -n 60 -s 42 --model er"), 0);
	cr_assert_str_empty(err);
	cr_assert(strstr(out, "digraph") != NULL && strstr(out, "->") != NULL);
	cr_assert_str_eq(out, ta, "stdout differs from the file written with -o");
	free(out);
	free(err);
	free(ta);
	free(tb);
	free(tc);
}

/* ---- gen: the layered families and the testbed ------------------------- */

/* Runs "gen ARGS -o DIR/name" (args printf-style), expects success and
 * returns the path (in buf). */
static const char *gen_to(char *buf, size_t size, const char *name, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
static const char *gen_to(char *buf, size_t size, const char *name, const char *fmt, ...)
{
	char args[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(args, sizeof args, fmt, ap);
	va_end(ap);
	ts_tpath(buf, size, name);
	char *err;
	int status = ts_runf(NULL, &err, "gen %s -o %s", args, buf);
	cr_assert_eq(status, 0, "gen %s: exit %d: %s", args, status, err);
	free(err);
	return buf;
}

/* The graph name on the first line of a DOT file ("strict digraph "NAME" {"),
 * into buf. */
static const char *dot_graph_name(const char *path, char *buf, size_t size)
{
	char *text = ts_slurp(path, NULL);
	cr_assert(text, "cannot read %s", path);
	const char *q = strchr(text, '"');
	cr_assert(q && strncmp(text, "strict digraph \"", 16) == 0, "%s: first line %.60s", path,
	          text);
	const char *e = strchr(q + 1, '"');
	cr_assert(e);
	snprintf(buf, size, "%.*s", (int)(e - q - 1), q + 1);
	free(text);
	return buf;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t ls = strlen(s), lt = strlen(tail);
	return ls >= lt && strcmp(s + ls - lt, tail) == 0;
}

/* Ops whose name ends in tail (".matmul", ".add": the kind gen gives them). */
static int count_named(const sc_graph *g, const char *tail)
{
	int n = 0;
	for (int v = 0; v < g->n; v++)
		n += ends_with(g->op_name[v], tail);
	return n;
}

/* The op called name (printf-style), which must exist. */
static int op_named(const sc_graph *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int op_named(const sc_graph *g, const char *fmt, ...)
{
	char name[128];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(name, sizeof name, fmt, ap);
	va_end(ap);
	int v = sc_graph_find(g, name);
	cr_assert_geq(v, 0, "%s: no op '%s'", g->name, name);
	return v;
}

static bool has_pred(const sc_graph *g, int v, int u)
{
	for (int i = g->pred_off[v]; i < g->pred_off[v + 1]; i++)
		if (g->pred[i] == u)
			return true;
	return false;
}

/* The only predecessor of v. */
static int only_pred(const sc_graph *g, int v)
{
	cr_assert_eq(sc_graph_indeg(g, v), 1, "%s: '%s' has %d predecessors, want 1", g->name,
	             g->op_name[v], sc_graph_indeg(g, v));
	return g->pred[g->pred_off[v]];
}

/* within rel of want (the generator's +-10% and the rounding) */
static void assert_about(double got, double want, double rel, const char *what)
{
	cr_assert(fabs(got - want) <= rel * want, "%s: %.17g, want %.17g +- %g%%", what, got, want,
	          100 * rel);
}

Test(gen, gen_transformer_has_the_ops_of_l_layers)
{
	/* hidden d, sequence s, MLP 4 d, fp16: what the man page says */
	const double d = 1024, s = 512, act = s * d * 2;
	static const int layers[] = {1, 3, 12};
	for (size_t i = 0; i < sizeof layers / sizeof layers[0]; i++) {
		int L = layers[i];
		char f[128], name[64], want[64];
		gen_to(f, sizeof f, "t.dot", "--model transformer --layers %d --seed 5", L);
		snprintf(want, sizeof want, "transformer-%d-5", L);
		cr_assert_str_eq(dot_graph_name(f, name, sizeof name), want);
		json_t *info = ts_run_json(0, "info --json %s", f);
		/* 14 ops per layer, the embedding and the final layernorm; 18
		 * edges per layer and the one into the final layernorm; the
		 * residual stream's longest path: 12 ops per layer */
		cr_assert_eq(ts_jint(info, "ops"), 14 * L + 2, "L %d", L);
		cr_assert_eq(ts_jint(info, "edges"), 18 * L + 1, "L %d", L);
		cr_assert_eq(ts_jint(info, "depth"), 12 * L + 2, "L %d", L);
		cr_assert_eq(ts_jint(info, "sources"), 1);
		cr_assert_eq(ts_jint(info, "sinks"), 1);
		cr_assert_eq(ts_jnum(ts_jget(info, "settings"), "bandwidth"), 100);
		json_decref(info);

		sc_graph *g = ts_load(f);
		cr_assert_eq(count_named(g, ".matmul"), 8 * L, "L %d: matmuls", L);
		cr_assert_eq(count_named(g, ".softmax"), L);
		cr_assert_eq(count_named(g, ".layernorm"), 2 * L + 1);
		cr_assert_eq(count_named(g, ".add"), 2 * L);
		cr_assert_eq(count_named(g, ".gelu"), L);
		cr_assert_eq(count_named(g, ".embedding"), 1);
		for (int l = 0; l < L; l++) {
			/* attention: Q K^T, softmax, times V, projection, residual */
			int q = op_named(g, "l%d.attn.q.matmul", l);
			int k = op_named(g, "l%d.attn.k.matmul", l);
			int v = op_named(g, "l%d.attn.v.matmul", l);
			int sc = op_named(g, "l%d.attn.scores.matmul", l);
			int sm = op_named(g, "l%d.attn.softmax", l);
			int ctx = op_named(g, "l%d.attn.context.matmul", l);
			int o = op_named(g, "l%d.attn.out.matmul", l);
			int add = op_named(g, "l%d.attn.add", l);
			int ln1 = op_named(g, "l%d.ln1.layernorm", l);
			int in = only_pred(g, ln1);
			cr_assert(only_pred(g, q) == ln1 && only_pred(g, k) == ln1 &&
			          only_pred(g, v) == ln1);
			cr_assert(sc_graph_indeg(g, sc) == 2 && has_pred(g, sc, q) &&
			          has_pred(g, sc, k));
			cr_assert_eq(only_pred(g, sm), sc);
			cr_assert(sc_graph_indeg(g, ctx) == 2 && has_pred(g, ctx, sm) &&
			          has_pred(g, ctx, v));
			cr_assert_eq(only_pred(g, o), ctx);
			cr_assert(sc_graph_indeg(g, add) == 2 && has_pred(g, add, o) &&
			                  has_pred(g, add, in),
			          "layer %d: the residual skips attention", l);
			/* MLP and its residual */
			int ln2 = op_named(g, "l%d.ln2.layernorm", l);
			int fc1 = op_named(g, "l%d.mlp.fc1.matmul", l);
			int gelu = op_named(g, "l%d.mlp.gelu", l);
			int fc2 = op_named(g, "l%d.mlp.fc2.matmul", l);
			int add2 = op_named(g, "l%d.mlp.add", l);
			cr_assert_eq(only_pred(g, ln2), add);
			cr_assert_eq(only_pred(g, fc1), ln2);
			cr_assert_eq(only_pred(g, gelu), fc1);
			cr_assert_eq(only_pred(g, fc2), gelu);
			cr_assert(sc_graph_indeg(g, add2) == 2 && has_pred(g, add2, fc2) &&
			                  has_pred(g, add2, add),
			          "layer %d: the residual skips the MLP", l);
			/* realistic numbers within the seed's 10% (and rounding):
			 * a projection is 2 s d^2 FLOPs at 1e5 FLOP/ns, its weights
			 * (d^2 + d) fp16 values; the MLP's are 4x that */
			assert_about(g->work[q], 2 * s * d * d / 1e5, 0.101, "q work (ns)");
			assert_about(g->param[q], (d * d + d) * 2, 0.101, "q param (bytes)");
			assert_about(g->out[q], act, 0.101, "q out (bytes)");
			assert_about(g->work[fc1], 8 * s * d * d / 1e5, 0.101, "fc1 work");
			assert_about(g->param[fc1], (4 * d * d + 4 * d) * 2, 0.101, "fc1 param");
			assert_about(g->out[fc1], 4 * act, 0.101, "fc1 out");
			/* scores: 16 heads x s x s fp16 */
			assert_about(g->out[sc], 16 * s * s * 2, 0.101, "scores out");
			cr_assert_eq(g->param[sm], 0);
			cr_assert_eq(g->param[add], 0);
		}
		sc_graph_free(g);
	}
	/* --nodes N: the layer count whose 14 L + 2 ops are nearest N */
	static const int nodes[][2] = {{1, 1}, {16, 1}, {100, 7}, {170, 12}, {176, 12}, {179, 13}};
	for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++) {
		char f[128], name[64], want[64];
		gen_to(f, sizeof f, "n.dot", "--model transformer -n %d -s 2", nodes[i][0]);
		snprintf(want, sizeof want, "transformer-%d-2", nodes[i][1]);
		cr_assert_str_eq(dot_graph_name(f, name, sizeof name), want, "-n %d", nodes[i][0]);
		json_t *info = ts_run_json(0, "info --json %s", f);
		cr_assert_eq(ts_jint(info, "ops"), 14 * nodes[i][1] + 2);
		json_decref(info);
	}
}

Test(gen, gen_resnet_blocks_have_their_skip_edges)
{
	static const struct {
		int depth, blocks[4];
	} nets[] = {
	        {14, {1, 1, 1, 1}},   {26, {2, 2, 3, 1}}, {50, {3, 4, 6, 3}}, /* ResNet-50 */
	        {101, {3, 4, 23, 3}},                                         /* ResNet-101 */
	        {152, {3, 8, 36, 3}},                                         /* ResNet-152 */
	};
	for (size_t i = 0; i < sizeof nets / sizeof nets[0]; i++) {
		int D = nets[i].depth, B = (D - 2) / 3;
		char f[128], name[64], want[64];
		gen_to(f, sizeof f, "r.dot", "--model resnet --layers %d --seed 3", D);
		snprintf(want, sizeof want, "resnet-%d-3", D);
		cr_assert_str_eq(dot_graph_name(f, name, sizeof name), want);
		json_t *info = ts_run_json(0, "info --json %s", f);
		/* 10 ops per block, 2 per projection (one per stage), a stem of
		 * 4 and a head of 2; the longest path skips the projections */
		cr_assert_eq(ts_jint(info, "ops"), 10 * B + 14, "depth %d", D);
		cr_assert_eq(ts_jint(info, "depth"), 10 * B + 6, "depth %d", D);
		cr_assert_eq(ts_jint(info, "sources"), 1);
		cr_assert_eq(ts_jint(info, "sinks"), 1);
		json_decref(info);

		sc_graph *g = ts_load(f);
		cr_assert_eq(count_named(g, ".add"), B, "depth %d: one add per block", D);
		cr_assert_eq(count_named(g, ".conv"), 3 * B + 4 + 1, "depth %d: convs", D);
		cr_assert_eq(count_named(g, ".batchnorm"), 3 * B + 4 + 1);
		cr_assert_eq(count_named(g, ".matmul"), 1, "the fc layer");
		int prev_out = op_named(g, "stem.maxpool"), seen = 0;
		for (int st = 1; st <= 4; st++) {
			for (int b = 0; b < nets[i].blocks[st - 1]; b++, seen++) {
				/* the block's input is what its first conv reads */
				int c1 = op_named(g, "s%d.b%d.c1.conv", st, b);
				int in = only_pred(g, c1);
				cr_assert_eq(in, prev_out, "s%d.b%d reads the previous block", st,
				             b);
				int bn3 = op_named(g, "s%d.b%d.c3.batchnorm", st, b);
				int add = op_named(g, "s%d.b%d.add", st, b);
				cr_assert_eq(sc_graph_indeg(g, add), 2, "s%d.b%d.add", st, b);
				cr_assert(has_pred(g, add, bn3), "s%d.b%d: add after c3", st, b);
				int skip = -1;
				for (int e = g->pred_off[add]; e < g->pred_off[add + 1]; e++)
					if (g->pred[e] != bn3)
						skip = g->pred[e];
				if (b == 0) {
					/* a stage's first block: the skip goes through a
					 * projection of the block's input */
					int pbn = op_named(g, "s%d.b%d.proj.batchnorm", st, b);
					int pconv = op_named(g, "s%d.b%d.proj.conv", st, b);
					cr_assert_eq(skip, pbn, "s%d.b%d: projection shortcut", st,
					             b);
					cr_assert_eq(only_pred(g, pbn), pconv);
					cr_assert_eq(only_pred(g, pconv), in);
				} else {
					cr_assert_eq(skip, in,
					             "s%d.b%d: the skip edge from the input", st,
					             b);
					char proj[64];
					snprintf(proj, sizeof proj, "s%d.b%d.proj.conv", st, b);
					cr_assert_lt(sc_graph_find(g, proj), 0, "%s", proj);
				}
				prev_out = op_named(g, "s%d.b%d.relu", st, b);
				cr_assert_eq(only_pred(g, prev_out), add);
			}
			char nope[64];
			snprintf(nope, sizeof nope, "s%d.b%d.add", st, nets[i].blocks[st - 1]);
			cr_assert_lt(sc_graph_find(g, nope), 0, "depth %d: %s", D, nope);
		}
		cr_assert_eq(seen, B);
		cr_assert_eq(only_pred(g, op_named(g, "head.avgpool")), prev_out);
		if (D == 50) {
			/* ResNet-50: 25 557 032 parameters (torchvision), fp16; ours
			 * add batchnorm's running mean and variance (26 560
			 * channels); each op's param is within 10% */
			double total = 0;
			for (int v = 0; v < g->n; v++)
				total += g->param[v];
			assert_about(total, (25557032.0 + 2 * 26560) * 2, 0.101, "resnet50 param");
			/* the 3x3 conv of stage 1: 64 -> 64 channels on 56x56, a
			 * batch of 8: 2 * 8 * 56^2 * 64 * 64 * 9 FLOPs at 1e5
			 * FLOP/ns (compute-bound); out 8 * 56^2 * 64 fp16 */
			int c2 = op_named(g, "s1.b0.c2.conv");
			double map = 8.0 * 56 * 56 * 64 * 2;
			assert_about(g->work[c2], 2.0 * 8 * 56 * 56 * 64 * 64 * 9 / 1e5, 0.101,
			             "s1.b0.c2 work");
			assert_about(g->param[c2], 9.0 * 64 * 64 * 2, 0.101, "s1.b0.c2 param");
			assert_about(g->out[c2], map, 0.101, "s1.b0.c2 out");
			/* its relu is memory-bound: the map read and written at
			 * 1500 bytes/ns */
			int r2 = op_named(g, "s1.b0.c2.relu");
			assert_about(g->work[r2], 2 * map / 1500, 0.101, "s1.b0.c2.relu work");
			cr_assert_eq(g->param[r2], 0);
			/* the last block's output: 2048 channels of 7x7 */
			assert_about(g->out[prev_out], 8.0 * 7 * 7 * 2048 * 2, 0.101, "last out");
		}
		sc_graph_free(g);
	}
	/* other depths round to the nearest 3 B + 2; --nodes to the nearest
	 * 10 B + 14 ops (at least 4 blocks) */
	static const struct {
		const char *args;
		int depth;
	} sized[] = {{"--layers 51", 50}, {"--layers 52", 53}, {"--layers 13", 14}, {"-n 1", 14},
	             {"-n 174", 50},      {"-n 178", 50},      {"-n 180", 53}};
	for (size_t i = 0; i < sizeof sized / sizeof sized[0]; i++) {
		char f[128], name[64], want[64];
		gen_to(f, sizeof f, "n.dot", "--model resnet %s -s 9", sized[i].args);
		snprintf(want, sizeof want, "resnet-%d-9", sized[i].depth);
		cr_assert_str_eq(dot_graph_name(f, name, sizeof name), want, "%s", sized[i].args);
		json_t *info = ts_run_json(0, "info --json %s", f);
		cr_assert_eq(ts_jint(info, "ops"), 10 * ((sized[i].depth - 2) / 3) + 14, "%s",
		             sized[i].args);
		json_decref(info);
	}
}

Test(gen, gen_layered_graphs_are_deterministic_and_vary_by_seed)
{
	static const char *const args[] = {"--model transformer --layers 4",
	                                   "--model resnet --layers 50"};
	for (size_t i = 0; i < sizeof args / sizeof args[0]; i++) {
		char a[128], b[128], c[128];
		gen_to(a, sizeof a, "a.dot", "%s -s 42", args[i]);
		gen_to(b, sizeof b, "b.dot", "%s -s 42", args[i]);
		gen_to(c, sizeof c, "c.dot", "%s -s 43", args[i]);
		size_t la, lb;
		char *ta = ts_slurp(a, &la), *tb = ts_slurp(b, &lb);
		cr_assert(la == lb && memcmp(ta, tb, la) == 0, "%s: the same seed differs",
		          args[i]);
		/* stdout carries the same text */
		char *out;
		cr_assert_eq(ts_runf(&out, NULL, "gen %s -s 42", args[i]), 0);
		cr_assert_str_eq(out, ta, "%s: stdout differs from -o", args[i]);
		free(out);
		free(ta);
		free(tb);
		/* another seed: the same ops and edges, each op's numbers
		 * moved by its own factor in [0.9, 1.1] */
		sc_graph *ga = ts_load(a), *gc = ts_load(c);
		cr_assert_eq(ga->n, gc->n);
		cr_assert_eq(ga->m, gc->m);
		cr_assert_eq(ga->settings.bandwidth, gc->settings.bandwidth);
		int moved = 0;
		double lo = 1, hi = 1;
		for (int v = 0; v < ga->n; v++) {
			cr_assert_str_eq(ga->op_name[v], gc->op_name[v]);
			for (int e = ga->succ_off[v]; e < ga->succ_off[v + 1]; e++)
				cr_assert_eq(ga->succ[e], gc->succ[e]);
			const double *xa[] = {ga->work, ga->out}, *xc[] = {gc->work, gc->out};
			for (int q = 0; q < 2; q++) {
				/* whole nanoseconds and bytes */
				cr_assert_eq(xa[q][v], floor(xa[q][v]));
				cr_assert_geq(xa[q][v], 1, "%s: %s", args[i], ga->op_name[v]);
				double r = xa[q][v] / xc[q][v];
				lo = fmin(lo, r);
				hi = fmax(hi, r);
				moved += r != 1;
			}
			if (ga->param[v] > 0)
				cr_assert_gt(gc->param[v], 0);
		}
		/* 0.9 / 1.1 and 1.1 / 0.9, with the rounding of the smallest
		 * works (a few hundred ns) */
		cr_assert(lo >= 0.815 && hi <= 1.227, "%s: ratios %g to %g", args[i], lo, hi);
		cr_assert(lo < 0.9 && hi > 1.1, "%s: ratios only %g to %g", args[i], lo, hi);
		cr_assert_gt(moved, ga->n, "%s: seeds 42 and 43 give nearly the same numbers",
		             args[i]);
		sc_graph_free(ga);
		sc_graph_free(gc);
	}
}

#define TESTBED "samples/testbed"

Test(gen, testbed_files_are_what_make_sh_writes)
{
	/* remake the testbed into the scratch directory */
	char dir[128], cmd[1024], *out, *err;
	ts_tpath(dir, sizeof dir, "testbed");
	snprintf(cmd, sizeof cmd, "STAGECUT='%s' sh " TESTBED "/make.sh '%s'", ts_program(), dir);
	int status = ts_run(cmd, &out, &err);
	cr_assert_eq(status, 0, "make.sh exits %d: %s", status, err);
	cr_assert_str_empty(out);
	cr_assert_str_empty(err);
	free(out);
	free(err);
	/* every file in either directory is in the other, byte for byte */
	const char *both[2] = {TESTBED, dir};
	int count[2] = {0, 0}, family[3] = {0, 0, 0};
	for (int side = 0; side < 2; side++) {
		DIR *d = opendir(both[side]);
		cr_assert(d, "cannot open %s", both[side]);
		struct dirent *de;
		while ((de = readdir(d))) {
			if (!ends_with(de->d_name, ".dot"))
				continue;
			count[side]++;
			char pa[512], pb[512];
			snprintf(pa, sizeof pa, "%s/%s", both[side], de->d_name);
			snprintf(pb, sizeof pb, "%s/%s", both[1 - side], de->d_name);
			size_t la, lb;
			char *ta = ts_slurp(pa, &la), *tb = ts_slurp(pb, &lb);
			cr_assert(tb, "%s is in %s but not in %s", de->d_name, both[side],
			          both[1 - side]);
			cr_assert(la == lb && memcmp(ta, tb, la) == 0,
			          "%s differs from what make.sh writes now", de->d_name);
			free(ta);
			free(tb);
			if (side == 1)
				continue;
			/* named after the graph; REGAL 50 to 200 ops, all under 600 */
			char name[128], file[128];
			snprintf(file, sizeof file, "%.*s", (int)strlen(de->d_name) - 4,
			         de->d_name);
			cr_assert_str_eq(dot_graph_name(pa, name, sizeof name), file);
			json_t *info = ts_run_json(0, "info --json %s", pa);
			long long ops = ts_jint(info, "ops");
			json_decref(info);
			cr_assert_lt(ops, 600, "%s", file);
			if (strncmp(file, "regal-", 6) == 0) {
				family[0]++;
				cr_assert(ops >= 50 && ops <= 200, "%s: %lld ops", file, ops);
			} else if (strncmp(file, "transformer-", 12) == 0) {
				family[1]++;
			} else {
				cr_assert(strncmp(file, "resnet-", 7) == 0, "%s", file);
				family[2]++;
			}
		}
		closedir(d);
	}
	cr_assert_eq(count[0], 12, "the testbed has %d graphs", count[0]);
	cr_assert_eq(count[1], 12);
	cr_assert(family[0] == 4 && family[1] == 4 && family[2] == 4,
	          "%d REGAL, %d transformer, "
	          "%d resnet",
	          family[0], family[1], family[2]);
}

/* -o names a pipe through /dev/stdout: written through, not replaced by a
 * file (which would leave the pipe empty); the text is the file's. */
Test(gen, gen_o_dev_stdout_writes_through_a_pipe)
{
	char f[128];
	ts_tpath(f, sizeof f, "g.dot");
	cr_assert_eq(ts_runf(NULL, NULL, "gen -n 30 -s 3 -o %s", f), 0);
	char *want = ts_slurp(f, NULL);
	cr_assert(want && strstr(want, "digraph"));
	char *out, *err;
	char cmd[256];
	snprintf(cmd, sizeof cmd, "%s gen -n 30 -s 3 -o /dev/stdout | cat", ts_program());
	cr_assert_eq(ts_run(cmd, &out, &err), 0, "%s", err);
	cr_assert_str_eq(out, want);
	cr_assert_str_eq(err, "");
	free(out);
	free(err);
	free(want);
	/* and /dev/null takes it and stays a device */
	cr_assert_eq(ts_runf(&out, &err, "gen -n 30 -s 3 -o /dev/null"), 0, "%s", err);
	struct stat st;
	cr_assert_eq(lstat("/dev/null", &st), 0);
	cr_assert(S_ISCHR(st.st_mode));
	free(out);
	free(err);
}

/* --model er at 10^5 ops: a spanning path (n - 1 edges) and each pair
 * with probability 3 / (n - 1), 1.5 n more expected (sd ~ 0.004 n), so
 * about 2.5 n edges; drawn in time linear in the edges (2 CPU seconds,
 * most of it writing; a draw per pair took 10). */
Test(gen, a_large_er_graph_is_drawn_in_linear_time)
{
	char cmd[512], *out = NULL, *err = NULL;
	snprintf(cmd, sizeof cmd, "ulimit -t 6; exec %s gen -n 100000 -s 7 --model er",
	         ts_program());
	int st = ts_run(cmd, &out, &err);
	cr_assert_eq(st, 0, "exit %d (over 6 CPU seconds?): %s", st, err);
	int m = count_edges_in_dot(out);
	cr_assert(m > 2.45 * 100000 && m < 2.55 * 100000, "%d edges", m);
	free(out);
	free(err);
}
