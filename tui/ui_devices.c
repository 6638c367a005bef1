/*
 * ui_devices.c - the devices of a partition file as the commands read
 * them: --devices or the file's own kinds, CPU stages checked against
 * --cpus and the schedule, the settings settled on them, and the
 * workbench's form of them.  See ui.h.
 */
#include "ui.h"

#include <stdlib.h>

#include "core/formats/partition_file.h"

bool ui_check_part_kinds(const char *cmd, const char *path, const sc_graph *g, const sc_fleet *f,
                         const int *kind, int k, const ui_opts *o)
{
	int n = 0;
	for (int s = 0; kind && s < k; s++)
		n += f->kind[kind[s]].cpu;
	if (n == 0)
		return true;
	/* without --cpus the file's devices stand, as eval has always read
	 * them; a --cpus that says fewer contradicts the file (--devices
	 * counts were checked as the file was read) */
	if (!o->devices && o->cpus != -1 && n > g->settings.cpus) {
		ui_error("%s: %s: the partition has %d CPU stage%s, more than --cpus %d allows",
		         cmd, path, n, n == 1 ? "" : "s", g->settings.cpus);
		return false;
	}
	if (sc_graph_is_training(g) && g->settings.schedule == SC_SCHEDULE_GPIPE) {
		ui_error("%s: %s: the partition has CPU stages, which the GPipe schedule does not "
		         "take yet; use --schedule 1f1b",
		         cmd, path);
		return false;
	}
	return true;
}

sc_status ui_part_load_devices(const char *cmd, const ui_opts *o, const sc_graph *g,
                               const char *path, int *k, int *stage, sc_fleet *fleet, int **kind,
                               sc_violation *viol, sc_error *err)
{
	sc_fleet given;
	sc_error why;
	*k = 0;
	*kind = NULL;
	if (o->devices && !sc_fleet_resolve(g, &g->settings, &given, &why))
		return sc_error_set(err, SC_ERR_INPUT, "%s: %s", cmd, why.msg);
	return sc_part_load_kinds(path, g, o->devices ? &given : NULL, 0, k, stage, fleet, kind,
	                          viol, err);
}

sc_status ui_part_load_cpus(const char *path, const sc_graph *g, int want_k, int *k_out, int *stage,
                            int **kind, sc_fleet *fleet, sc_error *err)
{
	sc_fleet own, *f = fleet ? fleet : &own;
	sc_status st = sc_part_load_kinds(path, g, NULL, want_k, k_out, stage, f, kind, NULL, err);
	bool read = st == SC_OK || st == SC_ERR_INVALID;
	if (read && !sc_fleet_cpus_form(g, f))
		st = sc_error_set(
		        err, SC_ERR_INPUT,
		        "%s: the partition runs on kinds of device the workbench does not "
		        "take yet (eval and render do)",
		        path);
	bool any = false;
	for (int s = 0; *kind && s < *k_out; s++)
		any |= (*kind)[s] != 0;
	if (!(st == SC_OK || st == SC_ERR_INVALID) || !any) {
		free(*kind);
		*kind = NULL;
	}
	return st;
}

void ui_settings_fleet(sc_settings *set, const sc_graph *g, const sc_fleet *f)
{
	if (set->fleet)
		return;
	if (sc_fleet_cpus_form(g, f)) {
		if (f->n > 1 && f->kind[1].count > set->cpus)
			set->cpus = f->kind[1].count;
	} else {
		set->fleet = f;
	}
}
