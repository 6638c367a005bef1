/*
 * calibrate.c - the coordinate descent of calibrate.h.
 *
 * The samples are bucketed by kind once; a kind's number is judged by the
 * error of its kind's ops alone (the others' do not change), a shared
 * number (strided_eff, the cache) by the error of every op.  Each number
 * has a seed, the value its factors start from when it is 0 (an overhead
 * 1 us; halves 256, 32, 64 rows, columns, depth; a cache of 25 MB), so a
 * pure roofline (overhead 0, halves 0, no cache) can be fitted as well as
 * a calibrated profile.
 */
#include "calibrate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void sc_calib_params_init(sc_calib_params *p)
{
	*p = (sc_calib_params){.power = 0.5, .l2 = false, .rounds = 500};
}

/* the samples, by kind: idx[start[k] .. start[k + 1]) are kind k's */
typedef struct fit_state {
	const sc_calib_sample *s;
	const sc_calib_params *p;
	int *idx;
	int start[SC_OPK_N + 1];
	double *weight; /* per sample, t^power */
	double wsum;
} fit_state;

static double sample_error(const fit_state *F, const sc_device *d, int i)
{
	double r = log(sc_device_op_time(d, F->s[i].prec, &F->s[i].size) / F->s[i].measured);
	return F->weight[i] * (F->p->l2 ? r * r : fabs(r));
}

/* the weighted error summed over kind k's samples (k < 0: every kind) */
static double error_of(const fit_state *F, const sc_device *d, int k)
{
	int from = k < 0 ? 0 : F->start[k], to = k < 0 ? F->start[SC_OPK_N] : F->start[k + 1];
	double sum = 0;
	for (int j = from; j < to; j++)
		sum += sample_error(F, d, F->idx[j]);
	return sum;
}

/* one number the fit moves */
typedef struct param {
	double *at;
	int kind;    /* the kind whose ops it changes; -1: every kind */
	bool eff;    /* a fraction in (0, 1] */
	double seed; /* where its factors start from when it is 0 */
} param;

static int add_kind_params(sc_device *d, int k, param *ps, int np)
{
	static const double half_seed[3] = {256, 32, 64};
	ps[np++] = (param){&d->overhead_us[k], k, false, 1};
	if (k == SC_OPK_VIEW)
		return np;
	ps[np++] = (param){&d->mem_eff[k], k, true, 1};
	bool gemm = k == SC_OPK_CONV || k == SC_OPK_DWCONV || k == SC_OPK_MATMUL;
	if (gemm || k == SC_OPK_ELEMENTWISE || k == SC_OPK_NORM)
		ps[np++] = (param){&d->compute_eff[k], k, true, 1};
	if (gemm) {
		double *halves[3] = {&d->half_m[k], &d->half_n[k], &d->half_k[k]};
		for (int i = 0; i < 3; i++)
			ps[np++] = (param){halves[i], k, false, half_seed[i]};
	}
	return np;
}

/* moves each number by each factor while the error falls; returns the
 * rounds run */
static int descend(const fit_state *F, sc_device *d, param *ps, int np)
{
	static const double steps[] = {0.25, 0.5, 0.8, 0.9, 0.97, 1.03, 1.1, 1.25, 2, 4};
	const int nsteps = (int)(sizeof steps / sizeof *steps);
	double kerr[SC_OPK_N];
	for (int k = 0; k < SC_OPK_N; k++)
		kerr[k] = error_of(F, d, k);
	int round = 0;
	while (round < F->p->rounds) {
		round++;
		bool better = false;
		for (int i = 0; i < np; i++) {
			param *q = &ps[i];
			double best = 0;
			for (int k = 0; k < SC_OPK_N; k++)
				if (q->kind < 0 || q->kind == k)
					best += kerr[k];
			/* the factors, and 0 for a number that may be 0 */
			for (int s = 0; s <= nsteps; s++) {
				if (s == nsteps && (q->eff || *q->at == 0))
					continue;
				double old = *q->at;
				double nv = s == nsteps ? 0 : (old > 0 ? old : q->seed) * steps[s];
				if (q->eff && nv > 1)
					nv = 1;
				if (nv == old)
					continue;
				*q->at = nv;
				double e =
				        q->kind < 0 ? error_of(F, d, -1) : error_of(F, d, q->kind);
				if (e < best - 1e-12 * (1 + best)) {
					best = e;
					better = true;
					for (int k = 0; k < SC_OPK_N; k++)
						if (q->kind < 0 || q->kind == k)
							kerr[k] = error_of(F, d, k);
				} else {
					*q->at = old;
				}
			}
		}
		if (!better)
			break;
	}
	return round;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

sc_status sc_calibrate_stats(const sc_device *d, const sc_calib_sample *s, int n, int k,
                             sc_calib_stats *out, sc_error *err)
{
	double *r = malloc((size_t)(n > 0 ? n : 1) * sizeof *r);
	if (!r)
		return sc_error_nomem(err, "the ratios of a calibration");
	int m = 0;
	double worst = NAN;
	for (int i = 0; i < n; i++)
		if (k < 0 || (int)s[i].size.kind == k) {
			r[m] = sc_device_op_time(d, s[i].prec, &s[i].size) / s[i].measured;
			if (m == 0 || fabs(log(r[m])) > fabs(log(worst)))
				worst = r[m];
			m++;
		}
	qsort(r, (size_t)m, sizeof *r, cmp_double);
	out->median = m == 0 ? NAN : m % 2 ? r[m / 2] : (r[m / 2 - 1] + r[m / 2]) / 2;
	out->worst = worst;
	free(r);
	return SC_OK;
}

/* the stats of every kind and of all samples under d */
static sc_status all_stats(const sc_device *d, const sc_calib_sample *s, int n,
                           sc_calib_stats *by_kind, sc_calib_stats *all, sc_error *err)
{
	sc_status st = sc_calibrate_stats(d, s, n, -1, all, err);
	for (int k = 0; st == SC_OK && k < SC_OPK_N; k++)
		st = sc_calibrate_stats(d, s, n, k, &by_kind[k], err);
	return st;
}

static sc_status check_samples(const sc_device *d, const sc_calib_sample *s, int n, sc_error *err)
{
	if (n < 0)
		return sc_error_set(err, SC_ERR_INPUT, "calibrate: a negative count of ops (%d)",
		                    n);
	for (int i = 0; i < n; i++) {
		const sc_calib_sample *x = &s[i];
		if (!isfinite(x->measured) || x->measured <= 0)
			return sc_error_set(
			        err, SC_ERR_INPUT,
			        "calibrate: op %d: measured time %g is not a number > 0", i + 1,
			        x->measured);
		if ((int)x->size.kind < 0 || x->size.kind >= SC_OPK_N || (int)x->prec < 0 ||
		    x->prec >= SC_PREC_N)
			return sc_error_set(err, SC_ERR_INPUT,
			                    "calibrate: op %d: kind or precision out of range",
			                    i + 1);
		if (d->peak[x->prec] <= 0)
			return sc_error_set(err, SC_ERR_INPUT,
			                    "calibrate: op %d ran at %s, a precision device %s has "
			                    "no rate for",
			                    i + 1, sc_precision_name(x->prec), d->name);
		if (!(x->size.flops >= 0 && x->size.bytes >= 0 && x->size.m >= 0 &&
		      x->size.n >= 0 && x->size.k >= 0))
			return sc_error_set(
			        err, SC_ERR_INPUT,
			        "calibrate: op %d: its FLOPs, bytes or GEMM sizes are not "
			        "numbers >= 0",
			        i + 1);
	}
	return SC_OK;
}

sc_status sc_calibrate_fit(sc_device *d, const sc_calib_sample *s, int n, const sc_calib_params *p,
                           sc_calib_result *res, sc_error *err)
{
	sc_calib_params defaults;
	if (!p) {
		sc_calib_params_init(&defaults);
		p = &defaults;
	}
	memset(res, 0, sizeof *res);
	sc_status st = check_samples(d, s, n, err);
	if (st != SC_OK)
		return st;
	fit_state F = {.s = s, .p = p};
	F.idx = malloc((size_t)(n > 0 ? n : 1) * sizeof *F.idx);
	F.weight = malloc((size_t)(n > 0 ? n : 1) * sizeof *F.weight);
	if (!F.idx || !F.weight) {
		free(F.idx);
		free(F.weight);
		return sc_error_nomem(err, "a calibration's samples");
	}
	bool strided = false;
	for (int i = 0; i < n; i++) {
		res->kind_ops[s[i].size.kind]++;
		strided |= s[i].size.strided;
		F.weight[i] = pow(s[i].measured, p->power);
		F.wsum += F.weight[i];
	}
	for (int k = 0; k < SC_OPK_N; k++)
		F.start[k + 1] = F.start[k] + res->kind_ops[k];
	int fill[SC_OPK_N];
	memcpy(fill, F.start, sizeof fill);
	for (int i = 0; i < n; i++)
		F.idx[fill[s[i].size.kind]++] = i;
	res->ops = n;
	st = all_stats(d, s, n, res->before, &res->all_before, err);
	if (st == SC_OK && n > 0) {
		res->loss_before = error_of(&F, d, -1) / F.wsum;
		param ps[6 * SC_OPK_N + 3];
		int np = 0;
		for (int k = 0; k < SC_OPK_N; k++)
			if (res->kind_ops[k] > 0)
				np = add_kind_params(d, k, ps, np);
		if (strided && (res->kind_ops[SC_OPK_CONV] || res->kind_ops[SC_OPK_DWCONV])) {
			if (d->strided_eff <= 0)
				d->strided_eff = 1; /* 0 means none: the same times */
			ps[np++] = (param){&d->strided_eff, -1, true, 1};
		}
		/* a cache needs a bandwidth to matter; giving it one while it is
		 * 0 bytes changes no time */
		if (d->cache <= 0 || d->cache_bandwidth <= 0) {
			d->cache = 0;
			d->cache_bandwidth = 2 * d->mem_bandwidth;
		}
		ps[np++] = (param){&d->cache, -1, false, 25e6};
		ps[np++] = (param){&d->cache_bandwidth, -1, false, 2 * d->mem_bandwidth};
		res->rounds = descend(&F, d, ps, np);
		res->loss_after = error_of(&F, d, -1) / F.wsum;
		st = all_stats(d, s, n, res->after, &res->all_after, err);
	} else if (st == SC_OK) {
		memcpy(res->after, res->before, sizeof res->after);
		res->all_after = res->all_before;
	}
	free(F.idx);
	free(F.weight);
	return st;
}
