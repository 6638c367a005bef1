/*
 * test_onnx.c - ONNX models through the program: info's "onnx" object with
 * the keys the documentation promises, the costed DOT written by info -o
 * loading back with the same costs, solve on a model end to end, --dim and
 * the warning about ops of unknown cost.  The models are the fuzz seeds
 * (tests/fuzz/corpus/fuzz_onnx, built by tests/unit/test_load_onnx.c's
 * writer).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/support.h"

#define CONV "tests/fuzz/corpus/fuzz_onnx/conv_relu.onnx"
#define GEMM "tests/fuzz/corpus/fuzz_onnx/gemm_add.onnx"
#define DIM "tests/fuzz/corpus/fuzz_onnx/symbolic_dim.onnx"
#define UNKNOWN "tests/fuzz/corpus/fuzz_onnx/unknown_op.onnx"

TestSuite(onnx, .init = ts_scratch_init, .fini = ts_scratch_fini, .timeout = 60);

Test(onnx, info_json_has_the_onnx_object)
{
	json_t *info = ts_run_json(0, "info --json " CONV);
	json_t *o = ts_jget(info, "onnx");
	json_t *types = ts_jget(o, "ops_by_type");
	cr_assert_eq(ts_jint(types, "Conv"), 1);
	cr_assert_eq(ts_jint(types, "Relu"), 1);
	/* Conv 14080 (13824 + bias 256) + Relu 256 */
	cr_assert_eq(ts_jnum(o, "flops"), 14336);
	cr_assert_eq(ts_jnum(o, "param_bytes"), 448);
	cr_assert_eq(ts_jint(o, "unknown_ops"), 0);
	cr_assert_eq(json_array_size(ts_jget(o, "unknown")), 0);
	cr_assert_str_eq(ts_jstr(o, "device"), "a100");
	cr_assert(json_is_object(ts_jget(o, "dims")));
	cr_assert_eq(ts_jint(info, "ops"), 2);
	/* the a100's default precision is fp16: the file's fp32 weights take
	 * half their bytes; --precision fp32 keeps them */
	cr_assert_str_eq(ts_jstr(o, "precision"), "fp16");
	cr_assert_eq(ts_jnum(info, "total_param"), 224);
	json_decref(info);
	info = ts_run_json(0, "info --json " CONV " --precision fp32");
	cr_assert_eq(ts_jnum(info, "total_param"), 448);
	cr_assert_str_eq(ts_jstr(ts_jget(info, "onnx"), "precision"), "fp32");
	cr_assert_str_eq(ts_jstr(ts_jget(info, "onnx"), "precision_why"), "--precision fp32");
	json_decref(info);
}

Test(onnx, costed_dot_round_trips)
{
	char dot[256];
	ts_tpath(dot, sizeof dot, "gemm.dot");
	json_t *a = ts_run_json(0, "info --json " GEMM " --device v100 -o %s", dot);
	json_t *b = ts_run_json(0, "info --json %s", dot);
	const char *keys[] = {"total_work", "total_param", "total_out", "ops", "edges"};
	for (int i = 0; i < 5; i++)
		cr_assert_eq(ts_jnum(a, keys[i]), ts_jnum(b, keys[i]), "%s", keys[i]);
	json_t *sa = ts_jget(a, "settings"), *sb = ts_jget(b, "settings");
	cr_assert_eq(ts_jnum(sa, "bandwidth"), 300e9 / 1e6);
	cr_assert_eq(ts_jnum(sa, "bandwidth"), ts_jnum(sb, "bandwidth"));
	cr_assert_eq(ts_jnum(sa, "memory"), ts_jnum(sb, "memory"));
	cr_assert_str_eq(ts_jstr(sb, "memory_policy"), "hard");
	json_decref(a);
	json_decref(b);
}

Test(onnx, solve_end_to_end)
{
	json_t *s = ts_run_json(0, "solve --json " CONV " -k 2 --device jetson-orin");
	cr_assert(ts_jnum(s, "bottleneck") > 0);
	json_decref(s);
}

Test(onnx, dim_and_unknown_warning)
{
	json_t *a = ts_run_json(0, "info --json " DIM " --dim N=16");
	json_t *o = ts_jget(a, "onnx");
	cr_assert_eq(ts_jint(ts_jget(o, "dims"), "N"), 16);
	cr_assert_eq(ts_jnum(o, "flops"), 128);
	json_decref(a);
	char *out, *err;
	int st = ts_runf(&out, &err, "info " UNKNOWN);
	cr_assert_eq(st, 0);
	cr_assert(strstr(err, "2 ops of unknown shape or type cost 0"), "%s", err);
	cr_assert(strstr(err, "mystery"), "%s", err);
	cr_assert(strstr(out, "unknown cost   2 ops: mystery after"), "%s", out);
	cr_assert(strstr(out, "time unit: microseconds"), "%s", out);
	free(out);
	free(err);
}

/* A dim whose tensors would hold more than 2^62 elements is refused: every
 * op once cost 0 with only a warning.  The largest that fits
 * (2^59 x 8 = 2^62) still costs every op; one more is refused, naming the
 * dim, the tensor and the model, and solve -o writes nothing. */
Test(onnx, a_dim_that_overflows_a_tensor_is_refused)
{
	json_t *a = ts_run_json(0, "info --json " DIM " --dim N=576460752303423488");
	json_t *o = ts_jget(a, "onnx");
	cr_assert_eq(ts_jint(o, "unknown_ops"), 0);
	cr_assert(ts_jnum(o, "flops") > 4e18);
	json_decref(a);
	char path[256], *out, *err;
	ts_tpath(path, sizeof path, "keep.json");
	ts_write_text(path, "keep");
	int st = ts_runf(&out, &err, "solve " DIM " -k 2 --dim N=576460752303423489 -o %s", path);
	cr_assert_eq(st, 2, "%s", err);
	cr_assert_str_empty(out);
	cr_assert_str_eq(err,
	                 "stagecut: " DIM ": with --dim N=576460752303423489 a tensor's size "
	                 "overflows: 'X' (an input of the model) would be 576460752303423489 x "
	                 "8, more than 2^62 elements\n");
	char *kept = ts_slurp(path, NULL);
	cr_assert_str_eq(kept, "keep");
	free(kept);
	free(out);
	free(err);
}

/* info's device lines give the profile's datasheet numbers, each in its
 * place (A100 SXM4 40GB: 312 TFLOP/s, 1555 GB/s, 40 GB, NVLink 600 GB/s);
 * they once came out with the memory and the link swapped for the FLOP/s
 * and the memory bandwidth. */
Test(onnx, info_prints_the_device_numbers_in_place)
{
	char *out, *err;
	cr_assert_eq(ts_runf(&out, &err, "info " CONV " --device a100"), 0, "%s", err);
	cr_assert(strstr(out, "               3.1200e+14 FLOP/s at fp16, memory 1.5550e+12 B/s, "
	                      "4.0000e+10 bytes, link 6.0000e+11 B/s\n"),
	          "%s", out);
	free(out);
	free(err);
}

/* An ONNX model's costs are microseconds on its device, and the reports
 * say so: info's total work, solve's table, eval's bottleneck line; a DOT
 * graph keeps saying "time units". */
Test(onnx, reports_state_microseconds)
{
	char *out, *err, part[512];
	ts_tpath(part, sizeof part, "p.json");
	cr_assert_eq(ts_runf(&out, &err, "info " CONV), 0, "%s", err);
	cr_assert(strstr(out, "\ntotal work     ") && strstr(out, " microseconds\n"), "%s", out);
	free(out);
	free(err);
	cr_assert_eq(ts_runf(&out, &err, "solve " CONV " -k 2 -o '%s'", part), 0, "%s", err);
	cr_assert(strstr(out, "\ntimes in microseconds\n"), "%s", out);
	free(out);
	free(err);
	cr_assert_eq(ts_runf(&out, &err, "eval " CONV " '%s'", part), 0, "%s", err);
	cr_assert(strstr(out, "   [microseconds; params and tensors in bytes]\n"), "%s", out);
	free(out);
	free(err);
	cr_assert_eq(ts_runf(&out, &err, "info samples/paper/figure2.dot"), 0, "%s", err);
	cr_assert(strstr(out, " time units\n") && !strstr(out, "microseconds"), "%s", out);
	free(out);
	free(err);
}

/* Folding: what a runtime computes once at load time is not an
 * op.  On the torchvision exports of samples/h100/onnx every folded node is
 * one of the Identity nodes torch writes for de-duplicated weights (counted
 * from the file's op types), every initializer byte is charged exactly once
 * (total_param equals the initializers' bytes at the file's fp32), and the
 * exact DP sees as few ideals as the real branching allows: googlenet had
 * more than a million with the Identity sources, resnet18 428 166. */
Test(onnx, folding_keeps_the_weights_and_drops_the_ideals)
{
	static const struct {
		const char *file;
		long max_ideals;
	} cases[] = {
	        {"resnet18", 60},         {"vgg16", 40},           {"mnasnet1_0", 100},
	        {"efficientnet_b0", 240}, {"regnet_y_400mf", 300}, {"googlenet", 3000},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		json_t *info = ts_run_json(
		        0, "info --json --precision fp32 samples/h100/onnx/%s.onnx", cases[i].file);
		json_t *o = ts_jget(info, "onnx"), *types = ts_jget(o, "ops_by_type");
		json_t *ident = json_object_get(types, "Identity");
		int identities = ident ? (int)json_integer_value(ident) : 0;
		cr_assert(identities > 0, "%s has Identity nodes", cases[i].file);
		cr_assert_eq(ts_jint(o, "folded_ops"), identities, "%s", cases[i].file);
		int nodes = 0;
		const char *k;
		json_t *v;
		json_object_foreach(types, k, v) nodes += (int)json_integer_value(v);
		cr_assert_eq(ts_jint(info, "ops"), nodes - identities, "%s", cases[i].file);
		cr_assert_eq(ts_jnum(info, "total_param"), ts_jnum(o, "param_bytes"), "%s",
		             cases[i].file);
		json_t *c = ts_jget(info, "contraction");
		cr_assert(ts_jnum(c, "ideals_before") <= cases[i].max_ideals, "%s: %g ideals",
		          cases[i].file, ts_jnum(c, "ideals_before"));
		json_t *costs = ts_jget(info, "costs");
		cr_assert_eq(ts_jint(costs, "ops_folded"), identities);
		cr_assert_eq(ts_jint(costs, "ops_modelled"), nodes - identities);
		json_decref(info);
	}
}

/* --times with the real ONNX Runtime profiles of resnet18 (samples/h100/ort):
 * every op measured at both optimization levels, the report says so, and
 * the optimized profile's fused kernels are shared out. */
Test(onnx, times_from_real_profiles_cover_every_op)
{
	const char *levels[] = {"noopt", "opt"};
	for (int i = 0; i < 2; i++) {
		json_t *info =
		        ts_run_json(0,
		                    "info --json samples/h100/onnx/resnet18.onnx --device h100 "
		                    "--times samples/h100/ort/resnet18.ort-%s.json",
		                    levels[i]);
		json_t *costs = ts_jget(info, "costs");
		cr_assert_eq(ts_jint(costs, "ops_measured"), ts_jint(info, "ops"), "%s", levels[i]);
		cr_assert_eq(ts_jnum(costs, "measured_work_share"), 1.0);
		cr_assert(strstr(ts_jstr(costs, "origin"), "resnet18.ort-"), "%s",
		          ts_jstr(costs, "origin"));
		json_decref(info);
	}
	char *out, *err;
	cr_assert_eq(ts_runf(&out, &err,
	                     "info samples/h100/onnx/resnet18.onnx --times "
	                     "samples/h100/ort/resnet18.ort-opt.json"),
	             0, "%s", err);
	cr_assert(strstr(out, "coverage       49 ops measured, 0 modelled, 0 from the file, 16 "
	                      "folded; 100.0 % of the work measured"),
	          "%s", out);
	cr_assert(strstr(out, "fused kernels"), "%s", out);
	free(out);
	free(err);
}

/* --times with the real profiles of tests/data/ort (a tiny ViT and a tiny
 * Transformer encoder, ONNX Runtime on a CPU at every optimization level):
 * every op measured, whatever the runtime fused, renamed or inserted; the
 * report lists the kernels of nodes the runtime made. */
Test(onnx, times_from_transformer_profiles_at_every_level)
{
	const char *models[] = {"vit_tiny", "encoder_tiny"};
	const char *levels[] = {"disabled", "basic", "extended", "all"};
	for (int m = 0; m < 2; m++)
		for (int l = 0; l < 4; l++) {
			json_t *info = ts_run_json(0,
			                           "info --json tests/data/ort/%s.onnx --times "
			                           "tests/data/ort/%s.ort-%s.json",
			                           models[m], models[m], levels[l]);
			json_t *costs = ts_jget(info, "costs");
			cr_assert_eq(ts_jint(costs, "ops_measured"), ts_jint(info, "ops"), "%s %s",
			             models[m], levels[l]);
			cr_assert_eq(ts_jint(costs, "ops_modelled"), 0);
			cr_assert_eq(ts_jnum(costs, "measured_work_share"), 1.0);
			json_decref(info);
		}
	char *out, *err;
	cr_assert_eq(ts_runf(&out, &err,
	                     "info tests/data/ort/encoder_tiny.onnx --times "
	                     "tests/data/ort/encoder_tiny.ort-all.json"),
	             0, "%s", err);
	cr_assert(strstr(out, "; 16 kernels of no op of the model (gemm_input_reshape x6, "
	                      "gemm_output_reshape x6, SkipLayerNormalization x4) added to the "
	                      "kernel they serve)\n"),
	          "%s", out);
	cr_assert(strstr(out, "coverage       92 ops measured, 0 modelled"), "%s", out);
	free(out);
	free(err);
}

/* Every report says where the costs came from: solve, bounds
 * and eval, as text and as JSON; a DOT file's own numbers say nothing. */
Test(onnx, every_report_says_where_the_costs_came_from)
{
	char part[256];
	ts_tpath(part, sizeof part, "r18.json");
	json_t *s = ts_run_json(
	        0, "solve --json samples/h100/onnx/resnet18.onnx -k 2 --device h100 -o %s", part);
	cr_assert_str_eq(ts_jstr(s, "costs"), "every op from the h100 model at fp16");
	json_decref(s);
	json_t *b =
	        ts_run_json(0, "bounds --json samples/h100/onnx/resnet18.onnx -k 2 --device h100 "
	                       "--rungs simple --times samples/h100/ort/resnet18.ort-noopt.json");
	cr_assert(strstr(ts_jstr(b, "costs"), "measured 49 of 49 ops"), "%s", ts_jstr(b, "costs"));
	json_decref(b);
	char *out, *err;
	cr_assert_eq(
	        ts_runf(&out, &err, "eval samples/h100/onnx/resnet18.onnx %s --device h100", part),
	        0, "%s", err);
	cr_assert(strstr(out, "\ncosts: every op from the h100 model at fp16\n"), "%s", out);
	free(out);
	free(err);
	json_t *d = ts_run_json(0, "solve --json samples/paper/figure2.dot -k 2");
	cr_assert_null(json_object_get(d, "costs"));
	json_decref(d);
}

/* squeezenet1_1 as torch exports it (samples/torchvision): 83
 * nodes, 18 of them Identity sources for de-duplicated weights, which the
 * exact DP could not handle (more than a million ideals).  Folded, the
 * importer keeps every other node as an op, charges the initializers'
 * bytes (FACTS.json, from the onnx package) exactly once, and the exact
 * DP proves an optimum at once. */
Test(onnx, squeezenet_folds_its_identities)
{
	json_error_t jerr;
	json_t *facts = json_load_file("samples/torchvision/FACTS.json", 0, &jerr);
	cr_assert_not_null(facts, "%s", jerr.text);
	json_t *f = ts_jget(facts, "squeezenet1_1");
	json_t *info = ts_run_json(
	        0, "info --json --precision fp32 samples/torchvision/squeezenet1_1.onnx");
	json_t *o = ts_jget(info, "onnx");
	cr_assert_eq(ts_jint(o, "folded_ops"), ts_jint(f, "identity_of_initializer"));
	cr_assert_eq(ts_jint(f, "identity_of_initializer"), 18);
	cr_assert_eq(ts_jint(info, "ops"), ts_jint(f, "nodes") - 18);
	cr_assert_eq(ts_jnum(info, "total_param"), ts_jnum(f, "initializer_bytes"));
	cr_assert(ts_jnum(ts_jget(info, "contraction"), "ideals_before") <=
	          2 * ts_jint(info, "ops"));
	json_decref(info);
	json_decref(facts);
	json_t *s = ts_run_json(
	        0,
	        "solve --json samples/torchvision/squeezenet1_1.onnx -k 4 -m exact --device h100");
	cr_assert(json_is_true(ts_jget(s, "optimal")));
	json_decref(s);
}

/* Pictures say where the costs came from too: the stage graph's caption. */
Test(onnx, the_picture_says_where_the_costs_came_from)
{
	char part[256], svg[256];
	ts_tpath(part, sizeof part, "r18.json");
	ts_tpath(svg, sizeof svg, "r18.svg");
	json_decref(ts_run_json(
	        0, "solve --json samples/h100/onnx/resnet18.onnx -k 3 --device h100 -o %s", part));
	const char *how[] = {"", " --times samples/h100/ort/resnet18.ort-opt.json"};
	const char *want[] = {"costs: h100 model at fp16", "costs: measured 100% (resnet18.ort"};
	for (int i = 0; i < 2; i++) {
		char *out, *err;
		cr_assert_eq(
		        ts_runf(&out, &err,
		                "render samples/h100/onnx/resnet18.onnx %s --device h100%s -o %s",
		                part, how[i], svg),
		        0, "%s", err);
		free(out);
		free(err);
		char *text = ts_slurp(svg, NULL);
		cr_assert_not_null(text);
		cr_assert(strstr(text, want[i]), "no '%s' in the picture", want[i]);
		free(text);
	}
}

/* swin_t as torch exports it (samples/torchvision): 6357 nodes,
 * its window pads computed from constants through Mod, a reversing Slice,
 * Transpose, Reshape and Cast.  Every op costed, the shape arithmetic
 * folded, the FLOPs twice torchvision's published multiply-accumulates
 * (FACTS.json) within 3 %, and the exact DP proves an optimum. */
Test(onnx, swin_t_costs_every_op_and_folds_its_shape_arithmetic)
{
	json_error_t jerr;
	json_t *facts = json_load_file("samples/torchvision/FACTS.json", 0, &jerr);
	cr_assert_not_null(facts, "%s", jerr.text);
	json_t *f = ts_jget(facts, "swin_t");
	json_t *info = ts_run_json(0, "info --json samples/torchvision/swin_t.onnx");
	json_t *o = ts_jget(info, "onnx");
	cr_assert_eq(ts_jint(o, "unknown_ops"), 0);
	double macs = ts_jnum(o, "flops") / 2, published = ts_jnum(f, "published_gmacs") * 1e9;
	cr_assert(fabs(macs / published - 1) < 0.03, "%.4g MACs, published %.4g", macs, published);
	cr_assert_lt(ts_jint(info, "ops"), ts_jint(f, "nodes") / 5, "%lld ops of %lld nodes",
	             ts_jint(info, "ops"), ts_jint(f, "nodes"));
	json_decref(info);
	json_decref(facts);
	json_t *s =
	        ts_run_json(0, "solve --json samples/torchvision/swin_t.onnx -k 4 --device h100");
	cr_assert(json_is_true(ts_jget(s, "optimal")));
	json_decref(s);
}

/* Names of an ONNX model.  One that is not UTF-8 once loaded,
 * then failed solve -o as "out of memory" (jansson refuses the key): it is
 * refused at load (tests/bad/MANIFEST), so -o keeps its file.  Names DOT
 * holds (a quote, backslashes, a newline, a tab, ESC, a C1 control, U+00E9)
 * survive info -o g.dot and the load of g.dot, name for name; one DOT
 * cannot hold (a trailing backslash) is refused by info -o, which writes
 * nothing.  The 1000-byte name of the op of unknown type is bounded in
 * the warning.  tests/data/onnx_odd_names.onnx and the bad models are made
 * by scripts/make_onnx_names.py. */
Test(onnx, names_load_write_and_read_back_or_are_refused)
{
	char keep[256], *out, *err;
	ts_tpath(keep, sizeof keep, "keep.json");
	ts_write_text(keep, "keep");
	int st = ts_runf(&out, &err, "solve tests/bad/onnx_name_not_utf8.onnx -k 2 -o %s", keep);
	cr_assert_eq(st, 2, "%s", err);
	cr_assert(strstr(err, "not valid UTF-8"), "%s", err);
	cr_assert_null(strstr(err, "out of memory"), "%s", err);
	char *kept = ts_slurp(keep, NULL);
	cr_assert_str_eq(kept, "keep");
	free(kept);
	free(out);
	free(err);

	char dot[256], p0[256], p1[256];
	ts_tpath(dot, sizeof dot, "odd.dot");
	ts_tpath(p0, sizeof p0, "odd0.json");
	ts_tpath(p1, sizeof p1, "odd1.json");
	st = ts_runf(&out, &err, "info tests/data/onnx_odd_names.onnx -o %s", dot);
	cr_assert_eq(st, 0, "%s", err);
	cr_assert(strstr(err, "1 op of unknown shape or type cost 0"), "%s", err);
	cr_assert(strstr(err, "LLLL... (1000 bytes)\n"), "%s", err);
	cr_assert_lt(strlen(err), 600, "%s", err);
	free(out);
	free(err);
	cr_assert_eq(ts_runf(NULL, &err, "solve tests/data/onnx_odd_names.onnx -k 2 -o %s", p0), 0,
	             "%s", err);
	free(err);
	cr_assert_eq(ts_runf(NULL, &err, "solve %s -k 2 -o %s", dot, p1), 0, "%s", err);
	free(err);
	json_t *a = json_load_file(p0, 0, NULL), *b = json_load_file(p1, 0, NULL);
	cr_assert(a && b);
	json_t *sa = ts_jget(a, "stages"), *sb = ts_jget(b, "stages");
	cr_assert_eq(json_object_size(sa), 9);
	cr_assert_eq(json_object_size(sb), 9);
	const char *name;
	json_t *v;
	json_object_foreach(sa, name, v)
	        cr_assert(json_object_get(sb, name), "'%s' did not come back from DOT", name);
	cr_assert(json_object_get(sa, "esc\x1b[31m") &&
	          json_object_get(sa, "csi\xc2\x9b"
	                              "31m") &&
	          json_object_get(sa, "two\\\\\"quoted") && json_object_get(sa, "new\nline"));
	json_decref(a);
	json_decref(b);

	char json[256], bad[256];
	ts_tpath(json, sizeof json, "backslash.json");
	ts_tpath(bad, sizeof bad, "backslash.dot");
	ts_write_text(json, "{\"nodes\": [{\"id\": 1, \"name\": \"end\\\\\", \"fpgaLatency\": 1}], "
	                    "\"edges\": []}\n");
	st = ts_runf(&out, &err, "info %s -o %s", json, bad);
	cr_assert_eq(st, 2, "%s", err);
	cr_assert(strstr(err, "op 'end\\' of "), "%s", err);
	cr_assert(strstr(err, "which DOT cannot hold"), "%s", err);
	cr_assert_str_empty(out);
	cr_assert_eq(access(bad, F_OK), -1, "%s was written", bad);
	free(out);
	free(err);
}
