/*
 * test_progress.c - the batch commands' live progress line, which they draw
 * on stderr only when it is a terminal: run in tmux, the exact DP's line
 * shows its ideals and layers while it works (solve and bounds); solve
 * leaves its last line (every ideal filled, every layer done) above the
 * report, bounds clears it before its table.
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/support.h"

/* The InceptionV3-like graph keeps the exact DP busy for a second or two
 * at k = 6 (tens of thousands of ideals, then as many for the balancing
 * pass), long enough to read its line. */
static void make_inception(char *path, size_t size)
{
	snprintf(path, size, "/tmp/stagecut-progress-%d.dot", (int)getpid());
	char *err = NULL;
	cr_assert_eq(ts_runf(NULL, &err, "gen --model inception -s 1 -o '%s'", path), 0, "%s", err);
	free(err);
}

static void dp_line_shows(const char *command, bool keeps_final_line)
{
	char path[128], cmd[512];
	make_inception(path, sizeof path);
	/* k 6: about 1.5 s of DP (k 4 became 0.02 s with the DP's pruning by
	 * the work left, gone before a progress line is drawn) */
	snprintf(cmd, sizeof cmd, "%s %s '%s' -k 6 -m exact", ts_program(), command, path);
	ts_tmux t;
	ts_tmux_start(&t, 160, 12, "TERM=xterm-256color", cmd);
	char *s = ts_tmux_wait(&t, " layers ", 60);
	const char *at = strstr(s, "ideals ");
	cr_assert(at, "%s", s);
	long ideals = 0, done = -1;
	int layers_done = -1, layers = 0;
	cr_assert_eq(sscanf(at, "ideals %ld (%ld done)  layers %d/%d", &ideals, &done, &layers_done,
	                    &layers),
	             4, "%s", s);
	/* counts that cannot be made up: some ideals made, no more filled than
	 * made, and the layers are the sizes 0..units of the graph's ideals */
	cr_assert_gt(ideals, 0, "%s", s);
	cr_assert(done >= 0 && done <= ideals, "%s", s);
	cr_assert(layers > 100 && layers_done >= 0 && layers_done <= layers, "%s", s);
	free(s);
	/* the line goes before the report */
	s = ts_tmux_wait(&t, "EXIT=0", 120);
	cr_assert(strstr(s, "proven optimal"), "%s", s);
	at = strstr(s, "ideals ");
	if (keeps_final_line) {
		/* solve leaves its last line: the DP finished every layer */
		cr_assert(at, "%s", s);
		cr_assert_eq(sscanf(at, "ideals %ld (%ld done)  layers %d/%d", &ideals, &done,
		                    &layers_done, &layers),
		             4, "%s", s);
		cr_assert_eq(done, ideals, "%s", s);
		cr_assert_eq(layers_done, layers, "%s", s);
	} else {
		cr_assert_null(at, "the progress line was left on screen:\n%s", s);
	}
	free(s);
	ts_tmux_stop(&t);
	remove(path);
}

Test(progress, solve_shows_the_exact_dps_ideals_and_layers, .timeout = 180)
{
	dp_line_shows("solve", true);
}

Test(progress, bounds_shows_the_exact_dps_ideals_and_layers, .timeout = 180)
{
	dp_line_shows("bounds --rungs simple", false);
}

/* The workbench's search panel shows the same counts: on ResNet-50's
 * operators at k = 8 the `best` search is the exact DP (its quick
 * partition is above the floor, so the DP runs), and its finished line
 * says every ideal it made was filled, no more ideals than info counts for
 * the graph, and one layer per size 0..units (units as info reports
 * them).  Where the floor proves the quick partition (BERT-3 at k 8) no DP
 * runs and no such line is shown. */
Test(progress, the_workbench_shows_the_exact_dps_ideals_and_layers, .timeout = 60)
{
	const char *g = "samples/msr-fiddle/operator/resnet50_inference.json";
	char *out = NULL;
	cr_assert_eq(ts_runf(&out, NULL, "info %s -k 8", g), 0);
	const char *c = strstr(out, "-> ");
	cr_assert(c, "%s", out);
	c = strstr(c + 3, "-> ");
	cr_assert(c, "%s", out);
	int units = 0;
	long counted = 0;
	cr_assert_eq(sscanf(c, "-> %d units", &units), 1, "%s", out);
	const char *i = strstr(out, "\nideals ");
	cr_assert(i && sscanf(i, "\nideals %ld", &counted) == 1, "%s", out);
	free(out);

	char cmd[512];
	snprintf(cmd, sizeof cmd, "%s %s -k 8", ts_program(), g);
	ts_tmux t;
	ts_tmux_start(&t, 120, 40, "TERM=xterm-256color", cmd);
	char *s = ts_tmux_wait(&t, "best         done", 30);
	const char *at = strstr(s, "ideals ");
	cr_assert(at, "%s", s);
	long made = 0, done = -1;
	int layers_done = -1, layers = 0;
	cr_assert_eq(sscanf(at, "ideals %ld made, %ld done   layers %d/%d", &made, &done,
	                    &layers_done, &layers),
	             4, "%s", s);
	cr_assert(made > 0 && made <= counted, "%ld of %ld\n%s", made, counted, s);
	cr_assert_eq(done, made, "%s", s);
	cr_assert_eq(layers, units + 1, "%s", s);
	cr_assert_eq(layers_done, layers, "%s", s);
	free(s);
	ts_tmux_keys(&t, "Q");
	ts_tmux_stop(&t);
	/* BERT-3 at k 8: proven at the floor, no DP and no DP line */
	snprintf(cmd, sizeof cmd, "%s samples/msr-fiddle/operator/bert_l-3_inference.json -k 8",
	         ts_program());
	ts_tmux_start(&t, 120, 40, "TERM=xterm-256color", cmd);
	s = ts_tmux_wait(&t, "best         done", 30);
	cr_assert(!strstr(s, "ideals "), "%s", s);
	cr_assert(strstr(s, "gap 0.00%"), "%s", s);
	free(s);
	ts_tmux_keys(&t, "Q");
	ts_tmux_stop(&t);
}

/* bench's line names what each worker is on: the graph, k and the method
 * or rung (it used to show only "[0/2] 3 s"). */
Test(progress, bench_names_each_workers_instance_and_phase, .timeout = 60)
{
	char res[128], cmd[512];
	snprintf(res, sizeof res, "/tmp/stagecut-progress-bench-%d.jsonl", (int)getpid());
	remove(res);
	snprintf(cmd, sizeof cmd,
	         "%s bench samples/testbed/regal-ba-100-2.dot -k 2,3 -t 8 -j 2 "
	         "--methods brkga-10000,exact -o '%s'",
	         ts_program(), res);
	ts_tmux t;
	ts_tmux_start(&t, 160, 12, "TERM=xterm-256color", cmd);
	/* a method, then a rung, of both instances: the two workers start one
	 * after the other, so the line may name one before it names both */
	char *s = ts_tmux_wait(&t, "regal-ba-100-2 k=3 ", 20);
	for (int i = 0; i < 100 && !strstr(s, " | regal-ba-100-2 k=2 "); i++) {
		free(s);
		nanosleep(&(struct timespec){.tv_nsec = 100000000}, NULL);
		s = ts_tmux_screen(&t);
	}
	cr_assert(strstr(s, "[0/2] ") && strstr(s, " | regal-ba-100-2 k=2 "), "%s", s);
	free(s);
	s = ts_tmux_wait(&t, "k=3 exact", 20);
	free(s);
	s = ts_tmux_wait(&t, "k=3 rung ", 20);
	free(s);
	s = ts_tmux_wait(&t, "EXIT=0", 30);
	cr_assert_null(strstr(s, "regal-ba-100-2 k="), "the line was left on screen:\n%s", s);
	free(s);
	ts_tmux_stop(&t);
	remove(res);
}
