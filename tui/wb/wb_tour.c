/*
 * wb_tour.c - the tour (t): the practitioner's dilemma on the loaded graph,
 * in five steps drawn in a box at the bottom of the screen: the partition
 * and the simple bound, each rung of the ladder with what it assumes and
 * how much of the gap it closed, then the answer.  A modal that keeps only
 * its own keys (wb_keys.def's WB_IN_TOUR rows): the others work as without
 * it, so the engineer can run the ladder or switch views during the tour.
 *
 * Layer: a modal (layer 4 in wb.h): it calls the state, the key table, the
 * jobs and wb_draw.c; the keys it leaves it passes on by returning 0 to the
 * dispatcher (wb_keys.c), which alone names wb_tour_modal.
 */
#define _POSIX_C_SOURCE 200809L
#include <curses.h>
#include <math.h>
#include <stdio.h>

#include "tui/ui.h"
#include "tui/wb/wb.h"

/* The tour: the practitioner's dilemma on the loaded graph, step by step. */
static void tour_draw(wb *w, int rows, int cols)
{
	char b1[32], b2[32], l1[200], l2[200], l3[200];
	int at;
	double bn = sc_costs_bottleneck(w->c, &at);
	double ub = fmin(bn, w->best);
	sc_rung_info ri = {0};
	int step = w->tour;
	const char *title = "";
	l3[0] = '\0';
	if (step >= 2 && step <= 4 && w->ladder)
		sc_ladder_info(w->ladder, (sc_rung)(step - 1), &ri);
	double prev_gap = NAN;
	if (step >= 2 && step <= 4) {
		/* the gap before this rung: the best of the rungs below it */
		double lb = w->simple;
		for (int r = SC_RUNG_BOTTLENECK; r < step - 1 && w->ladder; r++) {
			sc_rung_info rj;
			sc_ladder_info(w->ladder, (sc_rung)r, &rj);
			if (rj.state >= SC_RS_DONE && rj.value > lb)
				lb = rj.value;
		}
		prev_gap = ub / lb - 1;
	}
	bool ready = ri.state == SC_RS_DONE || ri.state == SC_RS_STOPPED;
	switch (step) {
	case 1:
		title = " tour 1/5: the practitioner's dilemma";
		snprintf(l1, sizeof l1,
		         "This partition's slowest stage is %d, costing %s. Is that good enough?",
		         at + 1, ui_num(bn, b1, sizeof b1));
		snprintf(l2, sizeof l2,
		         "simple bound %s: some stage does >= total work / k, and a group is "
		         "indivisible.",
		         ui_num(w->simple, b2, sizeof b2));
		snprintf(
		        l3, sizeof l3,
		        "So the optimum could still be up to %.1f%% faster. Each rung proves more.",
		        100 * (ub / w->simple - 1));
		break;
	case 2:
	case 3:
	case 4:
		title = step == 2   ? " tour 2/5: bottleneck (000 section 3.2)"
		        : step == 3 ? " tour 3/5: bottleneck-guess (000 section 3.3)"
		                    : " tour 4/5: exact MIP (000 Figure 3)";
		snprintf(l1, sizeof l1, "%s",
		         step == 2 ? "Assumes one stage does >= the simple bound's work, with all "
		                     "stages before and"
		         : step == 3 ? "Also guesses that stage's position j, and averages the "
		                       "stages before and"
		                     : "Assumes nothing: every op's stage is a variable, started "
		                       "from the best");
		snprintf(l2, sizeof l2, "%s",
		         step == 2 ? "after it merged into two superblocks; minimises that stage's "
		                     "cost (a MIP)."
		         : step == 3 ? "after it: k MIPs, the bound is the smallest. Tensors "
		                       "inside superblocks are free."
		                     : "partition found and the other rungs as a floor. Optimal "
		                       "means proven.");
		if (!w->ladder)
			snprintf(l3, sizeof l3, "The ladder has not run yet: press l.");
		else if (!ready)
			snprintf(l3, sizeof l3, "Running... (%s so far)",
			         ui_num(ri.value, b1, sizeof b1));
		else
			snprintf(l3, sizeof l3,
			         "It proves %s: the gap goes from %.1f%% to %.1f%%%s.",
			         ui_num(ri.value, b1, sizeof b1), 100 * prev_gap,
			         100 * fmax(0, ub / ri.value - 1),
			         ri.state == SC_RS_STOPPED ? " (stopped by its time limit)" : "");
		break;
	default: {
		const char *by;
		double lb = wb_lower_bound(w, &by);
		double gap = fmax(0, ub / lb - 1);
		title = " tour 5/5: the answer";
		snprintf(l1, sizeof l1,
		         "Best partition %s, best lower bound %s (%s): certified gap %.2f%%.",
		         ui_num(ub, b1, sizeof b1), ui_num(lb, b2, sizeof b2), by, 100 * gap);
		snprintf(l2, sizeof l2, "%s",
		         gap < 0.01 ? "The partition is (within 1%) optimal: stop searching."
		                    : "Search longer (s), refine by hand (2, < >), or let the "
		                      "exact MIP run longer (o).");
		break;
	}
	}
	int wd = cols < 100 ? cols : 100, h = 6;
	int y0 = rows - h - 1, x0 = (cols - wd) / 2;
	wb_box(y0, x0, h, wd, title);
	mvprintw(y0 + 1, x0 + 1, "%.*s", wd - 2, l1);
	mvprintw(y0 + 2, x0 + 1, "%.*s", wd - 2, l2);
	mvprintw(y0 + 3, x0 + 1, "%.*s", wd - 2, l3);
	attron(A_DIM);
	char keys[96];
	mvprintw(y0 + 5, x0 + 1, "%.*s", wd - 2, wb_footer(WB_FOOT_TOUR, "   ", keys, sizeof keys));
	attroff(A_DIM);
}

static unsigned tour_key(wb *w, int ch)
{
	switch (wb_key_action(WB_IN_TOUR, ch)) {
	case WB_A_TOUR_NEXT:
		if (w->tour >= 5) {
			wb_modal_close(w, &wb_tour_modal);
			break;
		}
		w->tour++;
		if (w->tour == 2 && !w->ladder)
			wb_start_ladder(w);
		break;
	case WB_A_TOUR_END: wb_modal_close(w, &wb_tour_modal); break;
	default: return 0;
	}
	return WB_HANDLED | WB_REDRAW;
}

const wb_modal_ops wb_tour_modal = {.name = "tour", .draw = tour_draw, .key = tour_key};
