/*
 * bounds_cpu.h - the upper bound of `stagecut bounds --cpus L` (001 section 3):
 * your partition with its devices, or the exact DP with CPU stages.  See
 * bounds_cpu.c; cmd_bounds.c runs the ladder on what it gives.
 */
#ifndef UI_BOUNDS_CPU_H
#define UI_BOUNDS_CPU_H

#include <stdbool.h>

#include "core/graph.h"
#include "tui/ui.h"

/* The upper bound with CPU stages. */
typedef struct ui_cpu_upper {
	double upper;       /* the partition's objective; INFINITY: none (see optimal) */
	double mine;        /* -p: your partition's objective (INFINITY: infeasible), else NAN */
	bool optimal;       /* proven optimal by the exact DP (with none: nothing fits) */
	bool fallback;      /* no DP (another method, or it could not finish): search */
	int nstages;        /* the partition's stages (stage[] holds it), 0 when none */
	bool *cpu;          /* their devices (malloc'd, nstages flags; k + L for fallback) */
	const char *method; /* "partition", "exact" or the method asked */
	double seconds;     /* the DP's time */
} ui_cpu_upper;

/* Fills out for g (its settings: k >= 1, cpus >= 1) and the options o:
 * with -p, reads your partition with its devices into stage (it may use
 * at most k accelerator and cpus CPU stages); else runs the exact DP with
 * CPU stages (within the search's budget, ui_budget_search_now) for best
 * and exact.  For another method (-m), or when the DP
 * cannot finish (time, ideals), out->fallback asks the caller for that
 * method's search with CPU stages (brkga for best and exact), whose
 * partition brings its devices.  Returns UI_EXIT_OK, or an exit status
 * after a message; free out->cpu either way. */
int ui_bounds_cpu_upper(const ui_opts *o, const sc_graph *g, const ui_budget *budget, int *stage,
                        ui_cpu_upper *out);

#endif
