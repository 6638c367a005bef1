/*
 * wb_overview.h - the overview (wb_overview.c), the first view: the stage table, the
 * ladder and the search panel.
 */
#ifndef UI_WB_OVERVIEW_H
#define UI_WB_OVERVIEW_H

#include "tui/wb/wb.h"

extern const wb_view_ops wb_overview_view;

#endif
