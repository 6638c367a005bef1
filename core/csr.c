/*
 * csr.c - compressed sparse rows from edge lists.  See csr.h.
 *
 * A counting sort by key places each list, then each list is sorted and its
 * duplicates squeezed out in place, so the arrays stay one allocation each.
 */
#include "csr.h"

#include <stdlib.h>
#include <string.h>

#include "mem.h"

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

int sc_csr_build(int n, int m, const int *key, const int *val, int **off_out, int **adj_out)
{
	int *off = calloc((size_t)n + 1, sizeof *off);
	int *adj = sc_malloc_n((size_t)m, sizeof *adj);
	if (!off || !adj) {
		free(off);
		free(adj);
		return -1;
	}
	for (int e = 0; e < m; e++)
		off[key[e] + 1]++;
	for (int v = 0; v < n; v++)
		off[v + 1] += off[v];
	int *fill = sc_malloc_n((size_t)n, sizeof *fill);
	if (!fill) {
		free(off);
		free(adj);
		return -1;
	}
	memcpy(fill, off, (size_t)n * sizeof *fill);
	for (int e = 0; e < m; e++)
		adj[fill[key[e]]++] = val[e];
	/* sort each list and squeeze out duplicates, compacting in place */
	int w = 0;
	for (int v = 0; v < n; v++) {
		int lo = off[v], hi = off[v + 1];
		qsort(adj + lo, (size_t)(hi - lo), sizeof *adj, cmp_int);
		off[v] = w;
		for (int i = lo; i < hi; i++)
			if (i == lo || adj[i] != adj[i - 1])
				adj[w++] = adj[i];
	}
	off[n] = w;
	free(fill);
	*off_out = off;
	*adj_out = adj;
	return w;
}
