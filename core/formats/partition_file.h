/*
 * partition_file.h - partition files (DESIGN.md section 2): reading one for a
 * graph, checking it, and writing one, in the formats of one registry.
 *
 * Each format is an sc_part_format: a probe that says from the file name and
 * its first bytes how surely the format applies (SC_PROBE_*, load.h), a
 * reader and a writer.  Reading reads the file once, into memory (a pipe
 * reads as a regular file does), and gives it to the format that is surest:
 * by content where the first bytes tell ('{' or '[' for JSON, a DOT keyword
 * or comment for DOT), the extension (.json; .dot, .gv) as a hint where they
 * do not, and JSON when nothing does.  Writing goes by the output name
 * alone: .dot or .gv writes DOT, any other name JSON.  The formats:
 *
 *  - "json": {"format": "stagecut-partition/1", "k": K, "stages": {op: stage}}
 *    with 1-based stages, the optional "devices" of CPU stages, and, for
 *    readers, the costs beside them;
 *  - "dot": a DOT graph whose nodes carry 1-based `stage` attributes and
 *    whose graph attribute k is the partition's k (absent: the largest
 *    stage), as sc_write_dot writes it and the DOT loader reads it as a
 *    graph's initial partition; read with that loader and matched to the
 *    graph by op name.  It names no devices, so a partition with CPU stages
 *    is not written as DOT.
 *
 * Every failure is one line naming the file.  Not thread-safe (the DOT
 * parser has global state).
 */
#ifndef SC_PARTITION_FILE_H
#define SC_PARTITION_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/cost.h"
#include "core/graph.h"
#include "core/partition.h"
#include "load.h"

typedef struct sc_part_format {
	const char *name; /* "json", "dot" */
	/* SC_PROBE_CONTENT when the first len bytes in head (after any leading
	 * blanks) are this format's, else SC_PROBE_EXTENSION when path's
	 * extension is, else SC_PROBE_NO */
	int (*probe)(const char *path, const char *head, size_t len);
	/* reads the partition in data[0..len) (the whole of path, len > 0, with
	 * a NUL after it; path names it in messages) for g, as
	 * sc_part_read does, but with each stage's device as named in
	 * the file (*names_out: k malloc'd names in a malloc'd array, or NULL
	 * when the file names none; sc_part_names_free frees it) */
	sc_status (*read)(const char *path, const char *data, size_t len, const sc_graph *g,
	                  int *k_out, int *stage, char ***names_out, sc_error *err);
	/* writes the partition to path, as sc_part_write_until does */
	sc_status (*write)(const char *path, const sc_graph *g, const int *stage, int k,
	                   const sc_costs *costs, bool (*stop)(void *), void *ctx, sc_error *err);
} sc_part_format;

extern const sc_part_format sc_part_format_json;
extern const sc_part_format sc_part_format_dot;

/* The format whose probe is surest of the file path whose first bytes are
 * head[0..len) after any leading blanks (JSON when none is). */
const sc_part_format *sc_part_format_for_read(const char *path, const char *head, size_t len);

/* The format sc_part_write gives path: DOT for a name ending in .dot or .gv
 * (in any case), JSON for any other. */
const sc_part_format *sc_part_format_for_write(const char *path);

/* Reads a partition file for g.  On success *k_out is the file's k and
 * stage[0..n) (caller-owned) holds 0-based stages; stages outside 1..k are
 * kept (as stage-1) for sc_part_check to report, however far outside:
 * one beyond an int as its nearer end (SC_PART_STAGE_MAX or _MIN, 1-based).
 * Fails with SC_ERR_INPUT (message "path: ...") on a malformed file, a
 * wrong format tag, a missing or non-integer k or stage, an op the graph
 * lacks, a graph op the file lacks, or (DOT, whose loader checks them) a
 * stage outside 1..k, or a stage on a device other than the graph's own
 * (sc_part_load_kinds takes those); SC_ERR_IO when the file cannot be
 * read. */
sc_status sc_part_read(const char *path, const sc_graph *g, int *k_out, int *stage, sc_error *err);

/* Reads the partition file path for g and checks it: the one way every
 * command and the workbench take a partition from a file, with one set of
 * messages.  want_k > 0 requires the file's k to equal it.  On return
 * *k_out is the file's k (0 when unreadable), stage[0..n) (caller-owned)
 * its 0-based stages, and viol (may be NULL) the first violation.
 * Returns
 * - SC_OK for a valid partition;
 * - SC_ERR_INPUT or SC_ERR_IO (as sc_part_read) for a file that cannot be
 *   used, and SC_ERR_INPUT ("path: the partition has k = 3, but k = 4 is
 *   asked for") for a k other than want_k;
 * - SC_ERR_INVALID ("path: the partition is invalid: edge 'a' -> 'b' ...")
 *   when it breaks the stage order or a group (stage[] and *k_out are then
 *   filled, so a report can still show its costs).
 * Callers map SC_ERR_INVALID to exit status 1 and the rest to 2. */
sc_status sc_part_load(const char *path, const sc_graph *g, int want_k, int *k_out, int *stage,
                       sc_violation *viol, sc_error *err);

/* Frees k names of a reader's *names_out.  NULL does nothing. */
void sc_part_names_free(char **names, int k);

/* sc_part_load for a partition on devices (fleet.h): the one way every
 * command takes a partition whose stages may run on kinds of device.
 * given (resolved for g) is the fleet of the command (--devices), or NULL
 * for the file's own: the graph's work kind (the file's "accel" or its
 * name) as kind 0, "cpu" as kind 1 (001 section 3; the indices an
 * sc_costs without a fleet gives them), then any other kind the graph has
 * op times for, each with the count of stages the file gives it.  On
 * return *fleet is the fleet used, and *kind_out the stages' kinds (k
 * indices into *fleet, malloc'd), or NULL when the file names none: every
 * stage kind 0 without given, the caller's to place with given.  Each
 * name must be one of given's kinds, no kind on more stages than its
 * count, and the partition is checked by sc_part_check_kinds (an op on a
 * kind that may not run it is SC_ERR_INVALID, as a broken stage order,
 * with *k_out, stage and *kind_out filled).  want_k > 0 requires the
 * file's k to equal it. */
struct sc_fleet;
sc_status sc_part_load_kinds(const char *path, const sc_graph *g, const struct sc_fleet *given,
                             int want_k, int *k_out, int *stage, struct sc_fleet *fleet,
                             int **kind_out, sc_violation *viol, sc_error *err);

/* Writes the partition file for stage (0-based, k stages) to path, in the
 * format of sc_part_format_for_write, through a temporary file in the same
 * directory and a rename, so an existing file is either replaced whole or
 * left alone.  JSON: costs (may be NULL) adds the bottleneck and per-stage
 * costs beside the stages, for readers, and, when the stages run on
 * devices (sc_costs_names_devices), the "devices" array naming each
 * stage's kind; on a training graph the file also names its
 * "backward_ops" and, with costs, gives the "training" object of
 * sc_report_objective.  DOT: the graph with its stages (sc_write_dot), k
 * the partition's; costs are not written, and a partition on devices is
 * refused (SC_ERR_INPUT, "path: ... cannot name ...", nothing written). */
sc_status sc_part_write(const char *path, const sc_graph *g, const int *stage, int k,
                        const sc_costs *costs, sc_error *err);

/* sc_part_write that stop(ctx) (may be NULL) may end before the file is
 * written, asked every few thousand stages and every megabyte of text (a
 * partition of a million stages takes seconds): SC_ERR_LIMIT ("path: not
 * written: stopped"), nothing written. */
sc_status sc_part_write_until(const char *path, const sc_graph *g, const int *stage, int k,
                              const sc_costs *costs, bool (*stop)(void *), void *ctx,
                              sc_error *err);

#endif
