/*
 * names.h - op names for people: the natural order (Add1 < Add2 < Add11)
 * and fitting a long UTF-8 name into a few terminal cells, keeping the tail
 * that tells similar names apart (/encoder/…oder_layer_10/mlp/MatMul).
 *
 * Widths are display widths in terminal cells, computed here from the
 * UTF-8 text itself (no locale): a combining mark takes 0 cells, an East
 * Asian wide or fullwidth character or an emoji 2, any other character 1;
 * a byte that is not valid UTF-8 counts as one character of one cell.  No
 * function cuts inside a character.  Everything here is pure and
 * thread-safe; nothing prints.
 */
#ifndef SC_NAMES_H
#define SC_NAMES_H

#include <stddef.h>

/* The middle ellipsis sc_names_fit puts between head and tail: U+2026 in
 * UTF-8, one cell wide. */
#define SC_NAMES_ELLIPSIS "\xe2\x80\xa6"

/* Compares two names in natural order: runs of decimal digits compare as
 * the numbers they write (Add2 < Add11; leading zeros do not count), every
 * other byte as an unsigned byte; names equal so (a01 and a1) are then
 * ordered by strcmp, so 0 means a and b are the same string.  Returns
 * < 0, 0 or > 0 as strcmp does.  Digit runs of any length compare right. */
int sc_names_cmp(const char *a, const char *b);

/* The indices 0 .. n-1 of names in natural order (sc_names_cmp; stable),
 * in a new array the caller frees, or NULL when out of memory (or n < 1
 * with nothing to allocate: then NULL too).  O(n log n) comparisons. */
int *sc_names_order(char *const *names, int n);

/* The display width of s in cells (see above). */
int sc_names_width(const char *s);

/* Writes into buf (size bytes, NUL-terminated when size > 0) s fitted into
 * at most width cells: s itself when it fits; else its head (the first
 * component, up to and including the separator '/' or '.' that ends it,
 * when that takes at most width / 3 cells, else the first width / 3
 * cells), SC_NAMES_ELLIPSIS, and as much of its tail as fits in the rest.
 * With width 1 the ellipsis alone, with width <= 0 nothing.  A text longer
 * than buf is cut at a character.  Returns the width in cells of what was
 * written. */
int sc_names_fit(const char *s, int width, char *buf, size_t size);

/* Writes into buf the cells from .. from + width - 1 of s (cell 0 is the
 * first): the characters lying wholly inside that window, a wide character
 * cut by either edge shown as a space.  Returns the cells written (less
 * than width when s ends first). */
int sc_names_cells(const char *s, int from, int width, char *buf, size_t size);

#endif
