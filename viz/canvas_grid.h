/*
 * canvas_grid.h - the drawing primitives of the canvas (private to viz/).
 *
 * canvas.c decides where things go: it scales the layout into bands and
 * gaps, or falls back to the wrapped drawing, and builds the canvas.
 * canvas_grid.c knows how to draw them: the grid of cells (each with one
 * code point, what it belongs to and, for edge cells, the N S E W
 * neighbours its line connects to, so that crossing lines pick the right
 * box-drawing character), the text and the box of a stage, the cell paths
 * of edges with their arrowheads, and the volume labels.  Pure computation,
 * thread-safe on distinct grids.
 */
#ifndef SC_CANVAS_GRID_H
#define SC_CANVAS_GRID_H

#include <stdbool.h>
#include <stdint.h>

#include "quotient.h"

/* what a cell belongs to */
enum { CV_EMPTY, CV_BOX, CV_EDGE, CV_LABEL };

typedef struct cv_cell {
	uint32_t ch;
	unsigned char kind, mask, diag;
} cv_cell;

typedef struct cv_grid {
	int cols, rows;
	cv_cell *c;
} cv_grid;

/* the largest interior a box asks for: wider or taller only wastes room */
#define CV_WANT_TEXT_W 16
#define CV_WANT_LINES 7
/* ... and two more on a training graph (the forward and backward cost) */
#define CV_WANT_LINES_TRAINING (CV_WANT_LINES + 2)
/* ... plus "over memory" and "bottleneck" */
#define CV_MAX_LINES (CV_WANT_LINES_TRAINING + 2)

/* A line of a stage's box: left-aligned text and right-aligned numbers, or
 * one centred text. */
typedef struct cv_tline {
	char left[48], right[32];
	bool center; /* left is centred, right unused */
} cv_tline;

/* The cells an edge runs through, in order (malloc'd x and y, n of cap). */
typedef struct cv_path {
	int n, cap;
	int *x, *y;
} cv_path;

/* The cell at (x, y), or NULL outside the grid. */
cv_cell *cv_cell_at(cv_grid *g, int x, int y);

/* Writes code point ch of kind (CV_BOX, ...) at (x, y); nothing outside
 * the grid. */
void cv_put(cv_grid *g, int x, int y, uint32_t ch, int kind);

/* Writes ASCII text from (x, y), clipped to the grid. */
void cv_put_text(cv_grid *g, int x, int y, const char *s, int kind);

/* Empties every cell (a space of kind CV_EMPTY). */
void cv_clear(cv_grid *g);

/* The shortest title of stage s: its number, and '*' for the bottleneck. */
int cv_min_title_len(const sc_quotient *q, int s);

/* Fills out[0..maxl) with the lines of stage s that fit iw columns, most
 * important first (the title, then cost, ops, work, io in, io out and
 * overflow for as long as they fit, then "over memory" and "bottleneck"
 * where they apply and fit); returns their number. */
int cv_stage_text(const sc_quotient *q, int s, int iw, int maxl, cv_tline *out);

/* The lines of text a box of q would like: CV_WANT_LINES, or
 * CV_WANT_LINES_TRAINING on a training graph. */
int cv_want_lines(const sc_quotient *q);

/* The interior width stage s's text would like (capped). */
int cv_want_text_w(const sc_quotient *q, int s);

/* Draws stage s's box in rectangle r with the text forms that fit fit
 * columns (the narrowest box's interior, so that all boxes read alike). */
void cv_draw_box(cv_grid *g, const sc_quotient *q, int s, const int r[4], int fit);

/* Appends cell (x, y) to p, growing it.  False when out of memory. */
bool cv_path_add(cv_path *p, int x, int y);

/* Adds the cells from the path's last cell to (x, y), one step at a time
 * (8-connected), so the path has no holes. */
bool cv_path_line_to(cv_path *p, int x, int y);

/* Turns a lone diagonal step into a corner, keeping runs of diagonal steps
 * (a line that really runs diagonally) as they are. */
bool cv_path_square_corners(cv_path *p, cv_path *out);

/* Draws the path of an edge from box `tail` to box `head`: the cells
 * outside every box, connected (the first one to the tail's side), with an
 * arrowhead on the last one before the head. */
void cv_draw_path(cv_grid *g, const cv_path *p, int (*box)[4], int k, int tail, int head);

/* Writes text centred near (cx, cy) on empty cells, trying nearby rows and
 * columns; returns whether it found room. */
bool cv_place_label(cv_grid *g, double cx, double cy, const char *text);

#endif
