/*
 * wb_tour.h - the tour of the practitioner's dilemma on the loaded graph
 * (wb_tour.c), a modal.
 */
#ifndef UI_WB_TOUR_H
#define UI_WB_TOUR_H

#include "tui/wb/wb.h"

extern const wb_modal_ops wb_tour_modal;

/* Opens the tour at its first step (or takes it back there). */
void wb_tour_open(wb *w);

#endif
