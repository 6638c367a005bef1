/*
 * onnx_shape.h - shapes, small constant values and FLOPs of ONNX ops, for
 * the ONNX loader.
 *
 * The loader (load_onnx.c) keeps one sc_onnx_tensor per tensor name: its
 * shape when known, its element size, and for small tensors (initializers,
 * Constant, Shape, and whatever is computed from them) their values, which
 * Reshape, Slice, Pad, Range and friends need.  sc_onnx_infer fills the
 * output tensors of one node from its inputs and counts its FLOPs
 * (stagecut(1), COST MODEL, lists the formulas); sc_onnx_supported_ops
 * lists the op types it knows.  Pure functions, thread-safe.
 */
#ifndef SC_ONNX_SHAPE_H
#define SC_ONNX_SHAPE_H

#include <stdbool.h>

#include "onnx_tensor.h"

/* Infers the outputs of node from in[0..nin) (NULL for a missing optional
 * input) into out[0..nout) (already reset: known false, nvalues -1; an
 * output given by value_info keeps known true and is not overwritten), and
 * sets *flops.  An output of at most SC_ONNX_MAX_VALUES elements gets its
 * values when the inputs it is computed from have theirs.  Returns false
 * when the op type is not handled or an input shape (or a value) it needs
 * is unknown or inconsistent: the op's cost is then unknown.  LSTM, GRU and
 * RNN go to sc_onnx_infer_rnn (onnx_rnn.h), Einsum to sc_onnx_infer_einsum
 * (onnx_einsum.h), whose answers it returns as they are. */
bool sc_onnx_infer(const Onnx__NodeProto *node, const sc_onnx_tensor *const *in, int nin,
                   sc_onnx_tensor *const *out, int nout, double *flops);

/* The op types sc_onnx_infer handles (of the default ai.onnx domain),
 * sorted by strcmp; *n gets their number.  A static table: not to be
 * freed. */
const char *const *sc_onnx_supported_ops(int *n);

#endif
