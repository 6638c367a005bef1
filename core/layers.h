/*
 * layers.h - the layers of a model at a module depth: the pieces a
 * framework runs one after another, so the only places a pipeline may be
 * cut.  solve --align and export share this one definition.
 *
 * DeepSpeed's PipelineModule runs a list of layers, each reading what the
 * one before returned; PyTorch's pipelining cuts the traced program where a
 * module begins.  A module can be cut between its children only when those
 * children run as such a list.  So the layers at depth d are found from the
 * root down (the module tree of core/modules.h, the program order of
 * sc_graph_program_order, forward ops only):
 *
 *  - a module is opened -- its children and its own ops become separate
 *    pieces -- when it is the root, or its depth is below d, its parent is
 *    opened, it has children, and its parts form a chain.  Its parts are
 *    its children and the runs of its own ops between them, in program
 *    order; they form a chain when each part's ops come together in the
 *    program order, every edge between two parts runs from a part to the
 *    next one, edges from outside the module enter its first part and
 *    edges to outside leave its last part;
 *  - a module that is not opened but whose parent is, is one layer, run
 *    whole with everything below it.  A module whose own op reads what an
 *    earlier part read (ResNet's Bottleneck adds its input to its last
 *    convolution; a transformer block its residuals; Inception concatenates
 *    its branches) runs whole at every depth: no list of its children
 *    computes it;
 *  - the own ops of an opened module (the model's flatten, ViT's class
 *    token and position embedding) are named by no layer.  Each joins the
 *    layer before it in program order (the first layer when none is
 *    before), so it runs in that layer's stage; the export lists them
 *    beside it, to be run once;
 *  - so does a module called more than once (sc_modules_called: torch.onnx
 *    names its calls relu, relu_1, ...), whole, unless it comes first: a
 *    stage cannot begin at one call of a module and not at the others
 *    (PyTorch's SplitPoint.BEGINNING splits before every call).
 *
 * When the root's parts do not form a chain the whole model is one layer
 * (module 0) and the reason is kept.  A backward op of a training graph
 * follows its group's first forward op, else the layer holding its module;
 * orphans (graph.h) and backward ops of an opened module's own ops belong to
 * no layer.  Nothing here prints or exits.
 */
#ifndef SC_LAYERS_H
#define SC_LAYERS_H

#include <stdbool.h>

#include "core/error.h"
#include "core/graph.h"
#include "core/modules.h"

typedef struct sc_layers {
	int depth;       /* the depth asked */
	int n;           /* layers, numbered in program order (n >= 1 when g has ops) */
	int *module;     /* layer -> the module it runs (0: the whole model) */
	int *first;      /* layer -> its first forward op in program order */
	int *of_op;      /* op -> its layer, or -1 (above) */
	bool *opened;    /* module -> opened (its children are cut apart) */
	int *order;      /* the program order, g->n ops */
	bool file_order; /* order is the file's */
	/* when the root is not opened: why ("op 'X' of part ... feeds ..."),
	 * else "" */
	char why_whole[1024];
} sc_layers;

/* The layers of g (module tree m) at depth (>= 1), owned by the caller
 * (sc_layers_free), or NULL with err set when out of memory.  Time O(the
 * edges times the nesting depth). */
sc_layers *sc_layers_new(const sc_graph *g, const sc_modules *m, int depth, sc_error *err);

/* Frees l.  sc_layers_free(NULL) does nothing. */
void sc_layers_free(sc_layers *l);

/* The number of layers of g at depth (what solve --align keeps whole), or
 * -1 when out of memory. */
int sc_layers_count(const sc_graph *g, const sc_modules *m, int depth);

/* The module forward op v runs in as a piece of its layer: the outermost
 * module below the opened ones that holds it (its layer's module, or a
 * module called more than once that joined the layer before it), or -1
 * for an own op of an opened module.  O(the op's depth). */
int sc_layers_piece(const sc_layers *l, const sc_modules *m, int v);

/* A copy of g (ops, edges, settings, backward flags, costs' origin, the
 * devices: CPU times and kinds' tables) whose
 * co-location groups also hold the layers: two ops share a group when they
 * share a group of g or a layer, transitively.  A partition of the copy
 * keeps every layer in one stage (solve --align).  Groups are named
 * "module NAME" after their first layer's module, else after their first
 * group of g.  Returns NULL with err set when out of memory (or,
 * SC_ERR_INPUT, when the copy breaks a limit of sc_builder_finish, which g
 * met). */
sc_graph *sc_layers_aligned_graph(const sc_graph *g, const sc_modules *m, const sc_layers *l,
                                  sc_error *err);

#endif
