/*
 * layout.h - the quotient graph through Graphviz (DESIGN.md section 7).
 *
 * One function builds the Graphviz graph of a quotient: one node per stage,
 * left to right (rankdir=LR), each an HTML table of the stage's ops, work,
 * io in, io out, overflow and cost; the bottleneck stage drawn with a warm
 * header, a heavier red border and the word "bottleneck" (so it survives
 * printing in grey); an edge per stage pair labelled with its tensor
 * volume, thicker for larger volumes (dashed and light when no data
 * crosses it, only an order between the stages).  On a training graph each
 * table adds the stage's forward and backward cost, each edge label gives
 * the volume of each pass on a line of its own, an edge only backward
 * tensors cross is purple, and the caption names the schedule (under GPipe
 * with its objective, which the gap is then taken over).  A CPU stage (001
 * section 3; st[s].cpu) is a rounded, dashed box on warm grey headed "stage N ·
 * CPU" with its ops and CPU time, its node of class "cpu", and the caption
 * counts the stages of each device.  sc_layout_quotient runs dot on it
 * and reads the positions back for the terminal canvas (canvas.h);
 * sc_render_quotient runs dot and writes the picture in any format the
 * installed Graphviz plugins know.
 *
 * Everything goes through libgvc and cgraph in this process; the `dot`
 * program is never run.  Graphviz keeps global state (its error channel and
 * cgraph's default attributes), so these functions are not thread-safe:
 * call them from one thread.  Graphviz messages never reach stderr; when
 * Graphviz fails, its last message is put in err.
 */
#ifndef SC_LAYOUT_H
#define SC_LAYOUT_H

#include "caption.h"
#include "quotient.h"

/* sc_caption and sc_caption_gap are in caption.h. */

/* A node's box: centre and size, in points, Graphviz coordinates (y up,
 * origin at the lower left corner of the drawing). */
typedef struct sc_lnode {
	double x, y, w, h;
} sc_lnode;

/* An edge as a piecewise cubic Bezier curve: pts holds npts points
 * (x0, y0, x1, y1, ...; npts = 3 j + 1 for j pieces, each piece being
 * start, two controls, end, sharing ends) running from the tail stage's box
 * to the head stage's box; the arrowhead's extent is included as a final
 * straight piece so the curve touches the head's box.  npts may be 0 when
 * Graphviz gave no route.  (lx, ly) is the centre of the volume label. */
typedef struct sc_ledge {
	int from, to; /* stages, as in the quotient's edges */
	int npts;
	double *pts;
	double lx, ly;
} sc_ledge;

typedef struct sc_layout {
	double width, height; /* points: the whole drawing (title included) and
	                       * every control point, which may stick out */
	int nnodes;           /* = the quotient's k; node[s] is stage s */
	sc_lnode *node;
	int nedges; /* = the quotient's nedges, in the same order */
	sc_ledge *edge;
} sc_layout;

/* Lays q out with dot.  cap (may be NULL or have a NULL title for none)
 * is drawn above the stages.  Returns a new
 * layout (free with sc_layout_free) or NULL with err set (SC_ERR_NOMEM, or
 * SC_ERR_INTERNAL when Graphviz fails, quoting its message).  The first call
 * in the process loads Graphviz's plugins into a context that is then kept
 * (Graphviz 2.43 cannot safely lay out after a context is freed); nothing
 * else in the process should make and free Graphviz contexts of its own.
 * Not thread-safe. */
sc_layout *sc_layout_quotient(const sc_quotient *q, const sc_caption *cap, sc_error *err);

/* Frees l.  sc_layout_free(NULL) does nothing. */
void sc_layout_free(sc_layout *l);

/* Writes the picture of q (as laid out by sc_layout_quotient, cap
 * likewise, each box adding the parameter bytes its stage holds against
 * the memory limit) to path in format: any output format of the installed Graphviz
 * ("png", "svg", "pdf", "dot", ...; a "png:cairo" style renderer suffix is
 * accepted).  The file is replaced atomically (a temporary file in the same
 * directory, renamed), so a failure leaves path as it was.  Returns SC_OK,
 * SC_ERR_INPUT for a format Graphviz does not know (the message names it
 * and lists some known ones), one that opens a window (x11, xlib, gtk) or
 * writes more than one file (vrml), an
 * unknown renderer suffix, or one for which it writes nothing here (gd in
 * builds without GD); SC_ERR_IO when the file cannot be written;
 * SC_ERR_NOMEM or SC_ERR_INTERNAL.  Not thread-safe. */
sc_status sc_render_quotient(const sc_quotient *q, const sc_caption *cap, const char *format,
                             const char *path, double *scale, sc_error *err);

#endif
