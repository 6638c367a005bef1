/*
 * test_bounds_dp.c - `stagecut bounds -p` with the exact DP over ideals
 * (DESIGN.md section 3: where it completes it proves the optimum): the DP
 * runs before the rungs, your partition's gap is then its exact distance
 * from the optimum, the DP's partition is the better one when yours is not
 * optimal, and each rung stopped at that proof says what was proven about
 * your partition, never that "the upper bound was proven optimal" when a
 * better one exists.  Also k from the partition file when -k is absent,
 * and the JSON keys that say what is known (null only when unknown).
 *
 * The optima are solve's (its default method is the exact DP on these
 * graphs, proven_by "exact DP"), not numbers copied from a run of bounds.
 */
#include "tests/cli/cli_test.h"

TestSuite(bounds_dp, .init = ts_scratch_init, .fini = ts_scratch_fini);

/* solve's proven optimum of file at k (extra options after), checking that
 * the exact DP proved it. */
static double dp_optimum(const char *file, int k, const char *extra)
{
	json_t *r = ts_run_json(0, "solve %s -k %d %s --json", file, k, extra);
	cr_assert_str_eq(ts_jstr(r, "proven_by"), "exact DP", "%s k %d", file, k);
	double v = ts_jnum(r, "bottleneck");
	json_decref(r);
	return v;
}

/* A slice partition of file at k into path (ts_dir); its bottleneck. */
static double slice_partition(const char *file, int k, const char *extra, const char *path)
{
	json_t *r = ts_run_json(0, "solve %s -k %d %s -m slice -o %s --json", file, k, extra, path);
	double v = ts_jnum(r, "bottleneck");
	json_decref(r);
	return v;
}

/* Every rung but simple stopped at the DP's proof, never having run, its
 * message want (and never the upper bound's). */
static void assert_rungs_stopped(json_t *root, const char *want)
{
	json_t *arr = ts_jget(root, "rungs"), *r;
	size_t i;
	json_array_foreach(arr, i, r)
	{
		const char *name = ts_jstr(r, "name");
		if (strcmp(name, "simple") == 0)
			continue;
		cr_assert_str_eq(ts_jstr(r, "status"), "stopped_at_proof", "%s", name);
		cr_assert_eq(ts_jnum(r, "seconds"), 0, "%s never ran", name);
		cr_assert_str_eq(ts_jstr(r, "message"), want, "%s", name);
	}
}

/* The case of the report: a slice partition of inceptionv3 at k 8 is
 * 1.03% above the optimum, which the DP proves in well under a second;
 * before, bounds -p -t 30 ran the MIP rungs for the whole 30 s and said
 * "certified gap 1.41%" from the best rung. */
Test(bounds_dp, p_gap_is_the_exact_distance_from_the_dp_optimum, .timeout = 120)
{
	const char *f = "samples/onnx/inception_v3.onnx";
	char part[256], best[256];
	ts_tpath(part, sizeof part, "slice.json");
	ts_tpath(best, sizeof best, "best.json");
	double mine = slice_partition(f, 8, "", part);
	double opt = dp_optimum(f, 8, "");
	cr_assert_gt(mine, opt * (1 + 1e-3), "the slice partition is not optimal here");
	json_t *r = ts_run_json(0, "bounds %s -k 8 -p %s -t 30 -o %s --json", f, part, best);
	cr_assert(ts_close_rel(ts_jnum(r, "partition_bottleneck"), mine, 1e-12));
	cr_assert(ts_close_rel(ts_jnum(r, "optimum"), opt, 1e-12), "optimum %.17g, solve %.17g",
	          ts_jnum(r, "optimum"), opt);
	cr_assert_str_eq(ts_jstr(r, "proven_by"), "the exact DP");
	cr_assert_eq(ts_jnum(r, "optimal_within"), 0);
	cr_assert(ts_close_rel(ts_jnum(r, "lower_bound"), opt, 1e-12));
	cr_assert_str_eq(ts_jstr(r, "lower_bound_by"), "dp");
	double gap = mine / opt - 1;
	cr_assert(ts_close_rel(ts_jnum(r, "partition_gap"), gap, 1e-9), "gap %.17g, want %.17g",
	          ts_jnum(r, "partition_gap"), gap);
	cr_assert(ts_close_rel(ts_jnum(r, "partition_above_optimum"), gap, 1e-9));
	cr_assert(!ts_jbool(r, "partition_optimal"), "a better partition exists");
	cr_assert(ts_close_rel(ts_jnum(r, "better_partition"), opt, 1e-12));
	cr_assert_str_eq(ts_jstr(r, "better_partition_by"), "the exact DP");
	cr_assert(ts_close_rel(ts_jnum(r, "upper_bound"), opt, 1e-12));
	cr_assert(ts_jbool(r, "upper_bound_optimal"));
	cr_assert_lt(ts_jnum(r, "search_seconds"), 7.5, "within the search's quarter of -t");
	char want[160];
	snprintf(want, sizeof want,
	         "stopped: the optimum is %.4f, proven by the exact DP; your partition is %.2f%% "
	         "above it",
	         opt, 100 * gap);
	assert_rungs_stopped(r, want);
	json_decref(r);
	/* -o wrote the optimum, by eval */
	r = ts_run_json(0, "eval %s %s --json", f, best);
	cr_assert(ts_close_rel(ts_jnum(r, "bottleneck"), opt, 1e-12));
	json_decref(r);
	/* the text: no "the upper bound was proven optimal" above "a better
	 * partition exists" */
	char *out, *err;
	cr_assert_eq(ts_runf(&out, &err, "bounds %s -k 8 -p %s -t 30", f, part), 0, "%s", err);
	cr_assert(!strstr(out, "upper bound was proven optimal"), "%s", out);
	cr_assert(strstr(out, want), "%s", out);
	snprintf(want, sizeof want,
	         "certified gap %.2f%% (your partition / best lower bound - 1); the best lower "
	         "bound is the optimum, proven by the exact DP, so the gap is exact\n",
	         100 * gap);
	cr_assert(strstr(out, want), "%s", out);
	snprintf(want, sizeof want, "a better partition exists: %.4f (exact DP), ", opt);
	cr_assert(strstr(out, want), "%s", out);
	free(out);
	free(err);
}

/* vit_b_16 at k 4: its slice partition is optimal; the DP proves it at
 * once (before, the exact MIP had to) and every rung says so of yours.
 * No -k: the partition file's k (4), as eval and render take it. */
Test(bounds_dp, p_optimal_partition_proven_by_the_dp_and_k_from_the_file, .timeout = 120)
{
	const char *f = "samples/onnx/vit_b_16.onnx";
	char part[256];
	ts_tpath(part, sizeof part, "vit.json");
	double mine = slice_partition(f, 4, "", part);
	double opt = dp_optimum(f, 4, "");
	cr_assert(ts_close_rel(mine, opt, 1e-12), "slice %.17g, optimum %.17g", mine, opt);
	json_t *r = ts_run_json(0, "bounds %s -p %s --json", f, part);
	cr_assert_eq(ts_jint(r, "k"), 4, "the file's k");
	cr_assert(ts_jbool(r, "partition_optimal"));
	cr_assert_eq(ts_jnum(r, "partition_above_optimum"), 0);
	cr_assert_eq(ts_jnum(r, "partition_gap"), 0);
	cr_assert_str_eq(ts_jstr(r, "proven_by"), "the exact DP");
	cr_assert(json_is_null(ts_jget(r, "better_partition")));
	cr_assert(json_is_null(ts_jget(r, "better_partition_by")));
	cr_assert_str_eq(ts_jstr(r, "upper_bound_method"), "partition");
	assert_rungs_stopped(r, "stopped: your partition was proven optimal by the exact DP");
	json_decref(r);
	/* a k that disagrees with the file's is still refused */
	char *out, *err;
	cr_assert_eq(ts_runf(&out, &err, "bounds %s -k 3 -p %s", f, part), 2);
	cr_assert(strstr(err, "k = 4"), "%s", err);
	free(out);
	free(err);
}

/* When the DP cannot finish within the search's budget (a quarter of -t
 * 0.4 on a graph of many ideals) the report says so and nothing is
 * claimed: the optimum and whether yours is optimal are unknown (null). */
Test(bounds_dp, p_when_the_dp_cannot_finish_nothing_is_claimed, .timeout = 60)
{
	const char *f = "samples/testbed/regal-er-200-4.dot";
	char part[256];
	ts_tpath(part, sizeof part, "er.json");
	slice_partition(f, 8, "", part);
	json_t *r = ts_run_json(0, "bounds %s -k 8 -p %s -t 0.4 --rungs simple --json", f, part);
	const char *nulls[] = {"partition_optimal", "partition_above_optimum",
	                       "optimum",           "upper_bound_optimal",
	                       "proven_by",         "better_partition"};
	for (int i = 0; i < 6; i++)
		cr_assert(json_is_null(ts_jget(r, nulls[i])), "%s", nulls[i]);
	cr_assert_str_eq(ts_jstr(r, "lower_bound_by"), "ladder");
	json_decref(r);
	char *out, *err;
	cr_assert_eq(ts_runf(&out, &err, "bounds %s -k 8 -p %s -t 0.4 --rungs simple", f, part), 0);
	cr_assert(strstr(out, "  the exact DP over ideals did not finish within its 0.1 s; the "
	                      "rungs bound the optimum\n"),
	          "%s", out);
	free(out);
	free(err);
	/* without a budget, only where best would run it: not here (the
	 * graph is too wide), so the rungs start at once */
	cr_assert_eq(ts_runf(&out, &err, "bounds %s -k 8 -p %s --rungs simple", f, part), 0);
	cr_assert(strstr(out, "  the exact DP over ideals did not run: more ideals than best runs "
	                      "it on without a time limit (give -t T to try it within a quarter "
	                      "of T); the rungs bound the optimum\n"),
	          "%s", out);
	free(out);
	free(err);
}
