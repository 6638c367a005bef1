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

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"
#include "onnx.h"
#include "onnx_shape.h"

/* a subgraph nested deeper than this is not searched for outer references */
#define ONNX_MAX_DEPTH 64

typedef struct tensor {
	const char *name;
	int producer;   /* node index, -1 for a graph input or initializer */
	int init;       /* initializer index, or -1 */
	int consumers;  /* nodes that read it */
	int charged_to; /* the node its initializer bytes are charged to, or -1 */
	sc_onnx_tensor t;
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

/* the value of symbolic dim name: --dim, else 1; recorded in the report */
static int64_t dim_param(loader *L, const char *name)
{
	sc_onnx_report *r = L->rep;
	for (int i = 0; i < r->ndims; i++)
		if (strcmp(r->dim_name[i], name) == 0)
			return r->dim_value[i];
	long long v = 1;
	bool given = false;
	for (int i = 0; L->opts && i < L->opts->ndims; i++)
		if (strcmp(L->opts->dim_name[i], name) == 0)
			v = L->opts->dim_value[i], given = true;
	char **nn = realloc(r->dim_name, (size_t)(r->ndims + 1) * sizeof *nn);
	if (nn)
		r->dim_name = nn;
	long long *nv = realloc(r->dim_value, (size_t)(r->ndims + 1) * sizeof *nv);
	if (nv)
		r->dim_value = nv;
	bool *ng = realloc(r->dim_given, (size_t)(r->ndims + 1) * sizeof *ng);
	if (ng)
		r->dim_given = ng;
	char *copy = strdup(name);
	if (nn && nv && ng && copy) {
		r->dim_name[r->ndims] = copy;
		r->dim_value[r->ndims] = v;
		r->dim_given[r->ndims++] = given;
	} else {
		free(copy);
	}
	return v;
}

/* a shape from value_info or a graph input/output */
static void apply_value_info(loader *L, const Onnx__ValueInfoProto *vi)
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
	for (size_t d = 0; d < tt->shape->n_dim; d++) {
		const Onnx__TensorShapeProto__Dimension *dim = tt->shape->dim[d];
		int64_t v = -1;
		if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
			v = dim->dim_value;
		else if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
		         dim->dim_param && *dim->dim_param)
			v = dim_param(L, dim->dim_param);
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

static char *read_all(const char *path, size_t *len, sc_error *err)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		sc_error_set(err, SC_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
		return NULL;
	}
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	while (buf) {
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (n < cap)
			break;
		char *nb = cap < SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
		if (!nb) {
			free(buf);
			buf = NULL;
		}
		buf = nb, cap *= 2;
	}
	bool bad = ferror(f);
	fclose(f);
	if (!buf) {
		sc_error_nomem(err, "the ONNX file");
		return NULL;
	}
	if (bad) {
		free(buf);
		sc_error_set(err, SC_ERR_IO, "%s: cannot read (is it a directory?)", path);
		return NULL;
	}
	*len = n;
	return buf;
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
	for (size_t i = 0; i < g->n_value_info; i++)
		apply_value_info(L, g->value_info[i]);
	for (size_t i = 0; i < g->n_input; i++)
		apply_value_info(L, g->input[i]);
	for (size_t i = 0; i < g->n_output; i++)
		apply_value_info(L, g->output[i]);
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

/* shapes, FLOPs and the roofline costs, in topological order */
static sc_status cost_ops(loader *L, sc_graph *gr, char **names)
{
	Onnx__GraphProto *g = L->graph;
	const sc_device *d = &L->rep->device;
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
		bool ok = nd->op_type && !strcmp(nd->op_type, "Constant")
		                  ? nout >= 1 && constant(nd, out[0])
		                  : nd->n_input <= 256 && nd->n_output <= 256 &&
		                            sc_onnx_infer(nd, in, nin, out, nout, &flops);
		double bytes = 0, param = 0, obytes = 0;
		for (int j = 0; ok && j < nin; j++) {
			if (!in[j])
				continue;
			double b = sc_onnx_bytes(in[j]);
			ok = b >= 0;
			bytes += b;
			tensor *t = &L->tens[tin[j]];
			if (ok && t->init >= 0 && t->charged_to < 0) {
				t->charged_to = v;
				param += b;
			}
		}
		for (int j = 0; ok && j < nout; j++) {
			int t = nd->output[j] && *nd->output[j] ? find(L, nd->output[j]) : -1;
			double b = sc_onnx_bytes(out[j]);
			if (t < 0 || (b < 0 && L->tens[t].consumers == 0))
				continue; /* an unused output of unknown size costs nothing */
			ok = b >= 0;
			bytes += b;
			if (L->tens[t].consumers > 0)
				obytes += b;
		}
		if (!ok) {
			char **u = realloc(L->rep->unknown,
			                   (size_t)(L->rep->nunknown + 1) * sizeof *u);
			if (!u)
				return sc_error_nomem(L->err, "ONNX report");
			L->rep->unknown = u;
			if (!(u[L->rep->nunknown] = strdup(names[v])))
				return sc_error_nomem(L->err, "ONNX report");
			L->rep->nunknown++;
			gr->work[v] = gr->param[v] = gr->out[v] = 0;
			continue;
		}
		L->rep->flops += flops;
		gr->work[v] = fmax(flops / d->flops, bytes / d->mem_bandwidth) * 1e6;
		gr->param[v] = param;
		gr->out[v] = obytes;
	}
	/* an initializer read only by ops of unknown cost is still memory:
	 * charged to its first consumer in topological order */
	for (int k = 0; k < gr->n; k++) {
		int v = gr->topo[k];
		const Onnx__NodeProto *nd = g->node[v];
		for (size_t j = 0; j < nd->n_input; j++) {
			int t = nd->input[j] && *nd->input[j] ? find(L, nd->input[j]) : -1;
			if (t >= 0 && L->tens[t].init >= 0 && L->tens[t].charged_to < 0) {
				L->tens[t].charged_to = v;
				gr->param[v] += fmax(0, sc_onnx_bytes(&L->tens[t].t));
			}
		}
	}
	return SC_OK;
}

static sc_graph *load(loader *L, const Onnx__ModelProto *m)
{
	if (check_opset(L, m) != SC_OK ||
	    sc_device_get(L->opts ? L->opts->device : NULL, &L->rep->device, L->err) != SC_OK)
		return NULL;
	if (collect_tensors(L) != SC_OK || count_types(L) != SC_OK)
		return NULL;
	char **names = op_names(L);
	if (!names) {
		sc_error_nomem(L->err, "ONNX op names");
		return NULL;
	}
	sc_graph *gr = NULL;
	sc_builder *b = sc_builder_new();
	size_t n = L->graph->n_node;
	if (!b) {
		sc_error_nomem(L->err, "the graph");
		goto done;
	}
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
	if (gr)
		gr->time_unit = "microseconds";
	if (gr && (cost_ops(L, gr, names) != SC_OK ||
	           sc_graph_check_totals(gr, &gr->settings, L->err) != SC_OK)) {
		sc_graph_free(gr);
		gr = NULL;
	}
done:
	sc_builder_free(b);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return gr;
}

sc_graph *sc_load_onnx(const char *path, const sc_load_opts *opts, sc_error *err)
{
	size_t len;
	char *data = read_all(path, &len, err);
	if (!data)
		return NULL;
	if (len == 0) {
		free(data);
		sc_error_set(err, SC_ERR_INPUT, "%s: the file is empty", path);
		return NULL;
	}
	Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, len, (const uint8_t *)data);
	free(data);
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
	onnx__model_proto__free_unpacked(m, NULL);
	return g;
}

void sc_onnx_report_fini(sc_onnx_report *r)
{
	for (int i = 0; i < r->ntypes; i++)
		free(r->type_name[i]);
	for (int i = 0; i < r->nunknown; i++)
		free(r->unknown[i]);
	for (int i = 0; i < r->ndims; i++)
		free(r->dim_name[i]);
	free(r->type_name);
	free(r->type_count);
	free(r->unknown);
	free(r->dim_name);
	free(r->dim_value);
	free(r->dim_given);
	memset(r, 0, sizeof *r);
}

static bool probe(const char *path, const char *head, size_t len)
{
	(void)head, (void)len;
	return sc_has_extension(path, ".onnx");
}

static sc_graph *load_default(const char *path, sc_error *err)
{
	return sc_load_onnx(path, NULL, err);
}

const sc_loader sc_loader_onnx = {.name = "onnx", .probe = probe, .load = load_default};
