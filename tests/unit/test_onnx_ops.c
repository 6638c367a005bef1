/*
 * test_onnx_ops.c - one hand-checked expectation for every op type
 * sc_onnx_infer knows: a table of cases, each one node
 * of one op type with its inputs (shapes, element types, and the values of
 * the initializers the op reads: Resize's scales and sizes, Clip's bounds,
 * Pow's exponent, a Reduce's axes), its attributes, and the output shapes,
 * element types, values (where inference computes them) and FLOPs
 * expected.  Every expectation is derived in the comment above its row
 * from the ONNX operator specification (onnx.ai/onnx/operators, the
 * formulas quoted there) and the FLOP conventions below, never copied from
 * a run.  A second test checks that every type of the table has a row here
 * or a test elsewhere (the list `elsewhere`, each entry naming a test that
 * builds that type), and nothing else: a type added to the table without a
 * test makes it fail.
 *
 * Longer than 600 lines: a row per case, each with the derivation it
 * needs, and the list of the types tested elsewhere; split by family, the
 * parts would share the runner through a header for nothing else.
 *
 * FLOP conventions (stagecut(1), COST MODEL, and core/formats/onnx_shape.c): a
 * multiply or an add is one FLOP, a multiply-accumulate two.
 *   Conv: 2 N C_out prod(out spatial) (C_in/group) prod(kernel), + N C_out
 *     prod(out spatial) with a bias.
 *   ConvTranspose: 2 N C_in prod(in spatial) (C_out/group) prod(kernel),
 *     + the bias as for Conv.
 *   MatMul: 2 batch M N K (batch dims broadcast); Gemm: 2 M N K, + M N
 *     with C.
 *   Elementwise ops of several inputs (Pow, PRelu, BitShift, Mean): 1 per
 *     output element and input beyond the first (Mean's division by the
 *     count is not counted).  Unary ops (activations
 *     whatever their formula, Exp, Log, Round, Sign, Reciprocal, IsInf,
 *     Clip): 1 per element.
 *   Softmax, LogSoftmax: 5 per element; LayerNormalization,
 *     InstanceNormalization, GroupNormalization: 8; BatchNormalization: 2.
 *   MaxPool, AveragePool, LpPool: output elements x kernel elements (the
 *     kernel_shape product, dilations aside); global pools: input
 *     elements.  Reduce ops: input elements.
 *   Resize, Upsample: 1 per output element (nearest), 4 (linear, cubic).
 *   Dropout: 0 (a copy at inference).
 *
 * Output shapes (the spec's formulas, spatial axis i, pads[i] its begin
 * and pads[i + n] its end, k the kernel, d the dilation, s the stride):
 *   Conv and pools, explicit pads: floor((in + pads - d (k - 1) - 1) / s)
 *     + 1; with ceil_mode, ceil instead of floor, and a last window that
 *     would start in the right padding (at or past in + pads[i]) is
 *     dropped (MaxPool, AveragePool, LpPool: "Sliding windows that would
 *     start in the right padded region are ignored").  auto_pad
 *     SAME_UPPER, SAME_LOWER: ceil(in / s); VALID: floor((in - d (k - 1) -
 *     1) / s) + 1.
 *   ConvTranspose: s (in - 1) + output_padding + (k - 1) d + 1 - pads
 *     begin - pads end; output_shape when given; SAME_*: in x s.
 *   Resize and Upsample: floor(in x scale), or the sizes; with
 *     keep_aspect_ratio_policy not_larger (not_smaller) scale = the min
 *     (max) of sizes[i] / in[axes[i]] and out = round_int(scale x in).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/formats/onnx_shape.h"
#include "tests/support.h"

/* TensorProto.DataType */
enum { F32 = 1, U8 = 2, I8 = 3, I32 = 6, I64 = 7, BOOL = 9, F16 = 10, U32 = 12, BF16 = 16 };

/* ---- a case: one node, its inputs and what it must give ---------------------------- */

#define MAXIN 5
#define MAXOUT 3
#define MAXATTR 4
#define MAXVALS 16

typedef struct tensor_spec {
	int dtype; /* 0: an optional input left out; the end of the outputs */
	int rank;
	int64_t dim[SC_ONNX_MAX_RANK];
	bool valued; /* v holds one value per element (an initializer's) */
	double v[MAXVALS];
} tensor_spec;

enum { A_INT = 1, A_INTS, A_FLOAT, A_FLOATS, A_STRING };

typedef struct attr_spec {
	const char *name; /* NULL: no more attributes */
	int kind;
	int64_t i;
	float f;
	int n; /* of ints or floats */
	int64_t ints[8];
	float floats[8];
	const char *s;
} attr_spec;

typedef struct op_case {
	const char *op;
	const char *what; /* what the row exercises, for the failure messages */
	tensor_spec in[MAXIN];
	attr_spec attr[MAXATTR];
	tensor_spec out[MAXOUT]; /* valued: the values are expected too */
	double flops;            /* REFUSED: sc_onnx_infer must answer false */
} op_case;

/* the flops of a row whose node is invalid, or whose shape cannot be known */
#define REFUSED (-1.0)

/* clang-format off */
#define NDIM(...) ((int)(sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t)))
#define NVAL(...) ((int)(sizeof((const double[]){__VA_ARGS__}) / sizeof(double)))
#define SHAPE(...) .rank = NDIM(__VA_ARGS__), .dim = {__VA_ARGS__}
#define VALS(...) .valued = true, .v = {__VA_ARGS__}
/* a tensor of type t and dims ...; a scalar; a 1-D tensor of values; a
 * scalar value; an optional input left out; an empty 1-D initializer */
#define T(t, ...) {.dtype = t, SHAPE(__VA_ARGS__)}
#define SCALAR(t) {.dtype = t, .rank = 0}
#define VEC(t, ...) {.dtype = t, .rank = 1, .dim = {NVAL(__VA_ARGS__)}, VALS(__VA_ARGS__)}
#define SVAL(t, x) {.dtype = t, .rank = 0, VALS(x)}
#define NONE {.dtype = 0}
#define EMPTY(t) {.dtype = t, .rank = 1, .dim = {0}, .valued = true}
/* attributes: an int, ints, a float, floats, a string */
#define AI(name_, x) {.name = name_, .kind = A_INT, .i = x}
#define AIS(name_, ...) \
	{.name = name_, .kind = A_INTS, .n = NDIM(__VA_ARGS__), .ints = {__VA_ARGS__}}
#define AF(name_, x) {.name = name_, .kind = A_FLOAT, .f = x}
#define AFS(name_, ...) \
	{.name = name_, .kind = A_FLOATS, .n = NVAL(__VA_ARGS__), .floats = {__VA_ARGS__}}
#define AS(name_, str) {.name = name_, .kind = A_STRING, .s = str}

static const op_case cases[] = {
	/* ---- convolutions and matrix products ---- */

	/* H = W = floor((5 + 1 + 1 - 3) / 2) + 1 = 3; C_out 4; FLOPs 2 x 1 x 4 x
	 * 9 x (2/2) x 9 = 648 */
	{"Conv", "group 2, pads, strides",
	 {T(F32, 1, 2, 5, 5), T(F32, 4, 1, 3, 3)},
	 {AI("group", 2), AIS("pads", 1, 1, 1, 1), AIS("strides", 2, 2)},
	 {T(F32, 1, 4, 3, 3)}, 648},
	/* dilation 2: effective kernel 5, 7 - 5 + 1 = 3; FLOPs 2 x 2 x 9 x 1 x 9
	 * = 324, + bias 2 x 9 = 18 */
	{"Conv", "dilations and a bias",
	 {T(F32, 1, 1, 7, 7), T(F32, 2, 1, 3, 3), T(F32, 2)},
	 {AIS("dilations", 2, 2)},
	 {T(F32, 1, 2, 3, 3)}, 342},
	/* SAME_LOWER: ceil(7 / 2) = 4; FLOPs 2 x N 2 x C_out 5 x 4 x C_in 3 x
	 * k 2 = 480 */
	{"Conv", "1-D, auto_pad SAME_LOWER, stride 2",
	 {T(F32, 2, 3, 7), T(F32, 5, 3, 2)},
	 {AS("auto_pad", "SAME_LOWER"), AIS("strides", 2)},
	 {T(F32, 2, 5, 4)}, 480},
	/* VALID: floor((10 - 4) / 3) + 1 = 3; FLOPs 2 x 3 x 4 = 24 */
	{"Conv", "auto_pad VALID, stride 3",
	 {T(F32, 1, 1, 10), T(F32, 1, 1, 4)},
	 {AS("auto_pad", "VALID"), AIS("strides", 3)},
	 {T(F32, 1, 1, 3)}, 24},
	/* a kernel larger than the input: floor((2 - 3) / 1) + 1 = 0 outputs */
	{"Conv", "a kernel past the input", {T(F32, 1, 1, 2), T(F32, 1, 1, 3)}, {{0}}, {{0}}, REFUSED},

	/* W (C_in 2, C_out/group 3, 3, 3): 2 (3 - 1) + 1 + (3 - 1) + 1 - 1 - 1 =
	 * 6; FLOPs 2 x N 1 x C_in 2 x 9 x 3 x 9 = 972 */
	{"ConvTranspose", "strides, pads, output_padding",
	 {T(F32, 1, 2, 3, 3), T(F32, 2, 3, 3, 3)},
	 {AIS("strides", 2, 2), AIS("pads", 1, 1, 1, 1), AIS("output_padding", 1, 1)},
	 {T(F32, 1, 3, 6, 6)}, 972},
	/* group 2, W (4, 1, 2, 2): C_out = 1 x 2; (2 - 1) + (2 - 1) + 1 = 3;
	 * FLOPs 2 x 4 x 4 x 1 x 4 = 128, + bias 2 x 9 = 18 */
	{"ConvTranspose", "group 2 and a bias",
	 {T(F32, 1, 4, 2, 2), T(F32, 4, 1, 2, 2), T(F32, 2)},
	 {AI("group", 2)},
	 {T(F32, 1, 2, 3, 3)}, 146},
	/* output_shape (spatial) given: the output is it (the total padding
	 * 3 x 3 + 3 - 10 = 2 and 3 x 2 + 3 - 8 = 1 are not negative); FLOPs
	 * 2 x 1 x 12 x 1 x 9 = 216 */
	{"ConvTranspose", "output_shape",
	 {T(F32, 1, 1, 4, 3), T(F32, 1, 1, 3, 3)},
	 {AIS("strides", 3, 3), AIS("output_shape", 10, 8)},
	 {T(F32, 1, 1, 10, 8)}, 216},
	/* SAME_UPPER: in x stride = 6; C_out 2; FLOPs 2 x 1 x 3 x 2 x 3 = 36 */
	{"ConvTranspose", "auto_pad SAME_UPPER",
	 {T(F32, 1, 1, 3), T(F32, 1, 2, 3)},
	 {AS("auto_pad", "SAME_UPPER"), AIS("strides", 2)},
	 {T(F32, 1, 2, 6)}, 36},
	/* dilation 2: (4 - 1) + (3 - 1) x 2 + 1 = 8; FLOPs 2 x 4 x 1 x 3 = 24 */
	{"ConvTranspose", "dilations",
	 {T(F32, 1, 1, 4), T(F32, 1, 1, 3)},
	 {AIS("dilations", 2)},
	 {T(F32, 1, 1, 8)}, 24},

	/* numpy: the 1-D A is [1, 3], batch [2]: [2, 1, 4], the 1 removed;
	 * FLOPs 2 x 2 x 1 x 4 x 3 = 48 */
	{"MatMul", "a 1-D first operand", {T(F32, 3), T(F32, 2, 3, 4)}, {{0}},
	 {T(F32, 2, 4)}, 48},
	/* batch dims [2, 1] and [5] broadcast to [2, 5]; FLOPs 2 x 10 x 3 x 2 x
	 * 4 = 480 */
	{"MatMul", "broadcast batch dims", {T(F16, 2, 1, 3, 4), T(F16, 5, 4, 2)}, {{0}},
	 {T(F16, 2, 5, 3, 2)}, 480},
	/* two vectors: a scalar, 2 x 4 = 8 FLOPs */
	{"MatMul", "a dot product", {T(F32, 4), T(F32, 4)}, {{0}}, {SCALAR(F32)}, 8},
	{"MatMul", "inner dims 3 and 4", {T(F32, 2, 3), T(F32, 4, 5)}, {{0}}, {{0}}, REFUSED},

	/* transA: A' is 2 x 3; FLOPs 2 x 2 x 4 x 3 = 48, + C 2 x 4 = 8 */
	{"Gemm", "transA and C", {T(F32, 3, 2), T(F32, 3, 4), T(F32, 4)}, {AI("transA", 1)},
	 {T(F32, 2, 4)}, 56},
	/* transB: B' is 5 x 3; FLOPs 2 x 2 x 3 x 5 = 60 */
	{"Gemm", "transB, no C", {T(F32, 2, 5), T(F32, 3, 5)}, {AI("transB", 1)},
	 {T(F32, 2, 3)}, 60},

	/* ---- pools ---- */

	/* floor((5 + 2 - 3) / 2) + 1 = 3; Indices int64 of Y's shape; FLOPs 9
	 * outputs x 9 = 81 */
	{"MaxPool", "pads, strides, Indices",
	 {T(F32, 1, 1, 5, 5)},
	 {AIS("kernel_shape", 3, 3), AIS("pads", 1, 1, 1, 1), AIS("strides", 2, 2)},
	 {T(F32, 1, 1, 3, 3), T(I64, 1, 1, 3, 3)}, 81},
	/* ceil((6 - 3) / 2) + 1 = 3 (floor would give 2); the third window
	 * starts at 4, inside the input: kept; FLOPs 3 x 3 = 9 */
	{"MaxPool", "ceil_mode",
	 {T(F32, 1, 1, 6)},
	 {AIS("kernel_shape", 3), AIS("strides", 2), AI("ceil_mode", 1)},
	 {T(F32, 1, 1, 3)}, 9},
	/* ceil((4 + 0 + 2 - 3) / 2) + 1 = 3, but the third window starts at
	 * 2 x 2 = 4 >= in 4 + pad begin 0, in the right padding: ignored, 2;
	 * FLOPs 2 x 3 = 6 */
	{"MaxPool", "ceil_mode, a last window in the right padding",
	 {T(F32, 1, 1, 4)},
	 {AIS("kernel_shape", 3), AIS("strides", 2), AIS("pads", 0, 2), AI("ceil_mode", 1)},
	 {T(F32, 1, 1, 2)}, 6},
	/* dilation 3: floor((7 - 3 x 1 - 1) / 1) + 1 = 4; FLOPs 4 x 2 = 8 */
	{"MaxPool", "dilations",
	 {T(F32, 1, 1, 7)},
	 {AIS("kernel_shape", 2), AIS("dilations", 3)},
	 {T(F32, 1, 1, 4)}, 8},
	/* SAME_UPPER: ceil(5 / 2) = 3; FLOPs 18 x 9 = 162 */
	{"MaxPool", "auto_pad SAME_UPPER",
	 {T(F32, 1, 2, 5, 5)},
	 {AIS("kernel_shape", 3, 3), AIS("strides", 2, 2), AS("auto_pad", "SAME_UPPER")},
	 {T(F32, 1, 2, 3, 3)}, 162},
	/* SAME_LOWER: ceil(7 / 3) = 3; FLOPs 3 x 2 = 6 */
	{"MaxPool", "auto_pad SAME_LOWER",
	 {T(F32, 1, 1, 7)},
	 {AIS("kernel_shape", 2), AIS("strides", 3), AS("auto_pad", "SAME_LOWER")},
	 {T(F32, 1, 1, 3)}, 6},
	/* VALID: H floor((7 - 2) / 2) + 1 = 3, W floor((6 - 3) / 3) + 1 = 2;
	 * FLOPs 6 x 6 = 36 */
	{"MaxPool", "auto_pad VALID",
	 {T(F32, 1, 1, 7, 6)},
	 {AIS("kernel_shape", 2, 3), AIS("strides", 2, 3), AS("auto_pad", "VALID")},
	 {T(F32, 1, 1, 3, 2)}, 36},
	{"MaxPool", "no kernel_shape", {T(F32, 1, 1, 4)}, {{0}}, {{0}}, REFUSED},
	{"MaxPool", "a kernel past the input", {T(F32, 1, 1, 2)}, {AIS("kernel_shape", 3)},
	 {{0}}, REFUSED},

	/* (8 - 2) / 2 + 1 = 4; FLOPs 96 x 4 = 384 */
	{"AveragePool", "strides",
	 {T(F32, 2, 3, 8, 8)},
	 {AIS("kernel_shape", 2, 2), AIS("strides", 2, 2)},
	 {T(F32, 2, 3, 4, 4)}, 384},
	/* pads [H begin 0, W begin 2, H end 1, W end 0]: H 4 + 0 + 1 - 3 + 1 =
	 * 3, W 4 + 2 + 0 - 3 + 1 = 4; FLOPs 12 x 9 = 108 */
	{"AveragePool", "pads that differ per side and axis",
	 {T(F32, 1, 1, 4, 4)},
	 {AIS("kernel_shape", 3, 3), AIS("pads", 0, 2, 1, 0), AI("count_include_pad", 1)},
	 {T(F32, 1, 1, 3, 4)}, 108},
	/* ceil((5 - 2) / 2) + 1 = 3, the last window starting at 4 < 5; FLOPs
	 * 9 x 4 = 36 */
	{"AveragePool", "ceil_mode",
	 {T(F32, 1, 1, 5, 5)},
	 {AIS("kernel_shape", 2, 2), AIS("strides", 2, 2), AI("ceil_mode", 1)},
	 {T(F32, 1, 1, 3, 3)}, 36},

	/* (6 - 3) / 3 + 1 = 2; FLOPs 4 x 3 = 12 */
	{"LpPool", "p 2, stride 3",
	 {T(F32, 1, 2, 6)},
	 {AIS("kernel_shape", 3), AIS("strides", 3), AI("p", 2)},
	 {T(F32, 1, 2, 2)}, 12},
	/* 5 + 2 - 2 + 1 = 6; FLOPs 36 x 4 = 144 */
	{"LpPool", "pads",
	 {T(F32, 1, 1, 5, 5)},
	 {AIS("kernel_shape", 2, 2), AIS("pads", 1, 1, 1, 1)},
	 {T(F32, 1, 1, 6, 6)}, 144},

	/* every spatial axis becomes 1; FLOPs the input's 120 elements */
	{"GlobalAveragePool", "2-D", {T(F32, 2, 3, 4, 5)}, {{0}}, {T(F32, 2, 3, 1, 1)}, 120},
	{"GlobalMaxPool", "1-D", {T(F16, 1, 4, 3)}, {{0}}, {T(F16, 1, 4, 1)}, 12},
	{"GlobalLpPool", "3-D, p 3", {T(F32, 1, 2, 2, 2, 2)}, {AI("p", 3)},
	 {T(F32, 1, 2, 1, 1, 1)}, 16},

	/* ---- normalizations ---- */

	/* Y is X's shape; FLOPs 2 x 96 = 192 */
	{"BatchNormalization", "inference",
	 {T(F32, 2, 3, 4, 4), T(F32, 3), T(F32, 3), T(F32, 3), T(F32, 3)}, {{0}},
	 {T(F32, 2, 3, 4, 4)}, 192},
	/* training_mode 1 (opset 15): Y, running_mean and running_var, the last
	 * two of input_mean's type and shape (C) */
	{"BatchNormalization", "training_mode: running mean and variance",
	 {T(F16, 2, 3, 4, 4), T(F16, 3), T(F16, 3), T(F32, 3), T(F32, 3)},
	 {AI("training_mode", 1)},
	 {T(F16, 2, 3, 4, 4), T(F32, 3), T(F32, 3)}, 192},

	/* axis -1: Mean and InvStdDev [d0, d1, 1], of stash_type's default
	 * float; FLOPs 8 x 24 = 192 */
	{"LayerNormalization", "axis -1, Mean and InvStdDev",
	 {T(F32, 2, 3, 4), T(F32, 4), T(F32, 4)}, {{0}},
	 {T(F32, 2, 3, 4), T(F32, 2, 3, 1), T(F32, 2, 3, 1)}, 192},
	/* axis 1: [d0, 1, 1]; a float16 X keeps float statistics (stash_type 1) */
	{"LayerNormalization", "axis 1, float16",
	 {T(F16, 2, 3, 4), T(F16, 3, 4)}, {AI("axis", 1)},
	 {T(F16, 2, 3, 4), T(F32, 2, 1, 1), T(F32, 2, 1, 1)}, 192},
	/* axis 0: all 1s; stash_type 16: the statistics are bfloat16 ("Type of
	 * Mean and InvStdDev"); FLOPs 8 x 6 = 48 */
	{"LayerNormalization", "axis 0, stash_type bfloat16",
	 {T(F32, 2, 3), T(F32, 2, 3)}, {AI("axis", 0), AI("stash_type", 16)},
	 {T(F32, 2, 3), T(BF16, 1, 1), T(BF16, 1, 1)}, 48},

	/* X's shape; FLOPs 8 x 150 = 1200 */
	{"InstanceNormalization", "NCHW",
	 {T(F32, 2, 3, 5, 5), T(F32, 3), T(F32, 3)}, {AF("epsilon", 1e-5f)},
	 {T(F32, 2, 3, 5, 5)}, 1200},
	/* X's shape; FLOPs 8 x 72 = 576 */
	{"GroupNormalization", "2 groups of 2 channels",
	 {T(F32, 2, 4, 3, 3), T(F32, 4), T(F32, 4)}, {AI("num_groups", 2)},
	 {T(F32, 2, 4, 3, 3)}, 576},

	/* X's shape whatever the axis; FLOPs 5 per element */
	{"Softmax", "axis 0", {T(F32, 2, 5)}, {AI("axis", 0)}, {T(F32, 2, 5)}, 50},
	{"LogSoftmax", "axis -1", {T(F32, 3, 4)}, {AI("axis", -1)}, {T(F32, 3, 4)}, 60},
	{"LogSoftmax", "axis 0 of rank 3", {T(F16, 2, 3, 4)}, {AI("axis", 0)},
	 {T(F16, 2, 3, 4)}, 120},

	/* an identity at inference (Y = X, values too), 0 FLOPs */
	{"Dropout", "Y only", {{.dtype = F32, SHAPE(2), VALS(1.5, -2)}}, {{0}},
	 {{.dtype = F32, SHAPE(2), VALS(1.5, -2)}}, 0},
	/* opset 12: ratio and training_mode inputs; the mask is bool of X's
	 * shape */
	{"Dropout", "ratio, training_mode and the mask",
	 {T(F32, 2, 3), SVAL(F32, 0.5), SVAL(BOOL, 0)}, {{0}},
	 {T(F32, 2, 3), T(BOOL, 2, 3)}, 0},

	/* ---- unary ops: X's shape and type, 1 FLOP per element ---- */

	{"Relu", "values", {VEC(F32, -1, 0, 2)}, {{0}}, {VEC(F32, 0, 0, 2)}, 3},
	{"Sigmoid", "rank 4", {T(F32, 1, 2, 3, 4)}, {{0}}, {T(F32, 1, 2, 3, 4)}, 24},
	{"Tanh", "a scalar", {SCALAR(F32)}, {{0}}, {SCALAR(F32)}, 1},
	{"Erf", "2 x 3", {T(F32, 2, 3)}, {{0}}, {T(F32, 2, 3)}, 6},
	{"Sin", "2 x 3", {T(F32, 2, 3)}, {{0}}, {T(F32, 2, 3)}, 6},
	{"Cos", "float16 4", {T(F16, 4)}, {{0}}, {T(F16, 4)}, 4},
	{"Elu", "alpha", {T(F32, 3, 3)}, {AF("alpha", 0.5f)}, {T(F32, 3, 3)}, 9},
	{"Celu", "alpha", {T(F32, 5)}, {AF("alpha", 2.0f)}, {T(F32, 5)}, 5},
	{"Selu", "alpha and gamma", {T(F32, 2, 2)}, {AF("alpha", 1.5f), AF("gamma", 1.1f)},
	 {T(F32, 2, 2)}, 4},
	{"LeakyRelu", "alpha", {T(F32, 1, 8)}, {AF("alpha", 0.1f)}, {T(F32, 1, 8)}, 8},
	{"ThresholdedRelu", "alpha", {T(F32, 7)}, {AF("alpha", 2.0f)}, {T(F32, 7)}, 7},
	{"HardSigmoid", "alpha and beta", {T(F32, 2, 5)}, {AF("alpha", 0.25f), AF("beta", 0.5f)},
	 {T(F32, 2, 5)}, 10},
	{"HardSwish", "2 x 2 x 2", {T(F32, 2, 2, 2)}, {{0}}, {T(F32, 2, 2, 2)}, 8},
	{"Gelu", "approximate tanh", {T(F32, 3, 2)}, {AS("approximate", "tanh")},
	 {T(F32, 3, 2)}, 6},
	{"Mish", "6", {T(F32, 6)}, {{0}}, {T(F32, 6)}, 6},
	{"Softplus", "2 x 4", {T(F32, 2, 4)}, {{0}}, {T(F32, 2, 4)}, 8},
	{"Softsign", "4 x 1", {T(F32, 4, 1)}, {{0}}, {T(F32, 4, 1)}, 4},
	/* IsInf: bool of X's shape */
	{"IsInf", "detect_negative 0", {T(F32, 3, 2)}, {AI("detect_negative", 0)},
	 {T(BOOL, 3, 2)}, 6},
	/* Clip (opset 11): min and max are inputs; either may be left out;
	 * Clip 6: attributes */
	{"Clip", "min and max inputs", {T(F32, 4, 5), SVAL(F32, 0), SVAL(F32, 6)}, {{0}},
	 {T(F32, 4, 5)}, 20},
	{"Clip", "max only", {T(F32, 2, 2, 2), NONE, SVAL(F32, 1)}, {{0}},
	 {T(F32, 2, 2, 2)}, 8},
	{"Clip", "opset 6 attributes", {T(F32, 3)}, {AF("min", -1.0f), AF("max", 1.0f)},
	 {T(F32, 3)}, 3},
	/* e^0 = 1, e^1 = e */
	{"Exp", "values", {VEC(F32, 0, 1)}, {{0}}, {VEC(F32, 1, 2.718281828459045)}, 2},
	/* the spec's example: log([1, 10]) = [0, 2.302585...] */
	{"Log", "values", {VEC(F32, 1, 10)}, {{0}}, {VEC(F32, 0, 2.302585092994046)}, 2},
	/* the spec's example: 1 / [-4, 2] = [-0.25, 0.5] */
	{"Reciprocal", "values", {VEC(F32, -4, 2)}, {{0}}, {VEC(F32, -0.25, 0.5)}, 2},
	/* the spec's example: halves round to the nearest even integer */
	{"Round", "the spec's example, halves to even",
	 {VEC(F32, 0.1, 0.5, 0.9, 1.2, 1.5, 1.8, 2.3, 2.5, 2.7, -1.1, -1.5, -1.9, -2.2, -2.5, -2.8)},
	 {{0}},
	 {VEC(F32, 0, 0, 1, 1, 2, 2, 2, 2, 3, -1, -2, -2, -2, -2, -3)}, 15},
	/* the spec's example: sign(range(-5, 6)) */
	{"Sign", "the spec's example", {VEC(F32, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5)}, {{0}},
	 {VEC(F32, -1, -1, -1, -1, -1, 0, 1, 1, 1, 1, 1)}, 11},

	/* ---- elementwise ops of several inputs ---- */

	/* the spec's broadcast example: [[1 2 3] [4 5 6]] ^ [1 2 3] = [[1 4 27]
	 * [4 25 216]]; 6 output elements x 1 */
	{"Pow", "a broadcast exponent",
	 {{.dtype = F32, SHAPE(2, 3), VALS(1, 2, 3, 4, 5, 6)}, VEC(F32, 1, 2, 3)}, {{0}},
	 {{.dtype = F32, SHAPE(2, 3), VALS(1, 4, 27, 4, 25, 216)}}, 6},
	/* Z is of X's type (T), whatever Y's (T1): int64 [4 9] */
	{"Pow", "an int64 base, a float exponent", {VEC(I64, 2, 3), SVAL(F32, 2)}, {{0}},
	 {VEC(I64, 4, 9)}, 2},
	{"Pow", "shapes that do not broadcast", {T(F32, 2, 3), T(F32, 2)}, {{0}}, {{0}}, REFUSED},
	/* slope (C, 1, 1) broadcasts to X; Y is X's shape, 12 x 1 FLOPs */
	{"PRelu", "a per-channel slope", {T(F32, 1, 3, 2, 2), T(F32, 3, 1, 1)}, {{0}},
	 {T(F32, 1, 3, 2, 2)}, 12},
	/* slope [2, 3] does not broadcast to X [3] one way (the output would
	 * not be X's size) */
	{"PRelu", "a slope wider than X", {T(F32, 3), T(F32, 2, 3)}, {{0}}, {{0}}, REFUSED},
	/* the spec's example shapes, 3 inputs: 2 FLOPs per element */
	{"Mean", "three inputs", {VEC(F32, 3, 0, 2), VEC(F32, 1, 3, 4), VEC(F32, 2, 6, 6)},
	 {{0}}, {T(F32, 3)}, 6},
	/* [2, 1], [1, 3] and [3] broadcast to [2, 3]: 6 x 2 = 12 */
	{"Mean", "three that broadcast", {T(F32, 2, 1), T(F32, 1, 3), T(F32, 3)}, {{0}},
	 {T(F32, 2, 3)}, 12},
	/* the spec's example: [16 4 1] >> [1 2 3], uint8 [3], 3 FLOPs */
	{"BitShift", "RIGHT", {VEC(U8, 16, 4, 1), VEC(U8, 1, 2, 3)},
	 {AS("direction", "RIGHT")}, {T(U8, 3)}, 3},
	/* X 2 x 3 and a scalar Y: 2 x 3 uint32, 6 FLOPs */
	{"BitShift", "LEFT by a scalar", {T(U32, 2, 3), SCALAR(U32)}, {AS("direction", "LEFT")},
	 {T(U32, 2, 3)}, 6},

	/* ---- reductions: input elements FLOPs (24 here) ---- */

	/* axes [1], keepdims 1 (default): [2, 1, 4] */
	{"ReduceL1", "axes attribute, kept", {T(F32, 2, 3, 4)}, {AIS("axes", 1)},
	 {T(F32, 2, 1, 4)}, 24},
	/* an empty axes input, noop_with_empty_axes 0: every axis, kept */
	{"ReduceL1", "empty axes input: all", {T(F32, 2, 3, 4), EMPTY(I64)}, {{0}},
	 {T(F32, 1, 1, 1)}, 24},
	/* axes [-1] = 2, keepdims 0: [2, 3] */
	{"ReduceL2", "negative axis, dropped", {T(F32, 2, 3, 4)},
	 {AIS("axes", -1), AI("keepdims", 0)}, {T(F32, 2, 3)}, 24},
	/* opset 18: axes [0, 2] as an input, keepdims 0: [3] */
	{"ReduceLogSum", "axes input, dropped", {T(F32, 2, 3, 4), VEC(I64, 0, 2)},
	 {AI("keepdims", 0)}, {T(F32, 3)}, 24},
	/* no axes: every axis; kept: [1, 1, 1] */
	{"ReduceLogSumExp", "all axes, kept", {T(F32, 2, 3, 4)}, {{0}}, {T(F32, 1, 1, 1)}, 24},
	/* no axes, keepdims 0: a scalar */
	{"ReduceSumSquare", "all axes to a scalar", {T(F32, 2, 3, 4)}, {AI("keepdims", 0)},
	 {SCALAR(F32)}, 24},
	/* noop_with_empty_axes 1 and no axes: the input's shape */
	{"ReduceSumSquare", "noop_with_empty_axes", {T(F32, 2, 3, 4)},
	 {AI("noop_with_empty_axes", 1)}, {T(F32, 2, 3, 4)}, 24},
	/* axes [1], dropped: [2, 4] */
	{"ReduceMean", "axes attribute, dropped", {T(F32, 2, 3, 4)},
	 {AIS("axes", 1), AI("keepdims", 0)}, {T(F32, 2, 4)}, 24},
	{"ReduceMean", "an axis past the rank", {T(F32, 2, 3, 4)}, {AIS("axes", 3)}, {{0}}, REFUSED},

	/* ---- Resize and Upsample ---- */

	/* opset 11: (X, roi, scales): floor(4 x 2) = 8; nearest: 1 x 192 */
	{"Resize", "scales, nearest",
	 {T(F32, 1, 3, 4, 4), EMPTY(F32), VEC(F32, 1, 1, 2, 2)}, {{0}},
	 {T(F32, 1, 3, 8, 8)}, 192},
	/* floor(4 x 0.5) = 2, floor(6 x 1.5) = 9; linear: 4 x 18 = 72 */
	{"Resize", "scales below and above 1, linear",
	 {T(F32, 1, 1, 4, 6), EMPTY(F32), VEC(F32, 1, 1, 0.5, 1.5)}, {AS("mode", "linear")},
	 {T(F32, 1, 1, 2, 9)}, 72},
	/* sizes (roi and scales empty, as exporters write them); cubic: 4 x
	 * 180 = 720 */
	{"Resize", "sizes, cubic",
	 {T(F32, 1, 3, 4, 4), EMPTY(F32), EMPTY(F32), VEC(I64, 1, 3, 6, 10)},
	 {AS("mode", "cubic")},
	 {T(F32, 1, 3, 6, 10)}, 720},
	/* opset 10: (X, scales): floor(2 x 2) = 4, floor(2 x 1.5) = 3; 12 */
	{"Resize", "opset 10 (X, scales)", {T(F32, 2, 2), VEC(F32, 2, 1.5)}, {{0}},
	 {T(F32, 4, 3)}, 12},
	/* opset 18, axes [-1] (the last): floor(4 x 2.5) = 10, the others kept;
	 * 60 */
	{"Resize", "scales of one axis (axes)",
	 {T(F32, 1, 2, 3, 4), NONE, VEC(F32, 2.5)}, {AIS("axes", -1)},
	 {T(F32, 1, 2, 3, 10)}, 60},
	/* axes [3, 2]: sizes [2 5] are W's and H's (stretch, the default): H
	 * 5, W 2; 10 */
	{"Resize", "sizes of axes in another order",
	 {T(F32, 1, 1, 4, 8), NONE, NONE, VEC(I64, 2, 5)}, {AIS("axes", 3, 2)},
	 {T(F32, 1, 1, 5, 2)}, 10},
	/* axes [2, 3], sizes [6 6], not_larger: scale = min(6/4, 6/8) = 0.75,
	 * H round(3) = 3, W round(6) = 6; 18 */
	{"Resize", "keep_aspect_ratio_policy not_larger",
	 {T(F32, 1, 1, 4, 8), NONE, NONE, VEC(I64, 6, 6)},
	 {AIS("axes", 2, 3), AS("keep_aspect_ratio_policy", "not_larger")},
	 {T(F32, 1, 1, 3, 6)}, 18},
	/* not_smaller: scale = max(0.75, 1.5) = 1.5: H 6, W 12; 72 */
	{"Resize", "keep_aspect_ratio_policy not_smaller",
	 {T(F32, 1, 1, 4, 8), NONE, NONE, VEC(I64, 6, 6)},
	 {AIS("axes", 2, 3), AS("keep_aspect_ratio_policy", "not_smaller")},
	 {T(F32, 1, 1, 6, 12)}, 72},
	/* no axes: sizes [2 10] for both, not_larger: scale = min(2/4, 10/5) =
	 * 0.5, H 0.5 x 4 = 2, W round_int(0.5 x 5 = 2.5) = 3 (halves up); 6 */
	{"Resize", "keep_aspect_ratio_policy rounds halves up",
	 {T(F32, 4, 5), NONE, NONE, VEC(I64, 2, 10)},
	 {AS("keep_aspect_ratio_policy", "not_larger")},
	 {T(F32, 2, 3)}, 6},
	/* scales without values and no sizes: the shape cannot be known */
	{"Resize", "scales unknown", {T(F32, 1, 1, 2, 2), NONE, T(F32, 4)}, {{0}}, {{0}}, REFUSED},

	/* Upsample 7: scales attribute, nearest: [1 1 4 6], 24 */
	{"Upsample", "opset 7 scales attribute", {T(F32, 1, 1, 2, 3)}, {AFS("scales", 1, 1, 2, 2)},
	 {T(F32, 1, 1, 4, 6)}, 24},
	/* Upsample 9: (X, scales), linear: floor(2 x 1.5) = 3, 2 x 2 = 4; 4 x 12
	 * = 48 */
	{"Upsample", "opset 9 scales input, linear",
	 {T(F32, 1, 1, 2, 2), VEC(F32, 1, 1, 1.5, 2)}, {AS("mode", "linear")},
	 {T(F32, 1, 1, 3, 4)}, 48},
};
/* clang-format on */

/* ---- the types tested elsewhere ----------------------------------------------------- */

/* Each type tested by another file's test, which builds a node of it and
 * checks its shape, values or FLOPs by hand: the type, the file, and the
 * test as suite/name. */
static const struct {
	const char *op, *file, *test;
} elsewhere[] = {
        {"Abs", "tests/unit/test_onnx_shape.c", "onnx_shape/unary_values_and_none_for_the_others"},
        {"Ceil", "tests/unit/test_onnx_shape.c", "onnx_shape/unary_values_and_none_for_the_others"},
        {"Floor", "tests/unit/test_onnx_shape.c",
         "onnx_shape/unary_values_and_none_for_the_others"},
        {"IsNaN", "tests/unit/test_onnx_shape.c",
         "onnx_shape/unary_values_and_none_for_the_others"},
        {"Neg", "tests/unit/test_onnx_shape.c", "onnx_shape/unary_values_and_none_for_the_others"},
        {"Sqrt", "tests/unit/test_onnx_shape.c", "onnx_shape/unary_values_and_none_for_the_others"},
        {"Add", "tests/unit/test_onnx_shape.c", "onnx_shape/arithmetic_broadcasts_values"},
        {"Max", "tests/unit/test_onnx_shape.c", "onnx_shape/arithmetic_broadcasts_values"},
        {"Min", "tests/unit/test_onnx_shape.c", "onnx_shape/arithmetic_broadcasts_values"},
        {"Mul", "tests/unit/test_onnx_shape.c", "onnx_shape/arithmetic_broadcasts_values"},
        {"Sub", "tests/unit/test_onnx_shape.c", "onnx_shape/arithmetic_broadcasts_values"},
        {"Sum", "tests/unit/test_onnx_shape.c", "onnx_shape/arithmetic_broadcasts_values"},
        {"Div", "tests/unit/test_onnx_shape.c",
         "onnx_shape/integer_division_truncates_and_mod_follows_fmod"},
        {"Mod", "tests/unit/test_onnx_shape.c",
         "onnx_shape/integer_division_truncates_and_mod_follows_fmod"},
        {"And", "tests/unit/test_onnx_shape.c", "onnx_shape/comparisons_and_logic_are_booleans"},
        {"Equal", "tests/unit/test_onnx_shape.c", "onnx_shape/comparisons_and_logic_are_booleans"},
        {"Greater", "tests/unit/test_onnx_shape.c",
         "onnx_shape/comparisons_and_logic_are_booleans"},
        {"GreaterOrEqual", "tests/unit/test_onnx_shape.c",
         "onnx_shape/comparisons_and_logic_are_booleans"},
        {"Less", "tests/unit/test_onnx_shape.c", "onnx_shape/comparisons_and_logic_are_booleans"},
        {"LessOrEqual", "tests/unit/test_onnx_shape.c",
         "onnx_shape/comparisons_and_logic_are_booleans"},
        {"Not", "tests/unit/test_onnx_shape.c", "onnx_shape/comparisons_and_logic_are_booleans"},
        {"Or", "tests/unit/test_onnx_shape.c", "onnx_shape/comparisons_and_logic_are_booleans"},
        {"Xor", "tests/unit/test_onnx_shape.c", "onnx_shape/comparisons_and_logic_are_booleans"},
        {"Where", "tests/unit/test_onnx_shape.c", "onnx_shape/where_broadcasts_three_ways"},
        {"ArgMax", "tests/unit/test_onnx_shape.c",
         "onnx_shape/argmax_argmin_keepdims_and_last_index"},
        {"ArgMin", "tests/unit/test_onnx_shape.c",
         "onnx_shape/argmax_argmin_keepdims_and_last_index"},
        {"ReduceMax", "tests/unit/test_onnx_shape.c", "onnx_shape/reductions_of_small_tensors"},
        {"ReduceMin", "tests/unit/test_onnx_shape.c", "onnx_shape/reductions_of_small_tensors"},
        {"ReduceProd", "tests/unit/test_onnx_shape.c", "onnx_shape/reductions_of_small_tensors"},
        {"ReduceSum", "tests/unit/test_onnx_shape.c", "onnx_shape/reductions_of_small_tensors"},
        {"CumSum", "tests/unit/test_onnx_shape.c", "onnx_shape/cumsum_exclusive_and_reverse"},
        {"TopK", "tests/unit/test_onnx_shape.c", "onnx_shape/topk_values_and_indices"},
        {"Cast", "tests/unit/test_onnx_shape.c",
         "onnx_shape/cast_truncates_wraps_and_makes_booleans"},
        {"CastLike", "tests/unit/test_onnx_shape.c",
         "onnx_shape/cast_truncates_wraps_and_makes_booleans"},
        {"Concat", "tests/unit/test_onnx_shape.c",
         "onnx_shape/concat_split_transpose_reshape_flatten_keep_values"},
        {"Flatten", "tests/unit/test_onnx_shape.c",
         "onnx_shape/concat_split_transpose_reshape_flatten_keep_values"},
        {"Reshape", "tests/unit/test_onnx_shape.c",
         "onnx_shape/concat_split_transpose_reshape_flatten_keep_values"},
        {"Split", "tests/unit/test_onnx_shape.c",
         "onnx_shape/concat_split_transpose_reshape_flatten_keep_values"},
        {"Transpose", "tests/unit/test_onnx_shape.c",
         "onnx_shape/concat_split_transpose_reshape_flatten_keep_values"},
        {"Constant", "tests/unit/test_onnx_shape.c", "onnx_shape/constant_values"},
        {"ConstantOfShape", "tests/unit/test_onnx_shape.c",
         "onnx_shape/expand_tile_constant_of_shape_size_identity"},
        {"Expand", "tests/unit/test_onnx_shape.c",
         "onnx_shape/expand_tile_constant_of_shape_size_identity"},
        {"Identity", "tests/unit/test_onnx_shape.c",
         "onnx_shape/expand_tile_constant_of_shape_size_identity"},
        {"Size", "tests/unit/test_onnx_shape.c",
         "onnx_shape/expand_tile_constant_of_shape_size_identity"},
        {"Tile", "tests/unit/test_onnx_shape.c",
         "onnx_shape/expand_tile_constant_of_shape_size_identity"},
        {"DepthToSpace", "tests/unit/test_onnx_shape.c", "onnx_shape/depth_to_space_and_back"},
        {"SpaceToDepth", "tests/unit/test_onnx_shape.c", "onnx_shape/depth_to_space_and_back"},
        {"DequantizeLinear", "tests/unit/test_onnx_shape.c", "onnx_shape/quantize_and_dequantize"},
        {"QuantizeLinear", "tests/unit/test_onnx_shape.c", "onnx_shape/quantize_and_dequantize"},
        {"Gather", "tests/unit/test_onnx_shape.c", "onnx_shape/gather_on_any_axis"},
        {"GatherElements", "tests/unit/test_onnx_shape.c",
         "onnx_shape/gather_elements_and_gather_nd"},
        {"GatherND", "tests/unit/test_onnx_shape.c", "onnx_shape/gather_elements_and_gather_nd"},
        {"ScatterElements", "tests/unit/test_onnx_shape.c",
         "onnx_shape/scatter_nd_and_scatter_elements"},
        {"ScatterND", "tests/unit/test_onnx_shape.c", "onnx_shape/scatter_nd_and_scatter_elements"},
        {"LRN", "tests/unit/test_onnx_shape.c", "onnx_shape/lrn_flops"},
        {"NonZero", "tests/unit/test_onnx_shape.c", "onnx_shape/nonzero_needs_the_values"},
        {"OneHot", "tests/unit/test_onnx_shape.c", "onnx_shape/one_hot_depth_from_its_input"},
        {"Pad", "tests/unit/test_onnx_shape.c",
         "onnx_shape/swin_pads_from_mod_and_a_reversing_slice"},
        {"Shape", "tests/unit/test_onnx_shape.c",
         "onnx_shape/swin_pads_from_mod_and_a_reversing_slice"},
        {"Range", "tests/unit/test_onnx_shape.c", "onnx_shape/range_counts_up_down_and_in_floats"},
        {"Slice", "tests/unit/test_onnx_shape.c",
         "onnx_shape/slice_with_negative_steps_clamps_axes_and_attributes"},
        {"Squeeze", "tests/unit/test_onnx_shape.c", "onnx_shape/gpt_range_over_a_squeezed_length"},
        {"Unsqueeze", "tests/unit/test_onnx_shape.c",
         "onnx_shape/gpt_range_over_a_squeezed_length"},
        {"Trilu", "tests/unit/test_onnx_shape.c", "onnx_shape/trilu_upper_and_lower"},
        {"Einsum", "tests/unit/test_onnx_einsum.c", "onnx_einsum/matmul"},
        {"GRU", "tests/unit/test_onnx_rnn.c", "onnx_rnn/gru_reverse_with_bias"},
        {"LSTM", "tests/unit/test_onnx_rnn.c", "onnx_rnn/lstm_forward_with_bias"},
        {"RNN", "tests/unit/test_onnx_rnn.c", "onnx_rnn/rnn_bidirectional_with_bias"},
};

#define NCASES ((int)(sizeof cases / sizeof *cases))
#define NELSEWHERE ((int)(sizeof elsewhere / sizeof *elsewhere))

/* ---- running a case ------------------------------------------------------------------ */

/* the node of case c, its attributes in a[] (pointing into c) */
static void build_node(const op_case *c, Onnx__NodeProto *n, Onnx__AttributeProto *a,
                       Onnx__AttributeProto **pa)
{
	onnx__node_proto__init(n);
	n->op_type = (char *)c->op;
	n->attribute = pa;
	for (int i = 0; i < MAXATTR && c->attr[i].name; i++) {
		const attr_spec *s = &c->attr[i];
		onnx__attribute_proto__init(&a[i]);
		a[i].name = (char *)s->name;
		a[i].has_type = 1;
		switch (s->kind) {
		case A_INT:
			a[i].type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
			a[i].has_i = 1;
			a[i].i = s->i;
			break;
		case A_INTS:
			a[i].type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
			a[i].n_ints = (size_t)s->n;
			a[i].ints = (int64_t *)s->ints;
			break;
		case A_FLOAT:
			a[i].type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
			a[i].has_f = 1;
			a[i].f = s->f;
			break;
		case A_FLOATS:
			a[i].type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS;
			a[i].n_floats = (size_t)s->n;
			a[i].floats = (float *)s->floats;
			break;
		default:
			a[i].type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
			a[i].has_s = 1;
			a[i].s.len = strlen(s->s);
			a[i].s.data = (uint8_t *)s->s;
			break;
		}
		pa[i] = &a[i];
		n->n_attribute = (size_t)i + 1;
	}
}

/* the tensor the loader would hand over for spec s */
static sc_onnx_tensor tensor_of(const tensor_spec *s)
{
	sc_onnx_tensor t = {.known = true,
	                    .rank = s->rank,
	                    .dtype = s->dtype,
	                    .elem = sc_onnx_dtype_size(s->dtype),
	                    .nvalues = -1};
	memcpy(t.dim, s->dim, sizeof t.dim);
	if (s->valued) {
		t.nvalues = (int)sc_onnx_numel(&t);
		cr_assert(t.nvalues >= 0 && t.nvalues <= MAXVALS);
		for (int i = 0; i < t.nvalues; i++)
			t.value[i] = s->v[i];
	}
	return t;
}

/* the row's output k against what inference gave; false (with a message)
 * at the first difference */
static bool output_matches(const op_case *c, int k, const sc_onnx_tensor *got)
{
	const tensor_spec *want = &c->out[k];
	cr_expect(got->known, "%s (%s): output %d has no shape", c->op, c->what, k);
	if (!got->known)
		return false;
	bool same = got->rank == want->rank && got->dtype == want->dtype &&
	            got->elem == sc_onnx_dtype_size(want->dtype);
	for (int i = 0; same && i < want->rank; i++)
		same = got->dim[i] == want->dim[i];
	char g[160] = "", w[160] = "";
	for (int i = 0; i < got->rank; i++)
		snprintf(g + strlen(g), sizeof g - strlen(g), " %lld", (long long)got->dim[i]);
	for (int i = 0; i < want->rank; i++)
		snprintf(w + strlen(w), sizeof w - strlen(w), " %lld", (long long)want->dim[i]);
	cr_expect(same, "%s (%s): output %d is [%s ] of type %d, expected [%s ] of type %d", c->op,
	          c->what, k, g, got->dtype, w, want->dtype);
	if (!same || !want->valued)
		return same;
	int n = (int)sc_onnx_dims_numel(want->rank, want->dim);
	cr_expect_eq(got->nvalues, n, "%s (%s): output %d has %d values, expected %d", c->op,
	             c->what, k, got->nvalues, n);
	if (got->nvalues != n)
		return false;
	for (int i = 0; i < n; i++) {
		bool close = fabs(got->value[i] - want->v[i]) <= 1e-12 * fmax(1, fabs(want->v[i]));
		cr_expect(close, "%s (%s): value %d is %.17g, expected %.17g", c->op, c->what, i,
		          got->value[i], want->v[i]);
		if (!close)
			return false;
	}
	return true;
}

/* runs case c; false (with messages) when it does not give what it must */
static bool run_case(const op_case *c)
{
	Onnx__NodeProto n;
	Onnx__AttributeProto a[MAXATTR], *pa[MAXATTR];
	build_node(c, &n, a, pa);
	sc_onnx_tensor in[MAXIN], out[MAXOUT];
	const sc_onnx_tensor *pin[MAXIN];
	sc_onnx_tensor *pout[MAXOUT];
	int nin = 0, nout = 0;
	for (int i = 0; i < MAXIN; i++) {
		pin[i] = NULL;
		if (c->in[i].dtype) {
			in[i] = tensor_of(&c->in[i]);
			pin[i] = &in[i];
			nin = i + 1;
		}
	}
	while (nout < MAXOUT && c->out[nout].dtype)
		nout++;
	if (nout == 0)
		nout = 1; /* a refused node still has its output */
	for (int i = 0; i < nout; i++) {
		memset(&out[i], 0, sizeof out[i]);
		out[i].nvalues = -1;
		pout[i] = &out[i];
	}
	double flops = -1;
	bool ok = sc_onnx_infer(&n, pin, nin, pout, nout, &flops);
	if (c->flops == REFUSED) {
		cr_expect(!ok, "%s (%s): inferred, where the node is invalid or unknowable", c->op,
		          c->what);
		return !ok;
	}
	cr_expect(ok, "%s (%s): not inferred", c->op, c->what);
	if (!ok)
		return false;
	bool good = true;
	for (int k = 0; k < nout; k++)
		good &= output_matches(c, k, &out[k]);
	bool fl = fabs(flops - c->flops) <= 1e-12 * fmax(1, c->flops);
	cr_expect(fl, "%s (%s): %.17g FLOPs, expected %.17g", c->op, c->what, flops, c->flops);
	return good && fl;
}

Test(onnx_ops, every_row_gives_its_hand_checked_shapes_types_and_flops)
{
	int failed = 0;
	for (int i = 0; i < NCASES; i++)
		failed += !run_case(&cases[i]);
	cr_assert_eq(failed, 0, "%d of %d rows failed", failed, NCASES);
}

/* ---- every type has an expectation ----------------------------------------------------- */

static bool in_table(const char *op, const char *const *ops, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(ops[i], op))
			return true;
	return false;
}

/* whether test suite/name of file builds a node of type op: the test
 * exists, and the quoted type appears in its body (up to the next test) or
 * is the file's only node type (an `op_type = "Einsum"` of its builder) */
static bool test_builds(const char *file, const char *test, const char *op)
{
	char *src = ts_slurp(file, NULL);
	cr_assert(src, "cannot read %s", file);
	char head[200], quoted[64], only[80];
	const char *slash = strchr(test, '/');
	cr_assert(slash, "'%s' is not suite/name", test);
	snprintf(head, sizeof head, "Test(%.*s, %s)", (int)(slash - test), test, slash + 1);
	snprintf(quoted, sizeof quoted, "\"%s\"", op);
	snprintf(only, sizeof only, "op_type = \"%s\"", op);
	bool found = false;
	char *body = strstr(src, head);
	if (body) {
		char *end = strstr(body + 1, "\nTest(");
		if (end)
			*end = '\0';
		found = strstr(body, quoted) || strstr(src, only);
	}
	cr_expect(body, "%s has no %s", file, head);
	free(src);
	return found;
}

Test(onnx_ops, every_type_in_the_table_has_a_row_or_a_test_elsewhere)
{
	int n;
	const char *const *ops = sc_onnx_supported_ops(&n);
	cr_assert_gt(n, 0);
	for (int i = 0; i < n; i++) {
		int rows = 0, other = 0;
		for (int c = 0; c < NCASES; c++)
			rows += !strcmp(cases[c].op, ops[i]);
		for (int e = 0; e < NELSEWHERE; e++)
			other += !strcmp(elsewhere[e].op, ops[i]);
		cr_expect(rows + other > 0,
		          "%s is in the table but has no row here and no test in `elsewhere`",
		          ops[i]);
		cr_expect(!(rows && other),
		          "%s has rows here and a test in `elsewhere`: one of them", ops[i]);
		cr_expect(other <= 1, "%s is in `elsewhere` %d times", ops[i], other);
	}
	for (int c = 0; c < NCASES; c++)
		cr_expect(in_table(cases[c].op, ops, n), "the row '%s' (%s) is not in the table",
		          cases[c].op, cases[c].what);
	for (int e = 0; e < NELSEWHERE; e++) {
		cr_expect(in_table(elsewhere[e].op, ops, n),
		          "'%s' of `elsewhere` is not in the table", elsewhere[e].op);
		cr_expect(test_builds(elsewhere[e].file, elsewhere[e].test, elsewhere[e].op),
		          "%s of %s does not build a %s node", elsewhere[e].test, elsewhere[e].file,
		          elsewhere[e].op);
	}
}
