/*
 * onnx_tensor.h - what the ONNX loader knows of one tensor (its shape,
 * element type and small values), and the helpers every op's inference
 * uses: element sizes, element and byte counts, attribute lookup.  Pure
 * functions, thread-safe.
 */
#ifndef SC_ONNX_TENSOR_H
#define SC_ONNX_TENSOR_H

#include <stdbool.h>
#include <stdint.h>

#include "onnx/onnx.pb-c.h"

#define SC_ONNX_MAX_RANK 8
#define SC_ONNX_MAX_VALUES 64

typedef struct sc_onnx_tensor {
	bool known; /* rank and dims are set */
	int rank;
	int64_t dim[SC_ONNX_MAX_RANK];
	int dtype;                        /* TensorProto.DataType; 0 when unknown */
	int elem;                         /* bytes per element; 0 when unknown */
	int nvalues;                      /* -1: values unknown; else the values in value[] */
	double value[SC_ONNX_MAX_VALUES]; /* row-major, one per element */
} sc_onnx_tensor;

/* Bytes per element of ONNX data type t (TensorProto.DataType), 0 when it
 * has no fixed size (STRING, UNDEFINED) or is unknown. */
int sc_onnx_dtype_size(int t);

/* Elements of dims dim[0..rank) (1 for a scalar), or -1 when a dim is
 * negative or the product passes 2^62. */
int64_t sc_onnx_dims_numel(int rank, const int64_t *dim);

/* Elements of t (product of dims; 1 for a scalar), or -1 when unknown or
 * larger than 2^62. */
int64_t sc_onnx_numel(const sc_onnx_tensor *t);

/* Bytes of t, or -1 when unknown. */
double sc_onnx_bytes(const sc_onnx_tensor *t);

/* The attribute of node called name, or NULL. */
const Onnx__AttributeProto *sc_onnx_attr(const Onnx__NodeProto *node, const char *name);

#endif
