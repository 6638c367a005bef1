/*
 * wb_fit.c - texts that fit a narrow screen (80 columns) whole: pieces laid
 * on rows, breaking only between them, and a text cut only at a space.
 * See wb_fit.h.
 *
 * Layer: a helper below the views (it calls curses only).
 */
#include "tui/wb/wb_fit.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

const char *wb_fit_words(const char *text, int width, char *buf, size_t size)
{
	int len = (int)strlen(text);
	if (len > width) {
		len = width > 0 ? width : 0;
		while (len > 0 && text[len] != ' ')
			len--;
		while (len > 0 && text[len - 1] == ' ')
			len--;
	}
	snprintf(buf, size, "%.*s", len, text);
	return buf;
}

int wb_lay_pieces(int y, int x, int width, int rows, const char *sep, const char *const *pieces,
                  int n)
{
	int row = 0, col = 0, gap = (int)strlen(sep);
	char cut[512];
	for (int i = 0; i < n && row < rows; i++) {
		int len = (int)strlen(pieces[i]);
		if (len == 0)
			continue;
		if (col > 0 && col + gap + len > width) {
			row++;
			col = 0;
			if (row == rows)
				break;
		}
		const char *text = pieces[i];
		if (len > width) {
			text = wb_fit_words(pieces[i], width, cut, sizeof cut);
			len = (int)strlen(text);
		}
		if (y >= 0)
			mvprintw(y + row, x + col, "%s%s", col > 0 ? sep : "", text);
		col += (col > 0 ? gap : 0) + len;
	}
	return col > 0 ? row + 1 : row;
}
