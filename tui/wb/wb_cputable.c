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
 * the modal's own (struct cputable); the current run is marked.
 *
 * Layer: a modal (layer 4 in wb.h); it calls the state and the engine.
 */
#define _POSIX_C_SOURCE 200809L
#include "tui/wb/wb_cputable.h"

#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tui/ui.h"
#include "tui/wb/wb_keytab.h"
#include "tui/wb/wb_lineedit.h"

/* The seconds each row's DP may run. */
#define TABLE_TIME 10.0

/* The table's own state (its modal's, wb_modal_state): row i a mix (grid:
 * k + i/3 accelerators, i%3 CPUs). */
typedef struct cputable {
	int n, k, cpus; /* rows; the current run's k and CPUs (grid) */
	bool grid;
	sc_fleet mix[SC_FLEET_NEIGHBOURS]; /* the jobs read them until they end */
	int id[SC_FLEET_NEIGHBOURS];
	bool run[SC_FLEET_NEIGHBOURS];
	double v[SC_FLEET_NEIGHBOURS];
	char why[SC_FLEET_NEIGHBOURS][128];
} cputable;

static cputable *table_of(const wb *w)
{
	return wb_modal_state(w, &wb_cputable_modal);
}

/* Takes in row i's job once it has ended, and releases it. */
static void take_row(wb *w, int i)
{
	cputable *t = table_of(w);
	int id = t->id[i];
	sc_job_info ji;
	if (!t->run[i])
		return;
	if (!sc_engine_info(w->eng, id, &ji)) {
		t->run[i] = false;
		snprintf(t->why[i], sizeof t->why[i], "the job is gone");
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
		snprintf(t->why[i], sizeof t->why[i], "%.120s", ji.message);
	else if (!optimal)
		snprintf(t->why[i], sizeof t->why[i], "not proven within %.0f s (the time limit)",
		         TABLE_TIME);
	else
		t->v[i] = v; /* INFINITY: no partition fits */
	sc_engine_release(w->eng, id);
	t->run[i] = false;
}

/* Discards the jobs still running (their results are no longer wanted). */
static void forget(wb *w)
{
	cputable *t = table_of(w);
	for (int i = 0; i < t->n; i++) {
		if (t->run[i])
			sc_engine_discard(w->eng, t->id[i]);
		t->run[i] = false;
	}
}

/* Row i's text into buf: the value, "…" while it runs, "-" when the DP
 * could not finish, "none fits". */
static const char *cell_text(const wb *w, int i, char *buf, size_t size)
{
	cputable *t = table_of(w);
	double v = t->v[i];
	if (t->run[i])
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
	cputable *t = table_of(w);
	char buf[32];
	cell_text(w, i, buf, sizeof buf);
	/* "…" takes three bytes and one column */
	int pad = 12 + (t->run[i] ? 2 : 0);
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
	cputable *t = table_of(w);
	if (t->grid)
		snprintf(buf, size, "k %d, L %d", t->k + i / 3, i % 3);
	else
		sc_fleet_format(&t->mix[i], buf, size);
	return buf;
}

static void table_draw(wb *w, int rows, int cols)
{
	cputable *t = table_of(w);
	for (int i = 0; i < t->n; i++)
		take_row(w, i);
	int nwhy = 0;
	for (int i = 0; i < t->n; i++)
		nwhy += !t->run[i] && isnan(t->v[i]);
	int body = t->grid ? 3 : t->n + 1;
	int wd = cols - 4 < 72 ? cols - 4 : 72, h = 5 + body + nwhy;
	if (h > rows - 2)
		h = rows - 2;
	if (h < 6 || wd < 50)
		return;
	int y0 = (rows - h) / 2, x0 = (cols - wd) / 2;
	wb_popup(y0, x0, h, wd,
	         t->grid ? "the optimum with more accelerators and CPUs (exact DP)"
	                 : "the optimum on one device fewer or more (exact DP)",
	         "Esc C q close");
	int y = y0 + 1;
	if (t->grid) {
		mvprintw(y, x0 + 2, "%6s", "k");
		for (int l = 0; l < 3; l++)
			mvprintw(y, x0 + 8 + l * 15, "  %12s%d ", "L = ", l);
		y++;
		for (int dk = 0; dk < 2; dk++, y++) {
			mvprintw(y, x0 + 2, "%6d", t->k + dk);
			for (int l = 0; l < 3; l++) {
				mvprintw(y, x0 + 8 + l * 15, "  ");
				put_cell(w, dk * 3 + l, dk == 0 && l == t->cpus);
			}
		}
	} else {
		mvprintw(y++, x0 + 2, "%-40.40s %6s %13s", "devices", "stages", "bottleneck");
		for (int i = 0; i < t->n && y < y0 + h - 2; i++, y++) {
			char name[SC_KINDS_MAX * (SC_KIND_NAME + 12)];
			mvprintw(y, x0 + 2, "%-40.40s %6d ", row_name(w, i, name, sizeof name),
			         sc_fleet_stages(&t->mix[i]));
			put_cell(w, i, i == 0);
		}
	}
	y++;
	mvprintw(y++, x0 + 2, "* the current run;%s each row %.0f s at most",
	         t->grid ? " L: CPU stages;" : "", TABLE_TIME);
	for (int i = 0; i < t->n && y < y0 + h - 1; i++)
		if (!t->run[i] && isnan(t->v[i])) {
			char line[512], name[SC_KINDS_MAX * (SC_KIND_NAME + 12)];
			snprintf(line, sizeof line, "- %s: %s", row_name(w, i, name, sizeof name),
			         t->why[i]);
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

const wb_modal_ops wb_cputable_modal = {
        .name = "cpu table", .draw = table_draw, .key = table_key, .state_size = sizeof(cputable)};

unsigned wb_cputable(wb *w)
{
	cputable *t = table_of(w);
	forget(w);
	sc_settings js;
	wb_job_settings(w, &js);
	t->k = js.k;
	t->cpus = js.cpus;
	t->grid = !w->set.fleet;
	if (w->set.fleet) {
		t->n = sc_fleet_neighbours(w->set.fleet, t->mix);
	} else {
		t->n = 6;
		for (int i = 0; i < 6; i++)
			t->mix[i] = (sc_fleet){0};
	}
	for (int i = 0; i < t->n; i++) {
		t->v[i] = NAN;
		t->why[i][0] = '\0';
		sc_settings set = js;
		set.pin = NULL;
		if (t->grid) {
			set.k = js.k + i / 3;
			set.cpus = i % 3;
		} else {
			/* (the mix outlives the job: the table's state lives
			 * until the engine has gone) */
			set.fleet = &t->mix[i];
			set.k = sc_fleet_stages(set.fleet);
			set.cpus = 0;
		}
		sc_search_params p;
		sc_search_params_init(&p);
		p.method = "exact";
		p.refine = false;
		p.time_limit = 0; /* TABLE_TIME, kept by take_row */
		sc_error err;
		t->id[i] = sc_engine_add_search(w->eng, w->g, &set, &p, &err);
		sc_engine_prefer(w->eng, t->id[i]); /* the user asked (C) */
		t->run[i] = t->id[i] >= 0;
		if (!t->run[i])
			snprintf(t->why[i], sizeof t->why[i], "%.120s", err.msg);
	}
	wb_modal_push(w, &wb_cputable_modal);
	return WB_HANDLED | WB_REDRAW;
}
