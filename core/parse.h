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

#endif
