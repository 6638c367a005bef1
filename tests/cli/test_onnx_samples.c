/*
 * test_onnx_samples.c - the ONNX importer on real architectures: `stagecut
 * info FILE.onnx --json` and `solve` on the models of samples/onnx/
 * (resnet50, inception_v3, vit_b_16 and a Transformer encoder, exported
 * from torchvision with their weights stripped).
 *
 * Expected values never come from the program: they are read from
 * samples/onnx/FACTS.json, which scripts/make_onnx_samples.py wrote with the
 * onnx package when it made the samples (op counts by type, initializer
 * bytes, the multiply-accumulates of Conv, Gemm and MatMul from onnx shape
 * inference), and for resnet50 the published 4.1 G multiply-accumulates of
 * one 224 x 224 image (torchvision documents GFLOPS 4.09).
 *
 * The "onnx" object of `info --json`: "ops_by_type" (node count per
 * op_type), "flops" (2 per multiply-accumulate), "param_bytes" (sum of the
 * initializers' bytes), "unknown_ops" and "unknown", "device", "dims" (the
 * symbolic dimensions' values, set with --dim NAME=VALUE).
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/graph.h"
#include "tests/support.h"

#define ONNX_DIR "samples/onnx/"
#define FACTS ONNX_DIR "FACTS.json"

/* The samples; resnet50 has a symbolic batch dimension N, given as 1. */
static const struct sample {
	const char *file;
	const char *opts; /* for every command that loads the file */
} samples[] = {
        {"resnet50.onnx", "--dim N=1"},
        {"inception_v3.onnx", ""},
        {"vit_b_16.onnx", ""},
        {"transformer_encoder.onnx", ""},
};
#define NSAMPLES (int)(sizeof samples / sizeof samples[0])

/* The published multiply-accumulates of ResNet-50 at 224 x 224, batch 1
 * (torchvision's ResNet50_Weights: GFLOPS 4.09, counting MACs; FACTS.json
 * "reference"). */
#define RESNET50_MACS 4.1e9

TestSuite(onnx_samples, .init = ts_scratch_init, .fini = ts_scratch_fini, .timeout = 120);

/* FACTS.json's record of file (the caller decrefs *root). */
static json_t *facts_of(const char *file, json_t **root)
{
	json_error_t jerr;
	*root = json_load_file(FACTS, 0, &jerr);
	cr_assert(*root, "%s: %s", FACTS, jerr.text);
	json_t *m = ts_jget(ts_jget(*root, "models"), file);
	cr_assert(json_is_object(m), "%s: no record of %s", FACTS, file);
	return m;
}

/* `info FILE OPTS --json`'s "onnx" object (the caller decrefs *root). */
static json_t *onnx_info(const struct sample *s, json_t **root)
{
	*root = ts_run_json(0, "info " ONNX_DIR "%s %s --json", s->file, s->opts);
	json_t *o = ts_jget(*root, "onnx");
	cr_assert(json_is_object(o), "info %s: \"onnx\" is not an object", s->file);
	return o;
}

/* ---- the file's contents as the onnx package counts them ---------------- */

Test(onnx_samples, ops_by_type_are_the_onnx_graphs)
{
	for (int i = 0; i < NSAMPLES; i++) {
		const struct sample *s = &samples[i];
		json_t *froot, *root;
		json_t *f = facts_of(s->file, &froot);
		json_t *want = ts_jget(f, "ops_by_type");
		json_t *got = ts_jget(onnx_info(s, &root), "ops_by_type");
		cr_assert(json_is_object(got), "%s: ops_by_type is not an object", s->file);
		const char *type;
		json_t *n;
		long long total = 0;
		json_object_foreach(want, type, n)
		{
			json_t *g = json_object_get(got, type);
			cr_assert(json_is_integer(g), "%s: ops_by_type has no count of %s", s->file,
			          type);
			cr_assert_eq(json_integer_value(g), json_integer_value(n),
			             "%s: %s: %lld, the onnx graph has %lld", s->file, type,
			             json_integer_value(g), json_integer_value(n));
			total += json_integer_value(n);
		}
		json_object_foreach(got, type, n)
		{
			cr_assert(json_object_get(want, type),
			          "%s: ops_by_type counts %s, which the onnx graph does not have",
			          s->file, type);
		}
		cr_assert_eq(total, ts_jint(f, "nodes"), "%s: FACTS.json", s->file);
		json_decref(root);
		json_decref(froot);
	}
}

Test(onnx_samples, param_bytes_are_the_initializers_bytes)
{
	for (int i = 0; i < NSAMPLES; i++) {
		const struct sample *s = &samples[i];
		json_t *froot, *root;
		long long want = ts_jint(facts_of(s->file, &froot), "initializer_bytes");
		/* a JSON number (the program may print it as a real): exact, as
		 * these sums are far below 2^53 */
		double got = ts_jnum(onnx_info(s, &root), "param_bytes");
		cr_assert(got == (double)want,
		          "%s: param_bytes %.17g, the initializers hold %lld bytes", s->file, got,
		          want);
		json_decref(root);
		json_decref(froot);
	}
}

/* ---- FLOPs ---------------------------------------------------------------- */

Test(onnx_samples, resnet50_flops_are_the_published_macs)
{
	json_t *root;
	json_t *o = onnx_info(&samples[0], &root);
	double macs = ts_jnum(o, "flops") / 2;
	cr_assert(fabs(macs - RESNET50_MACS) <= 0.02 * RESNET50_MACS,
	          "resnet50 at N=1: flops/2 = %.6g, published %.6g", macs, RESNET50_MACS);
	json_t *dims = ts_jget(o, "dims");
	cr_assert_eq(ts_jint(dims, "N"), 1, "resnet50: dims.N");
	json_decref(root);
}

/* Every op of ResNet-50 (Conv, Relu, Add, the pools, Flatten, Gemm) is
 * linear in the batch: N = 8 costs 8 times N = 1. */
Test(onnx_samples, resnet50_flops_scale_with_the_batch)
{
	json_t *root1, *root8;
	double f1 = ts_jnum(onnx_info(&samples[0], &root1), "flops");
	struct sample eight = {samples[0].file, "--dim N=8"};
	json_t *o8 = onnx_info(&eight, &root8);
	cr_assert_eq(ts_jint(ts_jget(o8, "dims"), "N"), 8, "resnet50 --dim N=8: dims.N");
	double f8 = ts_jnum(o8, "flops");
	cr_assert(ts_close_rel(f8, 8 * f1, 1e-9), "resnet50: flops %.17g at N=8, %.17g at N=1", f8,
	          f1);
	json_decref(root1);
	json_decref(root8);
}

/* Conv, Gemm and MatMul carry all but well under 1% of these models'
 * arithmetic (the rest is elementwise: ReLU, residual adds, the pools, the
 * decomposed LayerNorm and GELU, softmax), so flops / 2 lies between 99% and
 * 105% of their multiply-accumulates as onnx shape inference gives them. */
Test(onnx_samples, flops_cover_the_conv_gemm_matmul_macs)
{
	char bad[1024] = "";
	for (int i = 0; i < NSAMPLES; i++) {
		const struct sample *s = &samples[i];
		json_t *froot, *root;
		double want = ts_jnum(facts_of(s->file, &froot), "macs_conv_gemm_matmul");
		json_t *o = onnx_info(s, &root);
		double macs = ts_jnum(o, "flops") / 2;
		long long unknown = ts_jint(o, "unknown_ops");
		cr_log_info("%s: flops/2 %.6g, Conv/Gemm/MatMul MACs %.6g, unknown_ops %lld",
		            s->file, macs, want, unknown);
		if (!(macs >= 0.99 * want && macs <= 1.05 * want)) {
			size_t len = strlen(bad);
			snprintf(bad + len, sizeof bad - len,
			         "\n  %s: flops/2 = %.6g, Conv, Gemm and MatMul alone %.6g "
			         "(unknown_ops "
			         "%lld)",
			         s->file, macs, want, unknown);
		}
		json_decref(root);
		json_decref(froot);
	}
	cr_assert(bad[0] == 0, "flops/2 not within 99%% to 105%% of the MACs:%s", bad);
}

/* ---- unknown ops ---------------------------------------------------------- */

/* ResNet-50 uses only Conv, Relu, Add, MaxPool, GlobalAveragePool, Flatten
 * and Gemm; the others' counts are logged and only bounded. */
Test(onnx_samples, unknown_ops)
{
	for (int i = 0; i < NSAMPLES; i++) {
		const struct sample *s = &samples[i];
		json_t *froot, *root;
		long long nodes = ts_jint(facts_of(s->file, &froot), "nodes");
		json_t *o = onnx_info(s, &root);
		long long unknown = ts_jint(o, "unknown_ops");
		json_t *names = ts_jget(o, "unknown");
		cr_assert(json_is_array(names), "%s: \"unknown\" is not an array", s->file);
		cr_log_info("%s: unknown_ops %lld of %lld nodes", s->file, unknown, nodes);
		cr_assert(unknown >= 0 && unknown <= nodes, "%s: unknown_ops %lld of %lld nodes",
		          s->file, unknown, nodes);
		cr_assert_eq(unknown == 0, json_array_size(names) == 0,
		             "%s: unknown_ops %lld with %zu names", s->file, unknown,
		             json_array_size(names));
		if (i == 0)
			cr_assert_eq(unknown, 0, "resnet50: %lld unknown ops", unknown);
		json_decref(root);
		json_decref(froot);
	}
}

/* ---- solve ---------------------------------------------------------------- */

/* solve -k 4 finds a partition that is valid by tests/support.c's rules on
 * the graph as the library loads it (sc_load: symbolic dims 1), and that
 * eval accepts. */
Test(onnx_samples, solve_k4_gives_a_valid_partition)
{
	for (int i = 0; i < NSAMPLES; i++) {
		const struct sample *s = &samples[i];
		char outp[192], what[128];
		snprintf(outp, sizeof outp, "%s/%s.part.json", ts_dir, s->file);
		snprintf(what, sizeof what, "solve %s -k 4", s->file);
		json_t *r = ts_run_json(0, "solve " ONNX_DIR "%s %s -k 4 --time 10 -o %s --json",
		                        s->file, s->opts, outp);
		cr_assert(ts_jbool(r, "feasible"), "%s", what);
		cr_assert_eq(ts_jint(r, "k"), 4, "%s", what);
		double bn = ts_jnum(r, "bottleneck");
		cr_assert(isfinite(bn) && bn > 0, "%s: bottleneck %g", what, bn);
		json_decref(r);

		/* without --dim: N is 1 by default, as in ts_load below */
		r = ts_run_json(0, "eval " ONNX_DIR "%s %s --json", s->file, outp);
		json_decref(r);

		char path[192];
		snprintf(path, sizeof path, ONNX_DIR "%s", s->file);
		sc_graph *g = ts_load(path);
		cr_assert_gt(g->n, 0, "%s: no ops", path);
		int *stage = malloc((size_t)g->n * sizeof *stage);
		cr_assert(stage);
		ts_read_partition(outp, g, 4, stage);
		ts_assert_valid(g, stage, 4, what);
		free(stage);
		sc_graph_free(g);
	}
}
