/*
 * wb_compare.h - comparing two partitions (wb_compare.c), a modal, and the browsing
 * actions a view leaves.
 */
#ifndef UI_WB_COMPARE_H
#define UI_WB_COMPARE_H

#include "tui/wb/wb.h"
#include "tui/wb/wb_keytab.h"

extern const wb_modal_ops wb_compare_modal;

/* Opens the comparison of the current partition with the best one found,
 * or asks for a partition file when there is none. */
unsigned wb_compare(wb *w);
/* The actions of the browsing features that a view leaves: Enter on a
 * stage (its ops in the node browser), b (select the bottleneck stage), c
 * (the comparison); 0 for any other.  Called by the global actions
 * (wb_keys.c). */
unsigned wb_browse_action(wb *w, wb_action a);

#endif
