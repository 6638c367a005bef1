/*
 * wb_cputable.h - C's table of the optimum on nearby mixes of devices
 * (wb_cputable.c), a modal.
 */
#ifndef UI_WB_CPUTABLE_H
#define UI_WB_CPUTABLE_H

#include "tui/wb/wb.h"

extern const wb_modal_ops wb_cputable_modal;

/* C: the optimum at k, k + 1 accelerators and 0, 1, 2 CPUs, each cell a
 * job of w->eng (exact DP); closing it discards the jobs still running. */
unsigned wb_cputable(wb *w);

#endif
