/*
 * wb_files.c - the workbench's files: saving the current partition (w),
 * loading one (L), and quitting, which asks first while edits are unsaved.
 * Each asks with a prompt (wb_lineedit.c; quitting with a one-key
 * confirmation) and acts in the prompt's answer.
 * The partition given with -p at start is read in workbench.c; the
 * recovery file is wb_recover.c's.
 *
 * Layer: a service of layer 4 (wb.h), called by the global actions
 * (wb_keys.c); it calls the state, the prompt and the recovery file.
 */
#define _POSIX_C_SOURCE 200809L
#include "tui/wb/wb_files.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/formats/partition_file.h"
#include "core/partition.h"
#include "solvers/simple.h"
#include "tui/wb/wb_devices.h"
#include "tui/wb/wb_jobs.h"
#include "tui/wb/wb_lineedit.h"
#include "tui/wb/wb_recover.h"

static unsigned save_answer(wb *w, const char *path, bool ok, int then_quit)
{
	if (!ok) {
		wb_say(w, "not saved");
		return 0;
	}
	sc_error err;
	/* with CPU stages the file names each stage's device */
	if (sc_part_write(path, w->g, w->stage, sc_settings_stages(&w->set), w->c, &err) != SC_OK) {
		wb_say(w, "not saved: %s", err.msg);
		return 0;
	}
	snprintf(w->origin, sizeof w->origin, "saved to %.150s", path);
	wb_mark_saved(w);
	wb_recover_clear(w);
	wb_say(w, "saved to %s", path);
	return then_quit ? WB_QUIT : 0;
}

unsigned wb_save(wb *w, bool then_quit)
{
	char path[1024];
	const char *base = w->g->name;
	const char *dot = strrchr(base, '.');
	int stem = dot ? (int)(dot - base) : (int)strlen(base);
	snprintf(path, sizeof path, "%.*s-k%d.partition.json", stem, base,
	         sc_settings_stages(&w->set));
	return wb_ask(w, "save the partition to:", path, sizeof path, save_answer, then_quit);
}

static unsigned load_answer(wb *w, const char *path, bool ok, int arg)
{
	(void)arg;
	if (!ok)
		return 0;
	int k2;
	sc_error err;
	int *st = sc_part_new(w->g);
	if (!st) {
		wb_say(w, "out of memory");
		return 0;
	}
	/* read it for any k, so a wrong k can say how to fix it */
	int *kind = NULL, *none = NULL;
	sc_status s = wb_part_load(w, path, 0, &k2, st, &kind, &err);
	int ncpu = 0;
	for (int i = 0; kind && !w->set.fleet && i < k2; i++)
		ncpu += kind[i] == 1;
	if (s != SC_OK && s != SC_ERR_INVALID) {
		wb_say(w, "not loaded: %s", err.msg);
	} else if (!w->set.fleet && (ncpu > w->set.cpus || (ncpu && !w->kind))) {
		wb_say(w,
		       "not loaded: %s has %d CPU stage%s; this run has %d (stagecut FILE -p %s)",
		       path, ncpu, ncpu == 1 ? "" : "s", w->kind ? w->set.cpus : 0, path);
	} else if (!w->set.fleet && w->kind && !kind &&
	           !(none = calloc((size_t)k2 + 1, sizeof *none))) {
		wb_say(w, "out of memory");
	} else if (k2 != sc_settings_stages(&w->set)) {
		wb_say(w, "not loaded: %s has k = %d; change k to %d first (o)", path, k2, k2);
	} else if (s == SC_ERR_INVALID) {
		wb_say(w, "not loaded: %s", err.msg);
	} else {
		char origin[160];
		snprintf(origin, sizeof origin, "loaded from %.140s", path);
		/* with CPU stages the file's devices come along (none: all
		 * accelerators), as one undo entry */
		wb_set_current_kinds(w, st, kind ? kind : none, origin, true);
		/* the file holds it: nothing unsaved until it is edited */
		wb_mark_saved(w);
		wb_say(w, "loaded %s (u undoes)", path);
	}
	free(st);
	free(kind);
	free(none);
	return 0;
}

unsigned wb_load(wb *w)
{
	return wb_ask(w, "load a partition file:", "", 1024, load_answer, 0);
}

static unsigned quit_answer(wb *w, const char *answer, bool ok, int arg)
{
	(void)ok;
	(void)arg;
	if (answer[0] == 'q') {
		wb_recover_clear(w);
		return WB_QUIT;
	}
	if (answer[0] == 'w')
		return wb_save(w, true);
	return 0;
}

unsigned wb_quit(wb *w)
{
	if (!w->edited) {
		/* nothing unsaved (undone back to the baseline, say): a recovery
		 * file written before the undo must not outlive the session */
		if (!wb_recover_asking(w))
			wb_recover_clear(w);
		return WB_QUIT;
	}
	return wb_choose(w, "the partition has unsaved changes: w saves, q quits anyway, Esc stays",
	                 "wq", quit_answer, 0);
}

/* The graph again with the measured times in path: the same ops (names and
 * order) with new work; the partition stays, its costs are recomputed, the
 * jobs and the bounds start over for the new costs. */
static unsigned times_answer(wb *w, const char *path, bool ok, int arg)
{
	(void)arg;
	if (!ok || !*path)
		return WB_REDRAW;
	ui_opts o = *w->opts;
	o.times = path;
	sc_onnx_report rep = {0};
	sc_error err;
	sc_error_clear(&err);
	sc_graph *g2 = ui_load_file(w->path, &o, &rep, &err);
	sc_onnx_report_fini(&rep);
	if (!g2) {
		wb_say(w, "not loaded: %s", err.msg);
		return WB_REDRAW;
	}
	bool same = g2->n == w->g->n;
	for (int v = 0; same && v < g2->n; v++)
		same = strcmp(g2->op_name[v], w->g->op_name[v]) == 0;
	int *st = same ? sc_part_new(w->g) : NULL;
	if (!same || !st) {
		wb_say(w, "not loaded: %s",
		       same ? "out of memory" : "the graph's ops changed on disk");
		sc_graph_free(g2);
		free(st);
		return WB_REDRAW;
	}
	/* no job may read the work while it changes */
	sc_ladder_free(w->jobs->ladder);
	w->jobs->ladder = NULL;
	sc_engine_cancel(w->eng, -1);
	sc_engine_wait(w->eng, -1);
	memcpy(w->g->work, g2->work, (size_t)g2->n * sizeof *g2->work);
	free(w->g->work_source);
	free(w->g->cost_origin);
	free(w->g->cost_short);
	w->g->work_source = g2->work_source;
	w->g->cost_origin = g2->cost_origin;
	w->g->cost_short = g2->cost_short;
	g2->work_source = NULL;
	g2->cost_origin = g2->cost_short = NULL;
	sc_graph_free(g2);
	memcpy(st, w->stage, (size_t)w->g->n * sizeof *st);
	char origin[sizeof w->origin];
	memcpy(origin, w->origin, sizeof origin);
	if (wb_new_editor(w, st)) {
		memcpy(w->origin, origin, sizeof origin);
		wb_mark_saved(w);
	}
	free(st);
	w->simple = wb_simple_bound(w);
	wb_reset_best(w);
	wb_start_search(w, NULL, NULL);
	wb_say(w, "costs: %s", w->g->cost_origin ? w->g->cost_origin : path);
	return WB_REDRAW;
}

unsigned wb_load_times(wb *w)
{
	return wb_ask(w, "measured op times (ONNX Runtime profile or CSV):", "", 1024, times_answer,
	              0);
}
