/*
 * onnx_rnn.h - shapes and FLOPs of ONNX's recurrent ops (LSTM, GRU, RNN),
 * for the ONNX loader: sc_onnx_infer (onnx_shape.c) hands them here.
 * Pure functions, thread-safe.
 */
#ifndef SC_ONNX_RNN_H
#define SC_ONNX_RNN_H

#include <stdbool.h>

#include "onnx_tensor.h"

/* As sc_onnx_infer, for an LSTM, GRU or RNN node: fills the outputs (Y,
 * Y_h and, for LSTM, Y_c; out[0..nout) only, and not one value_info gave)
 * from X, W, R and the attributes, and sets *flops (onnx_rnn.c gives the
 * formulas).  False, *flops 0, when X, W or R is unknown, when the shapes
 * or attributes disagree, or when the node has more inputs or outputs than
 * its op defines. */
bool sc_onnx_infer_rnn(const Onnx__NodeProto *node, const sc_onnx_tensor *const *in, int nin,
                       sc_onnx_tensor *const *out, int nout, double *flops);

#endif
