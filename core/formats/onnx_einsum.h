/*
 * onnx_einsum.h - shape and FLOPs of ONNX's Einsum, for the ONNX loader:
 * sc_onnx_infer (onnx_shape.c) hands it here.  Pure functions, thread-safe.
 */
#ifndef SC_ONNX_EINSUM_H
#define SC_ONNX_EINSUM_H

#include <stdbool.h>

#include "onnx_tensor.h"

/* As sc_onnx_infer, for an Einsum node: the output's shape from the
 * equation attribute and the inputs' shapes (not overwriting one that
 * value_info gave), and *flops (onnx_einsum.c gives the rule).  False,
 * *flops 0, on a malformed equation, an input of unknown shape, or dims
 * the equation's letters or ellipses cannot agree on. */
bool sc_onnx_infer_einsum(const Onnx__NodeProto *node, const sc_onnx_tensor *const *in, int nin,
                          sc_onnx_tensor *const *out, int nout, double *flops);

#endif
