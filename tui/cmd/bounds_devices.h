/*
 * bounds_devices.h - the upper bound of `stagecut bounds` on devices (--cpus
 * L, 001 section 3, or --devices SPEC): your partition with its devices,
 * or the exact DP on them.  See bounds_devices.c; cmd_bounds.c runs the
 * ladder on what it gives.
 */
#ifndef UI_BOUNDS_DEVICES_H
#define UI_BOUNDS_DEVICES_H

#include <stdbool.h>

#include "core/graph.h"
#include "tui/ui.h"

/* The upper bound on devices. */
typedef struct ui_devices_upper {
	double upper;       /* the partition's objective; INFINITY: none (see optimal) */
	double mine;        /* -p: your partition's objective (INFINITY: infeasible), else NAN */
	bool optimal;       /* proven optimal by the exact DP (with none: nothing fits) */
	bool relaxed;       /* the DP's value is a lower bound only (links differ) */
	double dp_value;    /* that value, NAN when no DP ran */
	bool fallback;      /* no DP (another method, or it could not finish): search */
	int nstages;        /* the partition's stages (stage[] holds it), 0 when none */
	int *kind;          /* their kinds (malloc'd, nstages; the fleet's stages for fallback) */
	const char *method; /* "partition", "exact" or the method asked */
	double seconds;     /* the DP's time */
} ui_devices_upper;

/* Fills out for g (its settings: k >= 1 and cpus >= 1, or a fleet) and
 * the options o: with -p, reads your partition with its devices into
 * stage (no kind on more stages than its count; a file that names no
 * devices has the fleet's kinds in order); else runs the exact DP on the
 * devices (within the search's budget, ui_budget_search_now) for best and
 * exact.  For another method (-m), or when the DP cannot finish (time,
 * ideals), out->fallback asks the caller for that method's search on the
 * devices (brkga for best and exact), whose partition brings its kinds.
 * Returns UI_EXIT_OK, or an exit status after a message; free out->kind
 * either way. */
int ui_bounds_devices_upper(const ui_opts *o, const sc_graph *g, const ui_budget *budget,
                            int *stage, ui_devices_upper *out);

#endif
