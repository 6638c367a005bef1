/*
 * test_onnx_dynamic.c - models exported with dynamic dims (samples/dynamic):
 * at two settings of N and T, every op is costed, no dim is left
 * underived, and the FLOPs are the hand-counted multiply-accumulates of
 * FACTS.json times two, plus the elementwise ops (at most a fifth more).
 * The model after onnx's shape inference (unk__ dims in value_info) costs
 * what the model before it costs.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tests/support.h"

TestSuite(onnx_dynamic, .init = ts_scratch_init, .fini = ts_scratch_fini, .timeout = 60);

static const int settings[2][2] = {{2, 16}, {4, 32}};

/* info --json of model at N, T: its flops, after checking every op is
 * costed and every dim derived */
static double flops_at(const char *model, int n, int t)
{
	json_t *info =
	        ts_run_json(0, "info --json samples/dynamic/%s --dim N=%d --dim T=%d", model, n, t);
	json_t *o = ts_jget(info, "onnx");
	cr_assert_eq(ts_jint(o, "unknown_ops"), 0, "%s at N=%d T=%d: %lld ops of unknown cost",
	             model, n, t, ts_jint(o, "unknown_ops"));
	cr_assert_eq(json_array_size(ts_jget(o, "underived_dims")), 0,
	             "%s at N=%d T=%d: dims left underived", model, n, t);
	double f = ts_jnum(o, "flops");
	json_decref(info);
	return f;
}

static void check_model(const char *model)
{
	json_error_t jerr;
	json_t *facts = json_load_file("samples/dynamic/FACTS.json", 0, &jerr);
	cr_assert_not_null(facts, "%s", jerr.text);
	json_t *macs = ts_jget(ts_jget(facts, model), "macs");
	for (int i = 0; i < 2; i++) {
		int n = settings[i][0], t = settings[i][1];
		char key[32];
		snprintf(key, sizeof key, "N=%d,T=%d", n, t);
		double want = 2 * ts_jnum(macs, key), got = flops_at(model, n, t);
		cr_assert(got >= want && got <= 1.2 * want,
		          "%s at %s: %.0f FLOPs, the multiply-accumulates make %.0f", model, key,
		          got, want);
	}
	json_decref(facts);
}

Test(onnx_dynamic, transformer_encoder)
{
	check_model("encoder.onnx");
}

Test(onnx_dynamic, lstm)
{
	check_model("lstm.onnx");
}

Test(onnx_dynamic, gru)
{
	check_model("gru.onnx");
}

/* a scripted loop over T: its trip count comes from the input's shape
 * (Shape, Gather), so the body counts T times */
Test(onnx_dynamic, loop_counts_its_body_per_iteration)
{
	check_model("loop.onnx");
}

/* an If on a run-time condition: the slower branch (8 times the other) */
Test(onnx_dynamic, branch_costs_the_slower_branch)
{
	check_model("branch.onnx");
}
Test(onnx_dynamic, gpt_decoder)
{
	check_model("gpt_decoder.onnx");
}

Test(onnx_dynamic, gpt_decoder_after_shape_inference_costs_the_same)
{
	check_model("gpt_decoder_si.onnx");
	for (int i = 0; i < 2; i++) {
		int n = settings[i][0], t = settings[i][1];
		cr_assert_eq(flops_at("gpt_decoder_si.onnx", n, t),
		             flops_at("gpt_decoder.onnx", n, t));
	}
}

/* A --dim naming a dim shape inference derives (unk__0, the length of
 * /Range's output: T) changes nothing: it is warned about, and the report
 * gives the derived value, not the one given (it said unk__0=99, as if
 * used). */
Test(onnx_dynamic, a_dim_derived_from_the_inputs_is_not_taken_from_dim)
{
	char *out = NULL, *err = NULL;
	int st = ts_runf(&out, &err,
	                 "info --json samples/dynamic/gpt_decoder_si.onnx --dim N=2 --dim T=16 "
	                 "--dim unk__0=99");
	cr_assert_eq(st, 0, "%s", err);
	cr_assert(strstr(err, "--dim unk__0=99 changes nothing"), "%s", err);
	json_error_t je;
	json_t *info = json_loads(out, 0, &je);
	cr_assert(info, "%s", je.text);
	cr_assert_eq(json_integer_value(ts_jget(ts_jget(ts_jget(info, "onnx"), "dims"), "unk__0")),
	             16);
	json_decref(info);
	free(out);
	free(err);
}

/* What a --dim builds is made per run, not a weight: the GPT decoder's
 * causal mask (from Range over T) and its positions (a table gathered by
 * T) change with T, its parameters do not (they grew from 2.6 MB at
 * T = 1024 to 34 MB at T = 4096, weights of 0.35 MB at fp16). */
Test(onnx_dynamic, parameters_do_not_grow_with_a_dim)
{
	double p[2];
	const int ts[2] = {64, 4096};
	for (int i = 0; i < 2; i++) {
		json_t *info = ts_run_json(0,
		                           "info --json samples/dynamic/gpt_decoder.onnx --dim N=1 "
		                           "--dim T=%d",
		                           ts[i]);
		p[i] = ts_jnum(info, "total_param");
		double weights = ts_jnum(ts_jget(info, "onnx"), "param_bytes");
		cr_assert(p[i] > 0.45 * weights && p[i] <= 0.55 * weights,
		          "T=%d: %.0f bytes of parameters, %.0f bytes of fp32 weights", ts[i], p[i],
		          weights);
		json_decref(info);
	}
	cr_assert_eq(p[0], p[1]);
}
