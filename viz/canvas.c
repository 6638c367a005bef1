/*
 * canvas.c - a quotient layout in a character grid.  See canvas.h.
 *
 * The grid is an array of cells, each holding one code point, what it
 * belongs to (box, edge, label) and, for edge cells, which neighbours the
 * line connects to (N S E W bits), so crossing and turning lines pick the
 * right box-drawing character whatever order the edges are drawn in.
 *
 * Scaling (drawn from the layout): along each axis the node extents are
 * merged into bands (a rank of the LR layout is one band along x), with
 * gaps between them.  Every band and gap first gets its share of the grid
 * at one common scale that fits the whole picture (a cell counting as
 * twice as tall as wide), capped so a box is not much bigger than its
 * text; bands below the size their text wants are then widened, taking
 * cells from the gaps and then from the widest bands, down to the minimum
 * of a box with just the stage number.  Coordinates map piecewise-linearly
 * through bands and gaps, so a spline that runs between two boxes in the
 * layout still runs between them in the grid.  If the boxes cannot all be
 * placed with that minimum, without overlapping, the wrapped fallback is
 * drawn instead (stages in pipeline order, row after row).
 *
 * This file places things (the scaling, the fallback) and makes the canvas;
 * the cells, glyphs, boxes, edge paths and labels are drawn by
 * canvas_grid.c (canvas_grid.h).
 */
#include "canvas.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canvas_grid.h"

/* ---- scaling the layout ------------------------------------------------ */

typedef struct axis {
	int n;                  /* bands */
	double *lo, *hi;        /* band extents, sorted, disjoint */
	double *shortest;       /* the shortest node extent in each band */
	double start, end;      /* extent of everything drawn */
	int *band, *gap, *gmin; /* cells: n bands, n + 1 gaps (before, between, after) */
	int origin;             /* cell where start maps */
} axis;

static void axis_fini(axis *a)
{
	free(a->lo);
	free(a->hi);
	free(a->shortest);
	free(a->band);
	free(a->gap);
	free(a->gmin);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Merges the node intervals [nlo, nhi) into bands; extra[0..nextra) are
 * other coordinates drawn (edge points).  gmin_inner is the fewest cells
 * between two bands. */
static bool axis_init(axis *a, int k, const double *nlo, const double *nhi, const double *extra,
                      int nextra, int gmin_inner)
{
	memset(a, 0, sizeof *a);
	double *iv = malloc((size_t)k * 2 * sizeof *iv);
	a->lo = malloc((size_t)k * sizeof *a->lo);
	a->hi = malloc((size_t)k * sizeof *a->hi);
	a->shortest = malloc((size_t)k * sizeof *a->shortest);
	a->band = malloc((size_t)k * sizeof *a->band);
	a->gap = malloc((size_t)(k + 1) * sizeof *a->gap);
	a->gmin = malloc((size_t)(k + 1) * sizeof *a->gmin);
	if (!iv || !a->lo || !a->hi || !a->shortest || !a->band || !a->gap || !a->gmin) {
		free(iv);
		axis_fini(a);
		return false;
	}
	for (int i = 0; i < k; i++) {
		iv[2 * i] = nlo[i];
		iv[2 * i + 1] = nhi[i];
	}
	qsort(iv, (size_t)k, 2 * sizeof *iv, cmp_double); /* by lo */
	for (int i = 0; i < k; i++) {
		double len = iv[2 * i + 1] - iv[2 * i];
		if (a->n > 0 && iv[2 * i] < a->hi[a->n - 1]) {
			if (iv[2 * i + 1] > a->hi[a->n - 1])
				a->hi[a->n - 1] = iv[2 * i + 1];
			if (len < a->shortest[a->n - 1])
				a->shortest[a->n - 1] = len;
		} else {
			a->lo[a->n] = iv[2 * i];
			a->hi[a->n] = iv[2 * i + 1];
			a->shortest[a->n] = len;
			a->n++;
		}
	}
	free(iv);
	a->start = a->lo[0];
	a->end = a->hi[a->n - 1];
	for (int i = 0; i < nextra; i++) {
		if (extra[i] < a->start)
			a->start = extra[i];
		if (extra[i] > a->end)
			a->end = extra[i];
	}
	for (int j = 0; j <= a->n; j++)
		a->gmin[j] = gmin_inner;
	/* an outer margin needs a cell only when an edge runs through it */
	a->gmin[0] = a->start < a->lo[0] - 1 ? 1 : 0;
	a->gmin[a->n] = a->end > a->hi[a->n - 1] + 1 ? 1 : 0;
	return true;
}

/* Gives bands and gaps their cells (see the top of the file); false when
 * the bands cannot get minc cells each within total. */
static bool axis_allocate(axis *a, double scale, int total, int want, int minc)
{
	long need = 0;
	for (int i = 0; i < a->n; i++)
		need += minc;
	for (int j = 0; j <= a->n; j++)
		need += a->gmin[j];
	if (need > total)
		return false;
	int used = 0;
	for (int i = 0; i < a->n; i++) {
		/* enough for the band's shortest node to get want cells */
		double len = a->hi[i] - a->lo[i];
		double c = scale * len;
		double w = a->shortest[i] > 0 ? want * len / a->shortest[i] : want;
		a->band[i] = c > w ? (int)lround(c) : (int)ceil(w - 1e-9);
		used += a->band[i];
	}
	for (int j = 0; j <= a->n; j++) {
		double from = j == 0 ? a->start : a->hi[j - 1], to = j == a->n ? a->end : a->lo[j];
		int c = (int)lround(scale * (to - from));
		a->gap[j] = c > a->gmin[j] ? c : a->gmin[j];
		used += a->gap[j];
	}
	/* too big: take from the widest gaps, then from the widest bands */
	while (used > total) {
		int best = -1;
		for (int j = 0; j <= a->n; j++)
			if (a->gap[j] > a->gmin[j] && (best < 0 || a->gap[j] > a->gap[best]))
				best = j;
		if (best < 0)
			break;
		a->gap[best]--;
		used--;
	}
	while (used > total) {
		int best = -1;
		for (int i = 0; i < a->n; i++)
			if (a->band[i] > minc && (best < 0 || a->band[i] > a->band[best]))
				best = i;
		if (best < 0)
			return false;
		a->band[best]--;
		used--;
	}
	a->origin = (total - used) / 2;
	return true;
}

static double interp(double p, double lo, double hi, int cells)
{
	if (hi <= lo)
		return p <= lo ? 0 : cells;
	double t = (p - lo) / (hi - lo);
	return (t < 0 ? 0 : t > 1 ? 1 : t) * cells;
}

/* The continuous cell coordinate of layout coordinate p. */
static double axis_map(const axis *a, double p)
{
	double pos = a->origin, from = a->start;
	for (int j = 0; j <= a->n; j++) {
		double to = j == a->n ? a->end : a->lo[j];
		if (p <= to || j == a->n)
			return pos + interp(p, from, to, a->gap[j]);
		pos += a->gap[j];
		if (p <= a->hi[j])
			return pos + interp(p, a->lo[j], a->hi[j], a->band[j]);
		pos += a->band[j];
		from = a->hi[j];
	}
	return pos;
}

/* The cell holding continuous coordinate m; the slack keeps a line that
 * runs exactly along a cell boundary (a node's centre line, often) from
 * flickering between two rows through rounding noise. */
static int cell_of(double m)
{
	return (int)floor(m + 1e-6);
}

static double bezier(double p0, double p1, double p2, double p3, double t)
{
	double u = 1 - t;
	return u * u * u * p0 + 3 * u * u * t * p1 + 3 * u * t * t * p2 + t * t * t * p3;
}

/* Samples edge e through the axes into cells. */
static bool edge_path(const sc_ledge *e, const axis *ax, const axis *ay, double top, cv_path *p)
{
	p->n = 0;
	if (e->npts < 1)
		return true;
	double px = axis_map(ax, e->pts[0]), py = axis_map(ay, top - e->pts[1]);
	if (!cv_path_add(p, cell_of(px), cell_of(py)))
		return false;
	for (int i = 0; i + 3 < e->npts; i += 3) {
		const double *c = e->pts + 2 * i;
		double mx[4], my[4], len = 0;
		for (int j = 0; j < 4; j++) {
			mx[j] = axis_map(ax, c[2 * j]);
			my[j] = axis_map(ay, top - c[2 * j + 1]);
			if (j > 0)
				len += fabs(mx[j] - mx[j - 1]) + fabs(my[j] - my[j - 1]);
		}
		/* sample in the layout (the map is piecewise linear there) */
		int steps = 4 + (int)(4 * len);
		if (steps > 4000)
			steps = 4000;
		for (int s = 1; s <= steps; s++) {
			double t = (double)s / steps;
			double x = bezier(c[0], c[2], c[4], c[6], t);
			double y = bezier(c[1], c[3], c[5], c[7], t);
			int cx = cell_of(axis_map(ax, x)), cy = cell_of(axis_map(ay, top - y));
			if (!cv_path_line_to(p, cx, cy))
				return false;
		}
	}
	return true;
}

/* Whether path p runs for two consecutive cells or more over cells that
 * edges drawn before it hold (it merges with one of them). */
static bool merges(cv_grid *g, const cv_path *p)
{
	int run = 0;
	for (int i = 0; i < p->n; i++) {
		const cv_cell *c = cv_cell_at(g, p->x[i], p->y[i]);
		run = c && c->kind == CV_EDGE ? run + 1 : 0;
		if (run >= 2)
			return true;
	}
	return false;
}

/* Draws the layout scaled (see the top of the file).  Returns false,
 * having drawn nothing, when the boxes do not fit; *nomem on failure.
 * Counts the edges merging and the labels without room into cv. */
static bool draw_scaled(cv_grid *g, const sc_layout *l, const sc_quotient *q, int (*box)[4],
                        sc_canvas *cv, bool *nomem)
{
	int k = q->k;
	bool ok = false;
	axis ax = {0}, ay = {0};
	cv_path raw = {0}, sq = {0};
	double *buf = malloc((size_t)k * 4 * sizeof *buf);
	int npts = 0;
	for (int i = 0; i < l->nedges; i++)
		npts += l->edge[i].npts > 0 ? l->edge[i].npts : 0;
	double *ex = malloc((size_t)(npts + 1) * 2 * sizeof *ex);
	if (!buf || !ex)
		goto nomem;
	double *nxlo = buf, *nxhi = buf + k, *nylo = buf + 2 * k, *nyhi = buf + 3 * k;
	double *ey = ex + npts + 1;
	/* rows grow downwards: y is measured down from the layout's top */
	double top = l->height;
	double maxw = 1, minh_node = INFINITY;
	for (int s = 0; s < k; s++) {
		const sc_lnode *n = &l->node[s];
		nxlo[s] = n->x - n->w / 2;
		nxhi[s] = n->x + n->w / 2;
		nylo[s] = top - n->y - n->h / 2;
		nyhi[s] = top - n->y + n->h / 2;
		maxw = fmax(maxw, n->w);
		minh_node = fmin(minh_node, fmax(n->h, 1));
	}
	int ne = 0;
	for (int i = 0; i < l->nedges; i++)
		for (int j = 0; j < l->edge[i].npts; j++) {
			ex[ne] = l->edge[i].pts[2 * j];
			ey[ne] = top - l->edge[i].pts[2 * j + 1];
			ne++;
		}
	if (!axis_init(&ax, k, nxlo, nxhi, ex, ne, 2) || !axis_init(&ay, k, nylo, nyhi, ey, ne, 1))
		goto nomem;

	int minw = 0, wantw = 0;
	for (int s = 0; s < k; s++) {
		int m = 2 + cv_min_title_len(q, s), w = 2 + cv_want_text_w(q, s);
		minw = m > minw ? m : minw;
		wantw = w > wantw ? w : wantw;
	}
	/* one scale for both axes (a cell is about twice as tall as wide),
	 * then capped per axis so boxes stay near the size of their text (the
	 * widest box, and the shortest one: the bottleneck's is taller) */
	double sx = fmin(g->cols / fmax(ax.end - ax.start, 1),
	                 2 * g->rows / fmax(ay.end - ay.start, 1));
	double sy = sx / 2;
	sx = fmin(sx, (wantw + 4) / maxw);
	if (!axis_allocate(&ax, sx, g->cols, wantw, minw))
		goto out;
	/* boxes only need the rows for the lines their width allows */
	int minh = 3, wanth = 3;
	for (int s = 0; s < k; s++) {
		if ((sc_quotient_at_bottleneck(q, s)) && k > 1)
			continue; /* its layout box is taller, by its extra line */
		cv_tline t[CV_MAX_LINES];
		int w = (int)lround(axis_map(&ax, nxhi[s])) - (int)lround(axis_map(&ax, nxlo[s]));
		int lines = cv_stage_text(q, s, (w > minw ? w : minw) - 2, CV_MAX_LINES, t);
		if (2 + lines > wanth)
			wanth = 2 + lines;
	}
	sy = fmin(sy, wanth / minh_node);
	if (!axis_allocate(&ay, sy, g->rows, wanth, minh))
		goto out;

	for (int s = 0; s < k; s++) {
		int x0 = (int)lround(axis_map(&ax, nxlo[s])),
		    x1 = (int)lround(axis_map(&ax, nxhi[s]));
		int y0 = (int)lround(axis_map(&ay, nylo[s])),
		    y1 = (int)lround(axis_map(&ay, nyhi[s]));
		box[s][0] = x0;
		box[s][1] = y0;
		box[s][2] = x1 - x0;
		box[s][3] = y1 - y0;
		/* a node smaller than its band's widest may come out too small:
		 * grow it about its centre */
		if (box[s][2] < minw) {
			box[s][0] -= (minw - box[s][2]) / 2;
			box[s][2] = minw;
		}
		if (box[s][3] < minh) {
			box[s][1] -= (minh - box[s][3]) / 2;
			box[s][3] = minh;
		}
		if (box[s][0] < 0 || box[s][1] < 0 || box[s][0] + box[s][2] > g->cols ||
		    box[s][1] + box[s][3] > g->rows)
			goto out;
	}
	for (int s = 0; s < k; s++)
		for (int t = s + 1; t < k; t++)
			if (box[s][0] < box[t][0] + box[t][2] &&
			    box[t][0] < box[s][0] + box[s][2] &&
			    box[s][1] < box[t][1] + box[t][3] && box[t][1] < box[s][1] + box[s][3])
				goto out;

	int fit = INT_MAX;
	for (int s = 0; s < k; s++)
		fit = box[s][2] - 2 < fit ? box[s][2] - 2 : fit;
	for (int s = 0; s < k; s++)
		cv_draw_box(g, q, s, box[s], fit);
	for (int i = 0; i < l->nedges; i++) {
		if (!edge_path(&l->edge[i], &ax, &ay, top, &raw) ||
		    !cv_path_square_corners(&raw, &sq))
			goto nomem;
		int tail = l->edge[i].from, head = l->edge[i].to;
		if (tail >= 0 && tail < k && head >= 0 && head < k) {
			cv->merged += merges(g, &sq);
			cv_draw_path(g, &sq, box, k, tail, head);
		}
	}
	for (int i = 0; i < l->nedges && i < q->nedges; i++) {
		char vol[80];
		double lx = axis_map(&ax, l->edge[i].lx), ly = axis_map(&ay, top - l->edge[i].ly);
		sc_quotient_edge_label(q, &q->edges[i], ", ", vol, sizeof vol);
		/* a training graph's two passes, or their total where that is
		 * all there is room for */
		bool placed = cv_place_label(g, lx, ly, vol);
		if (!placed && q->training) {
			sc_quotient_fmt_bytes(q->edges[i].volume, vol, sizeof vol);
			placed = cv_place_label(g, lx, ly, vol);
		}
		cv->unlabelled += !placed;
	}
	ok = true;
	goto out;
nomem:
	*nomem = true;
out:
	free(buf);
	free(ex);
	free(raw.x);
	free(raw.y);
	free(sq.x);
	free(sq.y);
	axis_fini(&ax);
	axis_fini(&ay);
	return ok;
}

/* ---- the wrapped fallback ---------------------------------------------- */

static bool has_edge(const sc_quotient *q, int from, int to)
{
	for (int i = 0; i < q->nedges; i++)
		if (q->edges[i].from == from && q->edges[i].to == to)
			return true;
	return false;
}

/* Stages in order, in rows of equal boxes as large as the grid allows;
 * counts into *hidden the edges it leaves out. */
static void draw_wrapped(cv_grid *g, const sc_quotient *q, int (*box)[4], int *hidden)
{
	int k = q->k;
	*hidden = q->nedges; /* until some are drawn */
	const int gx = 2;    /* "─>" between neighbours */
	int bw = 0, bh = 0, per = 0, gy = 0, nrow = 0;
	bool found = false;
	for (int lines = cv_want_lines(q); lines >= 1 && !found; lines--) {
		/* the box width the text of this many lines needs */
		int w = 0;
		for (int s = 0; s < k; s++) {
			int m = cv_min_title_len(q, s);
			int want = lines > 1 ? cv_want_text_w(q, s) : m;
			w = want > w ? want : w;
		}
		int cand_w = w + 2, cand_h = lines + 2;
		for (int cand_gy = 1; cand_gy >= 0 && !found; cand_gy--) {
			int cand_per = (g->cols + gx) / (cand_w + gx);
			if (cand_per < 1)
				continue;
			int cand_rows = (k + cand_per - 1) / cand_per;
			if (cand_rows * cand_h + (cand_rows - 1) * cand_gy <= g->rows) {
				bw = cand_w;
				bh = cand_h;
				per = cand_per;
				gy = cand_gy;
				nrow = cand_rows;
				found = true;
			}
		}
	}
	if (!found) {
		/* not even one row of number boxes: draw as many as fit */
		int w = 0;
		for (int s = 0; s < k; s++) {
			int m = cv_min_title_len(q, s);
			w = m > w ? m : w;
		}
		bw = w + 2;
		bh = 3;
		gy = 0;
		per = (g->cols + gx) / (bw + gx);
		nrow = g->rows / bh;
		if (per < 1 || nrow < 1)
			return;
	}
	if (per > k)
		per = k;
	int shown = per * nrow < k ? per * nrow : k;
	int used_rows = (shown + per - 1) / per;
	int x0 = (g->cols - (per * (bw + gx) - gx)) / 2;
	int y0 = (g->rows - (used_rows * bh + (used_rows - 1) * gy)) / 2;
	if (x0 < 0)
		x0 = 0;
	if (y0 < 0)
		y0 = 0;
	for (int s = 0; s < shown; s++) {
		box[s][0] = x0 + (s % per) * (bw + gx);
		box[s][1] = y0 + (s / per) * (bh + gy);
		box[s][2] = bw;
		box[s][3] = bh;
		cv_draw_box(g, q, s, box[s], bw - 2);
	}
	int drawn = 0;
	for (int s = 0; s + 1 < shown; s++)
		if ((s + 1) % per != 0 && has_edge(q, s, s + 1) && ++drawn) {
			int y = box[s][1] + 1 + (bh - 2) / 2;
			int x = box[s][0] + bw;
			cv_put(g, x, y, 0x2500, CV_EDGE);
			cv_put(g, x + 1, y, '>', CV_EDGE);
		}
	*hidden = q->nedges - drawn;
	if (shown < k) {
		/* say how many are missing, where that covers nothing */
		char more[32];
		snprintf(more, sizeof more, "+%d more", k - shown);
		int len = (int)strlen(more), x = g->cols - len, y = g->rows - 1;
		bool room = x >= 0;
		for (int i = 0; room && i < len; i++)
			room = cv_cell_at(g, x + i, y)->kind == CV_EMPTY;
		if (room)
			cv_put_text(g, x, y, more, CV_LABEL);
	}
}

/* ---- the canvas -------------------------------------------------------- */

static int utf8_put(char *out, uint32_t c)
{
	if (c < 0x80) {
		out[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = (char)(0xC0 | (c >> 6));
		out[1] = (char)(0x80 | (c & 0x3F));
		return 2;
	}
	out[0] = (char)(0xE0 | (c >> 12));
	out[1] = (char)(0x80 | ((c >> 6) & 0x3F));
	out[2] = (char)(0x80 | (c & 0x3F));
	return 3;
}

sc_canvas *sc_canvas_draw(const sc_layout *l, const sc_quotient *q, int cols, int rows,
                          sc_error *err)
{
	if (cols < 1 || rows < 1) {
		sc_error_set(err, SC_ERR_INPUT, "the canvas needs at least one cell (got %d x %d)",
		             cols, rows);
		return NULL;
	}
	if (cols > 2000 || rows > 1000) {
		sc_error_set(err, SC_ERR_INPUT, "a canvas of %d x %d cells is too large", cols,
		             rows);
		return NULL;
	}
	if (q->k < 1 || l->nnodes != q->k || l->nedges != q->nedges) {
		sc_error_set(err, SC_ERR_INPUT,
		             "the layout (%d stages, %d edges) is not that of the quotient (%d "
		             "stages, %d edges)",
		             l->nnodes, l->nedges, q->k, q->nedges);
		return NULL;
	}
	sc_canvas *c = calloc(1, sizeof *c);
	cv_grid g = {.cols = cols, .rows = rows};
	g.c = malloc((size_t)cols * (size_t)rows * sizeof *g.c);
	if (c) {
		c->rows = rows;
		c->cols = cols;
		c->k = q->k;
		c->line = calloc((size_t)rows, sizeof *c->line);
		c->box = calloc((size_t)q->k, sizeof *c->box);
	}
	if (!c || !g.c || !c->line || !c->box)
		goto nomem;
	cv_clear(&g);
	bool oom = false;
	if (!draw_scaled(&g, l, q, c->box, c, &oom)) {
		if (oom)
			goto nomem;
		cv_clear(&g);
		memset(c->box, 0, (size_t)q->k * sizeof *c->box);
		c->merged = c->unlabelled = 0;
		draw_wrapped(&g, q, c->box, &c->hidden);
	}
	for (int y = 0; y < rows; y++) {
		char *s = malloc((size_t)cols * 3 + 1);
		if (!s)
			goto nomem;
		int n = 0;
		for (int x = 0; x < cols; x++)
			n += utf8_put(s + n, g.c[(size_t)y * (size_t)cols + (size_t)x].ch);
		s[n] = '\0';
		c->line[y] = s;
	}
	free(g.c);
	return c;
nomem:
	free(g.c);
	sc_canvas_free(c);
	sc_error_nomem(err, "the canvas");
	return NULL;
}

void sc_canvas_free(sc_canvas *c)
{
	if (!c)
		return;
	if (c->line)
		for (int y = 0; y < c->rows; y++)
			free(c->line[y]);
	free(c->line);
	free(c->box);
	free(c);
}
