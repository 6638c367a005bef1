/*
 * wb_cputable.c - the practitioner's table (001 section 3) in the
 * workbench: C opens a modal with the optimal bottleneck of the
 * workbench's own graph and settings on mixes of devices, what info prints
 * (tui/cmd/info_devices.c): with CPU stages at k and k + 1 accelerators
 * and 0, 1 and 2 CPUs, in a grid; on a fleet of kinds (--devices) on the
 * fleet and on one device fewer or more of each kind
 * (sc_fleet_neighbours), in a list.
 *
 * Each row is a job of the workbench's engine (w->eng): a search with the
 * method "exact" on the mix, which runs the DP with its devices; each has
 * a time limit (TABLE_TIME from its start, which the draw keeps), so the
 * screen never blocks and a row the DP cannot finish says why.  The
 * modal's draw takes in the jobs that have ended (the loop redraws when a
 * job changes, and every REFRESH while one runs) and releases them;
 * closing the modal discards the ones still running.  The state is
 * w->cput; the current run is marked.
 *
 * Layer: a modal (layer 4 in wb.h); it calls the state and the engine.
 */
#define _POSIX_C_SOURCE 200809L
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tui/ui.h"
#include "tui/wb/wb.h"

/* The seconds each row's DP may run. */
#define TABLE_TIME 10.0

/* Takes in row i's job once it has ended, and releases it. */
static void take_row(wb *w, int i)
{
	int id = w->cput.id[i];
	sc_job_info ji;
	if (!w->cput.run[i])
		return;
	if (!sc_engine_info(w->eng, id, &ji)) {
		w->cput.run[i] = false;
		snprintf(w->cput.why[i], sizeof w->cput.why[i], "the job is gone");
		return;
	}
	/* the time limit from the job's start, not from its place in the
	 * queue (a search's own time_limit counts from sc_search_new, when it
	 * was added: behind the ladder's rungs it would run out unstarted) */
	if (ji.state == SC_JOB_RUNNING && ji.elapsed >= TABLE_TIME)
		sc_engine_cancel(w->eng, id);
	if (!sc_job_finished(ji.state))
		return;
	bool optimal = false;
	double v = sc_engine_result(w->eng, id, NULL, &optimal);
	if (ji.state == SC_JOB_FAILED)
		snprintf(w->cput.why[i], sizeof w->cput.why[i], "%.120s", ji.message);
	else if (!optimal)
		snprintf(w->cput.why[i], sizeof w->cput.why[i],
		         "not proven within %.0f s (the time limit)", TABLE_TIME);
	else
		w->cput.v[i] = v; /* INFINITY: no partition fits */
	sc_engine_release(w->eng, id);
	w->cput.run[i] = false;
}

/* Discards the jobs still running (their results are no longer wanted). */
static void forget(wb *w)
{
	for (int i = 0; i < w->cput.n; i++) {
		if (w->cput.run[i])
			sc_engine_discard(w->eng, w->cput.id[i]);
		w->cput.run[i] = false;
	}
}

/* Row i's text into buf: the value, "…" while it runs, "-" when the DP
 * could not finish, "none fits". */
static const char *cell_text(const wb *w, int i, char *buf, size_t size)
{
	double v = w->cput.v[i];
	if (w->cput.run[i])
		snprintf(buf, size, "\u2026");
	else if (isnan(v))
		snprintf(buf, size, "-");
	else if (isinf(v))
		snprintf(buf, size, "none fits");
	else
		ui_num(v, buf, size);
	return buf;
}

/* Prints row i's value right-aligned in 12 columns, reversed and marked
 * with * when it is the current run. */
static void put_cell(const wb *w, int i, bool here)
{
	char buf[32];
	cell_text(w, i, buf, sizeof buf);
	/* "…" takes three bytes and one column */
	int pad = 12 + (w->cput.run[i] ? 2 : 0);
	if (here)
		attron(A_REVERSE);
	printw("%*s", pad, buf);
	if (here)
		attroff(A_REVERSE);
	printw("%s", here ? "*" : " ");
}

/* The mix of row i in words: "k 3, L 1", or the fleet's SPEC. */
static const char *row_name(const wb *w, int i, char *buf, size_t size)
{
	if (w->cput.grid)
		snprintf(buf, size, "k %d, L %d", w->cput.k + i / 3, i % 3);
	else
		sc_fleet_format(&w->cput.mix[i], buf, size);
	return buf;
}

static void table_draw(wb *w, int rows, int cols)
{
	for (int i = 0; i < w->cput.n; i++)
		take_row(w, i);
	int nwhy = 0;
	for (int i = 0; i < w->cput.n; i++)
		nwhy += !w->cput.run[i] && isnan(w->cput.v[i]);
	int body = w->cput.grid ? 3 : w->cput.n + 1;
	int wd = cols - 4 < 72 ? cols - 4 : 72, h = 5 + body + nwhy;
	if (h > rows - 2)
		h = rows - 2;
	if (h < 6 || wd < 50)
		return;
	int y0 = (rows - h) / 2, x0 = (cols - wd) / 2;
	wb_popup(y0, x0, h, wd,
	         w->cput.grid ? "the optimum with more accelerators and CPUs (exact DP)"
	                      : "the optimum on one device fewer or more (exact DP)",
	         "Esc C q close");
	int y = y0 + 1;
	if (w->cput.grid) {
		mvprintw(y, x0 + 2, "%6s", "k");
		for (int l = 0; l < 3; l++)
			mvprintw(y, x0 + 8 + l * 15, "  %12s%d ", "L = ", l);
		y++;
		for (int dk = 0; dk < 2; dk++, y++) {
			mvprintw(y, x0 + 2, "%6d", w->cput.k + dk);
			for (int l = 0; l < 3; l++) {
				mvprintw(y, x0 + 8 + l * 15, "  ");
				put_cell(w, dk * 3 + l, dk == 0 && l == w->cput.cpus);
			}
		}
	} else {
		mvprintw(y++, x0 + 2, "%-40.40s %6s %13s", "devices", "stages", "bottleneck");
		for (int i = 0; i < w->cput.n && y < y0 + h - 2; i++, y++) {
			char name[SC_KINDS_MAX * (SC_KIND_NAME + 12)];
			mvprintw(y, x0 + 2, "%-40.40s %6d ", row_name(w, i, name, sizeof name),
			         sc_fleet_stages(&w->cput.mix[i]));
			put_cell(w, i, i == 0);
		}
	}
	y++;
	mvprintw(y++, x0 + 2, "* the current run;%s each row %.0f s at most",
	         w->cput.grid ? " L: CPU stages;" : "", TABLE_TIME);
	for (int i = 0; i < w->cput.n && y < y0 + h - 1; i++)
		if (!w->cput.run[i] && isnan(w->cput.v[i])) {
			char line[512], name[SC_KINDS_MAX * (SC_KIND_NAME + 12)];
			snprintf(line, sizeof line, "- %s: %s", row_name(w, i, name, sizeof name),
			         w->cput.why[i]);
			mvprintw(y++, x0 + 2, "%.*s", wd - 4, line);
		}
}

static unsigned table_key(wb *w, int ch)
{
	if (ch == KEY_RESIZE)
		return WB_HANDLED | WB_REDRAW;
	if (wb_key_action(WB_IN_CPUTAB, ch) == WB_A_CPUTAB_CLOSE) {
		wb_modal_close(w, &wb_cputable_modal);
		forget(w);
		return WB_HANDLED | WB_REDRAW;
	}
	return WB_HANDLED; /* the box takes every key */
}

const wb_modal_ops wb_cputable_modal = {.name = "cpu table", .draw = table_draw, .key = table_key};

unsigned wb_cputable(wb *w)
{
	forget(w);
	sc_settings js;
	wb_job_settings(w, &js);
	w->cput.k = js.k;
	w->cput.cpus = js.cpus;
	w->cput.grid = !w->set.fleet;
	if (w->set.fleet) {
		w->cput.n = sc_fleet_neighbours(w->set.fleet, w->cput.mix);
	} else {
		w->cput.n = 6;
		for (int i = 0; i < 6; i++)
			w->cput.mix[i] = (sc_fleet){0};
	}
	for (int i = 0; i < w->cput.n; i++) {
		w->cput.v[i] = NAN;
		w->cput.why[i][0] = '\0';
		sc_settings set = js;
		set.pin = NULL;
		if (w->cput.grid) {
			set.k = js.k + i / 3;
			set.cpus = i % 3;
		} else {
			/* (the mix outlives the job: it is w's) */
			set.fleet = &w->cput.mix[i];
			set.k = sc_fleet_stages(set.fleet);
			set.cpus = 0;
		}
		sc_search_params p;
		sc_search_params_init(&p);
		p.method = "exact";
		p.refine = false;
		p.time_limit = 0; /* TABLE_TIME, kept by take_row */
		sc_error err;
		w->cput.id[i] = sc_engine_add_search(w->eng, w->g, &set, &p, &err);
		sc_engine_prefer(w->eng, w->cput.id[i]); /* the user asked (C) */
		w->cput.run[i] = w->cput.id[i] >= 0;
		if (!w->cput.run[i])
			snprintf(w->cput.why[i], sizeof w->cput.why[i], "%.120s", err.msg);
	}
	wb_modal_push(w, &wb_cputable_modal);
	return WB_HANDLED | WB_REDRAW;
}
