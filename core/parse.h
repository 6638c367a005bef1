/*
 * parse.h - the small parsers every loader shares: weights and file name
 * extensions.  The loaders (load_dot.c, load_fiddle.c) and the choice of a
 * loader (load.c) use them; load.h includes this header for its callers.
 * Pure functions, thread-safe.
 */
#ifndef SC_PARSE_H
#define SC_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "error.h"

/* Parses a weight: a finite number >= 0, with nothing but spaces after it.
 * Returns false for anything else (empty, negative, NaN, inf, text). */
bool sc_parse_weight(const char *text, double *out);

/* Returns true when path ends with ext (e.g. ".json"), ignoring case. */
bool sc_has_extension(const char *path, const char *ext);

/* The length (1 to 4) of the UTF-8 sequence at s, or 0 when s does not
 * start a valid one (RFC 3629: no overlong forms, surrogates or code points
 * above U+10FFFF -- what jansson accepts, so that every valid name can be
 * written to a JSON file).  s must be NUL-terminated; *s must not be NUL. */
int sc_utf8_length(const char *s);

/* Returns true when the NUL-terminated text is valid UTF-8; otherwise false
 * with the offset of the first byte that is not in *bad. */
bool sc_utf8_valid(const char *text, size_t *bad);

/* A malloc'd copy of text with every byte that is not part of a valid UTF-8
 * sequence written as \xHH (four characters), so that the copy is valid
 * UTF-8 and names the same bytes; NULL when out of memory.  The caller
 * frees it. */
char *sc_utf8_escape(const char *text);

/* What kind of JSON value v is, for messages: "an object", "an array", "a
 * string", "a number", "a boolean", "null", or "missing" for NULL. */
const char *sc_json_kind(const json_t *v);

/* A JSON string of text: text itself when it is valid UTF-8, else its
 * escaped copy (sc_utf8_escape: each stray byte as \xHH), since jansson
 * refuses a string that is not UTF-8 (a path given on the command line may
 * be anything); null for NULL.  NULL only when out of memory. */
json_t *sc_json_text(const char *text);

/* json_loadb(data, len, flags, jerr), except that a valid number jansson
 * would refuse as an integer too large for 64 bits ("too big integer") is
 * read as the real number it is: on that error the text is read again with
 * JSON_DECODE_INT_AS_REAL (every integer of it then a real, which
 * sc_json_whole reads as an integer still).  NULL with jerr set on
 * failure: see sc_json_error. */
json_t *sc_json_loadb(const char *data, size_t len, size_t flags, json_error_t *jerr);

/* Sets err (SC_ERR_INPUT) for a failed sc_json_loadb of path:
 * "PATH:LINE:COL: malformed JSON: TEXT", or for a number beyond the range
 * of a double (valid JSON that no double holds, such as 1e400)
 * "PATH:LINE:COL: a number too large to hold (beyond 1.8e308): TEXT".
 * Returns SC_ERR_INPUT. */
sc_status sc_json_error(sc_error *err, const char *path, const json_error_t *jerr);

/* Whether v is a whole number: an integer, or a real without a fraction
 * (4.0, 1e3, or an integer beyond 64 bits that sc_json_loadb read as a
 * real), so that a number needs no particular spelling to count as an
 * integer.  *out gets its value (a real's clamped to the 64-bit range);
 * *exact (may be NULL) is false for a real beyond 2^53, which may not be
 * the number written, true otherwise. */
bool sc_json_whole(const json_t *v, json_int_t *out, bool *exact);

#endif
