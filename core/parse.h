/*
 * parse.h - the small parsers every loader shares: weights and file name
 * extensions.  The loaders (load_dot.c, load_fiddle.c) and the choice of a
 * loader (load.c) use them; load.h includes this header for its callers.
 * Pure functions, thread-safe.
 */
#ifndef SC_PARSE_H
#define SC_PARSE_H

#include <stdbool.h>

/* Parses a weight: a finite number >= 0, with nothing but spaces after it.
 * Returns false for anything else (empty, negative, NaN, inf, text). */
bool sc_parse_weight(const char *text, double *out);

/* Returns true when path ends with ext (e.g. ".json"), ignoring case. */
bool sc_has_extension(const char *path, const char *ext);

#endif
