/*
 * mip_model.h - the MIP rungs' formulation, apart from the solver (private
 * to solvers/).
 *
 * mip_model.c writes the rows and columns of the three MIPs (000 section
 * 3.2 bottleneck, 3.3 bottleneck-guess, Figure 3 exact) as a sparse matrix
 * over the units' Y variables; mip.c hands the matrix to CBC, runs the
 * solve and reads the answer back.  The split keeps each file about one
 * thing: the algebra here, CBC's C interface (and its process-wide
 * callback) there.  Notation as in mip.c's opening comment.  Nothing here
 * touches CBC; the row bounds use DBL_MAX, which is CBC's infinity.
 */
#ifndef SC_MIP_MODEL_H
#define SC_MIP_MODEL_H

#include <stdbool.h>

#include "mip.h"
#include "units.h"

/* A growable sparse matrix built row by row. */
typedef struct sc_mip_rows {
	int n, cap;      /* rows */
	double *lo, *up; /* row bounds */
	int *start;      /* n + 1 */
	int nz, nzcap;
	int *col;
	double *val;
} sc_mip_rows;

typedef struct sc_mip_model {
	const sc_units *u;
	int K;        /* blocks */
	int *lo, *hi; /* per unit window */
	int *ycol;    /* unit U, block b: ycol[U * K + b] or -1 when fixed */
	int ncols, colcap;
	double *clo, *cup, *cobj;
	char *cint;
	sc_mip_rows r;
	/* the row being built */
	int *tcol;
	double *tval;
	int tn, tcap;
	double tconst;
	bool infeasible; /* a fixed row was violated */
	bool nomem;
	/* the exact rung on a fleet: block b's kind binaries dcol[b * nk + e],
	 * K * nk entries (-1 for the first kind, whose binary is 1 minus the
	 * others'), malloc'd by the builder; else NULL */
	int *dcol;
	int nk;
	/* the bottleneck and guess rungs with CPU stages: per unit whether an
	 * accelerator may hold it (borrowed; NULL: the graph's accel_ok, as
	 * mip.c's relaxation of other kinds gives it otherwise) */
	const bool *aok;
} sc_mip_model;

/* What the order arcs say of a tensor's source unit U and one reading
 * unit V (bits of sc_mip_tensors.order). */
enum {
	SC_MIP_SRC_FIRST = 1, /* stage(U) <= stage(V): an edge of the forward order */
	SC_MIP_SRC_LAST = 2,  /* stage(V) <= stage(U): a mirrored (orphan) edge */
};

/* Tensors that can cross a stage boundary: an op's output read by another
 * unit.  cons lists the distinct reading units; order[e] (beside cons[e])
 * says which way the order arcs force that pair, if any.  Every inference
 * pair is SC_MIP_SRC_FIRST; on a training graph a tensor may also be read
 * in an earlier stage than its producer's (a free or mirrored edge). */
typedef struct sc_mip_tensors {
	int n;
	int *src;     /* source unit */
	double *size; /* out / B / scale */
	int *cons_off, *cons;
	unsigned char *order; /* per cons entry: SC_MIP_SRC_FIRST | SC_MIP_SRC_LAST bits */
	bool *bw;             /* produced by a backward op: its io is backward time */
} sc_mip_tensors;

/* Fills t with the tensors of g that can cross a stage boundary between the
 * units of u, their sizes multiplied by per_byte.  False when out of memory
 * (t is then empty; sc_mip_tensors_free is still safe). */
bool sc_mip_tensors_build(const sc_graph *g, const sc_units *u, double per_byte, sc_mip_tensors *t);

/* Frees what t holds (not t). */
void sc_mip_tensors_free(sc_mip_tensors *t);

/* Builds the model of rung p->rung into m, whose u and K are set and whose
 * lo, hi (u->n each) and ycol (u->n * K) the caller allocated; costs are
 * divided by scale, L is the unit simple bound; *zcol receives the
 * objective's column.  Sets m->infeasible when a fixed row is violated.
 * Returns false when out of memory. */
bool sc_mip_model_build(sc_mip_model *m, const sc_settings *set, const sc_mip_params *p,
                        const sc_mip_tensors *t, double scale, double L, int *zcol);

/* The pieces the builders use (mip_model*.c): a new column (its index; 0
 * with m->nomem set when out of memory), and a row built term by term:
 * begin, add coef * column, coef * Y(U, b) (fixed values folded into the
 * constant), coef * x(U, b) = Y(U, b) - Y(U, b-1), a constant v, and end as lo <= terms + constant
 * <= up (a row without terms only checks the constant: m->infeasible when it fails). */
int sc_mip_col(sc_mip_model *m, double lo, double up, double obj, bool integer);
void sc_mip_row_begin(sc_mip_model *m);
void sc_mip_row_add(sc_mip_model *m, int col, double coef);
void sc_mip_row_y(sc_mip_model *m, int U, int b, double coef);
void sc_mip_row_x(sc_mip_model *m, int U, int b, double coef);
void sc_mip_row_const(sc_mip_model *m, double v);
void sc_mip_row_end(sc_mip_model *m, double lo, double up);
/* Sums the terms of the row being built that name the same column (CBC
 * takes a column once per row): for rows whose terms may repeat one. */
void sc_mip_row_merge(sc_mip_model *m);

/* weight[] summed over each unit together with all its ancestors (down
 * false) or all its descendants (down true): exact with bitsets for up to
 * 8192 units, else the heaviest chain, which is smaller and so still a
 * safe window.  Malloc'd; NULL when out of memory. */
double *sc_mip_reach_work(const sc_units *u, const double *weight, bool down);

/* The bottleneck and guess models with CPU stages (set->cpus >= 1, no
 * fleet; mip_model_cpu.c says why each bounds the optimum): as
 * sc_mip_model_build.  The 1F1B schedule (or inference) only. */
bool sc_mip_model_build_cpu(sc_mip_model *m, const sc_settings *set, const sc_mip_params *p,
                            const sc_mip_tensors *t, double scale, int *zcol);

/* The exact model on the kinds of f (resolved for the units' graph; m->K
 * its stages): each block gets a kind, m->dcol[b * f->n + e] its binaries
 * (mip_model_kinds.c says how, and when the optimum is the fleet's).  L
 * is a lower bound on the objective.  The 1F1B schedule (or inference)
 * only; pins are not modelled. */
struct sc_fleet;
bool sc_mip_model_build_kinds(sc_mip_model *m, const sc_settings *set, const sc_mip_params *p,
                              const struct sc_fleet *f, const sc_mip_tensors *t, double scale,
                              double L, int *zcol);

/* The simple bound on a fleet over the units: each unit at its least
 * time on a kind that may run it (INFINITY when none may). */
double sc_mip_unit_simple_bound_kinds(const sc_units *u, const struct sc_fleet *f);

/* Narrows the windows (lo, hi, set) by a known bottleneck upper (none when
 * not finite and positive): a unit whose ancestors weigh more than fits
 * below it cannot sit in the first stages, each stage holding a unit
 * costing at least its weight[U], likewise for its descendants and the
 * last stages; m->infeasible when a window closes.  False when out of
 * memory. */
bool sc_mip_narrow_windows(sc_mip_model *m, const double *weight, double upper);

/* The Y columns inside the windows (lo, hi), and the precedence rows (the
 * units' DAG and monotone Y): what every model has. */
void sc_mip_y_columns(sc_mip_model *m);
void sc_mip_precedence(sc_mip_model *m);

/* The simple bound with CPU stages (simple.h) over the units: a unit may
 * go to a device when each of its ops may.  NAN when out of memory. */
double sc_mip_unit_simple_bound_cpus(const sc_units *u, int k, int cpus);

/* Frees what m holds (not m). */
void sc_mip_model_free(sc_mip_model *m);

/* The unit-based simple bound (000 Lemma 3.3): units are indivisible. */
double sc_mip_unit_simple_bound(const sc_units *u, int k);

#endif
