/*
 * wb_keys.c - the dispatch of one key through the modal stack, the view
 * and the global actions; those global actions themselves; the help modal;
 * the list of views.
 *
 * A key goes to the top modal first; what it leaves (the tour returns 0 for
 * the keys that are not its own) goes down the stack, then to the view
 * (wb_view_ops.key with the action decoded in the view's context), then to
 * global_action below; only ^L (redraw) is taken before the modals.  The
 * jobs' actions live in wb_jobs.c, the files' in wb_files.c, the views' own
 * in wb_draw.c, wb_nodes.c, wb_quotient.c.
 *
 * Layer: the top, with workbench.c.  It may call every file of tui/wb/
 * (the key table in wb_keytab.c, the state, the jobs, the files, the views'
 * and modals' ops tables) and nothing below calls it.
 */
#define _POSIX_C_SOURCE 200809L
#include "tui/wb/wb_keys.h"

#include "tui/wb/wb_compare.h"
#include "tui/wb/wb_cputable.h"
#include "tui/wb/wb_devices.h"
#include "tui/wb/wb_files.h"
#include "tui/wb/wb_jobs.h"
#include "tui/wb/wb_keytab.h"
#include "tui/wb/wb_lineedit.h"
#include "tui/wb/wb_modules.h"
#include "tui/wb/wb_nav.h"
#include "tui/wb/wb_nodes.h"
#include "tui/wb/wb_overview.h"
#include "tui/wb/wb_quotient.h"
#include "tui/wb/wb_settings.h"
#include "tui/wb/wb_timeline.h"
#include "tui/wb/wb_tour.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

/* --- the help modal: the key lines of the views, then what the screen's
 * marks mean, in a bordered box sized to its text (help lines wrap under
 * their own column when the box is narrower than they are); any key closes
 * it, but when it is taller than the screen j k Space PgDn PgUp scroll --- */

static const char *const help_notes[] = {
        "The bottleneck stage is marked *, a stage over a hard memory limit !.",
        "gap = this partition / lower bound - 1: how far from the optimum it can be.",
};

enum { NNOTES = (int)(sizeof help_notes / sizeof *help_notes), HELP_ROWS = 256 };

/* One row of the help's text: prefix (a key label padded to its column, or
 * "") then text[0 .. len). */
typedef struct help_row {
	char prefix[40];
	const char *text;
	int len;
} help_row;

/* The help box for a rows x cols screen: its rows into out (at most
 * HELP_ROWS), returns how many; its size into *h, *wd. */
static int help_layout(int rows, int cols, help_row *out, int *h, int *wd)
{
	int nb, col = 0, longest = 0;
	const wb_binding *b = wb_bindings(&nb);
	for (int i = 0; i < nb; i++)
		if (b[i].label && (b[i].where & WB_IN_VIEWS) && (int)strlen(b[i].label) > col)
			col = (int)strlen(b[i].label);
	int indent = 2 + col + 2;
	for (int i = 0; i < nb; i++)
		if (b[i].label && (b[i].where & WB_IN_VIEWS) &&
		    indent + (int)strlen(b[i].help) > longest)
			longest = indent + (int)strlen(b[i].help);
	for (int i = 0; i < NNOTES; i++)
		if ((int)strlen(help_notes[i]) > longest)
			longest = (int)strlen(help_notes[i]);
	/* a border and a space on each side */
	*wd = longest + 4 < cols ? longest + 4 : cols;
	int inner = *wd - 4 > 10 ? *wd - 4 : 10;
	int n = 0, start[HELP_ROWS], len[HELP_ROWS];
	for (int i = 0; i < nb; i++) {
		if (!b[i].label || !(b[i].where & WB_IN_VIEWS))
			continue;
		int width = inner - indent > 10 ? inner - indent : 10;
		int m = wb_wrap(b[i].help, width, start, len, HELP_ROWS);
		for (int j = 0; j < m && j < HELP_ROWS && n < HELP_ROWS; j++, n++) {
			snprintf(out[n].prefix, sizeof out[n].prefix, "  %-*s  ", col,
			         j == 0 ? b[i].label : "");
			out[n].text = b[i].help + start[j];
			out[n].len = len[j];
		}
	}
	int nkeys = n, nnotes = 0;
	for (int i = 0; i < NNOTES; i++)
		nnotes += wb_wrap(help_notes[i], inner, start, len, HELP_ROWS);
	/* a blank row before the notes when the screen has room for it */
	if (nkeys + 1 + nnotes + 2 <= rows && n < HELP_ROWS)
		out[n++] = (help_row){.prefix = "", .text = "", .len = 0};
	for (int i = 0; i < NNOTES; i++) {
		int m = wb_wrap(help_notes[i], inner, start, len, HELP_ROWS);
		for (int j = 0; j < m && j < HELP_ROWS && n < HELP_ROWS; j++, n++) {
			out[n].prefix[0] = '\0';
			out[n].text = help_notes[i] + start[j];
			out[n].len = len[j];
		}
	}
	*h = n + 2 < rows ? n + 2 : rows;
	return n;
}

/* The help's own state (its modal's): the first row shown (it scrolls). */
typedef struct help_state {
	int top;
} help_state;

static void help_draw(wb *w, int rows, int cols)
{
	help_state *hs = wb_modal_state(w, &wb_help_modal);
	help_row text[HELP_ROWS];
	int h, wd, n = help_layout(rows, cols, text, &h, &wd), shown = h - 2;
	if (shown < 1)
		return;
	if (hs->top > n - shown)
		hs->top = n - shown;
	if (hs->top < 0)
		hs->top = 0;
	char foot[96];
	if (n > shown)
		snprintf(foot, sizeof foot,
		         "rows %d-%d of %d: j k Space PgUp scroll, other keys close", hs->top + 1,
		         hs->top + shown, n);
	else
		snprintf(foot, sizeof foot, "any key closes");
	int y0 = (rows - h) / 2, x0 = (cols - wd) / 2;
	wb_popup(y0, x0, h, wd, "stagecut help: keys", foot);
	for (int i = 0; i < shown && hs->top + i < n; i++) {
		const help_row *r = &text[hs->top + i];
		mvprintw(y0 + 1 + i, x0 + 2, "%.*s%.*s", wd - 4, r->prefix,
		         wd - 4 - (int)strlen(r->prefix) > 0 ? r->len : 0, r->text);
	}
}

static unsigned help_key(wb *w, int ch)
{
	help_state *hs = wb_modal_state(w, &wb_help_modal);
	if (ch == KEY_RESIZE)
		return WB_HANDLED | WB_REDRAW;
	help_row text[HELP_ROWS];
	int h, wd, n = help_layout(LINES, COLS, text, &h, &wd), shown = h - 2;
	if (n > shown) {
		switch (ch) {
		case 'j':
		case KEY_DOWN: hs->top++; return WB_HANDLED | WB_REDRAW;
		case 'k':
		case KEY_UP: hs->top--; return WB_HANDLED | WB_REDRAW;
		case ' ':
		case KEY_NPAGE: hs->top += shown - 1; return WB_HANDLED | WB_REDRAW;
		case KEY_PPAGE: hs->top -= shown - 1; return WB_HANDLED | WB_REDRAW;
		default: break;
		}
	}
	wb_modal_pop(w);
	return WB_HANDLED | WB_REDRAW;
}

const wb_modal_ops wb_help_modal = {
        .name = "help", .draw = help_draw, .key = help_key, .state_size = sizeof(help_state)};

/* Opens the help at its first row. */
static void open_help(wb *w)
{
	help_state *hs = wb_modal_state(w, &wb_help_modal);
	hs->top = 0;
	wb_modal_push(w, &wb_help_modal);
}

/* --- the global actions --- */

const wb_view_ops *const wb_views[WB_NVIEWS] = {
        &wb_overview_view, &wb_nodes_view, &wb_quotient_view, &wb_timeline_view, &wb_modules_view};

const wb_modal_ops *const wb_modals[WB_NMODALS] = {
        &wb_help_modal,    &wb_settings_modal, &wb_tour_modal, &wb_prompt_modal,
        &wb_compare_modal, &wb_cputable_modal, &wb_nav_modal};

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
	case WB_A_HELP: open_help(w); break;
	case WB_A_SEARCH: wb_search_again(w, false); break;
	case WB_A_SEARCH_ON: wb_search_again(w, true); break;
	case WB_A_REFINE: wb_start_search(w, "refine", w->stage); break;
	case WB_A_ADOPT: wb_adopt_best(w); break;
	case WB_A_DEVICE: wb_swap_device(w); break;
	case WB_A_LADDER: wb_start_ladder(w); break;
	case WB_A_CANCEL: wb_cancel_jobs(w, false); break;
	case WB_A_CANCEL_ALL: wb_cancel_jobs(w, true); break;
	case WB_A_SAVE: return wb_save(w, false);
	case WB_A_SETTINGS: wb_modal_push(w, &wb_settings_modal); break;
	case WB_A_LOAD: return wb_load(w);
	case WB_A_TIMES: return wb_load_times(w);
	case WB_A_EXPORT: return wb_export(w);
	case WB_A_CPUTAB: return wb_cputable(w);
	case WB_A_TOUR: wb_tour_open(w); break;
	case WB_A_VIEW: w->view = wb_views[ch - '1']; break;
	case WB_A_PANE: w->pane = !w->pane; break;
	/* what a view leaves of j, k and the arrows moves the stage selection */
	case WB_A_DOWN:
		if (w->stage_sel + 1 < sc_settings_stages(&w->set))
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
	/* ^L before anything: a prompt or a popup must not swallow it */
	if (wb_key_action(WB_IN_VIEWS, ch) == WB_A_REDRAW) {
		clearok(curscr, TRUE);
		return WB_HANDLED | WB_REDRAW;
	}
	for (int i = w->nmodal - 1; i >= 0; i--) {
		unsigned r = w->modal[i].ops->key(w, ch);
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
