/*
 * info_cpus.h - what `stagecut info --cpus L` adds (001 section 3):
 * the graph's CPU times, the file's maxCPUs, and the practitioner's table
 * of the optimal bottleneck with 0, 1 and 2 CPU stages at the k asked and
 * at one accelerator more.  See info_cpus.c.
 */
#ifndef UI_INFO_CPUS_H
#define UI_INFO_CPUS_H

#include <jansson.h>

#include "core/graph.h"

/* The table's cells: the optimum at k + dk accelerators and l CPUs, by the
 * exact DP (INFINITY: nothing fits; NAN: the DP could not finish, see
 * why). */
typedef struct ui_cpu_table {
	int k;               /* the k asked (0: none, no table) */
	double opt[2][3];    /* [dk][l] */
	char why[2][3][160]; /* for a NAN cell, the DP's error */
} ui_cpu_table;

/* Fills t for g (its settings' k; each DP without balancing). */
void ui_cpu_table_fill(const sc_graph *g, ui_cpu_table *t);

/* Prints the CPU lines and the table on stdout. */
void ui_info_cpus_print(const sc_graph *g, const ui_cpu_table *t);

/* The same as a JSON object (the "cpus" key of info --json). */
json_t *ui_info_cpus_json(const sc_graph *g, const ui_cpu_table *t);

#endif
