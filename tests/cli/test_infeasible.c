/*
 * test_infeasible.c - what the reports say when no partition fits (a hard
 * memory limit below what resnet50's stages need): that nothing fits is
 * said by explicit keys (feasible false, a rung's infeasible true), never
 * by a null alone, and no word speaks of an upper bound that does not
 * exist (an outside tester: rung values null with status "optimal", "the
 * upper bound was proven optimal" with none, optimal_within null on a
 * proof).
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support.h"

#define TIGHT "samples/onnx/resnet50.onnx -k 2 -M 1e6 --memory-policy hard"

TestSuite(infeasible, .timeout = 120);

Test(infeasible, bounds_says_nothing_fits_by_keys_and_words)
{
	json_t *j = ts_run_json(1, "bounds " TIGHT " --all-rungs -t 30 --json");
	cr_assert(json_is_false(ts_jget(j, "feasible")));
	cr_assert(json_is_null(ts_jget(j, "upper_bound")));
	json_t *rungs = ts_jget(j, "rungs");
	int infeasible = 0;
	for (size_t i = 0; i < json_array_size(rungs); i++) {
		json_t *ri = json_array_get(rungs, i);
		bool inf = json_is_true(json_object_get(ri, "infeasible"));
		json_t *v = json_object_get(ri, "value");
		/* a null value is explained: the rung proved that nothing fits */
		cr_assert(inf == json_is_null(v), "rung %s: value %s, infeasible %d",
		          json_string_value(json_object_get(ri, "name")),
		          json_is_null(v) ? "null" : "a number", inf);
		infeasible += inf;
	}
	cr_assert_gt(infeasible, 0, "no rung proved it");
	json_decref(j);
	/* stopped at the proof: no upper bound is called optimal */
	char *out, *err;
	cr_assert_eq(ts_runf(&out, &err, "bounds " TIGHT " -t 30"), 1);
	cr_assert_null(strstr(out, "upper bound was proven optimal"), "%s", out);
	cr_assert(strstr(out, "no partition fits, proven by the exact DP"), "%s", out);
	free(out);
	free(err);
}

Test(infeasible, solve_says_how_exact_the_proof_that_nothing_fits_is)
{
	json_t *j = ts_run_json(1, "solve " TIGHT " --json");
	cr_assert(!ts_jbool(j, "feasible"));
	cr_assert(ts_jbool(j, "optimal"));
	cr_assert_str_eq(ts_jstr(j, "proven_by"), "exact DP");
	cr_assert(json_is_number(ts_jget(j, "optimal_within")), "optimal_within null on a proof");
	cr_assert_float_eq(ts_jnum(j, "optimal_within"), 0, 1e-15);
	json_decref(j);
}
