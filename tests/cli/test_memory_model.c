/*
 * test_memory_model.c - what a stage holds, through the commands
 * (activations.h, training.h; stagecut(1), Memory per stage): --training
 * on an ONNX export, the memory object's parts against the rules the
 * man page states (gradients as large as the parameters, the optimizer's
 * bytes per parameter at the model's precision, in_flight = k - s + 1 under
 * 1F1B), a partition made for inference evaluated in training, solve
 * honouring a hard limit on the whole memory, and --optimizer without
 * --training refused.
 */
#define _XOPEN_SOURCE 700
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support.h"

#define RESNET "samples/onnx/resnet50.onnx"

TestSuite(memory_model, .init = ts_scratch_init, .fini = ts_scratch_fini, .timeout = 120);

/* Each stage's parts add up to its total, and follow the rules: fp16
 * parameters (2 bytes) with adam keep 2 bytes of gradient and 12 of
 * optimizer state (fp32 master copy and two moments) per parameter, sgd
 * 4 (the master copy); stage s of k holds k - s + 1 micro-batches. */
static void check_parts(json_t *r, int k, double opt_per_param_byte)
{
	json_t *stages = ts_jget(r, "stages");
	cr_assert_eq((int)json_array_size(stages), k);
	for (int s = 0; s < k; s++) {
		json_t *m = ts_jget(json_array_get(stages, (size_t)s), "memory");
		double params = ts_jnum(m, "params"), grads = ts_jnum(m, "grads");
		double opt = ts_jnum(m, "optimizer"), stash = ts_jnum(m, "stash_per_microbatch");
		double peak = ts_jnum(m, "working_peak"), total = ts_jnum(m, "total");
		long long fl = ts_jint(m, "in_flight");
		cr_assert(params > 0 && stash > 0 && peak > 0, "stage %d: %g %g %g", s + 1, params,
		          stash, peak);
		cr_assert_eq(grads, params, "stage %d", s + 1);
		cr_assert(ts_close_rel(opt, params * opt_per_param_byte, 1e-12), "stage %d: %g",
		          s + 1, opt);
		cr_assert_eq(fl, k - s, "stage %d in flight %lld", s + 1, fl);
		cr_assert(ts_close_rel(total, params + grads + opt + stash * (double)fl + peak,
		                       1e-12),
		          "stage %d total", s + 1);
		cr_assert(ts_close_rel(ts_jnum(json_array_get(stages, (size_t)s), "param"), params,
		                       1e-12));
	}
}

Test(memory_model, training_from_an_onnx_export)
{
	char p[256];
	ts_tpath(p, sizeof p, "r4.json");
	json_t *r = ts_run_json(0, "solve " RESNET " -k 4 -o %s --json", p);
	json_decref(r);
	/* the inference partition names the forward ops alone: each backward
	 * op goes with its forward op */
	r = ts_run_json(0, "eval " RESNET " %s --training --json", p);
	cr_assert(strstr(ts_jstr(r, "graph"), "training"));
	check_parts(r, 4, 6);
	json_decref(r);
	r = ts_run_json(0, "eval " RESNET " %s --training --optimizer sgd --json", p);
	check_parts(r, 4, 2);
	json_decref(r);
	/* inference: parameters and the working peak alone */
	r = ts_run_json(0, "eval " RESNET " %s --json", p);
	json_t *m = ts_jget(json_array_get(ts_jget(r, "stages"), 0), "memory");
	cr_assert_eq(ts_jnum(m, "stash_per_microbatch"), 0);
	cr_assert_eq(ts_jnum(m, "grads"), 0);
	cr_assert_eq(ts_jint(m, "in_flight"), 1);
	cr_assert(ts_close_rel(ts_jnum(m, "total"),
	                       ts_jnum(m, "params") + ts_jnum(m, "working_peak"), 1e-12));
	json_decref(r);
}

/* The stash of the first stage is what its forward ops save: more
 * micro-batches in flight under GPipe than under 1F1B for the last stage,
 * the same bytes per micro-batch. */
Test(memory_model, microbatches_in_flight_by_schedule)
{
	char p[256];
	ts_tpath(p, sizeof p, "r2.json");
	json_decref(ts_run_json(0, "solve " RESNET " -k 2 -o %s --json", p));
	json_t *a = ts_run_json(0, "eval " RESNET " %s --training --json", p);
	json_t *b = ts_run_json(
	        0, "eval " RESNET " %s --training --schedule gpipe --microbatches 6 --json", p);
	for (int s = 0; s < 2; s++) {
		json_t *ma = ts_jget(json_array_get(ts_jget(a, "stages"), (size_t)s), "memory");
		json_t *mb = ts_jget(json_array_get(ts_jget(b, "stages"), (size_t)s), "memory");
		cr_assert_eq(ts_jint(ma, "in_flight"), 2 - s);
		cr_assert_eq(ts_jint(mb, "in_flight"), 6);
		cr_assert_eq(ts_jnum(ma, "stash_per_microbatch"),
		             ts_jnum(mb, "stash_per_microbatch"));
	}
	json_decref(a);
	json_decref(b);
}

/* solve under a hard limit on the whole memory: every stage of its
 * partition fits, and the memory-reserve takes from the limit. */
Test(memory_model, solve_keeps_every_stage_within_the_limit)
{
	json_t *r = ts_run_json(0, "solve " RESNET " --training -k 4 -M 2.4e8 --memory-reserve "
	                           "2e7 --memory-policy hard --json");
	cr_assert(ts_jbool(r, "feasible"));
	json_t *stages = ts_jget(r, "stages");
	for (size_t s = 0; s < json_array_size(stages); s++) {
		json_t *m = ts_jget(json_array_get(stages, s), "memory");
		cr_assert_eq(ts_jnum(m, "limit"), 2.2e8);
		cr_assert(ts_jnum(m, "total") <= 2.2e8, "stage %zu: %g", s + 1,
		          ts_jnum(m, "total"));
	}
	json_decref(r);
}

Test(memory_model, optimizer_needs_training)
{
	char *out, *err;
	cr_assert_eq(ts_runf(&out, &err, "solve " RESNET " -k 2 --optimizer adam"), 2);
	cr_assert(strstr(err, "--optimizer: give --training too"), "%s", err);
	free(out);
	free(err);
	cr_assert_eq(ts_runf(&out, &err, "solve " RESNET " -k 2 --training --optimizer adamw"), 2);
	cr_assert(strstr(err, "'adamw' is not 'adam', 'momentum' or 'sgd'"), "%s", err);
	free(out);
	free(err);
}
