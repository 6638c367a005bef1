/*
 * load.h - reading graphs from files.
 *
 * Each format is an sc_loader: a probe that says from the file name and its
 * first bytes whether the format applies, and a load function.  sc_load picks
 * one: by extension (.dot/.gv, .json) when it has a known one, else by
 * content.  The file is read once, into memory, and parsed from there, so
 * that a pipe (/dev/stdin) loads as a regular file does.  Every failure is
 * one line naming the file, and the line, op and attribute where known.
 */
#ifndef SC_LOAD_H
#define SC_LOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "graph.h"
#include "parse.h"

typedef struct sc_loader {
	const char *name; /* "dot", "fiddle-json" */
	/* true when this loader reads the file: by extension of path or by its
	 * first len bytes in head */
	bool (*probe)(const char *path, const char *head, size_t len);
	/* loads the graph in data[0..len) (the whole of path, read once by
	 * sc_load, with a NUL after it; path names it in messages), stopping
	 * with SC_ERR_LIMIT past deadline (sc_clock_now(); 0: none) where it
	 * can; returns NULL with err set on failure */
	sc_graph *(*load)(const char *path, const char *data, size_t len, double deadline,
	                  sc_error *err);
} sc_loader;

extern const sc_loader sc_loader_dot;
extern const sc_loader sc_loader_fiddle;
extern const sc_loader sc_loader_onnx;

/* What the ONNX loader needs beyond the path (the other loaders take their
 * costs from the file and refuse these: see sc_load_with).  All borrowed. */
typedef struct sc_load_opts {
	const char *device;    /* built-in name or profile file; NULL: SC_DEVICE_DEFAULT */
	const char *precision; /* fp32, tf32, fp16, bf16, fp8, int8; NULL: see onnx.h */
	int ndims;             /* --dim NAME=VALUE pairs */
	const char *const *dim_name;
	const long long *dim_value;
	struct sc_onnx_report *report; /* NULL, or filled (onnx.h); caller finis it */
	/* --times: measured op times put in place of the work (times.h), for
	 * every format; the report, when not NULL, is filled */
	const char *times;
	struct sc_times_report *times_report;
	/* sc_clock_now() past which reading a DOT file stops (SC_ERR_LIMIT:
	 * -t counts loading, and cgraph's parse is nearly all of it); 0: none */
	double deadline;
} sc_load_opts;

/* Loads an ONNX model with opts (NULL: the defaults).  Returns NULL with err
 * set on failure. */
sc_graph *sc_load_onnx(const char *path, const sc_load_opts *opts, sc_error *err);

/* sc_load with options: a .onnx file goes to the ONNX loader with opts; any
 * other file is loaded as sc_load does, and fails when opts ask for a device,
 * a precision or dims (they only apply to ONNX models); opts->times applies
 * to both (by op name for DOT and JSON). */
sc_graph *sc_load_with(const char *path, const sc_load_opts *opts, sc_error *err);

/* Loads the graph in path with the loader that fits.  Returns NULL with err
 * set (SC_ERR_IO for a missing or unreadable file, SC_ERR_INPUT for an empty
 * or malformed one).  Not thread-safe (the DOT parser has global state). */
sc_graph *sc_load(const char *path, sc_error *err);

/* sc_parse_weight and sc_has_extension are in parse.h. */

#endif
