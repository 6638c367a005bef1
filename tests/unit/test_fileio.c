/*
 * test_fileio.c - sc_file_write_atomic on every kind of path -o can name: a
 * new name and a regular file (replaced atomically, keeping its mode), a
 * FIFO and character devices (written through and still what they were
 * afterwards), a symbolic link (followed: the link stays, its target gets
 * the text), and what is refused (a link to nothing, a directory).
 */
#define _XOPEN_SOURCE 700
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/fileio.h"
#include "tests/support.h"

static char dir[64];

static void make_scratch(void)
{
	ts_make_dir(dir, "sc-fileio");
}

static void remove_scratch(void)
{
	ts_remove_dir(dir);
}

TestSuite(fileio, .init = make_scratch, .fini = remove_scratch, .timeout = 30);

static const char *in_dir(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", dir, name);
	return buf;
}

/* How many entries the scratch directory holds (no temporary file left). */
static int entries(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "ls -A %s | wc -l", dir);
	FILE *p = popen(cmd, "r");
	cr_assert(p);
	int n = -1;
	cr_assert_eq(fscanf(p, "%d", &n), 1);
	pclose(p);
	return n;
}

Test(fileio, new_and_regular_files_are_replaced_keeping_their_mode)
{
	char f[128];
	in_dir(f, sizeof f, "out.txt");
	sc_error err;
	cr_assert_eq(sc_file_write_atomic(f, "first\n", 6, &err), SC_OK, "%s", err.msg);
	char *text = ts_slurp(f, NULL);
	cr_assert_str_eq(text, "first\n");
	free(text);
	cr_assert_eq(chmod(f, 0640), 0);
	struct stat before, after;
	cr_assert_eq(stat(f, &before), 0);
	cr_assert_eq(sc_file_write_atomic(f, "second\n", 7, &err), SC_OK, "%s", err.msg);
	text = ts_slurp(f, NULL);
	cr_assert_str_eq(text, "second\n");
	free(text);
	cr_assert_eq(stat(f, &after), 0);
	cr_assert(S_ISREG(after.st_mode));
	cr_assert_eq(after.st_mode & 07777, 0640, "mode %o", (unsigned)(after.st_mode & 07777));
	/* atomic: a new inode renamed over the old one, nothing left beside it */
	cr_assert_neq(after.st_ino, before.st_ino);
	cr_assert_eq(entries(), 1);
}

Test(fileio, a_fifo_is_written_through_and_stays_a_fifo)
{
	char fifo[128];
	in_dir(fifo, sizeof fifo, "pipe");
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	int fds[2];
	cr_assert_eq(pipe(fds), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) { /* the reader: copies what comes through into the pipe */
		close(fds[0]);
		int fd = open(fifo, O_RDONLY);
		char buf[64];
		ssize_t n;
		while (fd >= 0 && (n = read(fd, buf, sizeof buf)) > 0)
			if (write(fds[1], buf, (size_t)n) != n)
				_exit(1);
		_exit(0);
	}
	close(fds[1]);
	sc_error err;
	cr_assert_eq(sc_file_write_atomic(fifo, "through a fifo\n", 15, &err), SC_OK, "%s",
	             err.msg);
	char got[64] = {0};
	size_t have = 0;
	ssize_t n;
	while ((n = read(fds[0], got + have, sizeof got - 1 - have)) > 0)
		have += (size_t)n;
	close(fds[0]);
	int status;
	waitpid(pid, &status, 0);
	cr_assert_str_eq(got, "through a fifo\n");
	struct stat st;
	cr_assert_eq(lstat(fifo, &st), 0);
	cr_assert(S_ISFIFO(st.st_mode), "the FIFO became something else");
	cr_assert_eq(entries(), 1);
}

Test(fileio, dev_null_takes_the_text_and_stays_a_device)
{
	sc_error err;
	cr_assert_eq(sc_file_write_atomic("/dev/null", "x\n", 2, &err), SC_OK, "%s", err.msg);
	struct stat st;
	cr_assert_eq(lstat("/dev/null", &st), 0);
	cr_assert(S_ISCHR(st.st_mode), "/dev/null is no longer a character device");
}

Test(fileio, dev_full_is_one_clear_error_and_stays_a_device)
{
	struct stat st;
	if (lstat("/dev/full", &st) != 0 || !S_ISCHR(st.st_mode))
		cr_skip_test("no /dev/full device here");
	sc_error err;
	cr_assert_eq(sc_file_write_atomic("/dev/full", "x\n", 2, &err), SC_ERR_IO);
	cr_assert(strstr(err.msg, "/dev/full: cannot write: No space left on device"), "%s",
	          err.msg);
	cr_assert_eq(lstat("/dev/full", &st), 0);
	cr_assert(S_ISCHR(st.st_mode), "/dev/full is no longer a character device");
}

Test(fileio, a_symlink_is_followed_and_stays_a_link)
{
	char target[128], link[128];
	in_dir(target, sizeof target, "target.json");
	in_dir(link, sizeof link, "link.json");
	ts_write_text(target, "old\n");
	cr_assert_eq(chmod(target, 0600), 0);
	cr_assert_eq(symlink("target.json", link), 0);
	sc_error err;
	cr_assert_eq(sc_file_write_atomic(link, "new\n", 4, &err), SC_OK, "%s", err.msg);
	struct stat st;
	cr_assert_eq(lstat(link, &st), 0);
	cr_assert(S_ISLNK(st.st_mode), "the link was replaced");
	char *text = ts_slurp(target, NULL);
	cr_assert_str_eq(text, "new\n");
	free(text);
	cr_assert_eq(lstat(target, &st), 0);
	cr_assert(S_ISREG(st.st_mode));
	cr_assert_eq(st.st_mode & 07777, 0600);
	cr_assert_eq(entries(), 2);
	/* a link to a device writes through to the device */
	char devlink[128];
	in_dir(devlink, sizeof devlink, "null");
	cr_assert_eq(symlink("/dev/null", devlink), 0);
	cr_assert_eq(sc_file_write_atomic(devlink, "x", 1, &err), SC_OK, "%s", err.msg);
	cr_assert_eq(lstat(devlink, &st), 0);
	cr_assert(S_ISLNK(st.st_mode));
}

Test(fileio, a_link_to_nothing_and_a_directory_are_refused_untouched)
{
	char link[128], sub[128], missing[128];
	in_dir(link, sizeof link, "dangling");
	in_dir(sub, sizeof sub, "sub");
	in_dir(missing, sizeof missing, "missing");
	cr_assert_eq(symlink("missing", link), 0);
	cr_assert_eq(mkdir(sub, 0700), 0);
	sc_error err;
	cr_assert_eq(sc_file_write_atomic(link, "x", 1, &err), SC_ERR_IO);
	cr_assert(strstr(err.msg, "dangling: a symbolic link to nothing"), "%s", err.msg);
	struct stat st;
	cr_assert_eq(lstat(link, &st), 0);
	cr_assert(S_ISLNK(st.st_mode));
	cr_assert_neq(lstat(missing, &st), 0, "the link's target was created");
	cr_assert_eq(sc_file_write_atomic(sub, "x", 1, &err), SC_ERR_IO);
	cr_assert(strstr(err.msg, "sub: cannot write: it is a directory"), "%s", err.msg);
	cr_assert_eq(lstat(sub, &st), 0);
	cr_assert(S_ISDIR(st.st_mode));
	cr_assert_eq(entries(), 2);
}

/* /dev/stdout with standard output redirected to a file: written through
 * descriptor 1, so what is printed after it follows it in the same file
 * (the shell's file, same inode), rather than a renamed file replacing the
 * one the report goes to. */
Test(fileio, dev_stdout_on_a_file_writes_through_descriptor_1)
{
	char f[128];
	in_dir(f, sizeof f, "report.txt");
	int fd = open(f, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert_geq(fd, 0);
	struct stat before, after;
	cr_assert_eq(fstat(fd, &before), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		dup2(fd, STDOUT_FILENO);
		sc_error err;
		if (sc_file_write_atomic("/dev/stdout", "{\"k\": 2}\n", 9, &err) != SC_OK)
			_exit(1);
		printf("the report after it\n");
		fflush(stdout);
		_exit(0);
	}
	close(fd);
	int status;
	waitpid(pid, &status, 0);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	char *text = ts_slurp(f, NULL);
	cr_assert_str_eq(text, "{\"k\": 2}\nthe report after it\n");
	free(text);
	cr_assert_eq(stat(f, &after), 0);
	cr_assert_eq(after.st_ino, before.st_ino, "the file was replaced");
	cr_assert_eq(entries(), 1);
}
