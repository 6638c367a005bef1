/*
 * modules.h - the module tree of a graph, read from its op names.
 *
 * An engineer thinks in modules (encoder_layer_3, layer2.1), not in ops.
 * The names the exporters write say which module an op belongs to:
 *
 *  - torch.onnx names start with '/': "/encoder/layers/encoder_layer_3/
 *    mlp/mlp.1/Mul_1".  Every segment between slashes but the last is a
 *    module, the last is the op.  A segment that starts with its parent's
 *    segment and a dot ("layer1" then "layer1.0", "mlp" then "mlp.1") is
 *    the torch-qualified name of a child, so the fully qualified names are
 *    "layer1", "layer1.0", "layer1.0.conv1" and
 *    "encoder.layers.encoder_layer_3.mlp.1".  Empty segments are skipped.
 *  - dotted names without a slash (msr-fiddle's
 *    "bert.encoder.layer.3.attention.self.query.weight", torch-style DOT
 *    names such as "s1.b2.c1.conv"): every part but the last is a module.
 *    A name with an empty part ("a..b", ".a", "a.") is read as flat.
 *  - anything else belongs to the root only: plain names ("node4",
 *    "Add_1"), and slash names that do not start with '/': those are not
 *    module scopes in the files stagecut reads (Caffe2's device scope
 *    "gpu_0/res4_2_branch2b_w_0", which would make one "gpu_0" module of
 *    every parameter; ONNX Runtime's gradient names "Conv5_Grad/ConvGrad_0";
 *    "BatchNormalization37_gpu_0/res4_3_branch2c_bn_1").
 *  - a training graph's backward op (graph.h) belongs to the innermost
 *    module of the forward op it differentiates, never to a module of its
 *    own name (gen's "s1.b2.c1.conv.grad" would otherwise make the op
 *    "conv" a module): the first forward op of its co-location group (the
 *    graph's pairing of an op with its gradient: msr-fiddle colorClass,
 *    gen's groups), else the forward op its name names ("X_Grad/..." or
 *    "X.grad" / "X_grad" for an op X), else the root.
 *
 * Modules are numbered in preorder, the root first; the children of a
 * module in the order of their first op (the op of smallest index in the
 * child or below it).  The ops of a module and of every module below it sit
 * together in ops_sorted[first .. end): in preorder, a module's own ops (in
 * index order) and then its children's ranges.  Names are hashed: building
 * takes time linear in the total length of the names times the nesting
 * depth.  Nothing here prints or exits; an sc_modules is immutable once
 * made and may be read from several threads.
 */
#ifndef SC_MODULES_H
#define SC_MODULES_H

#include "error.h"
#include "graph.h"

typedef struct sc_module {
	char *name;       /* fully qualified, torch style; "" for the root */
	char *label;      /* as the op names spell this level ("layer1.0", "mlp.1") */
	int parent;       /* -1 for the root */
	int depth;        /* 0 for the root, 1 for the top-level modules */
	int first_child;  /* -1 when none */
	int next_sibling; /* -1 when none */
	int first, end;   /* its ops and those below: ops_sorted[first .. end) */
} sc_module;

typedef struct sc_modules {
	int n;           /* modules, the root included */
	sc_module *m;    /* m[0] is the root */
	int *of_op;      /* op -> its innermost module */
	int *ops_sorted; /* the ops, grouped by module in preorder */
	int max_depth;   /* the deepest module's depth (0: no modules) */
	int *called;     /* module -> the module it is a call of (sc_modules_called) */
} sc_modules;

/* Builds the module tree of g's op names (the rules above).  Returns it,
 * owned by the caller (sc_modules_free), or NULL with err set when out of
 * memory.  A graph without module names gives the root alone. */
sc_modules *sc_modules_new(const sc_graph *g, sc_error *err);

/* Frees m and everything it owns.  sc_modules_free(NULL) does nothing. */
void sc_modules_free(sc_modules *m);

/* The module of op at depth d: its ancestor at that depth, or its innermost
 * module when that is shallower (the root for ops with no modules).  O(the
 * op's depth). */
int sc_modules_at_depth(const sc_modules *m, int op, int depth);

/* The index of the module whose fully qualified name is name, or -1 (0 for
 * ""); O(number of modules).  For tests and the command line. */
int sc_modules_find(const sc_modules *m, const char *name);

/* Number of ops whose innermost module is i (its own ops, not those
 * below). */
int sc_modules_own_ops(const sc_modules *m, int i);

/* The module of which module i is a further call: torch.onnx names the
 * second and later calls of one module by its label and "_N" ("relu",
 * "relu_1", "relu_2" for one nn.ReLU called three times in a forward), so
 * a module labelled "L_N" (N digits) beside a sibling labelled "L" is
 * that sibling called again, and so are the modules below it.  Returns
 * the module named in named_modules() (i itself when it is no such call);
 * its name is the name a framework knows.  O(1): found when the tree is
 * built, in O(n log n) for n modules. */
int sc_modules_called(const sc_modules *m, int i);

#endif
