/*
 * wb_timeline.h - the pipeline timeline (wb_timeline.c), a view.
 */
#ifndef UI_WB_TIMELINE_H
#define UI_WB_TIMELINE_H

#include "tui/wb/wb.h"

extern const wb_view_ops wb_timeline_view;

#endif
