/*
 * export.h - a partition as the split points a framework takes.
 *
 * Both frameworks cut the model's program order at module boundaries:
 * PyTorch's pipelining splits the traced program before each module named
 * with SplitPoint.BEGINNING in split_spec, DeepSpeed's PipelineModule cuts
 * its list of layers at the indices in its parts.  So a partition exports
 * when, at the depth asked (or the smallest depth that works),
 *  1. every layer at that depth (core/layers.h: the one definition solve
 *     --align keeps too) lies in one stage, and
 *  2. along the program order (sc_graph_program_order: the file's order
 *     when every edge runs forward in it, as in an exporter's output, else
 *     the topological order nearest it) the forward ops' stages never go
 *     back.
 * Then every stage begins where a layer begins; the outermost module that
 * begins there is its split point.  A stage that holds no op is left out
 * (the frameworks take no empty stage): the export has fewer stages than
 * the partition, and says so.  The backward ops of a training graph follow
 * their forward ops and are not looked at.  A partition on devices (CPU
 * stages, a fleet of kinds) names each used stage's kind in a list
 * `devices`, in the order of the stages, for the user to map to theirs.
 *
 * sc_export_plan_init computes the split points (the plan) or says which
 * rule the partition breaks; a writer (sc_export_writer, one per framework,
 * all in one registry) turns a plan into the text the framework reads.
 * Nothing here prints or exits.
 */
#ifndef SC_EXPORT_H
#define SC_EXPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "core/graph.h"
#include "core/layers.h"
#include "core/modules.h"

/* A partition with its split points.  g, m, stage and partition are
 * borrowed from the caller and must outlive the plan; begin and layers are
 * the plan's (sc_export_plan_fini frees them). */
typedef struct sc_export_plan {
	const sc_graph *g;
	const sc_modules *m;   /* g's module tree */
	const int *stage;      /* op -> stage, 0 .. k-1 */
	int k;                 /* stages */
	const char *partition; /* the partition file's name, for messages and headers */
	int depth;             /* the module depth of the split points */
	int *begin;            /* stage -> the module it begins at; -1 for the first stage
	                        * that holds an op and for the empty ones */
	int used;              /* stages that hold an op: the export's stages */
	int first_stage;       /* the first stage that holds an op */
	sc_layers *layers;     /* the layers at depth */
	/* layer -> its module's own convolution reads a weight the exporter
	 * made (graph.h made_weight): a module folded into it, which the
	 * file does not name, runs after it; NULL when no layer's does */
	bool *folded;
	int nfolded; /* layers with folded set */
	/* stage -> the kind of device it runs on (k names, borrowed: the
	 * partition's devices, core/fleet.h), or NULL when it names none */
	const char *const *device;
	const int *order; /* layers->order: the program order, g->n ops */
	bool file_order;  /* order is the file's */
} sc_export_plan;

/* Computes the split points of the partition stage (k stages, every op's
 * stage in 0 .. k-1) of g, whose module tree is m, at module depth align,
 * or at the smallest depth from 1 to m->max_depth that works when align is
 * 0.  partition names the partition file in messages.  Returns SC_OK with
 * plan filled (sc_export_plan_fini it), or, with plan empty (fini does no
 * harm) and err set:
 *  - SC_ERR_INPUT when no op name of g carries a module path ("SOURCE: no
 *    op name carries a module path ..."): there is nothing to name;
 *  - SC_ERR_INVALID when the partition is well formed but breaks a rule
 *    above: "PARTITION: the partition is not aligned with the modules at
 *    depth D: REASON; ..." where REASON names the stage and the op or the
 *    module (without align: the reason at depth 1), and why a module that
 *    runs whole does;
 *  - SC_ERR_NOMEM.
 * Thread-safe for distinct plans. */
sc_status sc_export_plan_init(sc_export_plan *plan, const sc_graph *g, const sc_modules *m,
                              const int *stage, int k, int align, const char *partition,
                              sc_error *err);

/* Frees what plan owns and empties it; a plan that is empty (zeroed, or
 * after a failed init) may be finied. */
void sc_export_plan_fini(sc_export_plan *plan);

/* A framework's format of split points.  A writer is stateless. */
typedef struct sc_export_writer {
	const char *name;        /* "pytorch", "deepspeed": the value of --format */
	const char *description; /* one line, for --help */
	const char *extension;   /* the usual extension of its files, with the dot */
	/* plan (from sc_export_plan_init) as this format's text: SC_OK with
	 * *text malloc'd (NUL after its *len bytes; the caller frees it), or
	 * SC_ERR_NOMEM with *text NULL */
	sc_status (*write)(const sc_export_plan *plan, char **text, size_t *len, sc_error *err);
} sc_export_writer;

extern const sc_export_writer sc_export_pytorch;
extern const sc_export_writer sc_export_deepspeed;

/* The registry: the writers in the order help lists them, *n of them.
 * Static; thread-safe. */
const sc_export_writer *const *sc_export_writers(int *n);

/* The writer named name (exactly, case included), or NULL.  Thread-safe. */
const sc_export_writer *sc_export_writer_find(const char *name);

/* The registry's names, each after prefix, joined as a sentence says
 * them ("a or b", "a, b or c"; prefix "--format " gives "--format a or
 * --format b") into buf (size bytes, NUL-terminated, cut if short);
 * returns buf.  Thread-safe. */
const char *sc_export_writer_names(char *buf, size_t size, const char *prefix);

#endif
