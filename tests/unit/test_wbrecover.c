/*
 * test_wbrecover.c - the workbench's recovery files without a terminal:
 * their names (the old name while it fits, a bounded name with a hash of
 * the whole path when it would not) and their slots (a slot whose lock a
 * live workbench holds, here a child process, is neither offered nor
 * taken; a dead session's file is offered; a FIFO, a directory or a
 * symbolic link in a slot's place is left alone and the next slot taken).
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <criterion/criterion.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/support.h"
#include "tui/wb/wb.h"
#include "tui/wb/wb_recover.h"

#ifndef NAME_MAX
#define NAME_MAX 255
#endif

static bool ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), m = strlen(end);
	return n >= m && strcmp(s + n - m, end) == 0;
}

/* A path of n characters under /deep, its last part "figure2.dot". */
static void long_path(char *buf, size_t n, char fill)
{
	cr_assert(n + 1 < 4096);
	size_t i = 0;
	while (i + 20 < n) {
		buf[i++] = '/';
		for (int j = 0; j < 15 && i + 20 < n; j++)
			buf[i++] = fill;
	}
	snprintf(buf + i, 4096 - i, "/%*s", (int)(n - i - 1), "figure2.dot");
	for (char *c = buf + i + 1; *c == ' '; c++)
		*c = 'x';
	cr_assert_eq(strlen(buf), n);
}

Test(wbrecover, a_short_path_is_the_path_escaped)
{
	char name[NAME_MAX + 1];
	cr_assert(wb_recover_name(name, sizeof name, "/home/ann/g/bert.json", 4, 1));
	cr_assert_str_eq(name, "%2Fhome%2Fann%2Fg%2Fbert.json-k4.json");
	cr_assert(wb_recover_name(name, sizeof name, "/home/ann/g/bert.json", 4, 2));
	cr_assert_str_eq(name, "%2Fhome%2Fann%2Fg%2Fbert.json-k4.2.json");
	cr_assert(wb_recover_name(name, sizeof name, "/home/ann/g/bert.json", 12, 31));
	cr_assert_str_eq(name, "%2Fhome%2Fann%2Fg%2Fbert.json-k12.31.json");
	cr_assert(wb_recover_name(name, sizeof name, "/t/c%d~e.dot", 2, 1));
	cr_assert_str_eq(name, "%2Ft%2Fc%25d%7Ee.dot-k2.json");
}

/* '/' once became '%' and nothing else changed, so /c/d.dot and /c%d.dot
 * shared a recovery file: every pair of these paths has two names. */
Test(wbrecover, two_paths_never_share_a_name)
{
	const char *paths[] = {"/t/c/d.dot",   "/t/c%d.dot",  "/t/c%2Fd.dot", "/t/c%252Fd.dot",
	                       "/t/c%2fd.dot", "/t/c~d.dot",  "/t/c%7Ed.dot", "/t%2Fc/d.dot",
	                       "/t/c-k3.dot",  "/t/c-k3.json"};
	enum { N = sizeof paths / sizeof *paths };
	char name[N][NAME_MAX + 1];
	for (int i = 0; i < N; i++)
		cr_assert(wb_recover_name(name[i], sizeof name[i], paths[i], 3, 1));
	for (int i = 0; i < N; i++)
		for (int j = i + 1; j < N; j++)
			cr_assert_str_neq(name[i], name[j], "%s and %s", paths[i], paths[j]);
	/* nor a plain name and a hashed one: only a hashed name holds a '~' */
	char p[4096];
	long_path(p, 400, 'd');
	cr_assert(wb_recover_name(name[0], sizeof name[0], p, 3, 1));
	cr_assert(strchr(name[0], '~'));
	cr_assert(wb_recover_name(name[1], sizeof name[1], "/t/x~0123456789abcdef.dot", 3, 1));
	cr_assert_null(strchr(name[1], '~'), "%s", name[1]);
}

Test(wbrecover, a_long_path_gets_a_bounded_name_with_a_hash)
{
	char a[4096], b[4096], name[NAME_MAX + 1], other[NAME_MAX + 1];
	long_path(a, 400, 'd');
	cr_assert(wb_recover_name(name, sizeof name, a, 3, 1));
	/* room for the lock file's '.' and the writer's temporary names */
	cr_assert_leq(strlen(name) + 1, NAME_MAX - 22, "%zu: %s", strlen(name), name);
	cr_assert(ends_with(name, "-k3.json"), "%s", name);
	cr_assert(strstr(name, "figure2.dot"), "readable: %s", name);
	cr_assert_eq(name[0], '%', "starts at a directory: %s", name);
	cr_assert_null(strchr(name, '/'));
	cr_assert(strchr(name, '~'), "%s", name);
	/* the same end, another start: another name */
	long_path(b, 400, 'e');
	b[1] = 'f';
	cr_assert(wb_recover_name(other, sizeof other, b, 3, 1));
	cr_assert_str_neq(name, other);
	/* another k, another slot */
	cr_assert(wb_recover_name(other, sizeof other, a, 4, 1));
	cr_assert_str_neq(name, other);
	cr_assert(wb_recover_name(other, sizeof other, a, 3, 2));
	cr_assert(ends_with(other, "-k3.2.json"), "%s", other);
	/* the same: the same name, every time */
	cr_assert(wb_recover_name(other, sizeof other, a, 3, 1));
	cr_assert_str_eq(name, other);
	/* thousands of characters (PATH_MAX) */
	long_path(b, 4000, 'g');
	cr_assert(wb_recover_name(other, sizeof other, b, 1000000, 32));
	cr_assert_leq(strlen(other) + 1, NAME_MAX - 22, "%s", other);
}

Test(wbrecover, the_plain_name_while_it_and_its_lock_file_fit)
{
	/* "-k3.json" is 8 characters and the lock file's name one more; the
	 * path's one '/' is written as the 3 of %2F */
	char p[4096], name[NAME_MAX + 1];
	memset(p, 'd', sizeof p);
	p[0] = '/';
	p[NAME_MAX - 9 - 2] = '\0';
	cr_assert(wb_recover_name(name, sizeof name, p, 3, 1));
	cr_assert_eq(strlen(name), NAME_MAX - 1);
	cr_assert_eq(name[0], '%');
	cr_assert_null(strchr(name, '~'));
	p[NAME_MAX - 9 - 2] = 'd';
	p[NAME_MAX - 9 - 1] = '\0';
	cr_assert(wb_recover_name(name, sizeof name, p, 3, 1));
	cr_assert(strchr(name, '~'), "hashed: %s", name);
	/* too small a buffer */
	cr_assert_not(wb_recover_name(name, 10, "/a/b/c", 3, 1));
}

/* ---- slots ---------------------------------------------------------------- */

static char state[64];
static void make_state(void)
{
	ts_make_dir(state, "sc-wbrecover");
	setenv("XDG_STATE_HOME", state, 1);
}
static void remove_state(void)
{
	ts_remove_dir(state);
}

/* A workbench's recovery state for a graph file in the state directory. */
static void bench(wb *w, int k)
{
	memset(w, 0, sizeof *w);
	snprintf(w->path, sizeof w->path, "%s/g.dot", state);
	ts_write_text(w->path, "digraph g { a -> b }\n");
	w->set.k = k;
	w->rec = wb_recover_new();
	cr_assert(w->rec);
}

/* Gives up bench's slot and frees its state. */
static void unbench(wb *w)
{
	wb_recover_close(w);
	wb_recover_free(w->rec);
}

/* The path of slot n's recovery file, into buf. */
static void slot_file(char *buf, size_t size, int k, int n)
{
	char full[PATH_MAX], name[NAME_MAX + 1], g[128];
	snprintf(g, sizeof g, "%s/g.dot", state);
	cr_assert(realpath(g, full));
	cr_assert(wb_recover_name(name, sizeof name, full, k, n));
	snprintf(buf, size, "%s/stagecut/%s", state, name);
}

/* Counts the entries of the state directory's stagecut/ (hidden ones too
 * with hidden). */
static int entries(bool hidden)
{
	char dir[128];
	snprintf(dir, sizeof dir, "%s/stagecut", state);
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	int n = 0;
	for (struct dirent *e; (e = readdir(d));)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    (hidden || e->d_name[0] != '.'))
			n++;
	closedir(d);
	return n;
}

/* Runs wb_recover_open(leftover) in a child process (another workbench, so
 * that the parent's locks count) and returns the slot it took (0: none);
 * *left says whether it would offer its file. */
static int other_workbench(int k, bool leftover, bool *left)
{
	int fd[2];
	cr_assert_eq(pipe(fd), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		wb w;
		bench(&w, k);
		wb_recover_open(&w, leftover);
		int out[2] = {0, w.rec->left};
		for (int n = 1; n <= 40 && w.rec->path[0]; n++) {
			char p[4096];
			slot_file(p, sizeof p, k, n);
			if (strcmp(p, w.rec->path) == 0)
				out[0] = n;
		}
		if (write(fd[1], out, sizeof out) != (ssize_t)sizeof out)
			_exit(1);
		unbench(&w);
		_exit(0);
	}
	close(fd[1]);
	int out[2] = {-1, 0}, status;
	cr_assert_eq(read(fd[0], out, sizeof out), (ssize_t)sizeof out);
	close(fd[0]);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	*left = out[1];
	return out[0];
}

TestSuite(wbrecover_slots, .init = make_state, .fini = remove_state);

Test(wbrecover_slots, a_live_workbench_keeps_its_slot_and_its_file)
{
	wb w;
	bench(&w, 3);
	wb_recover_open(&w, true);
	char p1[4096], p2[4096];
	slot_file(p1, sizeof p1, 3, 1);
	slot_file(p2, sizeof p2, 3, 2);
	cr_assert_str_eq(w.rec->path, p1);
	cr_assert_not(w.rec->left);
	cr_assert_str_eq(w.rec->note, "");
	/* its edits, as the writer leaves them */
	ts_write_text(p1, "{}\n");
	bool left;
	cr_assert_eq(other_workbench(3, true, &left), 2, "the live one's slot is taken");
	cr_assert_not(left);
	cr_assert_eq(other_workbench(3, false, &left), 2);
	/* the other one went: its lock file with it; the live one's file stays */
	struct stat st;
	cr_assert_eq(stat(p1, &st), 0);
	cr_assert_neq(stat(p2, &st), 0);
	cr_assert_eq(entries(true), 2, "the file and the live one's lock file");
	unbench(&w);
	cr_assert_eq(entries(true), 1, "the lock file goes, the recovery file stays");
	cr_assert_eq(entries(false), 1);
}

Test(wbrecover_slots, a_dead_sessions_file_is_offered_at_the_start_only)
{
	char p1[4096];
	wb w;
	bench(&w, 3);
	slot_file(p1, sizeof p1, 3, 1);
	char dir[128];
	snprintf(dir, sizeof dir, "%s/stagecut", state);
	cr_assert_eq(mkdir(dir, 0700), 0);
	ts_write_text(p1, "{}\n");
	/* a k change takes a slot with no file: never a dead session's file */
	bool left;
	cr_assert_eq(other_workbench(3, false, &left), 2);
	cr_assert_not(left);
	/* a start takes it, to offer it */
	cr_assert_eq(other_workbench(3, true, &left), 1);
	cr_assert(left);
	/* a second dead session's file, in slot 3, while slot 1 is held:
	 * offered to the next start */
	wb_recover_open(&w, true);
	cr_assert(w.rec->left);
	char p3[4096];
	slot_file(p3, sizeof p3, 3, 3);
	ts_write_text(p3, "{}\n");
	cr_assert_eq(other_workbench(3, true, &left), 3);
	cr_assert(left);
	/* another k is another name */
	cr_assert_eq(other_workbench(4, true, &left), 1);
	cr_assert_not(left);
	unbench(&w);
}

/* Puts what make makes at slot 1's recovery file (or its lock file with
 * lock), then checks that a start leaves it alone, says so and takes
 * slot 2. */
static void left_alone(const char *what, bool lock)
{
	char p1[4096], p2[4096], at[4200], dir[128];
	wb w;
	bench(&w, 3);
	snprintf(dir, sizeof dir, "%s/stagecut", state);
	cr_assert_eq(mkdir(dir, 0700), 0);
	slot_file(p1, sizeof p1, 3, 1);
	slot_file(p2, sizeof p2, 3, 2);
	if (lock) {
		const char *name = strrchr(p1, '/') + 1;
		snprintf(at, sizeof at, "%s/.%.*s.lock", dir, (int)strlen(name) - 5, name);
	} else {
		snprintf(at, sizeof at, "%s", p1);
	}
	if (strcmp(what, "a FIFO") == 0) {
		cr_assert_eq(mkfifo(at, 0600), 0);
	} else if (strcmp(what, "a directory") == 0) {
		cr_assert_eq(mkdir(at, 0700), 0);
	} else {
		char fifo[200];
		snprintf(fifo, sizeof fifo, "%s/fifo", state);
		cr_assert_eq(mkfifo(fifo, 0600), 0);
		cr_assert_eq(symlink(fifo, at), 0);
	}
	wb_recover_open(&w, true);
	cr_assert_str_eq(w.rec->path, p2);
	cr_assert_not(w.rec->left);
	cr_assert(strstr(w.rec->note, what), "%s", w.rec->note);
	cr_assert(strstr(w.rec->note, "left alone"), "%s", w.rec->note);
	unbench(&w);
	struct stat st;
	cr_assert_eq(lstat(at, &st), 0, "still there");
}

TestSuite(wbrecover_odd, .init = make_state, .fini = remove_state, .timeout = 10);

Test(wbrecover_odd, a_fifo_is_left_alone)
{
	left_alone("a FIFO", false);
}

Test(wbrecover_odd, a_directory_is_left_alone)
{
	left_alone("a directory", false);
}

Test(wbrecover_odd, a_symbolic_link_is_left_alone)
{
	left_alone("a symbolic link", false);
}

Test(wbrecover_odd, a_fifo_at_the_lock_file_is_left_alone)
{
	left_alone("a FIFO", true);
}

Test(wbrecover_odd, no_state_directory_is_said)
{
	wb w;
	bench(&w, 3);
	char file[128];
	/* a file where the state directory's stagecut/ goes */
	snprintf(file, sizeof file, "%s/stagecut", state);
	ts_write_text(file, "x\n");
	wb_recover_open(&w, true);
	cr_assert_str_eq(w.rec->path, "");
	cr_assert(strstr(w.rec->note, "no recovery file for unsaved edits"), "%s", w.rec->note);
	unbench(&w);
}
