/*
 * canvas.h - a quotient layout drawn in a character grid (DESIGN.md
 * section 6, the workbench's quotient view), without curses.
 *
 * Stages are boxes of box-drawing characters holding as much of "stage N",
 * "cost X", ops, work, io in, io out and overflow as fits; the bottleneck's
 * box has heavy lines and a '*', so it shows without colour.  Edges follow
 * Graphviz's splines (sampled, drawn with ─ │ ┼ and corners, '·' where they
 * run diagonally) and end in an arrowhead; the tensor volume is written
 * beside an edge where there is room.  On a training graph a box shows fw
 * and bw (the cost split by pass) right under its cost, and an edge label
 * the volume of each pass ("fw 2 B, bw 1 B"; the total where that does not
 * fit).
 *
 * The layout is scaled to the grid keeping its proportions (a cell being
 * about twice as tall as wide) except that boxes are widened and heightened
 * up to what their text needs, at the expense of the space between them.
 * When even boxes holding only the stage number cannot be placed that way
 * (many stages in a narrow grid), the stages are drawn in pipeline order as
 * small boxes wrapped over several rows, consecutive stages joined by an
 * arrow where the quotient has that edge.  Nothing is ever written outside
 * the grid.  The canvas counts what it could not tell (labels without
 * room, edges merging, edges left out), which the workbench reads as
 * "crowded".
 */
#ifndef SC_CANVAS_H
#define SC_CANVAS_H

#include "layout.h"

typedef struct sc_canvas {
	int rows, cols;
	char **line;   /* rows NUL-terminated UTF-8 strings of exactly cols cells */
	int k;         /* stages */
	int (*box)[4]; /* per stage: x, y, w, h of its box in cells (0-based
	                * column and row); w = h = 0 when it could not be drawn */
	/* How much of the stage graph the drawing fails to tell, so a screen
	 * can show the volumes another way when it is crowded: edges whose
	 * volume found no room for its label; edges that run along cells of an
	 * edge drawn before them for two cells or more (they merge, and which
	 * goes where no longer shows; a plain crossing shares one cell); edges
	 * not drawn at all (the wrapped drawing joins consecutive stages only). */
	int unlabelled, merged, hidden;
} sc_canvas;

/* Draws l, the layout of q (sc_layout_quotient), in a grid of cols x rows
 * cells (1..2000 x 1..1000).  Returns a new canvas (free with
 * sc_canvas_free), or NULL with err set: SC_ERR_INPUT when a size is out of
 * range or l does not match q, SC_ERR_NOMEM.  Pure computation (no
 * Graphviz): thread-safe, and cheap enough to redo on every resize. */
sc_canvas *sc_canvas_draw(const sc_layout *l, const sc_quotient *q, int cols, int rows,
                          sc_error *err);

/* Frees c.  sc_canvas_free(NULL) does nothing. */
void sc_canvas_free(sc_canvas *c);

#endif
