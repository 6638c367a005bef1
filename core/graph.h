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

/* How a training graph's micro-batches flow (seed 001 section 5.3): 1F1B
 * (PipeDream's steady state, each stage alternating one forward and one
 * backward micro-batch: the objective is the largest stage cost over both
 * passes) or GPipe (all forward, then all backward: the largest forward
 * cost of a stage plus the largest backward cost).  Inference graphs have
 * one pass and ignore it. */
typedef enum sc_schedule {
	SC_SCHEDULE_1F1B = 0,
	SC_SCHEDULE_GPIPE,
} sc_schedule;

/* Returns "1f1b" or "gpipe". */
const char *sc_schedule_name(sc_schedule s);

/* Parses "1f1b" or "gpipe" (any case); returns false for anything else. */
bool sc_schedule_parse(const char *text, sc_schedule *out);

/* The global settings of a problem: k stages, bandwidth B > 0 (bytes per time
 * unit), fast memory M per stage (bytes; INFINITY = unlimited) and policy. */
typedef struct sc_settings {
	int k;            /* 0 when the file does not say */
	double bandwidth; /* default 1 */
	double memory;    /* default INFINITY */
	sc_mem_policy policy;
	sc_schedule schedule; /* default 1F1B; only training graphs differ */
	/* CPU stages beside the k accelerator stages (001
	 * section 3): up to cpus of them, in any order among the accelerator stages.
	 * 0 (the default): none, every stage an accelerator */
	int cpus;
	/* op -> the stage (0-based, < k) a search must give it, or -1; NULL:
	 * none.  Borrowed; read by the searches and the exact MIP only (the
	 * lower bounds of the ladder are bounds without pins, so bounds with
	 * them too) */
	const int *pin;
	/* the devices (fleet.h), or NULL: k of the graph's work kind and cpus
	 * CPUs.  Borrowed */
	const struct sc_fleet *fleet;
	/* training: the micro-batches of a pipeline round, m (activations.h:
	 * a stage holds the stash of min(k - s, m) of them under 1F1B, of m
	 * under GPipe); 0: k */
	int microbatches;
} sc_settings;

/* Fills s with the defaults: k 0, bandwidth 1, memory unlimited, overflow. */
void sc_settings_init(sc_settings *s);

/* Returns "overflow" or "hard". */
const char *sc_mem_policy_name(sc_mem_policy p);

/* Parses "overflow" or "hard"; returns false for anything else. */
bool sc_mem_policy_parse(const char *text, sc_mem_policy *out);

/* Where one op's work came from (sc_graph.work_source). */
enum {
	SC_WORK_FILE = 0, /* the input file's own number */
	SC_WORK_MODEL,    /* the device model (ONNX import) */
	SC_WORK_MEASURED, /* a measured time (--times), alone or a share of a fused kernel */
};

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
	/* the unit of work and costs when the file states one ("microseconds"
	 * for an ONNX model costed on a device), else NULL: "time units" */
	const char *time_unit;
	/* Where the ops' work came from (DESIGN.md section 1, where costs come
	 * from).  work_source is NULL when every op's work is the file's own
	 * number (DOT, msr-fiddle JSON); else one SC_WORK_* per op.  cost_origin
	 * is NULL or one line for reports ("measured 60 of 65 ops, 99.1 % of the
	 * work, from prof.json (ONNX Runtime profile, 11 runs, median); the rest
	 * modelled: h100 fp16"); cost_short a few words for the workbench
	 * header and pictures ("measured 99% (prof.json)", "h100 model at
	 * fp16").  All owned by the graph. */
	unsigned char *work_source;
	char *cost_origin;
	char *cost_short;
	/* made_weight[v]: op v is a convolution of an ONNX file that reads a
	 * weight its exporter computed rather than a parameter of its module
	 * (torch.onnx's "onnx::Conv_N": a BatchNorm folded into it by constant
	 * folding, a module the file no longer names).  NULL when no op does.
	 * Owned. */
	bool *made_weight;
	/* Training graphs (DESIGN.md section 1, training graphs; seed 001
	 * section 5.3).  backward[v] says op v belongs to the backward pass
	 * (msr-fiddle isBackwardNode, DOT backward=true); orphan[v] that v is a
	 * backward op whose group holds no forward op (or that has no group).
	 * Both are NULL, and the counts 0, for an inference graph. */
	bool *backward;
	int backward_ops;
	bool *orphan;
	int orphans;
	/* The order arcs: a -> b means stage(a) <= stage(b) in every valid
	 * partition (besides the groups, which share a stage).  For an inference
	 * graph they are the edges themselves (the arrays alias succ, pred and
	 * topo).  For a training graph: every edge between two forward ops, and
	 * every edge u -> v between two backward ops one of which is an orphan,
	 * reversed (v -> u: the mirror image of the forward order); every other
	 * edge is free of the order.  CSR lists like succ and pred; ord_topo is a
	 * topological order of the arcs (they never form a cycle: see graph.c). */
	int m_order;
	int *ord_succ_off, *ord_succ;
	int *ord_pred_off, *ord_pred;
	int *ord_topo;
	/* CPU stages (001 section 3).  cpu_work[v] is op v's time on
	 * a CPU (msr-fiddle cpuLatency, DOT cpu_work) and cpu_ok[v] says it has
	 * one: an op without a CPU time never goes to a CPU stage.  Both NULL
	 * when no op has a CPU time.  accel_ok[v] false: v may not go to an
	 * accelerator (msr-fiddle supportedOnFpga 0, DOT accel_ok=false), only
	 * to a CPU stage; NULL when every op may (accel_refused ops may not).
	 * max_cpus: the file's maxCPUs, or -1 when it says none.  All owned. */
	double *cpu_work;
	bool *cpu_ok;
	bool *accel_ok;
	int accel_refused;
	int max_cpus;
	/* Device kinds (fleet.h).  work_kind names the kind the ops' work is
	 * for (NULL: "accel"; an ONNX model: its device).  Further kinds' op
	 * times: kind_work[i][v] is op v's time on the kind kind_name[i], NAN
	 * where it may not run; kind_memory[i] and kind_bandwidth[i] that
	 * kind's memory and link (NAN: the settings').  All owned. */
	char *work_kind;
	int nkinds;
	char **kind_name;
	double **kind_work;
	double *kind_memory, *kind_bandwidth;
	/* What a stage holds besides its parameters (activations.h): the
	 * tensors ops save for the backward pass, the working peak, gradients
	 * and optimizer state.  NULL when the file carries parameter sizes
	 * alone (msr-fiddle, plain DOT).  Owned. */
	struct sc_acts *acts;
} sc_graph;

/* True when op v may go to a CPU stage (it has a CPU time). */
static inline bool sc_graph_cpu_ok(const sc_graph *g, int v)
{
	return g->cpu_ok && g->cpu_ok[v];
}

/* True when op v may go to an accelerator stage. */
static inline bool sc_graph_accel_ok(const sc_graph *g, int v)
{
	return !g->accel_ok || g->accel_ok[v];
}

/* Op v's time on a CPU stage (0 when it has none: see sc_graph_cpu_ok). */
static inline double sc_graph_cpu_work(const sc_graph *g, int v)
{
	return g->cpu_work ? g->cpu_work[v] : 0;
}

/* The name of the kind g's work is for: g->work_kind or "accel". */
static inline const char *sc_graph_work_kind(const sc_graph *g)
{
	return g->work_kind ? g->work_kind : "accel";
}

/* The index of g's kind table named name, or -1. */
int sc_graph_find_kind(const sc_graph *g, const char *name);

/* Adds to g the op times of the kind name (work: n entries, NAN where an
 * op may not run; taken over by g, freed on failure too) with its memory
 * and link bandwidth (NAN: the settings').  Fails on a name g already has
 * (its work kind, "cpu" or a table) or a time neither NAN nor finite and
 * >= 0. */
sc_status sc_graph_add_kind(sc_graph *g, const char *name, double *work, double memory,
                            double bandwidth, sc_error *err);

/* True for a training graph (one op or more of the backward pass). */
static inline bool sc_graph_is_training(const sc_graph *g)
{
	return g->backward_ops > 0;
}

/* Which rule of the stage order an edge u -> v of g obeys. */
typedef enum sc_edge_rule {
	SC_RULE_FREE = 0, /* no order: a training graph's edge into the backward pass */
	SC_RULE_FORWARD,  /* stage(u) <= stage(v): every inference edge, forward to forward */
	SC_RULE_MIRROR,   /* stage(v) <= stage(u): backward to backward, one an orphan */
} sc_edge_rule;

/* The rule edge u -> v obeys (u -> v must be an edge of g, not checked). */
sc_edge_rule sc_graph_edge_rule(const sc_graph *g, int u, int v);

/* A few words naming the rule for messages: "an edge never goes to an
 * earlier stage", "an edge between backward ops, one an orphan, never goes
 * to a later stage", "free". */
const char *sc_edge_rule_text(sc_edge_rule r);

/* "forward" or "backward" (always "forward" for an inference graph). */
static inline const char *sc_graph_pass_name(const sc_graph *g, int v)
{
	return g->backward && g->backward[v] ? "backward" : "forward";
}

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

/* Marks op v (already added) as part of the backward pass of a training
 * graph.  Returns SC_OK or SC_ERR_NOMEM. */
sc_status sc_builder_set_backward(sc_builder *b, int v, sc_error *err);

/* Gives op v (already added) a CPU time (finite, >= 0: a CPU stage may
 * hold it) and says whether it may go to an accelerator (001 section 3).
 * Ops never given one have no CPU time and may go to an accelerator.
 * Returns SC_OK, SC_ERR_INPUT for a bad time, or SC_ERR_NOMEM. */
sc_status sc_builder_set_devices(sc_builder *b, int v, double cpu_work, bool has_cpu, bool accel_ok,
                                 sc_error *err);

/* Records the file's number of CPUs (msr-fiddle maxCPUs; -1: none). */
void sc_builder_set_max_cpus(sc_builder *b, int cpus);

/* Builds the graph.  source is the path for messages and g->source; name is
 * the graph's short name.  Fails with SC_ERR_INPUT on a duplicate op name, a
 * self-loop or a cycle (the message begins with "source: " and names one
 * cycle), totals too large to compute with (sc_graph_check_totals), or, in a
 * training graph, an edge from a backward op to a forward op (the backward
 * pass never feeds the forward pass).  The builder may be freed
 * afterwards either way. */
sc_graph *sc_builder_finish(sc_builder *b, const char *source, const char *name, sc_error *err);

/* The program order of g's ops into order (g->n entries): the file's order
 * when every edge runs forward in it (an exporter's output: ONNX lists its
 * nodes in program order), else the topological order that takes, at each
 * step, the ready op that comes first in the file.  Returns true when the
 * file's order was kept; false with order filled otherwise, or when out of
 * memory (then *nomem is set and order untouched). */
bool sc_graph_program_order(const sc_graph *g, int *order, bool *nomem);

#endif
