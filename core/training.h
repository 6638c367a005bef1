/*
 * training.h - the training graph of a forward graph (DESIGN.md section 1,
 * training graphs; 001 section 5.3), and what training holds in memory.
 *
 * For each forward op v there is a backward op "v.grad" in v's group (or a
 * new group "v.w" holding both: a partition places v's backward with v),
 * with no parameters of its own and a gradient of v's out bytes; for each
 * edge u -> v the gradient edge v.grad -> u.grad and the activation edge
 * u -> v.grad; one orphan "loss.grad" fed by every forward sink s and
 * feeding s.grad.
 *
 * The backward's work is the forward's times a factor per op (the same on
 * every device kind, and on a CPU).  With op kinds (an ONNX model,
 * sc_train_backward_factor):
 *   - convolutions and matmuls (Conv, MatMul, Gemm, Einsum): 2, the gradient
 *     of the input and of the weight (or of both inputs), each about the
 *     forward's flops;
 *   - normalizations: 2, the gradient reads the input, the statistics and
 *     the incoming gradient and reduces twice;
 *   - elementwise ops, pools, copies and concatenations: 1, one pass over
 *     the same bytes;
 *   - views (Reshape, Flatten, Squeeze, Identity, ...) and ops no gradient
 *     flows through: 0;
 * and without kinds (DOT, msr-fiddle forward graphs, gen): 2 for every op.
 * Measured times (--times) are the forward ops'; a backward op's time is
 * the rule's, from its forward op's measured or modelled time.
 *
 * Memory (activations.h): a stage holds its parameters, their gradients
 * (as many bytes: the same precision) and the optimizer's state, which
 * per parameter of p bytes (p = 4 in fp32, 2 in fp16 or bf16, 1 in fp8 or
 * int8) is
 *   - an fp32 master copy, 4 bytes, when p < 4 (mixed precision keeps
 *     the weights the optimizer updates in fp32);
 *   - sgd: nothing more; momentum: one fp32 buffer, 4 bytes; adam: the
 *     first and second moments in fp32, 8 bytes.
 * So adam costs 16 bytes a parameter in fp16 (2 + 2 + 4 + 8) as in fp32
 * (4 + 4 + 8), sgd 8.
 */
#ifndef SC_TRAINING_H
#define SC_TRAINING_H

#include "device.h"
#include "error.h"
#include "graph.h"

typedef enum sc_optimizer {
	SC_OPT_ADAM = 0,
	SC_OPT_MOMENTUM,
	SC_OPT_SGD,
} sc_optimizer;

/* "adam", "momentum" or "sgd". */
const char *sc_optimizer_name(sc_optimizer o);

/* Parses those names (any case); false for anything else. */
bool sc_optimizer_parse(const char *text, sc_optimizer *out);

/* The bytes of optimizer state (master copy and moments) per byte of
 * parameters of param_bytes bytes each (above). */
double sc_optimizer_bytes(sc_optimizer o, int param_bytes);

/* The backward's work over the forward's for an op of kind k (above). */
double sc_train_backward_factor(sc_op_kind k);

typedef struct sc_train_spec {
	sc_optimizer optimizer;
	int param_bytes;         /* bytes of one parameter at the run's precision */
	const double *bw_factor; /* per forward op; NULL: 2 */
} sc_train_spec;

/* Returns the training graph of the inference graph fw (above), named
 * "<fw's name>-training", with fw's settings, device kinds (each op's
 * backward time the factor times its forward time there), CPU times and
 * cost origin.  With spec (not NULL) it also carries what training holds:
 * gradients and optimizer state as spec says, and fw's activation sizes
 * (the forward ops keep their indices and saves).  NULL with err set when
 * out of memory or when fw is a training graph already. */
sc_graph *sc_graph_training(const sc_graph *fw, const sc_train_spec *spec, sc_error *err);

#endif
