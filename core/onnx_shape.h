/*
 * onnx_shape.h - shapes and FLOPs of ONNX ops, for the ONNX loader.
 *
 * The loader (load_onnx.c) keeps one sc_onnx_tensor per tensor name: its
 * shape when known, its element size, and for small integer tensors
 * (initializers, Constant, Shape) their values, which Reshape, Slice,
 * Unsqueeze and friends need.  sc_onnx_infer fills the output tensors of
 * one node from its inputs and counts its FLOPs (stagecut(1), COST MODEL,
 * lists the formulas).  Pure functions, thread-safe.
 */
#ifndef SC_ONNX_SHAPE_H
#define SC_ONNX_SHAPE_H

#include <stdbool.h>
#include <stdint.h>

#include "onnx/onnx.pb-c.h"

#define SC_ONNX_MAX_RANK 8
#define SC_ONNX_MAX_VALUES 64

typedef struct sc_onnx_tensor {
	bool known; /* rank and dims are set */
	int rank;
	int64_t dim[SC_ONNX_MAX_RANK];
	int dtype;   /* TensorProto.DataType; 0 when unknown */
	int elem;    /* bytes per element; 0 when unknown */
	int nvalues; /* -1: values unknown; else the values in value[] */
	double value[SC_ONNX_MAX_VALUES];
} sc_onnx_tensor;

/* Bytes per element of ONNX data type t (TensorProto.DataType), 0 when it
 * has no fixed size (STRING, UNDEFINED) or is unknown. */
int sc_onnx_dtype_size(int t);

/* Elements of t (product of dims; 1 for a scalar), or -1 when unknown or
 * larger than 2^62. */
int64_t sc_onnx_numel(const sc_onnx_tensor *t);

/* Bytes of t, or -1 when unknown. */
double sc_onnx_bytes(const sc_onnx_tensor *t);

/* The attribute of node called name, or NULL. */
const Onnx__AttributeProto *sc_onnx_attr(const Onnx__NodeProto *node, const char *name);

/* Infers the outputs of node from in[0..nin) (NULL for a missing optional
 * input) into out[0..nout) (already reset: known false, nvalues -1; an
 * output given by value_info keeps known true and is not overwritten), and
 * sets *flops.  Returns false when the op type is not handled or an input
 * shape it needs is unknown or inconsistent: the op's cost is then unknown. */
bool sc_onnx_infer(const Onnx__NodeProto *node, const sc_onnx_tensor *const *in, int nin,
                   sc_onnx_tensor *const *out, int nout, double *flops);

#endif
