/*
 * cover_set.c - the cover rung's set under growth and its columns.  See
 * cover_set.h.
 */
#include "cover_set.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool crosses(const sc_cov *c, int i)
{
	int d = c->t.cons_off[i + 1] - c->t.cons_off[i];
	return c->in[c->t.src[i]] ? c->cin[i] < d : c->cin[i] > 0;
}

double sc_cov_cost(const sc_cov *c)
{
	double f = c->work + c->io;
	if (c->over && c->param > c->M)
		f += (c->param - c->M) / c->B;
	return f;
}

bool sc_cov_fits(const sc_cov *c)
{
	return !c->hard || c->param <= c->M * (1 + 1e-12);
}

/* Adds (add) or removes unit X, keeping work, param and io. */
void sc_cov_toggle(sc_cov *c, int X, bool add)
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

void sc_cov_clear(sc_cov *c)
{
	while (c->nmem > 0)
		sc_cov_toggle(c, c->members[c->nmem - 1], false);
	c->work = c->param = c->io = 0;
}

void sc_cov_free(sc_cov *c)
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

bool sc_cov_init(sc_cov *c, const sc_units *u, const sc_settings *set)
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
bool sc_cov_add_column(sc_cov *c)
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
		sc_cov_column *q = realloc(c->cols, (size_t)cap * sizeof *q);
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
	c->cols[c->ncols++] = (sc_cov_column){c->cu_n, len, sc_cov_cost(c), h};
	c->cu_n += len;
	return true;
}

int sc_cov_offer(sc_cov *c, double C)
{
	double v = 0;
	for (int j = 0; j < c->nmem; j++)
		v += c->pi[c->members[j]];
	if (c->nmem == 0 || v <= 1 + SC_COV_PRICE_EPS || sc_cov_cost(c) > C * (1 + 1e-9) ||
	    !sc_cov_fits(c))
		return 0;
	int before = c->ncols;
	if (!sc_cov_add_column(c))
		return -1;
	return c->ncols > before;
}
