/*
 * wb_sample.c - what the workbench opens when it is given nothing: the
 * bundled sample graph, and a first partition to show at once before any
 * search has run.  The start-up that uses them is in workbench.c.
 *
 * Layer: the bottom (layer 1 in wb.h): it calls no other file of tui/wb/.
 */
#define _POSIX_C_SOURCE 200809L
#include "tui/wb/wb_sample.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/fleet.h"
#include "core/partition.h"
#include "solvers/search.h"
#include "solvers/simple.h"
#include "tui/wb/workbench.h"

#ifndef SC_DATADIR
#define SC_DATADIR "/usr/local/share/stagecut"
#endif
#define SC_DEFAULT_SAMPLE "samples/msr-fiddle/operator/bert_l-3_inference.json"

const char *ui_default_sample(char *buf, size_t size)
{
	/* beside the program in a source tree, then PREFIX/share relative to an
	 * installed program (so PREFIX may differ between build and install),
	 * then the compiled-in data directory */
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (len > 0) {
		exe[len] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			snprintf(buf, size, "%s/%s", exe, SC_DEFAULT_SAMPLE);
			if (access(buf, R_OK) == 0)
				return buf;
			snprintf(buf, size, "%s/../share/stagecut/%s", exe, SC_DEFAULT_SAMPLE);
			if (access(buf, R_OK) == 0)
				return buf;
		}
	}
	snprintf(buf, size, "%s/%s", SC_DATADIR, SC_DEFAULT_SAMPLE);
	return buf;
}

/* Whether a first partition is valid.  On inference graphs it always is
 * (a search's result, a split of a topological order); a training graph's
 * backward pass has rules of its own (DESIGN.md section 1) that a search
 * or the split may not keep yet, so it is checked, in O(n + m). */
static bool first_valid(const sc_graph *g, const sc_settings *set, const int *stage)
{
	sc_violation viol;
	return !sc_graph_is_training(g) || sc_part_check(g, stage, set->k, &viol);
}

void wb_first_partition(const sc_graph *g, const sc_settings *set, int *stage, char *origin,
                        size_t size)
{
	sc_error err;
	/* DPL (one sliced depth-first order) and refinement take well under a
	 * second up to this size */
	if (g->n <= 20000) {
		sc_search_params p;
		sc_search_params_init(&p);
		p.method = "dpl";
		p.time_limit = 0.5;
		sc_search *s = sc_search_new(g, set, &p, &err);
		if (s && sc_search_run(s, &err) == SC_OK &&
		    isfinite(sc_search_result(s, stage, NULL)) && first_valid(g, set, stage)) {
			sc_search_free(s);
			snprintf(origin, size, "first partition: dpl + refine");
			return;
		}
		sc_search_free(s);
	}
	sc_greedy_split(g, set->k, stage, &err);
	snprintf(origin, size, "first partition: greedy split");
	if (!first_valid(g, set, stage)) {
		/* one stage keeps every rule of any graph */
		memset(stage, 0, (size_t)g->n * sizeof *stage);
		snprintf(origin, size, "first partition: one stage");
	}
}

bool wb_first_partition_cpus(const sc_graph *g, const sc_settings *set, int *stage, int *kind,
                             char *origin, size_t size)
{
	sc_error err;
	sc_search_params p;
	sc_search_params_init(&p);
	p.method = g->n <= 20000 ? "dpl" : "kahn";
	p.time_limit = 0.5;
	sc_search *s = sc_search_new(g, set, &p, &err);
	bool optimal;
	int K = sc_settings_stages(set);
	sc_fleet f;
	bool ok = s && sc_search_run(s, &err) == SC_OK &&
	          isfinite(sc_search_result_kinds(s, stage, kind, &optimal));
	/* (a search's partition never breaks its kinds; checked all the same) */
	ok = ok && sc_fleet_resolve(g, set, &f, NULL) &&
	     sc_part_check_kinds(g, stage, K, &f, kind, NULL);
	sc_search_free(s);
	snprintf(origin, size, "first partition: %s with %s", p.method,
	         set->fleet ? "the devices" : "CPUs");
	return ok;
}
