/*
 * wb_devices.h - the workbench's devices (core/fleet.h): CPU stages (001
 * section 3, --cpus) or a fleet of kinds (--devices).  What each stage runs
 * on, how the screen names it, the memory it holds parameters against,
 * partition files read with their kinds, and the key that gives a stage
 * another kind.  See wb_devices.c.
 */
#ifndef WB_DEVICES_H
#define WB_DEVICES_H

#include "tui/wb/wb.h"

/* Whether stage s of the current partition is a CPU stage; its device as
 * the stage table names it ("CPU", "accel", a fleet's kind; "" without
 * devices); the devices in a few words ("k 3 + 1 CPU", "devices
 * h100:2,a100:2", "k 4") into buf. */
bool wb_cpu_stage(const wb *w, int s);
const char *wb_stage_device(const wb *w, int s);
/* With devices, gives the selected stage (stage_sel) the next kind of the
 * fleet that another stage has, and that stage the selected one's, as one
 * undo entry (checked as any edit: an op its new kind may not run refuses
 * it, named in the status line). */
void wb_swap_device(wb *w);
/* A partition file as the workbench takes it: on a fleet (--devices) the
 * file's kinds, each one of the fleet's (*kind NULL when it names none:
 * the current kinds stay); else the graph's device and CPU stages
 * (ui_part_load_cpus).  As sc_part_load_kinds otherwise. */
sc_status wb_part_load(const wb *w, const char *path, int want_k, int *k_out, int *stage,
                       int **kind, sc_error *err);

/* The devices in words (the header's and the settings' line), into buf. */
const char *wb_devices_text(const wb *w, char *buf, size_t size);

#endif
