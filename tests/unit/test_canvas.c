/*
 * test_canvas.c - the terminal canvas (viz/canvas.c, canvas_grid.c) at many
 * sizes and stage counts: lines no wider than the grid, boxes inside it and
 * apart, the bottleneck drawn heavy with a '*', and tiny grids that never
 * break it.  The quotient, the layout and the pictures are tested in
 * test_viz.c.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/simple.h"
#include "tests/support.h"
#include "viz/canvas.h"
#include "viz/layout.h"
#include "viz/quotient.h"

static int decode(const char *s, uint32_t *out, int max)
{
	int n = 0;
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		uint32_t c;
		int len;
		if (*p < 0x80) {
			c = *p;
			len = 1;
		} else if ((*p & 0xE0) == 0xC0) {
			c = *p & 0x1F;
			len = 2;
		} else if ((*p & 0xF0) == 0xE0) {
			c = *p & 0x0F;
			len = 3;
		} else {
			c = *p & 0x07;
			len = 4;
		}
		for (int i = 1; i < len; i++) {
			cr_assert_eq(p[i] & 0xC0, 0x80, "bad UTF-8 in \"%s\"", s);
			c = (c << 6) | (p[i] & 0x3F);
		}
		p += len;
		if (n < max)
			out[n] = c;
		n++;
	}
	return n;
}

static void print_canvas(const sc_canvas *c)
{
	for (int y = 0; y < c->rows; y++)
		fprintf(stderr, "|%s|\n", c->line[y]);
}

/* Checks c drawn for q at cols x rows; all_drawn: every stage must have a
 * box. */
static void check_canvas(const sc_canvas *c, const sc_quotient *q, int cols, int rows,
                         bool all_drawn)
{
	cr_assert_eq(c->rows, rows);
	cr_assert_eq(c->cols, cols);
	cr_assert_eq(c->k, q->k);
	uint32_t **cp = malloc((size_t)rows * sizeof *cp);
	for (int y = 0; y < rows; y++) {
		cp[y] = calloc((size_t)cols + 1, sizeof **cp);
		int n = decode(c->line[y], cp[y], cols + 1);
		cr_assert_leq(n, cols, "%dx%d k %d: line %d has %d cells", cols, rows, q->k, y, n);
		for (int x = n; x < cols; x++)
			cp[y][x] = ' ';
	}
	for (int s = 0; s < q->k; s++) {
		const int *b = c->box[s];
		if (b[2] == 0 && b[3] == 0 && !all_drawn)
			continue;
		cr_assert(b[0] >= 0 && b[1] >= 0 && b[2] >= 3 && b[3] >= 3 && b[0] + b[2] <= cols &&
		                  b[1] + b[3] <= rows,
		          "%dx%d k %d: stage %d's box %d,%d %dx%d is not inside the grid", cols,
		          rows, q->k, s + 1, b[0], b[1], b[2], b[3]);
		for (int t = 0; t < s; t++) {
			const int *o = c->box[t];
			if (o[2] == 0)
				continue;
			bool apart = b[0] + b[2] <= o[0] || o[0] + o[2] <= b[0] ||
			             b[1] + b[3] <= o[1] || o[1] + o[3] <= b[1];
			if (!apart)
				print_canvas(c);
			cr_assert(apart, "%dx%d k %d: boxes of stages %d and %d overlap", cols,
			          rows, q->k, t + 1, s + 1);
		}
		/* the bottleneck and the stages tied with it have heavy boxes */
		bool bn = sc_quotient_at_bottleneck(q, s);
		uint32_t tl = cp[b[1]][b[0]], br = cp[b[1] + b[3] - 1][b[0] + b[2] - 1];
		cr_assert_eq(tl, bn ? 0x250F : 0x250C, "%dx%d k %d: stage %d's corner", cols, rows,
		             q->k, s + 1);
		cr_assert_eq(br, bn ? 0x251B : 0x2518);
		uint32_t side = cp[b[1] + 1][b[0]];
		cr_assert_eq(side, bn ? 0x2503 : 0x2502);
		/* the stage number, and the bottleneck's star, inside the box */
		char inside[4096] = "";
		size_t len = 0;
		bool star = false;
		for (int y = b[1] + 1; y < b[1] + b[3] - 1; y++) {
			for (int x = b[0] + 1; x < b[0] + b[2] - 1 && len + 2 < sizeof inside;
			     x++) {
				uint32_t ch = cp[y][x];
				star |= ch == '*';
				inside[len++] = ch < 0x80 ? (char)ch : '?';
			}
			inside[len++] = '\n';
		}
		inside[len] = '\0';
		cr_assert_eq(star, bn, "%dx%d k %d: stage %d: star", cols, rows, q->k, s + 1);
		char num[16];
		snprintf(num, sizeof num, "%d", s + 1);
		cr_assert(strstr(inside, num), "%dx%d k %d: stage %d's number is not in its box",
		          cols, rows, q->k, s + 1);
	}
	for (int y = 0; y < rows; y++)
		free(cp[y]);
	free(cp);
}

static sc_canvas *draw(const sc_layout *l, const sc_quotient *q, int cols, int rows)
{
	sc_error err;
	sc_error_clear(&err);
	sc_canvas *c = sc_canvas_draw(l, q, cols, rows, &err);
	cr_assert(c, "%dx%d: %s", cols, rows, err.msg);
	return c;
}

Test(canvas, canvas_figure2_at_80x24)
{
	sc_quotient *q = ts_figure2_quotient();
	sc_layout *l = ts_layout_of(q, NULL);
	sc_canvas *c = draw(l, q, 76, 18);
	check_canvas(c, q, 76, 18, true);
	/* everything fits here: full headings, costs, volumes and arrows */
	char all[8192] = "";
	for (int y = 0; y < c->rows; y++) {
		strcat(all, c->line[y]);
		strcat(all, "\n");
	}
	cr_assert(strstr(all, "stage 1") && strstr(all, "stage 2 *") && strstr(all, "stage 3"),
	          "%s", all);
	cr_assert(strstr(all, "cost") && strstr(all, "8"), "%s", all);
	cr_assert(strstr(all, "2 B"), "%s", all);
	cr_assert(strstr(all, "\u2500>"), "an arrow:\n%s", all);
	cr_assert(strstr(all, "bottleneck"), "%s", all);
	/* left to right */
	cr_assert_lt(c->box[0][0], c->box[1][0]);
	cr_assert_lt(c->box[1][0], c->box[2][0]);
	sc_canvas_free(c);
	sc_canvas_free(NULL);
	sc_layout_free(l);
	sc_quotient_free(q);
}

/* What the canvas could not tell: nothing for figure2 at 80x24 or more;
 * on a dense stage graph (a random graph of 200 ops in 12 stages, edges
 * between most pairs) edges that merge and volumes without room; in the
 * wrapped drawing (a narrow grid), the edges between stages that are not
 * consecutive, which it leaves out, and none of a chain's. */
Test(canvas, canvas_counts_what_it_cannot_tell)
{
	sc_quotient *q = ts_figure2_quotient();
	sc_layout *l = ts_layout_of(q, NULL);
	static const int size[][2] = {{76, 18}, {120, 35}, {200, 50}};
	for (size_t j = 0; j < sizeof size / sizeof size[0]; j++) {
		sc_canvas *c = draw(l, q, size[j][0], size[j][1]);
		cr_assert_eq(c->unlabelled + c->merged + c->hidden, 0, "%dx%d: %d %d %d",
		             size[j][0], size[j][1], c->unlabelled, c->merged, c->hidden);
		sc_canvas_free(c);
	}
	sc_layout_free(l);
	sc_quotient_free(q);

	ts_rng r = {4242};
	ts_graph_spec spec = {.n = 200, .edge_p = 0.03};
	sc_settings_init(&spec.settings);
	sc_graph *g = ts_random_graph(&r, &spec);
	int *stage = malloc((size_t)g->n * sizeof *stage);
	cr_assert(sc_greedy_split(g, 12, stage, NULL) == SC_OK);
	q = ts_quotient_of(g, 12, stage);
	cr_assert_gt(q->nedges, 30, "a dense stage graph: %d edges", q->nedges);
	l = ts_layout_of(q, NULL);
	sc_canvas *c = draw(l, q, 120, 35);
	cr_assert_gt(c->unlabelled + c->merged, 0, "crowded at 120x35");
	cr_assert_eq(c->hidden, 0);
	sc_canvas_free(c);
	/* 30 columns: the wrapped drawing, every edge but the consecutive
	 * ones left out */
	c = draw(l, q, 30, 40);
	cr_assert_eq(c->box[0][0] + c->box[0][2] <= 30, true);
	int consecutive = 0;
	for (int i = 0; i < q->nedges; i++)
		consecutive += q->edges[i].to == q->edges[i].from + 1;
	cr_assert_geq(c->hidden, q->nedges - consecutive);
	cr_assert_gt(c->hidden, 0);
	sc_canvas_free(c);
	sc_layout_free(l);
	sc_quotient_free(q);
	free(stage);
	sc_graph_free(g);

	int *cs;
	g = ts_chain_graph(40, 12, &cs);
	q = ts_quotient_of(g, 12, cs);
	l = ts_layout_of(q, NULL);
	c = draw(l, q, 40, 40);
	cr_assert_eq(c->merged + c->unlabelled, 0);
	sc_canvas_free(c);
	sc_layout_free(l);
	sc_quotient_free(q);
	free(cs);
	sc_graph_free(g);
}

Test(canvas, canvas_sizes_and_stage_counts)
{
	static const int size[][2] = {{80, 24},  {76, 18},  {100, 30}, {132, 43},
	                              {200, 50}, {250, 70}, {60, 15}};
	static const int ks[] = {1, 3, 16, 64};
	sc_graph *g = ts_load("samples/msr-fiddle/operator/resnet50_inference.json");
	int *stage = malloc((size_t)g->n * sizeof *stage);
	for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
		int k = ks[i];
		cr_assert(sc_greedy_split(g, k, stage, NULL) == SC_OK);
		sc_quotient *q = ts_quotient_of(g, k, stage);
		sc_layout *l = ts_layout_of(q, NULL);
		for (size_t j = 0; j < sizeof size / sizeof size[0]; j++) {
			int cols = size[j][0], rows = size[j][1];
			sc_canvas *c = draw(l, q, cols, rows);
			check_canvas(c, q, cols, rows, cols >= 76 && rows >= 18);
			sc_canvas_free(c);
		}
		sc_layout_free(l);
		sc_quotient_free(q);
	}
	free(stage);
	sc_graph_free(g);
}

Test(canvas, canvas_branching_partitions)
{
	ts_rng r = {31337};
	for (int t = 0; t < 10; t++) {
		ts_graph_spec spec = {.n = 10 + ts_below(&r, 30), .edge_p = 0.2};
		sc_settings_init(&spec.settings);
		sc_graph *g = ts_random_graph(&r, &spec);
		int k = 2 + ts_below(&r, 7);
		int *stage = malloc((size_t)g->n * sizeof *stage);
		cr_assert(sc_greedy_split(g, k, stage, NULL) == SC_OK);
		sc_quotient *q = ts_quotient_of(g, k, stage);
		sc_layout *l = ts_layout_of(q, NULL);
		static const int size[][2] = {{76, 18}, {80, 24}, {160, 48}, {250, 70}};
		for (size_t j = 0; j < sizeof size / sizeof size[0]; j++) {
			sc_canvas *c = draw(l, q, size[j][0], size[j][1]);
			check_canvas(c, q, size[j][0], size[j][1], true);
			sc_canvas_free(c);
		}
		sc_layout_free(l);
		sc_quotient_free(q);
		free(stage);
		sc_graph_free(g);
	}
}

Test(canvas, canvas_tiny_grids_never_break)
{
	int *stage;
	sc_graph *g = ts_chain_graph(40, 12, &stage);
	sc_quotient *q = ts_quotient_of(g, 12, stage);
	sc_layout *l = ts_layout_of(q, NULL);
	for (int cols = 1; cols <= 40; cols += 3)
		for (int rows = 1; rows <= 12; rows++) {
			sc_canvas *c = draw(l, q, cols, rows);
			check_canvas(c, q, cols, rows, false);
			sc_canvas_free(c);
		}
	sc_error err;
	cr_assert_null(sc_canvas_draw(l, q, 0, 10, &err));
	cr_assert_eq(err.code, SC_ERR_INPUT);
	cr_assert_null(sc_canvas_draw(l, q, 10, -1, &err));
	cr_assert_eq(err.code, SC_ERR_INPUT);
	sc_quotient *other = ts_figure2_quotient();
	cr_assert_null(sc_canvas_draw(l, other, 80, 24, &err));
	cr_assert_eq(err.code, SC_ERR_INPUT);
	sc_quotient_free(other);
	sc_layout_free(l);
	sc_quotient_free(q);
	free(stage);
	sc_graph_free(g);
}

/* The whole canvas as one string, a newline after each line. */
static char *canvas_text(const sc_canvas *c)
{
	size_t size = 1;
	for (int y = 0; y < c->rows; y++)
		size += strlen(c->line[y]) + 1;
	char *all = malloc(size), *p = all;
	for (int y = 0; y < c->rows; y++)
		p += sprintf(p, "%s\n", c->line[y]);
	*p = '\0';
	return all;
}

/* A training graph's stage graph in the terminal (the workbench's view 3):
 * each box shows the cost split by pass right under it (fw, bw), each edge
 * the volume of each pass (tests/data/training_small.json under its
 * partition into 3 stages: see test_viz.c's hand computation), and the
 * invariants of every canvas hold from roomy to tiny grids. */
Test(canvas, training_boxes_and_volumes_by_pass)
{
	sc_graph *g = ts_load("tests/data/training_small.json");
	int stage[9];
	ts_read_partition("tests/data/training_small.k3.json", g, 3, stage);
	sc_quotient *q = ts_quotient_of(g, 3, stage);
	cr_assert(q->training);
	sc_layout *l = ts_layout_of(q, NULL);
	sc_canvas *c = draw(l, q, 100, 30);
	check_canvas(c, q, 100, 30, true);
	char *all = canvas_text(c);
	for (int s = 0; s < 3; s++) {
		/* the box's rows, in order: title, cost, fw, bw, ops */
		const int *b = c->box[s];
		const char *want[] = {"cost", "fw", "bw", "ops"};
		for (int i = 0; i < 4; i++) {
			/* the box's interior on that row, as ASCII */
			uint32_t cp[256];
			int n = decode(c->line[b[1] + 2 + i], cp, 256);
			char inside[256];
			int len = 0;
			for (int x = b[0] + 1; x < b[0] + b[2] - 1 && x < n; x++)
				inside[len++] = cp[x] < 0x80 ? (char)cp[x] : '?';
			inside[len] = '\0';
			cr_assert(strncmp(inside, want[i], strlen(want[i])) == 0,
			          "stage %d row %d is not %s: '%s'\n%s", s + 1, i + 2, want[i],
			          inside, all);
		}
	}
	cr_assert(strstr(all, "fw 2 B") && strstr(all, "bw 2 B") && strstr(all, "fw 1 B") &&
	                  strstr(all, "bw 1 B"),
	          "the volumes by pass:\n%s", all);
	free(all);
	sc_canvas_free(c);
	for (int cols = 1; cols <= 120; cols += 7)
		for (int rows = 1; rows <= 40; rows += 3) {
			c = draw(l, q, cols, rows);
			check_canvas(c, q, cols, rows, false);
			sc_canvas_free(c);
		}
	sc_layout_free(l);
	sc_quotient_free(q);
	sc_graph_free(g);
}
