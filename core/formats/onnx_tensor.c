/*
 * onnx_tensor.c - element sizes, counts and attribute lookup (onnx_tensor.h).
 */
#include "onnx_tensor.h"

#include <string.h>

int sc_onnx_dtype_size(int t)
{
	/* TensorProto.DataType: FLOAT 1, UINT8 2, INT8 3, UINT16 4, INT16 5, INT32 6,
	 * INT64 7, STRING 8, BOOL 9, FLOAT16 10, DOUBLE 11, UINT32 12, UINT64 13,
	 * COMPLEX64 14, COMPLEX128 15, BFLOAT16 16, FLOAT8* 17-20 */
	static const int size[] = {0, 4, 1, 1, 2, 2, 4, 8, 0, 1, 2, 8, 4, 8, 8, 16, 2, 1, 1, 1, 1};
	return t >= 0 && t < (int)(sizeof size / sizeof size[0]) ? size[t] : 0;
}

int64_t sc_onnx_dims_numel(int rank, const int64_t *dim)
{
	int64_t n = 1;
	for (int i = 0; i < rank; i++) {
		if (dim[i] < 0)
			return -1;
		if (dim[i] && n > ((int64_t)1 << 62) / dim[i])
			return -1;
		n *= dim[i];
	}
	return n;
}

int64_t sc_onnx_numel(const sc_onnx_tensor *t)
{
	return t && t->known ? sc_onnx_dims_numel(t->rank, t->dim) : -1;
}

double sc_onnx_bytes(const sc_onnx_tensor *t)
{
	int64_t n = sc_onnx_numel(t);
	return n < 0 || !t->elem ? -1 : (double)n * t->elem;
}

const Onnx__AttributeProto *sc_onnx_attr(const Onnx__NodeProto *node, const char *name)
{
	for (size_t i = 0; i < node->n_attribute; i++)
		if (node->attribute[i]->name && strcmp(node->attribute[i]->name, name) == 0)
			return node->attribute[i];
	return NULL;
}
