/*
 * wb_cputable.c - the practitioner's table (001 section 3) in the
 * workbench: C opens a modal with the optimal bottleneck of the
 * workbench's own graph and settings at k and k + 1 accelerators and 0, 1
 * and 2 CPU stages, what info --cpus prints (tui/cmd/info_devices.c).
 *
 * Each cell is a job of the workbench's engine (w->eng): a search with the
 * method "exact" and the settings' k and cpus, which with CPUs runs the DP
 * with CPU stages; each has a time limit (TABLE_TIME from its start, which
 * the draw keeps), so the screen never blocks and a cell the DP cannot
 * finish says why.  The modal's draw takes in the jobs that have ended
 * (the loop redraws when a job changes, and every REFRESH while one runs) and
 * releases them; closing the modal discards the ones still running.  The
 * state is w->cput; the current run (its k and L) is marked.
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

/* The seconds each cell's DP may run. */
#define TABLE_TIME 10.0

/* Takes in cell (dk, l)'s job once it has ended, and releases it. */
static void take_cell(wb *w, int dk, int l)
{
	int id = w->cput.id[dk][l];
	sc_job_info ji;
	if (!w->cput.run[dk][l])
		return;
	if (!sc_engine_info(w->eng, id, &ji)) {
		w->cput.run[dk][l] = false;
		snprintf(w->cput.why[dk][l], sizeof w->cput.why[dk][l], "the job is gone");
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
		snprintf(w->cput.why[dk][l], sizeof w->cput.why[dk][l], "%.120s", ji.message);
	else if (!optimal)
		snprintf(w->cput.why[dk][l], sizeof w->cput.why[dk][l],
		         "not proven within %.0f s (the time limit)", TABLE_TIME);
	else
		w->cput.v[dk][l] = v; /* INFINITY: no partition fits */
	sc_engine_release(w->eng, id);
	w->cput.run[dk][l] = false;
}

/* Discards the jobs still running (their results are no longer wanted). */
static void forget(wb *w)
{
	for (int dk = 0; dk < 2; dk++)
		for (int l = 0; l < 3; l++) {
			if (w->cput.run[dk][l])
				sc_engine_discard(w->eng, w->cput.id[dk][l]);
			w->cput.run[dk][l] = false;
		}
}

/* Cell (dk, l)'s text into buf: the value, "…" while it runs, "-" when
 * the DP could not finish, "none fits". */
static const char *cell_text(const wb *w, int dk, int l, char *buf, size_t size)
{
	double v = w->cput.v[dk][l];
	if (w->cput.run[dk][l])
		snprintf(buf, size, "\u2026");
	else if (isnan(v))
		snprintf(buf, size, "-");
	else if (isinf(v))
		snprintf(buf, size, "none fits");
	else
		ui_num(v, buf, size);
	return buf;
}

static void table_draw(wb *w, int rows, int cols)
{
	for (int dk = 0; dk < 2; dk++)
		for (int l = 0; l < 3; l++)
			take_cell(w, dk, l);
	int nwhy = 0;
	for (int dk = 0; dk < 2; dk++)
		for (int l = 0; l < 3; l++)
			nwhy += !w->cput.run[dk][l] && isnan(w->cput.v[dk][l]);
	int wd = cols - 4 < 72 ? cols - 4 : 72, h = 8 + nwhy;
	if (h > rows - 2)
		h = rows - 2;
	if (h < 6 || wd < 50)
		return;
	int y0 = (rows - h) / 2, x0 = (cols - wd) / 2;
	wb_popup(y0, x0, h, wd, "the optimum with more accelerators and CPUs (exact DP)",
	         "Esc C q close");
	int y = y0 + 1;
	mvprintw(y, x0 + 2, "%6s", "k");
	for (int l = 0; l < 3; l++)
		mvprintw(y, x0 + 8 + l * 15, "  %12s%d ", "L = ", l);
	y++;
	for (int dk = 0; dk < 2; dk++, y++) {
		mvprintw(y, x0 + 2, "%6d", w->cput.k + dk);
		for (int l = 0; l < 3; l++) {
			char buf[32];
			cell_text(w, dk, l, buf, sizeof buf);
			bool here = dk == 0 && l == w->cput.cpus;
			/* "…" takes three bytes and one column */
			int pad = 12 + (w->cput.run[dk][l] ? 2 : 0);
			mvprintw(y, x0 + 8 + l * 15, "  ");
			if (here)
				attron(A_REVERSE);
			printw("%*s", pad, buf);
			if (here)
				attroff(A_REVERSE);
			printw("%s", here ? "*" : " ");
		}
	}
	y++;
	mvprintw(y++, x0 + 2, "* the current run; L: CPU stages; each cell %.0f s at most",
	         TABLE_TIME);
	for (int dk = 0; dk < 2 && y < y0 + h - 1; dk++)
		for (int l = 0; l < 3 && y < y0 + h - 1; l++)
			if (!w->cput.run[dk][l] && isnan(w->cput.v[dk][l])) {
				char line[256];
				snprintf(line, sizeof line, "- k %d, L %d: %s", w->cput.k + dk, l,
				         w->cput.why[dk][l]);
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
	if (w->set.fleet) {
		/* its cells are k and L; a fleet's mixes are info's table */
		wb_say(w, "the CPU table is for --cpus; 'stagecut info FILE --devices SPEC' gives "
		          "the table of the fleet's mixes");
		return WB_HANDLED | WB_REDRAW;
	}
	forget(w);
	sc_settings js;
	wb_job_settings(w, &js);
	w->cput.k = js.k;
	w->cput.cpus = js.cpus;
	for (int dk = 0; dk < 2; dk++)
		for (int l = 0; l < 3; l++) {
			w->cput.v[dk][l] = NAN;
			w->cput.why[dk][l][0] = '\0';
			sc_settings set = js;
			set.k = js.k + dk;
			set.cpus = l;
			set.pin = NULL;
			sc_search_params p;
			sc_search_params_init(&p);
			p.method = "exact";
			p.refine = false;
			p.time_limit = 0; /* TABLE_TIME, kept by take_cell */
			sc_error err;
			w->cput.id[dk][l] = sc_engine_add_search(w->eng, w->g, &set, &p, &err);
			sc_engine_prefer(w->eng, w->cput.id[dk][l]); /* the user asked (C) */
			w->cput.run[dk][l] = w->cput.id[dk][l] >= 0;
			if (!w->cput.run[dk][l])
				snprintf(w->cput.why[dk][l], sizeof w->cput.why[dk][l], "%.120s",
				         err.msg);
		}
	wb_modal_push(w, &wb_cputable_modal);
	return WB_HANDLED | WB_REDRAW;
}
