/*
 * device.h - the accelerator an ONNX model's costs are computed for, and the
 * one cost model every modelled op time comes from (ONNX import, `gen`).
 *
 * A device is a datasheet (the peak arithmetic rate of each precision it
 * has, memory bandwidth, memory, the link between devices) and a few numbers
 * calibrated on measured op times: a launch overhead per op and, by op kind,
 * the fraction of the peak and of the memory bandwidth an op reaches.  An op
 * of kind K with F FLOPs that reads and writes Y bytes takes, in
 * microseconds (stagecut(1), COST MODEL):
 *
 *     overhead[K] + max(F / (peak[precision] * compute_eff[K] * s(M) s(N) s(K) * t),
 *                       Y / (bandwidth * mem_eff[K])) * 1e6
 *
 * (t = strided_eff for a convolution of stride > 1, else 1; bandwidth =
 * cache_bandwidth when Y <= cache, else mem_bandwidth: the tensors of an
 * op small enough stay in the GPU's L2 cache between ops)
 * where, for a convolution or matmul seen as a GEMM of M rows (outputs per
 * output channel), N columns (output channels per group) and depth K
 * (multiply-accumulates per output), s(X) = X / (X + half_X[K]): small
 * GEMMs reach a smaller fraction of the peak (few rows: too few thread
 * blocks; few columns or a short depth: tiles the tensor cores cannot
 * fill).  A pure roofline is overhead 0, efficiencies 1 and halves 0.  The precision sets the
 * peak and the size of every floating-point element (activations and
 * weights).  A few profiles are built in; a profile file holds "key = value
 * unit" lines (stagecut(1), DEVICE PROFILES).  Pure functions, thread-safe.
 */
#ifndef SC_DEVICE_H
#define SC_DEVICE_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

/* The precisions, in the order of --precision's list. */
typedef enum sc_precision {
	SC_PREC_FP32 = 0, /* IEEE single, no tensor cores */
	SC_PREC_TF32,     /* fp32 tensors, tensor-core matmuls in TF32 */
	SC_PREC_FP16,
	SC_PREC_BF16,
	SC_PREC_FP8,
	SC_PREC_INT8,
	SC_PREC_N,
} sc_precision;

/* "fp32", "tf32", ...; sc_precision_parse takes them (any case). */
const char *sc_precision_name(sc_precision p);
bool sc_precision_parse(const char *text, sc_precision *out);

/* Bytes of one floating-point element at precision p (4, 4, 2, 2, 1, 1). */
int sc_precision_bytes(sc_precision p);

/* What kind of op a modelled time is for: each has its own efficiencies. */
typedef enum sc_op_kind {
	SC_OPK_CONV = 0,    /* dense convolutions (group 1), transposed ones */
	SC_OPK_DWCONV,      /* grouped and depthwise convolutions */
	SC_OPK_MATMUL,      /* MatMul, Gemm */
	SC_OPK_ELEMENTWISE, /* everything else that reads and writes memory */
	SC_OPK_POOL,        /* windows and reductions: MaxPool, AveragePool, GlobalAveragePool,
	                     * ReduceMean and the other Reduce ops, Softmax */
	SC_OPK_COPY,        /* layout: Transpose, Slice, Pad, Gather, Split, Expand, Tile,
	                     * Resize (strided copies) */
	SC_OPK_VIEW,        /* Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout:
	                     * no data moves (a runtime makes them views) */
	SC_OPK_NORM,        /* BatchNormalization, LayerNormalization, InstanceNormalization,
	                     * GroupNormalization, RMSNormalization, LpNormalization,
	                     * MeanVarianceNormalization (a standalone normalization runs
	                     * its own kernels, unlike an elementwise op) */
	SC_OPK_CONCAT,      /* Concat: a copy of each input into one buffer */
	SC_OPK_N,
} sc_op_kind;

/* "conv", "dwconv", "matmul", "elementwise", "pool", "copy", "view", "norm",
 * "concat" (the profile keys' suffixes). */
const char *sc_op_kind_name(sc_op_kind k);

typedef struct sc_device {
	char name[64];
	char description[200];  /* where the datasheet numbers come from */
	char calibration[200];  /* where the efficiencies come from */
	double peak[SC_PREC_N]; /* FLOP/s per precision; 0: the device has none */
	double mem_bandwidth;   /* bytes/s */
	double memory;          /* bytes */
	double link_bandwidth;  /* bytes/s */
	sc_precision default_precision;
	char precision_why[120];      /* why that default */
	double overhead_us[SC_OPK_N]; /* per op of that kind, microseconds */
	double compute_eff[SC_OPK_N]; /* fraction of the peak, (0, 1] */
	double mem_eff[SC_OPK_N];     /* fraction of the memory bandwidth, (0, 1] */
	double half_m[SC_OPK_N], half_n[SC_OPK_N], half_k[SC_OPK_N]; /* >= 0 */
	/* what a strided convolution reaches of its kind's compute efficiency,
	 * (0, 1] (cuDNN runs them through slower kernels) */
	double strided_eff;
	/* an op whose bytes (read and written) fit in this much of the cache
	 * moves them at cache_bandwidth instead of mem_bandwidth (0: no cache):
	 * the tensors it reads were written just before, and stay there */
	double cache, cache_bandwidth; /* bytes, bytes/s */
} sc_device;

/* What an op's modelled time depends on: its kind, FLOPs, bytes read and
 * written, and for a convolution or matmul its GEMM sizes (0: unknown, no
 * size factor). */
typedef struct sc_op_size {
	sc_op_kind kind;
	double flops, bytes;
	double m, n, k;
	bool strided; /* a convolution with a stride > 1 */
} sc_op_size;

/* The profile used when none is named. */
#define SC_DEVICE_DEFAULT "a100"

/* Fills d with the built-in profile called name, or reads the profile file at
 * name when no built-in has that name (NULL: the default).  Returns SC_OK, or
 * SC_ERR_INPUT/SC_ERR_IO with one line naming the file, line and key. */
sc_status sc_device_get(const char *name, sc_device *d, sc_error *err);

/* True when name is a built-in profile's (any case): sc_device_get reads a
 * file for any other name. */
bool sc_device_builtin(const char *name);

/* The precision to use on d: `asked` when not NULL (it must parse and d must
 * have a peak for it, else SC_ERR_INPUT naming it), else d's default. */
sc_status sc_device_precision(const sc_device *d, const char *asked, sc_precision *out,
                              sc_error *err);

/* The modelled time of one op, in microseconds (the formula above); sizes
 * >= 0.  d must have a peak for p (sc_device_precision checks). */
double sc_device_op_time(const sc_device *d, sc_precision p, const sc_op_size *s);

/* d as a profile file that sc_device_get reads back to the same numbers
 * (every peak, the bandwidths, memory, every kind's overhead, efficiencies
 * and halves, strided_eff, the cache; %.17g), with `precision = p` and
 * d's calibration; the text is malloc'd into *text (the caller frees it),
 * *len its length.  Returns SC_OK or SC_ERR_NOMEM. */
sc_status sc_device_format(const sc_device *d, sc_precision p, char **text, size_t *len,
                           sc_error *err);

#endif
