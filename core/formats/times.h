/*
 * times.h - measured op times (--times FILE) read from a file and put in
 * place of the modelled work of a graph's ops.
 *
 * Two formats, told apart by content (a JSON array or object is a profile,
 * anything else a CSV):
 *
 * - ONNX Runtime profiles: the JSON that SessionOptions.enable_profiling
 *   writes, a list of trace events.  Every "cat": "Node" event whose name
 *   ends in "_kernel_time" is one kernel of one run; its "dur" is in
 *   microseconds.  An entry's time is the median over the runs in the file
 *   of its events (an odd count the middle one, an even count the mean of
 *   the two middle ones).  A profile of a GPU run with ORT's CUDA profiling
 *   has "cat": "Kernel" events (the device kernels a node launched, after
 *   its node event): then a node's time in a run is the sum of its device
 *   kernels' durations, not the host's launch time.  The entry's name is the event name without
 *   "_kernel_time"; args.op_name is kept as its op type.  With graph
 *   optimizations on, the names are those of fused nodes (the name of the
 *   tensor they produce, "/relu/Relu_output_0_nchwc", or of the node they
 *   were made from and the optimizer, "/ln/Mul/LayerNormFusion/") or of
 *   nodes the runtime inserted ("ReorderOutput", "gemm_input_reshape"):
 *   sc_times_apply maps them back.  "cat": "Session" "model_run" events count the runs.
 * - CSV: one "name,microseconds" per line; a first line whose second field
 *   is not a number is a header; names may be quoted ("a,b" with "" for a
 *   quote); blank lines and lines starting with # are skipped.
 *
 * A time must be a finite number >= 0; a name may appear once in a CSV.
 * Every error is one line naming the file (and line for a CSV).  Pure
 * functions of their arguments; an sc_times may be read by several threads.
 */
#ifndef SC_TIMES_H
#define SC_TIMES_H

#include <stdbool.h>

#include "core/error.h"
#include "core/graph.h"

typedef enum sc_times_format {
	SC_TIMES_CSV = 0,
	SC_TIMES_ORT,    /* an ONNX Runtime profile */
	SC_TIMES_MEMORY, /* made with sc_times_new/sc_times_add */
} sc_times_format;

typedef struct sc_times_entry {
	char *name;    /* as the file gives it (ORT: without "_kernel_time") */
	char *op_type; /* ORT's args.op_name, or NULL */
	double us;     /* the median over the runs (ORT), the value (CSV) */
	int line;      /* CSV: the line in the file; ORT: 0 */
} sc_times_entry;

typedef struct sc_times {
	char *path; /* the file, or the label of sc_times_new */
	sc_times_format format;
	/* ORT: the times are the device's, summed over the "cat": "Kernel"
	 * events (CUDA kernels, with ORT's CUDA profiling) that follow each
	 * node's event; false: the nodes' own durations */
	bool device_times;
	int runs; /* ORT: the runs (model_run events, else the most events
	           * of one name); 1 otherwise */
	int n;    /* entries, in the order of their first event (ORT: the
	           * order the kernels ran in) or line (CSV) */
	sc_times_entry *e;
} sc_times;

/* Reads path.  Returns a new sc_times (sc_times_free) or NULL with err set:
 * SC_ERR_IO when it cannot be read, SC_ERR_INPUT for a malformed file,
 * naming the file, the line (CSV) or event (JSON) and what is wrong. */
sc_times *sc_times_read(const char *path, sc_error *err);

/* A new empty table (format SC_TIMES_MEMORY) labelled label, or NULL. */
sc_times *sc_times_new(const char *label);

/* Adds name with us microseconds (finite, >= 0).  Returns SC_OK, or
 * SC_ERR_INPUT for a bad time or a name added before, SC_ERR_NOMEM. */
sc_status sc_times_add(sc_times *t, const char *name, double us, sc_error *err);

/* Writes t as a CSV (a header, then name,microseconds with %.17g; names
 * quoted when they hold a comma, quote, # or space at either end) through a
 * temporary file renamed over path.  Returns SC_OK or SC_ERR_IO. */
sc_status sc_times_write_csv(const sc_times *t, const char *path, sc_error *err);

/* Frees t.  sc_times_free(NULL) does nothing. */
void sc_times_free(sc_times *t);

/* What a loader knows beyond op names, for mapping entries to ops (ONNX:
 * tensors and the ops folded at load time).  Either callback may be NULL. */
typedef struct sc_times_names {
	void *ctx;
	/* The op producing tensor `name`, or -1 when no op does. */
	int (*producer)(void *ctx, const char *name);
	/* When `name` is an op folded away at load time (not in the graph):
	 * true, with *to the op its time goes to (the consumer of its value;
	 * -1 when none: the time is dropped and counted).  Else false. */
	bool (*folded)(void *ctx, const char *name, int *to);
	/* True when a runtime fuses op v into the kernel of the op before it
	 * (an activation or an Add after a Conv: ONNX's elementwise ops). */
	bool (*follows)(void *ctx, int v);
	/* The type of op v (ONNX's op_type, "Conv"), or NULL: what a devices
	 * file's "refuse" may name besides op names (load.h). */
	const char *(*op_type)(void *ctx, int v);
} sc_times_names;

/* What sc_times_apply did, for `info` and the reports. */
typedef struct sc_times_report {
	bool filled;
	int entries;          /* in the file */
	int by_name;          /* entries naming an op */
	int by_tensor;        /* entries naming a tensor (a fused kernel) */
	int by_fused;         /* entries named after the op a fused kernel was made
	                       * from ("<op>/LayerNormFusion/") */
	int to_folded;        /* entries naming a folded op: time to its consumer */
	int attached;         /* entries naming nothing: attached to a neighbour */
	char unmapped[160];   /* the first of them by name (without ORT's "_token_<n>",
	                       * " x<count>" when more than one), ", " between,
	                       * "..." when cut */
	int ops_measured;     /* ops whose work is now measured (whole or a share) */
	int ops_fused;        /* of them, ops given a share of a fused kernel */
	int kernels_fused;    /* the fused kernels those ops share */
	int ops_modelled;     /* ops the file does not cover (they keep their work) */
	char modelled[160];   /* the first of them, as unmapped */
	double work_measured; /* the measured part of the graph's work */
	double work_total;    /* the graph's total work after */
	double time_in_file;  /* sum of the entries' times */
	double time_dropped;  /* of it, given to no op (a folded op with no consumer) */
} sc_times_report;

/* Puts t's times in g's work: an entry naming an op (or, through names, a
 * tensor an op produces, or a folded op) replaces that op's work.  With
 * names, an entry of a profile (not of a CSV) may also name a fused kernel
 * after the node it was made from, as ONNX Runtime's optimizers do
 * ("<op>/LayerNormFusion/", "<op>/MatMulAddFusion", "_token_<n>" added to a
 * name taken): it maps to the op named by the longest part before a '/'.
 * Entries of a profile that name nothing known (nodes the runtime made:
 * ReorderInput/Output, gemm_input/output_reshape, Gelu) are attached to
 * the kernel they serve: the entry that ran just after them when their name
 * says they convert an input ("Input", "input"), else the one just before
 * (the other way when there is none); but when more than half of a
 * profile's entries name nothing, the profile is of another model: an
 * error.  The ops no entry names are then put with the kernels next to
 * them (always for an ORT profile, which holds every op that ran; for a
 * table made in memory only when some entry is a fused kernel or attached):
 * an op that names->follows and whose producers all belong to kernels joins
 * the kernel of its producer that ran last, as an Add and Relu join the
 * Conv they follow; else an op whose consumers all belong to one kernel
 * joins it, as a Conv joins the Relu named after its output and a
 * LayerNorm's ReduceMean..Div join the kernel named after its Mul; else it
 * joins the kernel of its producer that ran last.  A kernel's time is
 * shared among its ops in proportion to their modelled work (equally when
 * that is 0).  An entry of a CSV (or of a table without names) naming no op
 * is an error.  No time is lost: the work of the covered ops sums to the
 * file's times (less time_dropped).  rep lists the first entries that named
 * nothing and the first ops left modelled.
 * Sets g->work_source (allocating it when NULL) and fills rep.  Returns
 * SC_OK, or SC_ERR_INPUT naming t->path and the entry. */
sc_status sc_times_apply(sc_graph *g, const sc_times *t, const sc_times_names *names,
                         sc_times_report *rep, sc_error *err);

/* sc_times_apply into the op times of g's device kind named kind (a table
 * of g, fleet.h: DESIGN.md section 1, each kind with its own costs) rather
 * than g's work, by the same rules; the shares of a fused kernel go by the
 * kind's times, an op the kind may not run (NAN) weighing 0 and running
 * there once an entry gives it a time.  g->work_source is left alone; rep
 * counts for the kind.  Fails as sc_times_apply, or when g has no table
 * named kind. */
sc_status sc_times_apply_kind(sc_graph *g, const char *kind, const sc_times *t,
                              const sc_times_names *names, sc_times_report *rep, sc_error *err);

/* Reads path (sc_times_read), applies it to g (sc_times_apply, with names;
 * into the kind named kind with sc_times_apply_kind when kind is not NULL)
 * and describes the result (sc_times_describe, with model; for a kind
 * sc_times_describe_kind): the three steps every loader takes for --times
 * and --times KIND=FILE.  rep may be NULL.  Returns SC_OK or the first
 * step's error; g is changed only when the file applies. */
sc_status sc_times_load(sc_graph *g, const char *kind, const char *path,
                        const sc_times_names *names, const char *model, sc_times_report *rep,
                        sc_error *err);

/* Sets g->cost_origin and g->cost_short from rep and t (and model, a few
 * words on where the other ops' work came from, e.g. "h100 fp16 model";
 * NULL: the file's numbers).  Returns SC_OK or SC_ERR_NOMEM. */
sc_status sc_times_describe(sc_graph *g, const sc_times *t, const sc_times_report *rep,
                            const char *model, sc_error *err);

/* Appends where the op times of the kind named kind came from to g's
 * cost_origin ("...; h100 stages: WHAT", "the file's numbers" before it
 * when g has none) and cost_short ("..., h100 BRIEF").  Returns SC_OK or
 * SC_ERR_NOMEM. */
sc_status sc_times_describe_kind(sc_graph *g, const char *kind, const char *what, const char *brief,
                                 sc_error *err);

#endif
