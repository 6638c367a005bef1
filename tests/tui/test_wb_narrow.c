/*
 * test_wb_narrow.c - the workbench at 80x24 cuts nothing: every line of the
 * header, the stage list, the search row and the timeline's header is read
 * and each of its words must be a whole word of the same screen drawn 200
 * columns wide (the same program, resized: the wide rendering has room for
 * every text in full), so a word cut at the edge ("ladd", "se") or two
 * texts drawn over each other ("editbest") fail; no such line reaches the
 * last column (where curses would wrap it onto the next row).  A CPU stage
 * is a device of its own and is never scrolled out of the stage list; the
 * timeline's per cent is labelled.
 */
#define _XOPEN_SOURCE 700
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/support.h"

#define REGAL "samples/testbed/regal-er-200-4.dot"

static char state[64];

static void make_state(void)
{
	ts_make_dir(state, "sc-wbnarrow");
}

static void remove_state(void)
{
	ts_remove_dir(state);
}

TestSuite(wbnarrow, .init = make_state, .fini = remove_state);

static void start(ts_tmux *t, const char *args, const char *ready)
{
	char cmd[9000], env[160];
	snprintf(cmd, sizeof cmd, "%s %s", ts_program(), args);
	snprintf(env, sizeof env, "TERM=xterm-256color LANG=C.UTF-8 XDG_STATE_HOME=%s", state);
	ts_tmux_start(t, 80, 24, env, cmd);
	free(ts_tmux_wait(t, ready, 30));
}

static void nap_ms(long ms)
{
	nanosleep(&(struct timespec){.tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000L}, NULL);
}

/* q, and yes to the question about unsaved edits when it is asked. */
static void quit_anyway(ts_tmux *t)
{
	ts_tmux_keys(t, "q");
	for (int i = 0; i < 100; i++) {
		char *s = ts_tmux_screen(t);
		bool asked = s && strstr(s, "unsaved changes"), gone = s && strstr(s, "EXIT=");
		free(s);
		if (asked)
			ts_tmux_keys(t, "q Enter");
		if (asked || gone)
			break;
		nap_ms(50);
	}
	free(ts_tmux_wait(t, "EXIT=", 10));
	ts_tmux_stop(t);
}

/* Row i of screen s (0-based) into buf, "" past the end. */
static const char *row_of(const char *s, int i, char *buf, size_t size)
{
	buf[0] = '\0';
	for (; i > 0 && s; i--) {
		s = strchr(s, '\n');
		s = s ? s + 1 : NULL;
	}
	if (!s)
		return buf;
	size_t n = strcspn(s, "\n");
	snprintf(buf, size, "%.*s", (int)n, s);
	return buf;
}

/* The first row of s (from row from on) that contains text, -1 when none. */
static int row_with(const char *s, const char *text, int from)
{
	char line[1024];
	for (int i = from; i < 200; i++) {
		row_of(s, i, line, sizeof line);
		if (strstr(line, text))
			return i;
	}
	return -1;
}

/* Whether the word w (letters only) is a whole word of screen s: letters
 * around it in s are not letters. */
static bool whole_word_in(const char *s, const char *w, size_t n)
{
	for (const char *p = s; (p = strstr(p, w)) != NULL; p++) {
		bool before = p > s && isalpha((unsigned char)p[-1]);
		bool after = isalpha((unsigned char)p[n]);
		if (!before && !after)
			return true;
	}
	return false;
}

/* Rows first..last of the narrow screen: none reaches column 80, and each
 * word (a run of letters) is a whole word of the wide screen. */
static void check_rows(const char *narrow, const char *wide, int first, int last, const char *what)
{
	char line[1024], word[128];
	for (int i = first; i <= last; i++) {
		row_of(narrow, i, line, sizeof line);
		size_t len = strlen(line);
		while (len > 0 && line[len - 1] == ' ')
			len--;
		cr_assert(len <= 79, "%s, row %d reaches the last column:\n%s", what, i, narrow);
		for (const char *p = line; *p;) {
			if (!isalpha((unsigned char)*p)) {
				p++;
				continue;
			}
			size_t n = 0;
			while (isalpha((unsigned char)p[n]) && n + 1 < sizeof word)
				n++;
			snprintf(word, sizeof word, "%.*s", (int)n, p);
			/* too narrow for the bars, the stage list's legend says
			 * "times in" the unit their heading names */
			bool legend = strcmp(word, "times") == 0 && strstr(line, "times in ");
			cr_assert(legend || whole_word_in(wide, word, n),
			          "%s, row %d: '%s' is no whole word of the wide screen (cut or "
			          "overlapped):\n%s\nwide:\n%s",
			          what, i, word, line, wide);
			p += n;
		}
	}
}

/* The screen now at 80x24, then the same one 200 columns wide (and back). */
static void narrow_and_wide(ts_tmux *t, char **narrow, char **wide)
{
	*narrow = ts_tmux_screen(t);
	ts_tmux_resize(t, 200, 24);
	nap_ms(400);
	*wide = ts_tmux_screen(t);
	ts_tmux_resize(t, 80, 24);
}

/* regal-er-200-4 with 16 stages, two hand edits (the header's fourth row:
 * where the partition came from, and the best found beside it), the search
 * run round after round while the ladder's MIPs run (a rung paused for it):
 * the header, the stage list and the search rows cut nothing at 80x24. */
Test(wbnarrow, the_overview_cuts_nothing_at_80x24)
{
	ts_tmux t;
	start(&t, REGAL " -k 16", "exact       running");
	ts_tmux_keys(&t, "2 j j j \\> \\> 1");
	free(ts_tmux_wait(&t, "edited by hand", 5));
	ts_tmux_keys(&t, "S");
	/* the search runs, a rung paused for it (or, on a tree without that,
	 * it waits in line: the rows are read all the same) */
	for (int i = 0; i < 50; i++) {
		char *s = ts_tmux_screen(&t);
		bool seen = s && (strstr(s, "1 paused") || strstr(s, "in line"));
		free(s);
		if (seen)
			break;
		nap_ms(100);
	}
	nap_ms(300);
	char *narrow, *wide;
	narrow_and_wide(&t, &narrow, &wide);
	/* the header: four rows, the best found in full beside the origin */
	check_rows(narrow, wide, 0, 3, "the header");
	cr_assert(strstr(narrow, "edited by hand"), "%s", narrow);
	cr_assert(strstr(narrow, "best found ") && strstr(narrow, "better: a adopts"), "%s",
	          narrow);
	/* the stage list, down to its legend */
	int ladder = row_with(narrow, "ladder of lower bounds", 4);
	cr_assert(ladder > 5, "%s", narrow);
	check_rows(narrow, wide, 4, ladder - 1, "the stage list");
	/* the search rows: the method to the seed and the round, whole */
	int search = row_with(narrow, "search", ladder + 6);
	cr_assert(search > ladder, "%s", narrow);
	/* (the row under them changes as rounds restart: "best over time"
	 * when a round has found something, gone the next moment; the wide
	 * screen is taken 400 ms later, so that row is not compared) */
	check_rows(narrow, wide, search, search + 1, "the search rows");
	char row[1024];
	row_of(narrow, search + 1, row, sizeof row);
	cr_assert_null(strstr(row, "queued"), "%s", narrow);
	cr_assert(row_with(narrow, " seed ", search) > 0 && row_with(narrow, "round ", search) > 0,
	          "%s", narrow);
	free(narrow);
	free(wide);
	ts_tmux_keys(&t, "x");
	quit_anyway(&t);
}

/* 6 accelerator stages and 1 CPU stage: at 80x24 the list has room for 6
 * rows; the CPU stage (7) is shown beside the window, never scrolled out,
 * and the legend says which stages are shown. */
Test(wbnarrow, a_cpu_stage_is_never_hidden)
{
	ts_tmux t;
	start(&t, REGAL " -k 6 --cpus 1", "ladder of lower bounds");
	char *narrow, *wide;
	free(ts_tmux_wait(&t, " of 7", 10));
	narrow_and_wide(&t, &narrow, &wide);
	cr_assert(row_with(narrow, "    7 CPU ", 4) > 0, "the CPU stage is hidden:\n%s", narrow);
	cr_assert(strstr(narrow, "stages 1-5 and 7 of 7"), "%s", narrow);
	int ladder = row_with(narrow, "ladder of lower bounds", 4);
	check_rows(narrow, wide, 0, ladder - 1, "the header and the stage list");
	free(narrow);
	free(wide);
	/* moving the selection down the list keeps the CPU stage on it */
	ts_tmux_keys(&t, "Down Down Down Down Down Down");
	nap_ms(300);
	narrow = ts_tmux_screen(&t);
	cr_assert(row_with(narrow, "    7 CPU ", 4) > 0, "%s", narrow);
	free(narrow);
	quit_anyway(&t);
}

/* The timeline (4) at 80x24: its figures (period to drain) and its legend
 * whole, on two rows each when one is too narrow, and the lane's per cent
 * said to be idle time. */
Test(wbnarrow, the_timeline_header_cuts_nothing)
{
	ts_tmux t;
	start(&t, REGAL " -k 6 --cpus 1", "ladder of lower bounds");
	ts_tmux_keys(&t, "4");
	free(ts_tmux_wait(&t, "micro-batches", 5));
	char *narrow, *wide;
	narrow_and_wide(&t, &narrow, &wide);
	cr_assert(strstr(narrow, "drain "), "%s", narrow);
	cr_assert(strstr(narrow, "lane %: idle"), "the lane's per cent has no label:\n%s", narrow);
	int lanes = row_with(narrow, "   1 ", 4);
	cr_assert(lanes > 4, "%s", narrow);
	check_rows(narrow, wide, 0, lanes - 1, "the header and the timeline's header");
	free(narrow);
	free(wide);
	quit_anyway(&t);
}
