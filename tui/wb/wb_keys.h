/*
 * wb_keys.h - the dispatch of keys and the global actions (wb_keys.c, the top
 * layer with workbench.c): the lists of views and modals, the help modal.
 */
#ifndef UI_WB_KEYS_H
#define UI_WB_KEYS_H

#include "tui/wb/wb.h"

/* The views in the order of the keys 1 2 3 4 5. */
extern const wb_view_ops *const wb_views[WB_NVIEWS];
/* Every modal, in no particular order. */
extern const wb_modal_ops *const wb_modals[WB_NMODALS];
extern const wb_modal_ops wb_help_modal;

/* Handles one key: the modals top down, then the view, then the global
 * actions.  Returns a WB_* bitmask (0: nobody's key). */
unsigned wb_key(wb *w, int ch);

#endif
