/*
 * cover.c - the cover bound by column generation.  See cover.h for what it
 * proves and why; the parts here:
 *
 *   the set under growth  a set of units with its cost kept up to date as
 *                         units join or leave (per tensor: is its source
 *                         in, how many of its readers are in);
 *   pricing               given duals pi, sets of cost <= C with pi(S) > 1:
 *                         first greedily from every unit, then, when the
 *                         greedy finds none, a MIP (CBC) whose proven bound
 *                         is the P of Farley's bound;
 *   the master            LP(C) over the sets found so far (Clp), plus one
 *                         artificial column per unit so that it is always
 *                         feasible; artificial columns are not sets, so an
 *                         answer that uses one says nothing of LP(C);
 *   the search            bisection on C, the sets found kept across probes.
 */
#define _POSIX_C_SOURCE 200809L
#include "cover.h"

#include <coin/Cbc_C_Interface.h>
#include <coin/Clp_C_Interface.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "mip_model.h"

#define PRICE_EPS 1e-7     /* a set is a column worth adding above 1 + this */
#define MAX_NEW_COLUMNS 40 /* per pricing round */

typedef struct column {
	int off, len; /* units in cov.cols_units[off .. off+len) */
	double cost;
	uint64_t hash;
} column;

typedef struct cov {
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
	column *cols;
	int ncols, colcap;
	int *cols_units;
	int cu_n, cu_cap;
	/* scratch */
	int *cand;
	unsigned char *seen;
	double *pi;
	double lp_value; /* the master LP's last objective */
} cov;

static bool crosses(const cov *c, int i)
{
	int d = c->t.cons_off[i + 1] - c->t.cons_off[i];
	return c->in[c->t.src[i]] ? c->cin[i] < d : c->cin[i] > 0;
}

static double set_cost(const cov *c)
{
	double f = c->work + c->io;
	if (c->over && c->param > c->M)
		f += (c->param - c->M) / c->B;
	return f;
}

static bool set_fits_memory(const cov *c)
{
	return !c->hard || c->param <= c->M * (1 + 1e-12);
}

/* Adds (add) or removes unit X, keeping work, param and io. */
static void toggle(cov *c, int X, bool add)
{
	double before = 0, after = 0;
	for (int e = c->inc_off[X]; e < c->inc_off[X + 1]; e++)
		if (crosses(c, c->inc[e]))
			before += c->t.size[c->inc[e]];
	c->in[X] = add;
	for (int e = c->inc_off[X]; e < c->inc_off[X + 1]; e++) {
		int i = c->inc[e];
		if (c->t.src[i] != X)
			c->cin[i] += add ? 1 : -1;
		if (crosses(c, i))
			after += c->t.size[i];
	}
	c->io += after - before;
	double s = add ? 1 : -1;
	c->work += s * c->u->work[X];
	c->param += s * c->u->param[X];
	if (add)
		c->members[c->nmem++] = X;
	else
		for (int j = 0; j < c->nmem; j++)
			if (c->members[j] == X) {
				c->members[j] = c->members[--c->nmem];
				break;
			}
	if (c->nmem == 0)
		c->io = 0; /* no drift */
}

static void set_clear(cov *c)
{
	while (c->nmem > 0)
		toggle(c, c->members[c->nmem - 1], false);
	c->work = c->param = c->io = 0;
}

static void cov_free(cov *c)
{
	sc_mip_tensors_free(&c->t);
	free(c->inc_off);
	free(c->inc);
	free(c->in);
	free(c->cin);
	free(c->members);
	free(c->cols);
	free(c->cols_units);
	free(c->cand);
	free(c->seen);
	free(c->pi);
}

static bool cov_init(cov *c, const sc_units *u, const sc_settings *set)
{
	memset(c, 0, sizeof *c);
	c->u = u;
	c->n = u->n;
	c->B = set->bandwidth;
	c->M = set->memory;
	c->hard = set->policy == SC_MEM_HARD && isfinite(c->M);
	c->over = set->policy == SC_MEM_OVERFLOW && isfinite(c->M);
	if (!sc_mip_tensors_build(u->g, u, 1 / set->bandwidth, &c->t))
		return false;
	int n = c->n, nt = c->t.n;
	size_t n1 = (size_t)n + 1;
	c->inc_off = calloc(n1 + 1, sizeof(int));
	c->in = calloc(n1, 1);
	c->cin = calloc((size_t)nt + 1, sizeof(int));
	c->members = malloc(n1 * sizeof(int));
	c->cand = malloc(n1 * sizeof(int));
	c->seen = calloc(n1, 1);
	c->pi = calloc(n1, sizeof(double));
	if (!c->inc_off || !c->in || !c->cin || !c->members || !c->cand || !c->seen || !c->pi)
		return false;
	for (int i = 0; i < nt; i++) {
		c->inc_off[c->t.src[i] + 1]++;
		for (int e = c->t.cons_off[i]; e < c->t.cons_off[i + 1]; e++)
			c->inc_off[c->t.cons[e] + 1]++;
	}
	for (int X = 0; X < n; X++)
		c->inc_off[X + 1] += c->inc_off[X];
	c->inc = malloc(((size_t)c->inc_off[n] + 1) * sizeof(int));
	int *fill = malloc(n1 * sizeof(int));
	if (!c->inc || !fill) {
		free(fill);
		return false;
	}
	memcpy(fill, c->inc_off, (size_t)n * sizeof(int));
	for (int i = 0; i < nt; i++) {
		c->inc[fill[c->t.src[i]]++] = i;
		for (int e = c->t.cons_off[i]; e < c->t.cons_off[i + 1]; e++)
			c->inc[fill[c->t.cons[e]]++] = i;
	}
	free(fill);
	return true;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* Adds the set under growth as a column unless it is known; false when out
 * of memory. */
static bool add_column(cov *c)
{
	int len = c->nmem;
	qsort(c->members, (size_t)len, sizeof(int), cmp_int);
	uint64_t h = 1469598103934665603ULL;
	for (int j = 0; j < len; j++)
		h = (h ^ (uint64_t)c->members[j]) * 1099511628211ULL;
	for (int j = 0; j < c->ncols; j++)
		if (c->cols[j].hash == h && c->cols[j].len == len &&
		    memcmp(c->cols_units + c->cols[j].off, c->members, (size_t)len * sizeof(int)) ==
		            0)
			return true;
	if (c->ncols == c->colcap) {
		int cap = c->colcap ? 2 * c->colcap : 256;
		column *q = realloc(c->cols, (size_t)cap * sizeof *q);
		if (!q)
			return false;
		c->cols = q;
		c->colcap = cap;
	}
	if (c->cu_n + len > c->cu_cap) {
		int cap = c->cu_cap ? 2 * c->cu_cap : 4096;
		while (cap < c->cu_n + len)
			cap *= 2;
		int *q = realloc(c->cols_units, (size_t)cap * sizeof *q);
		if (!q)
			return false;
		c->cols_units = q;
		c->cu_cap = cap;
	}
	memcpy(c->cols_units + c->cu_n, c->members, (size_t)len * sizeof(int));
	c->cols[c->ncols++] = (column){c->cu_n, len, set_cost(c), h};
	c->cu_n += len;
	return true;
}

/* The units outside the set that share a tensor with it, into c->cand;
 * returns how many. */
static int neighbours(cov *c)
{
	int nc = 0;
	for (int j = 0; j < c->nmem; j++) {
		int X = c->members[j];
		for (int e = c->inc_off[X]; e < c->inc_off[X + 1]; e++) {
			int i = c->inc[e];
			int s = c->t.src[i];
			if (!c->in[s] && !c->seen[s]) {
				c->seen[s] = 1;
				c->cand[nc++] = s;
			}
			for (int q = c->t.cons_off[i]; q < c->t.cons_off[i + 1]; q++) {
				int V = c->t.cons[q];
				if (!c->in[V] && !c->seen[V]) {
					c->seen[V] = 1;
					c->cand[nc++] = V;
				}
			}
		}
	}
	for (int j = 0; j < nc; j++)
		c->seen[c->cand[j]] = 0;
	return nc;
}

/* Local search on a set of cost <= C and dual value v: swaps one member
 * for one neighbour, or adds a neighbour, while that raises pi(S) and keeps
 * the cost <= C.  Returns the final pi(S). */
static double improve(cov *c, double C, double v)
{
	for (int round = 0; round < 64; round++) {
		int nc = neighbours(c);
		double gain = PRICE_EPS;
		int out = -1, inn = -1;
		for (int a = 0; a < nc; a++) {
			int Y = c->cand[a];
			toggle(c, Y, true);
			if (set_cost(c) <= C && set_fits_memory(c) && c->pi[Y] > gain) {
				gain = c->pi[Y];
				out = -1;
				inn = Y;
			}
			for (int j = 0; j + 1 < c->nmem; j++) {
				int X = c->members[j];
				if (c->pi[Y] - c->pi[X] <= gain)
					continue;
				toggle(c, X, false);
				if (set_cost(c) <= C && set_fits_memory(c)) {
					gain = c->pi[Y] - c->pi[X];
					out = X;
					inn = Y;
				}
				toggle(c, X, true);
				/* toggle moved the last member into X's place */
				int last = c->members[c->nmem - 1];
				c->members[c->nmem - 1] = c->members[j];
				c->members[j] = last;
			}
			toggle(c, Y, false);
		}
		if (inn < 0)
			break;
		if (out >= 0)
			toggle(c, out, false);
		toggle(c, inn, true);
		v += gain;
	}
	return v;
}

/* Grows a set from seed under the duals c->pi, keeping cost <= C (a set
 * over C may only take units that lower its cost); score chooses between
 * the largest dual (ratio false) and the largest dual per unit of cost.
 * Leaves the best set of cost <= C seen in the set under growth and returns
 * its pi, or -1 when none. */
static double grow(cov *c, int seed, double C, bool ratio)
{
	set_clear(c);
	toggle(c, seed, true);
	double best = -1;
	int best_len = 0;
	int order[1024];
	int norder = 0;
	for (;;) {
		double f = set_cost(c);
		if (f <= C && set_fits_memory(c)) {
			double v = 0;
			for (int j = 0; j < c->nmem; j++)
				v += c->pi[c->members[j]];
			if (v > best) {
				best = v;
				best_len = norder;
			}
		}
		/* the units that share a tensor with the set */
		int nc = 0;
		for (int j = 0; j < c->nmem; j++) {
			int X = c->members[j];
			for (int e = c->inc_off[X]; e < c->inc_off[X + 1]; e++) {
				int i = c->inc[e];
				int s = c->t.src[i];
				if (!c->in[s] && !c->seen[s]) {
					c->seen[s] = 1;
					c->cand[nc++] = s;
				}
				for (int q = c->t.cons_off[i]; q < c->t.cons_off[i + 1]; q++) {
					int V = c->t.cons[q];
					if (!c->in[V] && !c->seen[V]) {
						c->seen[V] = 1;
						c->cand[nc++] = V;
					}
				}
			}
		}
		int pick = -1;
		double pick_score = -INFINITY;
		for (int j = 0; j < nc; j++) {
			int X = c->cand[j];
			c->seen[X] = 0;
			if (pick == -2)
				continue;
			toggle(c, X, true);
			double nf = set_cost(c);
			bool mem = set_fits_memory(c);
			toggle(c, X, false);
			double d = nf - f;
			bool ok = (nf <= C && mem) || (f > C && d < 0);
			if (!ok || (c->pi[X] <= 0 && d >= 0))
				continue;
			double score = d <= 0 ? 1e30 + c->pi[X] : ratio ? c->pi[X] / d : c->pi[X];
			if (score > pick_score) {
				pick_score = score;
				pick = X;
			}
		}
		if (pick < 0 || norder == (int)(sizeof order / sizeof order[0]))
			break;
		toggle(c, pick, true);
		order[norder++] = pick;
	}
	if (best < 0)
		return -1;
	/* back to the best prefix */
	set_clear(c);
	toggle(c, seed, true);
	for (int j = 0; j < best_len; j++)
		toggle(c, order[j], true);
	return improve(c, C, best);
}

/* Greedy pricing: adds up to MAX_NEW_COLUMNS sets with pi(S) > 1.  Returns
 * the number added, or -1 when out of memory. */
static int price_greedy(cov *c, double C)
{
	int added = 0;
	for (int pass = 0; pass < 2 && added < MAX_NEW_COLUMNS; pass++)
		for (int X = 0; X < c->n && added < MAX_NEW_COLUMNS; X++) {
			if (c->pi[X] <= PRICE_EPS)
				continue;
			double v = grow(c, X, C, pass == 1);
			if (v > 1 + PRICE_EPS) {
				int before = c->ncols;
				if (!add_column(c))
					return -1;
				added += c->ncols > before;
			}
		}
	set_clear(c);
	return added;
}

/* Exact pricing with CBC: max pi(S) over sets with cost <= C (memory under
 * a hard limit).  Columns: s_U (binary) for each unit, x_i in [0, 1] for
 * each tensor (x_i >= |s_U - s_V| for its source U and every reader V: it
 * crosses the set's boundary), an overflow column.  *P gets CBC's proven
 * bound on the maximum (valid even when stopped by the time limit), a hair
 * above; the best set found is left in the set under growth.  Returns
 * false when CBC fails. */
static bool price_mip(cov *c, double C, double seconds, double *P)
{
	int n = c->n, nt = c->t.n;
	int ncol = n + nt + 1;
	int nrow_max = 2 * (c->t.cons_off[nt]) + 2;
	int nz_max = 6 * c->t.cons_off[nt] + 2 * ncol + 2;
	double *clo = calloc((size_t)ncol, sizeof(double));
	double *cup = malloc((size_t)ncol * sizeof(double));
	double *obj = calloc((size_t)ncol, sizeof(double));
	double *rlo = malloc((size_t)nrow_max * sizeof(double));
	double *rup = malloc((size_t)nrow_max * sizeof(double));
	int *rstart = malloc(((size_t)nrow_max + 1) * sizeof(int));
	int *ridx = malloc((size_t)nz_max * sizeof(int));
	double *rval = malloc((size_t)nz_max * sizeof(double));
	bool ok = clo && cup && obj && rlo && rup && rstart && ridx && rval;
	if (!ok)
		goto out;
	double scale = C > 0 ? C : 1;
	for (int j = 0; j < ncol; j++)
		cup[j] = 1;
	cup[n + nt] = DBL_MAX;
	for (int U = 0; U < n; U++)
		obj[U] = -c->pi[U];
	int nr = 0, nz = 0;
	rstart[0] = 0;
	for (int i = 0; i < nt; i++) {
		int U = c->t.src[i];
		for (int e = c->t.cons_off[i]; e < c->t.cons_off[i + 1]; e++) {
			int V = c->t.cons[e];
			for (int dir = 0; dir < 2; dir++) {
				ridx[nz] = n + i, rval[nz++] = 1;
				ridx[nz] = U, rval[nz++] = dir ? 1 : -1;
				ridx[nz] = V, rval[nz++] = dir ? -1 : 1;
				rlo[nr] = 0, rup[nr] = DBL_MAX;
				rstart[++nr] = nz;
			}
		}
	}
	/* cost row: work + crossing tensors + overflow <= C (a hair above, so
	 * no set of cost C is cut off) */
	for (int U = 0; U < n; U++)
		ridx[nz] = U, rval[nz++] = c->u->work[U] / scale;
	for (int i = 0; i < nt; i++)
		ridx[nz] = n + i, rval[nz++] = c->t.size[i] / scale;
	ridx[nz] = n + nt, rval[nz++] = 1;
	rlo[nr] = -DBL_MAX, rup[nr] = 1 + 1e-9;
	rstart[++nr] = nz;
	if (c->over) {
		/* overflow >= (param - M) / B */
		for (int U = 0; U < n; U++)
			ridx[nz] = U, rval[nz++] = -c->u->param[U] / c->B / scale;
		ridx[nz] = n + nt, rval[nz++] = 1;
		rlo[nr] = -c->M / c->B / scale, rup[nr] = DBL_MAX;
		rstart[++nr] = nz;
	}
	if (c->hard) {
		for (int U = 0; U < n; U++)
			ridx[nz] = U, rval[nz++] = c->u->param[U] / (c->M > 0 ? c->M : 1);
		rlo[nr] = -DBL_MAX, rup[nr] = (c->M > 0 ? 1 : 0) + 1e-9;
		rstart[++nr] = nz;
	}
	Cbc_Model *cm = Cbc_newModel();
	if (!cm) {
		ok = false;
		goto out;
	}
	/* the rows as given, by rows: CBC wants columns, so transpose */
	int *cs = calloc((size_t)ncol + 1, sizeof(int));
	int *ci = malloc(((size_t)nz + 1) * sizeof(int));
	double *cv = malloc(((size_t)nz + 1) * sizeof(double));
	if (!cs || !ci || !cv) {
		free(cs);
		free(ci);
		free(cv);
		Cbc_deleteModel(cm);
		ok = false;
		goto out;
	}
	for (int q = 0; q < nz; q++)
		cs[ridx[q] + 1]++;
	for (int j = 0; j < ncol; j++)
		cs[j + 1] += cs[j];
	for (int r = 0; r < nr; r++)
		for (int q = rstart[r]; q < rstart[r + 1]; q++) {
			int j = ridx[q], at = cs[j]++;
			ci[at] = r;
			cv[at] = rval[q];
		}
	for (int j = ncol; j > 0; j--)
		cs[j] = cs[j - 1];
	cs[0] = 0;
	Cbc_loadProblem(cm, ncol, nr, cs, ci, cv, clo, cup, obj, rlo, rup);
	free(cs);
	free(ci);
	free(cv);
	for (int U = 0; U < n; U++)
		Cbc_setInteger(cm, U);
	Cbc_setObjSense(cm, 1);
	Cbc_setLogLevel(cm, 0);
	Cbc_setParameter(cm, "timeMode", "elapsed");
	Cbc_setAllowableGap(cm, 1e-9);
	Cbc_setAllowableFractionGap(cm, 1e-9);
	Cbc_setMaximumSeconds(cm, seconds > 0.05 ? seconds : 0.05);
	Cbc_solve(cm);
	double bound = -Cbc_getBestPossibleObjValue(cm);
	const double *sol = Cbc_bestSolution(cm);
	set_clear(c);
	if (sol)
		for (int U = 0; U < n; U++)
			if (sol[U] > 0.5)
				toggle(c, U, true);
	Cbc_deleteModel(cm);
	if (!isfinite(bound)) {
		double s = 0;
		for (int U = 0; U < n; U++)
			s += c->pi[U];
		bound = s; /* no set at all: the trivial bound */
	}
	/* CBC's tolerances (integrality 1e-6 on each s) */
	*P = bound * (1 + 1e-6) + 1e-9;
out:
	free(clo);
	free(cup);
	free(obj);
	free(rlo);
	free(rup);
	free(rstart);
	free(ridx);
	free(rval);
	return ok;
}

/* Adds to lp the columns c->cols[from..] of cost <= C; false when out of
 * memory. */
static bool add_to_lp(cov *c, Clp_Simplex *lp, int from, double C)
{
	int m = 0, nz = 0;
	for (int j = from; j < c->ncols; j++)
		if (c->cols[j].cost <= C * (1 + 1e-9)) {
			m++;
			nz += c->cols[j].len;
		}
	if (m == 0)
		return true;
	double *lo = calloc((size_t)m, sizeof(double));
	double *up = malloc((size_t)m * sizeof(double));
	double *ob = malloc((size_t)m * sizeof(double));
	int *st = malloc(((size_t)m + 1) * sizeof(int));
	int *rows = malloc((size_t)nz * sizeof(int));
	double *el = malloc((size_t)nz * sizeof(double));
	bool ok = lo && up && ob && st && rows && el;
	if (ok) {
		int q = 0, at = 0;
		st[0] = 0;
		for (int j = from; j < c->ncols; j++) {
			const column *col = &c->cols[j];
			if (col->cost > C * (1 + 1e-9))
				continue;
			for (int i = 0; i < col->len; i++) {
				rows[at] = c->cols_units[col->off + i];
				el[at++] = 1;
			}
			up[q] = DBL_MAX;
			ob[q] = 1;
			st[++q] = at;
		}
		Clp_addColumns(lp, m, lo, up, ob, st, rows, el);
	}
	free(lo);
	free(up);
	free(ob);
	free(st);
	free(rows);
	free(el);
	return ok;
}

typedef enum probe_result {
	PROBE_PROVEN,
	PROBE_NOT_PROVEN,
	PROBE_TIMEOUT,
	PROBE_ERROR
} probe_result;

static double time_left(double deadline)
{
	return deadline > 0 ? deadline - sc_clock_now() : INFINITY;
}

/* Is C proven infeasible for k stages (LP(C) > k)?  Gives up at deadline
 * (sc_clock_now() time; <= 0: none). */
static probe_result probe(cov *c, int k, double deadline, double C, sc_cover_result *res)
{
	int n = c->n;
	double art = k + 1.0; /* an artificial column's cost */
	Clp_Simplex *lp = Clp_newModel();
	if (!lp)
		return PROBE_ERROR;
	Clp_setLogLevel(lp, 0);
	/* artificial columns, one per unit */
	{
		int *start = malloc(((size_t)n + 1) * sizeof(int));
		int *idx = malloc(((size_t)n + 1) * sizeof(int));
		double *val = malloc(((size_t)n + 1) * sizeof(double));
		double *lo = calloc((size_t)n + 1, sizeof(double));
		double *up = malloc(((size_t)n + 1) * sizeof(double));
		double *ob = malloc(((size_t)n + 1) * sizeof(double));
		double *rlo = malloc(((size_t)n + 1) * sizeof(double));
		double *rup = malloc(((size_t)n + 1) * sizeof(double));
		bool ok = start && idx && val && lo && up && ob && rlo && rup;
		if (ok) {
			for (int X = 0; X < n; X++) {
				start[X] = X;
				idx[X] = X;
				val[X] = 1;
				up[X] = DBL_MAX;
				ob[X] = art;
				rlo[X] = 1;
				rup[X] = DBL_MAX;
			}
			start[n] = n;
			Clp_loadProblem(lp, n, n, start, idx, val, lo, up, ob, rlo, rup);
		}
		free(start);
		free(idx);
		free(val);
		free(lo);
		free(up);
		free(ob);
		free(rlo);
		free(rup);
		if (!ok) {
			Clp_deleteModel(lp);
			return PROBE_ERROR;
		}
	}
	probe_result r = PROBE_ERROR;
	bool first = true;
	int scanned = 0;
	for (;;) {
		/* put the columns of cost <= C not yet in the LP, in one call */
		if (!add_to_lp(c, lp, scanned, C))
			goto done;
		scanned = c->ncols;
		if (time_left(deadline) <= 0) {
			r = PROBE_TIMEOUT;
			goto done;
		}
		Clp_setMaximumSeconds(lp, time_left(deadline));
		int st = first ? Clp_initialSolve(lp) : Clp_primal(lp, 0);
		(void)st;
		first = false;
		if (Clp_status(lp) != 0) {
			r = time_left(deadline) <= 0 ? PROBE_TIMEOUT : PROBE_ERROR;
			goto done;
		}
		const double *dual = Clp_dualRowSolution(lp);
		const double *x = Clp_primalColumnSolution(lp);
		double sum = 0;
		for (int X = 0; X < n; X++) {
			c->pi[X] = dual[X] > 0 ? dual[X] : 0;
			sum += c->pi[X];
		}
		bool artificial = false;
		for (int X = 0; X < n; X++)
			artificial = artificial || x[X] > 1e-9;
		c->lp_value = Clp_objectiveValue(lp);
		if (!artificial && c->lp_value <= k + 1e-9) {
			r = PROBE_NOT_PROVEN; /* k sets (fractionally) cover the units */
			goto done;
		}
		int added = price_greedy(c, C);
		if (added < 0)
			goto done;
		if (added > 0)
			continue;
		double P;
		res->pricings++;
		if (!price_mip(c, C, time_left(deadline), &P))
			goto done;
		if (P > 0 && sum / P > k * (1 + 1e-9) + 1e-9) {
			r = PROBE_PROVEN;
			goto done;
		}
		double v = 0;
		for (int j = 0; j < c->nmem; j++)
			v += c->pi[c->members[j]];
		if (c->nmem > 0 && v > 1 + PRICE_EPS) {
			int before = c->ncols;
			if (!add_column(c))
				goto done;
			set_clear(c);
			if (c->ncols > before)
				continue;
		}
		set_clear(c);
		r = time_left(deadline) <= 0 ? PROBE_TIMEOUT : PROBE_NOT_PROVEN;
		goto done;
	}
done:
	Clp_deleteModel(lp);
	return r;
}

sc_status sc_cover_bound(const sc_units *u, const sc_settings *set, const sc_cover_params *p,
                         sc_cover_result *res, sc_error *err)
{
	memset(res, 0, sizeof *res);
	res->bound = p->lower;
	res->complete = true;
	if (u->n == 0 || p->k < 1 || !(p->upper > p->lower) || !isfinite(p->upper))
		return SC_OK;
	cov c;
	if (!cov_init(&c, u, set)) {
		cov_free(&c);
		return sc_error_nomem(err, "the cover bound");
	}
	double lo = p->lower, hi = p->upper;
	double tol = p->rel_tol > 0 ? p->rel_tol : 1e-3;
	sc_status st = SC_OK;
	res->complete = true;
	/* the first probe low, where a proof comes sooner; after a proof at C
	 * with LP value v, LP(C) falling about as 1/C puts the threshold near
	 * C v / k, and the next probe goes part of the way there (never past
	 * the middle of what is left) */
	double C = lo + 0.35 * (hi - lo);
	while (hi - lo > tol * hi) {
		res->probes++;
		/* a probe near the threshold can take long to settle (the LP's
		 * tail); one that takes more than a third of the time left counts
		 * as not proven, so the bisection goes on below it, where proofs
		 * come sooner */
		double left = time_left(p->deadline);
		double until = isfinite(left) ? sc_clock_now() + fmax(left / 2, fmin(left, 1)) : 0;
		c.lp_value = 0;
		probe_result r = probe(&c, p->k, until, C, res);
		if (r == PROBE_TIMEOUT && time_left(p->deadline) > 0.05)
			r = PROBE_NOT_PROVEN;
		if (r == PROBE_PROVEN) {
			lo = C;
			if (p->fn)
				p->fn(p->ud, lo, res->probes);
		} else if (r == PROBE_NOT_PROVEN) {
			hi = C;
		} else if (r == PROBE_TIMEOUT) {
			res->complete = false;
			break;
		} else {
			st = sc_error_set(err, SC_ERR_INTERNAL, "the cover bound's LP failed");
			break;
		}
		double mid = lo + 0.5 * (hi - lo);
		C = mid;
		if (r == PROBE_PROVEN && c.lp_value > p->k) {
			double aim = lo * (1 + 0.6 * (c.lp_value / p->k - 1));
			C = fmin(mid, fmax(aim, lo + 0.1 * (hi - lo)));
		}
	}
	res->bound = lo;
	res->columns = c.ncols;
	cov_free(&c);
	return st;
}
