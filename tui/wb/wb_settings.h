/*
 * wb_settings.h - the settings form (wb_settings.c), a modal.
 */
#ifndef UI_WB_SETTINGS_H
#define UI_WB_SETTINGS_H

#include "tui/wb/wb.h"

extern const wb_modal_ops wb_settings_modal;

#endif
