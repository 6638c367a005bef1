/*
 * wb_fit.h - nothing cut mid-word at 80 columns (DESIGN.md section 6: the
 * workbench works in 80x24): the header, the search row, the timeline's
 * header and the stage list's legend lay their texts out with these.
 */
#ifndef WB_FIT_H
#define WB_FIT_H

#include <stddef.h>

/* Writes the n pieces in order from (y, x) on at most rows rows of width
 * cells, joined by sep on a row: a piece that does not fit on the current
 * row starts the next one, and one wider than a row is cut at its last
 * space that fits (wb_fit_words).  Pieces that find no row are left out;
 * empty ones are skipped.  Returns the rows used; with y < 0 it only
 * counts them.  Draws on stdscr. */
int wb_lay_pieces(int y, int x, int width, int rows, const char *sep, const char *const *pieces,
                  int n);

/* text into buf, whole when it has at most width characters, else cut at
 * its last space that leaves at most width ("" when not even its first
 * word fits).  Returns buf. */
const char *wb_fit_words(const char *text, int width, char *buf, size_t size);

#endif
