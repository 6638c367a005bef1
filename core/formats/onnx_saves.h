/*
 * onnx_saves.h - which tensors an ONNX op's gradient needs: what a
 * training framework saves from the forward pass for the backward
 * (activations.h, stash).  The rules follow PyTorch's derivative formulas
 * (tools/autograd/derivatives.yaml), op by op.  Pure, thread-safe.
 */
#ifndef SC_ONNX_SAVES_H
#define SC_ONNX_SAVES_H

#include <stdbool.h>

/* Saved besides inputs and outputs, per element of a tensor. */
typedef enum sc_onnx_extra {
	SC_SAVE_NONE = 0,
	SC_SAVE_INDICES, /* an int64 index per output element (MaxPool) */
	SC_SAVE_MASK,    /* a byte per input element (Dropout's mask) */
	SC_SAVE_STATS,   /* two fp32 statistics per normalized row (LayerNormalization) */
} sc_onnx_extra;

typedef struct sc_onnx_saves {
	unsigned inputs; /* bit j: the op's input j (a parameter or constant is not saved) */
	bool output;     /* its first output */
	sc_onnx_extra extra;
} sc_onnx_saves;

/* What an op of type op_type with nin inputs saves; varying[j] says input
 * j is computed from the model's input (not a parameter or a constant).
 * folded_norm: a Conv whose weight the exporter computed by folding a
 * BatchNormalization into it (sc_graph.made_weight): it saves its output
 * too, the input the BatchNormalization saved.  An op type the rules do
 * not know saves nothing. */
sc_onnx_saves sc_onnx_saves_of(const char *op_type, int nin, const bool *varying, bool folded_norm);

#endif
