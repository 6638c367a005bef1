/*
 * test_wb_modals.c - the workbench's modals driven in tmux: the help and
 * settings popups whole and bordered at 80x24 and 200x50 (every help line
 * of the key table on screen, none cut), the too-small screen and the way
 * back, the recovery file after an undo or a settings change that replaced
 * an edit, settings changes that keep a hand edit (or ask), the prompts'
 * ^U, ^W and selected default text, and one-key confirmations.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <criterion/criterion.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "tests/support.h"
#include "tui/wb/wb_recover.h"
#include "tui/wb/wb_keytab.h"

#define FIG2 "samples/paper/figure2.dot"
#define RESIDUAL "samples/small/residual.dot"
/* box-drawing characters: the locale is set so that the borders are them */
#define VLINE "\xe2\x94\x82"
#define CORNER_TL "\xe2\x94\x8c"
#define CORNER_BR "\xe2\x94\x98"

static char state[64]; /* XDG_STATE_HOME of every test: the recovery files */

static void make_state(void)
{
	ts_make_dir(state, "sc-wbmodals");
}

static void remove_state(void)
{
	ts_remove_dir(state);
}

TestSuite(wbmodals, .init = make_state, .fini = remove_state);

static void nap(double seconds)
{
	struct timespec t = {(time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9)};
	nanosleep(&t, NULL);
}

/* Waits up to seconds until text is no longer on the screen; returns the
 * screen (malloc'd) or fails the test showing it. */
static char *wait_gone(ts_tmux *t, const char *text, double seconds)
{
	char *s = NULL;
	for (double waited = 0; waited <= seconds; waited += 0.05) {
		free(s);
		s = ts_tmux_screen(t);
		if (s && !strstr(s, text))
			return s;
		nap(0.05);
	}
	cr_assert_fail("waited %.1f s for '%s' to go; the screen shows:\n%s", seconds, text,
	               s ? s : "(nothing)");
	return NULL;
}

static void start(ts_tmux *t, const char *graph, int cols, int rows)
{
	char cmd[512], env[256];
	snprintf(cmd, sizeof cmd, "%s %s", ts_program(), graph);
	snprintf(env, sizeof env, "TERM=xterm-256color LC_ALL=C.UTF-8 XDG_STATE_HOME=%s", state);
	ts_tmux_start(t, cols, rows, env, cmd);
	free(ts_tmux_wait(t, "bottleneck", 5));
}

/* The files in the state directory's stagecut/ (the recovery files). */
static int recovery_files(void)
{
	char dir[128];
	snprintf(dir, sizeof dir, "%s/stagecut", state);
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	int n = 0;
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* The text inside a popup's side borders, its rows joined by one space and
 * every run of spaces made one (wrapped lines read on), malloc'd. */
static char *popup_text(const char *screen)
{
	char *out = calloc(strlen(screen) + 2, 1);
	cr_assert(out);
	size_t n = 0;
	for (const char *line = screen; *line;) {
		const char *end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		const char *l = strstr(line, VLINE), *r = NULL;
		for (const char *p = l; p && p < end; p = strstr(p + 1, VLINE))
			if (p < end)
				r = p;
		if (l && l < end && r && r > l) {
			for (const char *c = l + strlen(VLINE); c < r; c++)
				if (*c != ' ' || (n && out[n - 1] != ' '))
					out[n++] = *c;
			if (n && out[n - 1] != ' ')
				out[n++] = ' ';
		}
		line = *end ? end + 1 : end;
	}
	out[n] = '\0';
	return out;
}

/* s with every run of spaces made one, into buf. */
static const char *squeeze(const char *s, char *buf, size_t size)
{
	size_t n = 0;
	for (; *s && n + 1 < size; s++)
		if (*s != ' ' || (n && buf[n - 1] != ' '))
			buf[n++] = *s;
	buf[n] = '\0';
	return buf;
}

static void expect_whole(const char *text, const char *want, const char *screen)
{
	char buf[256];
	cr_expect(strstr(text, squeeze(want, buf, sizeof buf)), "'%s' is not whole on screen:\n%s",
	          want, screen);
}

/* Opens the help in a cols x rows terminal and checks it: a border, every
 * help line of the views' keys whole (scrolling when the box says it
 * does), the notes. */
static void help_is_whole(int cols, int rows)
{
	ts_tmux t;
	start(&t, FIG2, cols, rows);
	ts_tmux_keys(&t, "'?'");
	/* its bottom edge, drawn last: the whole box is on screen */
	char *s = ts_tmux_wait(&t, CORNER_BR, 5);
	cr_expect(strstr(s, "stagecut help") && strstr(s, CORNER_TL), "no border:\n%s", s);
	char *text = popup_text(s), *all = strdup(text);
	free(text);
	/* a box taller than the screen says which rows it shows */
	int first, last, total;
	const char *rows_at = strstr(s, "rows ");
	for (int pages = 0;
	     rows_at && sscanf(rows_at, "rows %d-%d of %d", &first, &last, &total) == 3 &&
	     last < total && pages < 10;
	     pages++) {
		char shown[64];
		snprintf(shown, sizeof shown, "rows %d-%d of %d", first, last, total);
		ts_tmux_keys(&t, "Space");
		free(s);
		s = wait_gone(&t, shown, 5);
		text = popup_text(s);
		all = realloc(all, strlen(all) + strlen(text) + 1);
		strcat(all, text);
		free(text);
		rows_at = strstr(s, "rows ");
	}
	int n;
	const wb_binding *b = wb_bindings(&n);
	for (int i = 0; i < n; i++)
		if (b[i].label && (b[i].where & WB_IN_VIEWS)) {
			expect_whole(all, b[i].label, s);
			expect_whole(all, b[i].help, s);
		}
	expect_whole(all, "The bottleneck stage is marked *, a stage over a hard memory limit !.",
	             s);
	expect_whole(all, "how far from the optimum it can be.", s);
	free(all);
	free(s);
	ts_tmux_keys(&t, "Escape");
	free(wait_gone(&t, "stagecut help", 5)); /* any key closes it */
	ts_tmux_keys(&t, "q");
	free(ts_tmux_wait(&t, "EXIT=0", 5));
	ts_tmux_stop(&t);
}

Test(wbmodals, the_help_is_whole_and_bordered_at_80x24, .timeout = 30)
{
	help_is_whole(80, 24);
}

Test(wbmodals, the_help_is_whole_and_bordered_at_200x50, .timeout = 30)
{
	help_is_whole(200, 50);
}

static void settings_are_whole(int cols, int rows)
{
	ts_tmux t;
	start(&t, FIG2, cols, rows);
	ts_tmux_keys(&t, "o");
	/* its bottom edge, drawn last */
	char *s = ts_tmux_wait(&t, "Esc or o close", 5);
	cr_expect(strstr(s, CORNER_TL) && strstr(s, CORNER_BR), "no border:\n%s", s);
	char *text = popup_text(s);
	static const char *const names[] = {
	        "k (stages) 3",
	        "bandwidth (bytes/time) 1.0000",
	        "memory policy overflow",
	        "search time limit (s) 30",
	        "time per ladder rung (s) 60",
	};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		expect_whole(text, names[i], s);
	expect_whole(text,
	             "A change of k, the bandwidth, the memory or the policy restarts the search "
	             "and the ladder and keeps an edited partition (a smaller k it does not fit "
	             "asks first); a time limit applies to the next job.",
	             s);
	cr_expect(strstr(s, "j/k select, Enter change, Esc or o close"), "%s", s);
	free(text);
	free(s);
	ts_tmux_keys(&t, "Escape q");
	free(ts_tmux_wait(&t, "EXIT=0", 5));
	ts_tmux_stop(&t);
}

Test(wbmodals, the_settings_are_whole_and_bordered_at_80x24, .timeout = 30)
{
	settings_are_whole(80, 24);
}

Test(wbmodals, the_settings_are_whole_and_bordered_at_200x50, .timeout = 30)
{
	settings_are_whole(200, 50);
}

Test(wbmodals, too_small_says_so_and_comes_back, .timeout = 30)
{
	ts_tmux t;
	start(&t, FIG2, 80, 24);
	ts_tmux_keys(&t, "'?'");
	free(ts_tmux_wait(&t, "stagecut help", 5));
	ts_tmux_resize(&t, 60, 20);
	char *s = ts_tmux_wait(&t, "terminal too small (need 80", 5);
	cr_expect_null(strstr(s, "stagecut help"), "nothing else on screen:\n%s", s);
	cr_expect_null(strstr(s, "bottleneck"), "nothing else on screen:\n%s", s);
	free(s);
	/* keys wait: q does not quit unseen */
	ts_tmux_keys(&t, "q");
	nap(0.5);
	s = ts_tmux_screen(&t);
	cr_expect(strstr(s, "terminal too small") && !strstr(s, "EXIT="), "%s", s);
	free(s);
	/* one side too small is enough */
	ts_tmux_resize(&t, 120, 20);
	free(ts_tmux_wait(&t, "it is 120", 5));
	ts_tmux_resize(&t, 80, 24);
	/* the help still open over the screen */
	s = ts_tmux_wait(&t, "stagecut help", 5);
	cr_expect_null(strstr(s, "too small"), "%s", s);
	free(s);
	ts_tmux_keys(&t, "Escape");
	free(ts_tmux_wait(&t, "bottleneck 8.0000", 5));
	ts_tmux_keys(&t, "q");
	free(ts_tmux_wait(&t, "EXIT=0", 5));
	ts_tmux_stop(&t);
}

/* ---- the recovery file -------------------------------------------------- */

/* Starts on graph and checks that no recovery is offered, then quits. */
static void no_offer(const char *graph)
{
	ts_tmux t;
	start(&t, graph, 100, 30);
	nap(1);
	char *s = ts_tmux_screen(&t);
	cr_expect_null(strstr(s, "recovered"), "a recovery offer:\n%s", s);
	free(s);
	ts_tmux_keys(&t, "q");
	free(ts_tmux_wait(&t, "EXIT=0", 5));
	ts_tmux_stop(&t);
}

Test(wbmodals, no_recovery_offer_after_edit_undo_quit, .timeout = 40)
{
	ts_tmux t;
	start(&t, RESIDUAL, 120, 40);
	ts_tmux_keys(&t, "2 '>'");
	free(ts_tmux_wait(&t, "moved", 5));
	nap(3);
	cr_assert_eq(recovery_files(), 1, "the edit is in a recovery file");
	ts_tmux_keys(&t, "u");
	free(ts_tmux_wait(&t, "undone", 5));
	/* back at the start's partition: quits without asking */
	ts_tmux_keys(&t, "q");
	free(ts_tmux_wait(&t, "EXIT=0", 5));
	ts_tmux_stop(&t);
	cr_expect_eq(recovery_files(), 0, "the recovery file outlived the undo");
	no_offer(RESIDUAL);
}

Test(wbmodals, a_recovery_file_of_the_start_partition_is_not_offered, .timeout = 30)
{
	char full[PATH_MAX], name[NAME_MAX + 1], path[PATH_MAX + 400];
	cr_assert(realpath(FIG2, full));
	cr_assert(wb_recover_name(name, sizeof name, full, 3, 1));
	snprintf(path, sizeof path, "%s/stagecut", state);
	mkdir(path, 0700);
	snprintf(path, sizeof path, "%s/stagecut/%s", state, name);
	ts_write_text(path, ts_fig2_own); /* what the start shows: the file's stages */
	no_offer(FIG2);
	cr_expect_eq(recovery_files(), 0);
}

Test(wbmodals, no_recovery_offer_after_a_k_change_discarded_the_edit, .timeout = 40)
{
	ts_tmux t;
	start(&t, FIG2, 100, 30);
	ts_tmux_keys(&t, "2 j '>'");
	free(ts_tmux_wait(&t, "moved u to stage 2", 5));
	nap(3);
	cr_assert_eq(recovery_files(), 1, "the edit is in a recovery file");
	ts_tmux_keys(&t, "o Enter 2 Enter");
	free(ts_tmux_wait(&t, "k from 3 to 2, but your edited partition uses stages up to 3", 5));
	/* one key, no Enter */
	ts_tmux_keys(&t, "d");
	/* (the status line's message goes as soon as the ladder starts) */
	char *s = ts_tmux_wait(&t, "edges  k 2", 5);
	cr_expect(strstr(s, "first partition"), "%s", s);
	free(s);
	ts_tmux_keys(&t, "Escape q");
	free(ts_tmux_wait(&t, "EXIT=0", 5));
	ts_tmux_stop(&t);
	cr_expect_eq(recovery_files(), 0);
	no_offer(FIG2);
}

/* ---- settings keep hand edits ------------------------------------------- */

/* The ops of the stage table's rows 1..k into ops; returns how many rows. */
static int stage_ops(const char *screen, int *ops, int max)
{
	int n = 0;
	const char *table = strstr(screen, "  stage    ops");
	cr_assert(table, "no stage table:\n%s", screen);
	for (const char *line = strchr(table, '\n'); line && n < max; line = strchr(line, '\n')) {
		line++;
		int st, o;
		char mark;
		if (sscanf(line, "%c %d %d", &mark, &st, &o) != 3 || st != n + 1)
			break;
		ops[n++] = o;
	}
	return n;
}

Test(wbmodals, settings_keep_the_edited_partition_or_ask, .timeout = 60)
{
	ts_tmux t;
	start(&t, FIG2, 100, 30);
	/* u joins v and w: 1 / 3 / 2 ops */
	ts_tmux_keys(&t, "2 j '>'");
	free(ts_tmux_wait(&t, "moved u to stage 2", 5));
	ts_tmux_keys(&t, "1");
	int ops[8];
	char *s = ts_tmux_wait(&t, "ladder of lower bounds", 5);
	cr_assert_eq(stage_ops(s, ops, 8), 3, "%s", s);
	cr_assert(ops[0] == 1 && ops[1] == 3 && ops[2] == 2, "%s", s);
	free(s);
	/* the bandwidth changes costs only: the partition stays, still edited */
	ts_tmux_keys(&t, "o j Enter");
	free(ts_tmux_wait(&t, "new value:", 5));
	ts_tmux_keys(&t, "4 Enter");
	free(ts_tmux_wait(&t, "B 4.0000", 5));
	ts_tmux_keys(&t, "Escape");
	s = ts_tmux_wait(&t, "ladder of lower bounds", 5);
	cr_expect_eq(stage_ops(s, ops, 8), 3, "%s", s);
	cr_expect(ops[0] == 1 && ops[1] == 3 && ops[2] == 2, "the edit is kept:\n%s", s);
	cr_expect(strstr(s, "edited by hand"), "%s", s);
	free(s);
	/* a bigger k: every stage fits, kept, the new stages empty */
	ts_tmux_keys(&t, "o k Enter 5 Enter");
	free(ts_tmux_wait(&t, "edges  k 5", 5));
	ts_tmux_keys(&t, "Escape");
	s = ts_tmux_wait(&t, "ladder of lower bounds", 5);
	cr_expect_eq(stage_ops(s, ops, 8), 5, "%s", s);
	cr_expect(ops[0] == 1 && ops[1] == 3 && ops[2] == 2 && ops[3] == 0 && ops[4] == 0,
	          "the edit is kept:\n%s", s);
	free(s);
	/* a smaller k that stage 3 does not fit: asks; Esc keeps k */
	ts_tmux_keys(&t, "o Enter 2 Enter");
	free(ts_tmux_wait(&t, "k from 5 to 2, but your edited partition uses stages up to 3", 5));
	ts_tmux_keys(&t, "Escape");
	free(ts_tmux_wait(&t, "k stays 5", 5));
	/* again, and m merges stage 3 into stage 2 */
	ts_tmux_keys(&t, "Enter 2 Enter");
	free(ts_tmux_wait(&t, "k from 5 to 2", 5));
	ts_tmux_keys(&t, "m");
	free(ts_tmux_wait(&t, "edges  k 2", 5));
	ts_tmux_keys(&t, "Escape");
	s = ts_tmux_wait(&t, "ladder of lower bounds", 5);
	cr_expect_eq(stage_ops(s, ops, 8), 2, "%s", s);
	cr_expect(ops[0] == 1 && ops[1] == 5, "%s", s);
	free(s);
	/* still unsaved: quitting asks, and one key answers */
	ts_tmux_keys(&t, "q");
	free(ts_tmux_wait(&t, "unsaved changes", 5));
	ts_tmux_keys(&t, "q");
	free(ts_tmux_wait(&t, "EXIT=0", 5));
	ts_tmux_stop(&t);
}

/* ---- prompts -------------------------------------------------------------- */

Test(wbmodals, prompts_kill_words_and_lines_and_replace_the_default, .timeout = 30)
{
	ts_tmux t;
	start(&t, FIG2, 100, 30);
	ts_tmux_keys(&t, "L");
	free(ts_tmux_wait(&t, "load a partition file:", 5));
	ts_tmux_keys(&t, "-l 'one two three'");
	free(ts_tmux_wait(&t, "file: one two three", 5));
	ts_tmux_keys(&t, "C-w");
	char *s = wait_gone(&t, "three", 5);
	cr_expect(strstr(s, "file: one two"), "^W kills the last word only:\n%s", s);
	free(s);
	ts_tmux_keys(&t, "C-u");
	s = wait_gone(&t, "file: one", 5);
	cr_expect(strstr(s, "load a partition file:"), "^U kills the line:\n%s", s);
	free(s);
	ts_tmux_keys(&t, "-l x");
	free(ts_tmux_wait(&t, "load a partition file: x", 5));
	ts_tmux_keys(&t, "Escape");
	/* the default file name is selected: typing replaces it */
	ts_tmux_keys(&t, "w");
	free(ts_tmux_wait(&t, "save the partition to: figure2-k3.partition.json", 5));
	ts_tmux_keys(&t, "-l mine.json");
	s = ts_tmux_wait(&t, "save the partition to: mine.json", 5);
	cr_expect_null(strstr(s, "figure2-k3"), "%s", s);
	free(s);
	ts_tmux_keys(&t, "Escape");
	free(ts_tmux_wait(&t, "not saved", 5));
	ts_tmux_keys(&t, "q");
	free(ts_tmux_wait(&t, "EXIT=0", 5));
	ts_tmux_stop(&t);
}

Test(wbmodals, a_confirmation_takes_one_key, .timeout = 30)
{
	ts_tmux t;
	start(&t, FIG2, 100, 30);
	ts_tmux_keys(&t, "2 j '>'");
	free(ts_tmux_wait(&t, "moved u to stage 2", 5));
	ts_tmux_keys(&t, "q");
	free(ts_tmux_wait(&t, "unsaved changes: w saves, q quits anyway, Esc stays", 5));
	/* a key that is no answer does nothing; Esc stays */
	ts_tmux_keys(&t, "x");
	nap(0.3);
	char *s = ts_tmux_screen(&t);
	cr_expect(strstr(s, "unsaved changes") && !strstr(s, "EXIT="), "%s", s);
	free(s);
	ts_tmux_keys(&t, "Escape");
	s = wait_gone(&t, "unsaved changes", 5);
	cr_expect_null(strstr(s, "EXIT="), "Esc stays:\n%s", s);
	free(s);
	ts_tmux_keys(&t, "q");
	free(ts_tmux_wait(&t, "unsaved changes", 5));
	ts_tmux_keys(&t, "q");
	free(ts_tmux_wait(&t, "EXIT=0", 5));
	ts_tmux_stop(&t);
}
