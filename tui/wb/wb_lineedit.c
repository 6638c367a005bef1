/*
 * wb_lineedit.c - the line editor: a prompt on the last row of the screen,
 * as a modal, so the jobs and the screen beneath go on while the engineer
 * types.  What is done with the answer is the asker's callback (wb_ask in
 * wb.h): saving and loading (wb_files.c), the settings' values
 * (wb_settings.c), the filter (wb_nodes.c), the export (wb_quotient.c),
 * the recovery offer (wb_recover.c).
 *
 * Layer: the lowest of layer 4 (wb.h): it calls only the state (the modal
 * stack); everything that asks a question calls it.
 */
#define _POSIX_C_SOURCE 200809L
#include "tui/wb/wb_lineedit.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "tui/wb/wb.h"

wb_line_result wb_line_key(char *buf, size_t size, int ch)
{
	size_t len = strlen(buf);
	if (ch == 27)
		return WB_LINE_CANCEL;
	if (ch == '\n' || ch == KEY_ENTER || ch == '\r')
		return WB_LINE_DONE;
	if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
		if (len)
			buf[len - 1] = '\0';
		return WB_LINE_EDITED;
	}
	if (ch >= 32 && ch < 127 && len + 1 < size) {
		buf[len] = (char)ch;
		buf[len + 1] = '\0';
		return WB_LINE_EDITED;
	}
	return WB_LINE_IGNORED;
}

unsigned wb_ask(wb *w, const char *question, const char *initial, size_t size, wb_answer_fn done,
                int arg)
{
	if (size > sizeof w->prompt.buf)
		size = sizeof w->prompt.buf;
	snprintf(w->prompt.question, sizeof w->prompt.question, "%s", question);
	snprintf(w->prompt.buf, size, "%s", initial);
	w->prompt.size = size;
	w->prompt.done = done;
	w->prompt.arg = arg;
	w->prompt.edited = NULL;
	if (!wb_modal_open(w, &wb_prompt_modal))
		wb_modal_push(w, &wb_prompt_modal);
	return WB_HANDLED | WB_REDRAW;
}

static void prompt_draw(wb *w, int rows, int cols)
{
	attron(A_REVERSE);
	mvprintw(rows - 1, 0, "%-*.*s", cols, cols, "");
	mvprintw(rows - 1, 0, " %s %s", w->prompt.question, w->prompt.buf);
	attroff(A_REVERSE);
}

static unsigned prompt_key(wb *w, int ch)
{
	if (ch == KEY_RESIZE)
		return WB_HANDLED | WB_REDRAW;
	switch (wb_line_key(w->prompt.buf, w->prompt.size, ch)) {
	case WB_LINE_DONE:
	case WB_LINE_CANCEL: {
		bool ok = ch != 27 && w->prompt.buf[0];
		/* the answer may ask again (wb_ask refills w->prompt), so copy it
		 * and close this prompt first */
		char answer[sizeof w->prompt.buf];
		memcpy(answer, w->prompt.buf, sizeof answer);
		wb_answer_fn done = w->prompt.done;
		wb_modal_pop(w);
		return (done ? done(w, answer, ok, w->prompt.arg) : 0) | WB_HANDLED | WB_REDRAW;
	}
	case WB_LINE_EDITED:
		if (w->prompt.edited)
			w->prompt.edited(w, w->prompt.buf, w->prompt.arg);
		return WB_HANDLED | WB_REDRAW;
	default: return WB_HANDLED;
	}
}

const wb_modal_ops wb_prompt_modal = {.name = "prompt", .draw = prompt_draw, .key = prompt_key};
