/*
 * info_devices.h - what `stagecut info` adds with devices: with --cpus L
 * (001 section 3) the graph's CPU times, the file's maxCPUs, and the
 * practitioner's table of the optimal bottleneck with 0, 1 and 2 CPU
 * stages at the k asked and at one accelerator more; with --devices SPEC
 * each kind's op times, memory and link, and the table of the optimum on
 * the fleet and on the fleets one device smaller or larger of each kind.
 * Both tables are mixes of devices, each solved by the exact DP (one
 * function, ui_mix_solve); see info_devices.c.
 */
#ifndef UI_INFO_DEVICES_H
#define UI_INFO_DEVICES_H

#include <jansson.h>
#include <stdbool.h>

#include "core/fleet.h"
#include "core/graph.h"

/* One mix of devices and what the exact DP proved of it: lower = upper
 * = the optimum when proven (INFINITY: no partition fits); when the
 * kinds' links differ the DP's value is a lower bound and upper its
 * partition's true cost, proven only when they meet; NAN when the DP
 * could not finish (why says so). */
typedef struct ui_mix {
	sc_fleet f; /* names and counts */
	double lower, upper;
	char why[160];
} ui_mix;

#define UI_MIX_MAX SC_FLEET_NEIGHBOURS

typedef struct ui_mix_table {
	int k; /* the k asked (the CPU table; 0: none, no table) */
	int n; /* rows */
	ui_mix row[UI_MIX_MAX];
} ui_mix_table;

/* The simple bound with up to cpus CPU stages beside k accelerators
 * (simple.h); NAN when out of memory. */
double ui_simple_cpus(const sc_graph *g, int k, int cpus);

/* Solves the mix m on g (its settings but the devices) by the exact DP. */
void ui_mix_solve(const sc_graph *g, ui_mix *m);

/* The CPU table for g (its settings' k): rows k and k + 1 accelerators by
 * 0, 1 and 2 CPUs, row dk * 3 + l. */
void ui_cpu_table_fill(const sc_graph *g, ui_mix_table *t);

/* Prints the CPU lines and the table on stdout. */
void ui_info_cpus_print(const sc_graph *g, const ui_mix_table *t);

/* The same as a JSON object (the "cpus" key of info --json). */
json_t *ui_info_cpus_json(const sc_graph *g, const ui_mix_table *t);

/* The devices table for g on its settings' fleet: the fleet, then for
 * each kind the fleet with one fewer (when it has one and a stage is
 * left) and one more of it. */
void ui_devices_table_fill(const sc_graph *g, ui_mix_table *t);

/* Prints the kinds and the table on stdout. */
void ui_info_devices_print(const sc_graph *g, const ui_mix_table *t);

/* The same as a JSON object (the "devices" key of info --json). */
json_t *ui_info_devices_json(const sc_graph *g, const ui_mix_table *t);

#endif
