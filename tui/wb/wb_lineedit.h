/*
 * wb_lineedit.h - editing one line of text with keys, without a terminal
 * (the prompt modal of wb_lineedit.c uses it; tests call it directly).
 */
#ifndef UI_WB_LINEEDIT_H
#define UI_WB_LINEEDIT_H

#include <stddef.h>

typedef enum wb_line_result {
	WB_LINE_IGNORED, /* not a key of the line editor (or the line is full) */
	WB_LINE_EDITED,  /* buf changed (a character added, one erased) */
	WB_LINE_DONE,    /* Enter */
	WB_LINE_CANCEL,  /* Esc */
} wb_line_result;

/* Applies key ch (a curses key code or character) to the NUL-terminated
 * line buf of size bytes: printable ASCII is appended while it fits,
 * Backspace erases the last character. */
wb_line_result wb_line_key(char *buf, size_t size, int ch);

#endif
