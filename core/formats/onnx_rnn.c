/*
 * onnx_rnn.c - shapes and FLOPs of LSTM, GRU and RNN (onnx_rnn.h).
 *
 * The three ops share one signature (the ONNX operator specs of LSTM, GRU
 * and RNN, with opset 14's layout attribute): X [seq, batch, input]
 * ([batch, seq, input] when layout is 1), W [dirs, G*hidden, input],
 * R [dirs, G*hidden, hidden], then the optional B [dirs, 2*G*hidden],
 * sequence_lens [batch], initial_h [dirs, batch, hidden] (initial_c and
 * P [dirs, 3*hidden] for LSTM), where G is the number of gates.  One
 * table row per op gives G, its outputs and what one step costs besides
 * its matmuls; one function checks the shapes against each other (an
 * optional input of known shape must agree too) and fills the outputs
 * that are present.
 *
 * FLOPs, a multiply or an add each (onnx_shape.c), per time step, direction
 * and batch row, over the hidden units, from the spec's equations:
 *   matmuls  Xt*W^T + Ht-1*R^T: G*hidden outputs of depth input + hidden,
 *            2*G*hidden*(input + hidden)
 *   biases   Wb + Rb, when B is given: 2*G*hidden
 *   the cell, per hidden unit (an activation is 1, as for Sigmoid or Tanh):
 *     LSTM 9: sigmoid i, f, o and tanh g (4); Ct = ft*Ct-1 + it*gt (3);
 *             Ht = ot*tanh(Ct) (2); + 6 with P (Pi*Ct-1, Pf*Ct-1, Po*Ct,
 *             each multiplied and added)
 *     GRU 8:  sigmoid z, r and tanh h (3); rt times Ht-1 or times
 *             Ht-1*Rh^T + Rbh (linear_before_reset: the same count) (1);
 *             Ht = (1 - zt)*ht + zt*Ht-1 (4)
 *     RNN 1:  the activation of Ht
 * so LSTM = seq*dirs*batch*hidden*(8*(input + hidden) + 8*[B] + 9 + 6*[P]),
 *    GRU  = seq*dirs*batch*hidden*(6*(input + hidden) + 6*[B] + 8),
 *    RNN  = seq*dirs*batch*hidden*(2*(input + hidden) + 2*[B] + 1).
 * Every sequence counts at seq_length steps (sequence_lens only shortens
 * them); the clip attribute's clamps are not counted.
 */
#include "onnx_rnn.h"

#include <math.h>
#include <string.h>

typedef struct rnn_op {
	const char *name;
	int gates;   /* G: the row blocks of W and R */
	int nin;     /* inputs the spec defines */
	int nout;    /* Y, Y_h (and Y_c) */
	double cell; /* FLOPs per hidden unit and step beyond the matmuls and biases */
	double peep; /* the same, added when P is given */
} rnn_op;

static const rnn_op rnn_ops[] = {
        {.name = "LSTM", .gates = 4, .nin = 8, .nout = 3, .cell = 9, .peep = 6},
        {.name = "GRU", .gates = 3, .nin = 6, .nout = 2, .cell = 8, .peep = 0},
        {.name = "RNN", .gates = 1, .nin = 6, .nout = 2, .cell = 1, .peep = 0},
};

enum { RNN_X, RNN_W, RNN_R, RNN_B, RNN_SEQ_LENS, RNN_INITIAL_H, RNN_INITIAL_C, RNN_P };

static const rnn_op *rnn_op_of(const char *op_type)
{
	for (size_t i = 0; op_type && i < sizeof rnn_ops / sizeof rnn_ops[0]; i++)
		if (strcmp(rnn_ops[i].name, op_type) == 0)
			return &rnn_ops[i];
	return NULL;
}

static const sc_onnx_tensor *rnn_input(const sc_onnx_tensor *const *in, int nin, int i)
{
	return i < nin ? in[i] : NULL;
}

/* a known tensor of rank 3 whose dims are all set */
static bool known3(const sc_onnx_tensor *t)
{
	return t && t->known && t->rank == 3 && t->dim[0] >= 0 && t->dim[1] >= 0 && t->dim[2] >= 0;
}

/* true when t is absent, of unknown shape, or of shape dim[0..rank) */
static bool agrees(const sc_onnx_tensor *t, int rank, const int64_t *dim)
{
	if (!t || !t->known)
		return true;
	if (t->rank != rank)
		return false;
	for (int i = 0; i < rank; i++)
		if (t->dim[i] != dim[i])
			return false;
	return true;
}

/* fills t unless value_info already gave its shape (sc_onnx_infer's contract) */
static void fill(sc_onnx_tensor *t, int rank, const int64_t *dim, int dtype)
{
	if (!t || t->known)
		return;
	t->known = true;
	t->rank = rank;
	for (int i = 0; i < rank; i++)
		t->dim[i] = dim[i];
	t->dtype = dtype;
	t->elem = sc_onnx_dtype_size(dtype);
}

/* the number of directions of the direction attribute, 0 when unknown */
static int directions(const Onnx__NodeProto *node)
{
	const Onnx__AttributeProto *a = sc_onnx_attr(node, "direction");
	if (!a || !a->has_s)
		return 1; /* forward */
	static const struct {
		const char *name;
		int n;
	} dirs[] = {{"forward", 1}, {"reverse", 1}, {"bidirectional", 2}};
	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
		if (a->s.len == strlen(dirs[i].name) &&
		    memcmp(a->s.data, dirs[i].name, a->s.len) == 0)
			return dirs[i].n;
	return 0;
}

static int64_t int_attr(const Onnx__NodeProto *node, const char *name, int64_t def)
{
	const Onnx__AttributeProto *a = sc_onnx_attr(node, name);
	return a && a->has_i ? a->i : def;
}

bool sc_onnx_infer_rnn(const Onnx__NodeProto *node, const sc_onnx_tensor *const *in, int nin,
                       sc_onnx_tensor *const *out, int nout, double *flops)
{
	*flops = 0;
	const rnn_op *op = rnn_op_of(node->op_type);
	const sc_onnx_tensor *x = rnn_input(in, nin, RNN_X), *w = rnn_input(in, nin, RNN_W),
	                     *r = rnn_input(in, nin, RNN_R);
	if (!op || nin > op->nin || nout > op->nout || !known3(x) || !known3(w) || !known3(r))
		return false;
	int64_t dirs = directions(node), layout = int_attr(node, "layout", 0);
	if (dirs == 0 || (layout != 0 && layout != 1))
		return false;
	int64_t seq = x->dim[layout ? 1 : 0], batch = x->dim[layout ? 0 : 1], input = x->dim[2];
	int64_t gh = w->dim[1], hidden = int_attr(node, "hidden_size", gh / op->gates);
	if (w->dim[0] != dirs || w->dim[2] != input || hidden <= 0 || gh != op->gates * hidden)
		return false;
	int64_t r_dim[3] = {dirs, gh, hidden}, b_dim[2] = {dirs, 2 * gh},
	        p_dim[2] = {dirs, 3 * hidden};
	int64_t y_dim[4] = {seq, dirs, batch, hidden}, h_dim[3] = {dirs, batch, hidden};
	if (layout) {
		y_dim[0] = batch, y_dim[1] = seq, y_dim[2] = dirs;
		h_dim[0] = batch, h_dim[1] = dirs;
	}
	const sc_onnx_tensor *b = rnn_input(in, nin, RNN_B), *p = rnn_input(in, nin, RNN_P);
	if (!agrees(r, 3, r_dim) || !agrees(b, 2, b_dim) || !agrees(p, 2, p_dim) ||
	    !agrees(rnn_input(in, nin, RNN_SEQ_LENS), 1, &batch) ||
	    !agrees(rnn_input(in, nin, RNN_INITIAL_H), 3, h_dim) ||
	    !agrees(rnn_input(in, nin, RNN_INITIAL_C), 3, h_dim))
		return false;
	double g = op->gates, units = (double)batch * (double)hidden;
	double step = units * (2 * g * (double)(input + hidden) + (b ? 2 * g : 0) + op->cell +
	                       (p ? op->peep : 0));
	double total = step * (double)seq * (double)dirs;
	if (!isfinite(total))
		return false;
	/* Y, Y_h, Y_c: an output left out is a scratch the loader drops */
	for (int i = 0; i < nout; i++)
		fill(out[i], i == 0 ? 4 : 3, i == 0 ? y_dim : h_dim, x->dtype);
	*flops = total;
	return true;
}
