/*
 * wb_ladder.c - the overview's ladder of lower bounds: one row per rung,
 * its state, value, LB/UB against the partition on screen and a bar of it.
 * A rung shows a value once it has one (done, or stopped by its time
 * limit); before, only a bound above the floor the other rungs gave it,
 * labelled "so far"; a rung stopped because the optimum was proven says
 * so.
 *
 * Layer: a part of the overview (layer 4 in wb.h), below it: it calls the
 * state, the jobs and wb_draw.c.
 */
#define _POSIX_C_SOURCE 200809L
#include "tui/wb/wb_ladder.h"

#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tui/ui.h"
#include "tui/wb/wb_draw.h"

/* The value a rung has of its own: above the floor the others gave it
 * (the simple bound and the rungs that have finished).  A rung still
 * running starts at that floor, which is not its result. */
static double rung_floor(const wb *w, int r)
{
	double f = w->simple;
	for (int q = SC_RUNG_BOTTLENECK; w->jobs->ladder && q < SC_RUNG_COUNT; q++) {
		sc_rung_info qi;
		sc_ladder_info(w->jobs->ladder, (sc_rung)q, &qi);
		if (q != r && (qi.state == SC_RS_DONE || qi.state == SC_RS_STOPPED))
			f = fmax(f, qi.value);
	}
	return f;
}

static const char *state_text(const sc_rung_info *ri, char *buf, size_t size)
{
	switch (ri->state) {
	case SC_RS_RUNNING:
		/* paused: its core lent to the user's search (jobs.h) */
		if (ri->rung == SC_RUNG_GUESS)
			snprintf(buf, size, "%s %d/%d %.0fs", ri->paused ? "paused" : "running",
			         ri->parts_done, ri->parts, ri->seconds);
		else
			snprintf(buf, size, "%s %.0fs", ri->paused ? "paused" : "running",
			         ri->seconds);
		break;
	case SC_RS_DONE: snprintf(buf, size, "done %.1fs", ri->seconds); break;
	case SC_RS_STOPPED: snprintf(buf, size, "time limit %.0fs", ri->seconds); break;
	default: snprintf(buf, size, "%s", sc_rung_state_name(ri->state));
	}
	return buf;
}

void wb_ladder_panel(const wb *w, const wb_answer *a, int y, int h, int cols)
{
	double ub = a->feasible ? a->objective : NAN;
	char b[32], title[160];
	int len = snprintf(title, sizeof title, "ladder of lower bounds%s",
	                   w->jobs->ladder ? "" : "  (l runs it)");
	attron(A_BOLD);
	mvprintw(y, 0, "%s", title);
	attroff(A_BOLD);
	if (isfinite(ub)) {
		char note[96];
		int nl = snprintf(note, sizeof note, "   LB/UB: bound / this partition's %s %s",
		                  a->name, ui_num(ub, b, sizeof b));
		if (len + nl <= cols - 1) {
			attron(A_DIM);
			printw("%s", note);
			attroff(A_DIM);
		}
	}
	if (h < 2)
		return;
	mvprintw(y + 1, 2, "%-11s %-17s %20s %7s", "rung", "state", "value", "LB/UB");
	int barx = 62, barw = cols - barx - 2;
	const char *proof = NULL;
	if (w->jobs->ladder)
		sc_ladder_proven(w->jobs->ladder, &proof);
	int row = y + 2;
	for (int r = 0; r < SC_RUNG_COUNT + 1 && row < y + h; r++, row++) {
		sc_rung_info ri = {.rung = (sc_rung)(r < SC_RUNG_COUNT ? r : 0)};
		char st[40], v[48], ratio[16];
		const char *name;
		bool partial = false;
		if (r == SC_RUNG_COUNT) {

			/* the exact DP over ideals, when the search was it */
			name = "exact DP";
			if (!w->best_optimal ||
			    strcmp(w->best_from, sc_rung_label(SC_RUNG_EXACT)) == 0) {
				mvprintw(row, 2, "%-11s %-17s", name,
				         w->jobs->search >= 0 ? "if it applies" : "-");
				continue;
			}
			ri.state = SC_RS_DONE;
			ri.value = w->best;
			snprintf(st, sizeof st, "proved optimal");
		} else {
			name = sc_rung_name((sc_rung)r);
			if (w->jobs->ladder)
				sc_ladder_info(w->jobs->ladder, (sc_rung)r, &ri);
			else if (r == SC_RUNG_SIMPLE)
				ri.state = SC_RS_DONE, ri.value = w->simple;
			else
				ri.state = SC_RS_WAITING, ri.value = NAN;
			if (r == SC_RUNG_SIMPLE)
				snprintf(st, sizeof st, "done");
			else
				state_text(&ri, st, sizeof st);
		}
		bool result = ri.state == SC_RS_DONE || ri.state == SC_RS_STOPPED;
		if (!result && ri.state != SC_RS_WAITING && ri.state != SC_RS_OFF &&
		    isfinite(ri.value) && ri.value > rung_floor(w, r) * (1 + 1e-9))
			partial = true;
		if (ri.state == SC_RS_UNNEEDED || (ri.state == SC_RS_FAILED && !partial)) {
			/* no value: why it stopped, across the row */
			char why[300];
			if (ri.state == SC_RS_UNNEEDED && a->none_fits_by)
				snprintf(why, sizeof why,
				         "stopped: no %d-stage partition fits, proven by %s%s",
				         sc_settings_stages(&w->set),
				         proof ? proof : "another rung",
				         cols >= 100 ? " (l runs every rung anyway)" : "");
			else if (ri.state == SC_RS_UNNEEDED)
				snprintf(why, sizeof why, "stopped: optimum proven by %s%s",
				         proof ? proof : "another rung",
				         cols >= 100 ? " (l runs every rung anyway)" : "");
			else
				snprintf(why, sizeof why, "failed: %s", ri.message);
			if (ri.state == SC_RS_FAILED)
				wb_attr(w, WB_PAIR_BOTTLENECK, A_BOLD, true);
			mvprintw(row, 2, "%-11s %.*s", name, cols - 15 > 0 ? cols - 15 : 0, why);
			if (ri.state == SC_RS_FAILED)
				wb_attr(w, WB_PAIR_BOTTLENECK, A_BOLD, false);
			continue;
		}
		bool known = result || partial;
		double q = known && ub > 0 && isfinite(ub) ? ri.value / ub : NAN;
		snprintf(ratio, sizeof ratio, isfinite(q) ? "%.4f" : "-", q);
		if (!known)
			snprintf(v, sizeof v, "-");
		else if (!partial)
			ui_num(ri.value, v, sizeof v);
		else if (snprintf(v, sizeof v, ">= %s so far", ui_num(ri.value, b, sizeof b)) > 20)
			snprintf(v, sizeof v, ">= %s", b);
		if (ri.state == SC_RS_FAILED)
			wb_attr(w, WB_PAIR_BOTTLENECK, A_BOLD, true);
		mvprintw(row, 2, "%-11s %-17.17s %20s %7s", name, st, v, ratio);
		if (ri.state == SC_RS_FAILED)
			wb_attr(w, WB_PAIR_BOTTLENECK, A_BOLD, false);
		if (barw > 6 && isfinite(q)) {
			/* a bound so far in a lighter hand than a result */
			int len2 = (int)lround(fmin(q, 1) * barw);
			bool full = q >= 1 - 1e-9 && !partial;
			move(row, barx);
			wb_attr(w, full ? WB_PAIR_GOOD : WB_PAIR_DIM, 0, true);
			for (int j = 0; j < barw; j++)
				addch(j < len2 ? (partial ? '-' : '#') : '.');
			wb_attr(w, full ? WB_PAIR_GOOD : WB_PAIR_DIM, 0, false);
		}
	}
}
