/*
 * test_signals.c - ^C and SIGTERM in the phases the older signal tests do
 * not reach: while `best` counts a wide graph's ideals before its search
 * starts (solve and bounds), and the exit status after SIGTERM (143).
 * Each run is signalled once it has had time to get there, and must exit
 * within 10 s of the signal having printed what it found; the waits are
 * generous, for a loaded 2-core machine.  Also the size of a report at a
 * large k: its time (CPU seconds, not wall clock) grows linearly.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/support.h"

static char dir[64];

static void make_dir(void)
{
	ts_make_dir(dir, "sc-signals");
}

static void remove_dir(void)
{
	ts_remove_dir(dir);
}

TestSuite(signals, .init = make_dir, .fini = remove_dir, .timeout = 120);

static void nap(double s)
{
	struct timespec t = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
	nanosleep(&t, NULL);
}

/* A Barabasi-Albert graph of 300 ops: its ideals run to tens of millions,
 * so `best` counts them up to its budget before choosing its method (about
 * 2 s here, all of `bounds -r simple`'s run, so a signal goes at 1 s). */
static void wide_graph(char *path, size_t size)
{
	snprintf(path, size, "%s/ba300.dot", dir);
	char *err = NULL;
	int st = ts_runf(NULL, &err, "gen --nodes 300 --model ba -o %s", path);
	cr_assert_eq(st, 0, "gen: %s", err);
	free(err);
}

/* Runs "PROGRAM args > OUT", sends sig after `after` seconds and waits at
 * most 10 s more.  Returns the exit status (-signal when killed by one) and
 * the output in *out (malloc'd). */
static int signalled(const char *args, int sig, double after, char **out)
{
	char cmd[1024], path[128];
	snprintf(path, sizeof path, "%s/out.txt", dir);
	snprintf(cmd, sizeof cmd, "exec %s %s > %s 2>/dev/null", ts_program(), args, path);
	pid_t pid = ts_spawn(cmd, false);
	nap(after);
	kill(pid, sig);
	int st = 0;
	pid_t got = 0;
	for (int i = 0; i < 100 && got == 0; i++) {
		nap(0.1);
		got = waitpid(pid, &st, WNOHANG);
	}
	if (got == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		cr_assert_fail("%s: still running 10 s after signal %d", args, sig);
	}
	*out = ts_slurp(path, NULL);
	cr_assert(*out);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st);
}

Test(signals, solve_interrupted_while_choosing_its_method_prints_the_greedy_split)
{
	char g[128], args[256], *out;
	wide_graph(g, sizeof g);
	snprintf(args, sizeof args, "solve %s -k 4 -t 100000", g);
	int st = signalled(args, SIGINT, 2, &out);
	cr_assert_eq(st, 130, "exit status %d; output: %s", st, out);
	cr_assert(strstr(out, "bottleneck"), "what was found is printed: %s", out);
	free(out);
}

Test(signals, solve_json_after_sigterm_exits_143_with_the_report)
{
	char g[128], args[256], *out;
	wide_graph(g, sizeof g);
	snprintf(args, sizeof args, "solve %s -k 4 -t 100000 --json", g);
	int st = signalled(args, SIGTERM, 2, &out);
	cr_assert_eq(st, 143, "exit status %d; output: %s", st, out);
	json_error_t je;
	json_t *root = json_loads(out, 0, &je);
	cr_assert(root, "the report is whole JSON: %s", je.text);
	cr_assert(json_is_true(json_object_get(root, "feasible")));
	cr_assert(json_is_real(json_object_get(root, "bottleneck")));
	json_decref(root);
	free(out);
}

Test(signals, bounds_interrupted_while_choosing_its_search_prints_the_ladder)
{
	char g[128], args[256], *out;
	wide_graph(g, sizeof g);
	snprintf(args, sizeof args, "bounds %s -k 4 -t 100000 -r simple", g);
	int st = signalled(args, SIGINT, 1, &out);
	cr_assert_eq(st, 130, "exit status %d; output: %s", st, out);
	cr_assert(strstr(out, "upper bound"), "%s", out);
	cr_assert(strstr(out, "simple"), "%s", out);
	free(out);
}

/* The stage report at k 100 000 (all but 6 stages empty) asked each stage
 * questions about every stage: 10 CPU seconds, now 1. */
Test(signals, a_report_with_100000_stages_takes_linear_time)
{
	char *out = NULL, *err = NULL;
	char cmd[512];
	snprintf(cmd, sizeof cmd,
	         "ulimit -t 4; exec %s solve samples/paper/figure2.dot -k 100000 -m kahn --json | "
	         "tail -c 200000 | grep -c '\"stage\": 100000'",
	         ts_program());
	int st = ts_run(cmd, &out, &err);
	cr_assert_eq(st, 0, "exit %d (over 4 CPU seconds?): %s", st, err);
	cr_assert_eq(atoi(out), 1, "the last stage is reported: %s", out);
	free(out);
	free(err);
}

/* A million stages (all but a few empty) take seconds to write: ^C while
 * the -o file is made stops it at once (it was obeyed only once 248 MB were
 * written, 12 s later), writes nothing, and the text report still comes,
 * with 130; while --json's report is made, nothing half made is printed. */
Test(signals, a_million_stage_partition_is_not_written_after_sigint)
{
	char args[256], big[128], *out;
	snprintf(big, sizeof big, "%s/big.json", dir);
	snprintf(args, sizeof args, "solve samples/paper/figure2.dot -k 1000000 -t 2 -o %s", big);
	int st = signalled(args, SIGINT, 1, &out);
	cr_assert_eq(st, 130, "exit status %d; output: %s", st, out);
	cr_assert(strstr(out, "bottleneck"), "the report is printed: %s", out);
	cr_assert_neq(access(big, F_OK), 0, "%s was written", big);
	free(out);
	snprintf(args, sizeof args, "solve samples/paper/figure2.dot -k 1000000 -t 2 --json");
	st = signalled(args, SIGINT, 1, &out);
	cr_assert_eq(st, 130, "exit status %d", st);
	cr_assert_str_eq(out, "", "half a JSON report: %.200s", out);
	free(out);
}
