/*
 * test_onnx_shape.c - sc_onnx_infer on nodes built here with protobuf-c's
 * generated structs: the op table against itself and against the man
 * page's list, the value chains real exports compute their shapes with
 * (swin_t's pads, a GPT's Range over a dynamic length), every op type added
 * for the issue "every exported model imports whole", and each path that
 * carries constant values.  Shapes, values and FLOPs expected are computed
 * by hand in the comments.
 *
 * Longer than 600 lines: a test per op family, all on the node and tensor
 * builders at the top.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/formats/onnx_shape.h"
#include "tests/support.h"

#define MAN_PAGE "man/stagecut.1"

/* TensorProto.DataType */
enum { F32 = 1, U8 = 2, I8 = 3, I32 = 6, I64 = 7, BOOL = 9 };

/* ---- nodes ------------------------------------------------------------------ */

#define MAXA 8

typedef struct tnode {
	Onnx__NodeProto n;
	Onnx__AttributeProto a[MAXA], *pa[MAXA];
	int64_t ints[MAXA][16];
	Onnx__TensorProto tensor;
	int64_t tensor_dim;
	uint8_t raw[8];
} tnode;

static Onnx__NodeProto *node(tnode *t, const char *type)
{
	memset(t, 0, sizeof *t);
	onnx__node_proto__init(&t->n);
	t->n.op_type = (char *)type;
	t->n.attribute = t->pa;
	return &t->n;
}

static Onnx__AttributeProto *attr(tnode *t, const char *name)
{
	size_t i = t->n.n_attribute++;
	cr_assert_lt(i, MAXA);
	Onnx__AttributeProto *a = &t->a[i];
	onnx__attribute_proto__init(a);
	a->name = (char *)name;
	a->has_type = 1;
	t->pa[i] = a;
	return a;
}

static void attr_i(tnode *t, const char *name, int64_t v)
{
	Onnx__AttributeProto *a = attr(t, name);
	a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
	a->has_i = 1;
	a->i = v;
}

static void attr_s(tnode *t, const char *name, const char *s)
{
	Onnx__AttributeProto *a = attr(t, name);
	a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
	a->has_s = 1;
	a->s.len = strlen(s);
	a->s.data = (uint8_t *)s;
}

static void attr_ints(tnode *t, const char *name, int n, const int64_t *v)
{
	Onnx__AttributeProto *a = attr(t, name);
	int64_t *store = t->ints[t->n.n_attribute - 1];
	cr_assert_leq(n, 16);
	memcpy(store, v, (size_t)n * sizeof *v);
	a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
	a->n_ints = (size_t)n;
	a->ints = store;
}

/* a one-element tensor attribute: int64 in int64_data, float in raw_data
 * (little-endian), as exporters write them */
static void attr_tensor(tnode *t, const char *name, int dtype, double v)
{
	Onnx__AttributeProto *a = attr(t, name);
	Onnx__TensorProto *p = &t->tensor;
	onnx__tensor_proto__init(p);
	t->tensor_dim = 1;
	p->n_dims = 1;
	p->dims = &t->tensor_dim;
	p->has_data_type = 1;
	p->data_type = dtype;
	if (dtype == I64) {
		t->ints[t->n.n_attribute - 1][0] = (int64_t)v;
		p->n_int64_data = 1;
		p->int64_data = t->ints[t->n.n_attribute - 1];
	} else {
		float f = (float)v;
		uint32_t u;
		memcpy(&u, &f, sizeof u);
		for (int k = 0; k < 4; k++)
			t->raw[k] = (uint8_t)(u >> (8 * k));
		p->has_raw_data = 1;
		p->raw_data.len = 4;
		p->raw_data.data = t->raw;
	}
	a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR;
	a->t = p;
}

/* ---- tensors ------------------------------------------------------------------- */

#define DIMS(...) ((const int64_t[]){__VA_ARGS__})
#define VALS(...) ((const double[]){__VA_ARGS__})
#define NVALS(...) ((int)(sizeof((const double[]){__VA_ARGS__}) / sizeof(double)))
#define INPUTS(...)                                                                                \
	(const sc_onnx_tensor *const[]){__VA_ARGS__},                                              \
	        (int)(sizeof((const sc_onnx_tensor *const[]){__VA_ARGS__}) /                       \
	              sizeof(const sc_onnx_tensor *))

static sc_onnx_tensor shaped(int dtype, int rank, const int64_t *dim)
{
	sc_onnx_tensor t = {.known = true,
	                    .rank = rank,
	                    .dtype = dtype,
	                    .elem = sc_onnx_dtype_size(dtype),
	                    .nvalues = -1};
	for (int i = 0; i < rank; i++)
		t.dim[i] = dim[i];
	return t;
}

static sc_onnx_tensor valued(int dtype, int rank, const int64_t *dim, const double *v)
{
	sc_onnx_tensor t = shaped(dtype, rank, dim);
	t.nvalues = (int)sc_onnx_numel(&t);
	cr_assert(t.nvalues >= 0 && t.nvalues <= SC_ONNX_MAX_VALUES);
	for (int i = 0; i < t.nvalues; i++)
		t.value[i] = v[i];
	return t;
}

static sc_onnx_tensor scalar(int dtype, double v)
{
	return valued(dtype, 0, NULL, &v);
}

/* a 1-D tensor of values */
#define VEC(dtype, ...) valued(dtype, 1, DIMS(NVALS(__VA_ARGS__)), VALS(__VA_ARGS__))

/* node on in[0..nin) into out[0..nout), reset first as the loader does */
static bool run(const Onnx__NodeProto *n, const sc_onnx_tensor *const *in, int nin,
                sc_onnx_tensor *out, int nout, double *flops)
{
	sc_onnx_tensor *po[4];
	cr_assert_leq(nout, 4);
	for (int i = 0; i < nout; i++) {
		memset(&out[i], 0, sizeof out[i]);
		out[i].nvalues = -1;
		po[i] = &out[i];
	}
	return sc_onnx_infer(n, in, nin, po, nout, flops);
}

static void expect_shape(const sc_onnx_tensor *t, int rank, const int64_t *dim, int dtype)
{
	cr_assert(t->known, "the shape is unknown");
	cr_assert_eq(t->rank, rank, "rank %d, expected %d", t->rank, rank);
	for (int i = 0; i < rank; i++)
		cr_assert_eq(t->dim[i], dim[i], "dim %d is %lld, expected %lld", i,
		             (long long)t->dim[i], (long long)dim[i]);
	cr_assert_eq(t->dtype, dtype, "type %d, expected %d", t->dtype, dtype);
}

static void expect_values(const sc_onnx_tensor *t, int n, const double *v)
{
	cr_assert_eq(t->nvalues, n, "%d values, expected %d", t->nvalues, n);
	for (int i = 0; i < n; i++)
		cr_assert(fabs(t->value[i] - v[i]) <= 1e-12 * fmax(1, fabs(v[i])),
		          "value %d is %.17g, expected %.17g", i, t->value[i], v[i]);
}

#define EXPECT_VALUES(t, ...) expect_values(t, NVALS(__VA_ARGS__), VALS(__VA_ARGS__))

/* ---- the table ------------------------------------------------------------------- */

static bool is_delegated(const char *op)
{
	return !strcmp(op, "LSTM") || !strcmp(op, "GRU") || !strcmp(op, "RNN") ||
	       !strcmp(op, "Einsum");
}

Test(onnx_shape, the_table_is_sorted_and_names_the_new_types)
{
	int n;
	const char *const *ops = sc_onnx_supported_ops(&n);
	cr_assert_gt(n, 100);
	for (int i = 1; i < n; i++)
		cr_expect_lt(strcmp(ops[i - 1], ops[i]), 0,
		             "'%s' before '%s': the table must be sorted by strcmp, once each",
		             ops[i - 1], ops[i]);
	static const char *const wanted[] = {"Range",
	                                     "Tile",
	                                     "TopK",
	                                     "CumSum",
	                                     "ArgMax",
	                                     "ArgMin",
	                                     "DepthToSpace",
	                                     "SpaceToDepth",
	                                     "GatherElements",
	                                     "GatherND",
	                                     "ScatterND",
	                                     "ScatterElements",
	                                     "NonZero",
	                                     "LRN",
	                                     "QuantizeLinear",
	                                     "DequantizeLinear",
	                                     "Where",
	                                     "Mod",
	                                     "Not",
	                                     "And",
	                                     "Or",
	                                     "Xor",
	                                     "Trilu",
	                                     "OneHot",
	                                     "LSTM",
	                                     "GRU",
	                                     "RNN",
	                                     "Einsum",
	                                     "Constant"};
	for (size_t w = 0; w < sizeof wanted / sizeof *wanted; w++) {
		bool found = false;
		for (int i = 0; i < n && !found; i++)
			found = strcmp(ops[i], wanted[w]) == 0;
		cr_expect(found, "%s is not in the table", wanted[w]);
	}
}

/* every handler refuses a node without inputs, and one whose input has no
 * known shape, without reading past what it was given; an unknown type is
 * refused too */
Test(onnx_shape, every_type_refuses_missing_or_unknown_inputs)
{
	int n;
	const char *const *ops = sc_onnx_supported_ops(&n);
	sc_onnx_tensor out[4], unknown = {.nvalues = -1};
	double flops;
	tnode t;
	for (int i = 0; i < n; i++) {
		if (is_delegated(ops[i]) || !strcmp(ops[i], "Constant"))
			continue; /* other files' ops; a Constant needs no input */
		cr_expect(!run(node(&t, ops[i]), NULL, 0, out, 4, &flops), "%s without inputs",
		          ops[i]);
		bool ok = run(node(&t, ops[i]), INPUTS(&unknown), out, 4, &flops);
		if (!strcmp(ops[i], "Size")) /* a scalar whatever its input */
			cr_expect(ok && out[0].known && out[0].nvalues == -1, "Size");
		else
			cr_expect(!ok, "%s with an input of unknown shape", ops[i]);
	}
	sc_onnx_tensor x = shaped(F32, 1, DIMS(4));
	cr_assert(!run(node(&t, "FooBar"), INPUTS(&x), out, 1, &flops));
	cr_assert(!run(node(&t, "Constant"), NULL, 0, out, 1, &flops), "a Constant of nothing");
}

/* The man page's list of op types (the paragraph starting "Shapes come
 * from", after the comment line naming sc_onnx_supported_ops) is the table,
 * in its order, every type once. */
Test(onnx_shape, the_man_page_lists_the_table_and_nothing_else)
{
	char *man = ts_slurp(MAN_PAGE, NULL);
	cr_assert(man, "cannot read " MAN_PAGE);
	/* roff to text: \- is '-', \% (do not hyphenate) nothing */
	char *w = man;
	for (const char *r = man; *r; r++) {
		if (r[0] == '\\' && r[1] == '%') {
			r++;
			continue;
		}
		if (r[0] == '\\' && r[1] == '-')
			r++;
		*w++ = *r;
	}
	*w = '\0';
	char *para = strstr(man, "\nShapes come from");
	cr_assert(para, "no 'Shapes come from' paragraph in " MAN_PAGE);
	char *end = strstr(para, "\n.PP");
	cr_assert(end, "the 'Shapes come from' paragraph does not end");
	*end = '\0';
	char *list = strstr(para, "sc_onnx_supported_ops");
	cr_assert(list, "no comment naming sc_onnx_supported_ops before the list");
	list = strchr(list, '\n');
	while (list && strncmp(list, "\n.\\\"", 4) == 0) /* past more comment lines */
		list = strchr(list + 1, '\n');
	cr_assert(list, "nothing after the comment");
	char *stop = strchr(list, '.');
	cr_assert(stop, "the list does not end with a full stop");
	*stop = '\0';
	int n, k = 0;
	const char *const *ops = sc_onnx_supported_ops(&n);
	for (char *word = strtok(list, " ,\n"); word; word = strtok(NULL, " ,\n")) {
		if (!strcmp(word, "and"))
			continue;
		cr_expect(k < n && !strcmp(word, ops[k]),
		          "the man page lists '%s' where the table has '%s'", word,
		          k < n ? ops[k] : "nothing more");
		k++;
	}
	cr_expect_eq(k, n, MAN_PAGE " lists %d op types, the table %d", k, n);
	free(man);
}

/* ---- the chains real exports compute shapes with --------------------------------- */

/* torchvision's swin_t pads a feature map of H x W = 10 x 13 to multiples of
 * the window (7): pad_r = (7 - 13 mod 7) mod 7 = 1, pad_b = (7 - 10 mod 7)
 * mod 7 = 4; torch's pad list (0, 0, 0, pad_r, 0, pad_b) becomes ONNX's
 * through ConstantOfShape, Concat, Reshape, Slice (step -1), Transpose,
 * Reshape and Cast.  Without the values the Pad's shape, and its cost, were
 * unknown. */
Test(onnx_shape, swin_pads_from_mod_and_a_reversing_slice)
{
	tnode t;
	double fl;
	sc_onnx_tensor x = shaped(F32, 4, DIMS(1, 10, 13, 96)), shp, w, h, b[4];
	cr_assert(run(node(&t, "Shape"), INPUTS(&x), &shp, 1, &fl));
	EXPECT_VALUES(&shp, 1, 10, 13, 96);
	sc_onnx_tensor two = scalar(I64, 2), one = scalar(I64, 1), seven = scalar(I64, 7);
	cr_assert(run(node(&t, "Gather"), INPUTS(&shp, &two), &w, 1, &fl));
	expect_shape(&w, 0, NULL, I64);
	EXPECT_VALUES(&w, 13);
	cr_assert(run(node(&t, "Gather"), INPUTS(&shp, &one), &h, 1, &fl));
	EXPECT_VALUES(&h, 10);
	/* pad_r: 13 mod 7 = 6, 7 - 6 = 1, 1 mod 7 = 1 */
	cr_assert(run(node(&t, "Mod"), INPUTS(&w, &seven), &b[0], 1, &fl));
	EXPECT_VALUES(&b[0], 6);
	cr_assert(run(node(&t, "Sub"), INPUTS(&seven, &b[0]), &b[1], 1, &fl));
	cr_assert(run(node(&t, "Mod"), INPUTS(&b[1], &seven), &b[2], 1, &fl));
	EXPECT_VALUES(&b[2], 1);
	sc_onnx_tensor axes0 = VEC(I64, 0), pad_r, pad_b;
	cr_assert(run(node(&t, "Unsqueeze"), INPUTS(&b[2], &axes0), &pad_r, 1, &fl));
	expect_shape(&pad_r, 1, DIMS(1), I64);
	/* pad_b: 10 mod 7 = 3, 7 - 3 = 4, 4 mod 7 = 4 */
	cr_assert(run(node(&t, "Mod"), INPUTS(&h, &seven), &b[0], 1, &fl));
	cr_assert(run(node(&t, "Sub"), INPUTS(&seven, &b[0]), &b[1], 1, &fl));
	cr_assert(run(node(&t, "Mod"), INPUTS(&b[1], &seven), &b[2], 1, &fl));
	cr_assert(run(node(&t, "Unsqueeze"), INPUTS(&b[2], &axes0), &pad_b, 1, &fl));
	EXPECT_VALUES(&pad_b, 4);
	/* torch's list: [0, 0, 0] ++ [pad_r] ++ [0] ++ [pad_b] = [0 0 0 1 0 4] */
	sc_onnx_tensor z3 = VEC(I64, 0, 0, 0), z1 = VEC(I64, 0), pads6;
	cr_assert(run(node(&t, "Concat"), INPUTS(&z3, &pad_r, &z1, &pad_b), &pads6, 1, &fl));
	EXPECT_VALUES(&pads6, 0, 0, 0, 1, 0, 4);
	/* the rest to 2 x rank: 4 x 2 - len = 8 - 6 = 2 zeros */
	sc_onnx_tensor len, four = scalar(I64, 4), ext, ext1, zeros;
	cr_assert(run(node(&t, "Shape"), INPUTS(&pads6), &shp, 1, &fl));
	sc_onnx_tensor zero = scalar(I64, 0);
	cr_assert(run(node(&t, "Gather"), INPUTS(&shp, &zero), &len, 1, &fl));
	cr_assert(run(node(&t, "Mul"), INPUTS(&four, &two), &b[3], 1, &fl));
	cr_assert(run(node(&t, "Sub"), INPUTS(&b[3], &len), &ext, 1, &fl));
	EXPECT_VALUES(&ext, 2);
	cr_assert(run(node(&t, "Unsqueeze"), INPUTS(&ext, &axes0), &ext1, 1, &fl));
	node(&t, "ConstantOfShape");
	attr_tensor(&t, "value", I64, 0);
	cr_assert(run(&t.n, INPUTS(&ext1), &zeros, 1, &fl));
	expect_shape(&zeros, 1, DIMS(2), I64);
	EXPECT_VALUES(&zeros, 0, 0);
	sc_onnx_tensor all, m42, rev, tr, flat, cast;
	cr_assert(run(node(&t, "Concat"), INPUTS(&pads6, &zeros), &all, 1, &fl));
	EXPECT_VALUES(&all, 0, 0, 0, 1, 0, 4, 0, 0);
	sc_onnx_tensor shape42 = VEC(I64, -1, 2);
	cr_assert(run(node(&t, "Reshape"), INPUTS(&all, &shape42), &m42, 1, &fl));
	expect_shape(&m42, 2, DIMS(4, 2), I64);
	/* rows 3, 2, 1, 0: start -1 -> 3, end -(2^63 - 1) -> clamped to -1 */
	sc_onnx_tensor st = VEC(I64, -1), en = VEC(I64, -9223372036854775807.0), ax = VEC(I64, 0),
	               sp = VEC(I64, -1);
	cr_assert(run(node(&t, "Slice"), INPUTS(&m42, &st, &en, &ax, &sp), &rev, 1, &fl));
	expect_shape(&rev, 2, DIMS(4, 2), I64);
	EXPECT_VALUES(&rev, 0, 0, 0, 4, 0, 1, 0, 0);
	/* columns become rows: begins [0 0 0 0], ends [0 4 1 0] */
	cr_assert(run(node(&t, "Transpose"), INPUTS(&rev), &tr, 1, &fl));
	expect_shape(&tr, 2, DIMS(2, 4), I64);
	EXPECT_VALUES(&tr, 0, 0, 0, 0, 0, 4, 1, 0);
	sc_onnx_tensor minus1 = VEC(I64, -1);
	cr_assert(run(node(&t, "Reshape"), INPUTS(&tr, &minus1), &flat, 1, &fl));
	node(&t, "Cast");
	attr_i(&t, "to", I64);
	cr_assert(run(&t.n, INPUTS(&flat), &cast, 1, &fl));
	EXPECT_VALUES(&cast, 0, 0, 0, 0, 0, 4, 1, 0);
	/* H 10 + 4, W 13 + 1 */
	sc_onnx_tensor padded;
	cr_assert(run(node(&t, "Pad"), INPUTS(&x, &cast), &padded, 1, &fl));
	expect_shape(&padded, 4, DIMS(1, 14, 14, 96), F32);
	cr_assert_eq(fl, 0);
}

/* A GPT exported with a dynamic sequence length T (here 5): positions are
 * Range(0, T, 1), T a one-element slice of the input's shape squeezed to a
 * scalar. */
Test(onnx_shape, gpt_range_over_a_squeezed_length)
{
	tnode t;
	double fl;
	sc_onnx_tensor x = shaped(I64, 2, DIMS(2, 5)), shp, t1, tlen, pos, row;
	cr_assert(run(node(&t, "Shape"), INPUTS(&x), &shp, 1, &fl));
	sc_onnx_tensor s = VEC(I64, 1), e = VEC(I64, 2), axes0 = VEC(I64, 0);
	cr_assert(run(node(&t, "Slice"), INPUTS(&shp, &s, &e), &t1, 1, &fl));
	expect_shape(&t1, 1, DIMS(1), I64);
	EXPECT_VALUES(&t1, 5);
	cr_assert(run(node(&t, "Squeeze"), INPUTS(&t1, &axes0), &tlen, 1, &fl));
	expect_shape(&tlen, 0, NULL, I64);
	EXPECT_VALUES(&tlen, 5);
	sc_onnx_tensor zero = scalar(I64, 0), one = scalar(I64, 1);
	cr_assert(run(node(&t, "Range"), INPUTS(&zero, &tlen, &one), &pos, 1, &fl));
	expect_shape(&pos, 1, DIMS(5), I64);
	EXPECT_VALUES(&pos, 0, 1, 2, 3, 4);
	cr_assert_eq(fl, 5, "one add per element");
	cr_assert(run(node(&t, "Unsqueeze"), INPUTS(&pos, &axes0), &row, 1, &fl));
	expect_shape(&row, 2, DIMS(1, 5), I64);
	EXPECT_VALUES(&row, 0, 1, 2, 3, 4);
	/* Squeeze with no axes drops every 1; Unsqueeze of a scalar */
	cr_assert(run(node(&t, "Squeeze"), INPUTS(&t1), &tlen, 1, &fl));
	expect_shape(&tlen, 0, NULL, I64);
	sc_onnx_tensor back;
	cr_assert(run(node(&t, "Unsqueeze"), INPUTS(&tlen, &axes0), &back, 1, &fl));
	expect_shape(&back, 1, DIMS(1), I64);
	EXPECT_VALUES(&back, 5);
	/* an unknown length leaves the Range unknown */
	sc_onnx_tensor dyn = shaped(I64, 0, NULL);
	cr_assert(!run(node(&t, "Range"), INPUTS(&zero, &dyn, &one), &pos, 1, &fl));
}

Test(onnx_shape, range_counts_up_down_and_in_floats)
{
	tnode t;
	double fl;
	sc_onnx_tensor out;
	/* ceil((2 - 1) / 0.25) = 4 */
	sc_onnx_tensor a = scalar(F32, 1), b = scalar(F32, 2), d = scalar(F32, 0.25);
	cr_assert(run(node(&t, "Range"), INPUTS(&a, &b, &d), &out, 1, &fl));
	expect_shape(&out, 1, DIMS(4), F32);
	EXPECT_VALUES(&out, 1, 1.25, 1.5, 1.75);
	/* ceil((4 - 10) / -3) = 2: 10, 7 */
	sc_onnx_tensor s = scalar(I64, 10), l = scalar(I64, 4), m = scalar(I64, -3);
	cr_assert(run(node(&t, "Range"), INPUTS(&s, &l, &m), &out, 1, &fl));
	EXPECT_VALUES(&out, 10, 7);
	/* nothing when the limit is behind: ceil((4 - 10) / 3) < 0 */
	sc_onnx_tensor p = scalar(I64, 3);
	cr_assert(run(node(&t, "Range"), INPUTS(&s, &l, &p), &out, 1, &fl));
	expect_shape(&out, 1, DIMS(0), I64);
	cr_assert_eq(fl, 0);
	sc_onnx_tensor zero = scalar(I64, 0);
	cr_assert(!run(node(&t, "Range"), INPUTS(&s, &l, &zero), &out, 1, &fl), "a zero delta");
}

/* ---- values through the shape ops ------------------------------------------------- */

Test(onnx_shape, gather_on_any_axis)
{
	tnode t;
	double fl;
	sc_onnx_tensor out, x = valued(I64, 2, DIMS(2, 3), VALS(1, 2, 3, 4, 5, 6));
	/* axis 1, indices [2, -3]: columns 2 and 0 -> [[3 1] [6 4]] */
	sc_onnx_tensor ind = VEC(I64, 2, -3);
	node(&t, "Gather");
	attr_i(&t, "axis", 1);
	cr_assert(run(&t.n, INPUTS(&x, &ind), &out, 1, &fl));
	expect_shape(&out, 2, DIMS(2, 2), I64);
	EXPECT_VALUES(&out, 3, 1, 6, 4);
	/* indices [[0] [2]] (2 x 1): out[i][a][b] = x[i][ind[a][b]] -> [1 3 4 6] */
	sc_onnx_tensor ind2 = valued(I64, 2, DIMS(2, 1), VALS(0, 2));
	cr_assert(run(&t.n, INPUTS(&x, &ind2), &out, 1, &fl));
	expect_shape(&out, 3, DIMS(2, 2, 1), I64);
	EXPECT_VALUES(&out, 1, 3, 4, 6);
	/* axis 0, a scalar index: the row */
	sc_onnx_tensor one = scalar(I64, 1);
	cr_assert(run(node(&t, "Gather"), INPUTS(&x, &one), &out, 1, &fl));
	expect_shape(&out, 1, DIMS(3), I64);
	EXPECT_VALUES(&out, 4, 5, 6);
	/* an index out of range: the shape, no values */
	sc_onnx_tensor bad = scalar(I64, 2);
	cr_assert(run(node(&t, "Gather"), INPUTS(&x, &bad), &out, 1, &fl));
	expect_shape(&out, 1, DIMS(3), I64);
	cr_assert_eq(out.nvalues, -1);
}

Test(onnx_shape, slice_with_negative_steps_clamps_axes_and_attributes)
{
	tnode t;
	double fl;
	sc_onnx_tensor out;
	sc_onnx_tensor x = VEC(I64, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19);
	/* start -3 -> 7, end 100 -> 10: 17 18 19 */
	sc_onnx_tensor s1 = VEC(I64, -3), e1 = VEC(I64, 100);
	cr_assert(run(node(&t, "Slice"), INPUTS(&x, &s1, &e1), &out, 1, &fl));
	EXPECT_VALUES(&out, 17, 18, 19);
	/* step -2 from 100 (-> 9) to -100 (-> -90, clamped to -1): 9 7 5 3 1 */
	sc_onnx_tensor s2 = VEC(I64, 100), e2 = VEC(I64, -100), ax = VEC(I64, 0), st = VEC(I64, -2);
	cr_assert(run(node(&t, "Slice"), INPUTS(&x, &s2, &e2, &ax, &st), &out, 1, &fl));
	expect_shape(&out, 1, DIMS(5), I64);
	EXPECT_VALUES(&out, 19, 17, 15, 13, 11);
	/* empty: start 5, end 2, step 1 */
	sc_onnx_tensor s3 = VEC(I64, 5), e3 = VEC(I64, 2);
	cr_assert(run(node(&t, "Slice"), INPUTS(&x, &s3, &e3), &out, 1, &fl));
	expect_shape(&out, 1, DIMS(0), I64);
	cr_assert_eq(out.nvalues, 0);
	/* 3 x 4 = 0..11, axes [1, 0]: columns 1..2, rows 2 down to 1 -> [[9 10] [5 6]] */
	sc_onnx_tensor m = valued(I64, 2, DIMS(3, 4), VALS(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11));
	sc_onnx_tensor s4 = VEC(I64, 1, 2), e4 = VEC(I64, 3, 0), a4 = VEC(I64, 1, 0),
	               p4 = VEC(I64, 1, -1);
	cr_assert(run(node(&t, "Slice"), INPUTS(&m, &s4, &e4, &a4, &p4), &out, 1, &fl));
	expect_shape(&out, 2, DIMS(2, 2), I64);
	EXPECT_VALUES(&out, 9, 10, 5, 6);
	/* opset 1: starts, ends and axes are attributes; columns 0..1 */
	node(&t, "Slice");
	attr_ints(&t, "starts", 1, DIMS(0));
	attr_ints(&t, "ends", 1, DIMS(2));
	attr_ints(&t, "axes", 1, DIMS(1));
	cr_assert(run(&t.n, INPUTS(&m), &out, 1, &fl));
	expect_shape(&out, 2, DIMS(3, 2), I64);
	EXPECT_VALUES(&out, 0, 1, 4, 5, 8, 9);
	/* an axis twice is refused */
	sc_onnx_tensor s5 = VEC(I64, 0, 0), e5 = VEC(I64, 1, 1), a5 = VEC(I64, 0, -2);
	cr_assert(!run(node(&t, "Slice"), INPUTS(&m, &s5, &e5, &a5), &out, 1, &fl));
}

Test(onnx_shape, concat_split_transpose_reshape_flatten_keep_values)
{
	tnode t;
	double fl;
	sc_onnx_tensor out, parts[2];
	/* axis 1: [[1] [2]] and [[3 4] [5 6]] -> [[1 3 4] [2 5 6]] */
	sc_onnx_tensor a = valued(I64, 2, DIMS(2, 1), VALS(1, 2)),
	               b = valued(I64, 2, DIMS(2, 2), VALS(3, 4, 5, 6));
	node(&t, "Concat");
	attr_i(&t, "axis", 1);
	cr_assert(run(&t.n, INPUTS(&a, &b), &out, 1, &fl));
	expect_shape(&out, 2, DIMS(2, 3), I64);
	EXPECT_VALUES(&out, 1, 3, 4, 2, 5, 6);
	/* and split again: sizes [1, 2] on axis 1 */
	sc_onnx_tensor cat = out, sizes = VEC(I64, 1, 2);
	node(&t, "Split");
	attr_i(&t, "axis", 1);
	cr_assert(run(&t.n, INPUTS(&cat, &sizes), parts, 2, &fl));
	EXPECT_VALUES(&parts[0], 1, 2);
	EXPECT_VALUES(&parts[1], 3, 4, 5, 6);
	sc_onnx_tensor bad = VEC(I64, 1, 1);
	cr_assert(!run(&t.n, INPUTS(&cat, &bad), parts, 2, &fl), "sizes that do not add up");
	/* 2 x 1 x 3 = 0..5, perm [2 0 1]: out[a][b][0] = x[b][0][a] = 3b + a */
	sc_onnx_tensor x = valued(I64, 3, DIMS(2, 1, 3), VALS(0, 1, 2, 3, 4, 5));
	node(&t, "Transpose");
	attr_ints(&t, "perm", 3, DIMS(2, 0, 1));
	cr_assert(run(&t.n, INPUTS(&x), &out, 1, &fl));
	expect_shape(&out, 3, DIMS(3, 2, 1), I64);
	EXPECT_VALUES(&out, 0, 3, 1, 4, 2, 5);
	/* Reshape [3 -1] and Flatten at axis 2 keep the order */
	sc_onnx_tensor shape = VEC(I64, 3, -1);
	cr_assert(run(node(&t, "Reshape"), INPUTS(&x, &shape), &out, 1, &fl));
	expect_shape(&out, 2, DIMS(3, 2), I64);
	EXPECT_VALUES(&out, 0, 1, 2, 3, 4, 5);
	node(&t, "Flatten");
	attr_i(&t, "axis", 2);
	cr_assert(run(&t.n, INPUTS(&x), &out, 1, &fl));
	expect_shape(&out, 2, DIMS(2, 3), I64);
	EXPECT_VALUES(&out, 0, 1, 2, 3, 4, 5);
}

Test(onnx_shape, cast_truncates_wraps_and_makes_booleans)
{
	tnode t;
	double fl;
	sc_onnx_tensor out, x = VEC(F32, -1.7, 2.9, 0, 0.5, 300);
	node(&t, "Cast");
	attr_i(&t, "to", I64);
	cr_assert(run(&t.n, INPUTS(&x), &out, 1, &fl));
	expect_shape(&out, 1, DIMS(5), I64);
	EXPECT_VALUES(&out, -1, 2, 0, 0, 300);
	node(&t, "Cast");
	attr_i(&t, "to", BOOL);
	cr_assert(run(&t.n, INPUTS(&x), &out, 1, &fl));
	EXPECT_VALUES(&out, 1, 1, 0, 1, 1);
	/* uint8: -1 wraps to 255, 300 to 44 */
	node(&t, "Cast");
	attr_i(&t, "to", U8);
	cr_assert(run(&t.n, INPUTS(&x), &out, 1, &fl));
	EXPECT_VALUES(&out, 255, 2, 0, 0, 44);
	cr_assert_eq(out.elem, 1);
	/* CastLike takes its second input's type */
	sc_onnx_tensor like = shaped(I32, 0, NULL);
	cr_assert(run(node(&t, "CastLike"), INPUTS(&x, &like), &out, 1, &fl));
	expect_shape(&out, 1, DIMS(5), I32);
	EXPECT_VALUES(&out, -1, 2, 0, 0, 300);
	/* a NaN has no integer */
	sc_onnx_tensor nan = VEC(F32, NAN);
	node(&t, "Cast");
	attr_i(&t, "to", I64);
	cr_assert(run(&t.n, INPUTS(&nan), &out, 1, &fl));
	cr_assert_eq(out.nvalues, -1);
}

/* ---- values through arithmetic ------------------------------------------------------- */

Test(onnx_shape, integer_division_truncates_and_mod_follows_fmod)
{
	tnode t;
	double fl;
	sc_onnx_tensor out;
	/* -7 / 2 = -3.5 -> -3 (floor would say -4), 7 / -2 -> -3 */
	sc_onnx_tensor a = VEC(I64, -7, 7), b = VEC(I64, 2, -2);
	cr_assert(run(node(&t, "Div"), INPUTS(&a, &b), &out, 1, &fl));
	EXPECT_VALUES(&out, -3, -3);
	cr_assert_eq(fl, 2);
	sc_onnx_tensor fa = VEC(F32, -7), fb = VEC(F32, 2);
	cr_assert(run(node(&t, "Div"), INPUTS(&fa, &fb), &out, 1, &fl));
	EXPECT_VALUES(&out, -3.5);
	/* an integer division by zero: the shape, no values */
	sc_onnx_tensor z = VEC(I64, 0, 1);
	cr_assert(run(node(&t, "Div"), INPUTS(&a, &z), &out, 1, &fl));
	expect_shape(&out, 1, DIMS(2), I64);
	cr_assert_eq(out.nvalues, -1);
	/* fmod 0: the divisor's sign: -7 mod 3 = 2, 7 mod -3 = -2, -7 mod -3 = -1 */
	sc_onnx_tensor m = VEC(I64, -7, 7, -7), d = VEC(I64, 3, -3, -3);
	cr_assert(run(node(&t, "Mod"), INPUTS(&m, &d), &out, 1, &fl));
	EXPECT_VALUES(&out, 2, -2, -1);
	/* fmod 1: the dividend's: -7 fmod 3 = -1, 7 fmod 3 = 1 */
	sc_onnx_tensor fm = VEC(F32, -7, 7), fd = VEC(F32, 3);
	node(&t, "Mod");
	attr_i(&t, "fmod", 1);
	cr_assert(run(&t.n, INPUTS(&fm, &fd), &out, 1, &fl));
	EXPECT_VALUES(&out, -1, 1);
}

Test(onnx_shape, arithmetic_broadcasts_values)
{
	tnode t;
	double fl;
	sc_onnx_tensor out;
	/* [[10] [20]] + [[1 2 3]] -> 2 x 3, 6 FLOPs */
	sc_onnx_tensor a = valued(I64, 2, DIMS(2, 1), VALS(10, 20)),
	               b = valued(I64, 2, DIMS(1, 3), VALS(1, 2, 3));
	cr_assert(run(node(&t, "Add"), INPUTS(&a, &b), &out, 1, &fl));
	expect_shape(&out, 2, DIMS(2, 3), I64);
	EXPECT_VALUES(&out, 11, 12, 13, 21, 22, 23);
	cr_assert_eq(fl, 6);
	cr_assert(run(node(&t, "Sub"), INPUTS(&a, &b), &out, 1, &fl));
	EXPECT_VALUES(&out, 9, 8, 7, 19, 18, 17);
	cr_assert(run(node(&t, "Mul"), INPUTS(&a, &b), &out, 1, &fl));
	EXPECT_VALUES(&out, 10, 20, 30, 20, 40, 60);
	/* Sum of three: 2 FLOPs per element; Max, Min of three, the last broadcast */
	sc_onnx_tensor p = VEC(I64, 1, 5), q = VEC(I64, 3, 2), r = VEC(I64, 4);
	cr_assert(run(node(&t, "Sum"), INPUTS(&p, &q, &r), &out, 1, &fl));
	EXPECT_VALUES(&out, 8, 11);
	cr_assert_eq(fl, 4);
	cr_assert(run(node(&t, "Max"), INPUTS(&p, &q, &r), &out, 1, &fl));
	EXPECT_VALUES(&out, 4, 5);
	cr_assert(run(node(&t, "Min"), INPUTS(&p, &q, &r), &out, 1, &fl));
	EXPECT_VALUES(&out, 1, 2);
	/* more than 64 elements: the shape, no values */
	sc_onnx_tensor big = shaped(I64, 1, DIMS(65));
	cr_assert(run(node(&t, "Add"), INPUTS(&big, &r), &out, 1, &fl));
	expect_shape(&out, 1, DIMS(65), I64);
	cr_assert_eq(out.nvalues, -1);
}

Test(onnx_shape, unary_values_and_none_for_the_others)
{
	tnode t;
	double fl;
	sc_onnx_tensor out, x = VEC(F32, -1.5, 2.5);
	cr_assert(run(node(&t, "Neg"), INPUTS(&x), &out, 1, &fl));
	EXPECT_VALUES(&out, 1.5, -2.5);
	cr_assert_eq(fl, 2);
	cr_assert(run(node(&t, "Abs"), INPUTS(&x), &out, 1, &fl));
	EXPECT_VALUES(&out, 1.5, 2.5);
	cr_assert(run(node(&t, "Floor"), INPUTS(&x), &out, 1, &fl));
	EXPECT_VALUES(&out, -2, 2);
	cr_assert(run(node(&t, "Ceil"), INPUTS(&x), &out, 1, &fl));
	EXPECT_VALUES(&out, -1, 3);
	sc_onnx_tensor sq = VEC(F32, 4, 2.25);
	cr_assert(run(node(&t, "Sqrt"), INPUTS(&sq), &out, 1, &fl));
	EXPECT_VALUES(&out, 2, 1.5);
	/* Sigmoid and Softmax have no values here: before, they copied their
	 * input's */
	cr_assert(run(node(&t, "Sigmoid"), INPUTS(&sq), &out, 1, &fl));
	cr_assert_eq(out.nvalues, -1);
	cr_assert(run(node(&t, "Softmax"), INPUTS(&sq), &out, 1, &fl));
	cr_assert_eq(out.nvalues, -1);
	cr_assert_eq(fl, 10, "5 per element");
	/* IsNaN's output is boolean */
	cr_assert(run(node(&t, "IsNaN"), INPUTS(&sq), &out, 1, &fl));
	expect_shape(&out, 1, DIMS(2), BOOL);
	EXPECT_VALUES(&out, 0, 0);
}

Test(onnx_shape, comparisons_and_logic_are_booleans)
{
	tnode t;
	double fl;
	sc_onnx_tensor out, a = VEC(I64, 1, 2, 3), b = VEC(I64, 2, 2, 2);
	static const struct {
		const char *op;
		double v[3];
	} cmp[] = {{"Equal", {0, 1, 0}},
	           {"Less", {1, 0, 0}},
	           {"Greater", {0, 0, 1}},
	           {"LessOrEqual", {1, 1, 0}},
	           {"GreaterOrEqual", {0, 1, 1}}};
	for (size_t i = 0; i < sizeof cmp / sizeof *cmp; i++) {
		cr_assert(run(node(&t, cmp[i].op), INPUTS(&a, &b), &out, 1, &fl), "%s", cmp[i].op);
		expect_shape(&out, 1, DIMS(3), BOOL);
		expect_values(&out, 3, cmp[i].v);
		cr_assert_eq(fl, 3);
	}
	sc_onnx_tensor p = VEC(BOOL, 1, 1, 0, 0), q = VEC(BOOL, 1, 0, 1, 0);
	cr_assert(run(node(&t, "And"), INPUTS(&p, &q), &out, 1, &fl));
	EXPECT_VALUES(&out, 1, 0, 0, 0);
	cr_assert(run(node(&t, "Or"), INPUTS(&p, &q), &out, 1, &fl));
	EXPECT_VALUES(&out, 1, 1, 1, 0);
	cr_assert(run(node(&t, "Xor"), INPUTS(&p, &q), &out, 1, &fl));
	EXPECT_VALUES(&out, 0, 1, 1, 0);
	cr_assert(run(node(&t, "Not"), INPUTS(&p), &out, 1, &fl));
	expect_shape(&out, 1, DIMS(4), BOOL);
	EXPECT_VALUES(&out, 0, 0, 1, 1);
	cr_assert_eq(fl, 4);
}

/* cond 2 x 1, x 1 x 3, y a scalar: 2 x 3 of x's type, 1 FLOP per element */
Test(onnx_shape, where_broadcasts_three_ways)
{
	tnode t;
	double fl;
	sc_onnx_tensor out, cond = valued(BOOL, 2, DIMS(2, 1), VALS(1, 0)),
	                    x = valued(F32, 2, DIMS(1, 3), VALS(1, 2, 3)), y = scalar(F32, 9);
	cr_assert(run(node(&t, "Where"), INPUTS(&cond, &x, &y), &out, 1, &fl));
	expect_shape(&out, 2, DIMS(2, 3), F32);
	EXPECT_VALUES(&out, 1, 2, 3, 9, 9, 9);
	cr_assert_eq(fl, 6);
	sc_onnx_tensor wide = shaped(F32, 1, DIMS(4));
	cr_assert(!run(node(&t, "Where"), INPUTS(&cond, &x, &wide), &out, 1, &fl),
	          "3 and 4 do not broadcast");
}

Test(onnx_shape, reductions_of_small_tensors)
{
	tnode t;
	double fl;
	sc_onnx_tensor out, x = valued(I64, 2, DIMS(2, 3), VALS(1, 2, 3, 4, 5, 6));
	/* ReduceSum, axes input [1], keepdims 0: [6 15], 6 FLOPs */
	sc_onnx_tensor axes1 = VEC(I64, 1);
	node(&t, "ReduceSum");
	attr_i(&t, "keepdims", 0);
	cr_assert(run(&t.n, INPUTS(&x, &axes1), &out, 1, &fl));
	expect_shape(&out, 1, DIMS(2), I64);
	EXPECT_VALUES(&out, 6, 15);
	cr_assert_eq(fl, 6);
	/* ReduceProd over axis 0 (attribute), kept: [[4 10 18]] */
	node(&t, "ReduceProd");
	attr_ints(&t, "axes", 1, DIMS(0));
	cr_assert(run(&t.n, INPUTS(&x), &out, 1, &fl));
	expect_shape(&out, 2, DIMS(1, 3), I64);
	EXPECT_VALUES(&out, 4, 10, 18);
	/* ReduceMax over everything: [[6]]; ReduceMin over the last axis: [1 4] */
	cr_assert(run(node(&t, "ReduceMax"), INPUTS(&x), &out, 1, &fl));
	expect_shape(&out, 2, DIMS(1, 1), I64);
	EXPECT_VALUES(&out, 6);
	node(&t, "ReduceMin");
	attr_ints(&t, "axes", 1, DIMS(-1));
	attr_i(&t, "keepdims", 0);
	cr_assert(run(&t.n, INPUTS(&x), &out, 1, &fl));
	EXPECT_VALUES(&out, 1, 4);
	/* ReduceMean: the shape only */
	cr_assert(run(node(&t, "ReduceMean"), INPUTS(&x), &out, 1, &fl));
	cr_assert_eq(out.nvalues, -1);
}

Test(onnx_shape, expand_tile_constant_of_shape_size_identity)
{
	tnode t;
	double fl;
	sc_onnx_tensor out;
	/* [3, 1] to [2, 1, 2]: 2 x 3 x 2, out[a][b][c] = x[b] */
	sc_onnx_tensor x = valued(I64, 2, DIMS(3, 1), VALS(1, 2, 3)), shape = VEC(I64, 2, 1, 2);
	cr_assert(run(node(&t, "Expand"), INPUTS(&x, &shape), &out, 1, &fl));
	expect_shape(&out, 3, DIMS(2, 3, 2), I64);
	EXPECT_VALUES(&out, 1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3);
	/* Tile [[1 2]] by [2 2]: 2 x 4, a copy */
	sc_onnx_tensor row = valued(I64, 2, DIMS(1, 2), VALS(1, 2)), rep = VEC(I64, 2, 2);
	cr_assert(run(node(&t, "Tile"), INPUTS(&row, &rep), &out, 1, &fl));
	expect_shape(&out, 2, DIMS(2, 4), I64);
	EXPECT_VALUES(&out, 1, 2, 1, 2, 1, 2, 1, 2);
	cr_assert_eq(fl, 0);
	sc_onnx_tensor dyn = shaped(I64, 1, DIMS(2));
	cr_assert(!run(node(&t, "Tile"), INPUTS(&row, &dyn), &out, 1, &fl), "unknown repeats");
	/* ConstantOfShape [2 3]: floats 0 by default */
	sc_onnx_tensor s23 = VEC(I64, 2, 3);
	cr_assert(run(node(&t, "ConstantOfShape"), INPUTS(&s23), &out, 1, &fl));
	expect_shape(&out, 2, DIMS(2, 3), F32);
	EXPECT_VALUES(&out, 0, 0, 0, 0, 0, 0);
	/* a float fill from raw data */
	node(&t, "ConstantOfShape");
	attr_tensor(&t, "value", F32, 1.5);
	sc_onnx_tensor s2 = VEC(I64, 2);
	cr_assert(run(&t.n, INPUTS(&s2), &out, 1, &fl));
	expect_shape(&out, 1, DIMS(2), F32);
	EXPECT_VALUES(&out, 1.5, 1.5);
	/* 8 x 9 = 72 elements: too many for values */
	sc_onnx_tensor s89 = VEC(I64, 8, 9);
	cr_assert(run(node(&t, "ConstantOfShape"), INPUTS(&s89), &out, 1, &fl));
	expect_shape(&out, 2, DIMS(8, 9), F32);
	cr_assert_eq(out.nvalues, -1);
	/* Size of 2 x 3 x 4: 24 */
	sc_onnx_tensor big = shaped(F32, 3, DIMS(2, 3, 4));
	cr_assert(run(node(&t, "Size"), INPUTS(&big), &out, 1, &fl));
	expect_shape(&out, 0, NULL, I64);
	EXPECT_VALUES(&out, 24);
	cr_assert(run(node(&t, "Identity"), INPUTS(&x), &out, 1, &fl));
	EXPECT_VALUES(&out, 1, 2, 3);
}

/* ---- the new op types ---------------------------------------------------------------- */

/* [[1 3 2] [5 4 5]], K = 2 along the last axis: 6 FLOPs (input elements) */
Test(onnx_shape, topk_values_and_indices)
{
	tnode t;
	double fl;
	sc_onnx_tensor out[2], x = valued(F32, 2, DIMS(2, 3), VALS(1, 3, 2, 5, 4, 5)),
	                       k = VEC(I64, 2);
	cr_assert(run(node(&t, "TopK"), INPUTS(&x, &k), out, 2, &fl));
	expect_shape(&out[0], 2, DIMS(2, 2), F32);
	expect_shape(&out[1], 2, DIMS(2, 2), I64);
	EXPECT_VALUES(&out[0], 3, 2, 5, 5);
	EXPECT_VALUES(&out[1], 1, 2, 0, 2); /* equal fives: the lower index first */
	cr_assert_eq(fl, 6);
	node(&t, "TopK");
	attr_i(&t, "largest", 0);
	cr_assert(run(&t.n, INPUTS(&x, &k), out, 2, &fl));
	EXPECT_VALUES(&out[0], 1, 2, 4, 5);
	EXPECT_VALUES(&out[1], 0, 2, 1, 0);
	sc_onnx_tensor k4 = VEC(I64, 4), dyn = shaped(I64, 1, DIMS(1));
	cr_assert(!run(node(&t, "TopK"), INPUTS(&x, &k4), out, 2, &fl), "K past the axis");
	cr_assert(!run(node(&t, "TopK"), INPUTS(&x, &dyn), out, 2, &fl), "K unknown");
}

Test(onnx_shape, cumsum_exclusive_and_reverse)
{
	tnode t;
	double fl;
	sc_onnx_tensor out, x = VEC(I64, 1, 2, 3, 4), axis = scalar(I64, 0);
	cr_assert(run(node(&t, "CumSum"), INPUTS(&x, &axis), &out, 1, &fl));
	EXPECT_VALUES(&out, 1, 3, 6, 10);
	cr_assert_eq(fl, 4);
	node(&t, "CumSum");
	attr_i(&t, "exclusive", 1);
	cr_assert(run(&t.n, INPUTS(&x, &axis), &out, 1, &fl));
	EXPECT_VALUES(&out, 0, 1, 3, 6);
	node(&t, "CumSum");
	attr_i(&t, "reverse", 1);
	cr_assert(run(&t.n, INPUTS(&x, &axis), &out, 1, &fl));
	EXPECT_VALUES(&out, 10, 9, 7, 4);
	attr_i(&t, "exclusive", 1);
	cr_assert(run(&t.n, INPUTS(&x, &axis), &out, 1, &fl));
	EXPECT_VALUES(&out, 9, 7, 4, 0);
	/* [[1 2] [3 4]] along axis 1 (-1): [[1 3] [3 7]] */
	sc_onnx_tensor m = valued(I64, 2, DIMS(2, 2), VALS(1, 2, 3, 4)), last = scalar(I64, -1);
	cr_assert(run(node(&t, "CumSum"), INPUTS(&m, &last), &out, 1, &fl));
	EXPECT_VALUES(&out, 1, 3, 3, 7);
}

/* [[1 3 3] [5 0 5]]: 6 FLOPs (input elements) */
Test(onnx_shape, argmax_argmin_keepdims_and_last_index)
{
	tnode t;
	double fl;
	sc_onnx_tensor out, x = valued(F32, 2, DIMS(2, 3), VALS(1, 3, 3, 5, 0, 5));
	node(&t, "ArgMax");
	attr_i(&t, "axis", 1);
	cr_assert(run(&t.n, INPUTS(&x), &out, 1, &fl));
	expect_shape(&out, 2, DIMS(2, 1), I64);
	EXPECT_VALUES(&out, 1, 0);
	cr_assert_eq(fl, 6);
	attr_i(&t, "select_last_index", 1);
	cr_assert(run(&t.n, INPUTS(&x), &out, 1, &fl));
	EXPECT_VALUES(&out, 2, 2);
	/* ArgMin down the columns, dropped: min(1,5) row 0, min(3,0) row 1, row 0 */
	node(&t, "ArgMin");
	attr_i(&t, "keepdims", 0);
	cr_assert(run(&t.n, INPUTS(&x), &out, 1, &fl));
	expect_shape(&out, 1, DIMS(3), I64);
	EXPECT_VALUES(&out, 0, 1, 0);
}

/* C = 8, H = W = 1, blocksize 2: DCR reads channel (bh x 2 + bw) x 2 + c,
 * CRD channel 4c + 2bh + bw; SpaceToDepth of 2 x 2 x 2 takes channel
 * (bh x 2 + bw) x 2 + c from x[c][bh][bw] = 4c + 2bh + bw */
Test(onnx_shape, depth_to_space_and_back)
{
	tnode t;
	double fl;
	sc_onnx_tensor out, x = valued(F32, 4, DIMS(1, 8, 1, 1), VALS(0, 1, 2, 3, 4, 5, 6, 7));
	node(&t, "DepthToSpace");
	attr_i(&t, "blocksize", 2);
	cr_assert(run(&t.n, INPUTS(&x), &out, 1, &fl));
	expect_shape(&out, 4, DIMS(1, 2, 2, 2), F32);
	EXPECT_VALUES(&out, 0, 2, 4, 6, 1, 3, 5, 7);
	cr_assert_eq(fl, 0);
	attr_s(&t, "mode", "CRD");
	cr_assert(run(&t.n, INPUTS(&x), &out, 1, &fl));
	EXPECT_VALUES(&out, 0, 1, 2, 3, 4, 5, 6, 7);
	sc_onnx_tensor y = valued(F32, 4, DIMS(1, 2, 2, 2), VALS(0, 1, 2, 3, 4, 5, 6, 7));
	node(&t, "SpaceToDepth");
	attr_i(&t, "blocksize", 2);
	cr_assert(run(&t.n, INPUTS(&y), &out, 1, &fl));
	expect_shape(&out, 4, DIMS(1, 8, 1, 1), F32);
	EXPECT_VALUES(&out, 0, 4, 1, 5, 2, 6, 3, 7);
	sc_onnx_tensor odd = shaped(F32, 4, DIMS(1, 2, 3, 2));
	cr_assert(!run(&t.n, INPUTS(&odd), &out, 1, &fl), "H = 3 is not a multiple of 2");
}

/* the examples of ONNX's operator documentation */
Test(onnx_shape, gather_elements_and_gather_nd)
{
	tnode t;
	double fl;
	sc_onnx_tensor out, x = valued(F32, 2, DIMS(2, 2), VALS(1, 2, 3, 4));
	/* axis 1, [[0 0] [1 0]] -> [[1 1] [4 3]] */
	sc_onnx_tensor ind = valued(I64, 2, DIMS(2, 2), VALS(0, 0, 1, 0));
	node(&t, "GatherElements");
	attr_i(&t, "axis", 1);
	cr_assert(run(&t.n, INPUTS(&x, &ind), &out, 1, &fl));
	expect_shape(&out, 2, DIMS(2, 2), F32);
	EXPECT_VALUES(&out, 1, 1, 4, 3);
	cr_assert_eq(fl, 0);
	/* GatherND [[0 0] [1 1]] -> [0 3]; [[1] [0]] -> [[2 3] [0 1]] */
	sc_onnx_tensor d = valued(I64, 2, DIMS(2, 2), VALS(0, 1, 2, 3));
	sc_onnx_tensor i2 = valued(I64, 2, DIMS(2, 2), VALS(0, 0, 1, 1));
	cr_assert(run(node(&t, "GatherND"), INPUTS(&d, &i2), &out, 1, &fl));
	expect_shape(&out, 1, DIMS(2), I64);
	EXPECT_VALUES(&out, 0, 3);
	sc_onnx_tensor i1 = valued(I64, 2, DIMS(2, 1), VALS(1, 0));
	cr_assert(run(node(&t, "GatherND"), INPUTS(&d, &i1), &out, 1, &fl));
	expect_shape(&out, 2, DIMS(2, 2), I64);
	EXPECT_VALUES(&out, 2, 3, 0, 1);
	/* batch_dims 1 over 2 x 2 x 2 = 0..7, [[1] [0]] -> [[2 3] [4 5]] */
	sc_onnx_tensor d3 = valued(I64, 3, DIMS(2, 2, 2), VALS(0, 1, 2, 3, 4, 5, 6, 7));
	node(&t, "GatherND");
	attr_i(&t, "batch_dims", 1);
	cr_assert(run(&t.n, INPUTS(&d3, &i1), &out, 1, &fl));
	expect_shape(&out, 2, DIMS(2, 2), I64);
	EXPECT_VALUES(&out, 2, 3, 4, 5);
}

Test(onnx_shape, scatter_nd_and_scatter_elements)
{
	tnode t;
	double fl;
	sc_onnx_tensor out;
	sc_onnx_tensor d = VEC(F32, 1, 2, 3, 4, 5, 6, 7, 8),
	               ind = valued(I64, 2, DIMS(4, 1), VALS(4, 3, 1, 7)),
	               upd = VEC(F32, 9, 10, 11, 12);
	cr_assert(run(node(&t, "ScatterND"), INPUTS(&d, &ind, &upd), &out, 1, &fl));
	expect_shape(&out, 1, DIMS(8), F32);
	EXPECT_VALUES(&out, 1, 11, 3, 10, 9, 6, 7, 12);
	cr_assert_eq(fl, 0);
	node(&t, "ScatterND");
	attr_s(&t, "reduction", "add");
	cr_assert(run(&t.n, INPUTS(&d, &ind, &upd), &out, 1, &fl));
	EXPECT_VALUES(&out, 1, 13, 3, 14, 14, 6, 7, 20);
	sc_onnx_tensor short_upd = VEC(F32, 9, 10, 11);
	cr_assert(!run(node(&t, "ScatterND"), INPUTS(&d, &ind, &short_upd), &out, 1, &fl));
	/* [[1 2 3 4 5]], axis 1, indices [[1 3]], updates [[1.1 2.1]] */
	sc_onnx_tensor e = valued(F32, 2, DIMS(1, 5), VALS(1, 2, 3, 4, 5)),
	               ei = valued(I64, 2, DIMS(1, 2), VALS(1, 3)),
	               eu = valued(F32, 2, DIMS(1, 2), VALS(1.1, 2.1));
	node(&t, "ScatterElements");
	attr_i(&t, "axis", 1);
	cr_assert(run(&t.n, INPUTS(&e, &ei, &eu), &out, 1, &fl));
	expect_shape(&out, 2, DIMS(1, 5), F32);
	EXPECT_VALUES(&out, 1, 1.1, 3, 2.1, 5);
}

Test(onnx_shape, nonzero_needs_the_values)
{
	tnode t;
	double fl;
	sc_onnx_tensor out, x = valued(F32, 2, DIMS(2, 2), VALS(1, 0, 1, 1));
	/* nonzeros at (0,0), (1,0), (1,1): rows [0 1 1], columns [0 0 1] */
	cr_assert(run(node(&t, "NonZero"), INPUTS(&x), &out, 1, &fl));
	expect_shape(&out, 2, DIMS(2, 3), I64);
	EXPECT_VALUES(&out, 0, 1, 1, 0, 0, 1);
	cr_assert_eq(fl, 0);
	sc_onnx_tensor dyn = shaped(F32, 2, DIMS(2, 2));
	cr_assert(!run(node(&t, "NonZero"), INPUTS(&dyn), &out, 1, &fl));
}

/* 1 x 4 x 2 x 2 = 16 elements, size 3: (2 x 3 + 4) x 16 = 160 */
Test(onnx_shape, lrn_flops)
{
	tnode t;
	double fl;
	sc_onnx_tensor out, x = shaped(F32, 4, DIMS(1, 4, 2, 2));
	node(&t, "LRN");
	attr_i(&t, "size", 3);
	cr_assert(run(&t.n, INPUTS(&x), &out, 1, &fl));
	expect_shape(&out, 4, DIMS(1, 4, 2, 2), F32);
	cr_assert_eq(fl, 160);
	cr_assert(!run(node(&t, "LRN"), INPUTS(&x), &out, 1, &fl), "size is required");
}

/* x / 0.5 = [-2 0.8 2.5 600], rounded (ties to even) [-2 1 2 600]; uint8
 * saturates to [0 1 2 255], int8 with zero point -1 to [-3 0 1 127]; 2
 * FLOPs per element */
Test(onnx_shape, quantize_and_dequantize)
{
	tnode t;
	double fl;
	sc_onnx_tensor out, x = VEC(F32, -1, 0.4, 1.25, 300), s = scalar(F32, 0.5),
	                    zp = scalar(I8, -1);
	cr_assert(run(node(&t, "QuantizeLinear"), INPUTS(&x, &s), &out, 1, &fl));
	expect_shape(&out, 1, DIMS(4), U8);
	EXPECT_VALUES(&out, 0, 1, 2, 255);
	cr_assert_eq(fl, 8);
	cr_assert(run(node(&t, "QuantizeLinear"), INPUTS(&x, &s, &zp), &out, 1, &fl));
	expect_shape(&out, 1, DIMS(4), I8);
	EXPECT_VALUES(&out, -3, 0, 1, 127);
	/* per axis 1: [[1 2] [3 4]] / [1 0.5] = [[1 4] [3 8]] */
	sc_onnx_tensor m = valued(F32, 2, DIMS(2, 2), VALS(1, 2, 3, 4)), ps = VEC(F32, 1, 0.5);
	cr_assert(run(node(&t, "QuantizeLinear"), INPUTS(&m, &ps), &out, 1, &fl));
	EXPECT_VALUES(&out, 1, 4, 3, 8);
	/* (q - (-1)) x 0.5: [-3 1] -> [-1 1], floats */
	sc_onnx_tensor q = VEC(I8, -3, 1);
	cr_assert(run(node(&t, "DequantizeLinear"), INPUTS(&q, &s, &zp), &out, 1, &fl));
	expect_shape(&out, 1, DIMS(2), F32);
	EXPECT_VALUES(&out, -1, 1);
	cr_assert_eq(fl, 4);
}

/* 3 x 3 = 1..9; 1 FLOP per element */
Test(onnx_shape, trilu_upper_and_lower)
{
	tnode t;
	double fl;
	sc_onnx_tensor out, x = valued(F32, 2, DIMS(3, 3), VALS(1, 2, 3, 4, 5, 6, 7, 8, 9));
	cr_assert(run(node(&t, "Trilu"), INPUTS(&x), &out, 1, &fl));
	EXPECT_VALUES(&out, 1, 2, 3, 0, 5, 6, 0, 0, 9);
	cr_assert_eq(fl, 9);
	/* lower, k = -1: strictly below the diagonal */
	sc_onnx_tensor k = scalar(I64, -1);
	node(&t, "Trilu");
	attr_i(&t, "upper", 0);
	cr_assert(run(&t.n, INPUTS(&x, &k), &out, 1, &fl));
	EXPECT_VALUES(&out, 0, 0, 0, 4, 0, 0, 7, 8, 0);
}

/* indices [0 2 -1], depth 3, values [0 1]; 1 FLOP per output element */
Test(onnx_shape, one_hot_depth_from_its_input)
{
	tnode t;
	double fl;
	sc_onnx_tensor out, ind = VEC(I64, 0, 2, -1), depth = scalar(I64, 3), v = VEC(F32, 0, 1);
	cr_assert(run(node(&t, "OneHot"), INPUTS(&ind, &depth, &v), &out, 1, &fl));
	expect_shape(&out, 2, DIMS(3, 3), F32);
	EXPECT_VALUES(&out, 1, 0, 0, 0, 0, 1, 0, 0, 1); /* -1 is depth - 1 = 2 */
	cr_assert_eq(fl, 9);
	/* axis 0: out[j][i] = (ind[i] == j) */
	node(&t, "OneHot");
	attr_i(&t, "axis", 0);
	cr_assert(run(&t.n, INPUTS(&ind, &depth, &v), &out, 1, &fl));
	EXPECT_VALUES(&out, 1, 0, 0, 0, 0, 0, 0, 1, 1);
	sc_onnx_tensor dyn = shaped(I64, 0, NULL);
	cr_assert(!run(node(&t, "OneHot"), INPUTS(&ind, &dyn, &v), &out, 1, &fl));
}

/* a Constant node: its value attribute, here a list of ints */
Test(onnx_shape, constant_values)
{
	tnode t;
	double fl;
	sc_onnx_tensor out;
	node(&t, "Constant");
	attr_ints(&t, "value_ints", 3, DIMS(4, -1, 2));
	cr_assert(run(&t.n, NULL, 0, &out, 1, &fl));
	expect_shape(&out, 1, DIMS(3), I64);
	EXPECT_VALUES(&out, 4, -1, 2);
}
