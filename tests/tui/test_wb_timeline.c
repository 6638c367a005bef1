/*
 * test_wb_timeline.c - the timeline view (4) driven in tmux: on figure2 at
 * 80x24 it shows one lane per stage and the figures, with the period of the
 * file's own partition (its bottleneck, 8: hand-checked in figure2.dot and
 * what `stagecut eval --timeline` gives); a hand move in the node browser
 * changes it live; the cursor reads a segment's start and end.
 */
#define _XOPEN_SOURCE 700 /* mkdtemp */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/support.h"

Test(wb_timeline, figure2_lanes_figures_cursor_and_a_hand_move, .timeout = 30)
{
	ts_tmux t;
	char cmd[512], env[160], dir[] = "/tmp/sc-wbtl-XXXXXX";
	/* a state directory of its own: no recovery file of an earlier run
	 * (this test leaves an edited partition) is offered at the start */
	cr_assert(mkdtemp(dir));
	snprintf(env, sizeof env, "NO_COLOR=1 TERM=xterm XDG_STATE_HOME=%s", dir);
	snprintf(cmd, sizeof cmd, "%s samples/paper/figure2.dot", ts_program());
	ts_tmux_start(&t, 80, 24, env, cmd);
	free(ts_tmux_wait(&t, "(exact DP)", 10));
	ts_tmux_keys(&t, "4");
	char *s = ts_tmux_wait(&t, "micro-batches", 5);
	/* k = 3 lanes, the bottleneck (stage 2) marked, and the figures: the
	 * period of 1F1B/inference is the bottleneck, 8 */
	cr_assert(strstr(s, "6 micro-batches"), "%s", s);
	cr_assert(strstr(s, "   1  "), "%s", s);
	cr_assert(strstr(s, "*  2  "), "%s", s);
	cr_assert(strstr(s, "   3  "), "%s", s);
	cr_assert(strstr(s, "period 8.0000  throughput 0.1250"), "%s", s);
	/* stage 1: micro-batch 0 computes 0-3 (work 1 + 2), sends 3-5, then
	 * micro-batch 1 computes 5-8 */
	cr_assert(strstr(s, "stage 1  micro-batch 0  compute  start 0.0000  end 3.0000"), "%s", s);
	free(s);
	ts_tmux_keys(&t, "Right");
	ts_tmux_keys(&t, "Right");
	/* (settled: a capture taken mid-redraw read "start 5.0000  en.0000") */
	s = ts_tmux_settled(&t, "micro-batch 1  compute", 5);
	cr_assert(strstr(s, "stage 1  micro-batch 1  compute  start 5.0000  end 8.0000"), "%s", s);
	free(s);
	ts_tmux_keys(&t, "Down");
	s = ts_tmux_wait(&t, "stage 2  micro-batch", 5);
	free(s);
	/* a hand move: w (stage 2) to stage 3 makes stage 2 {v} cost 6 and
	 * stage 3 {w, x, y} 3 + 4 = 7, the new bottleneck and period */
	ts_tmux_keys(&t, "2");
	free(ts_tmux_wait(&t, "sorted by stage", 5));
	ts_tmux_keys(&t, "j");
	ts_tmux_keys(&t, "j");
	ts_tmux_keys(&t, "j");
	ts_tmux_keys(&t, ".");
	free(ts_tmux_wait(&t, "bottleneck 7.0000", 5));
	ts_tmux_keys(&t, "4");
	s = ts_tmux_wait(&t, "period 7.0000", 5);
	cr_assert(strstr(s, "*  3  "), "the bottleneck lane moved to stage 3:\n%s", s);
	free(s);
	/* quit (anyway: the edit is not to be saved) and wait for the
	 * workbench to be gone, so that nothing writes into dir while it is
	 * removed (removing it under a workbench still writing its recovery
	 * file failed the suite twice) */
	ts_tmux_keys(&t, "q");
	for (int i = 0; i < 100; i++) {
		char *q = ts_tmux_screen(&t);
		bool asked = q && strstr(q, "unsaved changes"), gone = q && strstr(q, "EXIT=");
		free(q);
		if (asked)
			ts_tmux_keys(&t, "q Enter");
		if (asked || gone)
			break;
		nanosleep(&(struct timespec){.tv_nsec = 50000000}, NULL);
	}
	free(ts_tmux_wait(&t, "EXIT=", 10));
	ts_tmux_stop(&t);
	char rm[200];
	snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
	cr_assert_eq(system(rm), 0, "could not remove %s", dir);
}
