/*
 * fold.c - the levels and columns of the full picture.  See fold.h.
 *
 * The level of an op is its stage's first level plus its depth inside the
 * stage (the longest path to it through ops of its own stage), so each
 * stage is a band of levels as tall as its own longest path, and the bands
 * follow the stage order.  Edges inside a stage go down at least one level;
 * edges from an earlier stage to a later one go down too; only the edges a
 * training graph's backward pass sends to earlier stages go up.
 */
#include "fold.h"

#include <math.h>
#include <stdlib.h>

#include "core/mem.h"

sc_fold *sc_fold_new(const sc_graph *g, const int *stage, int k, bool skip_empty, const int *box,
                     sc_error *err)
{
	sc_fold *f = calloc(1, sizeof *f);
	int *depth = NULL, *height = NULL, *count = NULL;
	bool *seen = NULL;
	if (!f)
		goto nomem;
	f->n = g->n;
	f->k = k;
	f->columns = 1;
	f->level = sc_calloc_n((size_t)g->n, sizeof *f->level);
	f->stage_start = sc_calloc_n((size_t)k + 1, sizeof *f->stage_start);
	f->col_start = calloc(2, sizeof *f->col_start);
	depth = sc_calloc_n((size_t)g->n, sizeof *depth);
	height = sc_calloc_n((size_t)k, sizeof *height);
	if (!f->level || !f->stage_start || !f->col_start || !depth || !height)
		goto nomem;
	for (int i = 0; i < g->n; i++) {
		int v = g->topo[i], s = stage ? stage[v] : 0;
		for (int j = g->pred_off[v]; j < g->pred_off[v + 1]; j++) {
			int u = g->pred[j];
			/* one level per box passed through */
			int step = box && box[u] == box[v] ? 0 : 1;
			if ((stage ? stage[u] : 0) == s && depth[u] + step > depth[v])
				depth[v] = depth[u] + step;
		}
		if (depth[v] + 1 > height[s])
			height[s] = depth[v] + 1;
	}
	/* an op with no predecessor in its stage (a parameter, an input)
	 * goes just above its first successor there, as dot draws it, not on
	 * the stage's first level */
	for (int i = g->n - 1; i >= 0; i--) {
		int v = g->topo[i], s = stage ? stage[v] : 0, low = -1;
		bool source = true;
		for (int j = g->pred_off[v]; j < g->pred_off[v + 1] && source; j++)
			source = (stage ? stage[g->pred[j]] : 0) != s;
		for (int j = g->succ_off[v]; source && j < g->succ_off[v + 1]; j++) {
			int w = g->succ[j];
			int step = box && box[w] == box[v] ? 0 : 1;
			if ((stage ? stage[w] : 0) == s && (low < 0 || depth[w] - step < low))
				low = depth[w] - step;
		}
		if (source && low > depth[v])
			depth[v] = low;
	}
	for (int s = 0; s < k; s++)
		f->stage_start[s + 1] = f->stage_start[s] + (height[s] > 0 ? height[s]
		                                             : skip_empty  ? 0
		                                                           : 1);
	f->levels = f->stage_start[k];
	for (int v = 0; v < g->n; v++)
		f->level[v] = f->stage_start[stage ? stage[v] : 0] + depth[v];
	if (!(count = sc_calloc_n((size_t)f->levels + 1, sizeof *count)))
		goto nomem;
	/* a box counts once, on the level of its first op by index */
	if (box && !(seen = calloc((size_t)g->n + 1, 1)))
		goto nomem;
	for (int v = 0; v < g->n; v++) {
		if (box && seen[box[v]])
			continue;
		if (box)
			seen[box[v]] = true;
		if (++count[f->level[v]] > f->widest)
			f->widest = count[f->level[v]];
	}
	f->across = f->levels < f->widest;
	f->col_start[1] = f->levels;
	free(depth);
	free(height);
	free(count);
	free(seen);
	return f;
nomem:
	free(depth);
	free(height);
	free(count);
	free(seen);
	sc_fold_free(f);
	sc_error_nomem(err, "the picture's levels");
	return NULL;
}

int sc_fold_cut(sc_fold *f, int columns)
{
	int L = f->levels;
	if (columns > L)
		columns = L;
	if (columns < 1)
		columns = 1;
	int *cut = malloc(((size_t)columns + 1) * sizeof *cut);
	if (!cut)
		return f->columns; /* keep the fold as it was */
	int made = 0;
	cut[made++] = 0;
	double len = (double)L / columns;
	for (int c = 1; c < columns; c++) {
		int ideal = (int)lround(c * len), best = ideal, dist = -1;
		/* a cut at a stage boundary keeps the stage in one piece */
		for (int s = 1; s < f->k; s++) {
			int d = abs(f->stage_start[s] - ideal);
			if (d <= len / 4 && (dist < 0 || d < dist)) {
				best = f->stage_start[s];
				dist = d;
			}
		}
		if (best > cut[made - 1] && best < L)
			cut[made++] = best;
	}
	cut[made] = L;
	free(f->col_start);
	f->col_start = cut;
	f->columns = made;
	return made;
}

int sc_fold_column(const sc_fold *f, int l)
{
	int lo = 0, hi = f->columns - 1;
	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;
		if (f->col_start[mid] <= l)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

double sc_fold_aspect(const sc_fold *f, const double *across, const double *along,
                      const bool *starts_stage)
{
	double sum_across = 0, most_along = 0;
	for (int c = 0; c < f->columns; c++) {
		/* the column's head, and each stage's heading and divider */
		double wide = 0, len = 60;
		for (int l = f->col_start[c]; l < f->col_start[c + 1]; l++) {
			wide = fmax(wide, across[l]);
			len += along[l] + 25 + (starts_stage[l] ? 70 : 0);
		}
		sum_across += wide + 40;
		most_along = fmax(most_along, len);
	}
	most_along += 60; /* the caption */
	return f->across ? most_along / sum_across : sum_across / most_along;
}

int sc_fold_best(sc_fold *f, const double *across, const double *along, const bool *starts_stage,
                 double aim)
{
	int best = 1, most = f->levels < 400 ? f->levels : 400;
	double best_off = INFINITY;
	for (int c = 1; c <= most; c++) {
		if (sc_fold_cut(f, c) != c)
			continue;
		double off = fabs(log(sc_fold_aspect(f, across, along, starts_stage) / aim));
		if (off < best_off) {
			best_off = off;
			best = c;
		}
	}
	return sc_fold_cut(f, best);
}

double sc_fold_page_cost(int units, double share, int cut)
{
	double off = (units - share) / share;
	return cut + 8 * off * off;
}

int sc_fold_pages(const sc_fold *f, const int *count, const int *cross, int max_units, int **start)
{
	int L = f->levels;
	long total = 0;
	for (int l = 0; l < L; l++)
		total += count[l];
	/* the fewest pages, by filling each as far as it goes */
	int pages = 1;
	if (max_units > 0) {
		pages = 0;
		for (int l = 0; l < L; pages++) {
			int units = count[l++];
			while (l < L && units + count[l] <= max_units)
				units += count[l++];
		}
	}
	if (pages <= 1) {
		if (!(*start = malloc(2 * sizeof **start)))
			return -1;
		(*start)[0] = 0;
		(*start)[1] = L;
		return 1;
	}
	/* best[j][e]: the least cost of levels [0, e) on j pages, from[j][e]
	 * the start of the last of them; prefix sums give a page's units */
	size_t cells = (size_t)(pages + 1) * ((size_t)L + 1);
	double *best = malloc(cells * sizeof *best);
	int *from = malloc(cells * sizeof *from);
	long *sum = malloc(((size_t)L + 1) * sizeof *sum);
	*start = malloc(((size_t)pages + 1) * sizeof **start);
	if (!best || !from || !sum || !*start) {
		free(best);
		free(from);
		free(sum);
		free(*start);
		*start = NULL;
		return -1;
	}
	sum[0] = 0;
	for (int l = 0; l < L; l++)
		sum[l + 1] = sum[l] + count[l];
	double share = (double)total / pages;
#define AT(j, e) ((size_t)(j) * ((size_t)L + 1) + (size_t)(e))
	for (size_t i = 0; i < cells; i++)
		best[i] = INFINITY;
	best[AT(0, 0)] = 0;
	for (int j = 1; j <= pages; j++)
		for (int e = 1; e <= L; e++)
			for (int b = e - 1; b >= 0; b--) {
				long units = sum[e] - sum[b];
				if (units > max_units && b < e - 1)
					break;
				double c = best[AT(j - 1, b)];
				if (!isfinite(c))
					continue;
				c += sc_fold_page_cost((int)units, share, b > 0 ? cross[b] : 0);
				if (c < best[AT(j, e)]) {
					best[AT(j, e)] = c;
					from[AT(j, e)] = b;
				}
			}
	(*start)[pages] = L;
	for (int j = pages; j > 0; j--)
		(*start)[j - 1] = from[AT(j, (*start)[j])];
#undef AT
	free(best);
	free(from);
	free(sum);
	return pages;
}

sc_fold *sc_fold_window(const sc_fold *f, int lo, int hi, sc_error *err)
{
	sc_fold *w = calloc(1, sizeof *w);
	if (!w || !(w->level = sc_calloc_n((size_t)f->n + 1, sizeof *w->level)) ||
	    !(w->stage_start = sc_calloc_n((size_t)f->k + 1, sizeof *w->stage_start)) ||
	    !(w->col_start = calloc(2, sizeof *w->col_start))) {
		sc_fold_free(w);
		sc_error_nomem(err, "the picture's levels");
		return NULL;
	}
	w->n = f->n;
	w->k = f->k;
	w->levels = hi - lo;
	w->columns = 1;
	w->col_start[1] = w->levels;
	w->across = f->across;
	w->widest = f->widest;
	for (int v = 0; v < f->n; v++)
		w->level[v] = f->level[v] >= lo && f->level[v] < hi ? f->level[v] - lo : -1;
	for (int s = 0; s <= f->k; s++) {
		int l = f->stage_start[s] - lo;
		w->stage_start[s] = l < 0 ? 0 : l > w->levels ? w->levels : l;
	}
	return w;
}

void sc_fold_free(sc_fold *f)
{
	if (!f)
		return;
	free(f->level);
	free(f->stage_start);
	free(f->col_start);
	free(f);
}
