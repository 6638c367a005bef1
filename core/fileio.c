/*
 * fileio.c - atomic file writes (temporary file + rename).  See fileio.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "fileio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

sc_status sc_file_write_atomic(const char *path, const char *data, size_t len, sc_error *err)
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
	/* mkstemp makes the file 0600; give it the usual mode for new files */
	mode_t mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	size_t done = 0;
	while (done < len) {
		ssize_t w = write(fd, data + done, len - done);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		done += (size_t)w;
	}
	int saved = errno;
	if (done < len || fsync(fd) != 0) {
		saved = saved ? saved : errno;
		close(fd);
		unlink(tmp);
		free(tmp);
		return sc_error_set(err, SC_ERR_IO, "%s: cannot write: %s", path, strerror(saved));
	}
	if (close(fd) != 0 || rename(tmp, path) != 0) {
		saved = errno;
		unlink(tmp);
		free(tmp);
		return sc_error_set(err, SC_ERR_IO, "%s: cannot write: %s", path, strerror(saved));
	}
	free(tmp);
	return SC_OK;
}
