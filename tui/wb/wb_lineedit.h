/*
 * wb_lineedit.h - editing one line of text with keys, and wrapping text
 * into rows, without a terminal (tests call them directly); and what
 * wb_lineedit.c builds on them: the prompt modal (wb_ask, wb_choose) and
 * the bordered popup.
 */
#ifndef UI_WB_LINEEDIT_H
#define UI_WB_LINEEDIT_H

#include <stdbool.h>
#include <stddef.h>

#include "tui/wb/wb.h"

typedef enum wb_line_result {
	WB_LINE_IGNORED, /* not a key of the line editor (or the line is full) */
	WB_LINE_EDITED,  /* buf changed (a character added, some erased), or
	                  * its selection was dropped */
	WB_LINE_DONE,    /* Enter */
	WB_LINE_CANCEL,  /* Esc */
} wb_line_result;

/* The control keys the line editor knows besides Backspace. */
enum { WB_CTRL_U = 21, WB_CTRL_W = 23 };

/* Applies key ch (a curses key code or character) to the NUL-terminated
 * line buf of size bytes: printable ASCII is appended while it fits,
 * Backspace erases the last character, ^U the whole line, ^W the word
 * before the end (and the spaces after it).  With selected (may be NULL)
 * and *selected, the whole text is selected: a printable key replaces it,
 * Backspace, Delete, ^U and ^W erase it, Left, Right, Home and End keep it
 * (the selection is dropped, *selected becomes false, either way). */
wb_line_result wb_line_edit(char *buf, size_t size, bool *selected, int ch);

/* wb_line_edit without a selection. */
wb_line_result wb_line_key(char *buf, size_t size, int ch);

/* Wraps text into rows of at most width characters, breaking at spaces
 * (mid-word only when a word is longer than a row) and dropping the spaces
 * at a break: row i is text[start[i] .. start[i] + len[i]).  Fills at most
 * max rows; returns how many rows the whole text needs (0 for ""). */
int wb_wrap(const char *text, int width, int *start, int *len, int max);

/* --- the prompt modal and the popup --- */

extern const wb_modal_ops wb_prompt_modal;

/* Opens a prompt on the last rows with question and buf's initial text
 * (at most size - 1 characters are kept), selected: the first character
 * typed replaces it, Backspace, ^U or ^W erase it, Right or End keep it to
 * edit; ^U kills the line, ^W the word before the cursor.  On Enter or Esc
 * it closes and calls done(w, line, ok, arg) (ok: Enter on a non-empty
 * line), whose result is the key's.  Returns WB_HANDLED | WB_REDRAW. */
unsigned wb_ask(wb *w, const char *question, const char *initial, size_t size, wb_answer_fn done,
                int arg);
/* A confirmation on the last row: one of the keys in keys (a letter, upper
 * case too) answers at once, done(w, "<key>", true, arg); Esc answers
 * done(w, "", false, arg); other keys are ignored.  Returns as wb_ask. */
unsigned wb_choose(wb *w, const char *question, const char *keys, wb_answer_fn done, int arg);
/* The room for a question (a path and why: the recovery file's); a longer
 * one is cut. */
enum { WB_QUESTION_SIZE = 1024 };
/* What a prompt calls after every key that changed its line while it is
 * open (the filter as you type); arg is the one given to wb_ask_typed. */
typedef void wb_typed_fn(wb *w, const char *line, int arg);
/* wb_ask, calling typed (may be NULL) after every key that changes the line. */
unsigned wb_ask_typed(wb *w, const char *question, const char *initial, size_t size,
                      wb_answer_fn done, wb_typed_fn *typed, int arg);
/* Clears a box of h x wd cells at (y0, x0), draws its border with title in
 * the top edge and foot (may be NULL) in the bottom one, both clipped. */
void wb_popup(int y0, int x0, int h, int wd, const char *title, const char *foot);

#endif
