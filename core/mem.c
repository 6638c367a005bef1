/*
 * mem.c - arrays of one element per op.  See mem.h.
 */
#include "mem.h"

#include <stdint.h>
#include <stdlib.h>

void *sc_calloc_n(size_t n, size_t size)
{
	return calloc(n ? n : 1, size ? size : 1);
}

bool sc_mem_room(double bytes)
{
	void *room = bytes < (double)(SIZE_MAX / 2) ? malloc(bytes > 0 ? (size_t)bytes : 1) : NULL;
	free(room);
	return room != NULL;
}

void *sc_malloc_n(size_t n, size_t size)
{
	if (!n)
		n = 1;
	if (!size)
		size = 1;
	if (n > SIZE_MAX / size)
		return NULL;
	return malloc(n * size);
}
