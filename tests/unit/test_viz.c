/*
 * test_viz.c - the Graphviz layer: quotient volumes by hand on the paper's
 * Figure 2 and against a brute-force recount on random graphs; the dot
 * layout read back (one node per stage, a chain left to right, everything
 * inside the bounding box); pictures (the svg names every stage's cost and
 * the bottleneck, the png is a png, unknown formats are refused, cgraph's
 * defaults are left as they were); training graphs' quotients by pass.
 * The terminal canvas is tested in test_canvas.c.
 *
 * Longer than 600 lines: the training tests use the same helpers (the
 * recount's settings, rendering, reading the svg back) as the inference
 * ones; a second file would copy them.
 */
#define _POSIX_C_SOURCE 200809L /* strndup */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cost.h"
#include "core/formats/write_dot.h"
#include "solvers/simple.h"
#include "tests/support.h"
#include "viz/gv.h"
#include "viz/layout.h"
#include "viz/quotient.h"

#define EPS 1e-9

static void close_to(double got, double want, const char *what)
{
	double tol = EPS * (1 + fabs(want));
	cr_assert(fabs(got - want) <= tol, "%s: got %.17g, want %.17g", what, got, want);
}

/* The quotient of g under stage with g's settings and k stages. */
/* ---- the quotient ------------------------------------------------------ */

Test(viz, quotient_figure2_by_hand)
{
	sc_quotient *q = ts_figure2_quotient();
	cr_assert_eq(q->k, 3);
	/* u's tensor enters stage 2 once although v and w both read it; v's
	 * and w's tensors both enter stage 3 (see figure2.dot) */
	cr_assert_eq(q->nedges, 2);
	cr_assert_eq(q->edges[0].from, 0);
	cr_assert_eq(q->edges[0].to, 1);
	close_to(q->edges[0].volume, 2, "volume 1->2");
	cr_assert_eq(q->edges[1].from, 1);
	cr_assert_eq(q->edges[1].to, 2);
	close_to(q->edges[1].volume, 2, "volume 2->3");
	const double cost[] = {5, 8, 5};
	for (int s = 0; s < 3; s++) {
		close_to(q->st[s].cost, cost[s], "cost");
		cr_assert_eq(q->st[s].ops, 2);
	}
	cr_assert_eq(q->bottleneck, 1);
	close_to(q->bottleneck_cost, 8, "bottleneck");
	sc_quotient_free(q);
}

static void random_settings(ts_rng *r, sc_settings *s)
{
	sc_settings_init(s);
	s->bandwidth = 0.5 + ts_uniform(r) * 3;
	s->memory = ts_uniform(r) < 0.3 ? INFINITY : ts_uniform(r) * 40;
	s->policy = ts_uniform(r) < 0.5 ? SC_MEM_HARD : SC_MEM_OVERFLOW;
}

Test(viz, quotient_matches_a_brute_force_recount)
{
	ts_rng r = {777};
	for (int t = 0; t < 300; t++) {
		ts_graph_spec spec = {.n = 1 + ts_below(&r, 40),
		                      .edge_p = ts_uniform(&r) * 0.3,
		                      .group_p = 0.2,
		                      .ngroups = 3};
		random_settings(&r, &spec.settings);
		sc_graph *g = ts_random_graph(&r, &spec);
		int k = 1 + ts_below(&r, 6);
		int *stage = malloc((size_t)g->n * sizeof *stage);
		sc_error err;
		if (t % 3 == 2) /* any assignment: the quotient does not need validity */
			for (int v = 0; v < g->n; v++)
				stage[v] = ts_below(&r, k);
		else
			cr_assert(sc_greedy_split(g, k, stage, &err) == SC_OK, "%s", err.msg);
		sc_quotient *q = ts_quotient_of(g, k, stage);

		/* the volume s -> t from the definition: every op of s with a
		 * successor in t sends its tensor once */
		double *vol = calloc((size_t)(k * k), sizeof *vol);
		bool *has = calloc((size_t)(k * k), sizeof *has);
		for (int v = 0; v < g->n; v++)
			for (int to = 0; to < k; to++) {
				if (to == stage[v])
					continue;
				bool reads = false;
				for (int i = g->succ_off[v]; i < g->succ_off[v + 1]; i++)
					reads |= stage[g->succ[i]] == to;
				if (reads) {
					vol[stage[v] * k + to] += g->out[v];
					has[stage[v] * k + to] = true;
				}
			}
		int want_edges = 0;
		for (int i = 0; i < k * k; i++)
			want_edges += has[i];
		cr_assert_eq(q->nedges, want_edges, "graph %d: %d edges, want %d", t, q->nedges,
		             want_edges);
		for (int i = 0; i < q->nedges; i++) {
			const sc_qedge *e = &q->edges[i];
			cr_assert(e->from != e->to && e->from >= 0 && e->to < k);
			cr_assert(has[e->from * k + e->to]);
			close_to(e->volume, vol[e->from * k + e->to], "volume");
			if (i > 0)
				cr_assert(e->from > q->edges[i - 1].from ||
				                  (e->from == q->edges[i - 1].from &&
				                   e->to > q->edges[i - 1].to),
				          "edges sorted and unique");
			if (t % 3 != 2)
				cr_assert_lt(e->from, e->to,
				             "a valid partition sends data forward");
		}

		/* the costs are the cost model's, and what enters a stage is its
		 * in bytes */
		sc_settings set = g->settings;
		set.k = k;
		sc_costs *c = sc_costs_new(g, &set, NULL);
		sc_costs_eval(c, stage);
		int at;
		close_to(q->bottleneck_cost, sc_costs_bottleneck(c, &at), "bottleneck");
		cr_assert_eq(q->bottleneck, at);
		for (int s = 0; s < k; s++) {
			cr_assert_eq(q->st[s].ops, c->st[s].ops);
			close_to(q->st[s].cost, c->st[s].cost, "cost");
			double in = 0, out = 0;
			for (int i = 0; i < q->nedges; i++) {
				if (q->edges[i].to == s)
					in += q->edges[i].volume;
				if (q->edges[i].from == s)
					out += q->edges[i].volume;
			}
			close_to(in, q->st[s].in_bytes, "in bytes");
			cr_assert(out >= q->st[s].out_bytes - EPS * (1 + out), "out bytes");
		}
		sc_costs_free(c);
		free(vol);
		free(has);
		sc_quotient_free(q);
		free(stage);
		sc_graph_free(g);
	}
}

Test(viz, quotient_refuses_bad_input)
{
	sc_graph *g = ts_load("samples/paper/figure2.dot");
	sc_settings set = g->settings;
	int stage[6] = {0, 0, 1, 1, 2, 3};
	sc_error err;
	set.k = 3;
	cr_assert_null(sc_quotient_new(g, &set, stage, &err));
	cr_assert_eq(err.code, SC_ERR_INPUT);
	cr_assert(strstr(err.msg, "stage 4"), "%s", err.msg);
	set.k = 0;
	cr_assert_null(sc_quotient_new(g, &set, g->init_stage, &err));
	cr_assert_eq(err.code, SC_ERR_INPUT);
	sc_graph_free(g);
	sc_quotient_free(NULL);
}

Test(viz, number_formats)
{
	char b[32];
	cr_assert_str_eq(sc_quotient_fmt(0, b, sizeof b), "0");
	cr_assert_str_eq(sc_quotient_fmt(8, b, sizeof b), "8");
	cr_assert_str_eq(sc_quotient_fmt(12.3456, b, sizeof b), "12.35");
	cr_assert_str_eq(sc_quotient_fmt(1234.4, b, sizeof b), "1234");
	cr_assert_str_eq(sc_quotient_fmt(123457, b, sizeof b), "123457");
	cr_assert_str_eq(sc_quotient_fmt(0.001234, b, sizeof b), "0.001234");
	cr_assert_str_eq(sc_quotient_fmt(1.234e9, b, sizeof b), "1.23e9");
	cr_assert_str_eq(sc_quotient_fmt(9.999e-5, b, sizeof b), "1e-4");
	cr_assert_str_eq(sc_quotient_fmt(INFINITY, b, sizeof b), "inf");
	cr_assert_str_eq(sc_quotient_fmt_bytes(2, b, sizeof b), "2 B");
	cr_assert_str_eq(sc_quotient_fmt_bytes(1500, b, sizeof b), "1.5 kB");
	cr_assert_str_eq(sc_quotient_fmt_bytes(23.4e6, b, sizeof b), "23.4 MB");
	cr_assert_str_eq(sc_quotient_fmt_bytes(999.7e6, b, sizeof b), "1 GB");
}

/* ---- the layout -------------------------------------------------------- */

static void assert_inside(const sc_layout *l, double x, double y, const char *what)
{
	const double slack = 1e-6;
	cr_assert(x >= -slack && x <= l->width + slack && y >= -slack && y <= l->height + slack,
	          "%s (%g, %g) outside the %g x %g drawing", what, x, y, l->width, l->height);
}

static void check_layout(const sc_quotient *q, const sc_layout *l)
{
	cr_assert_eq(l->nnodes, q->k);
	cr_assert_eq(l->nedges, q->nedges);
	cr_assert_gt(l->width, 0);
	cr_assert_gt(l->height, 0);
	for (int s = 0; s < l->nnodes; s++) {
		const sc_lnode *n = &l->node[s];
		cr_assert_gt(n->w, 0);
		cr_assert_gt(n->h, 0);
		assert_inside(l, n->x - n->w / 2, n->y - n->h / 2, "node corner");
		assert_inside(l, n->x + n->w / 2, n->y + n->h / 2, "node corner");
	}
	for (int i = 0; i < l->nedges; i++) {
		const sc_ledge *e = &l->edge[i];
		cr_assert_eq(e->from, q->edges[i].from);
		cr_assert_eq(e->to, q->edges[i].to);
		cr_assert_geq(e->npts, 4, "edge %d has a route", i);
		cr_assert_eq((e->npts - 1) % 3, 0, "Bezier pieces");
		for (int j = 0; j < e->npts; j++)
			assert_inside(l, e->pts[2 * j], e->pts[2 * j + 1], "spline point");
		assert_inside(l, e->lx, e->ly, "label");
		/* the route runs from the tail's box to the head's */
		const sc_lnode *a = &l->node[e->from], *b = &l->node[e->to];
		double x0 = e->pts[0], y0 = e->pts[1];
		double x1 = e->pts[2 * (e->npts - 1)], y1 = e->pts[2 * (e->npts - 1) + 1];
		cr_assert(fabs(x0 - a->x) <= a->w / 2 + 2 && fabs(y0 - a->y) <= a->h / 2 + 2,
		          "edge %d starts at (%g, %g), away from its tail", i, x0, y0);
		cr_assert(fabs(x1 - b->x) <= b->w / 2 + 2 && fabs(y1 - b->y) <= b->h / 2 + 2,
		          "edge %d ends at (%g, %g), away from its head", i, x1, y1);
	}
}

Test(viz, layout_figure2)
{
	sc_quotient *q = ts_figure2_quotient();
	sc_layout *l = ts_layout_of(q, "figure2");
	check_layout(q, l);
	for (int s = 1; s < 3; s++)
		cr_assert_gt(l->node[s].x, l->node[s - 1].x + l->node[s - 1].w / 2,
		             "stage %d right of stage %d", s + 1, s);
	/* the title takes room above the stages */
	sc_layout *bare = ts_layout_of(q, NULL);
	check_layout(q, bare);
	cr_assert_lt(bare->height, l->height);
	sc_layout_free(bare);
	sc_layout_free(l);
	sc_layout_free(NULL);
	sc_quotient_free(q);
}

Test(viz, layout_chain_runs_left_to_right)
{
	const int ks[] = {1, 2, 5, 16};
	for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
		int k = ks[i], *stage;
		sc_graph *g = ts_chain_graph(3 * k, k, &stage);
		sc_quotient *q = ts_quotient_of(g, k, stage);
		cr_assert_eq(q->nedges, k - 1);
		sc_layout *l = ts_layout_of(q, g->name);
		check_layout(q, l);
		for (int s = 1; s < k; s++) {
			cr_assert_gt(l->node[s].x, l->node[s - 1].x, "k %d: stage %d left of %d", k,
			             s + 1, s);
			close_to(l->node[s].y, l->node[0].y, "one row");
		}
		sc_layout_free(l);
		sc_quotient_free(q);
		free(stage);
		sc_graph_free(g);
	}
}

Test(viz, layout_random_partitions)
{
	ts_rng r = {4242};
	for (int t = 0; t < 12; t++) {
		ts_graph_spec spec = {.n = 5 + ts_below(&r, 30), .edge_p = 0.15};
		sc_settings_init(&spec.settings);
		sc_graph *g = ts_random_graph(&r, &spec);
		int k = 1 + ts_below(&r, 7);
		int *stage = malloc((size_t)g->n * sizeof *stage);
		cr_assert(sc_greedy_split(g, k, stage, NULL) == SC_OK);
		sc_quotient *q = ts_quotient_of(g, k, stage);
		sc_layout *l = ts_layout_of(q, NULL);
		check_layout(q, l);
		/* data only flows forward, and dot ranks left to right */
		for (int i = 0; i < l->nedges; i++)
			cr_assert_lt(l->node[l->edge[i].from].x, l->node[l->edge[i].to].x);
		sc_layout_free(l);
		sc_quotient_free(q);
		free(stage);
		sc_graph_free(g);
	}
}

/* ---- pictures ---------------------------------------------------------- */

static char *slurp(const char *path, size_t *len)
{
	char *text = ts_slurp(path, len);
	cr_assert(text, "cannot read %s", path);
	return text;
}

static void tmp_path(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "/tmp/stagecut-test-viz-%ld-%s", (long)getpid(), name);
}

static void render_ok(const sc_quotient *q, const char *title, const char *format, const char *path)
{
	sc_error err;
	sc_error_clear(&err);
	sc_caption cap = {.title = title, .lower = NAN};
	cr_assert(sc_render_quotient(q, &cap, format, path, NULL, &err) == SC_OK, "%s", err.msg);
}

/* The text of the svg group of node `name` (up to the next group). */
static char *svg_node(const char *svg, const char *name)
{
	char title[64];
	snprintf(title, sizeof title, "<title>%s</title>", name);
	const char *at = strstr(svg, title);
	cr_assert(at, "no node %s in the svg", name);
	const char *end = strstr(at, "</g>");
	cr_assert(end);
	return strndup(at, (size_t)(end - at));
}

/* The svg names every stage's cost (formatted as in the label, right after
 * the word cost) and marks the bottleneck in words. */
static void check_svg(const sc_quotient *q, const char *svg)
{
	for (int s = 0; s < q->k; s++) {
		char name[32], want[64];
		snprintf(name, sizeof name, "s%d", s + 1);
		char *node = svg_node(svg, name);
		snprintf(want, sizeof want, ">stage %d</text>", s + 1);
		cr_assert(strstr(node, want), "stage %d's heading is not in the svg", s + 1);
		const char *cost = strstr(node, ">cost</text>");
		cr_assert(cost, "stage %d has no cost in the svg", s + 1);
		char num[32];
		snprintf(want, sizeof want, ">%s</text>",
		         sc_quotient_fmt(q->st[s].cost, num, sizeof num));
		const char *value = strstr(cost, "<text");
		cr_assert(value && strncmp(strchr(value, '>'), want, strlen(want)) == 0,
		          "stage %d: the cost shown is not %s", s + 1, want);
		bool marked = strstr(node, ">bottleneck</text>") != NULL;
		cr_assert_eq(marked, s == q->bottleneck, "stage %d bottleneck mark", s + 1);
		free(node);
	}
	for (int i = 0; i < q->nedges; i++) {
		char vol[32], want[64];
		snprintf(want, sizeof want, ">%s</text>",
		         sc_quotient_fmt_bytes(q->edges[i].volume, vol, sizeof vol));
		cr_assert(strstr(svg, want), "volume %s is not in the svg", vol);
	}
}

Test(viz, render_svg_names_costs_and_the_bottleneck)
{
	sc_quotient *q = ts_figure2_quotient();
	char path[256];
	tmp_path(path, sizeof path, "figure2.svg");
	render_ok(q, "figure2 <&>", "svg", path);
	char *svg = slurp(path, NULL);
	cr_assert(strstr(svg, "<svg"), "not an svg");
	cr_assert(strstr(svg, "figure2 &lt;&amp;&gt;"), "the title is escaped");
	check_svg(q, svg);
	free(svg);
	unlink(path);
	sc_quotient_free(q);

	/* and on a bigger partition of a real model */
	sc_graph *g = ts_load("samples/msr-fiddle/operator/resnet50_inference.json");
	int *stage = malloc((size_t)g->n * sizeof *stage);
	cr_assert(sc_greedy_split(g, 8, stage, NULL) == SC_OK);
	q = ts_quotient_of(g, 8, stage);
	tmp_path(path, sizeof path, "resnet.svg");
	render_ok(q, g->name, "svg", path);
	svg = slurp(path, NULL);
	check_svg(q, svg);
	free(svg);
	unlink(path);
	sc_quotient_free(q);
	free(stage);
	sc_graph_free(g);
}

/* The caption's lines, as the svg writes them (one <text> each). */
static char *caption_svg(const sc_quotient *q, double lower, const char *by)
{
	char path[256];
	tmp_path(path, sizeof path, "caption.svg");
	sc_error err;
	sc_caption cap = {.title = "figure2", .lower = lower, .lower_by = by};
	cr_assert(sc_render_quotient(q, &cap, "svg", path, NULL, &err) == SC_OK, "%s", err.msg);
	char *svg = slurp(path, NULL);
	unlink(path);
	return svg;
}

Test(viz, caption_gives_the_lower_bound_and_the_gap)
{
	sc_quotient *q = ts_figure2_quotient();
	char num[32], want[128];
	/* no bound known: k and the bottleneck only */
	char *svg = caption_svg(q, NAN, NULL);
	snprintf(want, sizeof want, ">%d stages, bottleneck %s in stage %d</text>", q->k,
	         sc_quotient_fmt(q->bottleneck_cost, num, sizeof num), q->bottleneck + 1);
	cr_assert(strstr(svg, want), "no summary line %s", want);
	cr_assert_null(strstr(svg, "lower bound"));
	free(svg);
	/* a bound below the bottleneck: the gap bottleneck / bound - 1 */
	double lb = q->bottleneck_cost * 0.8;
	svg = caption_svg(q, lb, "bottleneck");
	snprintf(want, sizeof want, ">best lower bound %s (bottleneck), gap 25.00%%</text>",
	         sc_quotient_fmt(lb, num, sizeof num));
	cr_assert(strstr(svg, want), "no line %s", want);
	free(svg);
	/* a bound meeting it proves the partition optimal */
	svg = caption_svg(q, q->bottleneck_cost, "exact");
	cr_assert(strstr(svg, "proven optimal"));
	cr_assert_null(strstr(svg, "gap"));
	free(svg);
	cr_assert_float_eq(sc_caption_gap(10, 8), 0.25, 1e-12);
	cr_assert_eq(sc_caption_gap(10, 10 * (1 + 1e-12)), 0);
	cr_assert(isnan(sc_caption_gap(10, 0)) && isnan(sc_caption_gap(10, NAN)));
	sc_quotient_free(q);
}

/* The caption with what the partition is and the best found: figure2's
 * own partition (bottleneck 8) over the bound 7 (gap 14.29%), the best 7
 * beside it (optimal); a best no better than the partition is not said. */
Test(viz, caption_names_the_partition_and_the_best_found)
{
	sc_quotient *q = ts_figure2_quotient();
	cr_assert_float_eq(q->bottleneck_cost, 8, 1e-12);
	char path[256];
	tmp_path(path, sizeof path, "caption-best.svg");
	sc_error err;
	sc_caption cap = {.title = "figure2",
	                  .lower = 7,
	                  .lower_by = "exact DP",
	                  .what = "the partition on screen: edited by hand",
	                  .best = 7,
	                  .best_by = "dpl"};
	cr_assert(sc_render_quotient(q, &cap, "svg", path, NULL, &err) == SC_OK, "%s", err.msg);
	char *svg = slurp(path, NULL);
	cr_assert(strstr(svg, ">the partition on screen: edited by hand</text>"), "%s", svg);
	cr_assert(strstr(svg, ">best lower bound 7 (exact DP), gap 14.29%</text>"), "%s", svg);
	cr_assert(strstr(svg, ">best found 7 (dpl): optimal</text>"), "%s", svg);
	free(svg);
	/* a best of 7.5 over the bound 5: both gaps, 60% and 50% */
	cap.lower = 5;
	cap.best = 7.5;
	cr_assert(sc_render_quotient(q, &cap, "svg", path, NULL, &err) == SC_OK, "%s", err.msg);
	svg = slurp(path, NULL);
	cr_assert(strstr(svg, ">best lower bound 5 (exact DP), gap 60.00%</text>"), "%s", svg);
	cr_assert(strstr(svg, ">best found 7.5 (dpl), gap 50.00%</text>"), "%s", svg);
	free(svg);
	/* the best no better than the partition: not said */
	cap.best = 8;
	cr_assert(sc_render_quotient(q, &cap, "svg", path, NULL, &err) == SC_OK, "%s", err.msg);
	svg = slurp(path, NULL);
	cr_assert_null(strstr(svg, "best found"));
	free(svg);
	unlink(path);
	sc_quotient_free(q);
}

Test(viz, render_png_and_dot)
{
	sc_quotient *q = ts_figure2_quotient();
	char path[256];
	tmp_path(path, sizeof path, "figure2.png");
	render_ok(q, "figure2", "png", path);
	size_t len;
	char *png = slurp(path, &len);
	cr_assert_gt(len, 1000);
	cr_assert(memcmp(png, "\x89PNG\r\n\x1a\n", 8) == 0, "PNG signature");
	free(png);
	/* the same path again: replaced atomically, no temporary left */
	render_ok(q, "figure2", "png:cairo", path);
	unlink(path);

	tmp_path(path, sizeof path, "figure2.gv");
	render_ok(q, "figure2", "dot", path);
	char *dot = slurp(path, NULL);
	cr_assert(strstr(dot, "digraph quotient"), "%s", dot);
	cr_assert(strstr(dot, "rankdir=LR"), "%s", dot);
	cr_assert(strstr(dot, "pos="), "laid out");
	free(dot);
	unlink(path);
	sc_quotient_free(q);
}

Test(viz, render_refuses_unknown_formats_and_bad_paths)
{
	sc_quotient *q = ts_figure2_quotient();
	char path[256];
	tmp_path(path, sizeof path, "figure2.nope");
	sc_error err;
	sc_caption cap = {.title = "t", .lower = NAN};
	cr_assert_eq(sc_render_quotient(q, &cap, "nope", path, NULL, &err), SC_ERR_INPUT);
	cr_assert(strstr(err.msg, "'nope'"), "%s", err.msg);
	cr_assert(strstr(err.msg, "png") && strstr(err.msg, "svg"), "%s", err.msg);
	cr_assert_neq(access(path, F_OK), 0, "nothing written");
	cr_assert_eq(sc_render_quotient(q, &cap, "", path, NULL, &err), SC_ERR_INPUT);
	cr_assert_eq(sc_render_quotient(q, &cap, NULL, path, NULL, &err), SC_ERR_INPUT);
	cr_assert_eq(sc_render_quotient(q, &cap, "x11", path, NULL, &err), SC_ERR_INPUT,
	             "a window is not a file");
	cr_assert_eq(sc_render_quotient(q, &cap, "png:nosuch", path, NULL, &err), SC_ERR_INPUT);
	cr_assert(strstr(err.msg, "png:nosuch"), "%s", err.msg);
	cr_assert_neq(access(path, F_OK), 0, "nothing written");
	cr_assert_eq(sc_render_quotient(q, &cap, "svg", "/nonexistent-dir/q.svg", NULL, &err),
	             SC_ERR_IO);
	cr_assert(strstr(err.msg, "/nonexistent-dir/q.svg"), "%s", err.msg);
	sc_quotient_free(q);
}

/* gvContext() declares a default node label in cgraph's prototype graph;
 * DOT files written after a picture must not carry it. */
Test(viz, rendering_leaves_dot_output_alone)
{
	sc_graph *g = ts_load("samples/paper/figure2.dot");
	sc_quotient *q = ts_quotient_of(g, 3, g->init_stage);
	char pic[256], path[256];
	tmp_path(pic, sizeof pic, "before.svg");
	render_ok(q, "t", "svg", pic);
	unlink(pic);
	sc_layout_free(ts_layout_of(q, NULL));
	tmp_path(path, sizeof path, "after.dot");
	sc_error err;
	cr_assert(sc_write_dot(g, g->init_stage, path, &err) == SC_OK, "%s", err.msg);
	char *text = slurp(path, NULL);
	cr_assert_null(strstr(text, "label"), "%s", text);
	free(text);
	unlink(path);
	sc_quotient_free(q);
	sc_graph_free(g);
}

/* ---- the canvas -------------------------------------------------------- */

/* Decodes a UTF-8 line into code points; returns their number. */

/* ---- training graphs --------------------------------------------------- */

#define TRAINING_SMALL "tests/data/training_small.json"
#define TRAINING_SMALL_K3 "tests/data/training_small.k3.json"

/* tests/data/training_small.json under its partition into 3 stages with
 * the schedule sched. */
static sc_quotient *training_small_quotient(sc_schedule sched, sc_graph **gp)
{
	sc_graph *g = ts_load(TRAINING_SMALL);
	int stage[9];
	cr_assert_eq(g->n, 9);
	ts_read_partition(TRAINING_SMALL_K3, g, 3, stage);
	sc_settings set = g->settings;
	set.k = 3;
	set.schedule = sched;
	sc_error err;
	sc_quotient *q = sc_quotient_new(g, &set, stage, &err);
	cr_assert(q, "%s", err.msg);
	if (gp)
		*gp = g;
	else
		sc_graph_free(g);
	return q;
}

/* The hand computation of tests/tui/test_wbtraining.c: stage 1 {embed,
 * layer1 and their grads} costs 15 = fw 7 + bw 8, stage 2 {layer2,
 * layer2_grad, grad_sum} 16 = 6 + 10, stage 3 {loss, loss_grad} 4 = 2 + 2.
 * The tensors crossing: layer1 (2 B, forward) 1 -> 2, layer2_grad (2 B,
 * backward) 2 -> 1, layer2 (1 B, forward) 2 -> 3, loss_grad (1 B,
 * backward) 3 -> 2.  GPipe: max fw 7 (stage 1) + max bw 10 (stage 2) = 17. */
Test(viz, training_quotient_by_hand)
{
	sc_quotient *q = training_small_quotient(SC_SCHEDULE_1F1B, NULL);
	cr_assert(q->training);
	cr_assert_eq(q->ops, 9);
	cr_assert_eq(q->backward_ops, 5);
	cr_assert_eq(q->orphans, 1);
	const double cost[] = {15, 16, 4}, fw[] = {7, 6, 2}, bw[] = {8, 10, 2};
	for (int s = 0; s < 3; s++) {
		close_to(q->st[s].cost, cost[s], "cost");
		close_to(q->st[s].cost_fw, fw[s], "cost_fw");
		close_to(q->st[s].cost_bw, bw[s], "cost_bw");
	}
	cr_assert_eq(q->bottleneck, 1);
	close_to(q->objective, 16, "1F1B objective = bottleneck");
	const struct {
		int from, to;
		double volume, volume_bw;
		const char *label;
	} want[] = {{0, 1, 2, 0, "fw 2 B"},
	            {1, 0, 2, 2, "bw 2 B"},
	            {1, 2, 1, 0, "fw 1 B"},
	            {2, 1, 1, 1, "bw 1 B"}};
	cr_assert_eq(q->nedges, 4);
	for (int i = 0; i < 4; i++) {
		const sc_qedge *e = &q->edges[i];
		cr_assert(e->from == want[i].from && e->to == want[i].to, "edge %d: %d -> %d", i,
		          e->from + 1, e->to + 1);
		close_to(e->volume, want[i].volume, "volume");
		close_to(e->volume_bw, want[i].volume_bw, "volume_bw");
		char label[64];
		cr_assert_str_eq(sc_quotient_edge_label(q, e, "|", label, sizeof label),
		                 want[i].label);
	}
	/* both passes on one edge, and none */
	sc_qedge both = {.from = 0, .to = 1, .volume = 3, .volume_bw = 1}, none = {0, 1, 0, 0};
	char label[64];
	cr_assert_str_eq(sc_quotient_edge_label(q, &both, "|", label, sizeof label),
	                 "fw 2 B|bw 1 B");
	cr_assert_str_eq(sc_quotient_edge_label(q, &none, "|", label, sizeof label), "0 B");
	sc_quotient_free(q);

	q = training_small_quotient(SC_SCHEDULE_GPIPE, NULL);
	close_to(q->objective, 17, "GPipe objective");
	close_to(q->gpipe_fw, 7, "largest forward cost");
	close_to(q->gpipe_bw, 10, "largest backward cost");
	cr_assert_eq(q->gpipe_fw_at, 0);
	cr_assert_eq(q->gpipe_bw_at, 1);
	close_to(q->bottleneck_cost, 16, "the bottleneck stays the largest stage");
	sc_quotient_free(q);
}

/* An inference quotient is as it always was: no pass, the objective is
 * the bottleneck, labels are the volume alone. */
Test(viz, inference_quotient_has_one_pass)
{
	sc_quotient *q = ts_figure2_quotient();
	cr_assert_not(q->training);
	cr_assert_eq(q->backward_ops, 0);
	close_to(q->objective, q->bottleneck_cost, "objective");
	for (int i = 0; i < q->nedges; i++) {
		char a[64], b[64];
		cr_assert_eq(q->edges[i].volume_bw, 0);
		cr_assert_str_eq(sc_quotient_edge_label(q, &q->edges[i], "|", a, sizeof a),
		                 sc_quotient_fmt_bytes(q->edges[i].volume, b, sizeof b));
	}
	sc_quotient_free(q);
}

/* On random training graphs and any assignment of stages: the backward
 * volume of s -> t recounted from the definition (the tensors backward ops
 * of s send to t), the costs split by pass as tests/support.c's
 * independent ts_costs splits them, and both objectives. */
Test(viz, training_quotient_matches_a_recount)
{
	ts_rng r = {4242};
	for (int t = 0; t < 200; t++) {
		ts_graph_spec spec = {.n = 2 + ts_below(&r, 30), .edge_p = 0.25};
		random_settings(&r, &spec.settings);
		sc_graph *g = ts_random_training_graph(&r, &spec);
		int k = 1 + ts_below(&r, 5);
		int *stage = malloc((size_t)g->n * sizeof *stage);
		for (int v = 0; v < g->n; v++)
			stage[v] = ts_below(&r, k);
		sc_settings set = g->settings;
		set.k = k;
		set.schedule = t % 2 ? SC_SCHEDULE_GPIPE : SC_SCHEDULE_1F1B;
		sc_error err;
		sc_quotient *q = sc_quotient_new(g, &set, stage, &err);
		cr_assert(q, "%s", err.msg);
		cr_assert_eq(q->training, sc_graph_is_training(g));
		double *vbw = calloc((size_t)(k * k), sizeof *vbw);
		for (int v = 0; v < g->n; v++)
			for (int to = 0; to < k && g->backward && g->backward[v]; to++) {
				bool reads = false;
				for (int i = g->succ_off[v]; i < g->succ_off[v + 1]; i++)
					reads |= stage[g->succ[i]] == to;
				if (reads && to != stage[v])
					vbw[stage[v] * k + to] += g->out[v];
			}
		double sum_bw = 0;
		for (int i = 0; i < q->nedges; i++) {
			const sc_qedge *e = &q->edges[i];
			close_to(e->volume_bw, vbw[e->from * k + e->to], "backward volume");
			cr_assert_leq(e->volume_bw, e->volume + EPS);
			sum_bw += e->volume_bw;
		}
		double want_bw = 0;
		for (int i = 0; i < k * k; i++)
			want_bw += vbw[i];
		close_to(sum_bw, want_bw, "every backward tensor on some edge");
		ts_cost *c = calloc((size_t)k, sizeof *c);
		ts_costs(g, stage, &set, k, c);
		for (int s = 0; s < k; s++) {
			close_to(q->st[s].cost_fw, c[s].cost_fw, "cost_fw");
			close_to(q->st[s].cost_bw, c[s].cost_bw, "cost_bw");
		}
		int at;
		double want = set.schedule == SC_SCHEDULE_GPIPE && q->training
		                      ? ts_gpipe(c, k)
		                      : ts_bottleneck(c, k, &at);
		close_to(q->objective, want, "objective");
		if (q->training)
			close_to(q->gpipe_fw + q->gpipe_bw, ts_gpipe(c, k), "GPipe terms");
		free(c);
		free(vbw);
		sc_quotient_free(q);
		free(stage);
		sc_graph_free(g);
	}
}

/* The stage graph of a training graph says so: the caption names the
 * backward ops and the schedule (under GPipe the objective and its terms),
 * every stage lists its forward and backward cost, and an edge each pass's
 * volume. */
Test(viz, training_picture_caption_costs_and_volumes)
{
	for (int sched = SC_SCHEDULE_1F1B; sched <= SC_SCHEDULE_GPIPE; sched++) {
		sc_quotient *q = training_small_quotient((sc_schedule)sched, NULL);
		char path[256];
		tmp_path(path, sizeof path, "training.svg");
		render_ok(q, "training_small.json", "svg", path);
		char *svg = slurp(path, NULL);
		unlink(path);
		char want[160];
		snprintf(want, sizeof want,
		         ">training graph: 5 of 9 ops backward (1 orphan), schedule %s</text>",
		         sched == SC_SCHEDULE_GPIPE ? "GPipe" : "1F1B");
		cr_assert(strstr(svg, want), "no caption line %s", want);
		const char *gp = ">GPipe objective 17 = forward 7 (stage 1) + backward 10 (stage "
		                 "2)</text>";
		cr_assert_eq(strstr(svg, gp) != NULL, sched == SC_SCHEDULE_GPIPE, "%s", gp);
		/* each label line is a <text> of its own */
		const char *lines[] = {">fw 2 B</text>", ">bw 2 B</text>", ">fw 1 B</text>",
		                       ">bw 1 B</text>"};
		for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
			cr_assert(strstr(svg, lines[i]), "no edge label %s", lines[i]);
		const double fw[] = {7, 6, 2}, bw[] = {8, 10, 2};
		for (int s = 0; s < 3; s++) {
			char name[16], num[32];
			snprintf(name, sizeof name, "s%d", s + 1);
			char *node = svg_node(svg, name);
			cr_assert(node, "no stage %d", s + 1);
			/* the value is the next text after the row's name */
			const char *row[] = {">forward</text>", ">backward</text>"};
			const double *val[] = {fw, bw};
			for (int i = 0; i < 2; i++) {
				const char *at = strstr(node, row[i]);
				cr_assert(at, "stage %d: no row %s", s + 1, row[i]);
				const char *next = strstr(at + 1, "<text");
				snprintf(want, sizeof want, ">%s</text>",
				         sc_quotient_fmt(val[i][s], num, sizeof num));
				cr_assert(
				        next && strncmp(strchr(next, '>'), want, strlen(want)) == 0,
				        "stage %d: %s is not followed by %s", s + 1, row[i], want);
			}
			free(node);
		}
		free(svg);
		sc_quotient_free(q);
	}
	/* an inference picture has none of it */
	sc_quotient *q = ts_figure2_quotient();
	char path[256];
	tmp_path(path, sizeof path, "inference.svg");
	render_ok(q, "figure2", "svg", path);
	char *svg = slurp(path, NULL);
	unlink(path);
	cr_assert_null(strstr(svg, "training"));
	cr_assert_null(strstr(svg, ">forward<"));
	cr_assert_null(strstr(svg, ">fw "));
	free(svg);
	sc_quotient_free(q);
}

/* Labels replace control characters by '?': C0, DEL and the C1
 * controls U+0080-U+009F, which are two bytes in UTF-8; other characters,
 * U+00A0 of the same first byte among them, are kept. */
Test(viz, labels_replace_c0_and_c1_controls)
{
	char mem[128];
	strbuf b = {.s = mem, .size = sizeof mem};
	sb_add_escaped(&b, "a\x1b[b\x7f"
	                   "c\xc2\x9b"
	                   "d\xc2\x80"
	                   "e\xc2\xa0"
	                   "f<\xff");
	cr_assert_str_eq(mem, "a?[b?c?d?e\xc2\xa0"
	                      "f&lt;?");
}
