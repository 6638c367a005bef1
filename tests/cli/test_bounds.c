/*
 * test_bounds.c - `stagecut bounds` end to end: the ladder's values on the
 * paper's Figure 2 checked by hand (see the comment in tests/unit/test_mip.c:
 * k = 2 gives simple 5 and 9 for every MIP rung; the optimum is 9), the JSON
 * shape, --rungs, --partition with an upper bound the exact MIP improves,
 * infeasible and bad input, and ^C stopping every solver process; stop at
 * proof (by the exact DP, by the exact MIP), k far above the number of ops,
 * and a graph without work.
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/support.h"

#define FIGURE2 "samples/paper/figure2.dot"

static json_t *bounds_json(const char *args, int want)
{
	char cmd[1024], *out, *err;
	snprintf(cmd, sizeof cmd, "%s bounds %s --json", ts_program(), args);
	int st = ts_run(cmd, &out, &err);
	cr_assert_eq(st, want, "%s: exit %d, stderr %s", cmd, st, err);
	json_error_t je;
	json_t *root = json_loads(out, 0, &je);
	cr_assert(root, "%s: not JSON: %s", cmd, out);
	free(out);
	free(err);
	return root;
}

static json_t *rung(json_t *root, const char *name)
{
	json_t *arr = json_object_get(root, "rungs"), *r;
	size_t i;
	json_array_foreach(arr, i, r) if (strcmp(json_string_value(json_object_get(r, "name")),
	                                         name) == 0) return r;
	return NULL;
}

static double num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	cr_assert(json_is_number(v), "%s is not a number", key);
	return json_number_value(v);
}

Test(bounds, figure2_k2_by_hand)
{
	json_t *root = bounds_json(FIGURE2 " -k 2 --all-rungs", 0);
	cr_assert_float_eq(num(root, "upper_bound"), 9.0, 1e-9);
	cr_assert_eq(json_integer_value(json_object_get(root, "k")), 2);
	const char *names[] = {"simple", "bottleneck", "guess", "exact"};
	const double want[] = {5, 9, 9, 9};
	cr_assert_eq(json_array_size(json_object_get(root, "rungs")), 5);
	for (int i = 0; i < 4; i++) {
		json_t *r = json_array_get(json_object_get(root, "rungs"), (size_t)i);
		cr_assert_str_eq(json_string_value(json_object_get(r, "name")), names[i]);
		cr_assert_float_eq(num(r, "value"), want[i], 1e-6, "%s", names[i]);
		cr_assert_float_eq(num(r, "ratio"), want[i] / 9, 1e-6, "%s", names[i]);
		cr_assert_str_eq(json_string_value(json_object_get(r, "status")), "optimal");
		cr_assert_geq(num(r, "seconds"), 0);
	}
	/* the cover relaxation never passes the optimum 9, and here its
	 * search ends within its tolerance (0.2%) of it */
	json_t *cv = json_array_get(json_object_get(root, "rungs"), 4);
	cr_assert_str_eq(json_string_value(json_object_get(cv, "name")), "cover");
	cr_assert_leq(num(cv, "value"), 9.0 + 1e-9);
	cr_assert_geq(num(cv, "value"), 9.0 * (1 - 2.5e-3));
	cr_assert_str_eq(json_string_value(json_object_get(cv, "status")), "optimal");
	json_t *solves = json_object_get(rung(root, "guess"), "solves");
	cr_assert_eq(json_array_size(solves), 2, "one solve per position j");
	cr_assert_float_eq(num(root, "lower_bound"), 9.0, 1e-6);
	cr_assert_float_eq(num(root, "gap"), 0.0, 1e-6);
	json_decref(root);
}

Test(bounds, rungs_option_selects)
{
	json_t *root = bounds_json(FIGURE2 " -k 3 --rungs simple,exact --all-rungs", 0);
	cr_assert_eq(json_array_size(json_object_get(root, "rungs")), 2);
	cr_assert(rung(root, "simple") && rung(root, "exact") && !rung(root, "guess"));
	cr_assert_float_eq(num(rung(root, "simple"), "value"), 10.0 / 3, 1e-9);
	cr_assert_float_eq(num(rung(root, "exact"), "value"), 7.0, 1e-6);
	json_decref(root);
}

Test(bounds, the_exact_mip_improves_a_given_partition)
{
	/* figure2's own stages cost 5, 8, 5; the optimum for k = 3 is 7 */
	char dir[] = "/tmp/sc-bounds-XXXXXX", path[128];
	cr_assert(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/p.json", dir);
	FILE *f = fopen(path, "w");
	fputs("{\"format\": \"stagecut-partition/1\", \"k\": 3, \"stages\": "
	      "{\"a\": 1, \"u\": 1, \"v\": 2, \"w\": 2, \"x\": 3, \"y\": 3}}\n",
	      f);
	fclose(f);
	char args[256];
	snprintf(args, sizeof args, FIGURE2 " -k 3 --partition %s --rungs simple,exact", path);
	json_t *root = bounds_json(args, 0);
	cr_assert_float_eq(num(root, "upper_bound"), 7.0, 1e-9);
	cr_assert_str_eq(json_string_value(json_object_get(root, "upper_bound_method")), "exact");
	json_decref(root);
	snprintf(args, sizeof args, FIGURE2 " -k 3 --partition %s --rungs simple", path);
	root = bounds_json(args, 0);
	cr_assert_float_eq(num(root, "upper_bound"), 8.0, 1e-9);
	cr_assert_str_eq(json_string_value(json_object_get(root, "upper_bound_method")),
	                 "partition");
	cr_assert_float_eq(num(rung(root, "simple"), "ratio"), 10.0 / 3 / 8, 1e-9);
	json_decref(root);
	unlink(path);
	rmdir(dir);
}

Test(bounds, infeasible_and_bad_input)
{
	char cmd[512], *out, *err;
	/* residual.dot: two 60-byte convolutions and M = 100 hard; k = 2 cannot fit */
	snprintf(cmd, sizeof cmd, "%s bounds samples/small/residual.dot -k 2", ts_program());
	cr_assert_eq(ts_run(cmd, &out, &err), 1, "%s", err);
	cr_assert(strstr(err, "hard memory limit"), "%s", err);
	free(out);
	free(err);
	snprintf(cmd, sizeof cmd, "%s bounds " FIGURE2 " -k 2 --rungs simple,nosuch", ts_program());
	cr_assert_eq(ts_run(cmd, &out, &err), 2);
	cr_assert(strstr(err, "'nosuch'"), "%s", err);
	cr_assert_eq(out[0], '\0');
	free(out);
	free(err);
	snprintf(cmd, sizeof cmd, "%s bounds tests/data/nosuch.dot -k 2", ts_program());
	cr_assert_eq(ts_run(cmd, &out, &err), 2);
	cr_assert(strstr(err, "tests/data/nosuch.dot"), "%s", err);
	free(out);
	free(err);
}

static void nap(double seconds)
{
	struct timespec t = {.tv_sec = (time_t)seconds,
	                     .tv_nsec = (long)((seconds - (double)(time_t)seconds) * 1e9)};
	nanosleep(&t, NULL);
}

static int count_solvers(const char *marker)
{
	char cmd[256], *out;
	/* "[-]-seed" matches "--seed" but not this command line itself */
	snprintf(cmd, sizeof cmd, "pgrep -f -- '[-]%s' | wc -l", marker + 1);
	cr_assert_eq(ts_run(cmd, &out, NULL), 0);
	int n = atoi(out);
	free(out);
	return n;
}

Test(bounds, interrupt_stops_every_solver_and_exits_130, .timeout = 60)
{
	/* a ladder that would run for many minutes; the seed marks its processes */
	const char *marker = "--seed 424242";
	char cmd[512];
	snprintf(cmd, sizeof cmd,
	         "exec %s bounds samples/msr-fiddle/operator/resnet50_inference.json -k 16 --time "
	         "600 --all-rungs "
	         "%s > /tmp/sc-int-out.$$ 2>/dev/null",
	         ts_program(), marker);
	pid_t pid = fork();
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	/* wait until the solver processes run */
	int seen = 0;
	for (int i = 0; i < 100 && seen < 2; i++) {
		nap(0.1);
		seen = count_solvers(marker);
	}
	cr_assert_geq(seen, 2, "the program and at least one solver process run");
	kill(pid, SIGINT);
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 130, "exit status %d",
	          WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st));
	nap(0.2);
	cr_assert_eq(count_solvers(marker), 0, "no solver process is left");
	char path[64], *text = NULL;
	snprintf(path, sizeof path, "/tmp/sc-int-out.%d", (int)pid);
	FILE *f = fopen(path, "r");
	cr_assert(f);
	size_t len = 0;
	cr_assert_neq(getdelim(&text, &len, '\0', f), -1);
	fclose(f);
	unlink(path);
	cr_assert(strstr(text, "cancelled"), "what was found so far is printed: %s", text);
	cr_assert(strstr(text, "simple"), "%s", text);
	free(text);
}

static char *bounds_text(const char *args, int want)
{
	char cmd[1024], *out, *err;
	snprintf(cmd, sizeof cmd, "%s bounds %s", ts_program(), args);
	int st = ts_run(cmd, &out, &err);
	cr_assert_eq(st, want, "%s: exit %d, stderr %s", cmd, st, err);
	free(err);
	return out;
}

Test(bounds, stops_at_proof_by_the_exact_dp)
{
	/* the search (the exact DP) proves 9 optimal: no MIP needs to run */
	json_t *root = bounds_json(FIGURE2 " -k 2", 0);
	cr_assert_str_eq(json_string_value(json_object_get(root, "proven_by")), "the exact DP");
	cr_assert_float_eq(num(root, "gap"), 0.0, 1e-12);
	const char *names[] = {"bottleneck", "guess", "exact"};
	for (int i = 0; i < 3; i++) {
		json_t *r = rung(root, names[i]);
		cr_assert_str_eq(json_string_value(json_object_get(r, "status")),
		                 "stopped_at_proof", "%s", names[i]);
		const char *m = json_string_value(json_object_get(r, "message"));
		cr_assert(m && strstr(m, "proven optimal by the exact DP"), "%s",
		          m ? m : "no message");
		cr_assert_eq(num(r, "seconds"), 0, "%s never ran", names[i]);
		cr_assert_leq(num(r, "value"), 9 + 1e-9, "still a valid bound");
	}
	json_decref(root);
	char *text = bounds_text(FIGURE2 " -k 2", 0);
	cr_assert(strstr(text, "stopped_at_proof") &&
	                  strstr(text, "proven optimal by the exact DP"),
	          "%s", text);
	free(text);
}

Test(bounds, stops_at_proof_by_the_exact_mip, .timeout = 120)
{
	/* bert_l-6 at k = 4 from DPL (no proof): the warm-started exact MIP
	 * proves 27.9186 (REFERENCE.tsv) optimal in about a second, while the
	 * bottleneck and guess rungs would run to their 60 s limits */
	const double opt = 27.9185676799125;
	json_t *root = bounds_json(
	        "samples/msr-fiddle/operator/bert_l-6_inference.json -k 4 -m dpl -t 60", 0);
	cr_assert_float_eq(num(root, "upper_bound"), opt, 1e-6);
	cr_assert_str_eq(json_string_value(json_object_get(root, "proven_by")), "the exact MIP");
	cr_assert_float_eq(num(root, "gap"), 0.0, 1e-6);
	cr_assert_str_eq(json_string_value(json_object_get(rung(root, "exact"), "status")),
	                 "optimal");
	int stopped = 0;
	const char *names[] = {"simple", "bottleneck", "guess", "exact"};
	for (int i = 0; i < 4; i++) {
		json_t *r = rung(root, names[i]);
		cr_assert_leq(num(r, "value"), opt * (1 + 1e-9), "%s above the optimum", names[i]);
		const char *st = json_string_value(json_object_get(r, "status"));
		cr_assert(strcmp(st, "optimal") == 0 || strcmp(st, "stopped_at_proof") == 0,
		          "%s: %s", names[i], st);
		if (strcmp(st, "stopped_at_proof") == 0) {
			stopped++;
			cr_assert(strstr(json_string_value(json_object_get(r, "message")),
			                 "by the exact MIP"));
			cr_assert_lt(num(r, "seconds"), 60, "%s was stopped before its limit",
			             names[i]);
		}
	}
	cr_assert_geq(stopped, 1, "the command ended before the other rungs did");
	json_decref(root);
}

Test(bounds, k_far_above_the_ops_uses_the_stages_that_can_be_non_empty, .timeout = 60)
{
	char dir[] = "/tmp/sc-bounds-XXXXXX", path[128];
	cr_assert(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/p.json", dir);
	FILE *f = fopen(path, "w");
	fputs("{\"format\": \"stagecut-partition/1\", \"k\": 1000000, \"stages\": "
	      "{\"a\": 1, \"u\": 1, \"v\": 2, \"w\": 2, \"x\": 999999, \"y\": 1000000}}\n",
	      f);
	fclose(f);
	char args[256];
	snprintf(args, sizeof args, FIGURE2 " -k 1000000 -p %s -t 5 --all-rungs", path);
	json_t *root = bounds_json(args, 0);
	cr_assert_eq(json_integer_value(json_object_get(root, "k")), 1000000);
	cr_assert_eq(json_integer_value(json_object_get(root, "stages_used")), 6, "6 ops");
	cr_assert_eq(json_array_size(json_object_get(rung(root, "guess"), "solves")), 6);
	/* the best split into 6 (or any more) stages; its own stages cost 8 */
	double ub = num(root, "upper_bound");
	cr_assert_leq(ub, 8 + 1e-9);
	const char *names[] = {"simple", "bottleneck", "guess", "exact"};
	for (int i = 0; i < 4; i++) {
		json_t *r = rung(root, names[i]);
		cr_assert_str_eq(json_string_value(json_object_get(r, "status")), "optimal", "%s",
		                 names[i]);
		cr_assert_leq(num(r, "value"), ub * (1 + 1e-9));
	}
	cr_assert_float_eq(num(root, "gap"), 0.0, 1e-6);
	json_decref(root);
	snprintf(args, sizeof args, FIGURE2 " -k 1000000 -p %s -t 5", path);
	char *text = bounds_text(args, 0);
	cr_assert(strstr(text, "at most 6 of the 1000000 stages can be non-empty"), "%s", text);
	free(text);
	unlink(path);
	rmdir(dir);
}

Test(bounds, a_graph_without_work_has_gap_zero, .timeout = 60)
{
	char dir[] = "/tmp/sc-bounds-XXXXXX", path[128];
	cr_assert(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/zero.dot", dir);
	FILE *f = fopen(path, "w");
	fputs("digraph z { k=3; a [work=0, out=5]; b [work=0]; c [work=0]; a -> b; b -> c; }\n", f);
	fclose(f);
	for (int all = 0; all < 2; all++) {
		char args[256];
		snprintf(args, sizeof args, "%s%s", path, all ? " --all-rungs" : "");
		char *text = bounds_text(args, 0);
		cr_assert(!strstr(text, "nan") && !strstr(text, "inf"), "%s", text);
		cr_assert(strstr(text, "certified gap 0.00%: the upper bound is 0"), "%s", text);
		free(text);
		snprintf(args, sizeof args, "%s --json%s", path, all ? " --all-rungs" : "");
		json_t *root = bounds_json(args, 0);
		cr_assert_eq(num(root, "upper_bound"), 0);
		cr_assert_eq(num(root, "gap"), 0);
		cr_assert(json_is_string(json_object_get(root, "note")));
		const char *names[] = {"simple", "bottleneck", "guess", "exact"};
		for (int i = 0; i < 4; i++) {
			cr_assert_eq(num(rung(root, names[i]), "value"), 0);
			cr_assert_eq(num(rung(root, names[i]), "ratio"), 1, "0 / 0 is proven");
		}
		json_decref(root);
	}
	/* split where the tensor crosses: a bound of 0 proves no ratio */
	snprintf(path, sizeof path, "%s/p.json", dir);
	f = fopen(path, "w");
	fputs("{\"format\": \"stagecut-partition/1\", \"k\": 3, \"stages\": "
	      "{\"a\": 1, \"b\": 2, \"c\": 3}}\n",
	      f);
	fclose(f);
	char args[256];
	snprintf(args, sizeof args, "%s/zero.dot -p %s --rungs simple", dir, path);
	char *text = bounds_text(args, 0);
	cr_assert(strstr(text, "certified gap unbounded") && !strstr(text, "nan"), "%s", text);
	free(text);
	unlink(path);
	snprintf(path, sizeof path, "%s/zero.dot", dir);
	unlink(path);
	rmdir(dir);
}
