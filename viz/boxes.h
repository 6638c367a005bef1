/*
 * boxes.h - what the full picture draws as one box (DESIGN.md section 7).
 *
 * The full picture clusters ops by module (core/modules.h): each module is
 * a box around its ops, inside the box of its parent.  With a depth N,
 * every module at depth N is drawn as one box standing for all its ops and
 * the modules below it (one per stage it has ops in, each saying the
 * module's stages), and the ops of shallower modules as themselves.  A
 * unit is what is drawn as one node: an op, or such a collapsed module.
 *
 * The edges between units come from the ops' edges: one per pair of units
 * that some op edge joins, carrying the bytes of the distinct tensors that
 * cross it (an op's output counted once however many of the head unit's
 * ops read it).  Without collapsing, units are the ops and their edges the
 * graph's.  Pure functions without Graphviz; a plain value.
 */
#ifndef SC_BOXES_H
#define SC_BOXES_H

#include <stdbool.h>

#include "core/graph.h"
#include "core/modules.h"

typedef struct sc_box_edge {
	int from, to;   /* units */
	double bytes;   /* the distinct tensors crossing */
	int tail, head; /* an op edge it stands for (the first) */
} sc_box_edge;

typedef struct sc_boxes {
	int n;
	int nops;     /* the graph's ops */
	int *of_op;   /* op -> its unit */
	int *op;      /* unit -> its first op along the flow (the op, for an op) */
	int *module;  /* unit -> the collapsed module, or -1 for an op */
	int *home;    /* unit -> the module whose box holds it (0: the root, none) */
	int *ops;     /* unit -> its ops */
	double *work; /* unit -> its ops' work */
	int *own;     /* unit -> its stage (a collapsed module: one box per stage) */
	int *lo, *hi; /* unit -> its module's lowest and highest stage (0 without stages) */
	int nedges;
	sc_box_edge *edge; /* sorted by (from, to); from != to */
} sc_boxes;

/* The units of g with modules m, collapsing the modules at depth (>= 1;
 * 0: none) into one unit each; a module of one op is not a box of its
 * own (its op's label names it).  stage (may be NULL) gives the stage
 * range.  A unit's first op is its op of least index until
 * sc_boxes_order.  Returns a new value (sc_boxes_free) or NULL with err
 * set (SC_ERR_NOMEM). */
sc_boxes *sc_boxes_new(const sc_graph *g, const sc_modules *m, int depth, const int *stage,
                       sc_error *err);

/* Makes each unit's first op the one of least level (op -> its level
 * along the flow, fold.h), on a tie of least stage (stage may be NULL). */
void sc_boxes_order(sc_boxes *u, const int *level, const int *stage);

/* Op v's name as the box around it shows it: the path below that box's
 * module ("Conv" of "/layer1/layer1.0/conv1/Conv" in layer1.0.conv1's box,
 * "conv1/Conv" in layer1.0's, "weight" of "bert.encoder.weight" in
 * bert.encoder's), else the whole name.  Points into g's name. */
const char *sc_boxes_op_label(const sc_graph *g, const sc_modules *m, const sc_boxes *u, int v);

void sc_boxes_free(sc_boxes *u);

#endif
