/*
 * fileio.h - reading a whole file, and writing files so that nothing good is
 * lost.
 */
#ifndef SC_FILEIO_H
#define SC_FILEIO_H

#include <stddef.h>
#include <stdio.h>

#include "error.h"

/* Writes len bytes of data to path.  A new name or a regular file is written
 * atomically: into a new temporary file in the same directory, flushed, then
 * renamed over path (an existing file keeps its permission bits); on any
 * failure the temporary file is removed and path is untouched.  A character
 * device or a FIFO (/dev/null, /dev/stdout, a named pipe) is opened and
 * written through, never replaced; opening a FIFO waits for its reader.  The
 * regular file standard output is open on (-o /dev/stdout > FILE) is written
 * through descriptor 1 at its offset, not replaced.  A
 * symbolic link is followed: the link stays and its target is written by
 * these rules (a regular target replaced atomically in its own directory); a
 * link to nothing, a directory or any other kind of file is refused.  Returns
 * SC_OK, or SC_ERR_IO with a message naming path and the reason (also for a
 * full device, such as /dev/full).  Not thread-safe (reads the umask). */
sc_status sc_file_write_atomic(const char *path, const char *data, size_t len, sc_error *err);

/* path opened for reading in binary, or NULL with err set (SC_ERR_IO):
 * "PATH: cannot open: REASON", or "PATH: is a directory, not WHAT".
 * Thread-safe. */
FILE *sc_file_open_read(const char *path, const char *what, sc_error *err);

/* The whole of path, malloc'd with a NUL after its *len bytes (the caller
 * frees it); NULL with err set: SC_ERR_IO when it cannot be opened or read
 * or is a directory ("PATH: is a directory, not WHAT"), SC_ERR_NOMEM.
 * Thread-safe. */
char *sc_file_read_all(const char *path, const char *what, size_t *len, sc_error *err);

#endif
