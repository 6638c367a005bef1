/*
 * test_bench.c - `stagecut bench`: the tables recomputed from the records
 * it writes, the bounds never above the partitions, resuming, parts and
 * merging, ^C, and refusals.
 *
 * Longer than 600 lines: one suite for every way bench runs, resumes,
 * merges and refuses, sharing the scratch directory and the record reader.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/clock.h"
#include "solvers/mip.h"
#include "solvers/testbed.h"
#include "tests/support.h"

static char dir[64];

static void make_dir(void)
{
	ts_make_dir(dir, "sc-bench");
}

static void remove_dir(void)
{
	ts_remove_dir(dir);
}

TestSuite(bench, .init = make_dir, .fini = remove_dir, .timeout = 180);

/* The records of a results file. */
static json_t *records(const char *path)
{
	FILE *f = fopen(path, "r");
	cr_assert(f, "no results file %s", path);
	json_t *all = json_array();
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, f) > 0) {
		json_error_t je;
		json_t *v = json_loads(line, 0, &je);
		cr_assert(v, "%s: a line is not JSON: %s", path, je.text);
		json_array_append_new(all, v);
	}
	free(line);
	fclose(f);
	return all;
}

static double num(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

#define GRAPHS                                                                                     \
	"samples/paper/figure2.dot samples/small/residual.dot "                                    \
	"samples/msr-fiddle/layer/bert24_inference.json"
#define FAST "--methods random-1,brkga-100,dpl,exact -t 20"

Test(bench, tables_are_the_records_geometric_means_and_bounds_hold)
{
	char res[256], *out = NULL, *err = NULL;
	snprintf(res, sizeof res, "%s/r.jsonl", dir);
	int st = ts_runf(&out, &err, "bench " GRAPHS " -k 2,3 " FAST " -j 2 --json -o '%s'", res);
	cr_assert_eq(st, 0, "exit %d: %s", st, err);
	json_t *t = json_loads(out, 0, NULL);
	cr_assert(t, "no JSON: %s", out);
	json_t *recs = records(res);
	cr_assert_eq(json_array_size(recs), 6, "3 graphs x 2 ks = 6 records");
	size_t i;
	json_t *r;
	/* every record: bounds <= every method's bottleneck, exact method
	 * (where it ran) <= every other method */
	json_array_foreach(recs, i, r)
	{
		double upper = num(r, "upper");
		const char *key;
		json_t *v;
		json_object_foreach(json_object_get(r, "rungs"), key, v)
		{
			double lb = num(v, "value");
			if (isfinite(lb) && isfinite(upper))
				cr_assert_leq(lb, upper * (1 + 1e-9),
				              "%s k %lld: rung %s %g > upper %g",
				              json_string_value(json_object_get(r, "graph")),
				              json_integer_value(json_object_get(r, "k")), key, lb,
				              upper);
		}
		double ex =
		        num(json_object_get(json_object_get(r, "methods"), "exact"), "bottleneck");
		json_object_foreach(json_object_get(r, "methods"), key, v)
		{
			double b = num(v, "bottleneck");
			if (isfinite(b)) {
				cr_assert_geq(b, num(r, "simple") * (1 - 1e-9), "%s below simple",
				              key);
				if (isfinite(ex))
					cr_assert_geq(b, ex * (1 - 1e-9), "%s beats the exact DP",
					              key);
			}
		}
	}
	/* Table 2 at k = 3 for brkga-100, recomputed from the records */
	double sum = 0;
	int n = 0;
	json_array_foreach(recs, i, r)
	{
		if (json_integer_value(json_object_get(r, "k")) != 3)
			continue;
		double b = num(json_object_get(json_object_get(r, "methods"), "brkga-100"),
		               "bottleneck");
		if (isfinite(b)) {
			sum += log(b / num(r, "simple"));
			n++;
		}
	}
	cr_assert_gt(n, 0);
	double shown = num(json_object_get(json_object_get(t, "table2"), "brkga-100"), "3");
	cr_assert_float_eq(shown, exp(sum / n), 1e-9);
	/* Table 1 rows never exceed 1; the exact rung proves these small ones */
	json_t *exact = json_object_get(json_object_get(t, "table1"), "exact");
	cr_assert_float_eq(num(exact, "2"), 1, 1e-9);
	cr_assert_float_eq(num(exact, "3"), 1, 1e-9);
	cr_assert_leq(num(json_object_get(json_object_get(t, "table1"), "simple"), "3"), 1);
	json_decref(recs);
	json_decref(t);
	free(out);
	free(err);

	/* a rerun with the same file and options runs nothing new */
	st = ts_runf(&out, &err, "bench " GRAPHS " -k 2,3 " FAST " -o '%s'", res);
	cr_assert_eq(st, 0);
	cr_assert(strstr(err, "6 already in") && strstr(err, "0 to run"), "%s", err);
	recs = records(res);
	cr_assert_eq(json_array_size(recs), 6, "nothing appended");
	json_decref(recs);
	free(out);
	free(err);
}

Test(bench, parts_merge_into_the_whole)
{
	char whole[256], p1[256], p2[256], *a = NULL, *b = NULL;
	snprintf(whole, sizeof whole, "%s/w.jsonl", dir);
	snprintf(p1, sizeof p1, "%s/p1.jsonl", dir);
	snprintf(p2, sizeof p2, "%s/p2.jsonl", dir);
	cr_assert_eq(ts_runf(NULL, NULL, "bench " GRAPHS " -k 2,3 " FAST " -o '%s'", whole), 0);
	cr_assert_eq(ts_runf(NULL, NULL, "bench " GRAPHS " -k 2,3 " FAST " --part 1/2 -o '%s'", p1),
	             0);
	cr_assert_eq(ts_runf(NULL, NULL, "bench " GRAPHS " -k 2,3 " FAST " --part 2/2 -o '%s'", p2),
	             0);
	json_t *r1 = records(p1), *r2 = records(p2);
	cr_assert_eq(json_array_size(r1) + json_array_size(r2), 6);
	cr_assert_eq(json_array_size(r1), 3);
	json_decref(r1);
	json_decref(r2);
	cr_assert_eq(ts_runf(&a, NULL, "bench --merge '%s' --json", whole), 0);
	cr_assert_eq(ts_runf(&b, NULL, "bench --merge '%s' '%s' --json", p1, p2), 0);
	json_t *ta = json_loads(a, 0, NULL), *tb = json_loads(b, 0, NULL);
	/* the deterministic parts: bounds and bottlenecks (not the seconds) */
	cr_assert(json_equal(json_object_get(ta, "table1"), json_object_get(tb, "table1")),
	          "Table 1 differs:\n%s\n%s", a, b);
	cr_assert(json_equal(json_object_get(ta, "table2"), json_object_get(tb, "table2")),
	          "Table 2 differs:\n%s\n%s", a, b);
	cr_assert(json_equal(json_object_get(ta, "proven_optimal"),
	                     json_object_get(tb, "proven_optimal")));
	json_decref(ta);
	json_decref(tb);
	free(a);
	free(b);

	/* one file given twice counted its records twice: refused,
	 * by any name of it (another path, a symbolic or a hard link) */
	char sym[256], hard[256], dot[300];
	snprintf(sym, sizeof sym, "%s/sym.jsonl", dir);
	snprintf(hard, sizeof hard, "%s/hard.jsonl", dir);
	snprintf(dot, sizeof dot, "%s/./p1.jsonl", dir);
	cr_assert_eq(symlink(p1, sym), 0);
	cr_assert_eq(link(p1, hard), 0);
	const char *again[] = {p1, dot, sym, hard};
	for (int i = 0; i < 4; i++) {
		char *out, *err;
		int st = ts_runf(&out, &err, "bench --merge '%s' '%s' '%s' --json", p1, p2,
		                 again[i]);
		cr_assert_eq(st, 2, "%s: %s", again[i], err);
		cr_assert_str_empty(out);
		char want[1024];
		snprintf(want, sizeof want,
		         "stagecut: bench: --merge: %s and %s are the same file; give each results "
		         "file once (its records would count twice)\n",
		         p1, again[i]);
		cr_assert_str_eq(err, want);
		free(out);
		free(err);
	}
}

Test(bench, interrupt_stops_workers_and_exits_130)
{
	char res[256], cmd[1024];
	snprintf(res, sizeof res, "%s/i.jsonl", dir);
	snprintf(cmd, sizeof cmd,
	         "%s bench samples/msr-fiddle/operator -k 16 -t 60 -j 2 -o '%s' >'%s/i.out' "
	         "2>'%s/i.err'",
	         ts_program(), res, dir, dir);
	pid_t pid = ts_spawn(cmd, false);
	/* let the workers start their MIPs, then ^C the shell's child */
	sleep(4);
	char pk[256];
	snprintf(pk, sizeof pk, "pkill -INT -f -- '^%s bench samples/msr-fiddle/operator'",
	         ts_program());
	double t0 = sc_clock_now();
	cr_assert_eq(system(pk), 0, "no bench to interrupt");
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	double took = sc_clock_now() - t0;
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 130, "exit %d", WEXITSTATUS(st));
	/* within a second (it used to take up to 45 s), the shell's start aside */
	cr_assert_lt(took, 1.5, "stopped after %.1f s", took);
	char check[512], *out = NULL;
	snprintf(check, sizeof check, "cat '%s/i.err'", dir);
	ts_run(check, &out, NULL);
	cr_assert(strstr(out, "interrupted"), "%s", out);
	cr_assert_null(strstr(out, "could not write"), "%s", out);
	free(out);
	snprintf(check, sizeof check, "pgrep -f -- 'bench sample[s]/msr-fiddle/operator -k 16'");
	cr_assert_neq(system(check), 0, "a worker or solver is still running");
}

Test(bench, refusals)
{
	char res[256], *err = NULL;
	snprintf(res, sizeof res, "%s/bad.jsonl", dir);
	cr_assert_eq(ts_runf(NULL, &err, "bench samples/paper --methods nosuch -o '%s'", res), 2);
	cr_assert(strstr(err, "nosuch"), "%s", err);
	free(err);
	cr_assert_eq(ts_runf(NULL, &err, "bench samples/paper --part 3/2 -o '%s'", res), 2);
	cr_assert(strstr(err, "--part"), "%s", err);
	free(err);
	cr_assert_eq(ts_runf(NULL, &err, "bench samples/paper -k 2,x -o '%s'", res), 2);
	cr_assert(strstr(err, "-k"), "%s", err);
	free(err);
	FILE *f = fopen(res, "w");
	fputs("{\"graph\": \"a\", \"k\": 2, \"config\": \"x\"}\nnot json\n", f);
	fclose(f);
	cr_assert_eq(ts_runf(NULL, &err, "bench samples/paper -k 2 -o '%s'", res), 2);
	cr_assert(strstr(err, "bad.jsonl:2"), "names the file and line: %s", err);
	free(err);
	cr_assert_eq(ts_runf(NULL, &err, "bench --merge '%s/missing.jsonl'", dir), 2);
	cr_assert(strstr(err, "missing.jsonl"), "%s", err);
	free(err);
}

/* A training graph is partitioned like any other: under both schedules the
 * best upper bound is the brute-force optimum of that schedule (by the
 * rules and costs written in tests/support.c), every rung is at or below
 * it, and a schedule given joins the record's config. */
Test(bench, a_training_graph_is_partitioned_under_either_schedule)
{
	sc_graph *g = ts_load("tests/data/fiddle_training.json");
	for (int sched = 0; sched < 2; sched++) {
		char res[256], *err = NULL;
		snprintf(res, sizeof res, "%s/training%d.jsonl", dir, sched);
		cr_assert_eq(ts_runf(NULL, &err,
		                     "bench tests/data/fiddle_training.json -k 2 " FAST
		                     " %s -o '%s'",
		                     sched ? "--schedule gpipe" : "", res),
		             0, "%s", err);
		free(err);
		double opt = ts_brute_optimum_sched(
		        g, 2, sched ? SC_SCHEDULE_GPIPE : SC_SCHEDULE_1F1B, NULL);
		json_t *recs = records(res);
		cr_assert_eq(json_array_size(recs), 1);
		json_t *r = json_array_get(recs, 0);
		cr_assert_null(json_object_get(r, "error"));
		cr_assert(fabs(num(r, "upper") - opt) <= 1e-9 * opt, "upper %g, optimum %g",
		          num(r, "upper"), opt);
		const char *key;
		json_t *v;
		json_object_foreach(json_object_get(r, "rungs"), key, v)
		{
			double lb = num(v, "value");
			cr_assert(!(lb > opt * (1 + 1e-9)), "rung %s %g above %g", key, lb, opt);
		}
		const char *config = json_string_value(json_object_get(r, "config"));
		cr_assert_eq(strstr(config, ";schedule=gpipe") != NULL, sched == 1, "%s", config);
		json_decref(recs);
	}
	sc_graph_free(g);
}

Test(bench, interrupted_solve_reports_its_best_and_exits_130)
{
	char cmd[1024];
	snprintf(cmd, sizeof cmd,
	         "%s solve samples/testbed/regal-er-200-4.dot -k 8 -m brkga -e 1000000000 "
	         "--population 50 >'%s/s.out' 2>'%s/s.err'",
	         ts_program(), dir, dir);
	pid_t pid = ts_spawn(cmd, false);
	sleep(2);
	char pk[256];
	snprintf(pk, sizeof pk, "pkill -INT -f -- '^%s solve samples/testbed/regal-er-200-4'",
	         ts_program());
	cr_assert_eq(system(pk), 0, "no solve to interrupt");
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 130, "exit %d", WEXITSTATUS(st));
	char check[512], *out = NULL;
	snprintf(check, sizeof check, "cat '%s/s.out' '%s/s.err'", dir, dir);
	ts_run(check, &out, NULL);
	cr_assert(strstr(out, "bottleneck ") && strstr(out, "interrupted"), "%s", out);
	free(out);
}

Test(bench, k_above_the_op_count_and_too_little_memory)
{
	/* more stages than ops: a valid partition with empty stages, and the
	 * exact DP still proves it (figure2's optimum for any k >= 4 is 6) */
	char *out = NULL, *err = NULL;
	cr_assert_eq(ts_runf(&out, &err, "solve samples/paper/figure2.dot -k 10 --json"), 0, "%s",
	             err);
	json_t *v = json_loads(out, 0, NULL);
	cr_assert_float_eq(json_real_value(json_object_get(v, "bottleneck")), 6, 1e-9);
	cr_assert_eq(json_array_size(json_object_get(v, "stages")), 10);
	cr_assert(json_is_true(json_object_get(v, "optimal")));
	json_decref(v);
	free(out);
	free(err);
	/* a graph too large for the memory allowed: one line, exit 2 */
	char gpath[256], cmd[1024];
	snprintf(gpath, sizeof gpath, "%s/big.dot", dir);
	cr_assert_eq(ts_runf(NULL, NULL, "gen -n 100000 -s 2 --model ws -o '%s'", gpath), 0);
	snprintf(cmd, sizeof cmd, "ulimit -v 120000; %s info '%s'", ts_program(), gpath);
	int st = ts_run(cmd, &out, &err);
	cr_assert_eq(st, 2, "exit %d: %s", st, err);
	cr_assert(strstr(err, "out of memory"), "%s", err);
	cr_assert_eq(strchr(err, '\n'), err + strlen(err) - 1, "one line: %s", err);
	free(out);
	free(err);
}

/* -B may make a graph's costs too large to compute with where the file's own
 * bandwidth did not: the testbed refuses it as every command does (the same
 * words as solve's), and records why instead of a result. */
Test(bench, a_bandwidth_that_overflows_the_costs_is_refused_as_solve_refuses_it)
{
	char res[256], *err = NULL, *solve_err = NULL;
	snprintf(res, sizeof res, "%s/overflow.jsonl", dir);
	cr_assert_eq(ts_runf(NULL, &solve_err, "solve samples/paper/figure2.dot -k 2 -B 1e-300"),
	             2);
	cr_assert(strstr(solve_err, "too large to compute costs with"), "%s", solve_err);
	cr_assert_eq(ts_runf(NULL, &err,
	                     "bench samples/paper/figure2.dot -k 2 -B 1e-300 " FAST " -o '%s'",
	                     res),
	             2);
	cr_assert(strstr(err, solve_err + strlen("stagecut: ")), "bench: %s\nsolve: %s", err,
	          solve_err);
	free(err);
	free(solve_err);
	json_t *recs = records(res);
	cr_assert_eq(json_array_size(recs), 1);
	json_t *r = json_array_get(recs, 0);
	cr_assert(strstr(json_string_value(json_object_get(r, "error")), "at bandwidth 1e-300"));
	cr_assert_null(json_object_get(r, "methods"), "and holds no result");
	json_decref(recs);
}

/* -t bounds an instance as a whole, methods and rungs together: regal-ba's
 * exact DP at k = 2 alone used to take minutes (one push from the empty
 * ideal makes millions of ideals, and the time limit was looked at only
 * between pushes), and every method and rung had -t of its own. */
Test(bench, the_time_limit_bounds_each_instance_as_a_whole)
{
	char res[256], *err = NULL;
	snprintf(res, sizeof res, "%s/t.jsonl", dir);
	double t0 = sc_clock_now();
	int st = ts_runf(NULL, &err, "bench samples/testbed/regal-ba-100-2.dot -k 2 -t 3 -o '%s'",
	                 res);
	double took = sc_clock_now() - t0;
	cr_assert_eq(st, 0, "exit %d: %s", st, err);
	free(err);
	/* 3 s, the rungs' kill grace and the start: well under 3 s more */
	cr_assert_lt(took, 3 + 3, "took %.1f s", took);
	json_t *recs = records(res);
	cr_assert_eq(json_array_size(recs), 1);
	json_t *r = json_array_get(recs, 0);
	cr_assert_lt(num(r, "seconds"), 3 + SC_TESTBED_GRACE, "%s", json_dumps(r, 0));
	/* every method and rung ran, in the time that was left to it */
	double sum = 0;
	const char *key;
	json_t *v;
	json_object_foreach(json_object_get(r, "methods"), key, v)
	{
		cr_assert(json_is_number(json_object_get(v, "seconds")), "%s refused", key);
		sum += num(v, "seconds");
	}
	cr_assert_lt(sum, 3 * SC_TESTBED_METHODS_SHARE + 0.5, "methods took %.2f s", sum);
	cr_assert_eq(json_object_size(json_object_get(r, "rungs")), SC_RUNG_COUNT);
	json_decref(recs);
}

/* Starts `bench ARGS` in the background in a process group of its own,
 * its output in dir/NAME.out and .err; returns its pid (the program's own:
 * sh execs it), which is also the group's id. */
static pid_t start_bench(const char *name, const char *args)
{
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "exec %s bench %s >'%s/%s.out' 2>'%s/%s.err'", ts_program(), args,
	         dir, name, dir, name);
	return ts_spawn(cmd, true);
}

/* Stops a bench busy with regal-ba's exact DPs by sig, sent to the command
 * alone (as a scheduler sends SIGTERM) or to its process group (as ^C
 * does): the workers stop within a second (they used to go on for
 * minutes), the records written stay, the exit status is status with one
 * message (said) and no blame on the results file. */
static void stop_bench(int sig, bool group, int status, const char *said)
{
	char res[256], args[1024];
	snprintf(res, sizeof res, "%s/stop%d.jsonl", dir, sig);
	/* figure2 is done at once; regal-ba's exact DP then keeps both busy */
	snprintf(args, sizeof args,
	         "samples/paper/figure2.dot samples/testbed/regal-ba-100-2.dot -k 2,3 -t 60 -j 2 "
	         "--methods exact,brkga-100 -o '%s'",
	         res);
	pid_t pid = start_bench("stop", args);
	/* wait for figure2's two records, then let regal-ba's DPs grow */
	for (int i = 0; i < 100; i++) {
		char *text = ts_slurp(res, NULL);
		int lines = 0;
		for (const char *p = text; p && (p = strchr(p, '\n')); p++)
			lines++;
		free(text);
		if (lines >= 2)
			break;
		usleep(100000);
	}
	sleep(2);
	double t0 = sc_clock_now();
	cr_assert_eq(kill(group ? -pid : pid, sig), 0);
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	double took = sc_clock_now() - t0;
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == status, "exit %d", WEXITSTATUS(st));
	cr_assert_lt(took, 1.5, "stopped after %.1f s", took);
	char check[512], *err = NULL;
	snprintf(check, sizeof check, "cat '%s/stop.err'", dir);
	ts_run(check, &err, NULL);
	cr_assert(strstr(err, said), "%s", err);
	cr_assert(strstr(err, "; 2 instances recorded"), "%s", err);
	cr_assert_null(strstr(err, "could not write"), "%s", err);
	cr_assert_null(strstr(err, "worker"), "%s", err);
	free(err);
	/* this test's processes only, by its results file: the other stop
	 * test may run beside it (the bracket keeps pgrep's shell out) */
	char pg[512];
	snprintf(pg, sizeof pg, "pgrep -f -- '%s/[s]top%d.jsonl'", dir, sig);
	cr_assert_neq(system(pg), 0, "a worker or solver is still running");
	/* the records stay, whole, and a rerun skips them */
	json_t *recs = records(res);
	cr_assert_eq(json_array_size(recs), 2);
	json_decref(recs);
	char *out = NULL;
	st = ts_runf(&out, &err,
	             "bench samples/paper/figure2.dot -k 2,3 -t 60 --methods exact,brkga-100 "
	             "-o '%s'",
	             res);
	cr_assert_eq(st, 0, "%s", err);
	cr_assert(strstr(err, "2 already in") && strstr(err, "0 to run"), "%s", err);
	free(out);
	free(err);
}

Test(bench, sigterm_stops_every_worker_within_a_second_and_keeps_the_records)
{
	stop_bench(SIGTERM, false, 143, "stopped by SIGTERM");
}

Test(bench, ctrl_c_stops_every_worker_within_a_second_and_keeps_the_records)
{
	stop_bench(SIGINT, true, 130, "interrupted");
}

/* A results file whose last record was cut short (a full disk, a kill
 * mid-write) resumes without the next record glued onto it: the file stays
 * one record per line, readable by --merge. */
Test(bench, an_unfinished_last_record_is_cut_before_resuming)
{
	char res[128];
	snprintf(res, sizeof res, "%s/r.jsonl", dir);
	const char *run = "bench samples/paper/figure2.dot --methods dpl --rungs simple";
	cr_assert_eq(ts_runf(NULL, NULL, "%s -k 2 -o %s", run, res), 0);
	FILE *f = fopen(res, "a");
	cr_assert(f);
	fputs("{\"graph\": \"samples/paper/figure2.dot\", \"k\": 3, \"con", f);
	fclose(f);
	char *err = NULL;
	cr_assert_eq(ts_runf(NULL, &err, "%s -k 2,3 -o %s", run, res), 0, "%s", err);
	cr_assert(strstr(err, "1 already in"), "%s", err);
	free(err);
	json_t *all = records(res);
	cr_assert_eq(json_array_size(all), 2);
	json_decref(all);
	cr_assert_eq(ts_runf(NULL, NULL, "bench --merge %s", res), 0);
}

/* A device as the results file holds nothing to resume: /dev/zero was
 * read for a record forever (21.7 GB), /dev/full is a write error. */
Test(bench, a_device_as_the_results_file_is_written_through, .timeout = 30)
{
	const char *run = "bench samples/paper/figure2.dot -k 2 --methods dpl --rungs simple";
	char *err = NULL;
	cr_assert_eq(ts_runf(NULL, &err, "%s -o /dev/zero", run), 0, "%s", err);
	free(err);
	cr_assert_eq(ts_runf(NULL, &err, "%s -o /dev/full", run), 2, "%s", err);
	cr_assert(strstr(err, "No space left on device"), "%s", err);
	free(err);
}

/* none_fits: true only when it is proven that no partition fits
 * (by a rung or the exact DP), false where the search merely found none.
 * tight_none.dot fits no 4 stages (its exact MIP and DP prove it);
 * tight_feasible.dot does. */
Test(bench, none_fits_only_when_proven)
{
	static const struct {
		const char *methods, *rungs;
		bool none; /* for tight_none.dot */
	} runs[] = {{"brkga", "simple,bottleneck,guess,exact,cover", true},
	            {"exact", "simple", true},
	            {"brkga", "simple", false}};
	for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
		char out[256];
		snprintf(out, sizeof out, "%s/fits%zu.jsonl", dir, i);
		char *o, *e;
		int st = ts_runf(
		        &o, &e,
		        "bench tests/data/tight_none.dot tests/data/tight_feasible.dot -k 4 "
		        "-t 10 --methods %s --rungs %s -o %s",
		        runs[i].methods, runs[i].rungs, out);
		cr_assert_eq(st, 0, "%s", e);
		free(o);
		free(e);
		json_t *all = records(out);
		cr_assert_eq(json_array_size(all), 2);
		size_t j;
		json_t *r;
		json_array_foreach(all, j, r)
		{
			bool none = strstr(json_string_value(json_object_get(r, "name")), "none");
			cr_assert_eq(json_is_true(json_object_get(r, "none_fits")),
			             none && runs[i].none, "%s, --methods %s --rungs %s",
			             json_string_value(json_object_get(r, "name")), runs[i].methods,
			             runs[i].rungs);
		}
		json_decref(all);
	}
}

/* Records no bench run writes (upper 0 under a simple bound of 5, upper
 * -1, k -5) are refused by --merge, naming the file and the record's
 * line, where they were tabled. */
Test(bench, merge_refuses_records_no_run_writes)
{
	char g[256], res[256], bad[256], *err = NULL;
	snprintf(g, sizeof g, "%s/g", dir);
	mkdir(g, 0755);
	snprintf(g, sizeof g, "%s/g/figure2.dot", dir);
	char *text = ts_slurp("samples/paper/figure2.dot", NULL);
	cr_assert(text);
	ts_write_text(g, text);
	free(text);
	snprintf(res, sizeof res, "%s/res.json", dir);
	cr_assert_eq(ts_runf(NULL, NULL, "bench '%s/g' -k 2 %s -o '%s'", dir, FAST, res), 0);
	cr_assert_eq(ts_runf(NULL, NULL, "bench --merge '%s'", res), 0);
	char *line = ts_slurp(res, NULL);
	cr_assert(line);
	const struct {
		const char *from, *to, *says;
	} cases[] = {{"\"upper\":", "\"upper\":0.0,\"was\":", "\"upper\" 0"},
	             {"\"upper\":", "\"upper\":-1,\"was\":", "\"upper\" is not a number >= 0"},
	             {"\"k\":2", "\"k\":-5", "k -5"}};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		char *at = strstr(line, cases[c].from);
		cr_assert(at, "%s", line);
		char edited[16384];
		snprintf(edited, sizeof edited, "%.*s%s%s", (int)(at - line), line, cases[c].to,
		         at + strlen(cases[c].from));
		snprintf(bad, sizeof bad, "%s/bad%zu.json", dir, c);
		/* a good record first: the bad one is on line 2 */
		char two[32768];
		snprintf(two, sizeof two, "%s%s", line, edited);
		ts_write_text(bad, two);
		int st = ts_runf(NULL, &err, "bench --merge '%s'", bad);
		cr_assert_eq(st, 2, "case %zu: exit %d: %s", c, st, err);
		cr_assert(strstr(err, bad) && strstr(err, ":2:") && strstr(err, cases[c].says),
		          "case %zu: %s", c, err);
		free(err);
	}
	free(line);
}

/* A k given twice, a graph named twice (by two spellings), and the results
 * file in the graphs' directory: each instance runs and counts once. */
Test(bench, every_instance_runs_and_counts_once)
{
	char g[256], res[300], *out = NULL, *err = NULL;
	snprintf(g, sizeof g, "%s/tb", dir);
	mkdir(g, 0755);
	snprintf(res, sizeof res, "%s/tb/figure2.dot", dir);
	char *text = ts_slurp("samples/paper/figure2.dot", NULL);
	cr_assert(text);
	ts_write_text(res, text);
	free(text);
	snprintf(res, sizeof res, "%s/x.json", dir);
	int st = ts_runf(NULL, &err, "bench '%s' -k 2,2,2 %s -o '%s'", g, FAST, res);
	cr_assert_eq(st, 2, "exit %d: %s", st, err);
	cr_assert(strstr(err, "k = 2 twice"), "%s", err);
	free(err);
	st = ts_runf(NULL, &err, "bench '%s' '%s/' -k 2 %s -o '%s'", g, g, FAST, res);
	cr_assert_eq(st, 2, "exit %d: %s", st, err);
	cr_assert(strstr(err, "same graph file"), "%s", err);
	free(err);
	cr_assert_neq(access(res, F_OK), 0, "a refused run wrote records");
	/* the results file inside the directory: not read as a graph the
	 * second time */
	snprintf(res, sizeof res, "%s/tb/res.json", dir);
	cr_assert_eq(ts_runf(NULL, NULL, "bench '%s' -k 2 %s -o '%s'", g, FAST, res), 0);
	st = ts_runf(&out, &err, "bench '%s' -k 2,3 %s -o '%s'", g, FAST, res);
	cr_assert_eq(st, 0, "exit %d: %s", st, err);
	free(out);
	free(err);
	json_t *rs = records(res);
	cr_assert_eq(json_array_size(rs), 2, "records: %zu", json_array_size(rs));
	size_t i;
	json_t *r;
	json_array_foreach(rs, i, r)
	{
		cr_assert_null(json_object_get(r, "error"), "an error record");
		cr_assert(strstr(json_string_value(json_object_get(r, "graph")), "figure2.dot"));
	}
	json_decref(rs);
	st = ts_runf(NULL, &err, "bench '%s' -k 2 %s -o '%s'", res, FAST, res);
	cr_assert_eq(st, 2, "exit %d: %s", st, err);
	cr_assert(strstr(err, "results file"), "%s", err);
	free(err);
}

/* A worker killed mid-instance (the OOM killer, a stray kill -9): another
 * takes the rest of its share, so every instance but the one it was on is
 * recorded (its share used to be dropped), and the run says so and exits
 * 2.  Six instances, two workers: figure2's two at once, then regal-ba's
 * and regal-ws's, each busy for its -t. */
Test(bench, a_killed_worker_loses_only_the_instance_it_was_on)
{
	char res[256], args[1024];
	snprintf(res, sizeof res, "%s/killed.jsonl", dir);
	snprintf(args, sizeof args,
	         "samples/paper/figure2.dot samples/testbed/regal-ba-100-2.dot "
	         "samples/testbed/regal-ws-150-3.dot -k 2,3 -t 3 -j 2 --methods exact,brkga-100 "
	         "-r simple -o '%s'",
	         res);
	pid_t pid = start_bench("killed", args);
	for (int i = 0; i < 100; i++) {
		char *text = ts_slurp(res, NULL);
		int lines = 0;
		for (const char *p = text; p && (p = strchr(p, '\n')); p++)
			lines++;
		free(text);
		if (lines >= 2)
			break;
		usleep(100000);
	}
	usleep(800000);
	char cmd[128], *out = NULL;
	snprintf(cmd, sizeof cmd, "pgrep -P %d | head -1", (int)pid);
	ts_run(cmd, &out, NULL);
	int worker = out ? atoi(out) : 0;
	free(out);
	cr_assert_gt(worker, 0, "a worker runs");
	cr_assert_eq(kill(worker, SIGKILL), 0);
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 2, "exit %d", WEXITSTATUS(st));
	char check[512], *err = NULL;
	snprintf(check, sizeof check, "cat '%s/killed.err'", dir);
	ts_run(check, &err, NULL);
	cr_assert(strstr(err, "1 worker ended abnormally"), "%s", err);
	free(err);
	json_t *recs = records(res);
	cr_assert_eq(json_array_size(recs), 5, "%zu records", json_array_size(recs));
	json_decref(recs);
}
