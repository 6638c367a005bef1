/*
 * load_onnx.c - ONNX models (.onnx) as stagecut graphs, with a roofline cost
 * model (stagecut(1), INPUT FORMATS and COST MODEL).
 *
 * The file is decoded with protobuf-c from Debian's onnx.proto, compiled at
 * build time.  Ops are the graph's nodes (an If or Loop is one op, its
 * subgraphs inside it); every tensor gives an edge from its producer to each
 * consumer, subgraphs' references to outer tensors included; graph inputs and
 * initializers are not ops.  An initializer's size is its dims times its
 * element size: its data are never read (only those of small integer
 * tensors a shape depends on), so a model with external data loads without
 * its data files.  Shapes come from value_info and the graph's inputs and
 * outputs, the rest from onnx_shape.c in topological order; an op whose
 * shapes stay unknown costs 0 and is listed in the report.
 *
 * Costs, in microseconds on the chosen device:
 *   work  = max(FLOPs / peak, (bytes read + bytes written) / memory bandwidth)
 *   param = bytes of the initializers the op is the first consumer of (in
 *           topological order; later consumers share it)
 *   out   = bytes of the op's outputs that another op consumes
 * and the graph's bandwidth is the device link in bytes per microsecond, its
 * memory the device memory under the hard policy.
 *
 * Longer than 600 lines: decoding, the tensor table, naming, edges and costs
 * are the steps of one load and share its loader state.
 */
#define _POSIX_C_SOURCE 200809L
#include "load.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fileio.h"
#include "core/mem.h"
#include "onnx.h"
#include "core/activations.h"
#include "onnx_saves.h"
#include "onnx_shape.h"
#include "times.h"

/* a subgraph nested deeper than this is not searched for outer references */
#define ONNX_MAX_DEPTH 64

typedef struct tensor {
	const char *name;
	int producer;   /* node index, -1 for a graph input or initializer */
	int init;       /* initializer index, or -1 */
	int consumers;  /* nodes that read it */
	int charged_to; /* the node its initializer bytes are charged to, or -1 */
	sc_onnx_tensor t;
	/* value_info of a node's output with symbolic dims: not taken as its
	 * shape (the dims may be unk__ names nobody set), but used to name dims
	 * inference derives, and as the shape when inference cannot tell */
	const Onnx__ValueInfoProto *hint;
	/* its shape or value follows a symbolic dim of an input (--dim, or
	 * the default 1): folded, such a value (a causal mask built from the
	 * sequence length) is made per run from the input's dims, so it is
	 * not a parameter and is not charged as one (build_ops) */
	bool by_dim;
} tensor;

typedef struct loader {
	const char *path;
	const sc_load_opts *opts;
	Onnx__GraphProto *graph;
	tensor *tens;
	int ntens, cap;
	int *by_name; /* tensor indices sorted by name */
	sc_onnx_report *rep;
	sc_error *err;
	char **names; /* op names, one per node */
	bool *folded; /* per node: folded at load time, not an op */
	int *fold_to; /* per folded node: the node its time goes to, or -1 */
	int *op_of;   /* per node: its op in the graph, or -1 when folded */
	/* per node with subgraphs (If, Loop): the modelled time of the bodies
	 * it runs, and the bytes of their initializers (its param) */
	double *body_time, *body_param;
} loader;

static int cmp_tensor_names(const void *a, const void *b, void *ctx)
{
	const tensor *t = ctx;
	return strcmp(t[*(const int *)a].name, t[*(const int *)b].name);
}

/* qsort has no context argument in C11: the table is passed in a static for
 * the sort only (the loader is not thread-safe anyway, see load.h) */
static const tensor *sort_tens;
static int cmp_by_name(const void *a, const void *b)
{
	return cmp_tensor_names(a, b, (void *)sort_tens);
}

static int find(const loader *L, const char *name)
{
	int lo = 0, hi = L->ntens - 1;
	while (lo <= hi) {
		int mid = (lo + hi) / 2, c = strcmp(L->tens[L->by_name[mid]].name, name);
		if (c == 0)
			return L->by_name[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

static void reset(sc_onnx_tensor *t)
{
	memset(t, 0, sizeof *t);
	t->nvalues = -1;
}

static sc_status add_tensor(loader *L, const char *name, int producer, int init)
{
	if (L->ntens == L->cap) {
		int cap = L->cap ? 2 * L->cap : 64;
		tensor *t = realloc(L->tens, (size_t)cap * sizeof *t);
		if (!t)
			return sc_error_nomem(L->err, "ONNX tensors");
		L->tens = t, L->cap = cap;
	}
	tensor *t = &L->tens[L->ntens++];
	*t = (tensor){.name = name, .producer = producer, .init = init, .charged_to = -1};
	reset(&t->t);
	return SC_OK;
}

/* Records symbolic dim name = v in the report, from: NULL (--dim or the
 * default for an input), or the op that derived it. */
static void record_dim(loader *L, const char *name, long long v, bool given, const char *from)
{
	sc_onnx_report *r = L->rep;
	char **nn = realloc(r->dim_name, (size_t)(r->ndims + 1) * sizeof *nn);
	if (nn)
		r->dim_name = nn;
	long long *nv = realloc(r->dim_value, (size_t)(r->ndims + 1) * sizeof *nv);
	if (nv)
		r->dim_value = nv;
	bool *ng = realloc(r->dim_given, (size_t)(r->ndims + 1) * sizeof *ng);
	if (ng)
		r->dim_given = ng;
	char **nf = realloc(r->dim_from, (size_t)(r->ndims + 1) * sizeof *nf);
	if (nf)
		r->dim_from = nf;
	char *copy = strdup(name), *fcopy = from ? strdup(from) : NULL;
	if (nn && nv && ng && nf && copy && (!from || fcopy)) {
		r->dim_name[r->ndims] = copy;
		r->dim_value[r->ndims] = v;
		r->dim_from[r->ndims] = fcopy;
		r->dim_given[r->ndims++] = given;
	} else {
		free(copy);
		free(fcopy);
	}
}

/* The value of symbolic dim name when it is known: recorded already, or
 * given by --dim (then recorded). */
static bool dim_known(loader *L, const char *name, int64_t *v)
{
	sc_onnx_report *r = L->rep;
	for (int i = 0; i < r->ndims; i++)
		if (strcmp(r->dim_name[i], name) == 0) {
			*v = r->dim_value[i];
			return true;
		}
	for (int i = 0; L->opts && i < L->opts->ndims; i++)
		if (strcmp(L->opts->dim_name[i], name) == 0) {
			*v = L->opts->dim_value[i];
			record_dim(L, name, *v, true, NULL);
			return true;
		}
	return false;
}

/* the value of a symbolic dim of a graph input: --dim, else 1 */
static int64_t dim_param(loader *L, const char *name)
{
	int64_t v;
	if (dim_known(L, name, &v))
		return v;
	record_dim(L, name, 1, false, NULL);
	return 1;
}

/* Whether symbolic dim name has a value in the report already. */
static bool dim_recorded(const loader *L, const char *name)
{
	const sc_onnx_report *r = L->rep;
	for (int i = 0; i < r->ndims; i++)
		if (strcmp(r->dim_name[i], name) == 0)
			return true;
	return false;
}

/* value_info's dims: the tensor type's shape, or NULL */
static const Onnx__TensorShapeProto *hint_shape(const Onnx__ValueInfoProto *vi)
{
	if (!vi || !vi->type || vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
	    !vi->type->tensor_type || !vi->type->tensor_type->shape ||
	    vi->type->tensor_type->shape->n_dim > SC_ONNX_MAX_RANK)
		return NULL;
	return vi->type->tensor_type->shape;
}

/* An output's value_info names dims inference found: records those not
 * known yet, as derived by op.  A --dim of such a name is not what the
 * shapes were computed with: the derived value is recorded (dim_from set),
 * and the caller warns that the --dim changed nothing. */
static void name_dims(loader *L, const Onnx__ValueInfoProto *vi, const sc_onnx_tensor *t,
                      const char *op)
{
	const Onnx__TensorShapeProto *sh = hint_shape(vi);
	if (!sh || (int)sh->n_dim != t->rank)
		return;
	for (size_t d = 0; d < sh->n_dim; d++) {
		const Onnx__TensorShapeProto__Dimension *dim = sh->dim[d];
		if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
		    dim->dim_param && *dim->dim_param && !dim_recorded(L, dim->dim_param))
			record_dim(L, dim->dim_param, t->dim[d], false, op);
	}
}

/* Notes that dim name, unknown, leaves the shape of op's output unknown
 * (once per dim). */
static void note_unresolved(loader *L, const char *name, const char *op)
{
	sc_onnx_report *r = L->rep;
	for (int i = 0; i < r->nunresolved; i++)
		if (strcmp(r->unresolved_dim[i], name) == 0)
			return;
	char **nd = realloc(r->unresolved_dim, (size_t)(r->nunresolved + 1) * sizeof *nd);
	if (nd)
		r->unresolved_dim = nd;
	char **no = realloc(r->unresolved_op, (size_t)(r->nunresolved + 1) * sizeof *no);
	if (no)
		r->unresolved_op = no;
	char *a = strdup(name), *b = strdup(op);
	if (nd && no && a && b) {
		r->unresolved_dim[r->nunresolved] = a;
		r->unresolved_op[r->nunresolved++] = b;
	} else {
		free(a);
		free(b);
	}
}

/* When inference could not tell an output's shape: value_info's, if every
 * dim is a number or a dim known by now; else the first unknown dim is
 * noted, with op. */
static void shape_from_hint(loader *L, const Onnx__ValueInfoProto *vi, sc_onnx_tensor *t,
                            const char *op)
{
	const Onnx__TensorShapeProto *sh = hint_shape(vi);
	if (!sh)
		return;
	int64_t dims[SC_ONNX_MAX_RANK];
	for (size_t d = 0; d < sh->n_dim; d++) {
		const Onnx__TensorShapeProto__Dimension *dim = sh->dim[d];
		if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
		    dim->dim_value >= 0)
			dims[d] = dim->dim_value;
		else if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
		         dim->dim_param && *dim->dim_param) {
			if (!dim_known(L, dim->dim_param, &dims[d])) {
				note_unresolved(L, dim->dim_param, op);
				return;
			}
		} else {
			return; /* a dim nobody named */
		}
	}
	const Onnx__TypeProto__Tensor *tt = vi->type->tensor_type;
	t->known = true;
	t->rank = (int)sh->n_dim;
	memcpy(t->dim, dims, sizeof dims);
	t->dtype = tt->has_elem_type ? tt->elem_type : t->dtype;
	t->elem = sc_onnx_dtype_size(t->dtype);
}

/* A shape from value_info or a graph input or output.  A graph input's
 * symbolic dims take --dim, else 1.  A node's output takes value_info's
 * shape when every dim is a number; with symbolic dims it is a hint
 * (tensor.hint): inference derives the dims from the inputs', and names
 * them. */
static void apply_value_info(loader *L, const Onnx__ValueInfoProto *vi, bool input)
{
	if (!vi || !vi->name || !vi->type ||
	    vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE)
		return;
	int i = find(L, vi->name);
	const Onnx__TypeProto__Tensor *tt = vi->type->tensor_type;
	if (i < 0 || !tt || L->tens[i].t.known || L->tens[i].init >= 0)
		return;
	sc_onnx_tensor *t = &L->tens[i].t;
	t->dtype = tt->has_elem_type ? tt->elem_type : 0;
	t->elem = sc_onnx_dtype_size(t->dtype);
	if (!tt->shape || tt->shape->n_dim > SC_ONNX_MAX_RANK)
		return;
	bool produced = L->tens[i].producer >= 0;
	for (size_t d = 0; d < tt->shape->n_dim; d++) {
		const Onnx__TensorShapeProto__Dimension *dim = tt->shape->dim[d];
		int64_t v = -1;
		if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
			v = dim->dim_value;
		else if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
		         dim->dim_param && *dim->dim_param) {
			if (produced || !input) {
				if (!L->tens[i].hint)
					L->tens[i].hint = vi;
				return;
			}
			v = dim_param(L, dim->dim_param);
			L->tens[i].by_dim = true;
		}
		if (v < 0)
			return; /* a dim nobody named: the shape stays unknown */
		t->dim[d] = v;
	}
	t->rank = (int)tt->shape->n_dim;
	t->known = true;
}

/* dims, type and (for small numeric tensors with inline data) values */
static bool tensor_of(const Onnx__TensorProto *p, sc_onnx_tensor *t)
{
	reset(t);
	if (p->n_dims > SC_ONNX_MAX_RANK)
		return false;
	for (size_t d = 0; d < p->n_dims; d++) {
		if (p->dims[d] < 0)
			return false;
		t->dim[d] = p->dims[d];
	}
	t->rank = (int)p->n_dims;
	t->dtype = p->has_data_type ? p->data_type : 0;
	t->elem = sc_onnx_dtype_size(t->dtype);
	t->known = true;
	int64_t n = sc_onnx_numel(t);
	if (n < 0 || n > SC_ONNX_MAX_VALUES)
		return true;
	size_t want = (size_t)n;
	if (t->dtype == 7 && p->n_int64_data == want) {
		for (size_t i = 0; i < want; i++)
			t->value[i] = (double)p->int64_data[i];
	} else if ((t->dtype == 6) && p->n_int32_data == want) {
		for (size_t i = 0; i < want; i++)
			t->value[i] = p->int32_data[i];
	} else if (t->dtype == 1 && p->n_float_data == want) {
		for (size_t i = 0; i < want; i++)
			t->value[i] = p->float_data[i];
	} else if (p->has_raw_data && t->elem && p->raw_data.len == want * (size_t)t->elem &&
	           (t->dtype == 7 || t->dtype == 6 || t->dtype == 1)) {
		for (size_t i = 0; i < want; i++) {
			const uint8_t *b = p->raw_data.data + i * (size_t)t->elem;
			uint64_t u = 0;
			for (int k = t->elem - 1; k >= 0; k--) /* little-endian */
				u = u << 8 | b[k];
			if (t->dtype == 7)
				t->value[i] = (double)(int64_t)u;
			else if (t->dtype == 6)
				t->value[i] = (int32_t)(uint32_t)u;
			else {
				float f;
				uint32_t w = (uint32_t)u;
				memcpy(&f, &w, sizeof f);
				t->value[i] = f;
			}
		}
	} else {
		return true;
	}
	t->nvalues = (int)want;
	return true;
}

static bool constant(const Onnx__NodeProto *node, sc_onnx_tensor *out)
{
	for (size_t i = 0; i < node->n_attribute; i++) {
		const Onnx__AttributeProto *a = node->attribute[i];
		if (!a->name)
			continue;
		if (!strcmp(a->name, "value") && a->t) {
			sc_onnx_tensor t;
			if (!tensor_of(a->t, &t))
				return false;
			*out = t;
			return true;
		}
		bool scalar = !strcmp(a->name, "value_int") || !strcmp(a->name, "value_float");
		bool list = !strcmp(a->name, "value_ints") || !strcmp(a->name, "value_floats");
		if (!scalar && !list)
			continue;
		bool ints = strstr(a->name, "int") != NULL;
		size_t n = scalar ? 1 : ints ? a->n_ints : a->n_floats;
		reset(out);
		out->known = true;
		out->rank = scalar ? 0 : 1;
		out->dim[0] = (int64_t)n;
		out->dtype = ints ? 7 : 1;
		out->elem = ints ? 8 : 4;
		if (n <= SC_ONNX_MAX_VALUES) {
			for (size_t j = 0; j < n; j++)
				out->value[j] = scalar ? (ints ? (double)a->i : a->f)
				                       : (ints ? (double)a->ints[j] : a->floats[j]);
			out->nvalues = (int)n;
		}
		return true;
	}
	return false;
}

/* edges from outer tensors that a subgraph (at any depth) reads */
static sc_status subgraph_edges(loader *L, sc_builder *b, int node, const Onnx__AttributeProto *a,
                                int depth)
{
	if (depth > ONNX_MAX_DEPTH)
		return SC_OK;
	const Onnx__GraphProto *gs[1] = {a->g};
	size_t ng = a->g ? 1 : 0;
	for (size_t k = 0; k < ng + a->n_graphs; k++) {
		const Onnx__GraphProto *g = k < ng ? gs[k] : a->graphs[k - ng];
		for (size_t i = 0; g && i < g->n_node; i++) {
			const Onnx__NodeProto *nd = g->node[i];
			for (size_t j = 0; j < nd->n_input; j++) {
				int t = nd->input[j] && *nd->input[j] ? find(L, nd->input[j]) : -1;
				if (t >= 0 && L->tens[t].producer >= 0 &&
				    L->tens[t].producer != node &&
				    sc_builder_add_edge(b, L->tens[t].producer, node, L->err) !=
				            SC_OK)
					return L->err->code;
			}
			for (size_t j = 0; j < nd->n_attribute; j++)
				if (subgraph_edges(L, b, node, nd->attribute[j], depth + 1) !=
				    SC_OK)
					return L->err->code;
		}
	}
	return SC_OK;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ops by type for the report */
static sc_status count_types(loader *L)
{
	sc_onnx_report *r = L->rep;
	size_t n = L->graph->n_node;
	const char **types = sc_malloc_n(n ? n : 1, sizeof *types);
	if (!types)
		return sc_error_nomem(L->err, "ONNX op types");
	for (size_t i = 0; i < n; i++)
		types[i] = L->graph->node[i]->op_type ? L->graph->node[i]->op_type : "";
	qsort(types, n, sizeof *types, cmp_str);
	r->type_name = sc_calloc_n(n ? n : 1, sizeof *r->type_name);
	r->type_count = sc_calloc_n(n ? n : 1, sizeof *r->type_count);
	if (!r->type_name || !r->type_count) {
		free(types);
		return sc_error_nomem(L->err, "ONNX op types");
	}
	for (size_t i = 0; i < n; i++) {
		if (r->ntypes == 0 || strcmp(r->type_name[r->ntypes - 1], types[i]) != 0) {
			if (!(r->type_name[r->ntypes] = strdup(types[i]))) {
				free(types);
				return sc_error_nomem(L->err, "ONNX op types");
			}
			r->ntypes++;
		}
		r->type_count[r->ntypes - 1]++;
	}
	free(types);
	return SC_OK;
}

/* Fails when text (what: "the name", "the op type") of node index at in
 * where ("" for the main graph, else " in a subgraph of node N") is not
 * valid UTF-8, naming the node's name unless that is text. */
static sc_status check_text(loader *L, const char *text, const char *what, size_t at,
                            const char *node, const char *where)
{
	size_t bad;
	if (!text || sc_utf8_valid(text, &bad))
		return SC_OK;
	bool named = node && *node && node != text; /* not the name at fault */
	return sc_error_set(L->err, SC_ERR_INPUT,
	                    "%s: node %zu%s%s%s%s: %s '%s' is not valid UTF-8 (byte 0x%02x at "
	                    "offset %zu), which partition files and JSON output cannot hold",
	                    L->path, at, where, named ? " ('" : "", named ? node : "",
	                    named ? "')" : "", what, text, (unsigned char)text[bad], bad);
}

/* The symbolic dims of value infos vi[0..n) that are not valid UTF-8. */
static sc_status check_dims(loader *L, Onnx__ValueInfoProto *const *vi, size_t n, const char *where)
{
	for (size_t i = 0; i < n; i++) {
		const Onnx__TensorShapeProto *sh = hint_shape(vi[i]);
		for (size_t d = 0; sh && d < sh->n_dim; d++) {
			const char *p =
			        sh->dim[d]->value_case ==
			                        ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM
			                ? sh->dim[d]->dim_param
			                : NULL;
			size_t bad;
			if (p && !sc_utf8_valid(p, &bad))
				return sc_error_set(L->err, SC_ERR_INPUT,
				                    "%s: tensor '%s'%s: the symbolic dim '%s' is "
				                    "not valid UTF-8 "
				                    "(byte 0x%02x at offset %zu), which JSON "
				                    "output cannot hold",
				                    L->path, vi[i]->name ? vi[i]->name : "", where,
				                    p, (unsigned char)p[bad], bad);
		}
	}
	return SC_OK;
}

/* Names stagecut writes (op names and types in partition files, DOT and
 * JSON; symbolic dims in info's JSON) must be UTF-8, as a DOT graph's are
 * (load_dot.c): refused here, at load, rather than found unwritable later.
 * Subgraphs too (their op types are counted, their dims reported), to
 * depth ONNX_MAX_DEPTH. */
static sc_status check_names(loader *L, const Onnx__GraphProto *g, const char *where, int depth)
{
	if (check_dims(L, g->input, g->n_input, where) != SC_OK ||
	    check_dims(L, g->output, g->n_output, where) != SC_OK ||
	    check_dims(L, g->value_info, g->n_value_info, where) != SC_OK)
		return L->err->code;
	for (size_t i = 0; i < g->n_node; i++) {
		const Onnx__NodeProto *nd = g->node[i];
		if (check_text(L, nd->name, "the name", i, nd->name, where) != SC_OK ||
		    check_text(L, nd->op_type, "the op type", i, nd->name, where) != SC_OK)
			return L->err->code;
		if (depth >= ONNX_MAX_DEPTH)
			continue;
		char inner[64];
		snprintf(inner, sizeof inner, " in a subgraph of node %zu", i);
		for (size_t a = 0; a < nd->n_attribute; a++) {
			const Onnx__AttributeProto *at = nd->attribute[a];
			if (at->g &&
			    check_names(L, at->g, depth ? where : inner, depth + 1) != SC_OK)
				return L->err->code;
			for (size_t k = 0; k < at->n_graphs; k++)
				if (check_names(L, at->graphs[k], depth ? where : inner,
				                depth + 1) != SC_OK)
					return L->err->code;
		}
	}
	return SC_OK;
}

/* op names: node.name, or "<op_type>_<index>"; a name used before gets
 * "~<index>" (the node's index in the graph) */
static char **op_names(loader *L)
{
	size_t n = L->graph->n_node;
	char **names = sc_calloc_n(n ? n : 1, sizeof *names);
	if (!names)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const Onnx__NodeProto *nd = L->graph->node[i];
		char buf[256];
		if (nd->name && *nd->name)
			names[i] = strdup(nd->name);
		else {
			snprintf(buf, sizeof buf, "%s_%zu", nd->op_type ? nd->op_type : "op", i);
			names[i] = strdup(buf);
		}
		if (!names[i])
			goto fail;
	}
	/* duplicates: sort copies, then rename every later occurrence */
	char **sorted = sc_malloc_n(n ? n : 1, sizeof *sorted);
	if (!sorted)
		goto fail;
	memcpy(sorted, names, n * sizeof *names);
	qsort(sorted, n, sizeof *sorted, cmp_str);
	bool dup = false;
	for (size_t i = 1; i < n && !dup; i++)
		dup = strcmp(sorted[i - 1], sorted[i]) == 0;
	free(sorted);
	for (size_t i = 1; dup && i < n; i++)
		for (size_t j = 0; j < i; j++)
			if (strcmp(names[i], names[j]) == 0) {
				size_t len = strlen(names[i]) + 24;
				char *nn = malloc(len);
				if (!nn)
					goto fail;
				snprintf(nn, len, "%s~%zu", names[i], i);
				free(names[i]);
				names[i] = nn;
				break;
			}
	return names;
fail:
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return NULL;
}

static sc_status check_opset(loader *L, const Onnx__ModelProto *m)
{
	for (size_t i = 0; i < m->n_opset_import; i++) {
		const Onnx__OperatorSetIdProto *o = m->opset_import[i];
		if (o->domain && *o->domain && strcmp(o->domain, "ai.onnx") != 0)
			continue;
		long long v = o->has_version ? (long long)o->version : 0;
		if (v < SC_ONNX_OPSET_MIN || v > SC_ONNX_OPSET_MAX)
			return sc_error_set(
			        L->err, SC_ERR_INPUT,
			        "%s: ai.onnx opset %lld is not supported (opsets %d to %d "
			        "are)",
			        L->path, v, SC_ONNX_OPSET_MIN, SC_ONNX_OPSET_MAX);
		L->rep->opset = (int)v;
		return SC_OK;
	}
	return sc_error_set(L->err, SC_ERR_INPUT,
	                    "%s: the model imports no ai.onnx opset (opset_import is empty)",
	                    L->path);
}

/* the tensor table: initializers, graph inputs, node outputs */
static sc_status collect_tensors(loader *L)
{
	Onnx__GraphProto *g = L->graph;
	for (size_t i = 0; i < g->n_initializer; i++)
		if (add_tensor(L, g->initializer[i]->name ? g->initializer[i]->name : "", -1,
		               (int)i) != SC_OK)
			return L->err->code;
	for (size_t i = 0; i < g->n_input; i++)
		if (add_tensor(L, g->input[i]->name ? g->input[i]->name : "", -1, -1) != SC_OK)
			return L->err->code;
	for (size_t i = 0; i < g->n_node; i++)
		for (size_t j = 0; j < g->node[i]->n_output; j++)
			if (g->node[i]->output[j] && *g->node[i]->output[j] &&
			    add_tensor(L, g->node[i]->output[j], (int)i, -1) != SC_OK)
				return L->err->code;
	L->by_name = sc_malloc_n(L->ntens ? (size_t)L->ntens : 1, sizeof *L->by_name);
	if (!L->by_name)
		return sc_error_nomem(L->err, "ONNX tensor names");
	for (int i = 0; i < L->ntens; i++)
		L->by_name[i] = i;
	sort_tens = L->tens;
	qsort(L->by_name, (size_t)L->ntens, sizeof *L->by_name, cmp_by_name);
	/* one name, one tensor; an initializer listed among the inputs too (IR < 4)
	 * is the initializer */
	int w = 0;
	for (int i = 0; i < L->ntens; i++) {
		if (w > 0 &&
		    strcmp(L->tens[L->by_name[w - 1]].name, L->tens[L->by_name[i]].name) == 0) {
			tensor *a = &L->tens[L->by_name[w - 1]], *b = &L->tens[L->by_name[i]];
			bool input_twice = a->init >= 0 && b->init < 0 && b->producer < 0;
			if (!input_twice) {
				const char *who = b->producer >= 0 ? "a node" : "a graph input";
				return sc_error_set(
				        L->err, SC_ERR_INPUT,
				        "%s: tensor '%.200s' is defined twice (by %s and "
				        "by %s)",
				        L->path, a->name,
				        a->producer >= 0 ? "a node"
				        : a->init >= 0   ? "an initializer"
				                         : "a graph input",
				        who);
			}
			continue;
		}
		L->by_name[w++] = L->by_name[i];
	}
	L->ntens = w; /* by_name holds the survivors; tens keeps its slots */
	for (size_t i = 0; i < g->n_initializer; i++) {
		int t = find(L, L->tens[i].name);
		if (t >= 0 && !tensor_of(g->initializer[i], &L->tens[t].t))
			return sc_error_set(
			        L->err, SC_ERR_INPUT,
			        "%s: initializer '%.200s' has a negative dim or more than %d",
			        L->path, L->tens[t].name, SC_ONNX_MAX_RANK);
		if (t >= 0)
			L->rep->param_bytes += fmax(0, sc_onnx_bytes(&L->tens[t].t));
	}
	/* the inputs first: their dims are the ones --dim sets */
	for (size_t i = 0; i < g->n_input; i++)
		apply_value_info(L, g->input[i], true);
	for (size_t i = 0; i < g->n_value_info; i++)
		apply_value_info(L, g->value_info[i], false);
	for (size_t i = 0; i < g->n_output; i++)
		apply_value_info(L, g->output[i], false);
	return SC_OK;
}

static sc_status add_edges(loader *L, sc_builder *b, char **names)
{
	Onnx__GraphProto *g = L->graph;
	for (size_t i = 0; i < g->n_node; i++) {
		const Onnx__NodeProto *nd = g->node[i];
		for (size_t j = 0; j < nd->n_input; j++) {
			if (!nd->input[j] || !*nd->input[j])
				continue; /* an optional input left out */
			int t = find(L, nd->input[j]);
			if (t < 0)
				return sc_error_set(
				        L->err, SC_ERR_INPUT,
				        "%s: op '%.200s' (%s): input '%.200s' is produced by no "
				        "node, graph input or initializer",
				        L->path, names[i], nd->op_type ? nd->op_type : "?",
				        nd->input[j]);
			L->tens[t].consumers++;
			if (L->tens[t].producer >= 0 &&
			    sc_builder_add_edge(b, L->tens[t].producer, (int)i, L->err) != SC_OK)
				return L->err->code;
		}
		for (size_t j = 0; j < nd->n_attribute; j++)
			if (subgraph_edges(L, b, (int)i, nd->attribute[j], 0) != SC_OK)
				return L->err->code;
	}
	return SC_OK;
}

/* the bytes of t at the run's precision: floating-point elements take the
 * precision's size, the others (int64 shapes, indices, bool) their own */
static double run_bytes(const loader *L, const sc_onnx_tensor *t)
{
	double b = sc_onnx_bytes(t);
	bool fp = t->dtype == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT ||
	          t->dtype == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16 ||
	          t->dtype == ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE ||
	          t->dtype == ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16;
	if (b <= 0 || !fp || t->elem <= 0)
		return b;
	return b / t->elem * sc_precision_bytes(L->rep->precision);
}

static sc_op_kind op_kind(const Onnx__NodeProto *nd)
{
	static const char *const views[] = {"Reshape",  "Flatten", "Squeeze", "Unsqueeze",
	                                    "Identity", "Dropout", NULL};
	const char *t = nd->op_type ? nd->op_type : "";
	if (!strcmp(t, "Conv") || !strcmp(t, "ConvTranspose") || !strcmp(t, "ConvInteger") ||
	    !strcmp(t, "QLinearConv")) {
		const Onnx__AttributeProto *group = sc_onnx_attr(nd, "group");
		return group && group->i > 1 ? SC_OPK_DWCONV : SC_OPK_CONV;
	}
	if (!strcmp(t, "MatMul") || !strcmp(t, "Gemm") || !strcmp(t, "MatMulInteger") ||
	    !strcmp(t, "QLinearMatMul") || !strcmp(t, "Einsum"))
		return SC_OPK_MATMUL;
	for (int i = 0; views[i]; i++)
		if (!strcmp(t, views[i]))
			return SC_OPK_VIEW;
	static const char *const pools[] = {"MaxPool",       "AveragePool", "GlobalAveragePool",
	                                    "GlobalMaxPool", "LpPool",      "GlobalLpPool",
	                                    "Softmax",       "LogSoftmax",  "ArgMax",
	                                    "ArgMin",        NULL};
	if (!strncmp(t, "Reduce", 6))
		return SC_OPK_POOL;
	for (int i = 0; pools[i]; i++)
		if (!strcmp(t, pools[i]))
			return SC_OPK_POOL;
	if (!strcmp(t, "Concat"))
		return SC_OPK_CONCAT;
	static const char *const norms[] = {"BatchNormalization",
	                                    "LayerNormalization",
	                                    "InstanceNormalization",
	                                    "GroupNormalization",
	                                    "RMSNormalization",
	                                    "LpNormalization",
	                                    "MeanVarianceNormalization",
	                                    "SimplifiedLayerNormalization",
	                                    "SkipLayerNormalization",
	                                    "SkipSimplifiedLayerNormalization",
	                                    NULL};
	for (int i = 0; norms[i]; i++)
		if (!strcmp(t, norms[i]))
			return SC_OPK_NORM;
	static const char *const copies[] = {"Transpose", "Slice",          "Pad",
	                                     "Gather",    "Split",          "Expand",
	                                     "Tile",      "GatherElements", "GatherND",
	                                     "ScatterND", "DepthToSpace",   "SpaceToDepth",
	                                     "Resize",    "Upsample",       NULL};
	for (int i = 0; copies[i]; i++)
		if (!strcmp(t, copies[i]))
			return SC_OPK_COPY;
	return SC_OPK_ELEMENTWISE;
}

/* a convolution or matmul as a GEMM (device.h): N the output channels per
 * group (a conv's dim 1, a matmul's last dim), M the outputs per channel,
 * K the multiply-accumulates per output */
static void gemm_sizes(const Onnx__NodeProto *nd, const sc_onnx_tensor *out, sc_op_size *sz)
{
	if (sz->kind != SC_OPK_CONV && sz->kind != SC_OPK_DWCONV && sz->kind != SC_OPK_MATMUL)
		return;
	double numel = (double)sc_onnx_numel(out);
	if (!out->known || out->rank < 2 || numel <= 0 || sz->flops <= 0)
		return;
	double ch = (double)(sz->kind == SC_OPK_MATMUL ? out->dim[out->rank - 1] : out->dim[1]);
	const Onnx__AttributeProto *ga =
	        sz->kind == SC_OPK_DWCONV ? sc_onnx_attr(nd, "group") : NULL;
	double group = ga ? (double)ga->i : 1;
	if (ch <= 0 || group <= 0)
		return;
	sz->m = numel / ch;
	sz->n = fmax(1, ch / group);
	sz->k = sz->flops / (2 * numel);
	const Onnx__AttributeProto *st =
	        sz->kind != SC_OPK_MATMUL ? sc_onnx_attr(nd, "strides") : NULL;
	for (size_t j = 0; st && j < st->n_ints; j++)
		sz->strided |= st->ints[j] > 1;
}

/* a tensor whose value is known at load time: an initializer or the output
 * of a folded node */
static bool is_const(const loader *L, int t)
{
	return t >= 0 && (L->tens[t].init >= 0 ||
	                  (L->tens[t].producer >= 0 && L->folded[L->tens[t].producer]));
}

/* whether node v is folded: what a runtime computes once at load time */
static bool foldable(const loader *L, const Onnx__NodeProto *nd, const int *tin, int nin,
                     const sc_onnx_tensor *const *in)
{
	const char *t = nd->op_type ? nd->op_type : "";
	if (!strcmp(t, "Constant"))
		return true;
	for (size_t i = 0; i < nd->n_attribute; i++)
		if (nd->attribute[i]->g || nd->attribute[i]->n_graphs)
			return false; /* If, Loop, Scan: control flow stays an op */
	if ((!strcmp(t, "Shape") || !strcmp(t, "Size")) && nin >= 1 && in[0] && in[0]->known)
		return true; /* the shape is known: only the value is read */
	static const char *const random[] = {"RandomNormal",
	                                     "RandomUniform",
	                                     "RandomNormalLike",
	                                     "RandomUniformLike",
	                                     "Multinomial",
	                                     "Bernoulli",
	                                     NULL};
	for (int i = 0; random[i]; i++)
		if (!strcmp(t, random[i]))
			return false;
	int present = 0;
	for (int j = 0; j < nin; j++) {
		if (tin[j] < 0)
			continue;
		if (!is_const(L, tin[j]))
			return false;
		present++;
	}
	return present > 0;
}

/* Whether t's shape is known, every dim >= 0, and its element count passes
 * 2^62 (sc_onnx_numel): a symbolic dim set too large (--dim), never a shape
 * to cost as unknown. */
static bool overflows(const sc_onnx_tensor *t)
{
	if (!t || !t->known)
		return false;
	for (int i = 0; i < t->rank; i++)
		if (t->dim[i] < 0)
			return false;
	return sc_onnx_numel(t) < 0;
}

/* Fails the load for tensor name (what: "an input of the model", "an
 * output of op 'X'") whose size overflows (overflows()), naming the
 * symbolic dims --dim set, which are the usual cause. */
static sc_status overflow_error(loader *L, const char *name, const char *what, const char *op,
                                const sc_onnx_tensor *t)
{
	char dims[SC_ONNX_MAX_RANK * 24], given[400];
	size_t at = 0;
	for (int i = 0; i < t->rank; i++)
		at += (size_t)snprintf(dims + at, sizeof dims - at, "%s%lld", i ? " x " : "",
		                       (long long)t->dim[i]);
	at = 0;
	given[0] = '\0';
	const sc_onnx_report *r = L->rep;
	for (int i = 0; i < r->ndims && at < 300; i++)
		if (r->dim_given[i])
			at += (size_t)snprintf(given + at, sizeof given - at, "%s%s=%lld",
			                       at ? ", " : "with --dim ", r->dim_name[i],
			                       r->dim_value[i]);
	return sc_error_set(L->err, SC_ERR_INPUT,
	                    "%s: %s%sa tensor's size overflows: '%s' (%s%s%s%s) would be %s, "
	                    "more than 2^62 elements",
	                    L->path, given, at ? " " : "", name, what, op ? " '" : "", op ? op : "",
	                    op ? "'" : "", dims);
}

static sc_status note_unknown(loader *L, const char *name)
{
	char **u = realloc(L->rep->unknown, (size_t)(L->rep->nunknown + 1) * sizeof *u);
	if (!u)
		return sc_error_nomem(L->err, "ONNX report");
	L->rep->unknown = u;
	if (!(u[L->rep->nunknown] = strdup(name)))
		return sc_error_nomem(L->err, "ONNX report");
	L->rep->nunknown++;
	return SC_OK;
}

/* the tensor a folded value stands for: an Identity of a constant is that
 * constant (one copy of the bytes, however many names it has) */
static int value_root(const loader *L, int t)
{
	for (int guard = 0; guard < 1 << 20 && t >= 0; guard++) {
		int p = L->tens[t].producer;
		if (p < 0 || !L->folded[p])
			return t;
		const Onnx__NodeProto *nd = L->graph->node[p];
		if (!nd->op_type || strcmp(nd->op_type, "Identity") != 0 || nd->n_input < 1 ||
		    !nd->input[0] || !*nd->input[0])
			return t;
		t = find(L, nd->input[0]);
	}
	return t;
}

/* Charges node v with the constant t stands for (value_root), when no
 * earlier op was: into *param.  A value that follows an input's symbolic
 * dim (tensor.by_dim) is made per run and is no parameter; the constants
 * it is made from are (a position table gathered by the sequence length),
 * and are charged in its place. */
static void charge_const(loader *L, int t, int v, double *param, int depth)
{
	int r = value_root(L, t);
	if (r < 0 || L->tens[r].charged_to >= 0 || depth > ONNX_MAX_DEPTH)
		return;
	L->tens[r].charged_to = v;
	if (!L->tens[r].by_dim) {
		*param += fmax(0, run_bytes(L, &L->tens[r].t));
		return;
	}
	int p = L->tens[r].producer;
	if (p < 0 || !L->folded[p])
		return;
	const Onnx__NodeProto *nd = L->graph->node[p];
	for (size_t j = 0; j < nd->n_input; j++) {
		int u = nd->input[j] && *nd->input[j] ? find(L, nd->input[j]) : -1;
		if (is_const(L, u))
			charge_const(L, u, v, param, depth + 1);
	}
}

/* ---- control flow: If and Loop costed by their bodies --------------------- */

/* A subgraph's tensors while its body is costed; names not found here are
 * looked up in the scopes around it, then in the main graph. */
typedef struct scope {
	const struct scope *outer;
	int n, cap;
	const char **name;
	sc_onnx_tensor *t;
} scope;

/* what running a body (or a control-flow node) costs */
typedef struct body_cost {
	double time;   /* modelled, microseconds */
	double flops;  /* FLOPs */
	double param;  /* bytes of the initializers of the bodies */
	bool unknown;  /* an op of the body has unknown shapes */
	bool no_trips; /* a Loop whose trip count is not known counted once */
	/* the first tensor of a body whose size overflows (overflows()), or
	 * NULL: its name (the model's) and shape */
	const char *big_name;
	sc_onnx_tensor big;
} body_cost;

static const sc_onnx_tensor *scope_find(const loader *L, const scope *s, const char *name)
{
	for (; s; s = s->outer)
		for (int i = s->n - 1; i >= 0; i--)
			if (strcmp(s->name[i], name) == 0)
				return &s->t[i];
	int t = find(L, name);
	return t >= 0 ? &L->tens[t].t : NULL;
}

static sc_onnx_tensor *scope_add(scope *s, const char *name)
{
	if (s->n == s->cap) {
		int cap = s->cap ? 2 * s->cap : 16;
		const char **nn = realloc(s->name, (size_t)cap * sizeof *nn);
		if (nn)
			s->name = nn;
		sc_onnx_tensor *nt = realloc(s->t, (size_t)cap * sizeof *nt);
		if (nt)
			s->t = nt;
		if (!nn || !nt)
			return NULL;
		s->cap = cap;
	}
	s->name[s->n] = name ? name : "";
	reset(&s->t[s->n]);
	return &s->t[s->n++];
}

static const Onnx__GraphProto *graph_attr(const Onnx__NodeProto *nd, const char *name)
{
	const Onnx__AttributeProto *a = sc_onnx_attr(nd, name);
	return a ? a->g : NULL;
}

static bool has_body(const Onnx__NodeProto *nd)
{
	for (size_t i = 0; i < nd->n_attribute; i++)
		if (nd->attribute[i]->g || nd->attribute[i]->n_graphs)
			return true;
	return false;
}

static bool control_flow(loader *L, const scope *outer, const Onnx__NodeProto *nd,
                         const sc_onnx_tensor *const *in, int nin, sc_onnx_tensor *const *out,
                         int nout, int depth, body_cost *c);

/* Costs body g once: its inputs take the shapes of args[0..nargs) (NULL,
 * or fewer: value_info's when its dims are numbers), its initializers are
 * param, every node is costed in order (nested If and Loop too); the
 * shapes of its outputs go to res[0..nres).  False when out of memory. */
static bool run_body(loader *L, const scope *outer, const Onnx__GraphProto *g,
                     const sc_onnx_tensor *const *args, int nargs, sc_onnx_tensor *res, int nres,
                     int depth, body_cost *c)
{
	scope s = {.outer = outer};
	bool ok = true;
	const sc_device *d = &L->rep->device;
	for (size_t i = 0; ok && i < g->n_initializer; i++) {
		sc_onnx_tensor *t = scope_add(&s, g->initializer[i]->name);
		if (!(ok = t != NULL))
			break;
		if (tensor_of(g->initializer[i], t))
			c->param += fmax(0, run_bytes(L, t));
	}
	for (size_t i = 0; ok && i < g->n_input; i++) {
		const Onnx__ValueInfoProto *vi = g->input[i];
		sc_onnx_tensor *t = scope_add(&s, vi ? vi->name : NULL);
		if (!(ok = t != NULL))
			break;
		if ((int)i < nargs && args[i] && args[i]->known)
			*t = *args[i];
		else if (vi)
			shape_from_hint(L, vi, t, "");
	}
	const sc_onnx_tensor *in[256];
	sc_onnx_tensor *outs[256];
	for (size_t k = 0; ok && k < g->n_node; k++) {
		const Onnx__NodeProto *nd = g->node[k];
		int nin = nd->n_input < 256 ? (int)nd->n_input : 256;
		int nout = nd->n_output < 256 ? (int)nd->n_output : 256;
		for (int j = 0; j < nin; j++)
			in[j] = nd->input[j] && *nd->input[j] ? scope_find(L, &s, nd->input[j])
			                                      : NULL;
		int first = s.n;
		for (int j = 0; ok && j < nout; j++)
			ok = scope_add(&s, nd->output[j]) != NULL;
		if (!ok)
			break;
		for (int j = 0; j < nout; j++)
			outs[j] = &s.t[first + j];
		const char *type = nd->op_type ? nd->op_type : "";
		if (!strcmp(type, "Constant")) {
			if (nout >= 1)
				constant(nd, outs[0]);
			continue;
		}
		if (has_body(nd)) {
			if (depth >= ONNX_MAX_DEPTH ||
			    !control_flow(L, &s, nd, in, nin, outs, nout, depth + 1, c))
				c->unknown = true;
			continue;
		}
		double flops = 0;
		bool inferred = sc_onnx_infer(nd, in, nin, outs, nout, &flops);
		for (int j = 0; j < nout && !c->big_name; j++)
			if (overflows(outs[j])) {
				c->big_name = s.name[first + j];
				c->big = *outs[j];
			}
		if (!inferred) {
			c->unknown = true;
			continue;
		}
		sc_op_size sz = {.kind = op_kind(nd), .flops = flops};
		for (int j = 0; j < nin; j++)
			sz.bytes += in[j] ? fmax(0, run_bytes(L, in[j])) : 0;
		for (int j = 0; j < nout; j++)
			sz.bytes += fmax(0, run_bytes(L, outs[j]));
		gemm_sizes(nd, outs[0], &sz);
		if (sz.kind == SC_OPK_VIEW)
			sz.flops = sz.bytes = 0;
		c->time += sc_device_op_time(d, L->rep->precision, &sz);
		c->flops += flops;
	}
	for (int i = 0; ok && i < nres && i < (int)g->n_output; i++) {
		const sc_onnx_tensor *t = g->output[i] && g->output[i]->name
		                                  ? scope_find(L, &s, g->output[i]->name)
		                                  : NULL;
		reset(&res[i]);
		if (t)
			res[i] = *t;
	}
	free(s.name);
	free(s.t);
	return ok;
}

/* Costs an If (the branch its condition takes when that is a constant,
 * else the slower one, both branches' initializers being param) or a Loop
 * (its body times the trip count when M is a constant, else once; the
 * loop-carried outputs take the body's shapes, the scan outputs gain the
 * trip count as their first dim) into c, and fills the outputs.  False for
 * other nodes with subgraphs (Scan), or when out of memory. */
static bool control_flow(loader *L, const scope *outer, const Onnx__NodeProto *nd,
                         const sc_onnx_tensor *const *in, int nin, sc_onnx_tensor *const *out,
                         int nout, int depth, body_cost *c)
{
	const char *type = nd->op_type ? nd->op_type : "";
	sc_onnx_tensor res[2][64];
	int nres = nout < 64 ? nout : 64;
	if (!strcmp(type, "If")) {
		const Onnx__GraphProto *br[2] = {graph_attr(nd, "then_branch"),
		                                 graph_attr(nd, "else_branch")};
		if (!br[0] || !br[1])
			return false;
		body_cost bc[2];
		memset(bc, 0, sizeof bc);
		for (int b = 0; b < 2; b++)
			if (!run_body(L, outer, br[b], NULL, 0, res[b], nres, depth, &bc[b]))
				return false;
		int take = bc[1].time > bc[0].time ? 1 : 0;
		if (nin >= 1 && in[0] && in[0]->nvalues >= 1)
			take = in[0]->value[0] != 0 ? 0 : 1;
		c->time += bc[take].time;
		c->flops += bc[take].flops;
		c->param += bc[0].param + bc[1].param;
		c->unknown |= bc[take].unknown;
		for (int b = 0; b < 2 && !c->big_name; b++)
			if (bc[b].big_name) {
				c->big_name = bc[b].big_name;
				c->big = bc[b].big;
			}
		c->no_trips |= bc[take].no_trips;
		for (int i = 0; i < nres; i++)
			if (!out[i]->known)
				*out[i] = res[take][i];
		return true;
	}
	if (!strcmp(type, "Loop")) {
		const Onnx__GraphProto *body = graph_attr(nd, "body");
		if (!body)
			return false;
		/* the body's inputs: the iteration (int64 scalar), the condition
		 * (bool scalar), then the loop-carried values */
		sc_onnx_tensor iter, cond;
		reset(&iter);
		reset(&cond);
		iter.known = cond.known = true;
		iter.dtype = 7, iter.elem = 8;
		cond.dtype = 9, cond.elem = 1;
		const sc_onnx_tensor *args[64] = {&iter, &cond};
		int nargs = 2;
		for (int j = 2; j < nin && nargs < 64; j++)
			args[nargs++] = in[j];
		double trips = 1;
		bool known_trips = nin >= 1 && in[0] && in[0]->nvalues >= 1 && in[0]->value[0] >= 0;
		if (known_trips)
			trips = in[0]->value[0];
		body_cost bc = {0};
		/* the body's outputs: the condition, the carried values, the scans */
		if (!run_body(L, outer, body, args, nargs, res[0], nres + 1 < 64 ? nres + 1 : 64,
		              depth, &bc))
			return false;
		c->time += trips * bc.time;
		c->flops += trips * bc.flops;
		c->param += bc.param;
		c->unknown |= bc.unknown;
		if (bc.big_name && !c->big_name) {
			c->big_name = bc.big_name;
			c->big = bc.big;
		}
		c->no_trips |= bc.no_trips || !known_trips;
		int carried = nin - 2 > 0 ? nin - 2 : 0;
		for (int i = 0; i < nres && i + 1 < 64; i++) {
			sc_onnx_tensor *t = out[i];
			if (t->known)
				continue;
			*t = res[0][i + 1];
			if (i >= carried && t->known) {
				/* a scan output: one slice per iteration */
				if (!known_trips || t->rank + 1 > SC_ONNX_MAX_RANK) {
					reset(t);
					continue;
				}
				memmove(t->dim + 1, t->dim, (size_t)t->rank * sizeof *t->dim);
				t->dim[0] = (int64_t)trips;
				t->rank++;
				t->nvalues = -1;
			}
		}
		return true;
	}
	return false;
}

/* Shapes, FLOPs, folding and the modelled costs of every node of the full
 * graph gr (one op per node), in topological order.  Fills L->folded, the
 * work of every node (0 for folded ones) and their kinds; param and out
 * come after, once it is known which nodes stay ops. */
static sc_status infer_nodes(loader *L, sc_graph *gr, char **names, sc_op_size *sizes,
                             bool *known_cost)
{
	Onnx__GraphProto *g = L->graph;
	const sc_onnx_tensor *in[256];
	sc_onnx_tensor *out[256];
	for (int k = 0; k < gr->n; k++) {
		int v = gr->topo[k];
		const Onnx__NodeProto *nd = g->node[v];
		int nin = nd->n_input < 256 ? (int)nd->n_input : 256;
		int nout = nd->n_output < 256 ? (int)nd->n_output : 256;
		int tin[256];
		for (int j = 0; j < nin; j++) {
			tin[j] = nd->input[j] && *nd->input[j] ? find(L, nd->input[j]) : -1;
			in[j] = tin[j] >= 0 ? &L->tens[tin[j]].t : NULL;
		}
		sc_onnx_tensor scratch[4];
		for (int j = 0; j < nout; j++) {
			int t = nd->output[j] && *nd->output[j] ? find(L, nd->output[j]) : -1;
			out[j] = t >= 0 ? &L->tens[t].t : &scratch[j < 4 ? j : 3];
			if (t < 0)
				reset(out[j]);
		}
		double flops = 0;
		body_cost bc = {0};
		bool ok;
		if (nd->op_type && !strcmp(nd->op_type, "Constant"))
			ok = nout >= 1 && constant(nd, out[0]);
		else if (has_body(nd))
			ok = control_flow(L, NULL, nd, in, nin, out, nout, 0, &bc) && !bc.unknown;
		else
			ok = nd->n_input <= 256 && nd->n_output <= 256 &&
			     sc_onnx_infer(nd, in, nin, out, nout, &flops);
		L->body_time[v] = bc.time;
		L->body_param[v] = bc.param;
		flops += bc.flops;
		if (bc.no_trips) {
			char **o = realloc(L->rep->once, (size_t)(L->rep->nonce + 1) * sizeof *o);
			if (!o || !(o[L->rep->nonce] = strdup(names[v]))) {
				if (o)
					L->rep->once = o;
				return sc_error_nomem(L->err, "ONNX report");
			}
			L->rep->once = o;
			L->rep->nonce++;
		}
		for (int j = 0; j < nout; j++) {
			int t = nd->output[j] && *nd->output[j] ? find(L, nd->output[j]) : -1;
			if (t < 0 || !L->tens[t].hint)
				continue;
			if (out[j]->known)
				name_dims(L, L->tens[t].hint, out[j], names[v]);
			else if (L->tens[t].consumers > 0 || j == 0)
				shape_from_hint(L, L->tens[t].hint, out[j], names[v]);
		}
		for (int j = 0; j < nin; j++)
			if (overflows(in[j]))
				return overflow_error(L, L->tens[tin[j]].name,
				                      L->tens[tin[j]].init >= 0 ? "an initializer"
				                      : L->tens[tin[j]].producer >= 0
				                              ? "an output of op"
				                              : "an input of the model",
				                      L->tens[tin[j]].producer >= 0
				                              ? names[L->tens[tin[j]].producer]
				                              : NULL,
				                      in[j]);
		for (int j = 0; j < nout; j++)
			if (overflows(out[j]))
				return overflow_error(L, nd->output[j], "an output of op", names[v],
				                      out[j]);
		if (bc.big_name)
			return overflow_error(L, bc.big_name, "in the body of op", names[v],
			                      &bc.big);
		L->folded[v] = foldable(L, nd, tin, nin, in);
		bool by_dim = false;
		for (int j = 0; j < nin; j++)
			by_dim |= tin[j] >= 0 && L->tens[tin[j]].by_dim;
		for (int j = 0; by_dim && j < nout; j++) {
			int t = nd->output[j] && *nd->output[j] ? find(L, nd->output[j]) : -1;
			if (t >= 0)
				L->tens[t].by_dim = true;
		}
		sc_op_size *sz = &sizes[v];
		*sz = (sc_op_size){.kind = has_body(nd) ? SC_OPK_VIEW : op_kind(nd)};
		double bytes = 0;
		for (int j = 0; ok && j < nin; j++) {
			if (!in[j])
				continue;
			double b = run_bytes(L, in[j]);
			ok = b >= 0;
			bytes += b;
		}
		for (int j = 0; ok && j < nout; j++) {
			int t = nd->output[j] && *nd->output[j] ? find(L, nd->output[j]) : -1;
			double b = run_bytes(L, out[j]);
			if (t < 0 || (b < 0 && L->tens[t].consumers == 0))
				continue; /* an unused output of unknown size costs nothing */
			ok = b >= 0;
			bytes += b;
		}
		known_cost[v] = ok;
		sz->flops = ok ? flops : 0;
		sz->bytes = ok ? bytes : 0;
		if (ok && nout >= 1)
			gemm_sizes(nd, out[0], sz);
		if (!ok && !L->folded[v] && note_unknown(L, names[v]) != SC_OK)
			return L->err->code;
		if (ok && !L->folded[v])
			L->rep->flops += flops;
	}
	return SC_OK;
}

/* Where a folded node's measured time goes: its first consumer (in
 * topological order) that stays an op, through chains of folded nodes;
 * -1 when its value reaches no op.  Over the full graph's edges. */
static void fold_targets(const loader *L, const sc_graph *gr, int *fold_to)
{
	int *pos = sc_malloc_n((size_t)gr->n, sizeof *pos);
	for (int k = 0; pos && k < gr->n; k++)
		pos[gr->topo[k]] = k;
	for (int k = gr->n - 1; k >= 0; k--) {
		int v = gr->topo[k];
		fold_to[v] = -1;
		if (!L->folded[v] || !pos)
			continue;
		for (int e = gr->succ_off[v]; e < gr->succ_off[v + 1]; e++) {
			int c = gr->succ[e], to = L->folded[c] ? fold_to[c] : c;
			if (to >= 0 && (fold_to[v] < 0 || pos[to] < pos[fold_to[v]]))
				fold_to[v] = to;
		}
	}
	free(pos);
}

/* Charges node v with the main graph's constants its subgraphs read (at
 * any depth) that no earlier op was charged with: into *param. */
static void charge_body_refs(loader *L, int v, const Onnx__AttributeProto *a, int depth,
                             double *param)
{
	if (depth > ONNX_MAX_DEPTH)
		return;
	const Onnx__GraphProto *gs[1] = {a->g};
	size_t ng = a->g ? 1 : 0;
	for (size_t k = 0; k < ng + a->n_graphs; k++) {
		const Onnx__GraphProto *g = k < ng ? gs[k] : a->graphs[k - ng];
		for (size_t i = 0; g && i < g->n_node; i++) {
			const Onnx__NodeProto *nd = g->node[i];
			for (size_t j = 0; j < nd->n_input; j++) {
				int t = nd->input[j] && *nd->input[j] ? find(L, nd->input[j]) : -1;
				if (is_const(L, t))
					charge_const(L, t, v, param, 0);
			}
			for (size_t j = 0; j < nd->n_attribute; j++)
				charge_body_refs(L, v, nd->attribute[j], depth + 1, param);
		}
	}
}

/* The graph of the nodes that stay ops, with their costs: param is the
 * bytes of the constants (initializers and folded values, an Identity's
 * output counting as its input) each op is the first reader of, in
 * topological order, but for values that follow an input's symbolic dim
 * (tensor.by_dim: made per run, not weights); out the bytes of its outputs
 * another op reads. */
/* ---- what each op saves for the backward pass (onnx_saves.h) ------------- */

/* The saves of the ops as build_ops adds them: op i saves the ops
 * list[off[i] .. off[i+1]) and own[i] bytes more. */
typedef struct saves_acc {
	int *off, *list, len, cap;
	double *own;
} saves_acc;

static bool saves_push(saves_acc *a, int op)
{
	if (a->len == a->cap) {
		int cap = a->cap ? 2 * a->cap : 64;
		int *l = realloc(a->list, (size_t)cap * sizeof *l);
		if (!l)
			return false;
		a->list = l;
		a->cap = cap;
	}
	a->list[a->len++] = op;
	return true;
}

/* The node that makes the tensor called name, or NULL (a model input, an
 * initializer). */
static const Onnx__NodeProto *maker(const loader *L, const char *name)
{
	int t = name && *name ? find(L, name) : -1;
	int p = t >= 0 ? L->tens[t].producer : -1;
	return p >= 0 ? L->graph->node[p] : NULL;
}

static bool op_is(const Onnx__NodeProto *nd, const char *type)
{
	return nd && nd->op_type && strcmp(nd->op_type, type) == 0;
}

/* When erf is the Erf of an exported GELU, x * 0.5 * (1 + erf(x / c))
 * (torch.onnx below opset 20 writes Div, Erf, Add, Mul, Mul), the name of
 * x; else NULL.  mul: the Mul of x by 1 + erf to check, or NULL to look
 * for one among the nodes. */
static const char *gelu_input(const loader *L, const Onnx__NodeProto *erf,
                              const Onnx__NodeProto *mul)
{
	const Onnx__NodeProto *div = erf->n_input == 1 ? maker(L, erf->input[0]) : NULL;
	if (!op_is(div, "Div") || div->n_input != 2 || !is_const(L, find(L, div->input[1])))
		return NULL;
	const char *x = div->input[0], *e = erf->n_output ? erf->output[0] : NULL;
	Onnx__GraphProto *g = L->graph;
	for (size_t a = 0; e && a < g->n_node; a++) {
		const Onnx__NodeProto *add = g->node[a];
		if (!op_is(add, "Add") || add->n_input != 2 || add->n_output < 1 ||
		    (strcmp(add->input[0], e) != 0 && strcmp(add->input[1], e) != 0))
			continue;
		for (size_t m = 0; m < g->n_node; m++) {
			const Onnx__NodeProto *mu = mul ? mul : g->node[m];
			if (op_is(mu, "Mul") && mu->n_input == 2 &&
			    ((!strcmp(mu->input[0], add->output[0]) && !strcmp(mu->input[1], x)) ||
			     (!strcmp(mu->input[1], add->output[0]) && !strcmp(mu->input[0], x))))
				return x;
			if (mul)
				break;
		}
	}
	return NULL;
}

/* What a node of an exported GELU saves: torch saves its input x alone
 * (GeluBackward's self), where the ops of the decomposition would save x /
 * c, x and 1 + erf: the Erf saves nothing and the Mul by 1 + erf saves x.
 * False when nd is no such node. */
static bool gelu_saves(const loader *L, const Onnx__NodeProto *nd, sc_onnx_saves *sv)
{
	if (op_is(nd, "Erf") && gelu_input(L, nd, NULL)) {
		*sv = (sc_onnx_saves){0};
		return true;
	}
	for (size_t j = 0; op_is(nd, "Mul") && nd->n_input == 2 && j < 2; j++) {
		const Onnx__NodeProto *add = maker(L, nd->input[j]);
		for (size_t i = 0; op_is(add, "Add") && i < add->n_input; i++) {
			const Onnx__NodeProto *erf = maker(L, add->input[i]);
			if (op_is(erf, "Erf") && gelu_input(L, erf, nd)) {
				*sv = (sc_onnx_saves){.inputs = 1u << (1 - j)};
				return true;
			}
		}
	}
	return false;
}

/* Records what node nd, op `op` of the graph, saves: the ops whose
 * outputs it keeps, and the bytes of model inputs, indices, masks and
 * statistics.  False when out of memory. */
static bool record_saves(loader *L, const Onnx__NodeProto *nd, int op, bool made, saves_acc *a)
{
	int nin = nd->n_input < 32 ? (int)nd->n_input : 32, tin[32];
	bool varying[32];
	for (int j = 0; j < nin; j++) {
		tin[j] = nd->input[j] && *nd->input[j] ? find(L, nd->input[j]) : -1;
		varying[j] = tin[j] >= 0 && !is_const(L, tin[j]);
	}
	sc_onnx_saves sv;
	if (!gelu_saves(L, nd, &sv))
		sv = sc_onnx_saves_of(nd->op_type, nin, varying, made);
	a->off[op] = a->len;
	for (int j = 0; j < nin; j++) {
		if (!(sv.inputs >> j & 1u))
			continue;
		int p = L->tens[tin[j]].producer;
		if (p >= 0 && L->op_of[p] >= 0) {
			if (!saves_push(a, L->op_of[p]))
				return false;
		} else {
			a->own[op] += fmax(0, run_bytes(L, &L->tens[tin[j]].t));
		}
	}
	if (sv.output && !saves_push(a, op))
		return false;
	const sc_onnx_tensor *x = nin > 0 && tin[0] >= 0 ? &L->tens[tin[0]].t : NULL;
	int o = nd->n_output > 0 && nd->output[0] && *nd->output[0] ? find(L, nd->output[0]) : -1;
	int64_t xn = x ? sc_onnx_numel(x) : -1;
	int64_t on = o >= 0 ? sc_onnx_numel(&L->tens[o].t) : -1;
	if (sv.extra == SC_SAVE_INDICES && on > 0)
		a->own[op] += 8.0 * (double)on;
	else if (sv.extra == SC_SAVE_MASK && xn > 0)
		a->own[op] += (double)xn;
	else if (sv.extra == SC_SAVE_STATS && xn > 0 && x->rank > 0 && x->dim[x->rank - 1] > 0)
		a->own[op] += 8.0 * (double)(xn / x->dim[x->rank - 1]);
	return true;
}

/* Gives g what its ops save (sc_acts, with the working peak counted). */
static sc_status attach_saves(loader *L, sc_graph *g, saves_acc *a)
{
	a->off[g->n] = a->len;
	sc_acts *acts = sc_acts_new(g, true, L->err);
	if (!acts)
		return L->err->code;
	if (sc_acts_set_saves(acts, g, a->off, a->list, a->own, L->err) != SC_OK) {
		sc_acts_free(acts);
		return L->err->code;
	}
	g->acts = acts;
	return SC_OK;
}

static sc_graph *build_ops(loader *L, const sc_graph *gr, char **names, const sc_op_size *sizes,
                           const bool *known_cost)
{
	Onnx__GraphProto *g = L->graph;
	const sc_device *d = &L->rep->device;
	sc_builder *b = sc_builder_new();
	sc_graph *out = NULL;
	int *readers = sc_calloc_n((size_t)L->cap + 1, sizeof *readers);
	bool *made_weight = sc_calloc_n((size_t)gr->n + 1, sizeof *made_weight), any_made = false;
	L->rep->op_size = sc_calloc_n((size_t)gr->n + 1, sizeof *L->rep->op_size);
	saves_acc sa = {.off = sc_calloc_n((size_t)gr->n + 1, sizeof *sa.off),
	                .own = sc_calloc_n((size_t)gr->n + 1, sizeof *sa.own)};
	if (!b || !readers || !made_weight || !L->rep->op_size || !sa.off || !sa.own) {
		sc_error_nomem(L->err, "the graph");
		goto done;
	}
	for (int v = 0; v < gr->n; v++) {
		L->op_of[v] = -1;
		if (L->folded[v])
			continue;
		for (size_t j = 0; j < g->node[v]->n_input; j++) {
			int t = g->node[v]->input[j] && *g->node[v]->input[j]
			                ? find(L, g->node[v]->input[j])
			                : -1;
			if (t >= 0)
				readers[t]++;
		}
	}
	for (int k = 0; k < gr->n; k++) {
		int v = gr->topo[k];
		if (L->folded[v])
			continue;
		const Onnx__NodeProto *nd = g->node[v];
		double param = 0, obytes = 0;
		for (size_t j = 0; j < nd->n_input; j++) {
			int t = nd->input[j] && *nd->input[j] ? find(L, nd->input[j]) : -1;
			if (is_const(L, t))
				charge_const(L, t, v, &param, 0);
		}
		for (size_t j = 0; j < nd->n_attribute; j++)
			charge_body_refs(L, v, nd->attribute[j], 0, &param);
		for (size_t j = 0; known_cost[v] && j < nd->n_output; j++) {
			int t = nd->output[j] && *nd->output[j] ? find(L, nd->output[j]) : -1;
			if (t >= 0 && readers[t] > 0)
				obytes += fmax(0, run_bytes(L, &L->tens[t].t));
		}
		sc_op_size size = sizes[v];
		if (size.kind == SC_OPK_VIEW)
			size.flops = size.bytes = 0; /* a runtime makes it a view */
		double work = known_cost[v] ? sc_device_op_time(d, L->rep->precision, &size) +
		                                      L->body_time[v]
		                            : 0;
		param += L->body_param[v];
		L->op_of[v] = sc_builder_add_op(b, names[v], work, param, obytes, NULL, L->err);
		if (L->op_of[v] < 0)
			goto done;
		/* torch.onnx names a parameter it computed (constant folding a
		 * BatchNorm into the Conv before it) "onnx::Conv_N", not after its
		 * module's parameter */
		for (size_t j = 1;
		     nd->op_type && strcmp(nd->op_type, "Conv") == 0 && j < nd->n_input; j++) {
			int t = nd->input[j] && *nd->input[j] ? find(L, nd->input[j]) : -1;
			if (t >= 0 && L->tens[t].init >= 0 &&
			    strncmp(nd->input[j], "onnx::", 6) == 0)
				made_weight[L->op_of[v]] = any_made = true;
		}
		if (!record_saves(L, nd, L->op_of[v], made_weight[L->op_of[v]], &sa)) {
			sc_error_nomem(L->err, "the graph");
			goto done;
		}
		L->rep->op_size[L->op_of[v]] = size;
		if (!known_cost[v])
			L->rep->op_size[L->op_of[v]].flops = -1;
		L->rep->nops = L->op_of[v] + 1;
	}
	for (int u = 0; u < gr->n; u++)
		for (int e = gr->succ_off[u]; e < gr->succ_off[u + 1]; e++) {
			int v = gr->succ[e];
			if (L->op_of[u] >= 0 && L->op_of[v] >= 0 &&
			    sc_builder_add_edge(b, L->op_of[u], L->op_of[v], L->err) != SC_OK)
				goto done;
		}
	sc_builder_set_settings(b, &gr->settings);
	out = sc_builder_finish(b, gr->source, gr->name, L->err);
	if (out && attach_saves(L, out, &sa) != SC_OK) {
		sc_graph_free(out);
		out = NULL;
	}
	if (out && any_made) {
		out->made_weight = made_weight;
		made_weight = NULL;
	}
done:
	sc_builder_free(b);
	free(readers);
	free(made_weight);
	free(sa.off);
	free(sa.list);
	free(sa.own);
	return out;
}

/* ---- measured times: the names a profile may use ---------------------------- */

static int times_producer(void *ctx, const char *name)
{
	const loader *L = ctx;
	int t = find(L, name);
	if (t < 0 || L->tens[t].producer < 0)
		return -1;
	int p = L->tens[t].producer;
	return L->folded[p] ? (L->fold_to[p] >= 0 ? L->op_of[L->fold_to[p]] : -1) : L->op_of[p];
}

static bool times_folded(void *ctx, const char *name, int *to)
{
	const loader *L = ctx;
	for (size_t v = 0; v < L->graph->n_node; v++)
		if (L->folded[v] && strcmp(L->names[v], name) == 0) {
			*to = L->fold_to[v] >= 0 ? L->op_of[L->fold_to[v]] : -1;
			return true;
		}
	return false;
}

static bool times_follows(void *ctx, int v)
{
	const loader *L = ctx;
	/* a normalization fuses as the elementwise ops do (a BatchNormalization
	 * into the Conv before it) */
	return v >= 0 && v < L->rep->nops &&
	       (L->rep->op_size[v].kind == SC_OPK_ELEMENTWISE ||
	        L->rep->op_size[v].kind == SC_OPK_NORM);
}

static const char *times_op_type(void *ctx, int v)
{
	const loader *L = ctx;
	for (size_t i = 0; i < L->graph->n_node; i++)
		if (!L->folded[i] && L->op_of[i] == v)
			return L->graph->node[i]->op_type;
	return NULL;
}

static sc_status report_folded(loader *L)
{
	sc_onnx_report *r = L->rep;
	size_t n = L->graph->n_node;
	for (size_t v = 0; v < n; v++)
		r->nfolded += L->folded[v];
	if (r->nfolded == 0)
		return SC_OK;
	r->folded = sc_calloc_n((size_t)r->nfolded, sizeof *r->folded);
	if (!r->folded)
		return sc_error_nomem(L->err, "ONNX report");
	int at = 0;
	for (size_t v = 0; v < n; v++)
		if (L->folded[v] && !(r->folded[at++] = strdup(L->names[v])))
			return sc_error_nomem(L->err, "ONNX report");
	return SC_OK;
}

/* every op's work from the model, "the h100 model at fp16" */
static sc_status describe_model(loader *L, sc_graph *gr, const char *model)
{
	gr->work_source = malloc((size_t)(gr->n ? gr->n : 1));
	char *origin = malloc(strlen(model) + 64), *brief = strdup(model);
	if (!gr->work_source || !origin || !brief) {
		free(origin);
		free(brief);
		return sc_error_nomem(L->err, "the cost origin");
	}
	memset(gr->work_source, SC_WORK_MODEL, (size_t)gr->n);
	sprintf(origin, "every op from the %s", model);
	gr->cost_origin = origin;
	gr->cost_short = brief;
	return SC_OK;
}

/* the precision: --precision, else what the model's float inputs are, else
 * the device's default */
static sc_status choose_precision(loader *L)
{
	sc_onnx_report *r = L->rep;
	const char *asked = L->opts ? L->opts->precision : NULL;
	if (sc_device_precision(&r->device, asked, &r->precision, L->err) != SC_OK)
		return L->err->code;
	if (asked) {
		snprintf(r->precision_why, sizeof r->precision_why, "--precision %s",
		         sc_precision_name(r->precision));
		return SC_OK;
	}
	for (size_t i = 0; i < L->graph->n_input; i++) {
		const Onnx__ValueInfoProto *vi = L->graph->input[i];
		if (!vi || !vi->type ||
		    vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
		    !vi->type->tensor_type || !vi->type->tensor_type->has_elem_type)
			continue;
		int t = vi->type->tensor_type->elem_type;
		sc_precision p = t == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16    ? SC_PREC_FP16
		                 : t == ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16 ? SC_PREC_BF16
		                                                                : SC_PREC_N;
		if (p != SC_PREC_N && r->device.peak[p] > 0) {
			r->precision = p;
			snprintf(r->precision_why, sizeof r->precision_why,
			         "the model's input '%.80s' is %s", vi->name ? vi->name : "",
			         sc_precision_name(p));
			return SC_OK;
		}
	}
	snprintf(r->precision_why, sizeof r->precision_why, "the %s profile's default: %s",
	         r->device.name, r->device.precision_why);
	return SC_OK;
}

/* The op times of kind k on g from its device profile (sc_load_model_fn):
 * each op's size at the model's precision, with the device's memory and
 * link (bytes per microsecond, as the graph's).  Modelled, not measured:
 * measured times come after (sc_load_kinds). */
static sc_status model_kind(void *ctx, sc_graph *g, const sc_load_kind *k, char *model, size_t size,
                            sc_error *err)
{
	const loader *L = ctx;
	const sc_onnx_report *r = L->rep;
	sc_device d;
	if (sc_device_get(k->profile ? k->profile : k->name, &d, err) != SC_OK) {
		char why[sizeof err->msg];
		snprintf(why, sizeof why, "%s", err->msg);
		return sc_error_set(err, err->code, "%s: the op times of the device '%s': %s",
		                    g->source, k->name, why);
	}
	if (!(d.peak[r->precision] > 0))
		return sc_error_set(err, SC_ERR_INPUT, "%s: the device '%s' has no %s arithmetic",
		                    g->source, k->name, sc_precision_name(r->precision));
	double *w = sc_malloc_n((size_t)(g->n > 0 ? g->n : 1), sizeof *w);
	if (!w)
		return sc_error_nomem(err, "a device's op times");
	for (int v = 0; v < g->n; v++) {
		sc_op_size s = r->op_size[v];
		if (s.kind == SC_OPK_VIEW)
			s.flops = s.bytes = 0; /* a runtime makes it a view */
		w[v] = s.flops < 0 ? 0 : sc_device_op_time(&d, r->precision, &s);
	}
	snprintf(model, size, "the %s model", d.name);
	return sc_graph_add_kind(g, k->name, w, d.memory, d.link_bandwidth / 1e6, err);
}

/* --times and the kinds of opts (sc_load_kinds), by the names a
 * profile may use */
static sc_status apply_times(loader *L, sc_graph *gr, const char *model)
{
	sc_times_names nm = {.ctx = L,
	                     .producer = times_producer,
	                     .folded = times_folded,
	                     .follows = times_follows,
	                     .op_type = times_op_type};
	return sc_load_kinds(gr, L->opts, &nm, model, model_kind, L, L->err);
}

static sc_graph *load(loader *L, const Onnx__ModelProto *m)
{
	if (check_opset(L, m) != SC_OK ||
	    sc_device_get(L->opts ? L->opts->device : NULL, &L->rep->device, L->err) != SC_OK ||
	    choose_precision(L) != SC_OK)
		return NULL;
	if (check_names(L, L->graph, "", 0) != SC_OK || collect_tensors(L) != SC_OK ||
	    count_types(L) != SC_OK)
		return NULL;
	char **names = op_names(L);
	if (!names) {
		sc_error_nomem(L->err, "ONNX op names");
		return NULL;
	}
	L->names = names;
	sc_graph *gr = NULL, *ops = NULL;
	sc_builder *b = sc_builder_new();
	size_t n = L->graph->n_node;
	sc_op_size *sizes = sc_calloc_n(n, sizeof *sizes);
	bool *known_cost = sc_calloc_n(n, sizeof *known_cost);
	L->folded = sc_calloc_n(n, sizeof *L->folded);
	L->fold_to = sc_calloc_n(n, sizeof *L->fold_to);
	L->op_of = sc_calloc_n(n, sizeof *L->op_of);
	L->body_time = sc_calloc_n(n, sizeof *L->body_time);
	L->body_param = sc_calloc_n(n, sizeof *L->body_param);
	if (!b || !sizes || !known_cost || !L->folded || !L->fold_to || !L->op_of ||
	    !L->body_time || !L->body_param) {
		sc_error_nomem(L->err, "the graph");
		goto done;
	}
	/* the full graph, one op per node: its edges, cycles and order */
	for (size_t i = 0; i < n; i++)
		if (sc_builder_add_op(b, names[i], 0, 0, 0, NULL, L->err) < 0)
			goto done;
	if (add_edges(L, b, names) != SC_OK)
		goto done;
	sc_settings set;
	sc_settings_init(&set);
	const sc_device *d = &L->rep->device;
	set.bandwidth = d->link_bandwidth / 1e6; /* bytes per microsecond */
	set.memory = d->memory;
	set.policy = SC_MEM_HARD;
	sc_builder_set_settings(b, &set);
	const char *base = strrchr(L->path, '/');
	gr = sc_builder_finish(b, L->path, base ? base + 1 : L->path, L->err);
	if (!gr)
		goto done;
	if (infer_nodes(L, gr, names, sizes, known_cost) != SC_OK)
		goto done;
	fold_targets(L, gr, L->fold_to);
	if (report_folded(L) != SC_OK)
		goto done;
	ops = build_ops(L, gr, names, sizes, known_cost);
	if (!ops)
		goto done;
	ops->time_unit = "microseconds";
	ops->work_kind = strdup(d->name);
	if (!ops->work_kind) {
		sc_error_nomem(L->err, "the graph");
		sc_graph_free(ops);
		ops = NULL;
		goto done;
	}
	char model[160], the_model[168];
	snprintf(model, sizeof model, "%s model at %s", d->name,
	         sc_precision_name(L->rep->precision));
	snprintf(the_model, sizeof the_model, "the %s", model);
	if (describe_model(L, ops, model) != SC_OK ||
	    (L->opts && apply_times(L, ops, the_model) != SC_OK) ||
	    sc_graph_check_totals(ops, &ops->settings, L->err) != SC_OK) {
		sc_graph_free(ops);
		ops = NULL;
	}
done:
	sc_builder_free(b);
	sc_graph_free(gr);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(sizes);
	free(known_cost);
	return ops;
}

/* Subgraphs (If, Loop and Scan bodies, functions) nest at most this
 * deep: protobuf-c unpacks by recursion, and 3 000 nested Ifs overflowed
 * its stack. */
enum { ONNX_MAX_NESTING = 100 };

/* One varint of p[*at..end); false when it runs off the end or past 64
 * bits. */
static bool wire_varint(const uint8_t *p, size_t end, size_t *at, uint64_t *v)
{
	*v = 0;
	for (int shift = 0; shift < 64 && *at < end; shift += 7) {
		uint8_t b = p[(*at)++];
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

/* How deep graphs nest in the serialised model p[0..len), read from the
 * wire without unpacking (ModelProto.graph 7 and .functions 25,
 * FunctionProto.node 7, GraphProto.node 1, NodeProto.attribute 5,
 * AttributeProto.g 6 and .graphs 11); stops counting past limit.  Malformed
 * data counts what it could read: unpacking then says what is wrong. */
static int wire_nesting(const uint8_t *p, size_t len, int limit)
{
	enum { MODEL, FUNCTION, GRAPH, NODE, ATTR, SKIP };
	/* each level: where its message ends and what it is; a graph level
	 * takes three (graph, node, attribute) */
	enum { MAX_LEVELS = 4 * ONNX_MAX_NESTING + 8 };
	size_t ends[MAX_LEVELS];
	int kinds[MAX_LEVELS];
	int top = 0, graphs = 0, deepest = 0;
	ends[0] = len;
	kinds[0] = MODEL;
	size_t at = 0;
	while (top >= 0) {
		if (at >= ends[top]) {
			graphs -= kinds[top] == GRAPH;
			top--;
			continue;
		}
		uint64_t key, n;
		if (!wire_varint(p, ends[top], &at, &key))
			return deepest;
		unsigned field = (unsigned)(key >> 3), type = (unsigned)(key & 7);
		if (type == 0) {
			if (!wire_varint(p, ends[top], &at, &n))
				return deepest;
			continue;
		}
		if (type == 1 || type == 5) {
			at += type == 1 ? 8 : 4;
			continue;
		}
		if (type != 2 || !wire_varint(p, ends[top], &at, &n) || n > ends[top] - at)
			return deepest;
		int k = kinds[top];
		int into = k == MODEL && field == 7                                      ? GRAPH
		           : k == MODEL && field == 25                                   ? FUNCTION
		           : (k == FUNCTION && field == 7) || (k == GRAPH && field == 1) ? NODE
		           : k == NODE && field == 5                                     ? ATTR
		           : k == ATTR && (field == 6 || field == 11)                    ? GRAPH
		                                                                         : SKIP;
		if (into == SKIP) {
			at += n;
			continue;
		}
		if (into == GRAPH && ++graphs > deepest)
			deepest = graphs;
		if (deepest > limit || top + 1 >= MAX_LEVELS)
			return limit + 1;
		ends[++top] = at + n;
		kinds[top] = into;
	}
	return deepest;
}

/* The model in data[0..len) (borrowed), the file path names. */
static sc_graph *load_model(const char *path, const char *data, size_t len,
                            const sc_load_opts *opts, sc_error *err)
{
	if (len == 0) {
		sc_error_set(err, SC_ERR_INPUT, "%s: the file is empty", path);
		return NULL;
	}
	if (wire_nesting((const uint8_t *)data, len, ONNX_MAX_NESTING) > ONNX_MAX_NESTING) {
		sc_error_set(
		        err, SC_ERR_INPUT,
		        "%s: subgraphs (If, Loop, Scan bodies) nest more than %d deep; stagecut "
		        "reads models nested up to %d",
		        path, ONNX_MAX_NESTING, ONNX_MAX_NESTING);
		return NULL;
	}
	Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, len, (const uint8_t *)data);
	if (!m) {
		sc_error_set(err, SC_ERR_INPUT,
		             "%s: not an ONNX model: the protobuf is truncated or malformed", path);
		return NULL;
	}
	if (!m->graph || m->graph->n_node == 0) {
		onnx__model_proto__free_unpacked(m, NULL);
		sc_error_set(err, SC_ERR_INPUT,
		             "%s: not an ONNX model: it has no graph, or a graph without nodes",
		             path);
		return NULL;
	}
	sc_onnx_report own = {0};
	sc_onnx_report *rep = opts && opts->report ? opts->report : &own;
	sc_onnx_report_fini(rep);
	loader L = {.path = path, .opts = opts, .graph = m->graph, .rep = rep, .err = err};
	sc_graph *g = load(&L, m);
	if (g)
		rep->filled = true;
	else
		sc_onnx_report_fini(rep);
	sc_onnx_report_fini(&own);
	free(L.tens);
	free(L.by_name);
	free(L.folded);
	free(L.fold_to);
	free(L.op_of);
	free(L.body_time);
	free(L.body_param);
	onnx__model_proto__free_unpacked(m, NULL);
	return g;
}

int sc_onnx_report_kind_count(const sc_onnx_report *r, sc_op_kind k)
{
	int n = 0;
	for (int v = 0; v < r->nops; v++)
		n += r->op_size[v].kind == k;
	return n;
}

void sc_onnx_report_fini(sc_onnx_report *r)
{
	for (int i = 0; i < r->ntypes; i++)
		free(r->type_name[i]);
	for (int i = 0; i < r->nunknown; i++)
		free(r->unknown[i]);
	for (int i = 0; i < r->nfolded; i++)
		free(r->folded[i]);
	free(r->folded);
	free(r->op_size);
	for (int i = 0; i < r->ndims; i++) {
		free(r->dim_name[i]);
		free(r->dim_from ? r->dim_from[i] : NULL);
	}
	for (int i = 0; i < r->nunresolved; i++) {
		free(r->unresolved_dim[i]);
		free(r->unresolved_op[i]);
	}
	free(r->unresolved_dim);
	free(r->unresolved_op);
	for (int i = 0; i < r->nonce; i++)
		free(r->once[i]);
	free(r->once);
	free(r->dim_from);
	free(r->type_name);
	free(r->type_count);
	free(r->unknown);
	free(r->dim_name);
	free(r->dim_value);
	free(r->dim_given);
	memset(r, 0, sizeof *r);
}

/* A model as torch.onnx and onnx.save write it begins with its first
 * field, ir_version (field 1, a varint: the byte 0x08); producer_name and
 * producer_version (0x12, 0x1a) may come first in other writers.  No text
 * format begins with these control bytes. */
static int probe(const char *path, const char *head, size_t len)
{
	if (len > 0 && (head[0] == 0x08 || head[0] == 0x12 || head[0] == 0x1a))
		return SC_PROBE_CONTENT;
	return sc_has_extension(path, ".onnx") ? SC_PROBE_EXTENSION : SC_PROBE_NO;
}

const sc_loader sc_loader_onnx = {
        .name = "onnx", .text = false, .probe = probe, .load = load_model};
