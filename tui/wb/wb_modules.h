/*
 * wb_modules.h - the module tree (wb_modules.c), a view.
 */
#ifndef UI_WB_MODULES_H
#define UI_WB_MODULES_H

#include "tui/wb/wb.h"

extern const wb_view_ops wb_modules_view;

#endif
