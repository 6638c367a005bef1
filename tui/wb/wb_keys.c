/*
 * wb_keys.c - the dispatch of one key through the modal stack, the view
 * and the global actions; those global actions themselves; the help modal;
 * the list of views.
 *
 * A key goes to the top modal first; what it leaves (the tour returns 0 for
 * the keys that are not its own) goes down the stack, then to the view
 * (wb_view_ops.key with the action decoded in the view's context), then to
 * global_action below.  The jobs' actions live in wb_jobs.c, the files'
 * in wb_files.c, the views' own in wb_draw.c, wb_nodes.c, wb_quotient.c.
 *
 * Layer: the top, with workbench.c.  It may call every file of tui/wb/
 * (the key table in wb_keytab.c, the state, the jobs, the files, the views'
 * and modals' ops tables) and nothing below calls it.
 */
#define _POSIX_C_SOURCE 200809L
#include "tui/wb/wb.h"

#include <curses.h>
#include <stdio.h>

/* --- the help modal: the key lines of the views, then what the screen's
 * marks mean; any key closes it --- */

static const char *const help_notes[] = {
        "The bottleneck stage is marked *, a stage over a hard memory limit !.",
        "gap = best partition / best lower bound - 1: how much better the",
        "optimum could still be.",
};

static void help_draw(wb *w, int rows, int cols)
{
	(void)w;
	enum { NNOTES = (int)(sizeof help_notes / sizeof *help_notes) };
	char line[160];
	int nkeys = 0;
	while (wb_help_line(WB_IN_VIEWS, nkeys, line, sizeof line))
		nkeys++;
	int n = nkeys + NNOTES;
	int wd = 74 < cols - 2 ? 74 : cols - 2, h = n + 2 < rows - 1 ? n + 2 : rows - 1;
	int y0 = (rows - h) / 2, x0 = (cols - wd) / 2;
	wb_box(y0, x0, h, wd, " stagecut help: keys");
	for (int i = 0; i < n && i < h - 2; i++) {
		const char *s = i < nkeys ? wb_help_line(WB_IN_VIEWS, i, line, sizeof line)
		                          : help_notes[i - nkeys];
		mvprintw(y0 + 1 + i, x0 + 2, "%.*s", wd - 3, s);
	}
}

static unsigned help_key(wb *w, int ch)
{
	(void)ch;
	wb_modal_pop(w);
	return WB_HANDLED | WB_REDRAW;
}

const wb_modal_ops wb_help_modal = {.name = "help", .draw = help_draw, .key = help_key};

/* --- the global actions --- */

const wb_view_ops *const wb_views[WB_NVIEWS] = {&wb_overview_view, &wb_nodes_view,
                                                &wb_quotient_view};

static unsigned global_action(wb *w, wb_action a, int ch)
{
	switch (a) {
	case WB_A_QUIT: return wb_quit(w);
	case WB_A_UNDO:
		if (sc_editor_undo(w->ed)) {
			wb_changed(w, true);
			wb_say(w, "undone; %d more to undo", sc_editor_undo_count(w->ed));
		} else {
			wb_say(w, "nothing to undo");
		}
		break;
	case WB_A_REDO:
		if (sc_editor_redo(w->ed)) {
			wb_changed(w, true);
			wb_say(w, "redone; %d more to redo", sc_editor_redo_count(w->ed));
		} else {
			wb_say(w, "nothing to redo");
		}
		break;
	case WB_A_HELP: wb_modal_push(w, &wb_help_modal); break;
	case WB_A_SEARCH: wb_start_search(w, "best", NULL); break;
	case WB_A_REFINE: wb_start_search(w, "refine", w->stage); break;
	case WB_A_ADOPT: wb_adopt_best(w); break;
	case WB_A_LADDER: wb_start_ladder(w); break;
	case WB_A_CANCEL: wb_cancel_jobs(w); break;
	case WB_A_SAVE: return wb_save(w, false);
	case WB_A_SETTINGS: wb_modal_push(w, &wb_settings_modal); break;
	case WB_A_LOAD: return wb_load(w);
	case WB_A_EXPORT: return wb_export(w);
	case WB_A_TOUR:
		w->tour = 1;
		if (!wb_modal_open(w, &wb_tour_modal))
			wb_modal_push(w, &wb_tour_modal);
		break;
	case WB_A_VIEW: w->view = wb_views[ch - '1']; break;
	case WB_A_PANE: w->pane = !w->pane; break;
	/* what a view leaves of j, k and the arrows moves the stage selection */
	case WB_A_DOWN:
		if (w->stage_sel + 1 < w->set.k)
			w->stage_sel++;
		break;
	case WB_A_UP:
		if (w->stage_sel > 0)
			w->stage_sel--;
		break;
	default: return wb_browse_action(w, a);
	}
	return WB_HANDLED | WB_REDRAW;
}

unsigned wb_key(wb *w, int ch)
{
	for (int i = w->nmodal - 1; i >= 0; i--) {
		unsigned r = w->modal[i]->key(w, ch);
		if (r)
			return r;
	}
	if (ch == KEY_RESIZE)
		return WB_HANDLED | WB_REDRAW;
	wb_action a = wb_key_action(w->view->in, ch);
	if (a == WB_A_NONE)
		return 0;
	unsigned r = w->view->key ? w->view->key(w, a, ch) : 0;
	return r ? r : global_action(w, a, ch);
}
