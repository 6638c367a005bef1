/*
 * graph.h - the computation graph of the MTPP model (DESIGN.md section 1).
 *
 * An sc_graph is immutable once built: ops numbered 0..n-1 with a name, work,
 * param and out (all finite and >= 0), an optional co-location group, and the
 * edges in two CSR arrays (successors and predecessors, each list sorted and
 * free of duplicates).  It also carries the problem settings read from the file
 * (k, bandwidth, memory, memory policy) and an optional initial partition.
 *
 * Graphs are made with an sc_builder: add ops and edges, then finish, which
 * sorts and deduplicates edges, rejects duplicate names and cycles (naming one
 * cycle), and computes a topological order.  Nothing here prints or exits.
 * An sc_graph may be read from several threads at once.
 */
#ifndef SC_GRAPH_H
#define SC_GRAPH_H

#include <stdbool.h>

#include "error.h"

typedef enum sc_mem_policy {
	SC_MEM_OVERFLOW = 0, /* a stage over M pays (param - M) / B extra time */
	SC_MEM_HARD,         /* a stage over M is infeasible */
} sc_mem_policy;

/* The global settings of a problem: k stages, bandwidth B > 0 (bytes per time
 * unit), fast memory M per stage (bytes; INFINITY = unlimited) and policy. */
typedef struct sc_settings {
	int k;            /* 0 when the file does not say */
	double bandwidth; /* default 1 */
	double memory;    /* default INFINITY */
	sc_mem_policy policy;
} sc_settings;

/* Fills s with the defaults: k 0, bandwidth 1, memory unlimited, overflow. */
void sc_settings_init(sc_settings *s);

/* Returns "overflow" or "hard". */
const char *sc_mem_policy_name(sc_mem_policy p);

/* Parses "overflow" or "hard"; returns false for anything else. */
bool sc_mem_policy_parse(const char *text, sc_mem_policy *out);

typedef struct sc_graph {
	char *name;   /* short name of the graph (file name without directory) */
	char *source; /* the path it was loaded from, or "" */
	int n;        /* ops */
	int m;        /* distinct edges */
	char **op_name;
	double *work;  /* time units */
	double *param; /* bytes */
	double *out;   /* bytes of the op's one output tensor */
	int *group;    /* group index, or -1 when the op has no group */
	int ngroups;
	char **group_name;
	int *group_off, *group_ops; /* ops of group i: group_ops[group_off[i] .. group_off[i+1]) */
	int *succ_off, *succ;       /* successors of v: succ[succ_off[v] .. succ_off[v+1]) */
	int *pred_off, *pred;       /* predecessors, likewise */
	int *topo;                  /* a topological order of the ops */
	int *by_name;               /* op indices sorted by name, for sc_graph_find */
	sc_settings settings;       /* from the file; defaults where it is silent */
	int *init_stage;            /* NULL, or a 0-based stage per op from the file */
	/* ops of a training graph's backward pass (msr-fiddle isBackwardNode):
	 * 0 for an inference graph.  The model does not treat them apart yet
	 * (DESIGN.md section 1, training graphs), so the program refuses to
	 * partition a graph that has any; the loaders only count them. */
	int backward_ops;
} sc_graph;

/* SC_OK for an inference graph; for a training graph (backward_ops > 0)
 * SC_ERR_INPUT with the one-line refusal every partitioning command and the
 * testbed give ("SOURCE: a training graph (N of its M ops are backward,
 * isBackwardNode true): stagecut does not model the backward pass yet and
 * cannot partition it"). */
sc_status sc_graph_check_inference(const sc_graph *g, sc_error *err);

/* Frees g and everything it owns.  sc_graph_free(NULL) does nothing. */
void sc_graph_free(sc_graph *g);

/* Returns the index of the op called name, or -1.  O(log n). */
int sc_graph_find(const sc_graph *g, const char *name);

/* Convenience accessors for the CSR lists. */
static inline int sc_graph_outdeg(const sc_graph *g, int v)
{
	return g->succ_off[v + 1] - g->succ_off[v];
}
static inline int sc_graph_indeg(const sc_graph *g, int v)
{
	return g->pred_off[v + 1] - g->pred_off[v];
}

/* Sum of work over all ops. */
double sc_graph_total_work(const sc_graph *g);

/* Number of ops in group i. */
static inline int sc_graph_group_size(const sc_graph *g, int i)
{
	return g->group_off[i + 1] - g->group_off[i];
}

/* The largest total any cost may reach: sums over ops of work, param and out,
 * and the largest cost a stage could have (work + 2 out / B, + param / B
 * when an overflow penalty applies), must stay at or below it.  The margin
 * below DBL_MAX (about 1e8) keeps every sum the programs form from these --
 * over stages (k <= 1e6), over bounds, differences of costs -- finite. */
#define SC_TOTAL_MAX 1e300

/* Checks that g's totals under the settings set stay within SC_TOTAL_MAX, so
 * that no cost computed from them overflows to infinity.  Returns SC_OK, or
 * SC_ERR_INPUT with a message "SOURCE: the total QUANTITY of the ops is
 * VALUE, ..." naming the first quantity too large.  sc_builder_finish
 * checks it with the file's settings; a caller that changes the bandwidth,
 * memory or policy checks again. */
sc_status sc_graph_check_totals(const sc_graph *g, const sc_settings *set, sc_error *err);

typedef struct sc_builder sc_builder;

/* Returns a new empty builder, or NULL when out of memory. */
sc_builder *sc_builder_new(void);

/* Frees b.  sc_builder_free(NULL) does nothing. */
void sc_builder_free(sc_builder *b);

/* Adds an op and returns its index (>= 0), or -1 with err set.  name is
 * copied; group may be NULL or "" for no group.  Weights must be finite and
 * >= 0 (the loaders check them first, to name the attribute). */
int sc_builder_add_op(sc_builder *b, const char *name, double work, double param, double out,
                      const char *group, sc_error *err);

/* Adds the edge from -> to (op indices already added).  Duplicates are
 * merged at finish.  Returns SC_OK or an error. */
sc_status sc_builder_add_edge(sc_builder *b, int from, int to, sc_error *err);

/* Sets the settings and the optional initial partition (stage is copied;
 * 0-based; may be NULL). */
void sc_builder_set_settings(sc_builder *b, const sc_settings *s);
sc_status sc_builder_set_init_stage(sc_builder *b, const int *stage, sc_error *err);

/* Builds the graph.  source is the path for messages and g->source; name is
 * the graph's short name.  Fails with SC_ERR_INPUT on a duplicate op name, a
 * self-loop or a cycle (the message begins with "source: " and names one
 * cycle), or totals too large to compute with (sc_graph_check_totals).  The builder may be freed
 * afterwards either way. */
sc_graph *sc_builder_finish(sc_builder *b, const char *source, const char *name, sc_error *err);

#endif
