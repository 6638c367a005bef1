/*
 * mip_model.c - the formulation of the MIP rungs.  See mip_model.h (and
 * mip.c's opening comment for the notation); mip.c solves what this builds.
 *
 * Longer than 600 lines: the row builder every model uses (columns, rows
 * term by term) and the one model it serves first, split into its steps
 * (windows, columns, and each block's cut, memory and cost rows).
 */
#include "mip_model.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define COIN_DBL_MAX_LOCAL DBL_MAX /* CBC's infinity */

static bool grow(void **p, int *cap, int need, size_t size)
{
	if (need <= *cap)
		return true;
	int c = *cap ? *cap : 64;
	while (c < need)
		c *= 2;
	void *q = realloc(*p, (size_t)c * size);
	if (!q)
		return false;
	*p = q;
	*cap = c;
	return true;
}

int sc_mip_col(sc_mip_model *m, double lo, double up, double obj, bool integer)
{
	if (m->ncols + 1 > m->colcap) {
		int cap = m->colcap, cap2 = m->colcap, cap3 = m->colcap, cap4 = m->colcap;
		if (!grow((void **)&m->clo, &cap, m->ncols + 1, sizeof(double)) ||
		    !grow((void **)&m->cup, &cap2, m->ncols + 1, sizeof(double)) ||
		    !grow((void **)&m->cobj, &cap3, m->ncols + 1, sizeof(double)) ||
		    !grow((void **)&m->cint, &cap4, m->ncols + 1, sizeof(char))) {
			m->nomem = true;
			return 0;
		}
		m->colcap = cap;
	}
	m->clo[m->ncols] = lo;
	m->cup[m->ncols] = up;
	m->cobj[m->ncols] = obj;
	m->cint[m->ncols] = integer;
	return m->ncols++;
}

void sc_mip_row_begin(sc_mip_model *m)
{
	m->tn = 0;
	m->tconst = 0;
}

void sc_mip_row_add(sc_mip_model *m, int col, double coef)
{
	if (coef == 0)
		return;
	int cap = m->tcap, cap2 = m->tcap;
	if (m->tn + 1 > m->tcap) {
		if (!grow((void **)&m->tcol, &cap, m->tn + 1, sizeof(int)) ||
		    !grow((void **)&m->tval, &cap2, m->tn + 1, sizeof(double))) {
			m->nomem = true;
			return;
		}
		m->tcap = cap;
	}
	m->tcol[m->tn] = col;
	m->tval[m->tn] = coef;
	m->tn++;
}

void sc_mip_row_y(sc_mip_model *m, int U, int b, double coef)
{
	if (b < 0 || b < m->lo[U])
		return;
	if (b >= m->hi[U] || b >= m->K - 1) {
		m->tconst += coef;
		return;
	}
	sc_mip_row_add(m, m->ycol[U * m->K + b], coef);
}

void sc_mip_row_x(sc_mip_model *m, int U, int b, double coef)
{
	sc_mip_row_y(m, U, b, coef);
	sc_mip_row_y(m, U, b - 1, -coef);
}

void sc_mip_row_const(sc_mip_model *m, double v)
{
	m->tconst += v;
}

void sc_mip_row_end(sc_mip_model *m, double lo, double up)
{
	const double tol = 1e-9;
	if (m->tn == 0) {
		if (m->tconst < lo - tol || m->tconst > up + tol)
			m->infeasible = true;
		return;
	}
	sc_mip_rows *r = &m->r;
	int cap = r->cap, cap2 = r->cap, cap3 = r->cap;
	int nzcap = r->nzcap, nzcap2 = r->nzcap;
	if (!grow((void **)&r->lo, &cap, r->n + 1, sizeof(double)) ||
	    !grow((void **)&r->up, &cap2, r->n + 1, sizeof(double)) ||
	    !grow((void **)&r->start, &cap3, r->n + 2, sizeof(int)) ||
	    !grow((void **)&r->col, &nzcap, r->nz + m->tn, sizeof(int)) ||
	    !grow((void **)&r->val, &nzcap2, r->nz + m->tn, sizeof(double))) {
		m->nomem = true;
		return;
	}
	r->cap = cap < cap3 ? cap : cap3;
	r->nzcap = nzcap;
	if (r->n == 0)
		r->start[0] = 0;
	memcpy(r->col + r->nz, m->tcol, (size_t)m->tn * sizeof(int));
	memcpy(r->val + r->nz, m->tval, (size_t)m->tn * sizeof(double));
	r->nz += m->tn;
	r->lo[r->n] = isinf(lo) ? -COIN_DBL_MAX_LOCAL : lo - m->tconst;
	r->up[r->n] = isinf(up) ? COIN_DBL_MAX_LOCAL : up - m->tconst;
	r->n++;
	r->start[r->n] = r->nz;
}

static int by_col(const void *a, const void *b)
{
	const int *x = a, *y = b;
	return (*x > *y) - (*x < *y);
}

void sc_mip_row_merge(sc_mip_model *m)
{
	if (m->tn < 2)
		return;
	/* pairs (column, index) sorted by column, then summed in place */
	int *pair = malloc((size_t)m->tn * 2 * sizeof *pair);
	double *val = malloc((size_t)m->tn * sizeof *val);
	if (!pair || !val) {
		free(pair);
		free(val);
		m->nomem = true;
		return;
	}
	for (int i = 0; i < m->tn; i++) {
		pair[2 * i] = m->tcol[i];
		pair[2 * i + 1] = i;
		val[i] = m->tval[i];
	}
	qsort(pair, (size_t)m->tn, 2 * sizeof *pair, by_col);
	int n = 0;
	for (int i = 0; i < m->tn; i++) {
		int c = pair[2 * i];
		double v = val[pair[2 * i + 1]];
		if (n > 0 && m->tcol[n - 1] == c) {
			m->tval[n - 1] += v;
		} else {
			m->tcol[n] = c;
			m->tval[n++] = v;
		}
	}
	/* terms that cancelled out */
	int kept = 0;
	for (int i = 0; i < n; i++)
		if (m->tval[i] != 0) {
			m->tcol[kept] = m->tcol[i];
			m->tval[kept++] = m->tval[i];
		}
	m->tn = kept;
	free(pair);
	free(val);
}

void sc_mip_model_free(sc_mip_model *m)
{
	free(m->dcol);
	free(m->lo);
	free(m->hi);
	free(m->ycol);
	free(m->clo);
	free(m->cup);
	free(m->cobj);
	free(m->cint);
	free(m->r.lo);
	free(m->r.up);
	free(m->r.start);
	free(m->r.col);
	free(m->r.val);
	free(m->tcol);
	free(m->tval);
}

void sc_mip_tensors_free(sc_mip_tensors *t)
{
	free(t->src);
	free(t->size);
	free(t->cons_off);
	free(t->cons);
	free(t->order);
	free(t->bw);
}

bool sc_mip_tensors_build(const sc_graph *g, const sc_units *u, double per_byte, sc_mip_tensors *t)
{
	memset(t, 0, sizeof *t);
	t->src = malloc((size_t)g->n * sizeof(int));
	t->size = malloc((size_t)g->n * sizeof(double));
	t->cons_off = malloc(((size_t)g->n + 1) * sizeof(int));
	t->cons = malloc(((size_t)g->m + 1) * sizeof(int));
	t->order = malloc(((size_t)g->m + 1) * sizeof(unsigned char));
	t->bw = malloc(((size_t)g->n + 1) * sizeof(bool));
	int *mark = malloc((size_t)u->n * sizeof(int));
	int *slot = malloc((size_t)u->n * sizeof(int));
	if (!t->src || !t->size || !t->cons_off || !t->cons || !t->order || !t->bw || !mark ||
	    !slot) {
		free(slot);
		free(mark);
		sc_mip_tensors_free(t);
		memset(t, 0, sizeof *t); /* empty, as mip_model.h promises */
		return false;
	}
	for (int i = 0; i < u->n; i++)
		mark[i] = -1;
	int nc = 0;
	t->cons_off[0] = 0;
	for (int v = 0; v < g->n; v++) {
		int U = u->unit_of[v], first = nc;
		for (int e = g->succ_off[v]; e < g->succ_off[v + 1]; e++) {
			int w = g->succ[e], V = u->unit_of[w];
			if (V == U)
				continue;
			/* the edge's rule fixes the order of U and V (the units
			 * share their ops' stages); several edges may say more */
			sc_edge_rule rule = sc_graph_edge_rule(g, v, w);
			unsigned char bit = rule == SC_RULE_FORWARD  ? SC_MIP_SRC_FIRST
			                    : rule == SC_RULE_MIRROR ? SC_MIP_SRC_LAST
			                                             : 0;
			if (mark[V] == v) {
				t->order[slot[V]] |= bit;
				continue;
			}
			mark[V] = v;
			slot[V] = nc;
			t->order[nc] = bit;
			t->cons[nc++] = V;
		}
		if (nc == first || g->out[v] <= 0) {
			nc = first;
			continue;
		}
		t->src[t->n] = U;
		t->size[t->n] = g->out[v] * per_byte;
		t->bw[t->n] = g->backward && g->backward[v];
		t->n++;
		t->cons_off[t->n] = nc;
	}
	free(mark);
	free(slot);
	return true;
}

double *sc_mip_reach_work(const sc_units *u, const double *weight, bool down)
{
	int n = u->n;
	double *w = malloc((size_t)n * sizeof(double));
	if (!w)
		return NULL;
	const int *off = down ? u->succ_off : u->pred_off;
	const int *adj = down ? u->succ : u->pred;
	if (n <= 8192) {
		size_t words = ((size_t)n + 63) / 64;
		uint64_t *bits = calloc((size_t)n * words, sizeof(uint64_t));
		if (bits) {
			for (int i = 0; i < n; i++) {
				int U = down ? u->topo[n - 1 - i] : u->topo[i];
				uint64_t *row = bits + (size_t)U * words;
				row[U / 64] |= UINT64_C(1) << (U % 64);
				for (int e = off[U]; e < off[U + 1]; e++) {
					const uint64_t *o = bits + (size_t)adj[e] * words;
					for (size_t q = 0; q < words; q++)
						row[q] |= o[q];
				}
				double s = 0;
				for (size_t q = 0; q < words; q++)
					for (uint64_t x = row[q]; x; x &= x - 1)
						s += weight[q * 64 + (size_t)__builtin_ctzll(x)];
				w[U] = s;
			}
			free(bits);
			return w;
		}
	}
	for (int i = 0; i < n; i++) {
		int U = down ? u->topo[n - 1 - i] : u->topo[i];
		double best = 0;
		for (int e = off[U]; e < off[U + 1]; e++)
			if (w[adj[e]] > best)
				best = w[adj[e]];
		w[U] = best + weight[U];
	}
	return w;
}

/* The backward part of each unit's work (its backward ops'), for the
 * GPipe split; NULL when out of memory. */
static double *unit_work_bw(const sc_units *u)
{
	const sc_graph *g = u->g;
	double *w = calloc((size_t)(u->n > 0 ? u->n : 1), sizeof(double));
	if (!w)
		return NULL;
	for (int U = 0; U < u->n; U++)
		for (int i = u->ops_off[U]; i < u->ops_off[U + 1]; i++)
			if (g->backward && g->backward[u->ops[i]])
				w[U] += g->work[u->ops[i]];
	return w;
}

/* GPipe: the columns F and Bw, each stage's forward and backward cost
 * (000 Figure 3's z split in two), with z >= F + Bw.  Each starts at the
 * simple bound of its pass (000 Lemma 3.3 on that pass's work: the largest
 * unit's, and the pass's total over k), which any partition meets: its
 * largest forward cost is at least both, and so is its largest backward
 * cost.  A hair below, as z's bound (CBC's crunch, below). */
static void gpipe_columns(sc_mip_model *m, int k, const double *wbw, double scale, int zcol,
                          int *fcol, int *bcol)
{
	const sc_units *u = m->u;
	double tf = 0, tb = 0, mf = 0, mb = 0;
	for (int U = 0; U < u->n; U++) {
		double f = u->work[U] - wbw[U];
		tf += f;
		tb += wbw[U];
		mf = fmax(mf, f);
		mb = fmax(mb, wbw[U]);
	}
	double flo = fmax(mf, tf / k) / scale * (1 - 1e-9);
	double blo = fmax(mb, tb / k) / scale * (1 - 1e-9);
	*fcol = sc_mip_col(m, flo > 0 ? flo : 0, COIN_DBL_MAX_LOCAL, 0, false);
	*bcol = sc_mip_col(m, blo > 0 ? blo : 0, COIN_DBL_MAX_LOCAL, 0, false);
	sc_mip_row_begin(m);
	sc_mip_row_add(m, zcol, 1);
	sc_mip_row_add(m, *fcol, -1);
	sc_mip_row_add(m, *bcol, -1);
	sc_mip_row_end(m, 0, INFINITY);
}

bool sc_mip_narrow_windows(sc_mip_model *m, const double *weight, double upper)
{
	if (!isfinite(upper) || upper <= 0)
		return true;
	const sc_units *u = m->u;
	double *anc = sc_mip_reach_work(u, weight, false),
	       *desc = sc_mip_reach_work(u, weight, true);
	bool ok = anc && desc;
	double cap = upper * (1 + 1e-9) + 1e-12;
	for (int U = 0; ok && U < u->n; U++) {
		int before = (int)ceil(anc[U] / cap - 1e-12);
		int after = (int)ceil(desc[U] / cap - 1e-12);
		if (before > 1 && m->lo[U] < before - 1)
			m->lo[U] = before - 1;
		if (after > 1 && m->hi[U] > m->K - after)
			m->hi[U] = m->K - after;
		if (m->lo[U] > m->hi[U])
			m->infeasible = true;
	}
	free(anc);
	free(desc);
	return ok;
}

void sc_mip_y_columns(sc_mip_model *m)
{
	int K = m->K;
	for (int U = 0; U < m->u->n; U++)
		for (int b = 0; b < K; b++)
			m->ycol[U * K + b] = b >= m->lo[U] && b < m->hi[U] && b < K - 1
			                             ? sc_mip_col(m, 0, 1, 0, true)
			                             : -1;
}

void sc_mip_precedence(sc_mip_model *m)
{
	const sc_units *u = m->u;
	int K = m->K;
	for (int U = 0; U < u->n; U++) {
		for (int e = u->succ_off[U]; e < u->succ_off[U + 1]; e++) {
			int V = u->succ[e];
			for (int b = 0; b < K - 1; b++) {
				sc_mip_row_begin(m);
				sc_mip_row_y(m, U, b, 1);
				sc_mip_row_y(m, V, b, -1);
				sc_mip_row_end(m, 0, INFINITY);
			}
		}
		for (int b = 1; b < K - 1; b++) {
			sc_mip_row_begin(m);
			sc_mip_row_y(m, U, b, 1);
			sc_mip_row_y(m, U, b - 1, -1);
			sc_mip_row_end(m, 0, INFINITY);
		}
	}
}

/* What the steps of one build share (sc_mip_model_build): the rung, the
 * memory policy, the cost scale, and the columns every block's rows name. */
typedef struct build {
	sc_mip_model *m;
	const sc_mip_params *p;
	const sc_mip_tensors *t;
	bool exact, guess;
	bool gpipe; /* GPipe on a training graph: every cost row splits by pass */
	double B, M, scale, L, total_param;
	bool hard, over; /* the memory policy, with a finite limit */
	int zcol;        /* the objective z */
	double *wbw;     /* GPipe: each unit's backward work; else NULL */
	int fcol, bcol;  /* GPipe: the F and Bw columns; else -1 */
} build;

/* The windows: every unit in blocks 0..K-1, narrowed by the guess (the
 * guessed stage first or last) and, on the exact rung, by the upper bound;
 * pinned units (sc_settings.pin) are fixed by the exact rung, whose blocks
 * are the stages; the others are relaxations, valid as they are.  False
 * when out of memory. */
static bool set_windows(const build *bd)
{
	sc_mip_model *m = bd->m;
	const sc_units *u = m->u;
	const sc_mip_params *p = bd->p;
	int n = u->n, K = m->K, k = p->k;
	for (int U = 0; U < n; U++) {
		m->lo[U] = 0;
		m->hi[U] = K - 1;
	}
	if (bd->guess && p->guess == 1)
		for (int U = 0; U < n; U++)
			m->lo[U] = 1;
	if (bd->guess && p->guess == k)
		for (int U = 0; U < n; U++)
			m->hi[U] = 1;
	if (bd->exact && !sc_mip_narrow_windows(m, u->work, p->upper))
		return false;
	if (bd->exact && u->pin && K == k)
		for (int U = 0; U < n; U++) {
			if (u->pin[U] < 0)
				continue;
			if (m->lo[U] < u->pin[U])
				m->lo[U] = u->pin[U];
			if (m->hi[U] > u->pin[U])
				m->hi[U] = u->pin[U];
			if (m->lo[U] > m->hi[U])
				m->infeasible = true;
		}
	return true;
}

/* The columns before the blocks': z, then Y, then (GPipe) F and Bw with
 * their row.  False when out of memory. */
static bool first_columns(build *bd)
{
	sc_mip_model *m = bd->m;
	const sc_mip_params *p = bd->p;
	double scale = bd->scale;
	/* a hair below the given lower bound: CBC 2.10 (OsiClp's crunch) fails an
	 * assertion when z's bound is exactly the model's optimum, as when the
	 * guess solves get the bottleneck rung's value and it is tight; the
	 * value reported is still at least p->lower (mip.c) */
	double zlo = p->lower > 0 ? p->lower * (1 - 1e-6) / scale : 0;
	if (!bd->guess && p->rung != SC_RUNG_BOTTLENECK && bd->L / scale > zlo)
		zlo = bd->L / scale;
	double zup = isfinite(p->upper) ? p->upper * (1 + 1e-9) / scale : COIN_DBL_MAX_LOCAL;
	if (zup < zlo)
		zup = zlo;
	bd->zcol = sc_mip_col(m, zlo, zup, 1, false);
	sc_mip_y_columns(m);
	/* When the windows fix every y the model is an LP, which Cbc_solve
	 * hands to Clp without keeping a best solution; one free binary
	 * column keeps it on the MIP path. */
	bool any = false;
	for (int c = 0; c < m->ncols; c++)
		any = any || m->cint[c];
	if (!any)
		sc_mip_col(m, 0, 1, 0, true);
	if (bd->gpipe) {
		bd->wbw = unit_work_bw(m->u);
		if (!bd->wbw)
			return false;
		gpipe_columns(m, p->k, bd->wbw, scale, bd->zcol, &bd->fcol, &bd->bcol);
	}
	return !m->nomem;
}

/* How many stages block b stands for: 1 on the exact rung, the stages
 * before and after the guessed one around the guess, and on the
 * bottleneck rung only the middle block's (0 for a block not bounded). */
static double block_stages(const build *bd, int b)
{
	const sc_mip_params *p = bd->p;
	double stages = 1;
	if (bd->guess && b == 0)
		stages = p->guess - 1;
	if (bd->guess && b == 2)
		stages = p->k - p->guess;
	if (!bd->exact && !bd->guess && b != 1)
		stages = 0;
	return stages;
}

/* The cut variables of block b, one per tensor, and their defining rows;
 * returns the first one's column. */
static int cut_rows(const build *bd, int b)
{
	sc_mip_model *m = bd->m;
	const sc_mip_tensors *t = bd->t;
	int K = m->K;
	int cbase = m->ncols;
	for (int i = 0; i < t->n; i++)
		sc_mip_col(m, 0, 1, 0, false);
	for (int i = 0; i < t->n; i++) {
		int U = t->src[i], c = cbase + i;
		for (int e = t->cons_off[i]; e < t->cons_off[i + 1]; e++) {
			int V = t->cons[e];
			/* c >= x(V,b) - x(U,b) says "into b" (V in b, U elsewhere),
			 * c >= x(U,b) - x(V,b) "out of b"; one c per tensor and
			 * block counts it once, as the cost model does, whichever
			 * way it flows.  With the DAG rows they are tighter than
			 * 000's (9) and (10).  A row the order makes void is left
			 * out: when U precedes V (every inference tensor) nothing
			 * flows into block 0 or out of the last block; when V
			 * precedes U (a mirrored edge), the reverse.  A free edge
			 * of a training graph needs both rows in every block. */
			bool first = t->order[e] & SC_MIP_SRC_FIRST;
			bool last = t->order[e] & SC_MIP_SRC_LAST;
			if (!(first && b == 0) && !(last && b == K - 1)) {
				sc_mip_row_begin(m);
				sc_mip_row_add(m, c, 1);
				sc_mip_row_x(m, U, b, 1);
				sc_mip_row_x(m, V, b, -1);
				sc_mip_row_end(m, 0, INFINITY);
			}
			if (!(first && b == K - 1) && !(last && b == 0)) {
				sc_mip_row_begin(m);
				sc_mip_row_add(m, c, 1);
				sc_mip_row_x(m, U, b, -1);
				sc_mip_row_x(m, V, b, 1);
				sc_mip_row_end(m, 0, INFINITY);
			}
		}
	}
	return cbase;
}

/* The memory rows of block b, standing for stages stages: under the
 * overflow policy a column for the parameter bytes over its capacity
 * (returned; -1 when none), under the hard one its capacity. */
static int memory_rows(const build *bd, int b, double stages)
{
	sc_mip_model *m = bd->m;
	const sc_units *u = m->u;
	double B = bd->B, M = bd->M, scale = bd->scale;
	double capb = stages * M;
	int ocol = -1;
	if (bd->over && bd->total_param > capb) {
		ocol = sc_mip_col(m, 0, COIN_DBL_MAX_LOCAL, 0, false);
		sc_mip_row_begin(m);
		sc_mip_row_add(m, ocol, 1);
		for (int U = 0; U < u->n; U++)
			sc_mip_row_x(m, U, b, -u->param[U] / B / scale);
		sc_mip_row_end(m, -capb / B / scale, INFINITY);
	}
	if (bd->hard && bd->total_param > capb) {
		sc_mip_row_begin(m);
		for (int U = 0; U < u->n; U++)
			sc_mip_row_x(m, U, b, u->param[U] / (M > 0 ? M : 1));
		sc_mip_row_end(m, -INFINITY, capb / (M > 0 ? M : 1));
	}
	return ocol;
}

/* The cost rows of block b (stages stages, cut columns from cbase, the
 * overflow column ocol or -1): stages * z >= work + cut tensors +
 * overflow.  GPipe: the same terms split by pass, which partitions them as
 * the cost model does (cost.h): stages * F >= forward work + cut tensors
 * of forward producers + overflow, stages * Bw >= backward work + cut
 * tensors of backward producers.  A superblock's part bounds the sum of
 * its stages' parts, so their average bounds the largest; with z >= F +
 * Bw, the exact model's optimum is the GPipe optimum, and the relaxations
 * bound it as they bound the bottleneck. */
static void cost_rows(const build *bd, int b, double stages, int cbase, int ocol)
{
	sc_mip_model *m = bd->m;
	const sc_units *u = m->u;
	const sc_mip_tensors *t = bd->t;
	const double *wbw = bd->wbw;
	double scale = bd->scale;
	if (!bd->gpipe) {
		sc_mip_row_begin(m);
		sc_mip_row_add(m, bd->zcol, stages);
		for (int U = 0; U < u->n; U++)
			sc_mip_row_x(m, U, b, -u->work[U] / scale);
		for (int i = 0; i < t->n; i++)
			sc_mip_row_add(m, cbase + i, -t->size[i]);
		if (ocol >= 0)
			sc_mip_row_add(m, ocol, -1);
		sc_mip_row_end(m, 0, INFINITY);
		return;
	}
	for (int pass = 0; pass < 2; pass++) {
		bool bwp = pass == 1;
		sc_mip_row_begin(m);
		sc_mip_row_add(m, bwp ? bd->bcol : bd->fcol, stages);
		for (int U = 0; U < u->n; U++)
			sc_mip_row_x(m, U, b, -(bwp ? wbw[U] : u->work[U] - wbw[U]) / scale);
		for (int i = 0; i < t->n; i++)
			if (t->bw[i] == bwp)
				sc_mip_row_add(m, cbase + i, -t->size[i]);
		if (ocol >= 0 && !bwp)
			sc_mip_row_add(m, ocol, -1);
		sc_mip_row_end(m, 0, INFINITY);
	}
}

/* The relaxations' rows on the middle block: (14), it does at least the
 * simple bound's work, and (bottleneck rung, hard memory) the other k - 1
 * stages hold the rest of the parameters. */
static void middle_rows(const build *bd)
{
	sc_mip_model *m = bd->m;
	const sc_units *u = m->u;
	double M = bd->M, scale = bd->scale;
	int k = bd->p->k;
	sc_mip_row_begin(m);
	for (int U = 0; U < u->n; U++)
		sc_mip_row_x(m, U, 1, u->work[U] / scale);
	sc_mip_row_end(m, bd->L / scale * (1 - 1e-9), INFINITY);
	if (!bd->guess && bd->hard && bd->total_param > (k - 1) * M) {
		sc_mip_row_begin(m);
		for (int U = 0; U < u->n; U++)
			sc_mip_row_x(m, U, 1, -u->param[U] / (M > 0 ? M : 1));
		sc_mip_row_end(m, -INFINITY, ((k - 1) * M - bd->total_param) / (M > 0 ? M : 1));
	}
}

bool sc_mip_model_build(sc_mip_model *m, const sc_settings *set, const sc_mip_params *p,
                        const sc_mip_tensors *t, double scale, double L, int *zcol)
{
	const sc_units *u = m->u;
	double M = set->memory;
	build bd = {
	        .m = m,
	        .p = p,
	        .t = t,
	        .exact = p->rung == SC_RUNG_EXACT,
	        .guess = p->rung == SC_RUNG_GUESS,
	        .gpipe = set->schedule == SC_SCHEDULE_GPIPE && sc_graph_is_training(u->g),
	        .B = set->bandwidth,
	        .M = M,
	        .scale = scale,
	        .L = L,
	        .hard = set->policy == SC_MEM_HARD && isfinite(M),
	        .over = set->policy == SC_MEM_OVERFLOW && isfinite(M),
	        .fcol = -1,
	        .bcol = -1,
	};
	for (int U = 0; U < u->n; U++)
		bd.total_param += u->param[U];
	if (!set_windows(&bd))
		return false;
	bool ok = first_columns(&bd);
	*zcol = bd.zcol;
	if (ok)
		for (int b = 0; b < m->K; b++) {
			double stages = block_stages(&bd, b);
			if (stages <= 0)
				continue;
			int cbase = cut_rows(&bd, b);
			int ocol = memory_rows(&bd, b, stages);
			cost_rows(&bd, b, stages, cbase, ocol);
		}
	free(bd.wbw);
	if (!ok)
		return false;
	if (!bd.exact)
		middle_rows(&bd);
	sc_mip_precedence(m);
	return !m->nomem;
}
