/*
 * onnx_rnn.c - shapes and FLOPs of LSTM, GRU and RNN (onnx_rnn.h).
 */
#include "onnx_rnn.h"

#include <string.h>

bool sc_onnx_is_rnn(const char *op_type)
{
	return !strcmp(op_type, "LSTM") || !strcmp(op_type, "GRU") || !strcmp(op_type, "RNN");
}

bool sc_onnx_infer_rnn(const Onnx__NodeProto *node, const sc_onnx_tensor *const *in, int nin,
                       sc_onnx_tensor *const *out, int nout, double *flops)
{
	(void)node, (void)in, (void)nin, (void)out, (void)nout;
	*flops = 0;
	return false;
}
