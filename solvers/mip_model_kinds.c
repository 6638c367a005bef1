/*
 * mip_model_kinds.c - the exact MIP rung on the devices of a fleet (fleet.h;
 * 001 section 3 for CPU stages).  See mip_model.h; the notation is mip.c's
 * (blocks b, Y(U, b), x(U, b) = Y(U, b) - Y(U, b-1), costs divided by
 * scale).
 *
 * K = the fleet's stages, each block a stage whose kind is a binary d(b, e)
 * per kind e with stages: sum_e d(b, e) = 1 and sum_b d(b, e) = count(e)
 * (stages may stay empty, so exactly count(e) stages of each kind lose
 * nothing).  A unit U in block b runs on b's kind: its share on kind e is
 * s(U, b, e), with sum_e s(U, b, e) = x(U, b) over the kinds that may run
 * every op of U and s(U, b, e) <= d(b, e).  On integral x and d the shares
 * are exact: the unit's whole share sits on the one kind its block has.
 * A unit one kind alone may run uses x itself as that share (x <= d); with
 * several, all shares but the last are columns, the last x minus theirs.
 *
 * Block b's cost row: z >= the work of its shares (each kind's op times),
 * plus its io and its overflow on the kind it has.  A tensor U -> V counts
 * into b on the link of class c (the kinds that pay io, grouped by link
 * bandwidth) when V's share on c is in b and U is not in b, out of b when
 * U's share on c is in b and V is not: a column per tensor, block and
 * class, charged at that class's link.  A CPU stage pays no io and has no
 * memory limit; every other kind's memory is a hard row or the overflow
 * column of its own memory and link.  When the kinds that pay io have one
 * link (sc_fleet_one_link) every stage's io is what cost.c charges and the
 * model's optimum is the optimum on the fleet; when they differ, cost.c
 * charges each transfer over the slower of its two links and the model
 * charges it over the stage's own, never more: its value is a lower bound
 * (as the exact DP's then, sc_dp_relaxed) and its partition proven only
 * when its true cost meets that bound.  Windows as without kinds, from each
 * unit's least time on a kind that may run it.  Pins are not modelled (a
 * relaxation: the ladder takes no partition from it then).  The
 * bottleneck only: under GPipe mip.c builds it as a lower bound on that
 * schedule's objective.
 */
#include "mip_model.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "core/fleet.h"
#include "core/mem.h"

#define INF_ROW INFINITY /* a row bound that is none (mip_model.c maps it to CBC's) */

typedef struct kinds_ctx {
	sc_mip_model *m;
	const sc_units *u;
	const sc_fleet *f;
	double scale;
	int nk;
	double *w;  /* unit U, kind e: w[U * nk + e], NAN where e may not run U */
	int *share; /* unit U, block b, kind e: its share column, -1 when 0 or x itself */
	int *last;  /* unit U: the kind whose share is x minus the others', -1: none */
	int *nok;   /* unit U: kinds that may run it */
	int nclass; /* link classes of the kinds that pay io */
	int cls[SC_KINDS_MAX];     /* kind e: its class, -1 for a CPU */
	double link[SC_KINDS_MAX]; /* class c: its bandwidth */
} kinds_ctx;

static bool unit_kinds(kinds_ctx *c)
{
	const sc_units *u = c->u;
	const sc_graph *g = u->g;
	int nk = c->nk;
	c->w = sc_malloc_n((size_t)u->n * (size_t)nk, sizeof *c->w);
	c->last = sc_malloc_n((size_t)u->n, sizeof *c->last);
	c->nok = sc_calloc_n((size_t)u->n, sizeof *c->nok);
	if (!c->w || !c->last || !c->nok)
		return false;
	for (int U = 0; U < u->n; U++) {
		c->last[U] = -1;
		for (int e = 0; e < nk; e++) {
			double t = sc_kind_time(&c->f->kind[e], g, u->ops + u->ops_off[U],
			                        u->ops_off[U + 1] - u->ops_off[U]);
			c->w[U * nk + e] = t;
			if (t == t) {
				c->nok[U]++;
				c->last[U] = e;
			}
		}
	}
	c->nclass = 0;
	for (int e = 0; e < nk; e++) {
		c->cls[e] = -1;
		if (c->f->kind[e].cpu)
			continue;
		for (int k = 0; k < c->nclass && c->cls[e] < 0; k++)
			if (c->link[k] == c->f->kind[e].bandwidth)
				c->cls[e] = k;
		if (c->cls[e] < 0) {
			c->link[c->nclass] = c->f->kind[e].bandwidth;
			c->cls[e] = c->nclass++;
		}
	}
	return true;
}

static bool may(const kinds_ctx *c, int U, int e)
{
	return c->w[U * c->nk + e] == c->w[U * c->nk + e];
}

/* Whether U may have a share in block b on a kind of link class k. */
static bool on_class(const kinds_ctx *c, int U, int b, int k)
{
	if (b < c->m->lo[U] || b > c->m->hi[U])
		return false;
	for (int e = 0; e < c->nk; e++)
		if (c->cls[e] == k && may(c, U, e))
			return true;
	return false;
}

/* Adds coef * s(U, b, e). */
static void add_share(kinds_ctx *c, int U, int b, int e, double coef)
{
	if (!may(c, U, e) || b < c->m->lo[U] || b > c->m->hi[U])
		return;
	if (c->nok[U] == 1) {
		sc_mip_row_x(c->m, U, b, coef);
		return;
	}
	size_t at = ((size_t)U * (size_t)c->m->K + (size_t)b) * (size_t)c->nk;
	if (e != c->last[U]) {
		sc_mip_row_add(c->m, c->share[at + (size_t)e], coef);
		return;
	}
	/* the last share: x minus the others */
	sc_mip_row_x(c->m, U, b, coef);
	for (int o = 0; o < c->nk; o++)
		if (o != e && may(c, U, o))
			sc_mip_row_add(c->m, c->share[at + (size_t)o], -coef);
}

/* Adds coef * d(b, e), the binary of stage b's kind being e; the first
 * kind's is 1 minus the others'. */
static void add_kind(sc_mip_model *m, int b, int e, double coef)
{
	if (e > 0) {
		sc_mip_row_add(m, m->dcol[b * m->nk + e], coef);
		return;
	}
	sc_mip_row_const(m, coef);
	for (int o = 1; o < m->nk; o++)
		sc_mip_row_add(m, m->dcol[b * m->nk + o], -coef);
}

/* The share columns and their rows: each share at most its block's kind,
 * at least x + d - 1 (tighter LP), and the last share at least 0. */
static void share_columns(kinds_ctx *c)
{
	sc_mip_model *m = c->m;
	const sc_units *u = c->u;
	int K = m->K, nk = c->nk;
	for (int U = 0; U < u->n; U++)
		for (int b = m->lo[U]; b <= m->hi[U]; b++) {
			size_t at = ((size_t)U * (size_t)K + (size_t)b) * (size_t)nk;
			for (int e = 0; e < nk; e++) {
				c->share[at + (size_t)e] = -1;
				if (c->nok[U] > 1 && may(c, U, e) && e != c->last[U])
					c->share[at + (size_t)e] = sc_mip_col(m, 0, 1, 0, false);
			}
			if (c->nok[U] > 1) {
				sc_mip_row_begin(m); /* the last share >= 0 */
				add_share(c, U, b, c->last[U], 1);
				sc_mip_row_end(m, 0, INF_ROW);
			}
			for (int e = 0; e < nk; e++) {
				if (!may(c, U, e) || nk == 1)
					continue;
				sc_mip_row_begin(m); /* s <= d */
				add_share(c, U, b, e, 1);
				add_kind(m, b, e, -1);
				sc_mip_row_merge(m);
				sc_mip_row_end(m, -INF_ROW, 0);
				if (c->nok[U] > 2) {
					/* s >= x + d - 1 (with two kinds the other's
					 * s <= d says as much) */
					sc_mip_row_begin(m);
					add_share(c, U, b, e, 1);
					sc_mip_row_x(m, U, b, -1);
					add_kind(m, b, e, -1);
					sc_mip_row_merge(m); /* the last share names x too */
					sc_mip_row_end(m, -1, INF_ROW);
				}
			}
		}
}

/* Adds coef * (U's share in b on the kinds of link class k). */
static void add_class(kinds_ctx *c, int U, int b, int k, double coef)
{
	for (int e = 0; e < c->nk; e++)
		if (c->cls[e] == k)
			add_share(c, U, b, e, coef);
}

/* Block b's cost row, with its cut columns and memory rows. */
static void block_row(kinds_ctx *c, const sc_settings *set, const sc_mip_tensors *t, int b,
                      int zcol)
{
	sc_mip_model *m = c->m;
	const sc_units *u = c->u;
	int n = u->n, K = m->K, nk = c->nk;
	double B0 = set->bandwidth, scale = c->scale;
	int cbase = m->ncols;
	for (int k = 0; k < c->nclass; k++)
		for (int i = 0; i < t->n; i++)
			sc_mip_col(m, 0, 1, 0, false);
	for (int k = 0; k < c->nclass; k++)
		for (int i = 0; i < t->n; i++) {
			int U = t->src[i], col = cbase + k * t->n + i;
			for (int e = t->cons_off[i]; e < t->cons_off[i + 1]; e++) {
				int V = t->cons[e];
				bool first = t->order[e] & SC_MIP_SRC_FIRST;
				bool last = t->order[e] & SC_MIP_SRC_LAST;
				if (!(first && b == 0) && !(last && b == K - 1) &&
				    on_class(c, V, b, k)) {
					sc_mip_row_begin(m); /* into b: cut >= s(V, b) - x(U, b) */
					sc_mip_row_add(m, col, 1);
					add_class(c, V, b, k, -1);
					sc_mip_row_x(m, U, b, 1);
					sc_mip_row_merge(m);
					sc_mip_row_end(m, 0, INF_ROW);
				}
				if (!(first && b == K - 1) && !(last && b == 0) &&
				    on_class(c, U, b, k)) {
					sc_mip_row_begin(
					        m); /* out of b: cut >= s(U, b) - x(V, b) */
					sc_mip_row_add(m, col, 1);
					add_class(c, U, b, k, -1);
					sc_mip_row_x(m, V, b, 1);
					sc_mip_row_merge(m);
					sc_mip_row_end(m, 0, INF_ROW);
				}
			}
		}
	int ocol[SC_KINDS_MAX];
	for (int e = 0; e < nk; e++) {
		const sc_kind *kd = &c->f->kind[e];
		ocol[e] = -1;
		double M = kd->memory, B = kd->bandwidth;
		if (kd->cpu || !isfinite(M))
			continue;
		double param = 0;
		for (int U = 0; U < n; U++)
			if (may(c, U, e) && b >= m->lo[U] && b <= m->hi[U])
				param += u->param[U];
		if (param <= M)
			continue;
		if (set->policy == SC_MEM_OVERFLOW) {
			ocol[e] = sc_mip_col(m, 0, DBL_MAX, 0, false);
			sc_mip_row_begin(m); /* ovf >= (param - M) / B on this kind */
			sc_mip_row_add(m, ocol[e], 1);
			for (int U = 0; U < n; U++)
				add_share(c, U, b, e, -u->param[U] / B / scale);
			sc_mip_row_merge(m);
			/* the share on e is 0 unless b has kind e: -M d / B */
			add_kind(m, b, e, M / B / scale);
			sc_mip_row_end(m, 0, INF_ROW);
		} else {
			sc_mip_row_begin(m); /* sum param s <= M */
			for (int U = 0; U < n; U++)
				add_share(c, U, b, e, u->param[U] / (M > 0 ? M : 1));
			sc_mip_row_merge(m);
			sc_mip_row_end(m, -INF_ROW, M / (M > 0 ? M : 1));
		}
	}
	sc_mip_row_begin(m);
	sc_mip_row_add(m, zcol, 1);
	for (int U = 0; U < n; U++)
		for (int e = 0; e < nk; e++)
			if (may(c, U, e))
				add_share(c, U, b, e, -c->w[U * nk + e] / scale);
	for (int k = 0; k < c->nclass; k++)
		for (int i = 0; i < t->n; i++)
			sc_mip_row_add(m, cbase + k * t->n + i, -t->size[i] * B0 / c->link[k]);
	for (int e = 0; e < nk; e++)
		if (ocol[e] >= 0)
			sc_mip_row_add(m, ocol[e], -1);
	sc_mip_row_merge(m);
	sc_mip_row_end(m, 0, INF_ROW);
}

/* The windows, from each unit's least time on a kind that may run it (any
 * stage holding the unit costs at least that): sc_mip_narrow_windows. */
static bool windows(sc_mip_model *m, const double *least, double upper)
{
	for (int U = 0; U < m->u->n; U++) {
		m->lo[U] = 0;
		m->hi[U] = m->K - 1;
	}
	return m->infeasible || sc_mip_narrow_windows(m, least, upper);
}

bool sc_mip_model_build_kinds(sc_mip_model *m, const sc_settings *set, const sc_mip_params *p,
                              const sc_fleet *f, const sc_mip_tensors *t, double scale, double L,
                              int *zcol)
{
	const sc_units *u = m->u;
	int n = u->n, K = m->K, nk = f->n;
	kinds_ctx c = {.m = m, .u = u, .f = f, .scale = scale, .nk = nk};
	bool ok = unit_kinds(&c);
	double *least = ok ? sc_malloc_n((size_t)n, sizeof *least) : NULL;
	c.share = ok ? sc_malloc_n((size_t)n * (size_t)K * (size_t)nk, sizeof *c.share) : NULL;
	m->nk = nk;
	m->dcol = ok ? sc_malloc_n((size_t)K * (size_t)nk, sizeof *m->dcol) : NULL;
	if (!least || !c.share || !m->dcol) {
		ok = false;
		goto out;
	}
	for (int U = 0; U < n; U++) {
		least[U] = INFINITY;
		for (int e = 0; e < nk; e++)
			if (may(&c, U, e))
				least[U] = fmin(least[U], c.w[U * nk + e]);
		if (c.nok[U] == 0)
			m->infeasible = true; /* no stage may hold it */
	}
	if (!windows(m, least, p->upper)) {
		ok = false;
		goto out;
	}
	double zlo = p->lower > 0 ? p->lower * (1 - 1e-6) / scale : 0;
	if (L / scale > zlo)
		zlo = L / scale;
	double zup = isfinite(p->upper) ? p->upper * (1 + 1e-9) / scale : DBL_MAX;
	if (zup < zlo)
		zup = zlo;
	*zcol = sc_mip_col(m, zlo, zup, 1, false);
	sc_mip_y_columns(m);
	/* a binary per stage and kind but the first, whose binary is 1 minus
	 * the others' (at most one of them 1): with a CPU beside the graph's
	 * device, one binary per stage */
	for (int b = 0; b < K; b++)
		for (int e = 0; e < nk; e++)
			m->dcol[b * nk + e] =
			        e == 0 ? -1
			               : sc_mip_col(m, 0, f->kind[e].count > 0 ? 1 : 0, 0, true);
	for (int b = 0; b < K && nk > 2; b++) {
		sc_mip_row_begin(m);
		for (int e = 1; e < nk; e++)
			sc_mip_row_add(m, m->dcol[b * nk + e], 1);
		sc_mip_row_end(m, -INF_ROW, 1);
	}
	/* count(e) stages of kind e (the first kind's count follows: the
	 * counts sum to K) */
	for (int e = 1; e < nk; e++) {
		sc_mip_row_begin(m);
		for (int b = 0; b < K; b++)
			sc_mip_row_add(m, m->dcol[b * nk + e], 1);
		sc_mip_row_end(m, f->kind[e].count, f->kind[e].count);
	}
	share_columns(&c);
	for (int b = 0; b < K && !m->nomem; b++)
		block_row(&c, set, t, b, *zcol);
	sc_mip_precedence(m);
	ok = !m->nomem;
out:
	free(least);
	free(c.w);
	free(c.share);
	free(c.last);
	free(c.nok);
	return ok;
}

/* The simple bounds over the units (mip_model.h): of the graph's device
 * alone, and of a fleet. */
double sc_mip_unit_simple_bound(const sc_units *u, int k)
{
	double total = 0, largest = 0;
	for (int U = 0; U < u->n; U++) {
		total += u->work[U];
		largest = fmax(largest, u->work[U]);
	}
	return fmax(largest, total / k);
}

double sc_mip_unit_simple_bound_kinds(const sc_units *u, const sc_fleet *f)
{
	double sum = 0, most = 0;
	for (int U = 0; U < u->n; U++) {
		double t = sc_fleet_least_time(f, u->g, u->ops + u->ops_off[U],
		                               u->ops_off[U + 1] - u->ops_off[U]);
		sum += t;
		most = fmax(most, t);
	}
	int K = sc_fleet_stages(f);
	return fmax(most, sum / (K > 0 ? K : 1));
}
