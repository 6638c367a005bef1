/*
 * onnx.h - what loading an ONNX model tells besides the graph: op counts by
 * type, total FLOPs and parameter bytes, the device, the symbolic dims used
 * and the ops whose cost is unknown.  Filled by the ONNX loader when the
 * caller of sc_load_with passes one (load.h); `stagecut info` prints it.
 */
#ifndef SC_ONNX_H
#define SC_ONNX_H

#include <stdbool.h>

#include "device.h"

/* The newest ai.onnx opset the loader accepts, and the oldest. */
#define SC_ONNX_OPSET_MIN 7
#define SC_ONNX_OPSET_MAX 21

typedef struct sc_onnx_report {
	bool filled; /* the file was an ONNX model */
	int opset;   /* ai.onnx opset version */
	int ntypes;
	char **type_name; /* sorted by name */
	int *type_count;
	double flops;       /* total FLOPs (2 per multiply-accumulate) */
	double param_bytes; /* sum of initializer bytes */
	int nunknown;
	char **unknown; /* names of the ops whose cost is unknown, graph order */
	sc_device device;
	int ndims;
	char **dim_name; /* the symbolic dims the model uses, sorted */
	long long *dim_value;
	bool *dim_given; /* set by --dim (else the default 1) */
} sc_onnx_report;

/* Frees what r owns and clears it.  Safe on a zeroed report. */
void sc_onnx_report_fini(sc_onnx_report *r);

#endif
