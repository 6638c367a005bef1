/*
 * wb_ladder.h - the overview's ladder panel (wb_ladder.c).
 */
#ifndef UI_WB_LADDER_H
#define UI_WB_LADDER_H

#include "tui/wb/wb.h"
#include "tui/wb/wb_jobs.h"

/* The ladder from row y: one row per rung, its state, value, LB/UB (UB:
 * the partition on screen's objective) and a bar of LB/UB so the closing
 * gap shows.  A rung shows a value once it has one: done, or stopped by
 * its time limit; before, only a bound above its floor, as "so far"; a rung
 * stopped because the optimum was proven says so. */
void wb_ladder_panel(const wb *w, const wb_answer *a, int y, int h, int cols);

#endif
