/*
 * partition.h - partitions: validity, legal stage ranges, and the partition
 * file of DESIGN.md section 2.
 *
 * A partition of an sc_graph into k stages is an int array stage[0..n) of
 * 0-based stages (files and messages use 1-based numbers).  It is valid when
 * every stage is in range, no edge goes to an earlier stage (stages are in
 * pipeline order, so the quotient graph is acyclic) and every group lies in
 * one stage.
 */
#ifndef SC_PARTITION_H
#define SC_PARTITION_H

#include <stdbool.h>

#include "cost.h"
#include "graph.h"

typedef enum sc_violation_kind {
	SC_VIOL_NONE = 0,
	SC_VIOL_RANGE,  /* op a has a stage outside 1..k */
	SC_VIOL_EDGE,   /* edge a -> b goes from a later stage to an earlier one */
	SC_VIOL_GROUP,  /* ops a and b of one group are in different stages */
	SC_VIOL_MIRROR, /* training: edge a -> b between backward ops, one an
	                 * orphan, goes from an earlier stage to a later one */
	SC_VIOL_DEVICE, /* op a sits on stage b, a device it may not go to (a
	                 * CPU stage and a has no CPU time, or an accelerator
	                 * stage and a is not supported there) */
} sc_violation_kind;

typedef struct sc_violation {
	sc_violation_kind kind;
	int a, b; /* ops */
} sc_violation;

/* Finds the first violation (ops in index order; for each op its range, then
 * its out-edges, then its group).  Returns true when stage is valid. */
bool sc_part_check(const sc_graph *g, const int *stage, int k, sc_violation *v);

/* sc_part_check, then the devices: cpu[s] says stage s is a CPU stage
 * (NULL: none is); an op on a device it may not go to is SC_VIOL_DEVICE. */
bool sc_part_check_devices(const sc_graph *g, const int *stage, int k, const bool *cpu,
                           sc_violation *v);

/* Writes a one-line description of v (1-based stages) into buf; names are
 * bounded as messages bound them (error.h), so SC_PART_WHY_SIZE bytes hold
 * any description whole. */
#define SC_PART_WHY_SIZE 1024
void sc_part_describe(const sc_graph *g, const int *stage, const sc_violation *v, char *buf,
                      size_t size);

/* The stages op v can move to, alone or with its group, without breaking an
 * edge: [*lo, *hi], 0-based, from the stages of the predecessors and
 * successors of v's group outside the group.  stage must be valid. */
void sc_part_legal_range(const sc_graph *g, const int *stage, int k, int v, int *lo, int *hi);

/* Reads a partition file for g.  On success *k_out is the file's k and
 * stage[0..n) (caller-owned) holds 0-based stages; stages outside 1..k are
 * kept (as stage-1) for sc_part_check to report, however far outside:
 * one beyond an int as its nearer end (INT_MAX or INT_MIN + 2, 1-based,
 * which sc_part_describe words "or above", "or below").  Fails with SC_ERR_INPUT
 * (message "path: ...") on malformed JSON, a wrong format tag, a missing or
 * non-integer k or stage, an op the graph lacks, or a graph op the file
 * lacks; SC_ERR_IO when the file cannot be read. */
sc_status sc_part_read(const char *path, const sc_graph *g, int *k_out, int *stage, sc_error *err);

/* sc_part_read for a file that may name CPU stages (issue 29): the
 * optional "devices" array gives each stage's device ("accel" or "cpu");
 * *cpu_out is then a malloc'd array of k flags (true: a CPU stage) that
 * the caller frees, or NULL when the file has no CPU stage.  sc_part_read
 * itself refuses a file with a CPU stage (SC_ERR_INPUT: "path: the
 * partition has CPU stages, which this command does not take yet"), so
 * that no reader takes a CPU stage for an accelerator. */
sc_status sc_part_read_devices(const char *path, const sc_graph *g, int *k_out, int *stage,
                               bool **cpu_out, sc_error *err);

/* sc_part_load with the devices of sc_part_read_devices (checked by
 * sc_part_check_devices); *cpu_out as there, also filled when the
 * partition is invalid. */
sc_status sc_part_load_devices(const char *path, const sc_graph *g, int want_k, int *k_out,
                               int *stage, bool **cpu_out, sc_violation *viol, sc_error *err);

/* sc_part_write with each stage's device: cpu (k flags, NULL: every stage
 * an accelerator) adds the "devices" array when some stage is a CPU. */
sc_status sc_part_write_devices(const char *path, const sc_graph *g, const int *stage, int k,
                                const bool *cpu, const sc_costs *costs, sc_error *err);

/* A stage array for g: one int per op (at least one), every op in stage 0.
 * The caller frees it with free().  NULL when out of memory. */
int *sc_part_new(const sc_graph *g);

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

/* Writes the partition file for stage (0-based, k stages) to path through a
 * temporary file in the same directory and a rename, so an existing file is
 * either replaced whole or left alone.  costs (may be NULL) adds the
 * bottleneck and per-stage costs beside the stages, for readers; on a
 * training graph the file also names its "backward_ops" and, with costs,
 * gives the "training" object of sc_report_objective. */
sc_status sc_part_write(const char *path, const sc_graph *g, const int *stage, int k,
                        const sc_costs *costs, sc_error *err);

#endif
