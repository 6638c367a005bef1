/*
 * onnx_shape.c - shape inference, constant values and FLOP counts for the
 * ONNX op types the cost model knows (stagecut(1), COST MODEL).
 *
 * One table, ONNX_OPS at the end, lists every op type with its handler and,
 * for the simple families, the FLOPs per output element and the function
 * computing one element's value.  sc_onnx_infer finds a node's row by binary
 * search (the table is sorted by strcmp); sc_onnx_supported_ops exports the
 * names, and the unit tests check the manual's list against them.
 *
 * Each handler reads the input tensors and the node's attributes, fills the
 * outputs and the FLOPs, and returns false when it cannot know them (an input
 * shape unknown, a shape input not constant, dims that do not agree): the
 * loader then marks the op's cost unknown rather than guessing.  Values flow
 * too: whenever an output has at most SC_ONNX_MAX_VALUES elements and the
 * inputs it depends on have theirs, the handler computes them (row-major,
 * as doubles, made elements of the output's type: integers truncate toward
 * zero, booleans are 0 or 1), so that the shape arithmetic exporters emit
 * before a Reshape, Pad, Range or Expand resolves.  A FLOP is one multiply or
 * one add: a multiply-accumulate is 2.
 *
 * Longer than 600 lines: one small handler per op type, all reading the
 * same attribute and index helpers; split by family they would share a
 * header for nothing else.
 */
#include "onnx_shape.h"
#include "onnx_einsum.h"
#include "onnx_rnn.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DT(t) ONNX__TENSOR_PROTO__DATA_TYPE__##t
#define MAXV SC_ONNX_MAX_VALUES
#define MAXR SC_ONNX_MAX_RANK
/* TensorProto's 4-bit types (IR 10), newer than the onnx.proto Debian ships */
enum { DT_UINT4 = 21, DT_INT4 = 22 };

/* ---- attributes ------------------------------------------------------------ */

static int64_t attr_int(const Onnx__NodeProto *node, const char *name, int64_t def)
{
	const Onnx__AttributeProto *a = sc_onnx_attr(node, name);
	return a && a->has_i ? a->i : def;
}

/* the ints of attribute name, or NULL (and *n 0) when absent */
static const int64_t *attr_ints(const Onnx__NodeProto *node, const char *name, int *n)
{
	const Onnx__AttributeProto *a = sc_onnx_attr(node, name);
	*n = a ? (int)a->n_ints : 0;
	return a && a->n_ints ? a->ints : NULL;
}

/* the ints of attribute name copied to v; false when it is absent or has
 * more than SC_ONNX_MAX_VALUES */
static bool attr_list(const Onnx__NodeProto *node, const char *name, int64_t *v, int *n)
{
	const Onnx__AttributeProto *a = sc_onnx_attr(node, name);
	if (!a || a->n_ints > MAXV)
		return false;
	*n = (int)a->n_ints;
	if (a->n_ints)
		memcpy(v, a->ints, a->n_ints * sizeof *v);
	return true;
}

static bool attr_is(const Onnx__NodeProto *node, const char *name, const char *value)
{
	const Onnx__AttributeProto *a = sc_onnx_attr(node, name);
	return a && a->has_s && a->s.len == strlen(value) &&
	       memcmp(a->s.data, value, a->s.len) == 0;
}

/* ---- shapes ------------------------------------------------------------------- */

static bool known(const sc_onnx_tensor *t)
{
	return t && t->known;
}

static void set_shape(sc_onnx_tensor *t, int rank, const int64_t *dim, int dtype)
{
	if (t->known)
		return; /* value_info said so */
	t->known = true;
	t->rank = rank;
	for (int i = 0; i < rank; i++)
		t->dim[i] = dim[i];
	t->dtype = dtype;
	t->elem = sc_onnx_dtype_size(dtype);
}

static bool norm_axis(int64_t axis, int rank, int *out)
{
	if (axis < 0)
		axis += rank;
	if (axis < 0 || axis >= rank)
		return false;
	*out = (int)axis;
	return true;
}

static int64_t clamp(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* numpy broadcasting of dims a and b into dim (which may be a or b) */
static bool broadcast(int ra, const int64_t *a, int rb, const int64_t *b, int *rank, int64_t *dim)
{
	int r = ra > rb ? ra : rb;
	int64_t d[MAXR];
	for (int i = 0; i < r; i++) {
		int ia = i - (r - ra), ib = i - (r - rb);
		int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
		if (da != db && da != 1 && db != 1)
			return false;
		d[i] = da == 1 ? db : da;
	}
	*rank = r;
	memcpy(dim, d, (size_t)r * sizeof *d);
	return true;
}

/* the product of dim[lo..hi) (of a tensor whose numel is known) */
static int64_t span(const int64_t *dim, int lo, int hi)
{
	int64_t n = 1;
	for (int i = lo; i < hi; i++)
		n *= dim[i];
	return n;
}

static double numel_d(const sc_onnx_tensor *t)
{
	return (double)sc_onnx_numel(t);
}

/* ---- values ------------------------------------------------------------------- */

static bool is_integer(int dtype)
{
	switch (dtype) {
	case DT(UINT8):
	case DT(INT8):
	case DT(UINT16):
	case DT(INT16):
	case DT(INT32):
	case DT(INT64):
	case DT(UINT32):
	case DT(UINT64):
	case DT_UINT4:
	case DT_INT4: return true;
	default: return false;
	}
}

/* v as an element of dtype: an integer truncates toward zero and wraps as a
 * C cast does, a boolean is 0 or 1; false when there is no such element (a
 * NaN or an infinity made an integer) */
static bool to_dtype(int dtype, double v, double *out)
{
	if (dtype == DT(BOOL)) {
		*out = v != 0;
		return true;
	}
	if (!is_integer(dtype)) {
		*out = v;
		return true;
	}
	if (!(fabs(v) < 9.2e18))
		return false;
	int64_t i = (int64_t)v;
	switch (dtype) {
	case DT(UINT8): *out = (uint8_t)i; break;
	case DT(INT8): *out = (int8_t)(uint8_t)i; break;
	case DT(UINT16): *out = (uint16_t)i; break;
	case DT(INT16): *out = (int16_t)(uint16_t)i; break;
	case DT(INT32): *out = (int32_t)(uint32_t)i; break;
	case DT(UINT32): *out = (uint32_t)i; break;
	case DT(UINT64): *out = (double)(uint64_t)i; break;
	case DT_UINT4: *out = (double)(i & 15); break;
	case DT_INT4: *out = (double)(((i & 15) ^ 8) - 8); break;
	default: *out = (double)i; break;
	}
	return true;
}

/* whether all of t's values are there, one per element */
static bool has_values(const sc_onnx_tensor *t)
{
	return known(t) && t->nvalues >= 0 && t->nvalues == sc_onnx_numel(t);
}

/* v[0..n) as t's values, made elements of t's type; nothing when t's shape
 * does not hold n elements or a value has no such element */
static void set_values(sc_onnx_tensor *t, const double *v, int64_t n)
{
	double w[MAXV];
	if (!t->known || n < 0 || n > MAXV || sc_onnx_numel(t) != n)
		return;
	for (int64_t i = 0; i < n; i++)
		if (!to_dtype(t->dtype, v[i], &w[i]))
			return;
	memcpy(t->value, w, (size_t)n * sizeof *w);
	t->nvalues = (int)n;
}

static void copy_values(sc_onnx_tensor *t, const sc_onnx_tensor *src)
{
	if (has_values(src))
		set_values(t, src->value, src->nvalues);
}

/* v as an int64, saturating (an end of INT64_MAX is 2^63 as a double) */
static int64_t to_int(double v)
{
	if (v >= 9.2233720368547758e18)
		return INT64_MAX;
	if (v <= -9.2233720368547758e18)
		return INT64_MIN;
	return (int64_t)v;
}

/* the integer values of an input (a constant shape, axes, starts...) */
static bool ints_of(const sc_onnx_tensor *t, int64_t *v, int *n)
{
	if (!t || t->nvalues < 0)
		return false;
	for (int i = 0; i < t->nvalues; i++) {
		if (isnan(t->value[i]))
			return false;
		v[i] = to_int(t->value[i]);
	}
	*n = t->nvalues;
	return true;
}

/* the value of a scalar input (or of a one-element tensor) */
static bool scalar_of(const sc_onnx_tensor *t, double *v)
{
	if (!t || t->nvalues != 1 || isnan(t->value[0]))
		return false;
	*v = t->value[0];
	return true;
}

/* the row-major multi-index of flat index i in dims dim[0..rank) */
static void unravel(int64_t i, int rank, const int64_t *dim, int64_t *idx)
{
	for (int k = rank - 1; k >= 0; k--) {
		idx[k] = dim[k] ? i % dim[k] : 0;
		i = dim[k] ? i / dim[k] : 0;
	}
}

static int64_t ravel(int rank, const int64_t *dim, const int64_t *idx)
{
	int64_t i = 0;
	for (int k = 0; k < rank; k++)
		i = i * dim[k] + idx[k];
	return i;
}

/* the flat index in t of the element at idx of the rank-r shape t
 * broadcasts to */
static int64_t bcast_at(const sc_onnx_tensor *t, int r, const int64_t *idx)
{
	int64_t at = 0;
	for (int j = 0; j < t->rank; j++)
		at = at * t->dim[j] + (t->dim[j] == 1 ? 0 : idx[j + r - t->rank]);
	return at;
}

/* an index read from a tensor's values, negative counting from the end of
 * an axis of d; false when it falls outside */
static bool index_in(double value, int64_t d, int64_t *j)
{
	int64_t i = to_int(value);
	if (i < 0)
		i += d;
	if (i < 0 || i >= d)
		return false;
	*j = i;
	return true;
}

/* ---- decoding a TensorProto (Constant, ConstantOfShape) ---------------------- */

static bool raw_values(const Onnx__TensorProto *p, int dtype, int64_t n, double *v)
{
	int elem = sc_onnx_dtype_size(dtype);
	if (!p->has_raw_data || !elem || p->raw_data.len != (size_t)n * (size_t)elem)
		return false;
	for (int64_t i = 0; i < n; i++) {
		const uint8_t *b = p->raw_data.data + (size_t)i * (size_t)elem;
		uint64_t u = 0;
		for (int k = elem - 1; k >= 0; k--) /* little-endian */
			u = u << 8 | b[k];
		uint32_t w = (uint32_t)u;
		float f;
		double d;
		switch (dtype) {
		case DT(FLOAT):
			memcpy(&f, &w, sizeof f);
			v[i] = f;
			break;
		case DT(DOUBLE):
			memcpy(&d, &u, sizeof d);
			v[i] = d;
			break;
		case DT(INT64): v[i] = (double)(int64_t)u; break;
		case DT(INT32): v[i] = (int32_t)w; break;
		case DT(INT16): v[i] = (int16_t)(uint16_t)u; break;
		case DT(INT8): v[i] = (int8_t)(uint8_t)u; break;
		case DT(UINT64):
		case DT(UINT32):
		case DT(UINT16):
		case DT(UINT8):
		case DT(BOOL): v[i] = (double)u; break;
		default: return false; /* the 16- and 8-bit floats are not decoded */
		}
	}
	return true;
}

/* the values of p's n elements of type dtype, from its typed field or its
 * raw data */
static bool proto_values(const Onnx__TensorProto *p, int dtype, int64_t n, double *v)
{
	size_t want = (size_t)n;
	if (want == 0)
		return true;
	if (dtype == DT(FLOAT) && p->n_float_data == want) {
		for (size_t i = 0; i < want; i++)
			v[i] = p->float_data[i];
	} else if (dtype == DT(DOUBLE) && p->n_double_data == want) {
		for (size_t i = 0; i < want; i++)
			v[i] = p->double_data[i];
	} else if (dtype == DT(INT64) && p->n_int64_data == want) {
		for (size_t i = 0; i < want; i++)
			v[i] = (double)p->int64_data[i];
	} else if ((dtype == DT(UINT32) || dtype == DT(UINT64)) && p->n_uint64_data == want) {
		for (size_t i = 0; i < want; i++)
			v[i] = (double)p->uint64_data[i];
	} else if ((dtype == DT(INT32) || dtype == DT(INT16) || dtype == DT(INT8) ||
	            dtype == DT(UINT16) || dtype == DT(UINT8) || dtype == DT(BOOL)) &&
	           p->n_int32_data == want) {
		for (size_t i = 0; i < want; i++)
			v[i] = p->int32_data[i];
	} else {
		return raw_values(p, dtype, n, v);
	}
	return true;
}

/* dims, type and (for at most SC_ONNX_MAX_VALUES elements) values of p into
 * the fresh tensor t; false when p has a negative dim or too many */
static bool decode_tensor(const Onnx__TensorProto *p, sc_onnx_tensor *t)
{
	memset(t, 0, sizeof *t);
	t->nvalues = -1;
	if (p->n_dims > MAXR)
		return false;
	for (size_t d = 0; d < p->n_dims; d++) {
		if (p->dims[d] < 0)
			return false;
		t->dim[d] = p->dims[d];
	}
	t->known = true;
	t->rank = (int)p->n_dims;
	t->dtype = p->has_data_type ? p->data_type : 0;
	t->elem = sc_onnx_dtype_size(t->dtype);
	int64_t n = sc_onnx_numel(t);
	if (n >= 0 && n <= MAXV && proto_values(p, t->dtype, n, t->value))
		t->nvalues = (int)n;
	return true;
}

/* ---- the handlers' context ----------------------------------------------------- */

typedef struct op_rule op_rule;

typedef struct ctx {
	const Onnx__NodeProto *node;
	const op_rule *rule;
	const sc_onnx_tensor *const *in;
	int nin;
	sc_onnx_tensor *const *out;
	int nout;
	double flops;
} ctx;

/* One row of ONNX_OPS: an op type and how it is inferred. */
struct op_rule {
	const char *type;
	bool (*infer)(ctx *c);
	double flops;                                       /* per output element */
	double (*unary)(double x);                          /* one element's value */
	double (*binary)(const ctx *c, double x, double y); /* of two elements */
	bool to_bool;                                       /* the output is BOOL */
	bool delegated; /* another file infers it: its answer stands as it is */
};

static const sc_onnx_tensor *IN(const ctx *c, int i)
{
	return i < c->nin ? c->in[i] : NULL;
}

/* output i, or NULL when the node has fewer */
static sc_onnx_tensor *OUT(const ctx *c, int i)
{
	return i < c->nout ? c->out[i] : NULL;
}

/* ---- convolutions, matrix products, pools ------------------------------------ */

/* Conv/pool output size along one spatial axis */
static bool window_out(const Onnx__NodeProto *node, int64_t in, int64_t k, int i, int nsp,
                       bool ceil_mode, int64_t *out)
{
	int n;
	const int64_t *strides = attr_ints(node, "strides", &n);
	int64_t s = strides && i < n ? strides[i] : 1;
	const int64_t *dil = attr_ints(node, "dilations", &n);
	int64_t d = dil && i < n ? dil[i] : 1;
	if (s <= 0 || d <= 0 || k <= 0)
		return false;
	if (attr_is(node, "auto_pad", "SAME_UPPER") || attr_is(node, "auto_pad", "SAME_LOWER")) {
		*out = (in + s - 1) / s;
		return true;
	}
	int64_t pb = 0, pe = 0;
	const int64_t *pads = attr_ints(node, "pads", &n);
	if (pads && !attr_is(node, "auto_pad", "VALID") && n == 2 * nsp)
		pb = pads[i], pe = pads[i + nsp];
	int64_t room = in + pb + pe - d * (k - 1) - 1;
	if (room < 0)
		return false;
	*out = (ceil_mode ? (room + s - 1) / s : room / s) + 1;
	/* the pools' spec: "Sliding windows that would start in the right
	 * padded region are ignored" (a ceil_mode window can) */
	if (ceil_mode && (*out - 1) * s >= in + pb)
		(*out)--;
	return true;
}

static bool conv_any(ctx *c, bool transpose)
{
	const sc_onnx_tensor *x = IN(c, 0), *w = IN(c, 1);
	if (!known(x) || !known(w) || x->rank < 3 || w->rank != x->rank)
		return false;
	int nsp = x->rank - 2;
	int64_t group = attr_int(c->node, "group", 1), dim[MAXR];
	if (group <= 0)
		return false;
	int64_t cin = x->dim[1], cout = transpose ? w->dim[1] * group : w->dim[0];
	dim[0] = x->dim[0];
	dim[1] = cout;
	double kprod = 1, in_sp = 1, out_sp = 1;
	for (int i = 0; i < nsp; i++) {
		int64_t k = w->dim[2 + i], in = x->dim[2 + i];
		kprod *= (double)k;
		in_sp *= (double)in;
		if (transpose) {
			int n;
			const int64_t *os = attr_ints(c->node, "output_shape", &n);
			bool given = os && n == nsp;
			const int64_t *st = attr_ints(c->node, "strides", &n);
			int64_t s = st && i < n ? st[i] : 1;
			const int64_t *op = attr_ints(c->node, "output_padding", &n);
			int64_t opad = op && i < n ? op[i] : 0;
			const int64_t *dl = attr_ints(c->node, "dilations", &n);
			int64_t d = dl && i < n ? dl[i] : 1;
			const int64_t *pads = attr_ints(c->node, "pads", &n);
			int64_t pb = pads && n == 2 * nsp ? pads[i] : 0,
			        pe = pads && n == 2 * nsp ? pads[i + nsp] : 0;
			if (given)
				dim[2 + i] = os[i];
			else if (attr_is(c->node, "auto_pad", "SAME_UPPER") ||
			         attr_is(c->node, "auto_pad", "SAME_LOWER"))
				dim[2 + i] = in * s;
			else
				dim[2 + i] = s * (in - 1) + opad + (k - 1) * d + 1 - pb - pe;
			if (dim[2 + i] <= 0)
				return false;
		} else if (!window_out(c->node, in, k, i, nsp, false, &dim[2 + i])) {
			return false;
		}
		out_sp *= (double)dim[2 + i];
	}
	double n = (double)x->dim[0];
	if (transpose)
		c->flops = 2 * n * (double)cin * in_sp * (double)(cout / group) * kprod;
	else
		c->flops = 2 * n * (double)cout * out_sp * (double)(cin / group) * kprod;
	if (IN(c, 2))
		c->flops += n * (double)cout * out_sp;
	set_shape(c->out[0], x->rank, dim, x->dtype);
	return true;
}

static bool conv(ctx *c)
{
	return conv_any(c, false);
}

static bool conv_transpose(ctx *c)
{
	return conv_any(c, true);
}

static bool matmul(ctx *c)
{
	const sc_onnx_tensor *a = IN(c, 0), *b = IN(c, 1);
	if (!known(a) || !known(b) || a->rank < 1 || b->rank < 1)
		return false;
	sc_onnx_tensor ab = *a, bb = *b;
	/* numpy: a 1-D operand gains a dim of 1, removed again from the result */
	if (a->rank == 1)
		ab.rank = 2, ab.dim[0] = 1, ab.dim[1] = a->dim[0];
	if (b->rank == 1)
		bb.rank = 2, bb.dim[0] = b->dim[0], bb.dim[1] = 1;
	int64_t m = ab.dim[ab.rank - 2], k = ab.dim[ab.rank - 1], n = bb.dim[bb.rank - 1];
	if (bb.dim[bb.rank - 2] != k)
		return false;
	int rank;
	int64_t dim[MAXR];
	if (!broadcast(ab.rank - 2, ab.dim, bb.rank - 2, bb.dim, &rank, dim) || rank + 2 > MAXR)
		return false;
	double batch = 1;
	for (int i = 0; i < rank; i++)
		batch *= (double)dim[i];
	if (a->rank > 1)
		dim[rank++] = m;
	if (b->rank > 1)
		dim[rank++] = n;
	c->flops = 2 * batch * (double)m * (double)n * (double)k;
	set_shape(c->out[0], rank, dim, a->dtype);
	return true;
}

static bool gemm(ctx *c)
{
	const sc_onnx_tensor *a = IN(c, 0), *b = IN(c, 1);
	if (!known(a) || !known(b) || a->rank != 2 || b->rank != 2)
		return false;
	bool ta = attr_int(c->node, "transA", 0), tb = attr_int(c->node, "transB", 0);
	int64_t m = ta ? a->dim[1] : a->dim[0], k = ta ? a->dim[0] : a->dim[1];
	int64_t kb = tb ? b->dim[1] : b->dim[0], n = tb ? b->dim[0] : b->dim[1];
	if (k != kb)
		return false;
	int64_t dim[2] = {m, n};
	c->flops = 2.0 * (double)m * (double)n * (double)k;
	if (IN(c, 2))
		c->flops += (double)m * (double)n;
	set_shape(c->out[0], 2, dim, a->dtype);
	return true;
}

static bool pool_any(ctx *c, bool global)
{
	const sc_onnx_tensor *x = IN(c, 0);
	if (!known(x) || x->rank < 3)
		return false;
	int nsp = x->rank - 2, nk;
	int64_t dim[MAXR];
	dim[0] = x->dim[0], dim[1] = x->dim[1];
	const int64_t *ks = attr_ints(c->node, "kernel_shape", &nk);
	if (!global && (!ks || nk != nsp))
		return false;
	double kprod = 1;
	for (int i = 0; i < nsp; i++) {
		if (global) {
			dim[2 + i] = 1;
			kprod *= (double)x->dim[2 + i];
		} else {
			kprod *= (double)ks[i];
			if (!window_out(c->node, x->dim[2 + i], ks[i], i, nsp,
			                attr_int(c->node, "ceil_mode", 0) != 0, &dim[2 + i]))
				return false;
		}
	}
	set_shape(c->out[0], x->rank, dim, x->dtype);
	c->flops = numel_d(c->out[0]) * kprod;
	if (OUT(c, 1)) /* MaxPool's indices */
		set_shape(c->out[1], x->rank, dim, DT(INT64));
	return true;
}

static bool pool(ctx *c)
{
	return pool_any(c, false);
}

static bool global_pool(ctx *c)
{
	return pool_any(c, true);
}

/* ---- elementwise ops ------------------------------------------------------------ */

/* Relu, Exp, Not...: the input's shape, rule->flops per element, values by
 * rule->unary */
static bool unary(ctx *c)
{
	const sc_onnx_tensor *x = IN(c, 0);
	if (!known(x))
		return false;
	set_shape(c->out[0], x->rank, x->dim, c->rule->to_bool ? DT(BOOL) : x->dtype);
	c->flops = c->rule->flops * numel_d(x);
	if (c->rule->unary && has_values(x)) {
		double v[MAXV];
		for (int i = 0; i < x->nvalues; i++)
			v[i] = c->rule->unary(x->value[i]);
		set_values(c->out[0], v, x->nvalues);
	}
	return true;
}

/* the broadcast shape of the present inputs, and how many there are; the
 * first input must be there */
static bool broadcast_inputs(const ctx *c, int *rank, int64_t *dim, int *present)
{
	*present = 0;
	for (int i = 0; i < c->nin; i++) {
		const sc_onnx_tensor *t = c->in[i];
		if (!t && i > 0)
			continue;
		if (!known(t))
			return false;
		if ((*present)++ == 0) {
			*rank = t->rank;
			memcpy(dim, t->dim, (size_t)t->rank * sizeof *dim);
		} else if (!broadcast(*rank, dim, t->rank, t->dim, rank, dim)) {
			return false;
		}
	}
	return *present > 0;
}

/* Add, Max, Equal...: numpy broadcasting over every input; rule->flops per
 * output element and input beyond the first; values by folding
 * rule->binary over the inputs, left to right */
static bool elementwise(ctx *c)
{
	int rank, present;
	int64_t dim[MAXR], idx[MAXR];
	if (!broadcast_inputs(c, &rank, dim, &present))
		return false;
	sc_onnx_tensor *y = c->out[0];
	set_shape(y, rank, dim, c->rule->to_bool ? DT(BOOL) : IN(c, 0)->dtype);
	c->flops = c->rule->flops * (present > 1 ? present - 1 : 1) * numel_d(y);
	int64_t n = sc_onnx_dims_numel(rank, dim);
	if (!c->rule->binary || n < 0 || n > MAXV)
		return true;
	for (int k = 0; k < c->nin; k++)
		if (c->in[k] && !has_values(c->in[k]))
			return true;
	double v[MAXV];
	for (int64_t i = 0; i < n; i++) {
		unravel(i, rank, dim, idx);
		v[i] = c->in[0]->value[bcast_at(c->in[0], rank, idx)];
		for (int k = 1; k < c->nin; k++)
			if (c->in[k])
				v[i] = c->rule->binary(
				        c, v[i], c->in[k]->value[bcast_at(c->in[k], rank, idx)]);
	}
	set_values(y, v, n);
	return true;
}

/* PRelu(X, slope): slope broadcasts to X one way only ("unidirectional
 * broadcasting"; "Y: Output tensor (same size as X)"), then as
 * elementwise; false when the two broadcast to anything but X's shape */
static bool prelu(ctx *c)
{
	int rank, present;
	int64_t dim[MAXR];
	const sc_onnx_tensor *x = IN(c, 0);
	if (!broadcast_inputs(c, &rank, dim, &present) || rank != x->rank ||
	    (rank && memcmp(dim, x->dim, (size_t)rank * sizeof *dim) != 0))
		return false;
	return elementwise(c);
}

/* Where(cond, x, y): the three broadcast, x's type, rule->flops per element */
static bool where(ctx *c)
{
	int rank, present;
	int64_t dim[MAXR], idx[MAXR];
	const sc_onnx_tensor *cond = IN(c, 0), *x = IN(c, 1), *z = IN(c, 2);
	if (!broadcast_inputs(c, &rank, dim, &present) || present != 3 || !x || !z)
		return false;
	set_shape(c->out[0], rank, dim, x->dtype);
	c->flops = c->rule->flops * numel_d(c->out[0]);
	int64_t n = sc_onnx_dims_numel(rank, dim);
	if (n < 0 || n > MAXV || !has_values(cond) || !has_values(x) || !has_values(z))
		return true;
	double v[MAXV];
	for (int64_t i = 0; i < n; i++) {
		unravel(i, rank, dim, idx);
		v[i] = cond->value[bcast_at(cond, rank, idx)] != 0
		               ? x->value[bcast_at(x, rank, idx)]
		               : z->value[bcast_at(z, rank, idx)];
	}
	set_values(c->out[0], v, n);
	return true;
}

/* Softmax, BatchNormalization...: the input's shape, rule->flops per element */
static bool per_element(ctx *c)
{
	const sc_onnx_tensor *x = IN(c, 0);
	if (!known(x))
		return false;
	set_shape(c->out[0], x->rank, x->dim, x->dtype);
	c->flops = c->rule->flops * numel_d(x);
	return true;
}

/* BatchNormalization: Y is X's shape, rule->flops per element; the other
 * outputs (training mode: running_mean, running_var; before opset 9 also
 * saved_mean, saved_var) are statistics per channel, of input_mean's shape
 * (C) and type */
static bool batch_norm(ctx *c)
{
	const sc_onnx_tensor *mean = IN(c, 3);
	if (!per_element(c))
		return false;
	for (int i = 1; i < c->nout && known(mean); i++)
		set_shape(c->out[i], mean->rank, mean->dim, mean->dtype);
	return true;
}

static bool layer_norm(ctx *c)
{
	const sc_onnx_tensor *x = IN(c, 0);
	if (!per_element(c))
		return false;
	int axis;
	if (c->nout > 1 && norm_axis(attr_int(c->node, "axis", -1), x->rank, &axis)) {
		int64_t dim[MAXR];
		for (int i = 0; i < x->rank; i++)
			dim[i] = i < axis ? x->dim[i] : 1;
		/* the mean and inverse deviation, of type stash_type (float by
		 * default): "stash_type: Type of Mean and InvStdDev" */
		int stash = (int)attr_int(c->node, "stash_type", DT(FLOAT));
		for (int i = 1; i < c->nout; i++)
			set_shape(c->out[i], x->rank, dim, stash);
	}
	return true;
}

/* LRN: each element divided by a power of the sum of squares over size
 * channels: 2 x size (the squares and their sum) + 4 (scale, bias, power,
 * divide) per element */
static bool lrn(ctx *c)
{
	const sc_onnx_tensor *x = IN(c, 0);
	int64_t size = attr_int(c->node, "size", 0);
	if (!known(x) || size <= 0)
		return false;
	set_shape(c->out[0], x->rank, x->dim, x->dtype);
	c->flops = (2 * (double)size + 4) * numel_d(x);
	return true;
}

/* Identity, Dropout (at inference, an identity with an all-true mask) */
static bool identity(ctx *c)
{
	const sc_onnx_tensor *x = IN(c, 0);
	if (!known(x))
		return false;
	set_shape(c->out[0], x->rank, x->dim, x->dtype);
	copy_values(c->out[0], x);
	if (OUT(c, 1))
		set_shape(c->out[1], x->rank, x->dim, DT(BOOL));
	return true;
}

static bool cast_to(ctx *c, int to)
{
	const sc_onnx_tensor *x = IN(c, 0);
	if (!known(x))
		return false;
	set_shape(c->out[0], x->rank, x->dim, to);
	copy_values(c->out[0], x); /* set_values makes them elements of type to */
	return true;
}

static bool cast(ctx *c)
{
	return known(IN(c, 0)) && cast_to(c, (int)attr_int(c->node, "to", IN(c, 0)->dtype));
}

static bool cast_like(ctx *c)
{
	return IN(c, 1) && cast_to(c, IN(c, 1)->dtype);
}

/* Trilu: the upper (or lower) triangle of the last two axes above (below)
 * diagonal k, the rest zeroed; rule->flops per element */
static bool trilu(ctx *c)
{
	const sc_onnx_tensor *x = IN(c, 0);
	if (!known(x) || x->rank < 2)
		return false;
	set_shape(c->out[0], x->rank, x->dim, x->dtype);
	c->flops = c->rule->flops * numel_d(x);
	double kv = 0;
	if (!has_values(x) || (IN(c, 1) && !scalar_of(IN(c, 1), &kv)))
		return true;
	int64_t k = to_int(kv), idx[MAXR];
	bool upper = attr_int(c->node, "upper", 1) != 0;
	double v[MAXV];
	for (int i = 0; i < x->nvalues; i++) {
		unravel(i, x->rank, x->dim, idx);
		int64_t off = idx[x->rank - 1] - idx[x->rank - 2];
		v[i] = (upper ? off >= k : off <= k) ? x->value[i] : 0;
	}
	set_values(c->out[0], v, x->nvalues);
	return true;
}

/* the scale or zero point of the element at idx of x: one for the tensor,
 * or one per index along axis (a 1-D tensor as long as that axis); def when
 * the input is missing; false for a blocked one or unknown values */
static bool quant_param(const sc_onnx_tensor *p, const sc_onnx_tensor *x, int axis,
                        const int64_t *idx, double def, double *v)
{
	if (!p) {
		*v = def;
		return true;
	}
	if (!has_values(p))
		return false;
	if (p->nvalues == 1)
		*v = p->value[0];
	else if (p->rank == 1 && axis >= 0 && p->dim[0] == x->dim[axis])
		*v = p->value[idx[axis]];
	else
		return false;
	return true;
}

/* the range of the integer type a QuantizeLinear saturates to */
static bool quant_range(int dtype, double *lo, double *hi)
{
	switch (dtype) {
	case DT(UINT8): *lo = 0, *hi = 255; return true;
	case DT(INT8): *lo = -128, *hi = 127; return true;
	case DT(UINT16): *lo = 0, *hi = 65535; return true;
	case DT(INT16): *lo = -32768, *hi = 32767; return true;
	case DT(INT32): *lo = -2147483648.0, *hi = 2147483647.0; return true;
	case DT_UINT4: *lo = 0, *hi = 15; return true;
	case DT_INT4: *lo = -8, *hi = 7; return true;
	default: return false;
	}
}

/* QuantizeLinear (quantize true): y = saturate(round(x / scale) + zero
 * point), ties to even; DequantizeLinear: y = (x - zero point) x scale;
 * rule->flops per element; the scale and zero point per tensor or per
 * axis */
static bool quant_any(ctx *c, bool quantize)
{
	const sc_onnx_tensor *x = IN(c, 0), *scale = IN(c, 1), *zp = IN(c, 2);
	if (!known(x))
		return false;
	int dtype;
	if (quantize) /* the zero point's type, else output_dtype (opset 21), else uint8 */
		dtype = zp ? zp->dtype : (int)attr_int(c->node, "output_dtype", DT(UINT8));
	else /* the scale's type, a float one */
		dtype = scale && (scale->dtype == DT(FLOAT16) || scale->dtype == DT(BFLOAT16) ||
		                  scale->dtype == DT(DOUBLE))
		                ? scale->dtype
		                : DT(FLOAT);
	set_shape(c->out[0], x->rank, x->dim, dtype);
	c->flops = c->rule->flops * numel_d(x);
	int axis = -1;
	double lo = 0, hi = 0, v[MAXV];
	int64_t idx[MAXR];
	if (!has_values(x) || (quantize && !quant_range(dtype, &lo, &hi)) ||
	    attr_int(c->node, "block_size", 0) > 0)
		return true;
	if (!norm_axis(attr_int(c->node, "axis", 1), x->rank, &axis))
		axis = -1;
	for (int i = 0; i < x->nvalues; i++) {
		double s, z;
		unravel(i, x->rank, x->dim, idx);
		if (!quant_param(scale, x, axis, idx, 1, &s) ||
		    !quant_param(zp, x, axis, idx, 0, &z))
			return true;
		if (quantize) {
			double q = nearbyint(x->value[i] / s) + z;
			v[i] = q < lo ? lo : q > hi ? hi : q;
		} else {
			v[i] = (x->value[i] - z) * s;
		}
	}
	set_values(c->out[0], v, x->nvalues);
	return true;
}

static bool quantize(ctx *c)
{
	return quant_any(c, true);
}

static bool dequantize(ctx *c)
{
	return quant_any(c, false);
}

/* OneHot(indices, depth, values): a new axis of depth, values[1] where it
 * equals the index, values[0] elsewhere; rule->flops per output element */
static bool one_hot(ctx *c)
{
	const sc_onnx_tensor *ind = IN(c, 0), *vals = IN(c, 2);
	double dv;
	if (!known(ind) || !vals || !scalar_of(IN(c, 1), &dv) || ind->rank + 1 > MAXR)
		return false;
	int64_t depth = to_int(dv), axis = attr_int(c->node, "axis", -1), dim[MAXR];
	if (axis < 0)
		axis += ind->rank + 1;
	if (depth < 0 || axis < 0 || axis > ind->rank)
		return false;
	for (int i = 0, j = 0; i <= ind->rank; i++)
		dim[i] = i == axis ? depth : ind->dim[j++];
	set_shape(c->out[0], ind->rank + 1, dim, vals->dtype);
	c->flops = c->rule->flops * numel_d(c->out[0]);
	int64_t n = sc_onnx_dims_numel(ind->rank + 1, dim);
	if (n < 0 || n > MAXV || !has_values(ind) || !has_values(vals) || vals->nvalues != 2)
		return true;
	int64_t outer = span(ind->dim, 0, (int)axis), inner = span(ind->dim, (int)axis, ind->rank);
	double v[MAXV];
	for (int64_t o = 0; o < outer; o++)
		for (int64_t j = 0; j < depth; j++)
			for (int64_t i = 0; i < inner; i++) {
				int64_t t = to_int(ind->value[o * inner + i]);
				t = t < 0 ? t + depth : t;
				v[(o * depth + j) * inner + i] = vals->value[t == j];
			}
	set_values(c->out[0], v, n);
	return true;
}

/* ---- reductions and scans ------------------------------------------------------- */

/* the axes of Squeeze, Unsqueeze or a Reduce: attribute or input 1 */
static bool axes_of(ctx *c, int64_t *axes, int *n, bool *given)
{
	*given = true;
	if (attr_ints(c->node, "axes", n))
		return attr_list(c->node, "axes", axes, n);
	if (IN(c, 1))
		return ints_of(IN(c, 1), axes, n);
	*given = false;
	*n = 0;
	return true;
}

/* the Reduce ops: input elements FLOPs; values by folding rule->binary over
 * each output's elements */
static bool reduce(ctx *c)
{
	const sc_onnx_tensor *x = IN(c, 0);
	int64_t axes[MAXV], dim[MAXR], idx[MAXR];
	int n;
	bool given;
	if (!known(x) || !axes_of(c, axes, &n, &given))
		return false;
	bool mark[MAXR] = {false}, keep = attr_int(c->node, "keepdims", 1) != 0;
	for (int i = 0; i < n; i++) {
		int a;
		if (!norm_axis(axes[i], x->rank, &a))
			return false;
		mark[a] = true;
	}
	bool all = n == 0 && !attr_int(c->node, "noop_with_empty_axes", 0);
	int r = 0;
	for (int i = 0; i < x->rank; i++) {
		mark[i] |= all;
		if (!mark[i])
			dim[r++] = x->dim[i];
		else if (keep)
			dim[r++] = 1;
	}
	set_shape(c->out[0], r, dim, x->dtype);
	c->flops = numel_d(x);
	int64_t m = sc_onnx_dims_numel(r, dim);
	if (!c->rule->binary || !has_values(x) || m < 0 || m > MAXV)
		return true;
	double v[MAXV];
	bool seen[MAXV] = {false};
	for (int i = 0; i < x->nvalues; i++) {
		unravel(i, x->rank, x->dim, idx);
		int64_t at = 0;
		for (int k = 0; k < x->rank; k++)
			if (!mark[k])
				at = at * x->dim[k] + idx[k];
		v[at] = seen[at] ? c->rule->binary(c, v[at], x->value[i]) : x->value[i];
		seen[at] = true;
	}
	for (int64_t j = 0; j < m; j++)
		if (!seen[j])
			return true; /* an empty reduction */
	set_values(c->out[0], v, m);
	return true;
}

/* ArgMax, ArgMin: int64 indices along axis (keepdims, select_last_index);
 * input elements FLOPs */
static bool arg_any(ctx *c, bool largest)
{
	const sc_onnx_tensor *x = IN(c, 0);
	int axis, r = 0;
	if (!known(x) || !norm_axis(attr_int(c->node, "axis", 0), x->rank, &axis) ||
	    x->dim[axis] == 0)
		return false;
	bool keep = attr_int(c->node, "keepdims", 1) != 0;
	bool last = attr_int(c->node, "select_last_index", 0) != 0;
	int64_t dim[MAXR];
	for (int i = 0; i < x->rank; i++)
		if (i != axis)
			dim[r++] = x->dim[i];
		else if (keep)
			dim[r++] = 1;
	set_shape(c->out[0], r, dim, DT(INT64));
	c->flops = numel_d(x);
	if (!has_values(x))
		return true;
	int64_t d = x->dim[axis], outer = span(x->dim, 0, axis),
	        inner = span(x->dim, axis + 1, x->rank);
	double v[MAXV];
	for (int64_t o = 0; o < outer; o++)
		for (int64_t i = 0; i < inner; i++) {
			int64_t best = 0;
			double bv = x->value[o * d * inner + i];
			for (int64_t j = 1; j < d; j++) {
				double a = x->value[(o * d + j) * inner + i];
				if ((largest ? a > bv : a < bv) || (last && a == bv))
					best = j, bv = a;
			}
			v[o * inner + i] = (double)best;
		}
	set_values(c->out[0], v, outer * inner);
	return true;
}

static bool arg_max(ctx *c)
{
	return arg_any(c, true);
}

static bool arg_min(ctx *c)
{
	return arg_any(c, false);
}

/* CumSum(x, axis): running sums (exclusive, reverse); input elements FLOPs */
static bool cumsum(ctx *c)
{
	const sc_onnx_tensor *x = IN(c, 0);
	if (!known(x))
		return false;
	set_shape(c->out[0], x->rank, x->dim, x->dtype);
	c->flops = numel_d(x);
	double av;
	int axis;
	if (!has_values(x) || !scalar_of(IN(c, 1), &av) || !norm_axis(to_int(av), x->rank, &axis))
		return true;
	bool excl = attr_int(c->node, "exclusive", 0) != 0;
	bool rev = attr_int(c->node, "reverse", 0) != 0;
	int64_t d = x->dim[axis], outer = span(x->dim, 0, axis),
	        inner = span(x->dim, axis + 1, x->rank);
	double v[MAXV];
	for (int64_t o = 0; o < outer; o++)
		for (int64_t i = 0; i < inner; i++) {
			double sum = 0;
			for (int64_t s = 0; s < d; s++) {
				int64_t at = (o * d + (rev ? d - 1 - s : s)) * inner + i;
				v[at] = excl ? sum : sum + x->value[at];
				sum += x->value[at];
			}
		}
	set_values(c->out[0], v, x->nvalues);
	return true;
}

/* TopK(x, K): the K largest (or smallest) along axis and their int64
 * indices, equal values in index order; input elements FLOPs */
static bool topk(ctx *c)
{
	const sc_onnx_tensor *x = IN(c, 0);
	int axis;
	if (!known(x) || !norm_axis(attr_int(c->node, "axis", -1), x->rank, &axis))
		return false;
	double kv;
	int64_t k = attr_int(c->node, "k", -1), dim[MAXR]; /* opset 1: an attribute */
	if (IN(c, 1)) {
		if (!scalar_of(IN(c, 1), &kv))
			return false;
		k = to_int(kv);
	}
	if (k < 0 || k > x->dim[axis])
		return false;
	memcpy(dim, x->dim, sizeof dim);
	dim[axis] = k;
	set_shape(c->out[0], x->rank, dim, x->dtype);
	if (OUT(c, 1))
		set_shape(c->out[1], x->rank, dim, DT(INT64));
	c->flops = numel_d(x);
	if (!has_values(x))
		return true;
	bool largest = attr_int(c->node, "largest", 1) != 0;
	int64_t d = x->dim[axis], outer = span(x->dim, 0, axis),
	        inner = span(x->dim, axis + 1, x->rank);
	double v[MAXV], at[MAXV];
	for (int64_t o = 0; o < outer; o++)
		for (int64_t i = 0; i < inner; i++) {
			bool taken[MAXV] = {false};
			for (int64_t s = 0; s < k; s++) {
				int64_t best = -1;
				double bv = 0;
				for (int64_t j = 0; j < d; j++) {
					double a = x->value[(o * d + j) * inner + i];
					if (!taken[j] && (best < 0 || (largest ? a > bv : a < bv)))
						best = j, bv = a;
				}
				taken[best] = true;
				v[(o * k + s) * inner + i] = bv;
				at[(o * k + s) * inner + i] = (double)best;
			}
		}
	set_values(c->out[0], v, outer * k * inner);
	if (OUT(c, 1))
		set_values(c->out[1], at, outer * k * inner);
	return true;
}

/* ---- reshaping and moving ---------------------------------------------------- */

static bool reshape(ctx *c)
{
	const sc_onnx_tensor *x = IN(c, 0);
	int64_t shape[MAXV];
	int n;
	if (!known(x) || !ints_of(IN(c, 1), shape, &n) || n > MAXR)
		return false;
	int64_t total = sc_onnx_numel(x), prod = 1;
	int infer = -1;
	bool allowzero = attr_int(c->node, "allowzero", 0) != 0;
	for (int i = 0; i < n; i++) {
		if (shape[i] == 0 && !allowzero) {
			if (i >= x->rank)
				return false;
			shape[i] = x->dim[i];
		}
		if (shape[i] == -1) {
			if (infer >= 0)
				return false;
			infer = i;
		} else if (shape[i] < 0) {
			return false;
		} else if (shape[i] && prod > ((int64_t)1 << 62) / shape[i]) {
			return false;
		} else {
			prod *= shape[i];
		}
	}
	if (infer >= 0) {
		if (prod == 0 || total % prod)
			return false;
		shape[infer] = total / prod;
	} else if (prod != total) {
		return false;
	}
	set_shape(c->out[0], n, shape, x->dtype);
	copy_values(c->out[0], x);
	return true;
}

static bool flatten(ctx *c)
{
	const sc_onnx_tensor *x = IN(c, 0);
	if (!known(x))
		return false;
	int64_t a = attr_int(c->node, "axis", 1);
	if (a < 0)
		a += x->rank;
	if (a < 0 || a > x->rank)
		return false;
	int64_t dim[2] = {1, 1};
	for (int i = 0; i < x->rank; i++)
		dim[i >= a] *= x->dim[i];
	set_shape(c->out[0], 2, dim, x->dtype);
	copy_values(c->out[0], x);
	return true;
}

static bool transpose(ctx *c)
{
	const sc_onnx_tensor *x = IN(c, 0);
	if (!known(x))
		return false;
	int n;
	const int64_t *perm = attr_ints(c->node, "perm", &n);
	int64_t dim[MAXR], p[MAXR], o[MAXR], src[MAXR];
	bool seen[MAXR] = {false};
	if (perm && n != x->rank)
		return false;
	for (int i = 0; i < x->rank; i++) {
		p[i] = perm ? perm[i] : x->rank - 1 - i;
		if (p[i] < 0 || p[i] >= x->rank || seen[p[i]])
			return false;
		seen[p[i]] = true;
		dim[i] = x->dim[p[i]];
	}
	set_shape(c->out[0], x->rank, dim, x->dtype);
	if (!has_values(x))
		return true;
	double v[MAXV];
	for (int i = 0; i < x->nvalues; i++) {
		unravel(i, x->rank, dim, o);
		for (int k = 0; k < x->rank; k++)
			src[p[k]] = o[k];
		v[i] = x->value[ravel(x->rank, x->dim, src)];
	}
	set_values(c->out[0], v, x->nvalues);
	return true;
}

static bool concat(ctx *c)
{
	const sc_onnx_tensor *x = IN(c, 0);
	int axis;
	if (!known(x) || !norm_axis(attr_int(c->node, "axis", 0), x->rank, &axis))
		return false;
	int64_t dim[MAXR];
	memcpy(dim, x->dim, sizeof dim);
	dim[axis] = 0;
	bool values = true;
	for (int i = 0; i < c->nin; i++) {
		const sc_onnx_tensor *t = c->in[i];
		if (!t)
			continue;
		if (!known(t) || t->rank != x->rank)
			return false;
		for (int d = 0; d < x->rank; d++)
			if (d != axis && t->dim[d] != x->dim[d])
				return false;
		dim[axis] += t->dim[axis];
		values &= has_values(t);
	}
	set_shape(c->out[0], x->rank, dim, x->dtype);
	int64_t n = sc_onnx_dims_numel(x->rank, dim);
	if (!values || n < 0 || n > MAXV)
		return true;
	int64_t outer = span(x->dim, 0, axis), inner = span(x->dim, axis + 1, x->rank), at = 0;
	double v[MAXV];
	for (int64_t o = 0; o < outer; o++)
		for (int i = 0; i < c->nin; i++) {
			const sc_onnx_tensor *t = c->in[i];
			int64_t block = t ? t->dim[axis] * inner : 0;
			if (block)
				memcpy(v + at, t->value + o * block, (size_t)block * sizeof *v);
			at += block;
		}
	set_values(c->out[0], v, n);
	return true;
}

static bool split(ctx *c)
{
	const sc_onnx_tensor *x = IN(c, 0);
	int axis, n;
	if (!known(x) || !norm_axis(attr_int(c->node, "axis", 0), x->rank, &axis))
		return false;
	int64_t sizes[MAXV], d = x->dim[axis], sum = 0;
	if (sc_onnx_attr(c->node, "split")) { /* opset < 13 */
		if (!attr_list(c->node, "split", sizes, &n))
			return false;
	} else if (IN(c, 1)) {
		if (!ints_of(IN(c, 1), sizes, &n))
			return false;
	} else { /* equal parts, the last one smaller (opset 18) */
		n = c->nout;
		if (n > MAXV)
			return false;
		int64_t part = (d + n - 1) / n;
		for (int i = 0; i < n; i++)
			sizes[i] = i < n - 1 ? part : d - part * (n - 1);
	}
	if (n != c->nout)
		return false;
	for (int i = 0; i < n; i++) {
		if (sizes[i] < 0 || sizes[i] > d)
			return false;
		sum += sizes[i];
	}
	if (sum != d)
		return false;
	int64_t outer = span(x->dim, 0, axis), inner = span(x->dim, axis + 1, x->rank), off = 0;
	for (int k = 0; k < n; k++) {
		int64_t dim[MAXR];
		memcpy(dim, x->dim, sizeof dim);
		dim[axis] = sizes[k];
		set_shape(c->out[k], x->rank, dim, x->dtype);
		if (has_values(x)) {
			double v[MAXV];
			for (int64_t o = 0; o < outer; o++)
				for (int64_t j = 0; j < sizes[k]; j++)
					for (int64_t i = 0; i < inner; i++)
						v[(o * sizes[k] + j) * inner + i] =
						        x->value[(o * d + off + j) * inner + i];
			set_values(c->out[k], v, outer * sizes[k] * inner);
		}
		off += sizes[k];
	}
	return true;
}

/* Slice: starts, ends, axes, steps from inputs (attributes before opset
 * 10), clamped as ONNX's shape inference does */
static bool slice(ctx *c)
{
	const sc_onnx_tensor *x = IN(c, 0);
	if (!known(x))
		return false;
	int64_t starts[MAXV], ends[MAXV], axes[MAXV], steps[MAXV];
	int ns, ne, na = -1, nst = -1;
	if (sc_onnx_attr(c->node, "starts")) { /* opset < 10 */
		if (!attr_list(c->node, "starts", starts, &ns) ||
		    !attr_list(c->node, "ends", ends, &ne) ||
		    (sc_onnx_attr(c->node, "axes") && !attr_list(c->node, "axes", axes, &na)))
			return false;
	} else if (!ints_of(IN(c, 1), starts, &ns) || !ints_of(IN(c, 2), ends, &ne) ||
	           (IN(c, 3) && !ints_of(IN(c, 3), axes, &na)) ||
	           (IN(c, 4) && !ints_of(IN(c, 4), steps, &nst))) {
		return false;
	}
	if (ns != ne || (na >= 0 && na != ns) || (nst >= 0 && nst != ns))
		return false;
	int64_t dim[MAXR], first[MAXR], step[MAXR], o[MAXR];
	bool seen[MAXR] = {false};
	for (int k = 0; k < x->rank; k++)
		dim[k] = x->dim[k], first[k] = 0, step[k] = 1;
	for (int i = 0; i < ns; i++) {
		int a;
		if (!norm_axis(na >= 0 ? axes[i] : i, x->rank, &a) || seen[a])
			return false;
		seen[a] = true;
		/* a step past the axis takes one element: bounded, -st cannot overflow */
		int64_t d = x->dim[a], b = starts[i], e = ends[i],
		        st = clamp(nst >= 0 ? steps[i] : 1, -((int64_t)1 << 62), (int64_t)1 << 62);
		if (st == 0)
			return false;
		b = b < 0 ? b + d : b;
		e = e < 0 ? e + d : e;
		if (st > 0) {
			b = clamp(b, 0, d);
			e = clamp(e, 0, d);
			dim[a] = e > b ? (e - b - 1) / st + 1 : 0;
		} else {
			b = clamp(b, 0, d - 1);
			e = clamp(e, -1, d - 1);
			dim[a] = b > e ? (b - e - 1) / -st + 1 : 0;
		}
		first[a] = b, step[a] = st;
	}
	set_shape(c->out[0], x->rank, dim, x->dtype);
	int64_t n = sc_onnx_dims_numel(x->rank, dim);
	if (!has_values(x) || n < 0 || n > MAXV)
		return true;
	double v[MAXV];
	for (int64_t i = 0; i < n; i++) {
		unravel(i, x->rank, dim, o);
		for (int k = 0; k < x->rank; k++)
			o[k] = first[k] + o[k] * step[k];
		v[i] = x->value[ravel(x->rank, x->dim, o)];
	}
	set_values(c->out[0], v, n);
	return true;
}

static bool gather(ctx *c)
{
	const sc_onnx_tensor *x = IN(c, 0), *ind = IN(c, 1);
	int axis;
	if (!known(x) || !known(ind) || !norm_axis(attr_int(c->node, "axis", 0), x->rank, &axis) ||
	    x->rank - 1 + ind->rank > MAXR)
		return false;
	int64_t dim[MAXR];
	int r = 0;
	for (int i = 0; i < axis; i++)
		dim[r++] = x->dim[i];
	for (int i = 0; i < ind->rank; i++)
		dim[r++] = ind->dim[i];
	for (int i = axis + 1; i < x->rank; i++)
		dim[r++] = x->dim[i];
	set_shape(c->out[0], r, dim, x->dtype);
	if (!has_values(x) || !has_values(ind))
		return true;
	int64_t d = x->dim[axis], m = ind->nvalues, outer = span(x->dim, 0, axis),
	        inner = span(x->dim, axis + 1, x->rank);
	if (outer * m * inner > MAXV)
		return true;
	double v[MAXV];
	for (int64_t k = 0; k < m; k++) {
		int64_t j;
		if (!index_in(ind->value[k], d, &j))
			return true;
		for (int64_t o = 0; o < outer; o++)
			for (int64_t i = 0; i < inner; i++)
				v[(o * m + k) * inner + i] = x->value[(o * d + j) * inner + i];
	}
	set_values(c->out[0], v, outer * m * inner);
	return true;
}

static bool squeeze_any(ctx *c, bool un)
{
	const sc_onnx_tensor *x = IN(c, 0);
	int64_t axes[MAXV], dim[MAXR];
	int n;
	bool given;
	if (!known(x) || !axes_of(c, axes, &n, &given) || (un && !given))
		return false;
	int r = un ? x->rank + n : x->rank;
	if (r > MAXR)
		return false;
	bool mark[MAXR] = {false};
	for (int i = 0; i < n; i++) {
		int a;
		if (!norm_axis(axes[i], r, &a) || mark[a])
			return false;
		mark[a] = true;
	}
	int k = 0, j = 0;
	for (int i = 0; i < r; i++) {
		if (un)
			dim[k++] = mark[i] ? 1 : x->dim[j++];
		else if (given ? !mark[i] : x->dim[i] != 1)
			dim[k++] = x->dim[i];
		else if (x->dim[i] != 1)
			return false;
	}
	set_shape(c->out[0], k, dim, x->dtype);
	copy_values(c->out[0], x);
	return true;
}

static bool squeeze(ctx *c)
{
	return squeeze_any(c, false);
}

static bool unsqueeze(ctx *c)
{
	return squeeze_any(c, true);
}

static bool expand(ctx *c)
{
	const sc_onnx_tensor *x = IN(c, 0);
	int n, r;
	int64_t v[MAXV], dim[MAXR], idx[MAXR];
	if (!known(x) || !ints_of(IN(c, 1), v, &n) || n > MAXR ||
	    !broadcast(x->rank, x->dim, n, v, &r, dim))
		return false;
	set_shape(c->out[0], r, dim, x->dtype);
	int64_t m = sc_onnx_dims_numel(r, dim);
	if (!has_values(x) || m < 0 || m > MAXV)
		return true;
	double w[MAXV];
	for (int64_t i = 0; i < m; i++) {
		unravel(i, r, dim, idx);
		w[i] = x->value[bcast_at(x, r, idx)];
	}
	set_values(c->out[0], w, m);
	return true;
}

/* Tile(x, repeats): each axis repeated; a copy, 0 FLOPs */
static bool tile(ctx *c)
{
	const sc_onnx_tensor *x = IN(c, 0);
	int n;
	int64_t rep[MAXV], dim[MAXR], idx[MAXR];
	if (!known(x) || !ints_of(IN(c, 1), rep, &n) || n != x->rank)
		return false;
	for (int i = 0; i < n; i++) {
		if (rep[i] < 0 || (x->dim[i] && rep[i] > ((int64_t)1 << 62) / x->dim[i]))
			return false;
		dim[i] = x->dim[i] * rep[i];
	}
	set_shape(c->out[0], n, dim, x->dtype);
	int64_t m = sc_onnx_dims_numel(n, dim);
	if (!has_values(x) || m < 0 || m > MAXV)
		return true;
	double v[MAXV];
	for (int64_t i = 0; i < m; i++) {
		unravel(i, n, dim, idx);
		for (int k = 0; k < n; k++)
			idx[k] %= x->dim[k];
		v[i] = x->value[ravel(n, x->dim, idx)];
	}
	set_values(c->out[0], v, m);
	return true;
}

/* DepthToSpace (mode DCR or CRD) and SpaceToDepth of an NCHW tensor by
 * blocksize b: copies, 0 FLOPs.  DCR reads channel (bh x b + bw) x C' + c
 * for output channel c at block offset (bh, bw), CRD channel c x b^2 + bh x
 * b + bw; SpaceToDepth is the inverse of DCR. */
static bool depth_space(ctx *c, bool to_space)
{
	const sc_onnx_tensor *x = IN(c, 0);
	int64_t b = attr_int(c->node, "blocksize", 0), dim[4], o[4], src[4];
	if (!known(x) || x->rank != 4 || b <= 0 || b > ((int64_t)1 << 20))
		return false;
	int64_t n = x->dim[0], ch = x->dim[1], h = x->dim[2], w = x->dim[3];
	bool crd = to_space && attr_is(c->node, "mode", "CRD");
	if (to_space) {
		if (ch % (b * b))
			return false;
		dim[0] = n, dim[1] = ch / (b * b), dim[2] = h * b, dim[3] = w * b;
	} else {
		if (h % b || w % b)
			return false;
		dim[0] = n, dim[1] = ch * b * b, dim[2] = h / b, dim[3] = w / b;
	}
	set_shape(c->out[0], 4, dim, x->dtype);
	if (!has_values(x))
		return true;
	double v[MAXV];
	for (int i = 0; i < x->nvalues; i++) {
		unravel(i, 4, dim, o);
		src[0] = o[0];
		if (to_space) {
			int64_t bh = o[2] % b, bw = o[3] % b;
			src[1] = crd ? o[1] * b * b + bh * b + bw : (bh * b + bw) * dim[1] + o[1];
			src[2] = o[2] / b, src[3] = o[3] / b;
		} else {
			int64_t blk = o[1] / ch;
			src[1] = o[1] % ch;
			src[2] = o[2] * b + blk / b, src[3] = o[3] * b + blk % b;
		}
		v[i] = x->value[ravel(4, x->dim, src)];
	}
	set_values(c->out[0], v, x->nvalues);
	return true;
}

static bool depth_to_space(ctx *c)
{
	return depth_space(c, true);
}

static bool space_to_depth(ctx *c)
{
	return depth_space(c, false);
}

static bool pad(ctx *c)
{
	const sc_onnx_tensor *x = IN(c, 0);
	int64_t pads[MAXV], axes[MAXV], dim[MAXR];
	int n, na = 0;
	if (!known(x))
		return false;
	if (sc_onnx_attr(c->node, "pads")) { /* opset < 11 */
		if (!attr_list(c->node, "pads", pads, &n))
			return false;
	} else if (!ints_of(IN(c, 1), pads, &n)) {
		return false;
	}
	bool with_axes = IN(c, 3) != NULL; /* opset 18 */
	if (with_axes && !ints_of(IN(c, 3), axes, &na))
		return false;
	int count = with_axes ? na : x->rank;
	if (n != 2 * count)
		return false;
	memcpy(dim, x->dim, sizeof dim);
	for (int i = 0; i < count; i++) {
		int a = i;
		if (with_axes && !norm_axis(axes[i], x->rank, &a))
			return false;
		dim[a] += pads[i] + pads[i + count];
		if (dim[a] < 0)
			return false;
	}
	set_shape(c->out[0], x->rank, dim, x->dtype);
	return true;
}

/* floor(d x scale), false for a scale that is not a finite, non-negative
 * number or a size past 2^62 */
static bool scaled(int64_t d, double scale, int64_t *out)
{
	double v = floor((double)d * scale);
	if (!(v >= 0 && v < 4e18))
		return false;
	*out = (int64_t)v;
	return true;
}

/* Resize's sizes[0..n) of axes ax[0..n) kept to the input's aspect ratio
 * (keep_aspect_ratio_policy not_larger, or not_smaller when larger): one
 * scale, the min (max) of sizes[i] / in, each size round_int(scale x in),
 * halves up; false for an empty input axis or a size past 2^62 */
static bool keep_aspect(const sc_onnx_tensor *x, const int *ax, int n, bool larger, int64_t *sizes)
{
	double scale = 0;
	for (int i = 0; i < n; i++) {
		if (x->dim[ax[i]] <= 0)
			return false;
		double s = (double)sizes[i] / (double)x->dim[ax[i]];
		if (i == 0 || (larger ? s > scale : s < scale))
			scale = s;
	}
	for (int i = 0; i < n; i++) {
		double v = floor((double)x->dim[ax[i]] * scale + 0.5);
		if (!(v >= 0 && v < 4e18))
			return false;
		sizes[i] = (int64_t)v;
	}
	return true;
}

static bool resize(ctx *c)
{
	const sc_onnx_tensor *x = IN(c, 0);
	if (!known(x))
		return false;
	int64_t dim[MAXR], sizes[MAXV];
	int n, na, ax[MAXR], nax = x->rank;
	/* opset 18: the axes scales and sizes are given for (every axis by
	 * default); the others keep their size */
	const int64_t *axes = attr_ints(c->node, "axes", &na);
	bool seen[MAXR] = {false};
	if (axes && na > x->rank)
		return false;
	if (axes)
		nax = na;
	for (int i = 0; i < nax; i++) {
		if (!norm_axis(axes ? axes[i] : i, x->rank, &ax[i]) || seen[ax[i]])
			return false;
		seen[ax[i]] = true;
	}
	memcpy(dim, x->dim, sizeof dim);
	/* opset 10 and Upsample: (X, scales); opset 11+: (X, roi, scales, sizes);
	 * Upsample 7: a scales attribute */
	const sc_onnx_tensor *scales = c->nin == 2 ? IN(c, 1) : IN(c, 2);
	const Onnx__AttributeProto *sa = sc_onnx_attr(c->node, "scales");
	bool larger = attr_is(c->node, "keep_aspect_ratio_policy", "not_smaller");
	bool keep = larger || attr_is(c->node, "keep_aspect_ratio_policy", "not_larger");
	if (IN(c, 3) && ints_of(IN(c, 3), sizes, &n) && n == nax) {
		if (keep && !keep_aspect(x, ax, nax, larger, sizes))
			return false;
		for (int i = 0; i < nax; i++)
			dim[ax[i]] = sizes[i];
	} else if (scales && scales->nvalues == nax) {
		for (int i = 0; i < nax; i++)
			if (!scaled(x->dim[ax[i]], scales->value[i], &dim[ax[i]]))
				return false;
	} else if (sa && sa->n_floats == (size_t)x->rank) {
		for (int i = 0; i < x->rank; i++)
			if (!scaled(x->dim[i], sa->floats[i], &dim[i]))
				return false;
	} else {
		return false;
	}
	for (int i = 0; i < x->rank; i++)
		if (dim[i] < 0)
			return false;
	set_shape(c->out[0], x->rank, dim, x->dtype);
	bool nearest = !sc_onnx_attr(c->node, "mode") || attr_is(c->node, "mode", "nearest");
	c->flops = (nearest ? 1 : 4) * numel_d(c->out[0]);
	return true;
}

/* ---- gathers and scatters (copies, 0 FLOPs) --------------------------------- */

static bool gather_elements(ctx *c)
{
	const sc_onnx_tensor *x = IN(c, 0), *ind = IN(c, 1);
	int axis;
	if (!known(x) || !known(ind) || ind->rank != x->rank ||
	    !norm_axis(attr_int(c->node, "axis", 0), x->rank, &axis))
		return false;
	set_shape(c->out[0], ind->rank, ind->dim, x->dtype);
	if (!has_values(x) || !has_values(ind))
		return true;
	int64_t o[MAXR];
	double v[MAXV];
	for (int i = 0; i < ind->nvalues; i++) {
		unravel(i, ind->rank, ind->dim, o);
		for (int k = 0; k < x->rank; k++)
			if (k != axis && o[k] >= x->dim[k])
				return true;
		if (!index_in(ind->value[i], x->dim[axis], &o[axis]))
			return true;
		v[i] = x->value[ravel(x->rank, x->dim, o)];
	}
	set_values(c->out[0], v, ind->nvalues);
	return true;
}

/* GatherND(data, indices), batch_dims b: indices' last axis (k) addresses
 * data's axes b .. b+k-1; the output is indices' shape without its last
 * axis, then data's axes from b+k */
static bool gather_nd(ctx *c)
{
	const sc_onnx_tensor *x = IN(c, 0), *ind = IN(c, 1);
	int64_t b = attr_int(c->node, "batch_dims", 0), dim[MAXR], o[MAXR], src[MAXR];
	if (!known(x) || !known(ind) || ind->rank < 1 || b < 0 || b >= ind->rank || b >= x->rank)
		return false;
	int q = ind->rank, r = x->rank;
	int64_t k = ind->dim[q - 1];
	if (k < 1 || k > r - b || q - 1 + r - b - k > MAXR)
		return false;
	for (int i = 0; i < b; i++)
		if (ind->dim[i] != x->dim[i])
			return false;
	int rank = 0;
	for (int i = 0; i < q - 1; i++)
		dim[rank++] = ind->dim[i];
	for (int64_t i = b + k; i < r; i++)
		dim[rank++] = x->dim[i];
	set_shape(c->out[0], rank, dim, x->dtype);
	int64_t n = sc_onnx_dims_numel(rank, dim);
	if (!has_values(x) || !has_values(ind) || n < 0 || n > MAXV)
		return true;
	double v[MAXV];
	for (int64_t i = 0; i < n; i++) {
		unravel(i, rank, dim, o);
		int64_t tuple = ravel(q - 1, ind->dim, o);
		for (int j = 0; j < b; j++)
			src[j] = o[j];
		for (int64_t j = 0; j < k; j++)
			if (!index_in(ind->value[tuple * k + j], x->dim[b + j], &src[b + j]))
				return true;
		for (int64_t j = b + k; j < r; j++)
			src[j] = o[q - 1 + j - b - k];
		v[i] = x->value[ravel(r, x->dim, src)];
	}
	set_values(c->out[0], v, n);
	return true;
}

/* a scatter's reduction applied to the old element and the update; NAN for
 * a reduction this file does not know */
static double scatter_apply(const Onnx__NodeProto *node, double old, double upd)
{
	const Onnx__AttributeProto *a = sc_onnx_attr(node, "reduction");
	if (!a || attr_is(node, "reduction", "none"))
		return upd;
	if (attr_is(node, "reduction", "add"))
		return old + upd;
	if (attr_is(node, "reduction", "mul"))
		return old * upd;
	if (attr_is(node, "reduction", "max"))
		return old > upd ? old : upd;
	if (attr_is(node, "reduction", "min"))
		return old < upd ? old : upd;
	return NAN;
}

/* ScatterND(data, indices, updates): data with the slices indices address
 * replaced (or reduced) by updates */
static bool scatter_nd(ctx *c)
{
	const sc_onnx_tensor *x = IN(c, 0), *ind = IN(c, 1), *upd = IN(c, 2);
	if (!known(x) || !known(ind) || !known(upd) || ind->rank < 1)
		return false;
	int q = ind->rank, r = x->rank;
	int64_t k = ind->dim[q - 1];
	if (k < 0 || k > r || upd->rank != q - 1 + r - k)
		return false;
	for (int i = 0; i < upd->rank; i++)
		if (upd->dim[i] != (i < q - 1 ? ind->dim[i] : x->dim[k + i - (q - 1)]))
			return false;
	set_shape(c->out[0], r, x->dim, x->dtype);
	if (!has_values(x) || !has_values(ind) || !has_values(upd))
		return true;
	int64_t slice_n = span(x->dim, (int)k, r), tuples = span(ind->dim, 0, q - 1);
	double v[MAXV];
	memcpy(v, x->value, (size_t)x->nvalues * sizeof *v);
	for (int64_t u = 0; u < tuples; u++) {
		int64_t base = 0, j;
		for (int64_t a = 0; a < k; a++) {
			if (!index_in(ind->value[u * k + a], x->dim[a], &j))
				return true;
			base = base * x->dim[a] + j;
		}
		for (int64_t e = 0; e < slice_n; e++)
			v[base * slice_n + e] = scatter_apply(c->node, v[base * slice_n + e],
			                                      upd->value[u * slice_n + e]);
	}
	set_values(c->out[0], v, x->nvalues);
	return true;
}

/* ScatterElements(data, indices, updates): each update goes to its own
 * position with the index along axis replaced */
static bool scatter_elements(ctx *c)
{
	const sc_onnx_tensor *x = IN(c, 0), *ind = IN(c, 1), *upd = IN(c, 2);
	int axis;
	if (!known(x) || !known(ind) || !known(upd) || ind->rank != x->rank ||
	    upd->rank != ind->rank || !norm_axis(attr_int(c->node, "axis", 0), x->rank, &axis))
		return false;
	for (int i = 0; i < ind->rank; i++)
		if (upd->dim[i] != ind->dim[i])
			return false;
	set_shape(c->out[0], x->rank, x->dim, x->dtype);
	if (!has_values(x) || !has_values(ind) || !has_values(upd))
		return true;
	int64_t o[MAXR];
	double v[MAXV];
	memcpy(v, x->value, (size_t)x->nvalues * sizeof *v);
	for (int i = 0; i < ind->nvalues; i++) {
		unravel(i, ind->rank, ind->dim, o);
		for (int k = 0; k < x->rank; k++)
			if (k != axis && o[k] >= x->dim[k])
				return true;
		if (!index_in(ind->value[i], x->dim[axis], &o[axis]))
			return true;
		int64_t at = ravel(x->rank, x->dim, o);
		v[at] = scatter_apply(c->node, v[at], upd->value[i]);
	}
	set_values(c->out[0], v, x->nvalues);
	return true;
}

/* NonZero: [rank, count] int64 coordinates; its shape needs the input's
 * values, so unknown without them; 0 FLOPs */
static bool nonzero(ctx *c)
{
	const sc_onnx_tensor *x = IN(c, 0);
	if (!has_values(x) || x->rank < 1)
		return false;
	int64_t count = 0, o[MAXR];
	for (int i = 0; i < x->nvalues; i++)
		count += x->value[i] != 0;
	int64_t dim[2] = {x->rank, count};
	set_shape(c->out[0], 2, dim, DT(INT64));
	if (x->rank * count > MAXV)
		return true;
	double v[MAXV];
	for (int i = 0, m = 0; i < x->nvalues; i++) {
		if (x->value[i] == 0)
			continue;
		unravel(i, x->rank, x->dim, o);
		for (int k = 0; k < x->rank; k++)
			v[k * count + m] = (double)o[k];
		m++;
	}
	set_values(c->out[0], v, x->rank * count);
	return true;
}

/* ---- shapes as values, constants, ranges ------------------------------------ */

static bool shape_op(ctx *c)
{
	const sc_onnx_tensor *x = IN(c, 0);
	if (!known(x))
		return false;
	int64_t start = attr_int(c->node, "start", 0), end = attr_int(c->node, "end", x->rank);
	start = clamp(start < 0 ? start + x->rank : start, 0, x->rank);
	end = clamp(end < 0 ? end + x->rank : end, start, x->rank);
	int64_t n = end - start;
	double v[MAXR];
	set_shape(c->out[0], 1, &n, DT(INT64));
	for (int64_t i = 0; i < n; i++)
		v[i] = (double)x->dim[start + i];
	set_values(c->out[0], v, n);
	return true;
}

static bool size_op(ctx *c)
{
	int64_t none = 0, n = sc_onnx_numel(IN(c, 0));
	if (!IN(c, 0))
		return false;
	set_shape(c->out[0], 0, &none, DT(INT64)); /* a scalar, whatever the input */
	if (n >= 0) {
		double v = (double)n;
		set_values(c->out[0], &v, 1);
	}
	return true;
}

static bool constant_of_shape(ctx *c)
{
	int64_t shape[MAXV];
	int n;
	if (!ints_of(IN(c, 0), shape, &n) || n > MAXR)
		return false;
	for (int i = 0; i < n; i++)
		if (shape[i] < 0)
			return false;
	/* the fill: attribute value, a one-element tensor (default float 0) */
	const Onnx__AttributeProto *a = sc_onnx_attr(c->node, "value");
	sc_onnx_tensor fill = {.known = true, .dtype = DT(FLOAT), .nvalues = 1};
	if (a && a->t && !decode_tensor(a->t, &fill))
		return false;
	set_shape(c->out[0], n, shape, fill.dtype);
	int64_t count = sc_onnx_dims_numel(n, shape);
	if (fill.nvalues == 1 && count >= 0 && count <= MAXV) {
		double v[MAXV];
		for (int64_t i = 0; i < count; i++)
			v[i] = fill.value[0];
		set_values(c->out[0], v, count);
	}
	return true;
}

/* Constant: its value attribute (a tensor, sparse tensor, number, list or
 * string) */
static bool constant(ctx *c)
{
	sc_onnx_tensor t = {.known = true, .nvalues = -1};
	const Onnx__AttributeProto *a;
	if ((a = sc_onnx_attr(c->node, "value")) && a->t) {
		if (!decode_tensor(a->t, &t))
			return false;
	} else if ((a = sc_onnx_attr(c->node, "sparse_value")) && a->sparse_tensor) {
		const Onnx__SparseTensorProto *s = a->sparse_tensor;
		if (s->n_dims > MAXR)
			return false;
		t.rank = (int)s->n_dims;
		for (int i = 0; i < t.rank; i++)
			if ((t.dim[i] = s->dims[i]) < 0)
				return false;
		t.dtype = s->values && s->values->has_data_type ? s->values->data_type : 0;
	} else if ((a = sc_onnx_attr(c->node, "value_int")) ||
	           (a = sc_onnx_attr(c->node, "value_float"))) {
		bool integer = strcmp(a->name, "value_int") == 0;
		t.dtype = integer ? DT(INT64) : DT(FLOAT);
		t.value[0] = integer ? (double)a->i : a->f;
		t.nvalues = 1;
	} else if ((a = sc_onnx_attr(c->node, "value_ints")) ||
	           (a = sc_onnx_attr(c->node, "value_floats"))) {
		bool integer = strcmp(a->name, "value_ints") == 0;
		size_t n = integer ? a->n_ints : a->n_floats;
		t.rank = 1;
		t.dim[0] = (int64_t)n;
		t.dtype = integer ? DT(INT64) : DT(FLOAT);
		for (size_t i = 0; n <= MAXV && i < n; i++)
			t.value[i] = integer ? (double)a->ints[i] : a->floats[i];
		t.nvalues = n <= MAXV ? (int)n : -1;
	} else if ((a = sc_onnx_attr(c->node, "value_string")) ||
	           (a = sc_onnx_attr(c->node, "value_strings"))) {
		t.rank = strcmp(a->name, "value_strings") == 0 ? 1 : 0;
		t.dim[0] = (int64_t)a->n_strings;
		t.dtype = DT(STRING);
	} else {
		return false;
	}
	set_shape(c->out[0], t.rank, t.dim, t.dtype);
	copy_values(c->out[0], &t);
	return true;
}

/* Range(start, limit, delta): max(ceil((limit - start) / delta), 0)
 * elements; rule->flops per element */
static bool range(ctx *c)
{
	double start, limit, delta;
	if (!scalar_of(IN(c, 0), &start) || !scalar_of(IN(c, 1), &limit) ||
	    !scalar_of(IN(c, 2), &delta) || delta == 0)
		return false;
	double count = ceil((limit - start) / delta);
	if (!(count < 4e18)) /* NaN or past int64 */
		return false;
	int64_t n = count > 0 ? (int64_t)count : 0;
	set_shape(c->out[0], 1, &n, IN(c, 0)->dtype);
	c->flops = c->rule->flops * (double)n;
	if (n <= MAXV) {
		double v[MAXV];
		for (int64_t i = 0; i < n; i++)
			v[i] = start + (double)i * delta;
		set_values(c->out[0], v, n);
	}
	return true;
}

/* ---- the ops another file infers ---------------------------------------------- */

static bool rnn(ctx *c)
{
	return sc_onnx_infer_rnn(c->node, c->in, c->nin, c->out, c->nout, &c->flops);
}

static bool einsum(ctx *c)
{
	return sc_onnx_infer_einsum(c->node, c->in, c->nin, c->out, c->nout, &c->flops);
}

/* ---- one element's value -------------------------------------------------------- */

static double v_abs(double x)
{
	return fabs(x);
}

static double v_ceil(double x)
{
	return ceil(x);
}

static double v_exp(double x)
{
	return exp(x);
}

static double v_floor(double x)
{
	return floor(x);
}

static double v_isnan(double x)
{
	return isnan(x) ? 1 : 0;
}

static double v_log(double x)
{
	return log(x);
}

static double v_neg(double x)
{
	return -x;
}

static double v_not(double x)
{
	return x == 0;
}

static double v_reciprocal(double x)
{
	return 1 / x;
}

static double v_relu(double x)
{
	return x > 0 ? x : 0;
}

static double v_round(double x)
{
	return nearbyint(x); /* ties to even, as ONNX's Round */
}

static double v_sign(double x)
{
	return (x > 0) - (x < 0);
}

static double v_sqrt(double x)
{
	return sqrt(x);
}

static double v_add(const ctx *c, double x, double y)
{
	(void)c;
	return x + y;
}

static double v_sub(const ctx *c, double x, double y)
{
	(void)c;
	return x - y;
}

static double v_mul(const ctx *c, double x, double y)
{
	(void)c;
	return x * y;
}

/* integers truncate toward zero, as C and the runtimes do; a division by
 * zero has no integer value (NAN, which set_values refuses) */
static double v_div(const ctx *c, double x, double y)
{
	if (!is_integer(c->in[0]->dtype))
		return x / y;
	return y == 0 ? NAN : trunc(x / y);
}

/* fmod 0 (integers): the remainder takes the divisor's sign, as Python's %;
 * fmod 1: the dividend's, as C's fmod */
static double v_mod(const ctx *c, double x, double y)
{
	if (y == 0)
		return NAN;
	double r = fmod(x, y);
	if (!attr_int(c->node, "fmod", 0) && r != 0 && (r < 0) != (y < 0))
		r += y;
	return r;
}

static double v_pow(const ctx *c, double x, double y)
{
	(void)c;
	return pow(x, y);
}

static double v_max(const ctx *c, double x, double y)
{
	(void)c;
	return x >= y ? x : y;
}

static double v_min(const ctx *c, double x, double y)
{
	(void)c;
	return x <= y ? x : y;
}

static double v_equal(const ctx *c, double x, double y)
{
	(void)c;
	return x == y;
}

static double v_less(const ctx *c, double x, double y)
{
	(void)c;
	return x < y;
}

static double v_less_equal(const ctx *c, double x, double y)
{
	(void)c;
	return x <= y;
}

static double v_greater(const ctx *c, double x, double y)
{
	(void)c;
	return x > y;
}

static double v_greater_equal(const ctx *c, double x, double y)
{
	(void)c;
	return x >= y;
}

static double v_and(const ctx *c, double x, double y)
{
	(void)c;
	return x != 0 && y != 0;
}

static double v_or(const ctx *c, double x, double y)
{
	(void)c;
	return x != 0 || y != 0;
}

static double v_xor(const ctx *c, double x, double y)
{
	(void)c;
	return (x != 0) != (y != 0);
}

/* ---- the table -------------------------------------------------------------------- */

/* Every op type sc_onnx_infer handles, sorted by strcmp: X(type, the rule's
 * fields).  The man page's list of op types (stagecut(1), INPUT FORMATS,
 * ONNX) is checked against it by tests/unit/test_onnx_shape.c. */
#define ONNX_OPS(X)                                                                                \
	X(Abs, .infer = unary, .flops = 1, .unary = v_abs)                                         \
	X(Add, .infer = elementwise, .flops = 1, .binary = v_add)                                  \
	X(And, .infer = elementwise, .flops = 1, .binary = v_and, .to_bool = true)                 \
	X(ArgMax, .infer = arg_max)                                                                \
	X(ArgMin, .infer = arg_min)                                                                \
	X(AveragePool, .infer = pool)                                                              \
	X(BatchNormalization, .infer = batch_norm, .flops = 2)                                     \
	X(BitShift, .infer = elementwise, .flops = 1)                                              \
	X(Cast, .infer = cast)                                                                     \
	X(CastLike, .infer = cast_like)                                                            \
	X(Ceil, .infer = unary, .flops = 1, .unary = v_ceil)                                       \
	X(Celu, .infer = unary, .flops = 1)                                                        \
	X(Clip, .infer = unary, .flops = 1)                                                        \
	X(Concat, .infer = concat)                                                                 \
	X(Constant, .infer = constant)                                                             \
	X(ConstantOfShape, .infer = constant_of_shape)                                             \
	X(Conv, .infer = conv)                                                                     \
	X(ConvTranspose, .infer = conv_transpose)                                                  \
	X(Cos, .infer = unary, .flops = 1)                                                         \
	X(CumSum, .infer = cumsum)                                                                 \
	X(DepthToSpace, .infer = depth_to_space)                                                   \
	X(DequantizeLinear, .infer = dequantize, .flops = 2)                                       \
	X(Div, .infer = elementwise, .flops = 1, .binary = v_div)                                  \
	X(Dropout, .infer = identity)                                                              \
	X(Einsum, .infer = einsum, .delegated = true)                                              \
	X(Elu, .infer = unary, .flops = 1)                                                         \
	X(Equal, .infer = elementwise, .flops = 1, .binary = v_equal, .to_bool = true)             \
	X(Erf, .infer = unary, .flops = 1)                                                         \
	X(Exp, .infer = unary, .flops = 1, .unary = v_exp)                                         \
	X(Expand, .infer = expand)                                                                 \
	X(Flatten, .infer = flatten)                                                               \
	X(Floor, .infer = unary, .flops = 1, .unary = v_floor)                                     \
	X(GRU, .infer = rnn, .delegated = true)                                                    \
	X(Gather, .infer = gather)                                                                 \
	X(GatherElements, .infer = gather_elements)                                                \
	X(GatherND, .infer = gather_nd)                                                            \
	X(Gelu, .infer = unary, .flops = 1)                                                        \
	X(Gemm, .infer = gemm)                                                                     \
	X(GlobalAveragePool, .infer = global_pool)                                                 \
	X(GlobalLpPool, .infer = global_pool)                                                      \
	X(GlobalMaxPool, .infer = global_pool)                                                     \
	X(Greater, .infer = elementwise, .flops = 1, .binary = v_greater, .to_bool = true)         \
	X(GreaterOrEqual, .infer = elementwise, .flops = 1, .binary = v_greater_equal,             \
	  .to_bool = true)                                                                         \
	X(GroupNormalization, .infer = layer_norm, .flops = 8)                                     \
	X(HardSigmoid, .infer = unary, .flops = 1)                                                 \
	X(HardSwish, .infer = unary, .flops = 1)                                                   \
	X(Identity, .infer = identity)                                                             \
	X(InstanceNormalization, .infer = layer_norm, .flops = 8)                                  \
	X(IsInf, .infer = unary, .flops = 1, .to_bool = true)                                      \
	X(IsNaN, .infer = unary, .flops = 1, .unary = v_isnan, .to_bool = true)                    \
	X(LRN, .infer = lrn)                                                                       \
	X(LSTM, .infer = rnn, .delegated = true)                                                   \
	X(LayerNormalization, .infer = layer_norm, .flops = 8)                                     \
	X(LeakyRelu, .infer = unary, .flops = 1)                                                   \
	X(Less, .infer = elementwise, .flops = 1, .binary = v_less, .to_bool = true)               \
	X(LessOrEqual, .infer = elementwise, .flops = 1, .binary = v_less_equal, .to_bool = true)  \
	X(Log, .infer = unary, .flops = 1, .unary = v_log)                                         \
	X(LogSoftmax, .infer = per_element, .flops = 5)                                            \
	X(LpPool, .infer = pool)                                                                   \
	X(MatMul, .infer = matmul)                                                                 \
	X(Max, .infer = elementwise, .flops = 1, .binary = v_max)                                  \
	X(MaxPool, .infer = pool)                                                                  \
	X(Mean, .infer = elementwise, .flops = 1)                                                  \
	X(Min, .infer = elementwise, .flops = 1, .binary = v_min)                                  \
	X(Mish, .infer = unary, .flops = 1)                                                        \
	X(Mod, .infer = elementwise, .flops = 1, .binary = v_mod)                                  \
	X(Mul, .infer = elementwise, .flops = 1, .binary = v_mul)                                  \
	X(Neg, .infer = unary, .flops = 1, .unary = v_neg)                                         \
	X(NonZero, .infer = nonzero)                                                               \
	X(Not, .infer = unary, .flops = 1, .unary = v_not, .to_bool = true)                        \
	X(OneHot, .infer = one_hot, .flops = 1)                                                    \
	X(Or, .infer = elementwise, .flops = 1, .binary = v_or, .to_bool = true)                   \
	X(PRelu, .infer = prelu, .flops = 1)                                                       \
	X(Pad, .infer = pad)                                                                       \
	X(Pow, .infer = elementwise, .flops = 1, .binary = v_pow)                                  \
	X(QuantizeLinear, .infer = quantize, .flops = 2)                                           \
	X(RNN, .infer = rnn, .delegated = true)                                                    \
	X(Range, .infer = range, .flops = 1)                                                       \
	X(Reciprocal, .infer = unary, .flops = 1, .unary = v_reciprocal)                           \
	X(ReduceL1, .infer = reduce)                                                               \
	X(ReduceL2, .infer = reduce)                                                               \
	X(ReduceLogSum, .infer = reduce)                                                           \
	X(ReduceLogSumExp, .infer = reduce)                                                        \
	X(ReduceMax, .infer = reduce, .binary = v_max)                                             \
	X(ReduceMean, .infer = reduce)                                                             \
	X(ReduceMin, .infer = reduce, .binary = v_min)                                             \
	X(ReduceProd, .infer = reduce, .binary = v_mul)                                            \
	X(ReduceSum, .infer = reduce, .binary = v_add)                                             \
	X(ReduceSumSquare, .infer = reduce)                                                        \
	X(Relu, .infer = unary, .flops = 1, .unary = v_relu)                                       \
	X(Reshape, .infer = reshape)                                                               \
	X(Resize, .infer = resize)                                                                 \
	X(Round, .infer = unary, .flops = 1, .unary = v_round)                                     \
	X(ScatterElements, .infer = scatter_elements)                                              \
	X(ScatterND, .infer = scatter_nd)                                                          \
	X(Selu, .infer = unary, .flops = 1)                                                        \
	X(Shape, .infer = shape_op)                                                                \
	X(Sigmoid, .infer = unary, .flops = 1)                                                     \
	X(Sign, .infer = unary, .flops = 1, .unary = v_sign)                                       \
	X(Sin, .infer = unary, .flops = 1)                                                         \
	X(Size, .infer = size_op)                                                                  \
	X(Slice, .infer = slice)                                                                   \
	X(Softmax, .infer = per_element, .flops = 5)                                               \
	X(Softplus, .infer = unary, .flops = 1)                                                    \
	X(Softsign, .infer = unary, .flops = 1)                                                    \
	X(SpaceToDepth, .infer = space_to_depth)                                                   \
	X(Split, .infer = split)                                                                   \
	X(Sqrt, .infer = unary, .flops = 1, .unary = v_sqrt)                                       \
	X(Squeeze, .infer = squeeze)                                                               \
	X(Sub, .infer = elementwise, .flops = 1, .binary = v_sub)                                  \
	X(Sum, .infer = elementwise, .flops = 1, .binary = v_add)                                  \
	X(Tanh, .infer = unary, .flops = 1)                                                        \
	X(ThresholdedRelu, .infer = unary, .flops = 1)                                             \
	X(Tile, .infer = tile)                                                                     \
	X(TopK, .infer = topk)                                                                     \
	X(Transpose, .infer = transpose)                                                           \
	X(Trilu, .infer = trilu, .flops = 1)                                                       \
	X(Unsqueeze, .infer = unsqueeze)                                                           \
	X(Upsample, .infer = resize)                                                               \
	X(Where, .infer = where, .flops = 1)                                                       \
	X(Xor, .infer = elementwise, .flops = 1, .binary = v_xor, .to_bool = true)

#define OP_RULE(name, ...) {.type = #name, __VA_ARGS__},
#define OP_NAME(name, ...) #name,

static const op_rule rules[] = {ONNX_OPS(OP_RULE)};
static const char *const op_names[] = {ONNX_OPS(OP_NAME)};

const char *const *sc_onnx_supported_ops(int *n)
{
	*n = (int)(sizeof op_names / sizeof op_names[0]);
	return op_names;
}

static int cmp_rule(const void *key, const void *row)
{
	return strcmp(key, ((const op_rule *)row)->type);
}

bool sc_onnx_infer(const Onnx__NodeProto *node, const sc_onnx_tensor *const *in, int nin,
                   sc_onnx_tensor *const *out, int nout, double *flops)
{
	*flops = 0;
	const op_rule *rule =
	        node->op_type ? bsearch(node->op_type, rules, sizeof rules / sizeof rules[0],
	                                sizeof *rules, cmp_rule)
	                      : NULL;
	if (!rule || nout < 1)
		return false; /* an op type not in the table, a custom domain's */
	ctx c = {.node = node, .rule = rule, .in = in, .nin = nin, .out = out, .nout = nout};
	bool ok = rule->infer(&c);
	*flops = c.flops;
	if (rule->delegated)
		return ok;
	return ok && out[0]->known && isfinite(c.flops) && c.flops >= 0;
}
