/*
 * cover_set.h - the cover rung's working state, private to cover.c,
 * cover_set.c and cover_price.c: the units' tensors, the set under growth
 * (a set of units with its cost kept up to date as units join or leave:
 * per tensor, is its source in and how many of its readers are in), the
 * columns found so far, and the pricing that finds more.
 */
#ifndef SC_COVER_SET_H
#define SC_COVER_SET_H

#include <stdbool.h>
#include <stdint.h>

#include "core/graph.h"
#include "mip_model.h"
#include "units.h"

#define SC_COV_PRICE_EPS 1e-7 /* a set is a column worth adding above 1 + this */

typedef struct sc_cov_column {
	int off, len; /* units in sc_cov.cols_units[off .. off+len) */
	double cost;
	uint64_t hash;
} sc_cov_column;

typedef struct sc_cov {
	const sc_units *u;
	sc_mip_tensors t;
	int n;
	int *inc_off, *inc; /* unit -> tensors it produces or reads */
	double M, B;
	bool hard, over;
	/* the set under growth */
	unsigned char *in;
	int *cin; /* per tensor: its readers in the set */
	double work, param, io;
	int *members, nmem;
	/* the columns found */
	sc_cov_column *cols;
	int ncols, colcap;
	int *cols_units;
	int cu_n, cu_cap;
	/* scratch */
	int *cand;
	unsigned char *seen;
	double *pi;
} sc_cov;

/* Fills c for u under set; false when out of memory (free c anyway). */
bool sc_cov_init(sc_cov *c, const sc_units *u, const sc_settings *set);
void sc_cov_free(sc_cov *c);

/* The set under growth: its cost (work, crossing tensors, overflow),
 * whether it fits a hard memory limit, a unit joining (add) or leaving,
 * and emptying it. */
double sc_cov_cost(const sc_cov *c);
bool sc_cov_fits(const sc_cov *c);
void sc_cov_toggle(sc_cov *c, int X, bool add);
void sc_cov_clear(sc_cov *c);

/* Adds the set under growth as a column unless it is known (it sorts the
 * members); false when out of memory. */
bool sc_cov_add_column(sc_cov *c);

/* Adds the set under growth as a column when it is one the master lacks:
 * pi(S) > 1 (a hair more), cost <= C and within a hard memory limit.
 * Returns 1 when it added it, 0 when not (or already known), -1 when out
 * of memory. */
int sc_cov_offer(sc_cov *c, double C);

/* Greedy pricing under the duals c->pi: adds up to a few dozen sets of
 * cost <= C with pi(S) > 1, stopping at deadline (sc_clock_now() time;
 * <= 0: none).  Returns the number added, -1 when out of memory. */
int sc_cov_price_greedy(sc_cov *c, double C, double deadline);

/* Exact pricing with CBC within seconds: *P gets a proven upper bound on
 * max pi(S) over sets of cost <= C; the best set found is left in the set
 * under growth, the other sets it found with pi(S) > 1 become columns.
 * False when out of memory. */
bool sc_cov_price_mip(sc_cov *c, double C, double seconds, double *P);

/* The cost that the duals c->pi prove with CBC within seconds: *J gets a
 * proven lower bound on min cost(S) over the sets with pi(S) >= T
 * (INFINITY when there is none).  When T = sum(pi) / (k (1 + d)), every C'
 * below *J has all sets of cost <= C' at pi(S) < T, and Farley's bound
 * gives LP(C') > k: C' is proven.  The cheapest set found is left in the
 * set under growth; the other sets CBC found of cost <= C and pi(S) > 1
 * become columns (as in sc_cov_price_mip; C also scales the MIP).  False
 * when out of memory. */
bool sc_cov_jump_mip(sc_cov *c, double T, double C, double seconds, double *J);

#endif
