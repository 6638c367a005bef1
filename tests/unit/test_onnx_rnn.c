/*
 * test_onnx_rnn.c - shapes and FLOPs of LSTM, GRU and RNN through
 * sc_onnx_infer, on nodes built here with protobuf-c's generated structs:
 * forward, reverse and bidirectional, with and without B and P, layout 0
 * and 1, outputs left out, and shapes that are unknown or disagree.
 * Expected shapes and FLOPs are worked out by hand in the comments, from
 * the ONNX spec's equations counted as onnx_rnn.c says: per step, direction
 * and batch row, 2*G*hidden*(input + hidden) for the matmuls, 2*G*hidden
 * for the biases, and per hidden unit LSTM 9 (+ 6 with peepholes), GRU 8,
 * RNN 1 for the activations and elementwise products.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "core/formats/onnx_shape.h"
#include "onnx/onnx.pb-c.h"

/* ---- a node and its tensors --------------------------------------------------- */

#define MAXATTR 4

typedef struct rnn_node {
	Onnx__NodeProto n;
	Onnx__AttributeProto attr[MAXATTR], *pattr[MAXATTR];
} rnn_node;

static void node_init(rnn_node *x, const char *op_type)
{
	memset(x, 0, sizeof *x);
	onnx__node_proto__init(&x->n);
	x->n.op_type = (char *)op_type;
	x->n.attribute = x->pattr;
}

static Onnx__AttributeProto *attr_new(rnn_node *x, const char *name)
{
	cr_assert_lt(x->n.n_attribute, MAXATTR);
	Onnx__AttributeProto *a = &x->attr[x->n.n_attribute];
	onnx__attribute_proto__init(a);
	a->name = (char *)name;
	x->pattr[x->n.n_attribute++] = a;
	return a;
}

static void attr_int(rnn_node *x, const char *name, int64_t v)
{
	Onnx__AttributeProto *a = attr_new(x, name);
	a->has_type = 1;
	a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
	a->has_i = 1;
	a->i = v;
}

static void attr_str(rnn_node *x, const char *name, const char *s)
{
	Onnx__AttributeProto *a = attr_new(x, name);
	a->has_type = 1;
	a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
	a->has_s = 1;
	a->s.len = strlen(s);
	a->s.data = (uint8_t *)s;
}

/* a known FLOAT tensor of the given dims */
static sc_onnx_tensor shaped(int rank, const int64_t *dim)
{
	sc_onnx_tensor t = {.known = true, .rank = rank, .dtype = 1, .elem = 4, .nvalues = -1};
	memcpy(t.dim, dim, (size_t)rank * sizeof *dim);
	return t;
}

/* an output as the loader hands it: unknown, no values */
static sc_onnx_tensor blank(void)
{
	return (sc_onnx_tensor){.known = false, .nvalues = -1};
}

static void expect_shape(const sc_onnx_tensor *t, int rank, const int64_t *dim)
{
	cr_assert(t->known);
	cr_assert_eq(t->rank, rank);
	for (int i = 0; i < rank; i++)
		cr_assert_eq(t->dim[i], dim[i], "dim %d: %lld != %lld", i, (long long)t->dim[i],
		             (long long)dim[i]);
	cr_assert_eq(t->dtype, 1);
	cr_assert_eq(t->elem, 4);
	cr_assert_eq(t->nvalues, -1);
}

#define CLOSE(a, b)                                                                                \
	cr_assert(fabs((double)(a) - (double)(b)) <= 1e-9 * fmax(1, fabs((double)(b))),            \
	          "%.17g != %.17g", (double)(a), (double)(b))

/* runs sc_onnx_infer on node with inputs in[0..nin) (NULL: left out) into
 * ys[0..nout) */
static bool infer(rnn_node *x, const sc_onnx_tensor *const *in, int nin, sc_onnx_tensor *ys,
                  int nout, double *flops)
{
	sc_onnx_tensor *out[3];
	for (int i = 0; i < nout; i++)
		out[i] = &ys[i];
	return sc_onnx_infer(&x->n, in, nin, out, nout, flops);
}

/* ---- LSTM ----------------------------------------------------------------------- */

Test(onnx_rnn, lstm_forward_with_bias)
{
	rnn_node x;
	node_init(&x, "LSTM");
	attr_int(&x, "hidden_size", 4);
	/* seq 5, batch 2, input 3, hidden 4: G*hidden = 16 */
	int64_t xd[] = {5, 2, 3}, wd[] = {1, 16, 3}, rd[] = {1, 16, 4}, bd[] = {1, 32};
	sc_onnx_tensor X = shaped(3, xd), W = shaped(3, wd), R = shaped(3, rd), B = shaped(2, bd);
	const sc_onnx_tensor *in[] = {&X, &W, &R, &B};
	sc_onnx_tensor ys[3] = {blank(), blank(), blank()};
	double flops = -1;
	cr_assert(infer(&x, in, 4, ys, 3, &flops));
	int64_t y[] = {5, 1, 2, 4}, h[] = {1, 2, 4};
	expect_shape(&ys[0], 4, y);
	expect_shape(&ys[1], 3, h);
	expect_shape(&ys[2], 3, h);
	/* per step: matmuls 2*2*16*(3+4) = 448, biases 2*2*16 = 64, gate
	 * activations 4*(2*4) = 32, c update 3*8 = 24, h = o*tanh(c) 2*8 = 16:
	 * 584; times 5 steps, 1 direction = 2920 */
	CLOSE(flops, 2920);
}

Test(onnx_rnn, lstm_bidirectional_without_bias)
{
	rnn_node x;
	node_init(&x, "LSTM");
	attr_str(&x, "direction", "bidirectional");
	attr_int(&x, "hidden_size", 5);
	/* seq 3, batch 1, input 2, hidden 5: G*hidden = 20, 2 directions */
	int64_t xd[] = {3, 1, 2}, wd[] = {2, 20, 2}, rd[] = {2, 20, 5};
	sc_onnx_tensor X = shaped(3, xd), W = shaped(3, wd), R = shaped(3, rd);
	const sc_onnx_tensor *in[] = {&X, &W, &R};
	sc_onnx_tensor ys[3] = {blank(), blank(), blank()};
	double flops = -1;
	cr_assert(infer(&x, in, 3, ys, 3, &flops));
	int64_t y[] = {3, 2, 1, 5}, h[] = {2, 1, 5};
	expect_shape(&ys[0], 4, y);
	expect_shape(&ys[1], 3, h);
	expect_shape(&ys[2], 3, h);
	/* per step and direction: matmuls 2*1*20*(2+5) = 280, no biases,
	 * activations 4*5 = 20, c 3*5 = 15, h 2*5 = 10: 325; times 3 steps,
	 * 2 directions = 1950 */
	CLOSE(flops, 1950);
}

Test(onnx_rnn, lstm_layout_1_with_bias_and_peepholes)
{
	rnn_node x;
	node_init(&x, "LSTM");
	attr_int(&x, "layout", 1);
	/* no hidden_size: W's 8 rows / 4 gates = 2.  X is [batch 2, seq 4,
	 * input 3]; every optional input given, in layout 1's shapes */
	int64_t xd[] = {2, 4, 3}, wd[] = {1, 8, 3}, rd[] = {1, 8, 2}, bd[] = {1, 16}, sd[] = {2},
	        hd[] = {2, 1, 2}, pd[] = {1, 6};
	sc_onnx_tensor X = shaped(3, xd), W = shaped(3, wd), R = shaped(3, rd), B = shaped(2, bd),
	               S = shaped(1, sd), H0 = shaped(3, hd), C0 = shaped(3, hd), P = shaped(2, pd);
	S.dtype = 6, S.elem = 4;
	const sc_onnx_tensor *in[] = {&X, &W, &R, &B, &S, &H0, &C0, &P};
	sc_onnx_tensor ys[3] = {blank(), blank(), blank()};
	double flops = -1;
	cr_assert(infer(&x, in, 8, ys, 3, &flops));
	int64_t y[] = {2, 4, 1, 2}, h[] = {2, 1, 2};
	expect_shape(&ys[0], 4, y);
	expect_shape(&ys[1], 3, h);
	expect_shape(&ys[2], 3, h);
	/* per step: matmuls 2*2*8*(3+2) = 160, biases 2*2*8 = 32, peepholes
	 * 6*(2*2) = 24, activations 4*4 = 16, c 3*4 = 12, h 2*4 = 8: 252;
	 * times 4 steps = 1008 */
	CLOSE(flops, 1008);
}

Test(onnx_rnn, lstm_layout_1_bidirectional)
{
	rnn_node x;
	node_init(&x, "LSTM");
	attr_int(&x, "layout", 1);
	attr_str(&x, "direction", "bidirectional");
	/* X [batch 3, seq 2, input 1], hidden 1 from W's 4 rows */
	int64_t xd[] = {3, 2, 1}, wd[] = {2, 4, 1}, rd[] = {2, 4, 1}, bd[] = {2, 8};
	sc_onnx_tensor X = shaped(3, xd), W = shaped(3, wd), R = shaped(3, rd), B = shaped(2, bd);
	const sc_onnx_tensor *in[] = {&X, &W, &R, &B};
	sc_onnx_tensor ys[3] = {blank(), blank(), blank()};
	double flops = -1;
	cr_assert(infer(&x, in, 4, ys, 3, &flops));
	/* layout 1: Y [batch, seq, dirs, hidden], Y_h and Y_c [batch, dirs, hidden] */
	int64_t y[] = {3, 2, 2, 1}, h[] = {3, 2, 1};
	expect_shape(&ys[0], 4, y);
	expect_shape(&ys[1], 3, h);
	expect_shape(&ys[2], 3, h);
	/* per step and direction: matmuls 2*3*4*(1+1) = 48, biases 2*3*4 = 24,
	 * cell 9*3*1 = 27: 99; times 2 steps, 2 directions = 396 */
	CLOSE(flops, 396);
}

/* ---- GRU and RNN ----------------------------------------------------------------- */

Test(onnx_rnn, gru_reverse_with_bias)
{
	rnn_node x;
	node_init(&x, "GRU");
	attr_str(&x, "direction", "reverse");
	attr_int(&x, "hidden_size", 2);
	attr_int(&x, "linear_before_reset", 1);
	/* seq 6, batch 3, input 4, hidden 2: G*hidden = 6 */
	int64_t xd[] = {6, 3, 4}, wd[] = {1, 6, 4}, rd[] = {1, 6, 2}, bd[] = {1, 12};
	sc_onnx_tensor X = shaped(3, xd), W = shaped(3, wd), R = shaped(3, rd), B = shaped(2, bd);
	const sc_onnx_tensor *in[] = {&X, &W, &R, &B};
	sc_onnx_tensor ys[2] = {blank(), blank()};
	double flops = -1;
	cr_assert(infer(&x, in, 4, ys, 2, &flops));
	int64_t y[] = {6, 1, 3, 2}, h[] = {1, 3, 2};
	expect_shape(&ys[0], 4, y);
	expect_shape(&ys[1], 3, h);
	/* per step: matmuls 2*3*6*(4+2) = 216, biases 2*3*6 = 36, z r h
	 * activations 3*(3*2) = 18, the reset product 6, Ht = (1-z)*h + z*Ht-1
	 * 4*6 = 24: 300; times 6 steps = 1800 */
	CLOSE(flops, 1800);
}

Test(onnx_rnn, rnn_bidirectional_with_bias)
{
	rnn_node x;
	node_init(&x, "RNN");
	attr_str(&x, "direction", "bidirectional");
	/* seq 2, batch 1, input 3, hidden 4 from W */
	int64_t xd[] = {2, 1, 3}, wd[] = {2, 4, 3}, rd[] = {2, 4, 4}, bd[] = {2, 8};
	sc_onnx_tensor X = shaped(3, xd), W = shaped(3, wd), R = shaped(3, rd), B = shaped(2, bd);
	const sc_onnx_tensor *in[] = {&X, &W, &R, &B};
	sc_onnx_tensor ys[2] = {blank(), blank()};
	double flops = -1;
	cr_assert(infer(&x, in, 4, ys, 2, &flops));
	int64_t y[] = {2, 2, 1, 4}, h[] = {2, 1, 4};
	expect_shape(&ys[0], 4, y);
	expect_shape(&ys[1], 3, h);
	/* per step and direction: matmul 2*1*4*(3+4) = 56, biases 2*1*4 = 8,
	 * tanh 4: 68; times 2 steps, 2 directions = 272 */
	CLOSE(flops, 272);
}

/* ---- outputs left out -------------------------------------------------------- */

Test(onnx_rnn, only_y)
{
	rnn_node x;
	node_init(&x, "LSTM");
	int64_t xd[] = {2, 1, 1}, wd[] = {1, 4, 1}, rd[] = {1, 4, 1};
	sc_onnx_tensor X = shaped(3, xd), W = shaped(3, wd), R = shaped(3, rd);
	const sc_onnx_tensor *in[] = {&X, &W, &R};
	sc_onnx_tensor ys[3] = {blank(), blank(), blank()};
	double flops = -1;
	cr_assert(infer(&x, in, 3, ys, 1, &flops));
	int64_t y[] = {2, 1, 1, 1};
	expect_shape(&ys[0], 4, y);
	cr_assert(!ys[1].known && !ys[2].known, "outputs past nout are not touched");
	/* per step: matmuls 2*1*4*(1+1) = 16, cell 9: 25; times 2 steps = 50 */
	CLOSE(flops, 50);
}

Test(onnx_rnn, y_h_only_and_a_shape_from_value_info)
{
	rnn_node x;
	node_init(&x, "GRU");
	int64_t xd[] = {1, 2, 2}, wd[] = {1, 3, 2}, rd[] = {1, 3, 1};
	sc_onnx_tensor X = shaped(3, xd), W = shaped(3, wd), R = shaped(3, rd);
	const sc_onnx_tensor *in[] = {&X, &W, &R};
	/* Y left out (the loader hands a scratch); Y_h's shape came from
	 * value_info and stays as given even where it differs */
	int64_t given[] = {7, 7, 7};
	sc_onnx_tensor ys[2] = {blank(), shaped(3, given)};
	double flops = -1;
	cr_assert(infer(&x, in, 3, ys, 2, &flops));
	int64_t y[] = {1, 1, 2, 1};
	expect_shape(&ys[0], 4, y);
	expect_shape(&ys[1], 3, given);
	/* hidden 1; per step: matmuls 2*2*3*(2+1) = 36, cell 8*2 = 16: 52; 1 step */
	CLOSE(flops, 52);
}

/* ---- unknown and inconsistent shapes ------------------------------------------- */

Test(onnx_rnn, unknown_or_inconsistent_shapes_are_false)
{
	int64_t xd[] = {5, 2, 3}, wd[] = {1, 16, 3}, rd[] = {1, 16, 4};
	sc_onnx_tensor X = shaped(3, xd), W = shaped(3, wd), R = shaped(3, rd);
	sc_onnx_tensor unknown = blank();
	const struct {
		const char *why;
		const char *op;
		const sc_onnx_tensor *x, *w, *r;
		const char *direction;
		int64_t hidden;
	} cases[] = {
	        {"X unknown", "LSTM", &unknown, &W, &R, NULL, 0},
	        {"W unknown", "LSTM", &X, &unknown, &R, NULL, 0},
	        {"R left out", "LSTM", &X, &W, NULL, NULL, 0},
	        {"16 rows are not 3 GRU gates", "GRU", &X, &W, &R, NULL, 0},
	        {"hidden_size 5 against W's 16 rows", "LSTM", &X, &W, &R, NULL, 5},
	        {"W has 1 direction", "LSTM", &X, &W, &R, "bidirectional", 0},
	        {"no such direction", "LSTM", &X, &W, &R, "sideways", 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		rnn_node x;
		node_init(&x, cases[i].op);
		if (cases[i].direction)
			attr_str(&x, "direction", cases[i].direction);
		if (cases[i].hidden)
			attr_int(&x, "hidden_size", cases[i].hidden);
		const sc_onnx_tensor *in[] = {cases[i].x, cases[i].w, cases[i].r};
		sc_onnx_tensor ys[3] = {blank(), blank(), blank()};
		double flops = -1;
		cr_assert(!infer(&x, in, 3, ys, 3, &flops), "%s", cases[i].why);
		cr_assert(!ys[0].known, "%s", cases[i].why);
		cr_assert_eq(flops, 0, "%s", cases[i].why);
	}
}

Test(onnx_rnn, inputs_that_disagree_are_false)
{
	/* seq 5, batch 2, input 3, hidden 4 */
	int64_t wd[] = {1, 16, 3}, rd[] = {1, 16, 4}, bd[] = {1, 32};
	int64_t x_wide[] = {5, 2, 6}, r_wrong[] = {1, 16, 5}, b_short[] = {1, 16},
	        h_wrong[] = {1, 3, 4};
	int64_t xd[] = {5, 2, 3};
	sc_onnx_tensor X = shaped(3, xd), W = shaped(3, wd), R = shaped(3, rd), B = shaped(2, bd);
	sc_onnx_tensor Xw = shaped(3, x_wide), Rw = shaped(3, r_wrong), Bs = shaped(2, b_short),
	               Hw = shaped(3, h_wrong);
	const sc_onnx_tensor *cases[][6] = {
	        {&Xw, &W, &R, &B, NULL, NULL}, /* input 6 against W's 3 */
	        {&X, &W, &Rw, &B, NULL, NULL}, /* R's last dim is not hidden */
	        {&X, &W, &R, &Bs, NULL, NULL}, /* B holds Wb only */
	        {&X, &W, &R, &B, NULL, &Hw},   /* initial_h of batch 3 */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		rnn_node x;
		node_init(&x, "LSTM");
		sc_onnx_tensor ys[3] = {blank(), blank(), blank()};
		double flops = -1;
		cr_assert(!infer(&x, cases[i], 6, ys, 3, &flops), "case %zu", i);
	}
	/* and the consistent set passes, with unknown optional inputs */
	rnn_node x;
	node_init(&x, "LSTM");
	sc_onnx_tensor unknown = blank(), ys[3] = {blank(), blank(), blank()};
	const sc_onnx_tensor *in[] = {&X, &W, &R, &B, &unknown, &unknown};
	double flops = -1;
	cr_assert(infer(&x, in, 6, ys, 3, &flops));
	CLOSE(flops, 2920); /* as lstm_forward_with_bias */
}
