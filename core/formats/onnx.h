/*
 * onnx.h - what loading an ONNX model tells besides the graph: op counts by
 * type, total FLOPs and parameter bytes, the device, the symbolic dims used
 * and the ops whose cost is unknown.  Filled by the ONNX loader when the
 * caller of sc_load_with passes one (load.h); `stagecut info` prints it.
 */
#ifndef SC_ONNX_H
#define SC_ONNX_H

#include <stdbool.h>

#include "core/device.h"

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
	sc_precision precision;  /* the element size and peak used */
	char precision_why[200]; /* "--precision", or why this default */
	/* ops folded at load time (Constant, Identity of a constant, shape
	 * arithmetic over static shapes): not ops of the graph; graph order */
	int nfolded;
	char **folded;
	/* per op of the graph (nops of them): what its modelled work comes
	 * from, for calibration (perf/perf_cost.c); flops -1 when its cost is
	 * unknown */
	int nops;
	sc_op_size *op_size;
	int ndims;
	char **dim_name; /* the symbolic dims the model uses, sorted */
	long long *dim_value;
	bool *dim_given; /* set by --dim (else the default 1, or derived) */
	/* per dim: NULL for an input's dim (--dim or the default 1); else the
	 * op whose output's value_info names it, inference having derived its
	 * value from the inputs' dims */
	char **dim_from;
	/* symbolic dims of value_info nobody set and inference could not
	 * derive, each with the op whose output's shape stayed unknown */
	int nunresolved;
	char **unresolved_dim, **unresolved_op;
	/* the Loop nodes whose trip count is not a constant: their body is
	 * costed once */
	int nonce;
	char **once;
} sc_onnx_report;

/* The graph's ops of kind k (from op_size). */
int sc_onnx_report_kind_count(const sc_onnx_report *r, sc_op_kind k);

/* Frees what r owns and clears it.  Safe on a zeroed report. */
void sc_onnx_report_fini(sc_onnx_report *r);

#endif
