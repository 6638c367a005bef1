/*
 * wb_draw.h - the frame (wb_draw.c): the header, the footer, the modals over the
 * view, and the drawing helpers the views share.
 */
#ifndef UI_WB_DRAW_H
#define UI_WB_DRAW_H

#include <stdbool.h>
#include <stddef.h>

#include "tui/wb/wb.h"

/* Draws the whole screen: header, view, footer, then the modals bottom up. */
void wb_draw(wb *w);

/* Clears a box of h x wd cells at (y0, x0) and writes title in reverse on
 * its first row (the help, settings and tour boxes). */
void wb_box(int y0, int x0, int h, int wd, const char *title);

/* The colour pairs workbench.c makes; wb_attr turns pair on or off, or
 * without colours the curses attributes fallback (A_BOLD, A_DIM, ...). */
enum { WB_PAIR_BOTTLENECK = 1, WB_PAIR_GOOD, WB_PAIR_TITLE, WB_PAIR_DIM };
void wb_attr(const wb *w, int pair, unsigned long fallback, bool on);

/* A byte count in at most 6 characters: "14", "12.35", "1.2e9", "inf". */
const char *wb_short_num(double x, char *buf, size_t size);

#endif
