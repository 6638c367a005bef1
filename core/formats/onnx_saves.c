/*
 * onnx_saves.c - the tensors each ONNX op's gradient needs.  See
 * onnx_saves.h.
 *
 * The rules, from PyTorch's derivative formulas:
 *   - Conv, ConvTranspose: the input (the weight is a parameter);
 *   - MatMul, Gemm, Einsum: both operands (one is often a weight: then the
 *     other alone);
 *   - Mul, Div: both operands when both vary (x * w with w a constant
 *     saves nothing: the gradient of x needs w alone, a constant);
 *   - Relu, Sigmoid, Tanh, Exp, Sqrt, Reciprocal, Softmax, LogSoftmax,
 *     Elu, Selu: their output (the gradient is a function of it);
 *   - LeakyRelu, PRelu, Gelu, HardSigmoid, HardSwish, Softplus, Mish, Erf,
 *     Log, Pow, Sin, Cos, Abs, Clip: their input;
 *   - BatchNormalization, InstanceNormalization, GroupNormalization: the
 *     input (the per-channel statistics are small);
 *   - LayerNormalization: the input and two fp32 statistics per row;
 *   - MaxPool: the input and an int64 index per output element;
 *     AveragePool, GlobalMaxPool, ReduceMax, ReduceMin: the input;
 *     GlobalAveragePool nothing (a mean's gradient needs its sizes alone,
 *     as PyTorch 2 keeps; 1.13 kept the input);
 *   - the Erf and the Mul of an exported GELU (load_onnx.c): its input
 *     alone, as PyTorch's gelu;
 *   - Gather: the indices when they vary (an embedding's token ids);
 *   - Where: the condition; Dropout: a byte of mask per element;
 *   - LSTM, GRU, RNN: the input and the output sequence (a lower estimate
 *     of what the cells keep);
 *   - everything else (Add, Sub, Neg, Concat, Split, Slice, Transpose,
 *     Reshape, Flatten, Squeeze, Unsqueeze, Identity, Expand, Cast, Pad,
 *     ReduceMean, ReduceSum, ...): nothing, the gradient needs shapes only.
 */
#include "onnx_saves.h"

#include <stddef.h>
#include <string.h>

static bool one_of(const char *t, const char *const *names)
{
	for (; *names; names++)
		if (strcmp(t, *names) == 0)
			return true;
	return false;
}

sc_onnx_saves sc_onnx_saves_of(const char *op_type, int nin, const bool *varying, bool folded_norm)
{
	static const char *const out_ops[] = {"Relu", "Sigmoid", "Tanh",       "Exp",
	                                      "Sqrt", "Softmax", "LogSoftmax", "Reciprocal",
	                                      "Elu",  "Selu",    NULL};
	static const char *const in_ops[] = {"LeakyRelu",
	                                     "PRelu",
	                                     "Gelu",
	                                     "HardSigmoid",
	                                     "HardSwish",
	                                     "Softplus",
	                                     "Mish",
	                                     "Erf",
	                                     "Log",
	                                     "Pow",
	                                     "Sin",
	                                     "Cos",
	                                     "Abs",
	                                     "Clip",
	                                     "BatchNormalization",
	                                     "AveragePool",
	                                     "GlobalMaxPool",
	                                     "ReduceMax",
	                                     "ReduceMin",
	                                     "InstanceNormalization",
	                                     "GroupNormalization",
	                                     "Conv",
	                                     "ConvTranspose",
	                                     NULL};
	static const char *const operand_ops[] = {"MatMul", "Gemm", "Einsum", NULL};
	sc_onnx_saves s = {0};
	const char *t = op_type ? op_type : "";
	unsigned vary = 0;
	for (int j = 0; j < nin && j < 32; j++)
		if (varying[j])
			vary |= 1u << j;
	if (one_of(t, out_ops)) {
		s.output = true;
	} else if (one_of(t, in_ops)) {
		s.inputs = vary & 1u;
		s.output = folded_norm && strcmp(t, "Conv") == 0;
	} else if (one_of(t, operand_ops)) {
		s.inputs = strcmp(t, "Gemm") == 0 ? vary & 3u : vary;
	} else if (strcmp(t, "Mul") == 0 || strcmp(t, "Div") == 0) {
		s.inputs = (vary & 3u) == 3u ? 3u : strcmp(t, "Div") == 0 ? vary & 2u : 0;
	} else if (strcmp(t, "LayerNormalization") == 0) {
		s.inputs = vary & 1u;
		s.extra = SC_SAVE_STATS;
	} else if (strcmp(t, "MaxPool") == 0) {
		s.inputs = vary & 1u;
		s.extra = SC_SAVE_INDICES;
	} else if (strcmp(t, "Gather") == 0) {
		s.inputs = vary & 2u;
	} else if (strcmp(t, "Where") == 0) {
		s.inputs = vary & 1u;
	} else if (strcmp(t, "Dropout") == 0) {
		s.extra = SC_SAVE_MASK;
	} else if (one_of(t, (const char *const[]){"LSTM", "GRU", "RNN", NULL})) {
		s.inputs = vary & 1u;
		s.output = true;
	}
	return s;
}
