/*
 * onnx_shape.c - shape inference and FLOP counts for the ONNX op types the
 * cost model knows (stagecut(1), COST MODEL).
 *
 * Each handler reads the input tensors and the node's attributes, fills the
 * outputs and the FLOPs, and returns false when it cannot know them (an input
 * shape unknown, a shape input not constant, dims that do not agree): the
 * loader then marks the op's cost unknown rather than guessing.  Small
 * integer tensors carry their values (Shape, Constant, Gather, Concat,
 * arithmetic on them), so that the shape computations exporters emit before
 * a Reshape resolve.  A FLOP is one multiply or one add: a multiply-accumulate
 * is 2.
 *
 * Longer than 600 lines: one small handler per op family, all reading the
 * same attribute helpers; split by family they would share a header for
 * nothing else.
 */
#include "onnx_shape.h"
#include "onnx_einsum.h"
#include "onnx_rnn.h"

#include <math.h>
#include <string.h>

int sc_onnx_dtype_size(int t)
{
	/* TensorProto.DataType: FLOAT 1, UINT8 2, INT8 3, UINT16 4, INT16 5, INT32 6,
	 * INT64 7, STRING 8, BOOL 9, FLOAT16 10, DOUBLE 11, UINT32 12, UINT64 13,
	 * COMPLEX64 14, COMPLEX128 15, BFLOAT16 16, FLOAT8* 17-20 */
	static const int size[] = {0, 4, 1, 1, 2, 2, 4, 8, 0, 1, 2, 8, 4, 8, 8, 16, 2, 1, 1, 1, 1};
	return t >= 0 && t < (int)(sizeof size / sizeof size[0]) ? size[t] : 0;
}

int64_t sc_onnx_numel(const sc_onnx_tensor *t)
{
	if (!t || !t->known)
		return -1;
	int64_t n = 1;
	for (int i = 0; i < t->rank; i++) {
		if (t->dim[i] < 0)
			return -1;
		if (t->dim[i] && n > ((int64_t)1 << 62) / t->dim[i])
			return -1;
		n *= t->dim[i];
	}
	return n;
}

double sc_onnx_bytes(const sc_onnx_tensor *t)
{
	int64_t n = sc_onnx_numel(t);
	return n < 0 || !t->elem ? -1 : (double)n * t->elem;
}

/* ---- attributes ------------------------------------------------------------ */

const Onnx__AttributeProto *sc_onnx_attr(const Onnx__NodeProto *node, const char *name)
{
	for (size_t i = 0; i < node->n_attribute; i++)
		if (node->attribute[i]->name && strcmp(node->attribute[i]->name, name) == 0)
			return node->attribute[i];
	return NULL;
}

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

static bool attr_is(const Onnx__NodeProto *node, const char *name, const char *value)
{
	const Onnx__AttributeProto *a = sc_onnx_attr(node, name);
	return a && a->has_s && a->s.len == strlen(value) &&
	       memcmp(a->s.data, value, a->s.len) == 0;
}

/* ---- helpers ---------------------------------------------------------------- */

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

static void copy_tensor(sc_onnx_tensor *dst, const sc_onnx_tensor *src)
{
	set_shape(dst, src->rank, src->dim, src->dtype);
	dst->nvalues = src->nvalues;
	memcpy(dst->value, src->value, sizeof src->value);
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

/* the integer values of an input (a constant shape, axes, starts...) */
static bool ints_of(const sc_onnx_tensor *t, int64_t *v, int *n)
{
	if (!t || t->nvalues < 0)
		return false;
	*n = t->nvalues;
	for (int i = 0; i < t->nvalues; i++)
		v[i] = (int64_t)t->value[i];
	return true;
}

/* numpy broadcasting of a and b into out (rank and dims) */
static bool broadcast(const sc_onnx_tensor *a, const sc_onnx_tensor *b, int *rank, int64_t *dim)
{
	int r = a->rank > b->rank ? a->rank : b->rank;
	for (int i = 0; i < r; i++) {
		int ia = i - (r - a->rank), ib = i - (r - b->rank);
		int64_t da = ia >= 0 ? a->dim[ia] : 1, db = ib >= 0 ? b->dim[ib] : 1;
		if (da != db && da != 1 && db != 1)
			return false;
		dim[i] = da == 1 ? db : da;
	}
	*rank = r;
	return true;
}

static double numel_d(const sc_onnx_tensor *t)
{
	return (double)sc_onnx_numel(t);
}

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
	int64_t span = in + pb + pe - d * (k - 1) - 1;
	if (span < 0)
		return false;
	*out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
	return true;
}

/* ---- the handlers --------------------------------------------------------- */

typedef struct ctx {
	const Onnx__NodeProto *node;
	const sc_onnx_tensor *const *in;
	int nin;
	sc_onnx_tensor *const *out;
	int nout;
	double flops;
} ctx;

static const sc_onnx_tensor *IN(const ctx *c, int i)
{
	return i < c->nin ? c->in[i] : NULL;
}

static bool conv(ctx *c, bool transpose)
{
	const sc_onnx_tensor *x = IN(c, 0), *w = IN(c, 1);
	if (!known(x) || !known(w) || x->rank < 3 || w->rank != x->rank)
		return false;
	int nsp = x->rank - 2;
	int64_t group = attr_int(c->node, "group", 1), dim[SC_ONNX_MAX_RANK];
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
			const int64_t *st = attr_ints(c->node, "strides", &n);
			int64_t s = st && i < n ? st[i] : 1;
			const int64_t *op = attr_ints(c->node, "output_padding", &n);
			int64_t opad = op && i < n ? op[i] : 0;
			const int64_t *dl = attr_ints(c->node, "dilations", &n);
			int64_t d = dl && i < n ? dl[i] : 1;
			const int64_t *pads = attr_ints(c->node, "pads", &n);
			int64_t pb = pads && n == 2 * nsp ? pads[i] : 0,
			        pe = pads && n == 2 * nsp ? pads[i + nsp] : 0;
			if (os && attr_ints(c->node, "output_shape", &n) && n == nsp)
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
	sc_onnx_tensor ba = ab, bbb = bb;
	ba.rank -= 2, bbb.rank -= 2;
	int rank;
	int64_t dim[SC_ONNX_MAX_RANK];
	if (!broadcast(&ba, &bbb, &rank, dim) || rank + 2 > SC_ONNX_MAX_RANK)
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

static double arith(const char *op, double x, double y, bool integer)
{
	if (strcmp(op, "Equal") == 0)
		return x == y;
	double r = strcmp(op, "Add") == 0   ? x + y
	           : strcmp(op, "Sub") == 0 ? x - y
	           : strcmp(op, "Mul") == 0 ? x * y
	           : y != 0                 ? x / y
	                                    : 0;
	return integer && strcmp(op, "Div") == 0 ? floor(r) : r;
}

/* elementwise over all inputs with broadcasting; per_elem FLOPs per output
 * element and input beyond the first */
static bool elementwise(ctx *c, double per_elem, bool to_bool)
{
	const sc_onnx_tensor *first = IN(c, 0);
	if (!known(first))
		return false;
	sc_onnx_tensor acc = *first;
	int dtype = first->dtype;
	for (int i = 1; i < c->nin; i++) {
		if (!c->in[i])
			continue;
		/* broadcast reads acc while it writes: into a copy */
		int rank;
		int64_t dim[SC_ONNX_MAX_RANK];
		if (!known(c->in[i]) || !broadcast(&acc, c->in[i], &rank, dim))
			return false;
		acc.rank = rank;
		memcpy(acc.dim, dim, sizeof dim);
		if (strcmp(c->node->op_type, "Where") == 0 && i == 1)
			dtype = c->in[i]->dtype;
	}
	set_shape(c->out[0], acc.rank, acc.dim, to_bool ? 9 : dtype);
	double ops = c->nin > 1 ? (double)(c->nin - 1) : 1;
	c->flops = per_elem * ops * numel_d(c->out[0]);
	/* integer arithmetic on shape values (Shape -> Mul -> Reshape) */
	const sc_onnx_tensor *b = IN(c, 1);
	const char *op = c->node->op_type;
	const sc_onnx_tensor *w = IN(c, 2);
	if (strcmp(op, "Where") == 0 && b && w && first->nvalues >= 0 && b->nvalues >= 0 &&
	    w->nvalues >= 0) {
		int64_t n = sc_onnx_numel(c->out[0]);
		const sc_onnx_tensor *t3[3] = {first, b, w};
		bool fits = n >= 0 && n <= SC_ONNX_MAX_VALUES;
		for (int i = 0; i < 3; i++)
			fits &= t3[i]->nvalues == n || t3[i]->nvalues == 1;
		for (int i = 0; fits && i < n; i++)
			c->out[0]->value[i] = first->value[first->nvalues == 1 ? 0 : i] != 0
			                              ? b->value[b->nvalues == 1 ? 0 : i]
			                              : w->value[w->nvalues == 1 ? 0 : i];
		if (fits)
			c->out[0]->nvalues = (int)n;
	}
	if (c->nin == 2 && b && first->nvalues >= 0 && b->nvalues >= 0 &&
	    (strcmp(op, "Add") == 0 || strcmp(op, "Sub") == 0 || strcmp(op, "Mul") == 0 ||
	     strcmp(op, "Div") == 0 || strcmp(op, "Equal") == 0)) {
		int64_t n = sc_onnx_numel(c->out[0]);
		if (n >= 0 && n <= SC_ONNX_MAX_VALUES &&
		    (first->nvalues == n || first->nvalues == 1) &&
		    (b->nvalues == n || b->nvalues == 1)) {
			bool integer = dtype == 6 || dtype == 7;
			for (int i = 0; i < n; i++)
				c->out[0]->value[i] =
				        arith(op, first->value[first->nvalues == 1 ? 0 : i],
				              b->value[b->nvalues == 1 ? 0 : i], integer);
			c->out[0]->nvalues = (int)n;
		}
	}
	return true;
}

static bool same_shape(ctx *c, double per_elem)
{
	if (!known(IN(c, 0)))
		return false;
	copy_tensor(c->out[0], IN(c, 0));
	c->flops = per_elem * numel_d(IN(c, 0));
	for (int i = 1; i < c->nout; i++) /* Dropout's mask */
		set_shape(c->out[i], IN(c, 0)->rank, IN(c, 0)->dim, 9);
	return true;
}

static bool pool(ctx *c, bool global)
{
	const sc_onnx_tensor *x = IN(c, 0);
	if (!known(x) || x->rank < 3)
		return false;
	int nsp = x->rank - 2, nk;
	int64_t dim[SC_ONNX_MAX_RANK];
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
	if (c->nout > 1) /* MaxPool's indices */
		set_shape(c->out[1], x->rank, dim, 7);
	return true;
}

static bool reshape(ctx *c)
{
	const sc_onnx_tensor *x = IN(c, 0);
	int64_t shape[SC_ONNX_MAX_VALUES];
	int n;
	if (!known(x) || !ints_of(IN(c, 1), shape, &n) || n > SC_ONNX_MAX_RANK)
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
	if (x->nvalues >= 0) {
		c->out[0]->nvalues = x->nvalues;
		memcpy(c->out[0]->value, x->value, sizeof x->value);
	}
	return true;
}

static bool flatten(ctx *c)
{
	const sc_onnx_tensor *x = IN(c, 0);
	int axis;
	if (!known(x))
		return false;
	int64_t a = attr_int(c->node, "axis", 1);
	if (a < 0)
		a += x->rank;
	if (a < 0 || a > x->rank)
		return false;
	axis = (int)a;
	int64_t dim[2] = {1, 1};
	for (int i = 0; i < x->rank; i++)
		dim[i >= axis] *= x->dim[i];
	set_shape(c->out[0], 2, dim, x->dtype);
	return true;
}

static bool transpose(ctx *c)
{
	const sc_onnx_tensor *x = IN(c, 0);
	if (!known(x))
		return false;
	int n;
	const int64_t *perm = attr_ints(c->node, "perm", &n);
	int64_t dim[SC_ONNX_MAX_RANK];
	if (perm && n != x->rank)
		return false;
	for (int i = 0; i < x->rank; i++) {
		int64_t p = perm ? perm[i] : x->rank - 1 - i;
		if (p < 0 || p >= x->rank)
			return false;
		dim[i] = x->dim[p];
	}
	set_shape(c->out[0], x->rank, dim, x->dtype);
	return true;
}

static bool concat(ctx *c)
{
	const sc_onnx_tensor *x = IN(c, 0);
	int axis;
	if (!known(x) || !norm_axis(attr_int(c->node, "axis", 0), x->rank, &axis))
		return false;
	int64_t dim[SC_ONNX_MAX_RANK];
	memcpy(dim, x->dim, sizeof dim);
	dim[axis] = 0;
	bool values = x->rank == 1;
	int nv = 0;
	double v[SC_ONNX_MAX_VALUES];
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
		if (values && t->nvalues >= 0 && nv + t->nvalues <= SC_ONNX_MAX_VALUES) {
			memcpy(v + nv, t->value, (size_t)t->nvalues * sizeof *v);
			nv += t->nvalues;
		} else {
			values = false;
		}
	}
	set_shape(c->out[0], x->rank, dim, x->dtype);
	if (values) {
		c->out[0]->nvalues = nv;
		memcpy(c->out[0]->value, v, (size_t)nv * sizeof *v);
	}
	return true;
}

static bool split(ctx *c)
{
	const sc_onnx_tensor *x = IN(c, 0);
	int axis, n;
	if (!known(x) || c->nout < 1 || !norm_axis(attr_int(c->node, "axis", 0), x->rank, &axis))
		return false;
	int64_t sizes[SC_ONNX_MAX_VALUES];
	const int64_t *sp = attr_ints(c->node, "split", &n);
	if (sp && n <= SC_ONNX_MAX_VALUES)
		memcpy(sizes, sp, (size_t)n * sizeof *sizes);
	else if (!ints_of(IN(c, 1), sizes, &n)) {
		/* equal parts, the last one smaller (opset 18) */
		n = c->nout;
		if (n > SC_ONNX_MAX_VALUES)
			return false;
		int64_t part = (x->dim[axis] + n - 1) / n;
		for (int i = 0; i < n; i++)
			sizes[i] = i < n - 1 ? part : x->dim[axis] - part * (n - 1);
	}
	if (n != c->nout)
		return false;
	for (int i = 0; i < n; i++) {
		int64_t dim[SC_ONNX_MAX_RANK];
		memcpy(dim, x->dim, sizeof dim);
		if (sizes[i] < 0)
			return false;
		dim[axis] = sizes[i];
		set_shape(c->out[i], x->rank, dim, x->dtype);
	}
	return true;
}

static bool slice(ctx *c)
{
	const sc_onnx_tensor *x = IN(c, 0);
	if (!known(x))
		return false;
	int64_t starts[SC_ONNX_MAX_VALUES], ends[SC_ONNX_MAX_VALUES], axes[SC_ONNX_MAX_VALUES],
	        steps[SC_ONNX_MAX_VALUES];
	int ns, ne, na = -1, nst = -1;
	const int64_t *p;
	if ((p = attr_ints(c->node, "starts", &ns))) { /* opset < 10 */
		memcpy(starts, p, (size_t)(ns < SC_ONNX_MAX_VALUES ? ns : 0) * sizeof *p);
		if (!(p = attr_ints(c->node, "ends", &ne)) || ne > SC_ONNX_MAX_VALUES)
			return false;
		memcpy(ends, p, (size_t)ne * sizeof *p);
		if ((p = attr_ints(c->node, "axes", &na)) && na <= SC_ONNX_MAX_VALUES)
			memcpy(axes, p, (size_t)na * sizeof *p);
		else
			na = -1;
	} else {
		if (!ints_of(IN(c, 1), starts, &ns) || !ints_of(IN(c, 2), ends, &ne))
			return false;
		if (IN(c, 3) && !ints_of(IN(c, 3), axes, &na))
			return false;
		if (IN(c, 4) && !ints_of(IN(c, 4), steps, &nst))
			return false;
	}
	if (ns != ne || ns > x->rank || (na >= 0 && na != ns) || (nst >= 0 && nst != ns))
		return false;
	int64_t dim[SC_ONNX_MAX_RANK];
	memcpy(dim, x->dim, sizeof dim);
	int64_t first = 0, step0 = 1;
	for (int i = 0; i < ns; i++) {
		int axis;
		if (!norm_axis(na >= 0 ? axes[i] : i, x->rank, &axis))
			return false;
		int64_t d = x->dim[axis], st = nst >= 0 ? steps[i] : 1, b = starts[i], e = ends[i];
		if (st == 0)
			return false;
		if (b < 0)
			b += d;
		if (e < 0)
			e += d;
		if (st > 0) {
			b = b < 0 ? 0 : b > d ? d : b;
			e = e < 0 ? 0 : e > d ? d : e;
			dim[axis] = e > b ? (e - b + st - 1) / st : 0;
		} else {
			b = b < 0 ? -1 : b > d - 1 ? d - 1 : b;
			e = e < -1 ? -1 : e > d - 1 ? d - 1 : e;
			dim[axis] = b > e ? (b - e - st - 1) / -st : 0;
		}
		first = b, step0 = st;
	}
	set_shape(c->out[0], x->rank, dim, x->dtype);
	if (x->rank == 1 && x->nvalues >= 0 && ns == 1) {
		int64_t n = dim[0];
		for (int64_t i = 0; i < n; i++) {
			int64_t j = first + i * step0;
			if (j < 0 || j >= x->nvalues)
				return true;
			c->out[0]->value[i] = x->value[j];
		}
		c->out[0]->nvalues = (int)n;
	}
	return true;
}

static bool gather(ctx *c)
{
	const sc_onnx_tensor *x = IN(c, 0), *idx = IN(c, 1);
	int axis;
	if (!known(x) || !known(idx) || !norm_axis(attr_int(c->node, "axis", 0), x->rank, &axis) ||
	    x->rank - 1 + idx->rank > SC_ONNX_MAX_RANK)
		return false;
	int64_t dim[SC_ONNX_MAX_RANK];
	int r = 0;
	for (int i = 0; i < axis; i++)
		dim[r++] = x->dim[i];
	for (int i = 0; i < idx->rank; i++)
		dim[r++] = idx->dim[i];
	for (int i = axis + 1; i < x->rank; i++)
		dim[r++] = x->dim[i];
	set_shape(c->out[0], r, dim, x->dtype);
	if (x->rank == 1 && x->nvalues >= 0 && idx->nvalues >= 0) {
		for (int i = 0; i < idx->nvalues; i++) {
			int64_t j = (int64_t)idx->value[i];
			if (j < 0)
				j += x->nvalues;
			if (j < 0 || j >= x->nvalues)
				return true;
			c->out[0]->value[i] = x->value[j];
		}
		c->out[0]->nvalues = idx->nvalues;
	}
	return true;
}

/* the axes of Squeeze, Unsqueeze or a Reduce: attribute or input 1 */
static bool axes_of(ctx *c, int64_t *axes, int *n, bool *given)
{
	const int64_t *p = attr_ints(c->node, "axes", n);
	*given = true;
	if (p && *n <= SC_ONNX_MAX_VALUES) {
		memcpy(axes, p, (size_t)*n * sizeof *p);
		return true;
	}
	if (IN(c, 1))
		return ints_of(IN(c, 1), axes, n);
	*given = false;
	*n = 0;
	return true;
}

static bool squeeze(ctx *c, bool un)
{
	const sc_onnx_tensor *x = IN(c, 0);
	int64_t axes[SC_ONNX_MAX_VALUES], dim[SC_ONNX_MAX_RANK];
	int n;
	bool given;
	if (!known(x) || !axes_of(c, axes, &n, &given) || (un && !given))
		return false;
	int r = un ? x->rank + n : x->rank;
	if (r > SC_ONNX_MAX_RANK)
		return false;
	bool mark[SC_ONNX_MAX_RANK] = {false};
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
	if (x->nvalues >= 0) {
		c->out[0]->nvalues = x->nvalues;
		memcpy(c->out[0]->value, x->value, sizeof x->value);
	}
	return true;
}

static bool reduce(ctx *c)
{
	const sc_onnx_tensor *x = IN(c, 0);
	int64_t axes[SC_ONNX_MAX_VALUES], dim[SC_ONNX_MAX_RANK];
	int n;
	bool given;
	if (!known(x) || !axes_of(c, axes, &n, &given))
		return false;
	bool mark[SC_ONNX_MAX_RANK] = {false}, keep = attr_int(c->node, "keepdims", 1) != 0;
	for (int i = 0; i < n; i++) {
		int a;
		if (!norm_axis(axes[i], x->rank, &a))
			return false;
		mark[a] = true;
	}
	bool all = n == 0 && !attr_int(c->node, "noop_with_empty_axes", 0);
	int r = 0;
	for (int i = 0; i < x->rank; i++) {
		if (all || mark[i]) {
			if (keep)
				dim[r++] = 1;
		} else {
			dim[r++] = x->dim[i];
		}
	}
	set_shape(c->out[0], r, dim, x->dtype);
	c->flops = numel_d(x);
	return true;
}

static bool shape_op(ctx *c)
{
	const sc_onnx_tensor *x = IN(c, 0);
	if (!known(x))
		return false;
	int64_t start = attr_int(c->node, "start", 0), end = attr_int(c->node, "end", x->rank);
	if (start < 0)
		start += x->rank;
	if (end < 0)
		end += x->rank;
	start = start < 0 ? 0 : start > x->rank ? x->rank : start;
	end = end < start ? start : end > x->rank ? x->rank : end;
	int64_t n = end - start;
	set_shape(c->out[0], 1, &n, 7);
	for (int64_t i = 0; i < n; i++)
		c->out[0]->value[i] = (double)x->dim[start + i];
	c->out[0]->nvalues = (int)n;
	return true;
}

static bool constant_of_shape(ctx *c, const sc_onnx_tensor *shape_in, int dtype)
{
	int64_t shape[SC_ONNX_MAX_VALUES];
	int n;
	if (!ints_of(shape_in, shape, &n) || n > SC_ONNX_MAX_RANK)
		return false;
	for (int i = 0; i < n; i++)
		if (shape[i] < 0)
			return false;
	/* the fill value: attribute value, a one-element tensor (default 0.0) */
	const Onnx__AttributeProto *a = sc_onnx_attr(c->node, "value");
	double fill = 0;
	if (a && a->t) {
		const Onnx__TensorProto *t = a->t;
		dtype = t->has_data_type ? t->data_type : dtype;
		if (t->n_int64_data == 1)
			fill = (double)t->int64_data[0];
		else if (t->n_float_data == 1)
			fill = t->float_data[0];
		else if (t->n_int32_data == 1)
			fill = t->int32_data[0];
		else if (t->has_raw_data && t->raw_data.len == 8 && dtype == 7) {
			uint64_t u = 0;
			for (int k = 7; k >= 0; k--)
				u = u << 8 | t->raw_data.data[k];
			fill = (double)(int64_t)u;
		}
	}
	set_shape(c->out[0], n, shape, dtype);
	int64_t count = sc_onnx_numel(c->out[0]);
	if (count >= 0 && count <= SC_ONNX_MAX_VALUES) {
		for (int64_t i = 0; i < count; i++)
			c->out[0]->value[i] = fill;
		c->out[0]->nvalues = (int)count;
	}
	return true;
}

static bool expand(ctx *c)
{
	const sc_onnx_tensor *x = IN(c, 0);
	sc_onnx_tensor s = {.known = true};
	int n;
	int64_t v[SC_ONNX_MAX_VALUES];
	if (!known(x) || !ints_of(IN(c, 1), v, &n) || n > SC_ONNX_MAX_RANK)
		return false;
	s.rank = n;
	memcpy(s.dim, v, (size_t)n * sizeof *v);
	int r;
	int64_t dim[SC_ONNX_MAX_RANK];
	if (!broadcast(x, &s, &r, dim))
		return false;
	set_shape(c->out[0], r, dim, x->dtype);
	return true;
}

static bool pad(ctx *c)
{
	const sc_onnx_tensor *x = IN(c, 0);
	int64_t pads[SC_ONNX_MAX_VALUES], axes[SC_ONNX_MAX_VALUES], dim[SC_ONNX_MAX_RANK];
	int n, na = 0;
	if (!known(x))
		return false;
	const int64_t *p = attr_ints(c->node, "pads", &n); /* opset < 11 */
	if (p && n <= SC_ONNX_MAX_VALUES)
		memcpy(pads, p, (size_t)n * sizeof *p);
	else if (!ints_of(IN(c, 1), pads, &n))
		return false;
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

static bool resize(ctx *c)
{
	const sc_onnx_tensor *x = IN(c, 0);
	if (!known(x))
		return false;
	int64_t dim[SC_ONNX_MAX_RANK], sizes[SC_ONNX_MAX_VALUES];
	int n;
	/* opset 10 and Upsample: (X, scales); opset 11+: (X, roi, scales, sizes) */
	const sc_onnx_tensor *scales = c->nin == 2 ? IN(c, 1) : IN(c, 2);
	if (IN(c, 3) && ints_of(IN(c, 3), sizes, &n) && n == x->rank) {
		memcpy(dim, sizes, (size_t)n * sizeof *sizes);
	} else if (scales && scales->nvalues == x->rank) {
		for (int i = 0; i < x->rank; i++)
			dim[i] = (int64_t)floor((double)x->dim[i] * scales->value[i]);
	} else {
		return false;
	}
	set_shape(c->out[0], x->rank, dim, x->dtype);
	bool nearest = !sc_onnx_attr(c->node, "mode") || attr_is(c->node, "mode", "nearest");
	c->flops = (nearest ? 1 : 4) * numel_d(c->out[0]);
	return true;
}

static bool layer_norm(ctx *c, double per_elem)
{
	const sc_onnx_tensor *x = IN(c, 0);
	if (!same_shape(c, per_elem))
		return false;
	int axis;
	if (c->nout > 1 && norm_axis(attr_int(c->node, "axis", -1), x->rank, &axis)) {
		int64_t dim[SC_ONNX_MAX_RANK];
		for (int i = 0; i < x->rank; i++)
			dim[i] = i < axis ? x->dim[i] : 1;
		for (int i = 1; i < c->nout; i++)
			if (c->out[i]->known == false)
				set_shape(c->out[i], x->rank, dim, 1);
	}
	return true;
}

static bool cast(ctx *c)
{
	if (!known(IN(c, 0)))
		return false;
	copy_tensor(c->out[0], IN(c, 0));
	int to = (int)attr_int(c->node, "to", IN(c, 0)->dtype);
	c->out[0]->dtype = to;
	c->out[0]->elem = sc_onnx_dtype_size(to);
	return true;
}

static const char *const unary[] = {"Relu",
                                    "Sigmoid",
                                    "Tanh",
                                    "Gelu",
                                    "Erf",
                                    "Exp",
                                    "Log",
                                    "Sqrt",
                                    "Neg",
                                    "Abs",
                                    "LeakyRelu",
                                    "Elu",
                                    "Selu",
                                    "HardSigmoid",
                                    "HardSwish",
                                    "Softplus",
                                    "Softsign",
                                    "Clip",
                                    "Not",
                                    "Reciprocal",
                                    "Floor",
                                    "Ceil",
                                    "Round",
                                    "Sign",
                                    "Sin",
                                    "Cos",
                                    "Mish",
                                    "Celu",
                                    "ThresholdedRelu",
                                    "PRelu",
                                    "IsNaN",
                                    "IsInf",
                                    "Trilu",
                                    NULL};
static const char *const binary[] = {"Add", "Sub", "Mul",  "Div",   "Pow",      "Max", "Min",
                                     "Mod", "Sum", "Mean", "Where", "BitShift", NULL};
static const char *const compare[] = {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual",
                                      "And",   "Or",   "Xor",     NULL};
static const char *const reduces[] = {
        "ReduceMean", "ReduceSum", "ReduceMax",       "ReduceMin",       "ReduceProd",
        "ReduceL1",   "ReduceL2",  "ReduceSumSquare", "ReduceLogSumExp", NULL};

static bool in_list(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (strcmp(*list, s) == 0)
			return true;
	return false;
}

bool sc_onnx_infer(const Onnx__NodeProto *node, const sc_onnx_tensor *const *in, int nin,
                   sc_onnx_tensor *const *out, int nout, double *flops)
{
	ctx c = {.node = node, .in = in, .nin = nin, .out = out, .nout = nout};
	const char *t = node->op_type ? node->op_type : "";
	bool ok;
	*flops = 0;
	if (nout < 1)
		return false;
	if (in_list(unary, t))
		ok = strcmp(t, "PRelu") == 0 ? elementwise(&c, 1, false) : same_shape(&c, 1);
	else if (in_list(binary, t))
		ok = elementwise(&c, 1, false);
	else if (in_list(compare, t))
		ok = elementwise(&c, 1, true);
	else if (in_list(reduces, t))
		ok = reduce(&c);
	else if (!strcmp(t, "Conv"))
		ok = conv(&c, false);
	else if (!strcmp(t, "ConvTranspose"))
		ok = conv(&c, true);
	else if (!strcmp(t, "MatMul"))
		ok = matmul(&c);
	else if (!strcmp(t, "Gemm"))
		ok = gemm(&c);
	else if (!strcmp(t, "Softmax") || !strcmp(t, "LogSoftmax"))
		ok = same_shape(&c, 5);
	else if (!strcmp(t, "LayerNormalization") || !strcmp(t, "InstanceNormalization") ||
	         !strcmp(t, "GroupNormalization"))
		ok = layer_norm(&c, 8);
	else if (!strcmp(t, "BatchNormalization"))
		ok = same_shape(&c, 2);
	else if (!strcmp(t, "MaxPool") || !strcmp(t, "AveragePool") || !strcmp(t, "LpPool"))
		ok = pool(&c, false);
	else if (!strcmp(t, "GlobalAveragePool") || !strcmp(t, "GlobalMaxPool"))
		ok = pool(&c, true);
	else if (!strcmp(t, "Reshape"))
		ok = reshape(&c);
	else if (!strcmp(t, "Flatten"))
		ok = flatten(&c);
	else if (!strcmp(t, "Transpose"))
		ok = transpose(&c);
	else if (!strcmp(t, "Concat"))
		ok = concat(&c);
	else if (!strcmp(t, "Split"))
		ok = split(&c);
	else if (!strcmp(t, "Slice"))
		ok = slice(&c);
	else if (!strcmp(t, "Gather"))
		ok = gather(&c);
	else if (!strcmp(t, "Squeeze"))
		ok = squeeze(&c, false);
	else if (!strcmp(t, "Unsqueeze"))
		ok = squeeze(&c, true);
	else if (!strcmp(t, "Resize") || !strcmp(t, "Upsample"))
		ok = resize(&c);
	else if (!strcmp(t, "Shape"))
		ok = shape_op(&c);
	else if (!strcmp(t, "Size")) {
		int64_t none = 0;
		set_shape(out[0], 0, &none, 7);
		ok = true;
	} else if (!strcmp(t, "Identity") || !strcmp(t, "Dropout"))
		ok = same_shape(&c, 0);
	else if (!strcmp(t, "Cast") || !strcmp(t, "CastLike"))
		ok = cast(&c);
	else if (!strcmp(t, "ConstantOfShape"))
		ok = constant_of_shape(&c, IN(&c, 0), 1);
	else if (!strcmp(t, "Expand"))
		ok = expand(&c);
	else if (!strcmp(t, "Pad"))
		ok = pad(&c);
	else if (sc_onnx_is_rnn(t))
		return sc_onnx_infer_rnn(node, in, nin, out, nout, flops);
	else if (!strcmp(t, "Einsum"))
		return sc_onnx_infer_einsum(node, in, nin, out, nout, flops);
	else
		return false; /* Constant is the loader's: its value is a tensor */
	*flops = c.flops;
	for (int i = 0; ok && i < nout; i++)
		if (!out[i]->known && i == 0)
			ok = false;
	return ok && isfinite(*flops) && *flops >= 0;
}
