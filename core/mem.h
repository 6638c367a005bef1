/*
 * mem.h - arrays of one element per op (or per unit, stage, ...).
 *
 * A graph may have no ops, and malloc(0) may return NULL, which callers
 * would take for out of memory; these helpers always allocate at least one
 * element and check n * size for overflow.
 */
#ifndef SC_MEM_H
#define SC_MEM_H

#include <stddef.h>

/* An array of n (at least one) elements of size bytes, zeroed; the caller
 * frees it.  NULL when out of memory or when n * size overflows. */
void *sc_calloc_n(size_t n, size_t size);

/* As sc_calloc_n, not zeroed. */
void *sc_malloc_n(size_t n, size_t size);

#endif
