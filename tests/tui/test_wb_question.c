/*
 * test_wb_question.c - the practitioner's question, answered for the
 * partition on screen: the header's gap and the tour's verdict
 * are the current partition's (figure2's own partition costs 8, the optimum
 * 7: gap 14.29%, not "stop searching"), and agree with `stagecut bounds
 * --partition` on the saved file; an infeasible partition says why; rungs
 * show no value before they have one; a search the engineer asks for
 * runs at once, pausing a rung, and x stops it alone; the bottleneck's mark is not the cursor's
 * without colours; the bottleneck row stays on an 80x24 screen with 16 stages.
 *
 * Expected numbers come by hand from the samples (figure2.dot's comment:
 * stages 5, 8, 5; the optimum 7, tests/unit/test_mip.c) or from another
 * command of the program (eval, bounds), never from the screen under test.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <criterion/criterion.h>
#include <jansson.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/support.h"

#define FIG2 "samples/paper/figure2.dot"

TestSuite(wb_question, .init = ts_scratch_init, .fini = ts_scratch_fini, .timeout = 90);

/* The environment of every run: recovery files in the scratch directory. */
static const char *env_with(char *buf, size_t size, const char *more)
{
	snprintf(buf, size, "TERM=xterm-256color XDG_STATE_HOME=%s %s", ts_dir, more);
	return buf;
}

/* Starts the workbench in the scratch directory on a graph given relative to
 * the source tree (or absolute), with extra arguments. */
static void start_in_scratch(ts_tmux *t, int cols, int rows, const char *more_env,
                             const char *graph, const char *args)
{
	char prog[4096], root[4096], path[4200], cmd[9000], env[512];
	cr_assert(realpath(ts_program(), prog) && getcwd(root, sizeof root));
	if (graph[0] == '/')
		snprintf(path, sizeof path, "%s", graph);
	else
		snprintf(path, sizeof path, "%s/%s", root, graph);
	snprintf(cmd, sizeof cmd, "sh -c 'cd %s && %s %s %s'", ts_dir, prog, path, args);
	ts_tmux_start(t, cols, rows, env_with(env, sizeof env, more_env), cmd);
}

static void quit_anyway(ts_tmux *t)
{
	ts_tmux_keys(t, "q");
	/* the question about unsaved changes, or the exit: whichever the
	 * screen shows first (read at once, it may show neither yet) */
	for (int i = 0; i < 100; i++) {
		char *s = ts_tmux_screen(t);
		bool asked = s && strstr(s, "unsaved changes"), gone = s && strstr(s, "EXIT=");
		free(s);
		if (asked)
			ts_tmux_keys(t, "q Enter");
		if (asked || gone)
			break;
		nanosleep(&(struct timespec){.tv_nsec = 50000000}, NULL);
	}
	free(ts_tmux_wait(t, "EXIT=", 10));
	ts_tmux_stop(t);
}

/* The line of screen s containing text, copied into buf ("" when none). */
static const char *line_of(const char *s, const char *text, char *buf, size_t size)
{
	buf[0] = '\0';
	const char *p = strstr(s, text);
	if (!p)
		return buf;
	const char *a = p, *b = strchr(p, '\n');
	while (a > s && a[-1] != '\n')
		a--;
	snprintf(buf, size, "%.*s", (int)((b ? b : p + strlen(p)) - a), a);
	return buf;
}

/* Figure 2's own partition costs 8; the exact DP proves 7.  Step 1 of the
 * tour speaks of 8 against the simple bound 10/3: the optimum costs at
 * least 10/3, so it is at most (8 - 10/3) / 8 = 58.3% faster (not 8 / (10/3)
 * - 1 = 140%: nothing is more than 100% faster).  The answer gives its gap
 * 8 / 7 - 1 = 14.29% and sends the engineer to the best found, proven
 * optimal by the exact DP (not "within 1%": its bound is the optimum's);
 * once that is adopted the answer is to stop, it being proven optimal. */
Test(wb_question, the_tour_judges_the_partition_on_screen)
{
	ts_tmux t;
	start_in_scratch(&t, 120, 40, "", FIG2, "");
	char *s = ts_tmux_wait(&t, "stopped: optimum proven by the exact DP", 20);
	char line[512];
	line_of(s, "bottleneck 8.0000", line, sizeof line);
	cr_assert(strstr(line, "bottleneck 8.0000 (stage 2)  lower bound 7.0000 (exact DP)  gap "
	                       "14.29%"),
	          "%s", s);
	cr_assert(strstr(s, "best found 7.0000 (best), 12.5% better: a adopts it"), "%s", s);
	free(s);
	ts_tmux_keys(&t, "t");
	s = ts_tmux_wait(&t, "tour 1/6", 5);
	cr_assert(strstr(s, "By this bound alone, the optimum could be up to 58.3% faster than "
	                    "this partition."),
	          "%s", s);
	cr_assert(strstr(s, "\"Practical Performance Guarantees for Pipelined"), "%s", s);
	free(s);
	ts_tmux_keys(&t, "Enter");
	s = ts_tmux_wait(&t, "tour 2/6", 5);
	cr_assert(strstr(s, "Not needed: the optimum was already proven by the exact DP"), "%s", s);
	free(s);
	ts_tmux_keys(&t, "Enter Enter Enter");
	s = ts_tmux_wait(&t, "tour 5/6", 5);
	cr_assert(strstr(s, "cover (stagecut's own: a set-cover LP)"), "%s", s);
	cr_assert(strstr(s, "Assumes only that each stage is a set of ops costing <= C"), "%s", s);
	cr_assert(strstr(s, "not from the papers: stagecut's own rung"), "%s", s);
	cr_assert(strstr(s, "Not needed: the optimum was already proven by the exact DP"), "%s", s);
	free(s);
	ts_tmux_keys(&t, "Enter");
	s = ts_tmux_wait(&t, "tour 6/6", 5);
	cr_assert(strstr(s, "This partition's bottleneck 8.0000, best lower bound 7.0000 (exact "
	                    "DP): certified gap 14.29%."),
	          "%s", s);
	cr_assert_null(strstr(s, "optimal: stop searching"), "8 is not optimal:\n%s", s);
	cr_assert(strstr(s, "the best found (7.0000) is proven optimal (lower bound: exact DP). "
	                    "Adopt it (a)"),
	          "%s", s);
	cr_assert_null(strstr(s, "within 1%"), "%s", s);
	/* the exact DP's paper, named */
	cr_assert(strstr(s, "paper 001: Tarnawski et al.") && strstr(s, "Efficient Algorithms"),
	          "%s", s);
	free(s);
	/* adopt the best: now this partition is the optimum */
	ts_tmux_keys(&t, "Escape a");
	free(ts_tmux_wait(&t, "bottleneck 7.0000 (stage", 5));
	ts_tmux_keys(&t, "t Enter Enter Enter Enter Enter");
	s = ts_tmux_wait(&t, "tour 6/6", 5);
	cr_assert(strstr(s, "certified gap 0.00%."), "%s", s);
	cr_assert(strstr(s, "This partition is proven optimal (lower bound: exact DP): stop "
	                    "searching."),
	          "%s", s);
	cr_assert(strstr(s, "gap 0.00%"), "%s", s);
	free(s);
	quit_anyway(&t);
}

/* A hand edit (u to stage 2: bottleneck 9), saved: the header's gap is
 * what bounds gives for the saved file with the rungs that keep its
 * partition as the upper bound (the exact rung would replace it with the
 * optimum it finds). */
Test(wb_question, the_header_gap_is_what_bounds_gives_for_the_saved_file)
{
	ts_tmux t;
	start_in_scratch(&t, 120, 40, "", FIG2, "");
	free(ts_tmux_wait(&t, "stopped: optimum proven by the exact DP", 20));
	ts_tmux_keys(&t, "2 j '>'");
	free(ts_tmux_wait(&t, "moved u to stage 2", 5));
	ts_tmux_keys(&t, "1");
	char *screen = ts_tmux_wait(&t, "bottleneck 9.0000", 5);
	ts_tmux_keys(&t, "w");
	free(ts_tmux_wait(&t, "save the partition to:", 5));
	ts_tmux_keys(&t, "Enter");
	free(ts_tmux_wait(&t, "saved to", 5));
	quit_anyway(&t);
	char part[256];
	ts_tpath(part, sizeof part, "figure2-k3.partition.json");
	json_t *b = ts_run_json(
	        0, "bounds --json --rungs simple,bottleneck,guess " FIG2 " -k 3 --partition %s",
	        part);
	/* the exact DP proves the optimum 7 (a better partition): the gap of
	 * yours is partition_gap */
	cr_assert_eq(ts_jnum(b, "partition_bottleneck"), 9.0);
	char want[64];
	snprintf(want, sizeof want, "gap %.2f%%", 100 * ts_jnum(b, "partition_gap"));
	char line[512];
	line_of(screen, "bottleneck 9.0000", line, sizeof line);
	cr_assert(strstr(line, want), "bounds says %s; the header:\n%s", want, line);
	cr_assert(strstr(line, "gap 28.57%"), "9 / 7 - 1:\n%s", line);
	json_decref(b);
	free(screen);
}

/* A hard limit of 13 bytes and a partition holding 6 + 8 = 14 in stage 1:
 * the header says infeasible and why, in eval's words. */
Test(wb_question, an_infeasible_partition_says_why)
{
	char dot[256], part[256], *out;
	ts_write_text(ts_tpath(dot, sizeof dot, "hard.dot"),
	              "digraph hard {\n k = 2; memory = 13; memory_policy = hard;\n"
	              " a [work = 2, param = 6, out = 1, stage = 1];\n"
	              " b [work = 3, param = 8, out = 1, stage = 1];\n"
	              " c [work = 4, param = 3, out = 1, stage = 2];\n"
	              " d [work = 1, param = 2, out = 0, stage = 2];\n"
	              " a -> b -> c -> d;\n}\n");
	ts_write_text(ts_tpath(part, sizeof part, "hard.json"),
	              "{\"format\": \"stagecut-partition/1\", \"k\": 2, \"stages\": {\"a\": 1, "
	              "\"b\": 1, \"c\": 2, \"d\": 2}}");
	cr_assert_eq(ts_runf(&out, NULL, "eval %s %s", dot, part), 1);
	const char *why = strstr(out, "infeasible: ");
	cr_assert(why, "%s", out);
	char want[256];
	snprintf(want, sizeof want, "%.*s", (int)strcspn(why, "\n"), why);
	free(out);
	ts_tmux t;
	start_in_scratch(&t, 120, 30, "", dot, "");
	/* until the search finds a partition that fits, the header adds "no
	 * feasible partition found yet" and is too long for the long form:
	 * wait for the long form itself */
	char *s = ts_tmux_wait(&t, want, 10);
	char line[512];
	line_of(s, "infeasible", line, sizeof line);
	cr_assert(strstr(line, want), "eval: %s\nheader: %s", want, line);
	cr_assert_null(strstr(line, "gap"), "an infeasible partition has no gap:\n%s", line);
	/* the table marks the stage and shows the bytes against the limit */
	cr_assert(strstr(s, "*!    1      2"), "%s", s);
	cr_assert(strstr(s, "14/13"), "%s", s);
	free(s);
	quit_anyway(&t);
	/* 80 columns: shorter, still saying why */
	start_in_scratch(&t, 80, 24, "", dot, "");
	s = ts_tmux_wait(&t, "infeasible", 10);
	cr_assert(strstr(s, "infeasible: stage 1 holds 14 B > limit 13 B"), "%s", s);
	free(s);
	quit_anyway(&t);
}

/* A rung's value from the state column's end: the value cell of the
 * ladder's row (columns 32 to 52), trimmed. */
static const char *rung_value(const char *row, char *buf, size_t size)
{
	buf[0] = '\0';
	if (strlen(row) < 33)
		return buf;
	snprintf(buf, size, "%.20s", row + 32);
	char *p = buf;
	while (*p == ' ')
		p++;
	memmove(buf, p, strlen(p) + 1);
	for (char *e = buf + strlen(buf); e > buf && e[-1] == ' '; e--)
		e[-1] = '\0';
	return buf;
}

/* regal-er-200-4 with 8 stages: no exact DP, so the ladder's MIPs run for
 * many seconds on both cores.  A running rung shows no value, or a bound
 * labelled as one so far, never the simple bound it starts from.  A search
 * the engineer asks for then (S: round after round) does not wait behind
 * them: it runs at once, a rung paused to lend it its core (jobs.h); x
 * stops the search only, and the paused rung runs on, its value still
 * none or one so far; X stops the rungs too. */
Test(wb_question, running_rungs_show_no_value_and_a_search_runs_at_once)
{
	ts_tmux t;
	start_in_scratch(&t, 120, 40, "", "samples/testbed/regal-er-200-4.dot", "-k 8");
	char *s = ts_tmux_wait(&t, "exact       running", 30);
	char row[512], v[64];
	free(s);
	s = ts_tmux_wait(&t, "bottleneck  running", 30);
	line_of(s, "bottleneck  running", row, sizeof row);
	rung_value(row, v, sizeof v);
	cr_assert(strcmp(v, "-") == 0 || strncmp(v, ">= ", 3) == 0,
	          "a running rung's value is '%s':\n%s", v, s);
	line_of(s, "simple      done", row, sizeof row);
	cr_assert(rung_value(row, v, sizeof v)[0] && isdigit((unsigned char)v[0]), "%s", s);
	free(s);
	ts_tmux_keys(&t, "S");
	s = ts_tmux_wait(&t, " paused ", 5);
	cr_assert_null(strstr(s, "queued"), "the search waits for a core:\n%s", s);
	cr_assert(strstr(s, "1 job running, 1 paused") || strstr(s, "2 jobs running, 1 paused"),
	          "the header counts the paused rung:\n%s", s);
	line_of(s, " paused ", row, sizeof row);
	rung_value(row, v, sizeof v);
	cr_assert(strcmp(v, "-") == 0 || strncmp(v, ">= ", 3) == 0, "'%s':\n%s", v, s);
	free(s);
	free(ts_tmux_wait(&t, " evals ", 5)); /* it runs */
	/* x: the search stops, the rungs run on (none cancelled, none paused) */
	ts_tmux_keys(&t, "x");
	s = ts_tmux_wait(&t, "search\n  best         cancelled", 10);
	free(s);
	for (int i = 0; i < 40; i++) {
		s = ts_tmux_screen(&t);
		bool both =
		        s && strstr(s, "bottleneck  running") && strstr(s, "exact       running");
		if (both || i == 39)
			break;
		free(s);
		nanosleep(&(struct timespec){.tv_nsec = 100000000}, NULL);
	}
	cr_assert(strstr(s, "bottleneck  running") && strstr(s, "exact       running"),
	          "x stopped a rung, or left it paused:\n%s", s);
	cr_assert_null(strstr(s, "cancelled the running jobs"), "%s", s);
	cr_assert_null(strstr(s, "bottleneck  cancelled"), "%s", s);
	cr_assert_null(strstr(s, "exact       cancelled"), "%s", s);
	free(s);
	/* X stops the rungs too: cancelled, still no value of their own */
	ts_tmux_keys(&t, "X");
	s = ts_tmux_wait(&t, "exact       cancelled", 10);
	line_of(s, "exact       cancelled", row, sizeof row);
	rung_value(row, v, sizeof v);
	cr_assert(strcmp(v, "-") == 0 || strncmp(v, ">= ", 3) == 0, "'%s':\n%s", v, s);
	free(s);
	quit_anyway(&t);
}

/* Without colours the cursor (reverse video) starts on stage 1 and the
 * bottleneck is stage 2: the header names its stage, its row carries the
 * word, and the * is never inside the cursor's reverse video. */
Test(wb_question, without_colours_the_bottleneck_is_not_the_cursor)
{
	ts_tmux t;
	start_in_scratch(&t, 120, 40, "NO_COLOR=1", FIG2, "");
	char *s = ts_tmux_wait(&t, "bottleneck 8.0000", 10);
	cr_assert(strstr(s, "bottleneck 8.0000 (stage 2)"), "%s", s);
	char row[512];
	line_of(s, "*     2      2", row, sizeof row);
	cr_assert(strstr(row, " bottleneck"), "the word on its row:\n%s", s);
	free(s);
	/* the attributes: the cursor's row begins its reverse video after the
	 * two mark columns, on stage 1 and then on stage 2 */
	char cmd[256], *e;
	for (int sel = 1; sel <= 2; sel++) {
		if (sel == 2) {
			ts_tmux_keys(&t, "j");
			struct timespec nap = {0, 500 * 1000 * 1000};
			nanosleep(&nap, NULL);
		}
		snprintf(cmd, sizeof cmd, "tmux capture-pane -e -p -t %s", t.name);
		cr_assert_eq(ts_run(cmd, &e, NULL), 0);
		char want[32];
		snprintf(want, sizeof want, "%c \033[7m    %d      2", sel == 2 ? '*' : ' ', sel);
		cr_assert(strstr(e, want),
		          "stage %d's row begins the reverse video after '%s ':\n%s", sel,
		          sel == 2 ? "*" : " ", e);
		cr_assert_null(strstr(e, "\033[7m*"), "the * in reverse video:\n%s", e);
		free(e);
	}
	quit_anyway(&t);
}

/* 16 stages in a chain, the heaviest (work 5) the 14th, at 80x24: the
 * table has room for 6 rows; the heading keeps its cost column and the
 * bottleneck row is shown beside stages 1-5. */
Test(wb_question, the_bottleneck_row_stays_on_a_small_screen)
{
	char dot[256], text[4096];
	int len = snprintf(text, sizeof text, "digraph chain16 {\n k = 16;\n");
	for (int i = 1; i <= 16; i++)
		len += snprintf(text + len, sizeof text - (size_t)len,
		                " n%d [work = %d, out = 0, param = %d000000000, stage = %d];\n", i,
		                i == 14 ? 5 : 1, i, i);
	for (int i = 1; i < 16; i++)
		len += snprintf(text + len, sizeof text - (size_t)len, " n%d -> n%d;\n", i, i + 1);
	snprintf(text + len, sizeof text - (size_t)len, "}\n");
	ts_write_text(ts_tpath(dot, sizeof dot, "chain16.dot"), text);
	ts_tmux t;
	start_in_scratch(&t, 80, 24, "NO_COLOR=1", dot, "-M 1.7e10");
	char *s = ts_tmux_wait(&t, "stages 1-5 and 14 of 16", 10);
	cr_assert(strstr(s,
	                 "  stage    ops      work     io in    io out  overflow      cost       "
	                 "param/M\n"),
	          "%s", s);
	cr_assert(strstr(s, "*    14      1    5.0000"), "%s", s);
	cr_assert(strstr(s, "1.4e10/1.7e10\n"), "stage 14's parameters against M:\n%s", s);
	cr_assert(strstr(s, "bottleneck 5.0000 (stage 14)"), "%s", s);
	free(s);
	/* the cursor moves down; the bottleneck stays */
	ts_tmux_keys(&t, "j j j j j j j j");
	s = ts_tmux_wait(&t, "stages 5-9 and 14 of 16", 5);
	cr_assert(strstr(s, "*    14      1"), "%s", s);
	free(s);
	quit_anyway(&t);
}
