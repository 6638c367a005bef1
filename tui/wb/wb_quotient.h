/*
 * wb_quotient.h - the quotient view (wb_quotient.c): the stage graph, its matrix, its
 * export as an image.
 */
#ifndef UI_WB_QUOTIENT_H
#define UI_WB_QUOTIENT_H

#include "tui/wb/wb.h"

extern const wb_view_ops wb_quotient_view;

/* Asks for a file name and exports the stage graph as an image. */
unsigned wb_export(wb *w);
/* The quotient view's m: the matrix of stage-to-stage volumes in place of
 * the drawing, or back. */
unsigned wb_quotient_toggle(wb *w);

#endif
