/*
 * fileio.c - writing an output file without losing what was there.  See
 * fileio.h.
 *
 * What the path names decides how it is written (stat follows symbolic
 * links, so a link is judged by what it points to):
 *   - nothing yet, or a regular file: a temporary file beside it, flushed,
 *     then renamed over it, so a failed write leaves the old file whole; an
 *     existing file keeps its permission bits;
 *   - a symbolic link: followed, as the shell's `>` would; the link stays a
 *     link and its target gets the output by the rules here (a regular
 *     target is replaced atomically, in its own directory); a link to
 *     nothing is refused rather than replaced;
 *   - a character device or a FIFO (/dev/null, /dev/stdout on a terminal or
 *     a pipe, a named pipe): opened and written through; there is nothing to
 *     rename, and replacing the node with a file would break it;
 *   - the regular file standard output is open on (/dev/stdout redirected
 *     to a file): written through descriptor 1, so that the output and the
 *     report printed after it both land in that file, in order;
 *   - anything else (a directory, a block device, a socket): refused.
 */
#define _XOPEN_SOURCE 700
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Writes all of data to fd; false with errno set on failure. */
static bool write_all(int fd, const char *data, size_t len)
{
	size_t done = 0;
	while (done < len) {
		ssize_t w = write(fd, data + done, len - done);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return false;
		}
		if (w == 0) {
			errno = EIO;
			return false;
		}
		done += (size_t)w;
	}
	return true;
}

/* A character device or FIFO: open it as it is and write. */
static sc_status write_through(const char *path, const char *data, size_t len, sc_error *err)
{
	int fd = open(path, O_WRONLY | O_NOCTTY);
	if (fd < 0)
		return sc_error_set(err, SC_ERR_IO, "%s: cannot open for writing: %s", path,
		                    strerror(errno));
	bool ok = write_all(fd, data, len);
	int saved = errno;
	if (close(fd) != 0 && ok) {
		ok = false;
		saved = errno;
	}
	if (!ok)
		return sc_error_set(err, SC_ERR_IO, "%s: cannot write: %s", path, strerror(saved));
	return SC_OK;
}

/* A regular file or a new name: temporary file + rename.  mode < 0: a new
 * file, given the usual mode for new files; otherwise the mode to keep. */
static sc_status write_replace(const char *path, const char *data, size_t len, long mode,
                               sc_error *err)
{
	size_t plen = strlen(path);
	char *tmp = malloc(plen + 16);
	if (!tmp)
		return sc_error_nomem(err, "a file name");
	snprintf(tmp, plen + 16, "%s.tmp.XXXXXX", path);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		sc_status st = sc_error_set(err, SC_ERR_IO,
		                            "%s: cannot create a temporary file beside it: %s",
		                            path, strerror(errno));
		free(tmp);
		return st;
	}
	if (mode < 0) {
		/* mkstemp makes the file 0600; give it the usual mode for new files */
		mode_t mask = umask(0);
		umask(mask);
		mode = (long)(0666 & ~mask);
	}
	fchmod(fd, (mode_t)mode);
	bool ok = write_all(fd, data, len) && fsync(fd) == 0;
	int saved = errno;
	if (close(fd) != 0 && ok) {
		ok = false;
		saved = errno;
	}
	if (ok && rename(tmp, path) != 0) {
		ok = false;
		saved = errno;
	}
	if (!ok)
		unlink(tmp);
	free(tmp);
	if (!ok)
		return sc_error_set(err, SC_ERR_IO, "%s: cannot write: %s", path, strerror(saved));
	return SC_OK;
}

sc_status sc_file_write_atomic(const char *path, const char *data, size_t len, sc_error *err)
{
	struct stat lst, st;
	if (lstat(path, &lst) != 0) {
		if (errno != ENOENT)
			return sc_error_set(err, SC_ERR_IO, "%s: cannot write: %s", path,
			                    strerror(errno));
		return write_replace(path, data, len, -1, err);
	}
	if (!S_ISLNK(lst.st_mode))
		st = lst;
	else if (stat(path, &st) != 0)
		return sc_error_set(err, SC_ERR_IO,
		                    "%s: a symbolic link to nothing (%s); not replacing the link",
		                    path, strerror(errno));
	if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
		return write_through(path, data, len, err);
	if (S_ISDIR(st.st_mode))
		return sc_error_set(err, SC_ERR_IO, "%s: cannot write: it is a directory", path);
	if (!S_ISREG(st.st_mode))
		return sc_error_set(err, SC_ERR_IO,
		                    "%s: cannot write: not a regular file, character device or "
		                    "FIFO",
		                    path);
	/* the file standard output already writes to (-o /dev/stdout with
	 * stdout redirected to a file): write there, after what precedes it,
	 * instead of replacing the file under the report that follows */
	struct stat so;
	if (fstat(STDOUT_FILENO, &so) == 0 && S_ISREG(so.st_mode) && so.st_dev == st.st_dev &&
	    so.st_ino == st.st_ino) {
		if (!write_all(STDOUT_FILENO, data, len))
			return sc_error_set(err, SC_ERR_IO, "%s: cannot write: %s", path,
			                    strerror(errno));
		return SC_OK;
	}
	long mode = (long)(st.st_mode & 07777);
	if (!S_ISLNK(lst.st_mode))
		return write_replace(path, data, len, mode, err);
	/* a link to a regular file: replace the target, where it is */
	char *real = realpath(path, NULL);
	if (!real) /* e.g. /dev/stdout on a file since deleted: write into it */
		return write_through(path, data, len, err);
	sc_status rs = write_replace(real, data, len, mode, err);
	free(real);
	return rs;
}

FILE *sc_file_open_read(const char *path, const char *what, sc_error *err)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		sc_error_set(err, SC_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
		return NULL;
	}
	struct stat sb;
	if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
		fclose(f);
		sc_error_set(err, SC_ERR_IO, "%s: is a directory, not %s", path, what);
		return NULL;
	}
	return f;
}

char *sc_file_read_all(const char *path, const char *what, size_t *len, sc_error *err)
{
	FILE *f = sc_file_open_read(path, what, err);
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	while (buf) {
		n += fread(buf + n, 1, cap - 1 - n, f);
		if (n < cap - 1)
			break;
		char *more = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
		if (!more)
			free(buf);
		buf = more;
		cap *= 2;
	}
	bool bad = ferror(f);
	fclose(f);
	if (!buf) {
		sc_error_nomem(err, what);
		return NULL;
	}
	if (bad) {
		free(buf);
		sc_error_set(err, SC_ERR_IO, "%s: cannot read", path);
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}
