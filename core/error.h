/*
 * error.h - errors as values.
 *
 * Every fallible function in core/, solvers/ and viz/ returns a status and, on
 * failure, fills a caller-owned sc_error with a code and one line of text that
 * names the file (and line, op and attribute where known).  Library code never
 * prints or exits; tui/ turns the code into an exit status and prints the text.
 */
#ifndef SC_ERROR_H
#define SC_ERROR_H

#include <stdarg.h>
#include <stddef.h>

typedef enum sc_status {
	SC_OK = 0,
	SC_ERR_INPUT,   /* the input (file, option, value) is malformed */
	SC_ERR_IO,      /* the file could not be read or written */
	SC_ERR_NOMEM,   /* out of memory */
	SC_ERR_LIMIT,   /* a size or resource limit was exceeded */
	SC_ERR_INVALID, /* a well-formed partition breaks the stage order, a
	                 * group or a hard memory limit */
	SC_ERR_INTERNAL,
} sc_status;

typedef struct sc_error {
	sc_status code;
	char msg[2048]; /* room for a few names at SC_MSG_NAME_MAX */
} sc_error;

/* The most bytes of a name a message quotes (see sc_msg_vformat). */
#define SC_MSG_NAME_MAX 200

/* Formats fmt as vsnprintf does into buf (size bytes, NUL-terminated when
 * size > 0) and returns the length of the whole text, except that the
 * argument of a "%s" written between single quotes ('%s': how messages
 * quote a name from the input) longer than SC_MSG_NAME_MAX bytes prints as
 * its first SC_MSG_NAME_MAX bytes (cut before a character, not inside one),
 * "..." and its length: 'aaaa... (10000000 bytes)'.  Every other
 * conversion prints as vsnprintf prints it.  Thread-safe. */
int sc_msg_vformat(char *buf, size_t size, const char *fmt, va_list ap);
int sc_msg_format(char *buf, size_t size, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* name bounded as sc_msg_vformat bounds a quoted name, into buf (size
 * bytes, at least SC_MSG_NAME_MAX + 40 for the whole); returns buf.  For a
 * name a message prints without quotes (in a list).  Thread-safe. */
const char *sc_msg_name(char *buf, size_t size, const char *name);

/* Sets err (if not NULL) to code and a printf-style message, formatted by
 * sc_msg_vformat (quoted names bounded); returns code so callers can write
 * `return sc_error_set(err, SC_ERR_INPUT, ...);`. */
sc_status sc_error_set(sc_error *err, sc_status code, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* Sets err to SC_ERR_NOMEM with a message naming what was being allocated. */
sc_status sc_error_nomem(sc_error *err, const char *what);

/* Clears err to SC_OK with an empty message. */
void sc_error_clear(sc_error *err);

#endif
