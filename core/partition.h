/*
 * partition.h - partitions: validity, violations and legal stage ranges.
 * Partition files (DESIGN.md section 2) are read and written in
 * core/formats/partition_file.h.
 *
 * A partition of an sc_graph into k stages is an int array stage[0..n) of
 * 0-based stages (files and messages use 1-based numbers).  It is valid when
 * every stage is in range, no edge goes to an earlier stage (stages are in
 * pipeline order, so the quotient graph is acyclic) and every group lies in
 * one stage.
 */
#ifndef SC_PARTITION_H
#define SC_PARTITION_H

#include <limits.h>
#include <stdbool.h>

#include "graph.h"

/* The 1-based stages a partition file's numbers are kept as: a number
 * beyond them is kept as the nearer end (it is outside 1..k all the same),
 * which sc_part_describe words "or above" and "or below". */
#define SC_PART_STAGE_MAX INT_MAX
#define SC_PART_STAGE_MIN (INT_MIN + 2)

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

/* sc_part_check, then the kinds: kind[s] (an index into f; NULL: all 0)
 * is stage s's kind; an op on a kind that may not run it is
 * SC_VIOL_DEVICE. */
struct sc_fleet;
bool sc_part_check_kinds(const sc_graph *g, const int *stage, int k, const struct sc_fleet *f,
                         const int *kind, sc_violation *v);

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

/* A stage array for g: one int per op (at least one), every op in stage 0.
 * The caller frees it with free().  NULL when out of memory. */
int *sc_part_new(const sc_graph *g);

/* A partition file that names the forward ops of a training graph alone
 * (one made for inference) places each backward op with its forward op:
 * an op of stage[] equal to unset takes the stage of the first op of its
 * group that has one, and an orphan (the loss gradient) the latest stage
 * of its neighbours that have one.  Ops left unset stay unset. */
void sc_part_fill_backward(const sc_graph *g, int *stage, int unset);

#endif
