/*
 * test_fold.c - where the full picture puts its ops (viz/fold.h) and what
 * it draws as one box (viz/boxes.h): levels that follow the stages and the
 * edges on random graphs, column cuts snapped to stage boundaries on a
 * chain, a box taking one level, and the boxes of resnet50's modules
 * accounting for every op and edge.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "core/modules.h"
#include "tests/support.h"
#include "viz/boxes.h"
#include "viz/fold.h"
#include "viz/full.h"

/* k stages by topological position: a valid partition of any DAG. */
static int *stages_by_topo(const sc_graph *g, int k)
{
	int *stage = malloc((size_t)g->n * sizeof *stage);
	cr_assert(stage);
	for (int i = 0; i < g->n; i++)
		stage[g->topo[i]] = (int)((long)i * k / g->n);
	return stage;
}

/* Levels are stage-major (stage s on [stage_start[s], stage_start[s + 1]),
 * a band per stage in order) and an edge inside a stage goes down; a cut
 * makes columns of increasing levels covering them all. */
Test(fold, levels_follow_stages_and_edges)
{
	ts_rng r = {.s = 28};
	for (int t = 0; t < 40; t++) {
		ts_graph_spec spec = {.n = 5 + ts_below(&r, 120),
		                      .edge_p = 0.05 + 0.2 * ts_uniform(&r)};
		sc_settings_init(&spec.settings);
		sc_graph *g = ts_random_graph(&r, &spec);
		int k = 1 + ts_below(&r, 6);
		int *stage = stages_by_topo(g, k);
		sc_error err;
		sc_fold *f = sc_fold_new(g, stage, k, false, NULL, &err);
		cr_assert(f);
		for (int s = 0; s < k; s++)
			cr_assert_lt(f->stage_start[s], f->stage_start[s + 1],
			             "stage %d has a band", s);
		for (int v = 0; v < g->n; v++) {
			int s = stage[v];
			cr_assert(f->level[v] >= f->stage_start[s] &&
			          f->level[v] < f->stage_start[s + 1]);
			for (int i = g->succ_off[v]; i < g->succ_off[v + 1]; i++)
				if (stage[g->succ[i]] == s)
					cr_assert_gt(f->level[g->succ[i]], f->level[v]);
		}
		int want = 1 + ts_below(&r, 8);
		int made = sc_fold_cut(f, want);
		cr_assert(made >= 1 && made <= want && made == f->columns);
		cr_assert_eq(f->col_start[0], 0);
		cr_assert_eq(f->col_start[made], f->levels);
		for (int c = 0; c < made; c++)
			cr_assert_lt(f->col_start[c], f->col_start[c + 1]);
		for (int l = 0; l < f->levels; l++) {
			int c = sc_fold_column(f, l);
			cr_assert(f->col_start[c] <= l && l < f->col_start[c + 1]);
		}
		sc_fold_free(f);
		free(stage);
		sc_graph_free(g);
	}
}

/* A chain of 120 ops in 4 stages of 30: 5 columns of 24 levels, the cuts
 * at 24 and 96 moved to the stage boundaries 30 and 90 (6 levels away, a
 * quarter of a column), those at 48 and 72 kept (12 away). */
Test(fold, cuts_move_to_near_stage_boundaries)
{
	int *stage;
	sc_graph *g = ts_chain_graph(120, 4, &stage);
	sc_error err;
	sc_fold *f = sc_fold_new(g, stage, 4, false, NULL, &err);
	cr_assert(f);
	cr_assert_eq(f->levels, 120);
	cr_assert_eq(f->widest, 1);
	cr_assert_not(f->across, "a chain flows down");
	cr_assert_eq(sc_fold_cut(f, 5), 5);
	int want[] = {0, 30, 48, 72, 90, 120};
	for (int c = 0; c <= 5; c++)
		cr_assert_eq(f->col_start[c], want[c], "cut %d at %d", c, f->col_start[c]);
	sc_fold_free(f);
	/* ops in one box per stage take one level each */
	int *box = malloc(120 * sizeof *box);
	for (int v = 0; v < 120; v++)
		box[v] = stage[v];
	f = sc_fold_new(g, stage, 4, false, box, &err);
	cr_assert(f);
	cr_assert_eq(f->levels, 4);
	sc_fold_free(f);
	free(box);
	free(stage);
	sc_graph_free(g);
}

/* resnet50's modules at depth 2: every op in one box, a collapsed module a
 * box per stage it has ops in, the boxes' edges distinct and between
 * different boxes, their bytes each tail op's output once. */
Test(fold, boxes_account_for_every_op)
{
	sc_graph *g = ts_load("samples/onnx/resnet50.onnx");
	sc_error err;
	sc_modules *m = sc_modules_new(g, &err);
	cr_assert(m);
	int *stage = stages_by_topo(g, 4);
	sc_boxes *u = sc_boxes_new(g, m, 2, stage, &err);
	cr_assert(u);
	int ops = 0;
	for (int x = 0; x < u->n; x++)
		ops += u->ops[x];
	cr_assert_eq(ops, g->n);
	for (int v = 0; v < g->n; v++) {
		int x = u->of_op[v];
		cr_assert_eq(u->own[x], stage[v], "a box holds one stage's ops");
		int at = sc_modules_at_depth(m, v, 2);
		if (at > 0 && m->m[at].depth == 2)
			cr_assert_eq(u->module[x], at);
		else
			cr_assert_eq(u->module[x], -1);
	}
	for (int i = 0; i < u->nedges; i++) {
		cr_assert_neq(u->edge[i].from, u->edge[i].to);
		if (i > 0)
			cr_assert(u->edge[i - 1].from < u->edge[i].from ||
			          (u->edge[i - 1].from == u->edge[i].from &&
			           u->edge[i - 1].to < u->edge[i].to));
		cr_assert_gt(u->edge[i].bytes, 0);
	}
	cr_assert_lt(u->n, 40, "resnet50 at depth 2: %d boxes", u->n);
	sc_boxes_free(u);
	/* no depth: a box per op, the graph's edges */
	u = sc_boxes_new(g, m, 0, stage, &err);
	cr_assert_eq(u->n, g->n);
	cr_assert_eq(u->nedges, g->m);
	sc_boxes_free(u);
	free(stage);
	sc_modules_free(m);
	sc_graph_free(g);
}

/* Brute force over every way to cut levels [0, L) into pages: the fewest
 * pages that keep each page within max (or a single level), and among
 * those the least total sc_fold_page_cost.  Returns that cost and the
 * number of pages in *pages. */
static double best_pages(const int *count, const int *cross, int L, int max, int *pages)
{
	long total = 0;
	for (int l = 0; l < L; l++)
		total += count[l];
	int fewest = L + 1;
	double best = INFINITY;
	/* bit l - 1 of mask set: a page starts at level l */
	for (unsigned mask = 0; mask < 1u << (L - 1); mask++) {
		int n = 1 + __builtin_popcount(mask), start = 0;
		bool ok = true;
		for (int l = 1; l <= L && ok; l++)
			if (l == L || (mask >> (l - 1) & 1)) {
				long units = 0;
				for (int i = start; i < l; i++)
					units += count[i];
				ok = units <= max || l - start == 1;
				start = l;
			}
		if (!ok || n > fewest)
			continue;
		double share = (double)total / n, cost = 0;
		start = 0;
		for (int l = 1; l <= L; l++)
			if (l == L || (mask >> (l - 1) & 1)) {
				long units = 0;
				for (int i = start; i < l; i++)
					units += count[i];
				cost += sc_fold_page_cost((int)units, share,
				                          start > 0 ? cross[start] : 0);
				start = l;
			}
		if (n < fewest || cost < best) {
			fewest = n;
			best = cost;
		}
	}
	*pages = fewest;
	return best;
}

/* Pages (full.h): on random levels against brute force, the fewest pages,
 * each within the limit unless it is one level too wide, covering the
 * levels in order, cut where the least cost says. */
Test(fold, pages_are_fewest_and_cut_where_least_costs)
{
	ts_rng r = {.s = 2828};
	for (int t = 0; t < 300; t++) {
		int L = 1 + ts_below(&r, 12), max = 1 + ts_below(&r, 12);
		int count[16], cross[16];
		sc_fold f = {.levels = L};
		for (int l = 0; l < L; l++) {
			count[l] = ts_below(&r, 6);
			cross[l] = ts_below(&r, 5);
		}
		int *start = NULL, want;
		double least = best_pages(count, cross, L, max, &want);
		int pages = sc_fold_pages(&f, count, cross, max, &start);
		cr_assert_eq(pages, want, "L %d max %d", L, max);
		cr_assert_eq(start[0], 0);
		cr_assert_eq(start[pages], L);
		long total = 0;
		for (int l = 0; l < L; l++)
			total += count[l];
		double cost = 0;
		for (int i = 0; i < pages; i++) {
			cr_assert_lt(start[i], start[i + 1]);
			int units = 0;
			for (int l = start[i]; l < start[i + 1]; l++)
				units += count[l];
			cr_assert(units <= max || start[i + 1] - start[i] == 1);
			cost += sc_fold_page_cost(units, (double)total / pages,
			                          i > 0 ? cross[start[i]] : 0);
		}
		if (pages > 1)
			cr_assert_float_eq(cost, least, 1e-9, "L %d max %d", L, max);
		free(start);
	}
	/* no limit: one page */
	int count[3] = {50, 50, 50}, cross[3] = {0}, *start = NULL;
	sc_fold f = {.levels = 3};
	cr_assert_eq(sc_fold_pages(&f, count, cross, 0, &start), 1);
	cr_assert_eq(start[1], 3);
	free(start);
}

/* A page's file name: the number before the extension of the last part. */
Test(fold, page_paths_number_before_the_extension)
{
	char b[64];
	sc_full_page_path("f.png", 3, b, sizeof b);
	cr_assert_str_eq(b, "f-3.png");
	sc_full_page_path("out/v1.2/pic.svg", 12, b, sizeof b);
	cr_assert_str_eq(b, "out/v1.2/pic-12.svg");
	sc_full_page_path("out.d/pic", 1, b, sizeof b);
	cr_assert_str_eq(b, "out.d/pic-1");
	sc_full_page_path(".png", 2, b, sizeof b);
	cr_assert_str_eq(b, ".png-2");
}

/* The page numbers of file names: exactly the names sc_full_page_path
 * gives, so that render removes no file of another picture or the user's. */
Test(fold, page_numbers_read_back_exactly_the_page_names)
{
	cr_assert_eq(sc_full_page_number("f.png", "f-3.png"), 3);
	cr_assert_eq(sc_full_page_number("out/v1.2/pic.svg", "pic-12.svg"), 12);
	cr_assert_eq(sc_full_page_number("out.d/pic", "pic-1"), 1);
	cr_assert_eq(sc_full_page_number(".png", ".png-2"), 2);
	const char *no[] = {"f.png",    "f-03.png", "f-0.png",          "f-3.svg",     "f-x.png",
	                    "f-.png",   "f--3.png", "ff-3.png",         "f-3.png.bak", "f-+3.png",
	                    "f-3a.png", "g-3.png",  "f-99999999999.png"};
	for (size_t i = 0; i < sizeof no / sizeof *no; i++)
		cr_assert_eq(sc_full_page_number("f.png", no[i]), 0, "%s", no[i]);
	/* every page name round-trips */
	char b[64];
	for (int i = 1; i < 2000; i += 37) {
		sc_full_page_path("a.b.dot", i, b, sizeof b);
		cr_assert_eq(sc_full_page_number("dir/a.b.dot", b), i, "%s", b);
	}
}
