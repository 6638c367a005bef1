/*
 * canvas_grid.c - the drawing primitives of the canvas: cells and their
 * glyphs, stage boxes and their text, edge paths, labels.  See
 * canvas_grid.h; canvas.c (which places things and makes the canvas) is
 * the only caller.
 */
#include "canvas_grid.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { D_N = 1, D_S = 2, D_E = 4, D_W = 8 };

/* corner, horizontal, corner, vertical, corner, corner */
static const uint32_t light_box[6] = {0x250C, 0x2500, 0x2510, 0x2502, 0x2514, 0x2518};
static const uint32_t heavy_box[6] = {0x250F, 0x2501, 0x2513, 0x2503, 0x2517, 0x251B};
#define MIDDLE_DOT 0x00B7

cv_cell *cv_cell_at(cv_grid *g, int x, int y)
{
	if (x < 0 || y < 0 || x >= g->cols || y >= g->rows)
		return NULL;
	return &g->c[(size_t)y * (size_t)g->cols + (size_t)x];
}

void cv_put(cv_grid *g, int x, int y, uint32_t ch, int kind)
{
	cv_cell *c = cv_cell_at(g, x, y);
	if (c) {
		c->ch = ch;
		c->kind = (unsigned char)kind;
	}
}

void cv_put_text(cv_grid *g, int x, int y, const char *s, int kind)
{
	for (int i = 0; s[i]; i++)
		cv_put(g, x + i, y, (unsigned char)s[i], kind);
}

void cv_clear(cv_grid *g)
{
	for (size_t i = 0; i < (size_t)g->cols * (size_t)g->rows; i++)
		g->c[i] = (cv_cell){.ch = ' ', .kind = CV_EMPTY};
}

/* ---- the text of a stage's box ---------------------------------------- */

int cv_min_title_len(const sc_quotient *q, int s)
{
	char t[32];
	return snprintf(t, sizeof t, "%d%s", s + 1, sc_quotient_at_bottleneck(q, s) ? "*" : "");
}

int cv_stage_text(const sc_quotient *q, int s, int iw, int maxl, cv_tline *out)
{
	const sc_stage_cost *st = &q->st[s];
	bool bn = sc_quotient_at_bottleneck(q, s);
	int n = 0;
	if (maxl <= 0 || iw <= 0)
		return 0;
	char title[4][32];
	int nt = 0;
	if (bn) {
		snprintf(title[nt++], sizeof title[0], "stage %d *", s + 1);
		snprintf(title[nt++], sizeof title[0], "%d *", s + 1);
		snprintf(title[nt++], sizeof title[0], "%d*", s + 1);
	} else {
		snprintf(title[nt++], sizeof title[0], "stage %d", s + 1);
		snprintf(title[nt++], sizeof title[0], "%d", s + 1);
	}
	for (int i = 0; i < nt; i++)
		if ((int)strlen(title[i]) <= iw) {
			snprintf(out[n].left, sizeof out[n].left, "%s", title[i]);
			out[n].center = true;
			n++;
			break;
		}
	typedef struct text_row {
		const char *name, *brief;
		double value;
		bool bare; /* the value alone may stand for the line */
	} text_row;
	const text_row all[] = {
	        {"cost", "cost", st->cost, true},     {"fw", "fw", st->cost_fw, false},
	        {"bw", "bw", st->cost_bw, false},     {"ops", "ops", st->ops, false},
	        {"work", "work", st->work, false},    {"io in", "in", st->io_in, false},
	        {"io out", "out", st->io_out, false}, {"overflow", "ovf", st->overflow, false},
	};
	/* the cost split by pass, right under the cost, on training graphs
	 * only */
	text_row row[sizeof all / sizeof all[0]];
	size_t nrow = 0;
	for (size_t r = 0; r < sizeof all / sizeof all[0]; r++)
		if (q->training || (r != 1 && r != 2))
			row[nrow++] = all[r];
	for (size_t r = 0; r < nrow && n < maxl; r++) {
		char v[32];
		sc_quotient_fmt(row[r].value, v, sizeof v);
		int vl = (int)strlen(v);
		const char *name = NULL;
		if ((int)strlen(row[r].name) + 1 + vl <= iw)
			name = row[r].name;
		else if ((int)strlen(row[r].brief) + 1 + vl <= iw)
			name = row[r].brief;
		else if (row[r].bare && vl <= iw)
			name = "";
		/* stop at the first row that does not fit, so that every box
		 * shows the same rows, in the same order */
		if (!name)
			break;
		snprintf(out[n].left, sizeof out[n].left, "%s", name);
		snprintf(out[n].right, sizeof out[n].right, "%s", v);
		out[n].center = !*name;
		if (out[n].center)
			snprintf(out[n].left, sizeof out[n].left, "%s", v);
		n++;
	}
	if (st->over_memory && n < maxl && iw >= 8) {
		snprintf(out[n].left, sizeof out[n].left, "%s",
		         iw >= 11 ? "over memory" : "over mem");
		out[n].center = true;
		n++;
	}
	if (bn && n < maxl && iw >= 10) {
		snprintf(out[n].left, sizeof out[n].left, "bottleneck");
		out[n].center = true;
		n++;
	}
	return n;
}

int cv_want_lines(const sc_quotient *q)
{
	return q->training ? CV_WANT_LINES_TRAINING : CV_WANT_LINES;
}

int cv_want_text_w(const sc_quotient *q, int s)
{
	cv_tline t[CV_MAX_LINES];
	int n = cv_stage_text(q, s, CV_WANT_TEXT_W, CV_MAX_LINES, t);
	int w = 0;
	for (int i = 0; i < n; i++) {
		int len = (int)strlen(t[i].left) + (t[i].center ? 0 : 1 + (int)strlen(t[i].right));
		if (len > w)
			w = len;
	}
	return w;
}

void cv_draw_box(cv_grid *g, const sc_quotient *q, int s, const int r[4], int fit)
{
	const uint32_t *bx = sc_quotient_at_bottleneck(q, s) ? heavy_box : light_box;
	int x0 = r[0], y0 = r[1], x1 = r[0] + r[2] - 1, y1 = r[1] + r[3] - 1;
	for (int y = y0; y <= y1; y++)
		for (int x = x0; x <= x1; x++)
			cv_put(g, x, y, ' ', CV_BOX);
	for (int x = x0 + 1; x < x1; x++) {
		cv_put(g, x, y0, bx[1], CV_BOX);
		cv_put(g, x, y1, bx[1], CV_BOX);
	}
	for (int y = y0 + 1; y < y1; y++) {
		cv_put(g, x0, y, bx[3], CV_BOX);
		cv_put(g, x1, y, bx[3], CV_BOX);
	}
	cv_put(g, x0, y0, bx[0], CV_BOX);
	cv_put(g, x1, y0, bx[2], CV_BOX);
	cv_put(g, x0, y1, bx[4], CV_BOX);
	cv_put(g, x1, y1, bx[5], CV_BOX);
	int iw = r[2] - 2, ih = r[3] - 2;
	cv_tline t[CV_MAX_LINES];
	int n = cv_stage_text(q, s, fit < iw ? fit : iw, ih < CV_MAX_LINES ? ih : CV_MAX_LINES, t);
	for (int i = 0; i < n; i++) {
		int y = y0 + 1 + i;
		if (t[i].center) {
			int len = (int)strlen(t[i].left);
			cv_put_text(g, x0 + 1 + (iw - len) / 2, y, t[i].left, CV_BOX);
		} else {
			cv_put_text(g, x0 + 1, y, t[i].left, CV_BOX);
			cv_put_text(g, x0 + 1 + iw - (int)strlen(t[i].right), y, t[i].right,
			            CV_BOX);
		}
	}
}

/* ---- edges ------------------------------------------------------------- */

bool cv_path_add(cv_path *p, int x, int y)
{
	if (p->n > 0 && p->x[p->n - 1] == x && p->y[p->n - 1] == y)
		return true;
	if (p->n == p->cap) {
		int cap = p->cap ? 2 * p->cap : 64;
		int *nx = realloc(p->x, (size_t)cap * sizeof *nx);
		if (!nx)
			return false;
		p->x = nx;
		int *ny = realloc(p->y, (size_t)cap * sizeof *ny);
		if (!ny)
			return false;
		p->y = ny;
		p->cap = cap;
	}
	p->x[p->n] = x;
	p->y[p->n] = y;
	p->n++;
	return true;
}

bool cv_path_line_to(cv_path *p, int x, int y)
{
	if (p->n == 0)
		return cv_path_add(p, x, y);
	int cx = p->x[p->n - 1], cy = p->y[p->n - 1];
	int dx = abs(x - cx), dy = abs(y - cy), sx = x > cx ? 1 : -1, sy = y > cy ? 1 : -1;
	int e = dx - dy;
	while (cx != x || cy != y) {
		int e2 = 2 * e;
		if (e2 > -dy) {
			e -= dy;
			cx += sx;
		}
		if (e2 < dx) {
			e += dx;
			cy += sy;
		}
		if (!cv_path_add(p, cx, cy))
			return false;
	}
	return true;
}

static int step_dir(int dx, int dy)
{
	if (dx > 0 && dy == 0)
		return D_E;
	if (dx < 0 && dy == 0)
		return D_W;
	if (dy > 0 && dx == 0)
		return D_S;
	if (dy < 0 && dx == 0)
		return D_N;
	return 0;
}

bool cv_path_square_corners(cv_path *p, cv_path *out)
{
	out->n = 0;
	for (int i = 0; i < p->n; i++) {
		if (i > 0) {
			int dx = p->x[i] - p->x[i - 1], dy = p->y[i] - p->y[i - 1];
			bool diag = dx && dy;
			bool prev_diag =
			        i >= 2 && p->x[i - 1] != p->x[i - 2] && p->y[i - 1] != p->y[i - 2];
			bool next_diag =
			        i + 1 < p->n && p->x[i + 1] != p->x[i] && p->y[i + 1] != p->y[i];
			if (diag && !prev_diag && !next_diag) {
				/* keep going the way the line went before the step */
				bool horizontal =
				        i >= 2 ? p->y[i - 1] == p->y[i - 2]
				               : !(i + 1 < p->n && p->y[i + 1] == p->y[i]);
				int cx = horizontal ? p->x[i] : p->x[i - 1];
				int cy = horizontal ? p->y[i - 1] : p->y[i];
				if (!cv_path_add(out, cx, cy))
					return false;
			}
		}
		if (!cv_path_add(out, p->x[i], p->y[i]))
			return false;
	}
	return true;
}

static uint32_t line_glyph(int mask, bool diag)
{
	switch (mask) {
	case D_E | D_W:
	case D_E:
	case D_W: return 0x2500;
	case D_N | D_S:
	case D_N:
	case D_S: return 0x2502;
	case D_E | D_S: return 0x250C;
	case D_W | D_S: return 0x2510;
	case D_N | D_E: return 0x2514;
	case D_N | D_W: return 0x2518;
	case D_E | D_W | D_S: return 0x252C;
	case D_E | D_W | D_N: return 0x2534;
	case D_N | D_S | D_E: return 0x251C;
	case D_N | D_S | D_W: return 0x2524;
	case D_N | D_S | D_E | D_W: return 0x253C;
	default: return diag ? MIDDLE_DOT : ' ';
	}
}

static bool in_rect(const int r[4], int x, int y)
{
	return x >= r[0] && x < r[0] + r[2] && y >= r[1] && y < r[1] + r[3];
}

void cv_draw_path(cv_grid *g, const cv_path *p, int (*box)[4], int k, int tail, int head)
{
	bool *free_cell = NULL;
	if (p->n < 2)
		return;
	free_cell = malloc((size_t)p->n * sizeof *free_cell);
	if (!free_cell)
		return; /* out of memory: the edge is just not drawn */
	for (int i = 0; i < p->n; i++) {
		free_cell[i] = cv_cell_at(g, p->x[i], p->y[i]) != NULL;
		for (int s = 0; s < k && free_cell[i]; s++)
			if (box[s][2] > 0 && in_rect(box[s], p->x[i], p->y[i]))
				free_cell[i] = false;
	}
	for (int i = 0; i < p->n; i++) {
		if (!free_cell[i])
			continue;
		cv_cell *c = cv_cell_at(g, p->x[i], p->y[i]);
		if (c->kind == CV_LABEL)
			continue;
		c->kind = CV_EDGE;
		for (int j = i - 1; j <= i + 1; j += 2) {
			if (j < 0 || j >= p->n)
				continue;
			if (!free_cell[j] && !in_rect(box[tail], p->x[j], p->y[j]))
				continue;
			int d = step_dir(p->x[j] - p->x[i], p->y[j] - p->y[i]);
			if (d)
				c->mask |= (unsigned char)d;
			else
				c->diag = 1;
		}
		if (i == 0) {
			/* a path starting just outside its tail joins the tail's side */
			const int *t = box[tail];
			int x = p->x[0], y = p->y[0];
			bool rows = y >= t[1] && y < t[1] + t[3],
			     cols = x >= t[0] && x < t[0] + t[2];
			if (rows && x == t[0] + t[2])
				c->mask |= D_W;
			else if (rows && x == t[0] - 1)
				c->mask |= D_E;
			else if (cols && y == t[1] + t[3])
				c->mask |= D_N;
			else if (cols && y == t[1] - 1)
				c->mask |= D_S;
		}
		c->ch = line_glyph(c->mask, c->diag);
	}
	/* the arrowhead: on the last free cell before the path enters the head
	 * (or on its last cell when rounding stopped it just short), pointing
	 * at the head's box */
	int end = p->n - 1;
	while (end >= 0 && in_rect(box[head], p->x[end], p->y[end]))
		end--;
	if (end >= 0 && free_cell[end]) {
		const int *h = box[head];
		int x = p->x[end], y = p->y[end];
		uint32_t a = x < h[0] ? '>' : x >= h[0] + h[2] ? '<' : y < h[1] ? 'v' : '^';
		cv_cell *c = cv_cell_at(g, x, y);
		if (c->kind == CV_EDGE)
			c->ch = a;
	}
	free(free_cell);
}

bool cv_place_label(cv_grid *g, double cx, double cy, const char *text)
{
	static const int drow[] = {0, -1, 1, -2, 2};
	static const int dcol[] = {0, -1, 1, -2, 2};
	int len = (int)strlen(text);
	int x0 = (int)lround(cx - len / 2.0), y0 = (int)floor(cy);
	for (size_t r = 0; r < sizeof drow / sizeof drow[0]; r++)
		for (size_t c = 0; c < sizeof dcol / sizeof dcol[0]; c++) {
			int x = x0 + dcol[c], y = y0 + drow[r];
			bool ok = true;
			/* a blank column on each side keeps labels apart */
			for (int i = -1; i <= len && ok; i++) {
				cv_cell *ce = cv_cell_at(g, x + i, y);
				if (i >= 0 && i < len)
					ok = ce && ce->kind == CV_EMPTY;
				else
					ok = !ce || ce->kind != CV_LABEL;
			}
			if (ok) {
				cv_put_text(g, x, y, text, CV_LABEL);
				return true;
			}
		}
	return false;
}
