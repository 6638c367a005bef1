/*
 * calibrate.h - fitting a device profile (device.h) to measured op times.
 *
 * The fit: each op of kind K measured at t microseconds and modelled at
 * m(d) by sc_device_op_time contributes w * |log(m(d) / t)| with
 * w = t^power (power 0.5 by default: a long op counts more than a short
 * one, but a few long outliers of a measurement cannot pull the fit), and
 * the fit minimises the weighted mean of that error over every op by
 * coordinate descent from the base device's own numbers: one number at a
 * time is multiplied by each of a fixed set of factors (0.25 .. 4; 0 is
 * also tried for an overhead, a GEMM half and the cache), and a change is
 * kept when it lowers the error, until a round over every number changes
 * none (or 500 rounds).  |log| rather than its square makes the fit robust
 * (the median of the ratios, not their mean, is pulled to 1); `l2` squares
 * it instead.  The numbers fitted, by kind: overhead and mem_eff of every
 * kind but view (view: overhead only), compute_eff of conv, dwconv, matmul,
 * elementwise and norm, and half_m/n/k of conv, dwconv and matmul; and
 * shared by all kinds, strided_eff (when a strided convolution was
 * measured) and the cache (size and bandwidth).  The error is a sum over
 * kinds, and a kind's numbers change only its own ops' times, so each
 * kind's numbers are fitted to its own ops: a kind with no measured op
 * keeps the base device's numbers.  Pure functions, thread-safe.
 */
#ifndef SC_CALIBRATE_H
#define SC_CALIBRATE_H

#include <stdbool.h>

#include "device.h"
#include "error.h"

/* One measured op: what its modelled time depends on, the precision it ran
 * at and its measured time. */
typedef struct sc_calib_sample {
	sc_op_size size;
	sc_precision prec;
	double measured; /* microseconds, finite and > 0 */
} sc_calib_sample;

typedef struct sc_calib_params {
	double power; /* each op's error weighs its measured time to this power */
	bool l2;      /* squared log errors instead of absolute ones */
	int rounds;   /* at most this many rounds of coordinate descent */
} sc_calib_params;

/* power 0.5, absolute errors, 500 rounds. */
void sc_calib_params_init(sc_calib_params *p);

/* How well a device predicts one kind's ops: the ratios predicted /
 * measured, their median and the worst (the one farthest from 1 by its
 * log). */
typedef struct sc_calib_stats {
	double median, worst; /* NAN with no ops */
} sc_calib_stats;

typedef struct sc_calib_result {
	int ops;                /* samples fitted */
	int rounds;             /* rounds of coordinate descent run */
	double loss_before;     /* the weighted mean error under the base device */
	double loss_after;      /* and under the fit (never above loss_before) */
	int kind_ops[SC_OPK_N]; /* samples of each kind (0: the base's numbers kept) */
	sc_calib_stats before[SC_OPK_N], after[SC_OPK_N];
	sc_calib_stats all_before, all_after; /* over every sample */
} sc_calib_result;

/* Fits d (the base device, changed in place) to the n samples s with
 * params p (NULL: sc_calib_params_init's) and fills res.  Every sample's
 * precision must have a peak on d.  Returns SC_OK; SC_ERR_INPUT when a
 * sample's time is not finite and > 0, its kind or precision is out of
 * range or d has no peak for its precision (d unchanged); SC_ERR_NOMEM. */
sc_status sc_calibrate_fit(sc_device *d, const sc_calib_sample *s, int n, const sc_calib_params *p,
                           sc_calib_result *res, sc_error *err);

/* The ratios predicted / measured of the samples of kind k under d (k < 0:
 * every sample) into *out.  Returns SC_OK or SC_ERR_NOMEM. */
sc_status sc_calibrate_stats(const sc_device *d, const sc_calib_sample *s, int n, int k,
                             sc_calib_stats *out, sc_error *err);

#endif
