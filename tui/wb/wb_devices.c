/*
 * wb_devices.c - the workbench's devices.  See wb_devices.h.
 */
#include "tui/wb/wb_devices.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fleet.h"
#include "core/formats/partition_file.h"
#include "core/partition.h"
#include "tui/ui.h"

bool wb_cpu_stage(const wb *w, int s)
{
	return w->kind && w->c->fleet.kind[w->kind[s]].cpu;
}

const char *wb_stage_device(const wb *w, int s)
{
	if (!w->kind)
		return "";
	const sc_kind *d = &w->c->fleet.kind[w->kind[s]];
	return d->cpu ? "CPU" : w->set.fleet ? d->name : "accel";
}

void wb_swap_device(wb *w)
{
	if (!w->kind) {
		wb_say(w, "no devices to swap: start with --cpus L or --devices SPEC");
		return;
	}
	const sc_fleet *f = &w->c->fleet;
	int s = w->stage_sel, from = w->kind[s], t = -1, to = from, K = sc_settings_stages(&w->set);
	/* the next kind that some other stage has, then its nearest stage */
	for (int step = 1; step < f->n && t < 0; step++) {
		to = (from + step) % f->n;
		for (int d = 1; d < K && t < 0; d++)
			for (int side = -1; side <= 1 && t < 0; side += 2) {
				int u = s + side * d;
				if (u >= 0 && u < K && w->kind[u] == to)
					t = u;
			}
	}
	if (t < 0) {
		wb_say(w, "every stage has the same kind of device: nothing to swap");
		return;
	}
	int *kind = malloc((size_t)K * sizeof *kind);
	if (!kind) {
		wb_say(w, "out of memory");
		return;
	}
	memcpy(kind, w->kind, (size_t)K * sizeof *kind);
	kind[s] = to;
	kind[t] = from;
	char label[160];
	snprintf(label, sizeof label, "stage %d to %s, stage %d to %s", s + 1, f->kind[to].name,
	         t + 1, f->kind[from].name);
	sc_violation v;
	if (!sc_part_check_kinds(w->g, w->stage, K, f, kind, &v)) {
		/* (an op its new kind may not run; nothing else changed) */
		int u = v.a, at = w->stage[u];
		wb_say(w, "not swapped: op '%s' of stage %d may not run on %s", w->g->op_name[u],
		       at + 1, f->kind[kind[at]].cpu ? "a CPU" : f->kind[kind[at]].name);
	} else if (sc_editor_set_kinds(w->ed, w->stage, kind, label)) {
		wb_changed(w, true);
		wb_say(w, "%s (u undoes)", label);
	} else {
		wb_say(w, "out of memory");
	}
	free(kind);
}

sc_status wb_part_load(const wb *w, const char *path, int want_k, int *k_out, int *stage,
                       int **kind, sc_error *err)
{
	if (!w->set.fleet)
		return ui_part_load_cpus(path, w->g, want_k, k_out, stage, kind, NULL, err);
	/* on a fleet: the file's kinds, each one of --devices */
	sc_fleet f, used;
	*kind = NULL;
	*k_out = 0;
	if (!sc_fleet_resolve(w->g, &w->set, &f, err))
		return err->code;
	return sc_part_load_kinds(path, w->g, &f, want_k, k_out, stage, &used, kind, NULL, err);
}

const char *wb_devices_text(const wb *w, char *buf, size_t size)
{
	if (w->set.fleet) {
		char spec[SC_KINDS_MAX * (SC_KIND_NAME + 12)];
		sc_fleet_format(w->set.fleet, spec, sizeof spec);
		snprintf(buf, size, "devices %s", spec);
	} else if (w->kind) {
		snprintf(buf, size, "k %d + %d CPU", w->set.k, w->set.cpus);
	} else {
		snprintf(buf, size, "k %d", w->set.k);
	}
	return buf;
}
