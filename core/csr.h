/*
 * csr.h - building compressed sparse row adjacency lists.
 */
#ifndef SC_CSR_H
#define SC_CSR_H

/* Builds CSR lists for keys 0..n-1 from m pairs key[e] -> val[e]: the list
 * of key v is adj[off[v] .. off[v+1]), sorted, without duplicates.  Both
 * arrays are malloc'd and owned by the caller.  Returns the number of kept
 * entries (off[n]), or -1 when out of memory (nothing allocated). */
int sc_csr_build(int n, int m, const int *key, const int *val, int **off, int **adj);

#endif
