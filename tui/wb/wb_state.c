/*
 * wb_state.c - the workbench's shared state changes: the modal stack, the
 * status line, and the current partition (its editor, what a change
 * triggers, the baseline it is compared with: unsaved means different from
 * the partition last saved, loaded or set by the program, by content, so an
 * undo back to it leaves nothing unsaved).  Everything here is small and called from every other
 * file; the jobs that produce partitions are in wb_jobs.c, the files in wb_files.c, the loop in
 * workbench.c.
 *
 * Layer: the bottom.  It calls no other file of tui/wb/ (only core/); what
 * a change must tell the views it reaches through the ops pointers in
 * w->views and the modal stack holds ops pointers, so no view or modal is
 * named here.
 */
#define _POSIX_C_SOURCE 200809L
#include "tui/wb/wb.h"

#include <stdarg.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "solvers/simple.h"
#include "core/formats/partition_file.h"
#include "core/partition.h"
#include "tui/ui.h"

void wb_modal_push(wb *w, const wb_modal_ops *m)
{
	wb_modal_push_arg(w, m, NULL);
}

void wb_modal_push_arg(wb *w, const wb_modal_ops *m, void *arg)
{
	if (w->nmodal < WB_MODALS) {
		w->modal[w->nmodal++] = (wb_open_modal){.ops = m, .arg = arg};
	}
}

void *wb_modal_arg(const wb *w, const wb_modal_ops *m)
{
	for (int i = w->nmodal - 1; i >= 0; i--)
		if (w->modal[i].ops == m)
			return w->modal[i].arg;
	return NULL;
}

void wb_modal_pop(wb *w)
{
	if (w->nmodal > 0)
		w->nmodal--;
}

void wb_modal_close(wb *w, const wb_modal_ops *m)
{
	int j = 0;
	for (int i = 0; i < w->nmodal; i++)
		if (w->modal[i].ops != m)
			w->modal[j++] = w->modal[i];
	w->nmodal = j;
}

const wb_modal_ops *wb_modal_top(const wb *w)
{
	return w->nmodal ? w->modal[w->nmodal - 1].ops : NULL;
}

bool wb_modal_open(const wb *w, const wb_modal_ops *m)
{
	for (int i = 0; i < w->nmodal; i++)
		if (w->modal[i].ops == m)
			return true;
	return false;
}

void wb_say(wb *w, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(w->msg, sizeof w->msg, fmt, ap);
	va_end(ap);
	w->msg_t = sc_clock_now();
}

bool wb_msg_fresh(const wb *w, double now)
{
	return w->msg[0] && now < wb_msg_expiry(w);
}

double wb_msg_expiry(const wb *w)
{
	return w->msg_t + WB_MSG_SECONDS;
}

/* Whether the current partition differs from the baseline; before there
 * is one, what the editor says. */
static bool differs_from_baseline(const wb *w)
{
	const wb_baseline *b = w->base;
	if (!b || !b->stage)
		return sc_editor_dirty(w->ed);
	return b->k != w->set.k ||
	       memcmp(b->stage, w->stage, (size_t)w->g->n * sizeof *w->stage) != 0 ||
	       (w->kind && b->kind &&
	        memcmp(b->kind, w->kind, (size_t)sc_settings_stages(&w->set) * sizeof *w->kind) !=
	                0);
}

void *wb_view_state(const wb *w, const wb_view_ops *v)
{
	for (int i = 0; w->views && i < WB_NVIEWS; i++)
		if (w->views[i] == v)
			return w->view_state[i];
	return NULL;
}

void *wb_modal_state(const wb *w, const wb_modal_ops *m)
{
	for (int i = 0; w->modals && i < WB_NMODALS; i++)
		if (w->modals[i] == m)
			return w->modal_state[i];
	return NULL;
}

void wb_changed(wb *w, bool by_hand)
{
	bool was_edited = w->edited;
	w->part_version++;
	w->stage = sc_editor_stages(w->ed);
	w->c = sc_editor_costs(w->ed);
	if (w->kind) {
		const int *d = sc_editor_kinds(w->ed);
		for (int s = 0, K = sc_settings_stages(&w->set); s < K; s++)
			w->kind[s] = d ? d[s] : 0;
	}
	/* by content, not by history: undoing back to the baseline, or moving
	 * an op there and back, leaves nothing unsaved (O(n), once per change) */
	w->edited = differs_from_baseline(w);
	if (by_hand && w->edited)
		snprintf(w->origin, sizeof w->origin, "edited by hand (%d edit%s to undo)",
		         sc_editor_undo_count(w->ed), sc_editor_undo_count(w->ed) == 1 ? "" : "s");
	else if (by_hand)
		snprintf(w->origin, sizeof w->origin, "%s", w->base ? w->base->origin : "");
	/* the recovery file follows: written while edited, removed when back at
	 * the baseline (wb_recover.c) */
	if (by_hand || was_edited != w->edited)
		w->recover_due = true;
	/* through the pointers in w->views: this layer names no view */
	for (int i = 0; w->views && i < WB_NVIEWS; i++)
		if (w->views[i]->on_change)
			w->views[i]->on_change(w);
}

void wb_baseline_free(wb_baseline *base)
{
	if (!base)
		return;
	free(base->stage);
	free(base->kind);
	free(base);
}

void wb_mark_saved(wb *w)
{
	sc_editor_mark_saved(w->ed);
	if (!w->base)
		w->base = calloc(1, sizeof *w->base);
	wb_baseline *b = w->base;
	size_t K = (size_t)sc_settings_stages(&w->set);
	if (b) {
		snprintf(b->origin, sizeof b->origin, "%s", w->origin);
		if (!b->stage)
			b->stage = malloc((size_t)w->g->n * sizeof *b->stage + 1);
		if (b->stage) {
			memcpy(b->stage, w->stage, (size_t)w->g->n * sizeof *w->stage);
			b->k = w->set.k;
		}
		if (w->kind && !b->kind)
			b->kind = malloc(K * sizeof *b->kind + 1);
		if (w->kind && b->kind)
			memcpy(b->kind, w->kind, K * sizeof *w->kind);
	}
	if (w->edited)
		w->recover_due = true;
	w->edited = false;
}

void wb_set_current_kinds(wb *w, const int *stage, const int *kind, const char *origin,
                          bool by_hand)
{
	if (by_hand) {
		if (kind)
			sc_editor_set_kinds(w->ed, stage, kind, origin);
		else
			sc_editor_set(w->ed, stage, origin);
		wb_changed(w, true);
		snprintf(w->origin, sizeof w->origin, "%s", origin);
		return;
	}
	/* undo would go back to a partition the engineer never chose and call
	 * it an edit: the history starts at the program's partition */
	if (!wb_new_editor_kinds(w, stage, kind))
		return;
	snprintf(w->origin, sizeof w->origin, "%s", origin);
	wb_mark_saved(w);
}

bool wb_new_editor(wb *w, const int *stage)
{
	return wb_new_editor_kinds(w, stage, NULL);
}

void wb_job_settings(const wb *w, sc_settings *out)
{
	*out = w->set;
	if (w->set.fleet || !w->kind)
		out->cpus = 0; /* the fleet's stages, set.k of them; or no CPU */
}

void wb_part_settings(const wb *w, sc_settings *out)
{
	*out = w->set;
	out->k = sc_settings_stages(&w->set);
}

bool wb_new_editor_kinds(wb *w, const int *stage, const int *kind)
{
	sc_error err;
	/* with devices they are always checked: the current ones unless new
	 * ones are given */
	sc_settings ps;
	wb_part_settings(w, &ps);
	sc_editor *ed = sc_editor_new_kinds(w->g, &ps, stage, kind ? kind : w->kind, &err);
	if (!ed) {
		wb_say(w, "%s", err.msg);
		return false;
	}
	sc_editor_free(w->ed);
	w->ed = ed;
	wb_changed(w, false);
	return true;
}

double wb_simple_bound(const wb *w)
{
	if (!w->kind)
		return sc_bound_simple(w->g, w->set.k);
	if (w->set.fleet) {
		/* each op at its least time on a kind (simple.h) */
		sc_fleet f;
		double b = sc_fleet_resolve(w->g, &w->set, &f, NULL)
		                   ? sc_bound_simple_kinds(w->g, &f)
		                   : 0;
		return isfinite(b) ? b : 0;
	}
	sc_settings js;
	wb_job_settings(w, &js);
	double b = 0;
	sc_error err;
	/* the fractional split with the CPUs (simple.h); 0, no bound, if it fails */
	if (sc_bound_simple_cpus(w->g, js.k, js.cpus, &b, &err) != SC_OK)
		b = 0;
	return b;
}
