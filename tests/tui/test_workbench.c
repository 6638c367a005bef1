/*
 * test_workbench.c - the workbench driven in tmux, as a person would: it
 * opens on a graph, shows the stage table with the bottleneck marked and the
 * costs `stagecut eval` computes, follows a resize, and quits on q.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support.h"

/* The line of the screen that starts with prefix (after spaces), or NULL. */
static const char *line_with(const char *screen, const char *text)
{
	return strstr(screen, text);
}

Test(workbench, opens_on_figure2_and_quits, .timeout = 30)
{
	ts_tmux t;
	char cmd[512];
	snprintf(cmd, sizeof cmd, "%s samples/paper/figure2.dot", ts_program());
	ts_tmux_start(&t, 120, 40, "TERM=xterm-256color", cmd);
	char *s = ts_tmux_wait(&t, "bottleneck", 5);
	cr_assert(line_with(s, "figure2.dot"), "%s", s);
	cr_assert(line_with(s, "6 ops  6 edges  k 3"), "%s", s);
	/* the stage costs of the file's partition (hand-checked in figure2.dot),
	 * the bottleneck row marked with '*' so it shows without colours */
	cr_assert(line_with(s, "bottleneck 8.0000"), "%s", s);
	cr_assert(line_with(s, "*     2      2      4.0000      2.0000      2.0000      0.0000     "
	                       " 8.0000"),
	          "%s", s);
	cr_assert(line_with(s, "      1      2      3.0000      0.0000      2.0000      0.0000     "
	                       " 5.0000"),
	          "%s", s);
	/* the ladder's first rung, the simple bound max(3, 10 / 3) */
	cr_assert(line_with(s, "simple      done                   3.3333"), "%s", s);
	free(s);
	ts_tmux_keys(&t, "q");
	s = ts_tmux_wait(&t, "EXIT=0", 5);
	free(s);
	ts_tmux_stop(&t);
}

Test(workbench, default_sample_small_terminal_resize_no_colour, .timeout = 30)
{
	ts_tmux t;
	ts_tmux_start(&t, 80, 24, "NO_COLOR=1 TERM=vt100", ts_program());
	char *s = ts_tmux_wait(&t, "bert_l-3_inference.json", 5);
	cr_assert(line_with(s, "235 ops  250 edges  k 3"), "%s", s);
	cr_assert(strchr(s, '*'), "the bottleneck is marked without colours:\n%s", s);
	free(s);
	ts_tmux_resize(&t, 100, 30);
	s = ts_tmux_wait(&t, "q quit", 5);
	free(s);
	ts_tmux_keys(&t, "q");
	s = ts_tmux_wait(&t, "EXIT=0", 5);
	free(s);
	ts_tmux_stop(&t);
}

Test(workbench, refuses_without_a_terminal)
{
	char cmd[512], *out, *err;
	snprintf(cmd, sizeof cmd, "%s samples/paper/figure2.dot", ts_program());
	cr_assert_eq(ts_run(cmd, &out, &err), 2);
	cr_assert(strstr(err, "needs a terminal"), "%s", err);
	cr_assert_str_eq(out, "");
	free(out);
	free(err);
}
