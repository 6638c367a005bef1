/*
 * cover_price.c - the cover rung's pricing: given duals pi, sets of cost
 * <= C with pi(S) > 1.  First greedily from every unit (growing by the
 * neighbours with the best dual, or dual per unit of cost, then local
 * swaps); when the greedy finds none, a MIP (CBC) whose proven bound is the
 * P of Farley's bound (cover.h).  See cover_set.h.
 */
#include "cover_set.h"

#include "core/clock.h"

#include <coin/Cbc_C_Interface.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NEW_COLUMNS 40 /* per pricing round */

/* The units outside the set that share a tensor with it, into c->cand;
 * returns how many. */
static int neighbours(sc_cov *c)
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
static double improve(sc_cov *c, double C, double v)
{
	for (int round = 0; round < 64; round++) {
		int nc = neighbours(c);
		double gain = SC_COV_PRICE_EPS;
		int out = -1, inn = -1;
		for (int a = 0; a < nc; a++) {
			int Y = c->cand[a];
			sc_cov_toggle(c, Y, true);
			if (sc_cov_cost(c) <= C && sc_cov_fits(c) && c->pi[Y] > gain) {
				gain = c->pi[Y];
				out = -1;
				inn = Y;
			}
			for (int j = 0; j + 1 < c->nmem; j++) {
				int X = c->members[j];
				if (c->pi[Y] - c->pi[X] <= gain)
					continue;
				sc_cov_toggle(c, X, false);
				if (sc_cov_cost(c) <= C && sc_cov_fits(c)) {
					gain = c->pi[Y] - c->pi[X];
					out = X;
					inn = Y;
				}
				sc_cov_toggle(c, X, true);
				/* sc_cov_toggle moved the last member into X's place */
				int last = c->members[c->nmem - 1];
				c->members[c->nmem - 1] = c->members[j];
				c->members[j] = last;
			}
			sc_cov_toggle(c, Y, false);
		}
		if (inn < 0)
			break;
		if (out >= 0)
			sc_cov_toggle(c, out, false);
		sc_cov_toggle(c, inn, true);
		v += gain;
	}
	return v;
}

/* Grows a set from seed under the duals c->pi, keeping cost <= C (a set
 * over C may only take units that lower its cost); score chooses between
 * the largest dual (ratio false) and the largest dual per unit of cost.
 * Leaves the best set of cost <= C seen in the set under growth and returns
 * its pi, or -1 when none. */
static double grow(sc_cov *c, int seed, double C, bool ratio)
{
	sc_cov_clear(c);
	sc_cov_toggle(c, seed, true);
	double best = -1;
	int best_len = 0;
	int order[1024];
	int norder = 0;
	for (;;) {
		double f = sc_cov_cost(c);
		if (f <= C && sc_cov_fits(c)) {
			double v = 0;
			for (int j = 0; j < c->nmem; j++)
				v += c->pi[c->members[j]];
			if (v > best) {
				best = v;
				best_len = norder;
			}
		}
		/* the units that share a tensor with the set, and the units of
		 * positive dual anywhere: a set need not be connected (two small
		 * pieces may fit where one large one does not) */
		int nc = neighbours(c);
		for (int j = 0; j < nc; j++)
			c->seen[c->cand[j]] = 1;
		for (int X = 0; X < c->n; X++)
			if (!c->in[X] && !c->seen[X] && c->pi[X] > SC_COV_PRICE_EPS) {
				c->seen[X] = 1;
				c->cand[nc++] = X;
			}
		int pick = -1;
		double pick_score = -INFINITY;
		for (int j = 0; j < nc; j++) {
			int X = c->cand[j];
			c->seen[X] = 0;
			if (pick == -2)
				continue;
			sc_cov_toggle(c, X, true);
			double nf = sc_cov_cost(c);
			bool mem = sc_cov_fits(c);
			sc_cov_toggle(c, X, false);
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
		sc_cov_toggle(c, pick, true);
		order[norder++] = pick;
	}
	if (best < 0)
		return -1;
	/* back to the best prefix */
	sc_cov_clear(c);
	sc_cov_toggle(c, seed, true);
	for (int j = 0; j < best_len; j++)
		sc_cov_toggle(c, order[j], true);
	return improve(c, C, best);
}

/* Greedy pricing: adds up to MAX_NEW_COLUMNS sets with pi(S) > 1, until
 * deadline (sc_clock_now() time; <= 0: none).  Returns the number added,
 * or -1 when out of memory. */
int sc_cov_price_greedy(sc_cov *c, double C, double deadline)
{
	int added = 0;
	for (int pass = 0; pass < 2 && added < MAX_NEW_COLUMNS; pass++)
		for (int X = 0; X < c->n && added < MAX_NEW_COLUMNS; X++) {
			if (c->pi[X] <= SC_COV_PRICE_EPS)
				continue;
			if (deadline > 0 && X % 16 == 0 && sc_clock_now() > deadline)
				break;
			if (grow(c, X, C, pass == 1) < 0)
				continue;
			int a = sc_cov_offer(c, C);
			if (a < 0)
				return -1;
			added += a;
		}
	sc_cov_clear(c);
	return added;
}

/* The pricing MIP's model over the units: columns s_U (binary) for each
 * unit, x_i in [0, 1] for each tensor (x_i >= |s_U - s_V| for its source
 * U and every reader V: it crosses the set's boundary) and the overflow
 * (>= (param(S) - M) / B); the memory row under a hard limit.  With
 * jump false: maximise pi(S) subject to cost <= C (a hair above, so no
 * set of cost C is cut off); with jump true: minimise the cost subject
 * to pi(S) >= T.  Costs are scaled by scale.  NULL when out of memory. */
static Cbc_Model *pricing_model(const sc_cov *c, bool jump, double C, double T, double scale)
{
	int n = c->n, nt = c->t.n;
	int ncol = n + nt + 1;
	int nrow_max = 2 * (c->t.cons_off[nt]) + 3;
	int nz_max = 6 * c->t.cons_off[nt] + 3 * ncol + 2;
	double *clo = calloc((size_t)ncol, sizeof(double));
	double *cup = malloc((size_t)ncol * sizeof(double));
	double *obj = calloc((size_t)ncol, sizeof(double));
	double *rlo = malloc((size_t)nrow_max * sizeof(double));
	double *rup = malloc((size_t)nrow_max * sizeof(double));
	int *rstart = malloc(((size_t)nrow_max + 1) * sizeof(int));
	int *ridx = malloc((size_t)nz_max * sizeof(int));
	double *rval = malloc((size_t)nz_max * sizeof(double));
	int *cs = calloc((size_t)ncol + 1, sizeof(int));
	int *ci = malloc(((size_t)nz_max + 1) * sizeof(int));
	double *cv = malloc(((size_t)nz_max + 1) * sizeof(double));
	Cbc_Model *cm = NULL;
	if (!clo || !cup || !obj || !rlo || !rup || !rstart || !ridx || !rval || !cs || !ci || !cv)
		goto out;
	for (int j = 0; j < ncol; j++)
		cup[j] = 1;
	cup[n + nt] = DBL_MAX;
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
	if (jump) {
		/* minimise work + crossing tensors + overflow; pi(S) >= T */
		for (int U = 0; U < n; U++)
			obj[U] = c->u->work[U] / scale;
		for (int i = 0; i < nt; i++)
			obj[n + i] = c->t.size[i] / scale;
		obj[n + nt] = 1;
		for (int U = 0; U < n; U++)
			if (c->pi[U] > 0)
				ridx[nz] = U, rval[nz++] = c->pi[U];
		rlo[nr] = T, rup[nr] = DBL_MAX;
		rstart[++nr] = nz;
	} else {
		/* maximise pi(S); work + crossing tensors + overflow <= C */
		for (int U = 0; U < n; U++)
			obj[U] = -c->pi[U];
		for (int U = 0; U < n; U++)
			ridx[nz] = U, rval[nz++] = c->u->work[U] / scale;
		for (int i = 0; i < nt; i++)
			ridx[nz] = n + i, rval[nz++] = c->t.size[i] / scale;
		ridx[nz] = n + nt, rval[nz++] = 1;
		rlo[nr] = -DBL_MAX, rup[nr] = C / scale + 1e-9;
		rstart[++nr] = nz;
	}
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
	cm = Cbc_newModel();
	if (!cm)
		goto out;
	/* the rows as built, by rows: CBC wants columns, so transpose */
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
	for (int U = 0; U < n; U++)
		Cbc_setInteger(cm, U);
	Cbc_setObjSense(cm, 1);
	Cbc_setLogLevel(cm, 0);
	Cbc_setParameter(cm, "timeMode", "elapsed");
	Cbc_setAllowableGap(cm, 1e-9);
	Cbc_setAllowableFractionGap(cm, 1e-9);
	/* no saved solutions beyond the best (maxSavedSolutions): CBC copies a
	 * saved solution with the column count of the model it solved, which
	 * preprocessing changes, reading past its buffer (AddressSanitizer:
	 * CbcMain1 after CbcModel::saveExtraSolution; an abort or a wrong column
	 * otherwise); without preprocessing Clp's dual asserts on
	 * these models instead */
out:
	free(clo);
	free(cup);
	free(obj);
	free(rlo);
	free(rup);
	free(rstart);
	free(ridx);
	free(rval);
	free(cs);
	free(ci);
	free(cv);
	return cm;
}

/* Puts the units of a CBC solution (NULL: none) in the set under growth. */
static void load(sc_cov *c, const double *sol)
{
	sc_cov_clear(c);
	if (sol)
		for (int U = 0; U < c->n; U++)
			if (sol[U] > 0.5)
				sc_cov_toggle(c, U, true);
}

/* Adds CBC's saved solutions that are columns the master lacks
 * (sc_cov_offer), then leaves its best solution in the set under growth
 * for the caller; false when out of memory. */
static bool take_solutions(sc_cov *c, Cbc_Model *cm, double C)
{
	for (int q = 0; q < Cbc_numberSavedSolutions(cm); q++) {
		load(c, Cbc_savedSolution(cm, q));
		if (sc_cov_offer(c, C) < 0)
			return false;
	}
	load(c, Cbc_bestSolution(cm));
	return true;
}

/* Exact pricing with CBC: max pi(S) over sets with cost <= C (memory under
 * a hard limit).  *P gets CBC's proven bound on the maximum (valid even
 * when stopped by the time limit), a hair above; the best set found is
 * left in the set under growth.  Returns false when CBC fails. */
bool sc_cov_price_mip(sc_cov *c, double C, double seconds, double *P)
{
	Cbc_Model *cm = pricing_model(c, false, C, 0, C > 0 ? C : 1);
	if (!cm)
		return false;
	Cbc_setMaximumSeconds(cm, seconds > 0.05 ? seconds : 0.05);
	Cbc_solve(cm);
	double bound = -Cbc_getBestPossibleObjValue(cm);
	bool ok = take_solutions(c, cm, C);
	Cbc_deleteModel(cm);
	if (!ok)
		return false;
	if (!isfinite(bound)) {
		double s = 0;
		for (int U = 0; U < c->n; U++)
			s += c->pi[U];
		bound = s; /* no set at all: the trivial bound */
	}
	/* CBC's tolerances (integrality 1e-6 on each s) */
	*P = bound * (1 + 1e-6) + 1e-9;
	return true;
}

bool sc_cov_jump_mip(sc_cov *c, double T, double C, double seconds, double *J)
{
	Cbc_Model *cm = pricing_model(c, true, 0, T, C > 0 ? C : 1);
	if (!cm)
		return false;
	Cbc_setMaximumSeconds(cm, seconds > 0.05 ? seconds : 0.05);
	Cbc_solve(cm);
	double bound = Cbc_getBestPossibleObjValue(cm);
	/* a stop by the time limit is not a proof of infeasibility */
	bool infeasible = !Cbc_isSecondsLimitReached(cm) && Cbc_isProvenInfeasible(cm);
	bool ok = take_solutions(c, cm, C);
	Cbc_deleteModel(cm);
	if (!ok)
		return false;
	if (infeasible)
		*J = INFINITY; /* no set reaches T */
	else
		/* CBC's tolerances, and the scaling; a bound over 1e20 (in
		 * scaled units) is CBC's "none yet" (a stop before the root) */
		*J = isfinite(bound) && bound > 0 && bound < 1e20
		             ? bound * (C > 0 ? C : 1) * (1 - 1e-6)
		             : 0;
	return true;
}
