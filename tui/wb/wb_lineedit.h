/*
 * wb_lineedit.h - editing one line of text with keys, and wrapping text
 * into rows, without a terminal (the prompt modal and the popups of
 * wb_lineedit.c use them; tests call them directly).
 */
#ifndef UI_WB_LINEEDIT_H
#define UI_WB_LINEEDIT_H

#include <stdbool.h>
#include <stddef.h>

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

#endif
