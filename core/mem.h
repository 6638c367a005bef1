/*
 * mem.h - arrays of one element per op (or per unit, stage, ...).
 *
 * A graph may have no ops, and malloc(0) may return NULL, which callers
 * would take for out of memory; these helpers always allocate at least one
 * element and check n * size for overflow.
 */
#ifndef SC_MEM_H
#define SC_MEM_H

#include <stdbool.h>
#include <stddef.h>

/* An array of n (at least one) elements of size bytes, zeroed; the caller
 * frees it.  NULL when out of memory or when n * size overflows. */
void *sc_calloc_n(size_t n, size_t size);

/* As sc_calloc_n, not zeroed. */
void *sc_malloc_n(size_t n, size_t size);

/* Whether bytes can be allocated now (tried, then given back): asked before
 * handing a library that crashes on a failed allocation (cgraph) a job of
 * about that size.  False past SIZE_MAX / 2. */
bool sc_mem_room(double bytes);

#endif
