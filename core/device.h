/*
 * device.h - the accelerator an ONNX model's costs are computed for.
 *
 * A device is four numbers from a datasheet: peak arithmetic (FLOP/s), memory
 * bandwidth (bytes/s), memory (bytes) and the link between devices (bytes/s).
 * The roofline cost of an op (core/onnx_shape.c) is max(FLOPs / peak, bytes /
 * memory bandwidth), in microseconds; the link is the graph's bandwidth B in
 * bytes per microsecond.  A few profiles are built in; a profile file holds
 * "key = value unit" lines (stagecut(1), DEVICE PROFILES).  Pure functions,
 * thread-safe.
 */
#ifndef SC_DEVICE_H
#define SC_DEVICE_H

#include <stdbool.h>

#include "error.h"

typedef struct sc_device {
	char name[64];
	char description[160]; /* where the numbers come from */
	double flops;          /* peak FLOP/s */
	double mem_bandwidth;  /* bytes/s */
	double memory;         /* bytes */
	double link_bandwidth; /* bytes/s */
} sc_device;

/* The profile used when none is named. */
#define SC_DEVICE_DEFAULT "a100"

/* The built-in profiles: *n is set to their count. */
const sc_device *sc_device_builtins(int *n);

/* Fills d with the built-in profile called name, or reads the profile file at
 * name when no built-in has that name (NULL: the default).  Returns SC_OK, or
 * SC_ERR_INPUT/SC_ERR_IO with one line naming the file, line and key. */
sc_status sc_device_get(const char *name, sc_device *d, sc_error *err);

#endif
