/*
 * test_wb_recover.c - the recovery file driven in tmux, where the tester
 * found it wanting: two workbenches at once on one graph and k (the second
 * neither offers nor removes the first's live edits and keeps its own file
 * beside them; both quit clean, nothing is left), a graph whose path is
 * over 300 characters (its edits are kept and offered after a SIGKILL),
 * a FIFO where the recovery file goes (left alone, said once, never a
 * freeze: q quits at once), and SIGTERM to an idle workbench (gone within
 * a second, its edits kept or its undone edit's file removed, as on a
 * hang-up).
 */
#define _XOPEN_SOURCE 700 /* realpath, mkdtemp */
#include <criterion/criterion.h>
#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tests/support.h"
#include "tui/wb/wb_recover.h"

#define FIG2 "samples/paper/figure2.dot"

static char state[64]; /* XDG_STATE_HOME of every test */

static void make_state(void)
{
	ts_make_dir(state, "sc-wbrecover");
}

static void remove_state(void)
{
	ts_remove_dir(state);
}

TestSuite(wbrecover, .init = make_state, .fini = remove_state);

static void nap(double seconds)
{
	struct timespec t = {(time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9)};
	nanosleep(&t, NULL);
}

/* Starts the workbench on graph, with the state directory, and waits for
 * its first screen. */
static void start(ts_tmux *t, const char *graph)
{
	char cmd[1024], env[256];
	snprintf(cmd, sizeof cmd, "%s %s", ts_program(), graph);
	snprintf(env, sizeof env, "TERM=xterm-256color XDG_STATE_HOME=%s", state);
	ts_tmux_start(t, 100, 30, env, cmd);
	free(ts_tmux_wait(t, "bottleneck 8.0000", 5));
}

/* The entries of the state directory's stagecut/: the regular files whose
 * names end in ".json" (recovery files), or with all every entry, hidden
 * ones (lock files) and FIFOs too. */
static int entries(bool all)
{
	char dir[128], p[PATH_MAX];
	snprintf(dir, sizeof dir, "%s/stagecut", state);
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	int n = 0;
	for (struct dirent *e; (e = readdir(d));) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		size_t len = strlen(e->d_name);
		struct stat st;
		snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
		n += all ||
		     (e->d_name[0] != '.' && len > 5 && !strcmp(e->d_name + len - 5, ".json") &&
		      lstat(p, &st) == 0 && S_ISREG(st.st_mode));
	}
	closedir(d);
	return n;
}

/* Waits up to 5 s (the file is written within 2 s of an edit) until there
 * are n recovery files. */
static void wait_files(int n)
{
	for (int i = 0; i < 100 && entries(false) != n; i++)
		nap(0.05);
	cr_assert_eq(entries(false), n, "recovery files");
}

/* Adopts the best partition found (7; the file's own is 8): an edit. */
static void edit(ts_tmux *t)
{
	free(ts_tmux_wait(t, "best 7.0000", 10));
	ts_tmux_keys(t, "a");
	free(ts_tmux_wait(t, "bottleneck 7.0000", 5));
}

/* Quits with unsaved edits: q asks, q again quits. */
static void quit_edited(ts_tmux *t)
{
	ts_tmux_keys(t, "q");
	free(ts_tmux_wait(t, "unsaved changes", 5));
	ts_tmux_keys(t, "q");
	free(ts_tmux_wait(t, "EXIT=0", 5));
	ts_tmux_stop(t);
}

/* Waits until t is idle and checks that it offered nothing. */
static void no_offer(ts_tmux *t)
{
	char *s = ts_tmux_idle(t, 20);
	cr_assert_null(strstr(s, "recovered"), "offered a live workbench's edits:\n%s", s);
	free(s);
}

Test(wbrecover, two_workbenches_on_one_graph_and_k_keep_apart, .timeout = 90)
{
	ts_tmux a, b;
	start(&a, FIG2);
	edit(&a);
	wait_files(1);
	/* a second one, while the first runs: its file is not offered, and a
	 * quit with nothing unsaved leaves it */
	start(&b, FIG2);
	no_offer(&b);
	ts_tmux_quit(&b);
	cr_assert_eq(entries(false), 1, "the first one's edits were removed");
	/* again, with edits of its own: kept beside the first one's */
	start(&b, FIG2);
	no_offer(&b);
	edit(&b);
	wait_files(2);
	quit_edited(&b);
	cr_assert_eq(entries(false), 1, "the second one's quit removed the wrong file");
	/* the first one still runs, and its quit leaves nothing */
	char *s = ts_tmux_screen(&a);
	cr_assert(strstr(s, "bottleneck 7.0000"), "%s", s);
	free(s);
	quit_edited(&a);
	cr_assert_eq(entries(true), 0, "left behind");
}

/* The graph at a path of more than 300 characters, into path. */
static void deep_graph(char *path, size_t size)
{
	int n = snprintf(path, size, "%s", state);
	for (int i = 0; i < 6; i++) {
		n += snprintf(path + n, size - (size_t)n,
		              "/%d-a-directory-with-a-long-name-"
		              "to-make-the-path-long",
		              i);
		cr_assert_eq(mkdir(path, 0700), 0, "%s", path);
	}
	char *text = ts_slurp(FIG2, NULL);
	cr_assert(text);
	snprintf(path + n, size - (size_t)n, "/figure2.dot");
	ts_write_text(path, text);
	free(text);
	cr_assert_gt(strlen(path), 300);
}

/* Starts the workbench on graph as start does and returns its pid, for a
 * signal: the shell writes its own, then becomes the workbench. */
static pid_t start_pid(ts_tmux *t, const char *graph)
{
	char cmd[2048], env[256], pidfile[128];
	snprintf(pidfile, sizeof pidfile, "%s/pid", state);
	remove(pidfile);
	snprintf(cmd, sizeof cmd, "sh -c 'echo \\$\\$ > %s; exec %s %s'", pidfile, ts_program(),
	         graph);
	snprintf(env, sizeof env, "TERM=xterm-256color XDG_STATE_HOME=%s", state);
	ts_tmux_start(t, 100, 30, env, cmd);
	free(ts_tmux_wait(t, "bottleneck 8.0000", 5));
	char *pid = ts_slurp(pidfile, NULL);
	cr_assert(pid && atoi(pid) > 1, "%s", pid ? pid : "(no pid)");
	pid_t p = (pid_t)atoi(pid);
	free(pid);
	return p;
}

Test(wbrecover, a_graph_path_over_300_characters_has_a_recovery_file, .timeout = 60)
{
	char graph[1024];
	deep_graph(graph, sizeof graph);
	ts_tmux t;
	pid_t pid = start_pid(&t, graph);
	edit(&t);
	wait_files(1);
	cr_assert_eq(kill(pid, SIGKILL), 0);
	char *s = ts_tmux_wait(&t, "EXIT=", 5);
	cr_assert(strstr(s, "EXIT=137"), "%s", s);
	free(s);
	ts_tmux_stop(&t);
	/* no lock is held now (the killed one's lock file is still there) */
	start(&t, graph);
	free(ts_tmux_wait(&t, "recovered", 5));
	ts_tmux_keys(&t, "r");
	s = ts_tmux_wait(&t, "recovered from an earlier session (unsaved)", 5);
	cr_assert(strstr(s, "bottleneck 7.0000"), "%s", s);
	free(s);
	quit_edited(&t);
	cr_assert_eq(entries(true), 0, "left behind");
}

Test(wbrecover, a_fifo_at_the_recovery_file_is_left_alone, .timeout = 60)
{
	char full[PATH_MAX], name[NAME_MAX + 1], fifo[PATH_MAX + 400];
	cr_assert(realpath(FIG2, full));
	cr_assert(wb_recover_name(name, sizeof name, full, 3, 1));
	snprintf(fifo, sizeof fifo, "%s/stagecut", state);
	cr_assert_eq(mkdir(fifo, 0700), 0);
	snprintf(fifo, sizeof fifo, "%s/stagecut/%s", state, name);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	/* it opens (reading the FIFO for an offer would wait for a writer
	 * forever) and q quits at once */
	ts_tmux t;
	start(&t, FIG2);
	ts_tmux_quit(&t);
	/* it says so once the start-up's messages are done, and keeps edits
	 * in a file of its own */
	start(&t, FIG2);
	free(ts_tmux_wait(&t, "left alone a FIFO", 15));
	edit(&t);
	wait_files(1);
	quit_edited(&t);
	struct stat st;
	cr_assert_eq(lstat(fifo, &st), 0);
	cr_assert(S_ISFIFO(st.st_mode), "the FIFO was replaced");
	cr_assert_eq(entries(false), 0);
	cr_assert_eq(entries(true), 1, "only the FIFO is left");
}

/* Two graphs at state/c/d.dot and state/c%d.dot, into a and b. */
static void slash_and_percent(char *a, char *b, size_t size)
{
	char *text = ts_slurp(FIG2, NULL);
	cr_assert(text);
	snprintf(a, size, "%s/c", state);
	cr_assert_eq(mkdir(a, 0700), 0);
	snprintf(a, size, "%s/c/d.dot", state);
	snprintf(b, size, "%s/c%%d.dot", state);
	ts_write_text(a, text);
	ts_write_text(b, text);
	free(text);
}

/* '/' was written as '%' and '%' as itself, so these two graphs shared a
 * recovery file: the second offered the first's edits as its own and
 * wrote its own over them. */
Test(wbrecover, graphs_at_c_slash_d_and_c_percent_d_keep_apart, .timeout = 90)
{
	char a[512], b[512];
	slash_and_percent(a, b, sizeof a);
	ts_tmux t;
	/* edits on c/d.dot, then a crash: they stay for its next start */
	pid_t pid = start_pid(&t, a);
	edit(&t);
	wait_files(1);
	cr_assert_eq(kill(pid, SIGKILL), 0);
	free(ts_tmux_wait(&t, "EXIT=", 5));
	ts_tmux_stop(&t);
	/* c%d.dot is offered nothing, and its own edits go to a file of
	 * their own */
	start(&t, b);
	no_offer(&t);
	edit(&t);
	wait_files(2);
	quit_edited(&t);
	cr_assert_eq(entries(false), 1, "c%%d.dot's quit removed c/d.dot's edits");
	/* c/d.dot gets its edits back */
	start(&t, a);
	free(ts_tmux_wait(&t, "recovered", 5));
	ts_tmux_keys(&t, "r");
	char *s = ts_tmux_wait(&t, "recovered from an earlier session (unsaved)", 5);
	cr_assert(strstr(s, "bottleneck 7.0000"), "%s", s);
	free(s);
	quit_edited(&t);
	cr_assert_eq(entries(true), 0, "left behind");
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Sends SIGTERM to pid and checks that it is gone within a second (its
 * loop hears the signal through its self-pipe, not at a tick), with exit
 * status 143 (128 + SIGTERM) on t's screen; then stops t. */
static void terminate(ts_tmux *t, pid_t pid)
{
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	cr_assert_eq(kill(pid, SIGTERM), 0);
	while (kill(pid, 0) == 0 && seconds_since(&t0) < 5)
		nap(0.005);
	double took = seconds_since(&t0);
	cr_assert_lt(took, 1.0, "SIGTERM to an idle workbench: gone after %.2f s", took);
	char *s = ts_tmux_wait(t, "EXIT=", 5);
	cr_assert(strstr(s, "EXIT=143"), "%s", s);
	free(s);
	ts_tmux_stop(t);
}

Test(wbrecover, sigterm_ends_an_idle_workbench_at_once_as_a_hang_up, .timeout = 90)
{
	ts_tmux t;
	/* an edit (its recovery file written at once), then an undo back to
	 * the baseline: the loop would remove the file two seconds after the
	 * write, the exit on SIGTERM does it at once */
	pid_t pid = start_pid(&t, FIG2);
	free(ts_tmux_idle(&t, 20));
	edit(&t);
	wait_files(1);
	ts_tmux_keys(&t, "u");
	free(ts_tmux_wait(&t, "bottleneck 8.0000", 5));
	terminate(&t, pid);
	cr_assert_eq(entries(true), 0, "an undone edit's recovery file was kept");
	/* an edit, then SIGTERM: kept, and offered at the next start */
	pid = start_pid(&t, FIG2);
	free(ts_tmux_idle(&t, 20));
	edit(&t);
	terminate(&t, pid);
	cr_assert_eq(entries(false), 1, "the edits were not kept");
	start(&t, FIG2);
	free(ts_tmux_wait(&t, "recovered", 5));
	ts_tmux_keys(&t, "r");
	char *s = ts_tmux_wait(&t, "recovered from an earlier session (unsaved)", 5);
	cr_assert(strstr(s, "bottleneck 7.0000"), "%s", s);
	free(s);
	quit_edited(&t);
	cr_assert_eq(entries(true), 0, "left behind");
}

/* The recovery file of graph at k 3 (slot 1), into path. */
static void recovery_path(char *path, size_t size, const char *graph)
{
	char full[PATH_MAX], name[NAME_MAX + 1];
	cr_assert(realpath(graph, full));
	cr_assert(wb_recover_name(name, sizeof name, full, 3, 1));
	snprintf(path, size, "%s/stagecut/%s", state, name);
}

/* The recovery file's text is still kept's. */
static void still(const char *path, const char *kept)
{
	char *now = ts_slurp(path, NULL);
	cr_assert(now, "the recovery file %s was removed", path);
	cr_assert_str_eq(now, kept, "the recovery file was changed");
	free(now);
}

/* A graph that gained an op after a crash: its recovery file does not fit
 * it any more.  It was removed without a word at q or SIGTERM; now the
 * start says so, naming it, and only d removes it. */
Test(wbrecover, a_recovery_file_that_no_longer_fits_is_never_removed_unasked, .timeout = 90)
{
	char g[512], path[PATH_MAX + 400];
	snprintf(g, sizeof g, "%s/g.dot", state);
	char *text = ts_slurp(FIG2, NULL);
	cr_assert(text);
	ts_write_text(g, text);
	ts_tmux t;
	pid_t pid = start_pid(&t, g);
	edit(&t);
	wait_files(1);
	cr_assert_eq(kill(pid, SIGKILL), 0);
	free(ts_tmux_wait(&t, "EXIT=", 5));
	ts_tmux_stop(&t);
	recovery_path(path, sizeof path, g);
	char *kept = ts_slurp(path, NULL);
	cr_assert(kept);
	/* an op more (in the last stage: the bottleneck stays 8) */
	char *end = strrchr(text, '}');
	cr_assert(end);
	*end = '\0';
	char grown[4096];
	snprintf(grown, sizeof grown, "%s\tz [work = 1, out = 0, stage = 3];\n\ty -> z;\n}\n",
	         text);
	ts_write_text(g, grown);
	free(text);
	/* said, with the file's path; k keeps it, and q leaves it */
	start(&t, g);
	char *s = ts_tmux_wait(&t, "does not fit this graph", 5);
	cr_assert(strstr(s, path), "the path is not named:\n%s", s);
	cr_assert(strstr(s, "k keeps it") && strstr(s, "deletes it"), "%s", s);
	free(s);
	ts_tmux_keys(&t, "k");
	free(ts_tmux_wait(&t, "kept the recovery file", 15));
	ts_tmux_quit(&t);
	still(path, kept);
	/* SIGTERM while the question waits: kept */
	pid = start_pid(&t, g);
	free(ts_tmux_wait(&t, "does not fit this graph", 5));
	terminate(&t, pid);
	still(path, kept);
	/* kept with Esc, edits of this session go to a file of their own,
	 * and SIGTERM keeps both */
	pid = start_pid(&t, g);
	free(ts_tmux_wait(&t, "does not fit this graph", 5));
	ts_tmux_keys(&t, "Escape");
	free(ts_tmux_wait(&t, "kept the recovery file", 15));
	edit(&t);
	wait_files(2);
	terminate(&t, pid);
	still(path, kept);
	cr_assert_eq(entries(false), 2);
	/* d deletes it; the other file (this graph's own edits) is offered
	 * next and discarded */
	start(&t, g);
	free(ts_tmux_wait(&t, "does not fit this graph", 5));
	ts_tmux_keys(&t, "d");
	free(ts_tmux_wait(&t, "deleted the recovery file", 15));
	cr_assert_eq(access(path, F_OK), -1, "not deleted");
	ts_tmux_quit(&t);
	start(&t, g);
	free(ts_tmux_wait(&t, "recovered", 5));
	ts_tmux_keys(&t, "d");
	ts_tmux_quit(&t);
	cr_assert_eq(entries(true), 0, "left behind");
	free(kept);
}
