/*
 * fileio.h - writing files so that nothing good is lost.
 */
#ifndef SC_FILEIO_H
#define SC_FILEIO_H

#include <stddef.h>

#include "error.h"

/* Writes len bytes of data to path atomically: into a new temporary file in
 * the same directory, flushed, then renamed over path.  On any failure the
 * temporary file is removed and path is untouched; returns SC_ERR_IO with a
 * message naming path and the reason. */
sc_status sc_file_write_atomic(const char *path, const char *data, size_t len, sc_error *err);

#endif
