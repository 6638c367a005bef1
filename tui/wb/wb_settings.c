/*
 * wb_settings.c - the settings form (o): k, the bandwidth, the memory and
 * its policy, on a training graph the schedule (1F1B or GPipe, whose
 * objective the header shows and the searches minimise), and the time
 * budgets of the search and of each rung.
 *
 * The form is a table of fields (name, kind, where the value lives, the
 * message for a bad value); drawing, editing and checking a value all go
 * through the field's kind.  A change of the problem (k, B, M, policy)
 * cancels the jobs and starts over; a budget applies to the next job.  The
 * form is a modal (wb.h); its keys are wb_keys.def's WB_IN_SETTINGS rows.
 *
 * Layer: a modal (layer 4 in wb.h): it calls the state, the key table, the
 * jobs, the prompt, the recovery file, wb_draw.c's wb_box and wb_sample.c;
 * only the dispatcher names wb_settings_modal.
 */
#define _POSIX_C_SOURCE 200809L
#include <curses.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/load.h"
#include "core/partition.h"
#include "solvers/simple.h"
#include "tui/ui.h"
#include "tui/wb/wb.h"
#include "viz/quotient.h"

typedef enum field_kind {
	F_STAGES,   /* int k, 1..4096 */
	F_POSITIVE, /* a finite number > 0 */
	F_BYTES,    /* a number >= 0, or inf */
	F_POLICY,   /* sc_mem_policy */
	F_SECONDS,  /* a time budget: a finite number > 0 */
	F_SCHEDULE, /* sc_schedule */
} field_kind;

typedef struct field {
	const char *name;
	field_kind kind;
	bool problem;    /* lives in sc_settings (else in wb) and restarts the jobs */
	size_t offset;   /* in sc_settings or in wb */
	const char *bad; /* the message for a value that is not one */
	bool training;   /* shown on training graphs only */
} field;

static const field fields[] = {
        {.name = "k (stages)",
         .kind = F_STAGES,
         .problem = true,
         .offset = offsetof(sc_settings, k),
         .bad = "k must be a whole number from 1 to 4096"},
        {.name = "bandwidth (bytes/time)",
         .kind = F_POSITIVE,
         .problem = true,
         .offset = offsetof(sc_settings, bandwidth),
         .bad = "the bandwidth must be a number > 0"},
        {.name = "memory per stage (bytes)",
         .kind = F_BYTES,
         .problem = true,
         .offset = offsetof(sc_settings, memory),
         .bad = "the memory must be a number of bytes >= 0, or inf"},
        {.name = "memory policy",
         .kind = F_POLICY,
         .problem = true,
         .offset = offsetof(sc_settings, policy),
         .bad = "the policy is overflow or hard"},
        {.name = "schedule (training)",
         .kind = F_SCHEDULE,
         .problem = true,
         .offset = offsetof(sc_settings, schedule),
         .bad = "the schedule is 1f1b or gpipe",
         .training = true},
        {.name = "search time limit (s)",
         .kind = F_SECONDS,
         .offset = offsetof(wb, search_time),
         .bad = "a time limit is a number of seconds > 0"},
        {.name = "time per ladder rung (s)",
         .kind = F_SECONDS,
         .offset = offsetof(wb, rung_time),
         .bad = "a time limit is a number of seconds > 0"},
};

enum { NFIELDS = (int)(sizeof fields / sizeof *fields) };

/* The fields shown for w's graph, as indices into fields; returns how
 * many.  An inference graph has one pass and no schedule to choose. */
static int shown_fields(const wb *w, int *out)
{
	int n = 0;
	for (int i = 0; i < NFIELDS; i++)
		if (!fields[i].training || sc_graph_is_training(w->g))
			out[n++] = i;
	return n;
}

/* Where field f's value lives: in set for the problem's fields, else in w. */
static void *value_of(const field *f, wb *w, sc_settings *set)
{
	return (char *)(f->problem ? (void *)set : (void *)w) + f->offset;
}

/* Field f's value as text: as shown, or as offered for editing. */
static void show(const field *f, wb *w, char *buf, size_t size, bool editing)
{
	char b[32];
	void *v = value_of(f, w, &w->set);
	switch (f->kind) {
	case F_STAGES: snprintf(buf, size, "%d", *(int *)v); break;
	case F_POSITIVE: snprintf(buf, size, "%s", ui_num(*(double *)v, b, sizeof b)); break;
	case F_BYTES:
		snprintf(buf, size, "%s",
		         editing && isinf(*(double *)v) ? "inf"
		                                        : ui_num(*(double *)v, b, sizeof b));
		break;
	case F_POLICY: snprintf(buf, size, "%s", sc_mem_policy_name(*(sc_mem_policy *)v)); break;
	case F_SECONDS: snprintf(buf, size, "%.0f", *(double *)v); break;
	case F_SCHEDULE:
		snprintf(buf, size, "%s",
		         editing ? sc_schedule_name(*(sc_schedule *)v)
		                 : sc_quotient_schedule_name(*(sc_schedule *)v));
		break;
	}
}

/* Parses text into field f's place in ns (problem fields) or w; false when
 * it is not a value of the field's kind. */
static bool parse(const field *f, wb *w, sc_settings *ns, const char *text)
{
	void *v = value_of(f, w, ns);
	double x;
	char *end;
	switch (f->kind) {
	case F_STAGES: {
		long k = strtol(text, &end, 10);
		if (*end || k < 1 || k > 4096)
			return false;
		*(int *)v = (int)k;
		return true;
	}
	case F_POSITIVE:
	case F_SECONDS:
		if (!sc_parse_weight(text, &x) || x <= 0 || isinf(x))
			return false;
		*(double *)v = x;
		return true;
	case F_BYTES:
		if (strcmp(text, "inf") == 0 || strcmp(text, "unlimited") == 0)
			x = INFINITY;
		else if (!sc_parse_weight(text, &x))
			return false;
		*(double *)v = x;
		return true;
	case F_POLICY: return sc_mem_policy_parse(text, (sc_mem_policy *)v);
	case F_SCHEDULE: return sc_schedule_parse(text, (sc_schedule *)v);
	}
	return false;
}

/* Settings changed: cancel the jobs and start over for the new problem. */
static void restart_problem(wb *w, const sc_settings *ns)
{
	sc_ladder_free(w->ladder);
	w->ladder = NULL;
	sc_engine_cancel(w->eng, -1);
	bool k_changed = ns->k != w->set.k;
	int *st = sc_part_new(w->g);
	if (!st) {
		wb_say(w, "out of memory");
		return;
	}
	memcpy(st, w->stage, (size_t)w->g->n * sizeof *st);
	sc_settings old = w->set;
	w->set = *ns;
	if (k_changed) {
		/* a partition into the old k means nothing now */
		wb_recover_clear(w);
		wb_recover_path(w);
		wb_first_partition(w->g, &w->set, st, w->origin, sizeof w->origin);
		w->from_file = false;
		w->stage_sel = w->stage_top = 0;
	}
	if (!wb_new_editor(w, st)) {
		w->set = old;
		free(st);
		return;
	}
	free(st);
	w->simple = sc_bound_simple(w->g, w->set.k);
	wb_reset_best(w);
	wb_start_search(w, "best", NULL);
}

static unsigned value_answer(wb *w, const char *text, bool ok, int i)
{
	if (!ok)
		return 0;
	const field *f = &fields[i];
	sc_settings ns = w->set;
	if (!parse(f, w, &ns, text)) {
		wb_say(w, "%s", f->bad);
		return 0;
	}
	if (!f->problem) {
		wb_say(w, "the new budget applies to the next search or ladder");
		return 0;
	}
	restart_problem(w, &ns);
	wb_say(w, "settings changed: the search and the ladder start over");
	return 0;
}

static void settings_draw(wb *w, int rows, int cols)
{
	int shown[NFIELDS], nshown = shown_fields(w, shown);
	int wd = 64 < cols - 2 ? 64 : cols - 2, h = nshown + 5;
	int y0 = (rows - h) / 2, x0 = (cols - wd) / 2;
	char title[96], keys[64];
	snprintf(title, sizeof title, " settings  (%s)",
	         wb_footer(WB_FOOT_SETTINGS, ", ", keys, sizeof keys));
	wb_box(y0, x0, h, wd, title);
	for (int i = 0; i < nshown; i++) {
		char v[48];
		show(&fields[shown[i]], w, v, sizeof v, false);
		if (i == w->settings_sel)
			attron(A_REVERSE);
		mvprintw(y0 + 2 + i, x0 + 2, "%-28s %-20s", fields[shown[i]].name, v);
		if (i == w->settings_sel)
			attroff(A_REVERSE);
	}
	mvprintw(y0 + h - 2, x0 + 2, "%.*s", wd - 4,
	         "a change restarts the search and the ladder for the new problem");
}

static unsigned settings_key(wb *w, int ch)
{
	int shown[NFIELDS], nshown = shown_fields(w, shown);
	switch (wb_key_action(WB_IN_SETTINGS, ch)) {
	case WB_A_SET_DOWN:
		if (w->settings_sel < nshown - 1)
			w->settings_sel++;
		break;
	case WB_A_SET_UP:
		if (w->settings_sel > 0)
			w->settings_sel--;
		break;
	case WB_A_SET_EDIT: {
		char buf[64];
		int f = shown[w->settings_sel];
		show(&fields[f], w, buf, sizeof buf, true);
		return wb_ask(w, "new value:", buf, sizeof buf, value_answer, f);
	}
	case WB_A_SET_CLOSE: wb_modal_pop(w); break;
	default:
		/* the form keeps every key while it is open */
		return ch == KEY_RESIZE ? WB_HANDLED | WB_REDRAW : WB_HANDLED;
	}
	return WB_HANDLED | WB_REDRAW;
}

const wb_modal_ops wb_settings_modal = {
        .name = "settings", .draw = settings_draw, .key = settings_key};
