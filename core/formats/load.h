/*
 * load.h - reading graphs from files.
 *
 * Each format is an sc_loader: a probe that says from the file name and its
 * first bytes how surely the format applies, and a load function.  sc_load
 * reads the file once, into memory, and gives it to the loader that is
 * surest: by content where the first bytes tell (an ONNX model's first
 * protobuf field, '{' for msr-fiddle JSON, a DOT keyword), the extension
 * (.onnx, .json, .dot/.gv) as a hint where they do not, and DOT when
 * nothing does.  Reading once lets a pipe (/dev/stdin) load as a regular
 * file does.  Every failure is one line naming the file, and the line, op
 * and attribute where known.
 */
#ifndef SC_LOAD_H
#define SC_LOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "core/graph.h"
#include "core/parse.h"

typedef struct sc_load_opts sc_load_opts;

/* How surely a probe says a file is in its format. */
enum { SC_PROBE_NO = 0, SC_PROBE_EXTENSION = 1, SC_PROBE_CONTENT = 2 };

typedef struct sc_loader {
	const char *name; /* "dot", "fiddle-json", "onnx" */
	bool text;        /* a text format: binary data is refused before it loads */
	/* SC_PROBE_CONTENT when the first len bytes in head (after any leading
	 * blanks) are this format's, else SC_PROBE_EXTENSION when path's
	 * extension is, else SC_PROBE_NO */
	int (*probe)(const char *path, const char *head, size_t len);
	/* loads the graph in data[0..len) (the whole of path, read once by
	 * sc_load, with a NUL after it; path names it in messages) with opts
	 * (NULL: the defaults), stopping with SC_ERR_LIMIT past opts->deadline
	 * where it can; returns NULL with err set on failure */
	sc_graph *(*load)(const char *path, const char *data, size_t len, const sc_load_opts *opts,
	                  sc_error *err);
} sc_loader;

extern const sc_loader sc_loader_dot;
extern const sc_loader sc_loader_fiddle;
extern const sc_loader sc_loader_onnx;

/* A kind of device a fleet names (fleet.h, DESIGN.md section 1), with
 * what loading gives it beyond the file's own tables: an ONNX model's
 * kinds other than its own device get op times from a device profile
 * (profile, else the kind's name; sc_onnx.h), and measured times
 * (--times KIND=FILE, times.h) replace a kind's times as --times does the
 * graph's own work.  All borrowed. */
typedef struct sc_load_kind {
	const char *name;
	const char *profile; /* ONNX: built-in device or profile file; NULL: name */
	const char *times;   /* measured times of this kind, or NULL */
	const char *from;    /* the devices file that gave the kind, for
	                      * messages; NULL: the command line */
	/* the ops the kind may not run, by op name or op type (names->op_type):
	 * strings one after the other, each ended by a NUL, the list by an
	 * empty one ("Softmax\0attn/qk\0\0"); NULL: none */
	const char *refuse;
} sc_load_kind;

/* What the ONNX loader needs beyond the path (the other loaders take their
 * costs from the file and refuse these: see sc_load_with).  All borrowed. */
struct sc_load_opts {
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
	/* the kinds of device the run names (see sc_load_kind), each loaded
	 * by sc_times_load_kinds; a kind named as the graph's own device
	 * gives its times to the graph's work (as --times) */
	int nkinds;
	const sc_load_kind *kinds;
	/* sc_clock_now() past which reading a DOT file stops (SC_ERR_LIMIT:
	 * -t counts loading, and cgraph's parse is nearly all of it); 0: none */
	double deadline;
};

/* A loader's model of a kind of device (ONNX: its device profile, onnx.h):
 * adds to g the table of op times named k->name and says in model (size
 * bytes) where they come from ("the h100 model"). */
typedef sc_status (*sc_load_model_fn)(void *ctx, sc_graph *g, const sc_load_kind *k, char *model,
                                      size_t size, sc_error *err);

struct sc_times_names;

/* Every loader's last step (DESIGN.md section 1, each kind with its own
 * costs): the measured times of opts->times and of the kind named as g's
 * own device (one of them at most) into g's work (own_model: where the
 * other ops' work came from, as sc_times_describe's model); then each other
 * kind of opts->kinds but "cpu" (whose times are the file's: measured
 * times or a profile for it fail): its modelled times, the file's table
 * of that name, else add_model's (NULL: none), else, when it has measured
 * times, a copy of g's work (NAN where no accelerator may run an op); then
 * its measured times into that table (sc_times_load with the kind, names
 * as there); then the ops each kind refuses.  g->cost_origin and
 * cost_short name each kind's source.  A kind with no times is left for
 * the fleet to refuse (fleet.h).  Returns SC_OK or the first error, naming
 * the file (and the devices file of a kind that came from one). */
sc_status sc_load_kinds(sc_graph *g, const sc_load_opts *opts, const struct sc_times_names *names,
                        const char *own_model, sc_load_model_fn add_model, void *ctx,
                        sc_error *err);

/* sc_load with options: an ONNX model is loaded with opts; any other file
 * fails when opts ask for a device, a precision or dims (they only apply to
 * ONNX models); opts->times applies to every format (by op name for DOT and
 * JSON). */
sc_graph *sc_load_with(const char *path, const sc_load_opts *opts, sc_error *err);

/* Loads the graph in path with the loader that fits.  Returns NULL with err
 * set (SC_ERR_IO for a missing or unreadable file, SC_ERR_INPUT for an empty
 * or malformed one).  Not thread-safe (the DOT parser has global state). */
sc_graph *sc_load(const char *path, sc_error *err);

/* sc_parse_weight and sc_has_extension are in parse.h. */

#endif
