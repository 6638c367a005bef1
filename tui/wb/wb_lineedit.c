/*
 * wb_lineedit.c - the line editor and what the modals share to talk: a
 * prompt on the last rows of the screen (a line of text, or a confirmation
 * answered by one key), as a modal, so the jobs and the screen beneath go
 * on while the engineer types; and the bordered popup the help and the
 * settings form draw in.  What is done with an answer is the asker's
 * callback (wb_ask, wb_choose in wb.h): saving, loading and quitting
 * (wb_files.c), the settings' values and their questions (wb_settings.c),
 * the filter (wb_nodes.c), the export (wb_quotient.c), the recovery offer
 * (wb_recover.c).
 *
 * A prompt's initial text starts selected, as in a dialog box: typing
 * replaces it (a filter or a file name is usually typed anew), Enter keeps
 * it, Right or End keep it for editing.  A question too long for the row
 * wraps upwards over the view (never cut), the typed text stays on the
 * last row, its end shown when it is longer than the row.
 *
 * Layer: the lowest of layer 4 (wb.h): it calls only the state (the modal
 * stack); everything that asks a question or draws a popup calls it.
 */
#define _POSIX_C_SOURCE 200809L
#include "tui/wb/wb_lineedit.h"

#include <curses.h>
#include <langinfo.h>
#include <stdio.h>
#include <string.h>

static bool is_erase(int ch)
{
	return ch == KEY_BACKSPACE || ch == 127 || ch == 8;
}

wb_line_result wb_line_edit(char *buf, size_t size, bool *selected, int ch)
{
	if (ch == 27)
		return WB_LINE_CANCEL;
	if (ch == '\n' || ch == KEY_ENTER || ch == '\r')
		return WB_LINE_DONE;
	bool printable = ch >= 32 && ch < 127;
	if (selected && *selected) {
		if (is_erase(ch) || ch == KEY_DC || ch == WB_CTRL_U || ch == WB_CTRL_W) {
			buf[0] = '\0';
			*selected = false;
			return WB_LINE_EDITED;
		}
		if (ch == KEY_LEFT || ch == KEY_RIGHT || ch == KEY_HOME || ch == KEY_END) {
			*selected = false;
			return WB_LINE_EDITED;
		}
		if (!printable)
			return WB_LINE_IGNORED;
		/* typing replaces the selection */
		buf[0] = '\0';
		*selected = false;
		if (size < 2)
			return WB_LINE_EDITED;
	}
	size_t len = strlen(buf);
	if (is_erase(ch)) {
		if (len)
			buf[len - 1] = '\0';
		return WB_LINE_EDITED;
	}
	if (ch == WB_CTRL_U) {
		buf[0] = '\0';
		return WB_LINE_EDITED;
	}
	if (ch == WB_CTRL_W) {
		while (len && buf[len - 1] == ' ')
			len--;
		while (len && buf[len - 1] != ' ')
			len--;
		buf[len] = '\0';
		return WB_LINE_EDITED;
	}
	if (printable && len + 1 < size) {
		buf[len] = (char)ch;
		buf[len + 1] = '\0';
		return WB_LINE_EDITED;
	}
	return WB_LINE_IGNORED;
}

wb_line_result wb_line_key(char *buf, size_t size, int ch)
{
	return wb_line_edit(buf, size, NULL, ch);
}

int wb_wrap(const char *text, int width, int *start, int *len, int max)
{
	if (width < 1)
		width = 1;
	int n = 0;
	const char *p = text;
	while (*p) {
		int rest = (int)strlen(p), take = rest;
		if (rest > width) {
			/* break at the last space that fits, else mid-word */
			take = width;
			while (take > 0 && p[take] != ' ')
				take--;
			if (take == 0)
				take = width;
		}
		int l = take;
		while (l > 0 && p[l - 1] == ' ')
			l--;
		if (n < max) {
			start[n] = (int)(p - text);
			len[n] = l;
		}
		n++;
		p += take;
		while (*p == ' ')
			p++;
	}
	return n;
}

void wb_popup(int y0, int x0, int h, int wd, const char *title, const char *foot)
{
	if (h < 2 || wd < 2)
		return;
	/* box-drawing characters where the locale shows them, else ASCII, as
	 * the quotient view (the same text on every terminal of a locale) */
	bool utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	const char *hl = utf8 ? "\u2500" : "-", *vl = utf8 ? "\u2502" : "|";
	const char *corner[4] = {"+", "+", "+", "+"};
	if (utf8) {
		corner[0] = "\u250c";
		corner[1] = "\u2510";
		corner[2] = "\u2514";
		corner[3] = "\u2518";
	}
	for (int i = 0; i < h; i++) {
		bool edge = i == 0 || i == h - 1;
		move(y0 + i, x0);
		addstr(edge ? corner[i ? 2 : 0] : vl);
		for (int j = 1; j < wd - 1; j++)
			addstr(edge ? hl : " ");
		addstr(edge ? corner[i ? 3 : 1] : vl);
	}
	if (title && wd > 6) {
		attron(A_REVERSE);
		mvprintw(y0, x0 + 2, " %.*s ", wd - 6, title);
		attroff(A_REVERSE);
	}
	if (foot && wd > 6)
		mvprintw(y0 + h - 1, x0 + 2, " %.*s ", wd - 6, foot);
}

/* --- the prompt modal: a line, or a confirmation --- */

/* The prompt's own state (its modal's, wb_modal_state). */
typedef struct prompt {
	char question[WB_QUESTION_SIZE];
	char buf[1024];
	size_t size; /* at most sizeof buf */
	wb_answer_fn done;
	int arg;
	bool selected;       /* buf's text is selected: typing replaces it */
	const char *choices; /* a confirmation (wb_choose): these keys answer */
	wb_typed_fn *edited; /* wb_ask_typed's, or NULL */
} prompt;

static prompt *prompt_of(const wb *w)
{
	return wb_modal_state(w, &wb_prompt_modal);
}

static unsigned open_prompt(wb *w, const char *question, const char *initial, size_t size,
                            const char *choices, wb_answer_fn done, int arg)
{
	prompt *p = prompt_of(w);
	if (!p)
		return WB_HANDLED;
	if (size > sizeof p->buf)
		size = sizeof p->buf;
	snprintf(p->question, sizeof p->question, "%s", question);
	snprintf(p->buf, size, "%s", initial);
	p->size = size;
	p->done = done;
	p->arg = arg;
	p->selected = p->buf[0] != '\0';
	p->choices = choices;
	p->edited = NULL;
	if (!wb_modal_open(w, &wb_prompt_modal))
		wb_modal_push(w, &wb_prompt_modal);
	return WB_HANDLED | WB_REDRAW;
}

unsigned wb_ask(wb *w, const char *question, const char *initial, size_t size, wb_answer_fn done,
                int arg)
{
	return open_prompt(w, question, initial, size, NULL, done, arg);
}

unsigned wb_ask_typed(wb *w, const char *question, const char *initial, size_t size,
                      wb_answer_fn done, wb_typed_fn *typed, int arg)
{
	unsigned r = open_prompt(w, question, initial, size, NULL, done, arg);
	prompt *p = prompt_of(w);
	if (p)
		p->edited = typed;
	return r;
}

unsigned wb_choose(wb *w, const char *question, const char *keys, wb_answer_fn done, int arg)
{
	return open_prompt(w, question, "", 2, keys, done, arg);
}

static void prompt_draw(wb *w, int rows, int cols)
{
	enum { MAX_ROWS = 8 };
	int start[MAX_ROWS], len[MAX_ROWS];
	const prompt *p = prompt_of(w);
	const char *q = p->question, *buf = p->buf;
	int most = rows / 3 < MAX_ROWS ? rows / 3 : MAX_ROWS;
	if (most < 1)
		most = 1;
	int nq = wb_wrap(q, cols - 2, start, len, MAX_ROWS);
	if (nq > MAX_ROWS)
		nq = MAX_ROWS;
	/* the text typed: after the question's last row when it fits there,
	 * else on a row of its own, its end shown */
	int blen = (int)strlen(buf);
	bool own_row = !p->choices && nq > 0 && len[nq - 1] + 3 + blen > cols;
	int n = nq + own_row, shown = n < most ? n : most;
	int qfirst = nq - (shown - own_row); /* the question's first row shown */
	if (qfirst < 0)
		qfirst = 0;
	int y = rows - shown;
	attron(A_REVERSE);
	for (int i = 0; i < shown; i++)
		mvhline(y + i, 0, ' ', cols);
	for (int i = qfirst; i < nq; i++)
		mvprintw(y + i - qfirst, 1, "%.*s", len[i], q + start[i]);
	int room = cols - 2;
	if (own_row || nq == 0) {
		move(rows - 1, 1);
	} else {
		printw(" ");
		room -= len[nq - 1] + 1;
	}
	if (room < 1)
		room = 1;
	/* the selected text in normal video, inside the reversed row */
	if (p->selected)
		attroff(A_REVERSE);
	printw("%s", blen > room ? buf + blen - room : buf);
	attroff(A_REVERSE);
}

static unsigned answer(wb *w, const char *text, bool ok)
{
	/* the answer may ask again (wb_ask refills the prompt's state), so copy
	 * what it needs and close this prompt first */
	const prompt *p = prompt_of(w);
	char copy[sizeof p->buf];
	snprintf(copy, sizeof copy, "%s", text);
	wb_answer_fn done = p->done;
	int arg = p->arg;
	wb_modal_pop(w);
	return (done ? done(w, copy, ok, arg) : 0) | WB_HANDLED | WB_REDRAW;
}

static unsigned prompt_key(wb *w, int ch)
{
	if (ch == KEY_RESIZE)
		return WB_HANDLED | WB_REDRAW;
	prompt *p = prompt_of(w);
	if (p->choices) {
		int c = ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch;
		if (ch == 27)
			return answer(w, "", false);
		if (c > 0 && c < 127 && strchr(p->choices, c)) {
			char key[2] = {(char)c, '\0'};
			return answer(w, key, true);
		}
		return WB_HANDLED;
	}
	switch (wb_line_edit(p->buf, p->size, &p->selected, ch)) {
	case WB_LINE_DONE: return answer(w, p->buf, p->buf[0] != '\0');
	case WB_LINE_CANCEL: return answer(w, p->buf, false);
	case WB_LINE_EDITED:
		if (p->edited)
			p->edited(w, p->buf, p->arg);
		return WB_HANDLED | WB_REDRAW;
	default: return WB_HANDLED;
	}
}

const wb_modal_ops wb_prompt_modal = {
        .name = "prompt", .draw = prompt_draw, .key = prompt_key, .state_size = sizeof(prompt)};
