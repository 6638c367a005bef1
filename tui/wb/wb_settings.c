/*
 * wb_settings.c - the settings form (o): k, the bandwidth, the memory and
 * its policy, on a training graph the schedule (1F1B or GPipe, whose
 * objective the header shows and the searches minimise), the search that
 * s and S start (method, next seed, evaluations), and the time budgets of
 * the search and of each rung.
 *
 * The form is a table of fields (name, kind, where the value lives, the
 * message for a bad value); drawing, editing and checking a value all go
 * through the field's kind.  A change of the problem (k, B, M, policy,
 * schedule) cancels the jobs and starts over; a budget applies to the next
 * job.  Hand edits are never thrown away unasked: a bandwidth, memory,
 * policy or schedule only changes costs, so the partition stays; a new k
 * keeps it when all its stages fit, else asks (merge the stages past k into
 * the last one, or discard the edits for a new first partition); without
 * edits a new k gets a new first partition.  The form is a modal (wb.h) in
 * a bordered popup; its keys are wb_keys.def's WB_IN_SETTINGS rows.
 *
 * Layer: a modal (layer 4 in wb.h): it calls the state, the key table, the
 * jobs, the prompt and the popup (wb_lineedit.c), the recovery file and
 * wb_sample.c;
 * only the dispatcher names wb_settings_modal.
 */
#define _POSIX_C_SOURCE 200809L
#include "tui/wb/wb_settings.h"

#include <curses.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/formats/load.h"
#include "core/partition.h"
#include "solvers/search.h"
#include "solvers/simple.h"
#include "tui/ui.h"
#include "tui/wb/wb_devices.h"
#include "tui/wb/wb_jobs.h"
#include "tui/wb/wb_keytab.h"
#include "tui/wb/wb_lineedit.h"
#include "tui/wb/wb_recover.h"
#include "tui/wb/wb_sample.h"
#include "viz/quotient.h"

typedef enum field_kind {
	F_STAGES,   /* int k, 1..4096 (shown: all the stages, sc_settings_stages) */
	F_POSITIVE, /* a finite number > 0 */
	F_BYTES,    /* a number >= 0, or inf */
	F_POLICY,   /* sc_mem_policy */
	F_SECONDS,  /* a time budget: a finite number > 0 */
	F_SCHEDULE, /* sc_schedule */
	F_METHOD,   /* a search method's name (char[24]) */
	F_COUNT,    /* a whole number >= 0 (long) */
} field_kind;

typedef struct field {
	const char *name;
	field_kind kind;
	bool problem;    /* lives in sc_settings (else in wb_jobs) and restarts the jobs */
	size_t offset;   /* in sc_settings or in wb_jobs */
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
        {.name = "search method (s, S)",
         .kind = F_METHOD,
         .offset = offsetof(wb_jobs, search_pick),
         .bad = "the method is one of"},
        {.name = "next search's seed",
         .kind = F_COUNT,
         .offset = offsetof(wb_jobs, search_seed),
         .bad = "a seed is a whole number >= 0"},
        {.name = "evaluations (0: default)",
         .kind = F_COUNT,
         .offset = offsetof(wb_jobs, search_evals),
         .bad = "the evaluations are a whole number >= 0 (0: the method's default)"},
        {.name = "search time limit (s)",
         .kind = F_SECONDS,
         .offset = offsetof(wb_jobs, search_time),
         .bad = "a time limit is a number of seconds > 0"},
        {.name = "time per ladder rung (s)",
         .kind = F_SECONDS,
         .offset = offsetof(wb_jobs, rung_time),
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

/* Where field f's value lives: in set for the problem's fields, else in
 * w's jobs (the search's settings). */
static void *value_of(const field *f, wb *w, sc_settings *set)
{
	return (char *)(f->problem ? (void *)set : (void *)w->jobs) + f->offset;
}

/* Field f's value as text: as shown, or as offered for editing. */
static void show(const field *f, wb *w, char *buf, size_t size, bool editing)
{
	char b[32];
	void *v = value_of(f, w, &w->set);
	switch (f->kind) {
	case F_STAGES:
		/* all the stages, the CPU ones too */
		snprintf(buf, size, "%d", sc_settings_stages(&w->set));
		break;
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
	case F_METHOD: snprintf(buf, size, "%s", (const char *)v); break;
	case F_COUNT:
		if (!editing && f->offset == offsetof(wb_jobs, search_evals) && *(long *)v == 0)
			snprintf(buf, size, "the method's default");
		else
			snprintf(buf, size, "%ld", *(long *)v);
		break;
	}
}

/* Whether name is one of the search methods. */
static bool is_method(const char *name)
{
	int n;
	const sc_method_info *m = sc_search_methods(&n);
	for (int i = 0; i < n; i++)
		if (strcmp(m[i].name, name) == 0)
			return true;
	return false;
}

/* Parses text into field f's place in ns (problem fields) or w's jobs; false when
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
	case F_METHOD:
		if (!is_method(text) || strlen(text) >= sizeof w->jobs->search_pick)
			return false;
		snprintf((char *)v, sizeof w->jobs->search_pick, "%s", text);
		return true;
	case F_COUNT: {
		errno = 0;
		long n = strtol(text, &end, 10);
		if (end == text || *end || n < 0 || errno == ERANGE)
			return false;
		*(long *)v = n;
		return true;
	}
	}
	return false;
}

/* What a change of the problem does with the current partition: keeps it
 * (valid under any bandwidth, memory, policy or schedule, and under a k
 * that all its stages fit), merges the stages past the new k into its
 * last stage, or replaces it with a new first partition. */
typedef enum keep_mode { KEEP, MERGE, FIRST } keep_mode;

/* The highest stage (0-based) the current partition uses. */
static int top_stage(const wb *w)
{
	int top = 0;
	for (int v = 0; v < w->g->n; v++)
		if (w->stage[v] > top)
			top = w->stage[v];
	return top;
}

/* Settings changed: cancel the jobs and start over for the new problem,
 * with the current partition as mode says.  An edited partition kept is
 * set over the baseline as one edit (u goes back to the baseline) when the
 * baseline is valid under the new k; the rest of the undo history is the
 * old problem's and is gone.  Returns whether u goes back to the baseline
 * (false also when nothing changed: out of memory, an invalid partition,
 * said in the status line). */
static bool restart_problem(wb *w, const sc_settings *ns, keep_mode mode)
{
	sc_ladder_free(w->jobs->ladder);
	w->jobs->ladder = NULL;
	sc_engine_cancel(w->eng, -1);
	bool k_changed = ns->k != w->set.k;
	int *st = sc_part_new(w->g);
	if (!st) {
		wb_say(w, "out of memory");
		return false;
	}
	memcpy(st, w->stage, (size_t)w->g->n * sizeof *st);
	if (mode == MERGE)
		/* monotone, so every edge keeps its direction and every group
		 * its stage: still valid */
		for (int v = 0; v < w->g->n; v++)
			if (st[v] >= ns->k)
				st[v] = ns->k - 1;
	bool edited = w->edited;
	sc_settings old = w->set;
	if (k_changed)
		/* the old k's file goes: its partition is replaced, or goes on
		 * to the new k's file */
		wb_recover_clear(w);
	w->set = *ns;
	if (mode == FIRST) {
		wb_first_partition(w->g, &w->set, st, w->origin, sizeof w->origin);
		w->from_file = false;
	}
	if (k_changed)
		w->stage_sel = 0; /* the overview scrolls back to it */
	sc_violation viol;
	bool via_base = mode != FIRST && edited && w->base && w->base->stage &&
	                sc_part_check(w->g, w->base->stage, sc_settings_stages(&w->set), &viol);
	if (!wb_new_editor(w, via_base ? w->base->stage : st)) {
		w->set = old;
		free(st);
		return false;
	}
	bool undoable = false;
	if (mode == FIRST) {
		wb_mark_saved(w);
	} else if (via_base && sc_editor_set(w->ed, st, "the edits before the settings change")) {
		wb_changed(w, true);
		undoable = true;
	} else if (edited) {
		snprintf(w->origin, sizeof w->origin,
		         "edited by hand (kept over a settings change; nothing to undo)");
	}
	free(st);
	if (k_changed)
		wb_recover_open(w, false);
	w->recover_due = true;
	w->simple = wb_simple_bound(w);
	wb_reset_best(w);
	wb_start_search(w, NULL, NULL);
	return undoable;
}

/* The answer to "k from 6 to 4, but your edited partition uses stages up to
 * 6": m merges the stages past the new k, d discards the edits, Esc keeps
 * k; arg is the new k. */
static unsigned k_answer(wb *w, const char *answer, bool ok, int k)
{
	if (!ok) {
		wb_say(w, "k stays %d", w->set.k);
		return 0;
	}
	sc_settings ns = w->set;
	ns.k = k;
	if (answer[0] == 'm') {
		bool undoable = restart_problem(w, &ns, MERGE);
		wb_say(w,
		       "k is %d: the stages past it merged into stage %d%s; the search and the "
		       "ladder start over",
		       k, k, undoable ? " (u undoes your edits)" : "");
	} else {
		restart_problem(w, &ns, FIRST);
		wb_say(w,
		       "k is %d: your edits were discarded for a new first partition; the search "
		       "and the ladder start over",
		       k);
	}
	return 0;
}

static unsigned value_answer(wb *w, const char *text, bool ok, int i)
{
	if (!ok)
		return 0;
	const field *f = &fields[i];
	sc_settings ns = w->set;
	if (!parse(f, w, &ns, text)) {
		char list[200] = "";
		int n;
		const sc_method_info *m = sc_search_methods(&n);
		for (int j = 0; f->kind == F_METHOD && j < n; j++)
			snprintf(list + strlen(list), sizeof list - strlen(list), "%s %s",
			         j ? "," : ":", m[j].name);
		wb_say(w, "%s%s", f->bad, list);
		return 0;
	}
	if (!f->problem) {
		wb_say(w, "%s",
		       f->kind == F_METHOD || f->kind == F_COUNT
		               ? "s starts the next search with it (S: until stopped)"
		               : "the new budget applies to the next search or ladder");
		return 0;
	}
	if (w->kind && f->kind == F_STAGES) {
		/* the field counts all the stages; with devices they stay, as the
		 * stages' devices would have to be chosen again */
		if (ns.k != sc_settings_stages(&w->set)) {
			char dev[128];
			wb_say(w, "with devices k stays (%s) here; start again with %s",
			       wb_devices_text(w, dev, sizeof dev),
			       w->set.fleet ? "another --devices" : "-k and --cpus");
			return 0;
		}
		ns.k = w->set.k;
	}
	keep_mode mode = KEEP;
	if (ns.k != w->set.k && !w->edited) {
		mode = FIRST; /* nothing of the engineer's to keep */
	} else if (ns.k != w->set.k && top_stage(w) >= ns.k) {
		char q[256];
		snprintf(
		        q, sizeof q,
		        "k from %d to %d, but your edited partition uses stages up to %d: m merges "
		        "the stages past %d into stage %d, d discards your edits (a new first "
		        "partition), Esc keeps k %d",
		        w->set.k, ns.k, top_stage(w) + 1, ns.k, ns.k, w->set.k);
		return wb_choose(w, q, "md", k_answer, ns.k);
	}
	bool kept = mode == KEEP && w->edited;
	bool undoable = restart_problem(w, &ns, mode);
	if (kept)
		wb_say(w,
		       "settings changed: your edited partition is kept%s; the search and the "
		       "ladder start over",
		       undoable ? " (u undoes your edits)" : "");
	else
		wb_say(w, "settings changed: the search and the ladder start over");
	return 0;
}

/* The form's own state (its modal's): the selected field, kept while the
 * form is closed. */
typedef struct form_state {
	int sel;
} form_state;

/* The form's note; the schedule only where there is one to choose. */
static const char *settings_note(const wb *w)
{
	return sc_graph_is_training(w->g)
	               ? "A change of k, the bandwidth, the memory, the policy or the schedule "
	                 "restarts the search and the ladder and keeps an edited partition (a "
	                 "smaller k it does not fit asks first); a time limit applies to the next "
	                 "job."
	               : "A change of k, the bandwidth, the memory or the policy restarts the "
	                 "search and the ladder and keeps an edited partition (a smaller k it "
	                 "does not fit asks first); a time limit applies to the next job.";
}

static void settings_draw(wb *w, int rows, int cols)
{
	form_state *fs = wb_modal_state(w, &wb_settings_modal);
	enum { NAME = 28, MAX_NOTE = 8 };
	int shown[NFIELDS], nshown = shown_fields(w, shown), vw = 8;
	char v[NFIELDS][48];
	for (int i = 0; i < nshown; i++) {
		show(&fields[shown[i]], w, v[i], sizeof v[i], false);
		if ((int)strlen(v[i]) > vw)
			vw = (int)strlen(v[i]);
	}
	char keys[96];
	wb_footer(WB_FOOT_SETTINGS, ", ", keys, sizeof keys);
	int inner = NAME + 1 + vw;
	if (inner < 60)
		inner = 60;
	if ((int)strlen(keys) + 4 > inner)
		inner = (int)strlen(keys) + 4;
	int wd = inner + 4 < cols ? inner + 4 : cols;
	inner = wd - 4;
	int start[MAX_NOTE], len[MAX_NOTE];
	const char *note = settings_note(w);
	int nnote = wb_wrap(note, inner, start, len, MAX_NOTE);
	if (nnote > MAX_NOTE)
		nnote = MAX_NOTE;
	int h = nshown + 1 + nnote + 2 < rows ? nshown + 1 + nnote + 2 : rows;
	int y0 = (rows - h) / 2, x0 = (cols - wd) / 2;
	wb_popup(y0, x0, h, wd, "settings", keys);
	for (int i = 0; i < nshown && 1 + i < h - 1; i++) {
		if (i == fs->sel)
			attron(A_REVERSE);
		mvhline(y0 + 1 + i, x0 + 2, ' ', inner);
		mvprintw(y0 + 1 + i, x0 + 2, "%-*s %.*s", NAME, fields[shown[i]].name,
		         inner - NAME - 1, v[i]);
		if (i == fs->sel)
			attroff(A_REVERSE);
	}
	for (int j = 0; j < nnote && nshown + 2 + j < h - 1; j++)
		mvprintw(y0 + nshown + 2 + j, x0 + 2, "%.*s", len[j], note + start[j]);
}

static unsigned settings_key(wb *w, int ch)
{
	form_state *fs = wb_modal_state(w, &wb_settings_modal);
	int shown[NFIELDS], nshown = shown_fields(w, shown);
	switch (wb_key_action(WB_IN_SETTINGS, ch)) {
	case WB_A_SET_DOWN:
		if (fs->sel < nshown - 1)
			fs->sel++;
		break;
	case WB_A_SET_UP:
		if (fs->sel > 0)
			fs->sel--;
		break;
	case WB_A_SET_EDIT: {
		char buf[64];
		int f = shown[fs->sel];
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

const wb_modal_ops wb_settings_modal = {.name = "settings",
                                        .draw = settings_draw,
                                        .key = settings_key,
                                        .state_size = sizeof(form_state)};
