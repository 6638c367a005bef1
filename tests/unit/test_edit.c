/*
 * Longer than 600 lines: the brute-force checks and the named cases (devices too) share helpers.
 * test_edit.c - the editable partition: on hundreds of random grouped graphs,
 * random sequences of moves, moves with dependents, whole sets, undos, redos
 * and saves are checked after every step against brute force (validity by
 * sc_part_check, costs by a fresh evaluation, ranges by trying every stage,
 * dependents by a fixed point over all edges) and against a shadow history
 * of whole snapshots; then the reasons and labels on the paper's Figure 2
 * and the residual sample, and the unsaved-changes rules.
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cost.h"
#include "core/edit.h"
#include "core/partition.h"
#include "tests/support.h"

#define EPS 1e-9

static void close_to(double got, double want, const char *what, int s)
{
	double tol = EPS * (1 + fabs(want));
	cr_assert(fabs(got - want) <= tol, "stage %d %s: got %.17g, want %.17g", s + 1, what, got,
	          want);
}

/* Every field of every stage of got against want, rounding aside. */
static void same_costs(const sc_stage_cost *got, const sc_stage_cost *want, int k)
{
	for (int s = 0; s < k; s++) {
		const sc_stage_cost *a = &got[s], *b = &want[s];
		cr_assert_eq(a->ops, b->ops, "stage %d ops", s + 1);
		close_to(a->work, b->work, "work", s);
		close_to(a->in_bytes, b->in_bytes, "in_bytes", s);
		close_to(a->out_bytes, b->out_bytes, "out_bytes", s);
		close_to(a->param, b->param, "param", s);
		close_to(a->io_in, b->io_in, "io_in", s);
		close_to(a->io_out, b->io_out, "io_out", s);
		close_to(a->overflow, b->overflow, "overflow", s);
		close_to(a->cost, b->cost, "cost", s);
		cr_assert_eq(a->over_memory, b->over_memory, "stage %d over_memory", s + 1);
	}
}

/* The editor's costs against a fresh evaluation of its stages. */
static void costs_are_fresh(const sc_editor *ed, sc_costs *fresh)
{
	sc_costs_eval(fresh, sc_editor_stages(ed));
	same_costs(sc_editor_costs(ed)->st, fresh->st, fresh->k);
}

/* stage with v's group moved to s. */
static void move_group(const sc_graph *g, int *stage, int v, int s)
{
	int gr = g->group[v];
	if (gr < 0)
		stage[v] = s;
	else
		for (int j = g->group_off[gr]; j < g->group_off[gr + 1]; j++)
			stage[g->group_ops[j]] = s;
}

/* Whether moving v's group to s leaves stage valid, by trying it. */
static bool try_move(const sc_graph *g, const int *stage, int k, int v, int s, int *scratch)
{
	memcpy(scratch, stage, (size_t)g->n * sizeof *stage);
	move_group(g, scratch, v, s);
	return sc_part_check(g, scratch, k, NULL);
}

/* The partition move_with_dependents should reach, as a fixed point over all
 * edges rather than a search: starting from v's group, any op on the wrong
 * side of `to` next to a moved op joins, with its group, until none does. */
static void brute_dependents(const sc_graph *g, const int *stage, int v, int to, int *out)
{
	int n = g->n;
	bool *in = calloc((size_t)n, sizeof *in);
	bool later = to > stage[v];
	for (int x = 0; x < n; x++)
		in[x] = x == v || (g->group[v] >= 0 && g->group[x] == g->group[v]);
	for (bool grew = true; grew;) {
		grew = false;
		for (int u = 0; u < n; u++)
			for (int i = g->succ_off[u]; i < g->succ_off[u + 1]; i++) {
				int s = g->succ[i], add = -1;
				if (later && in[u] && !in[s] && stage[s] < to)
					add = s;
				if (!later && in[s] && !in[u] && stage[u] > to)
					add = u;
				if (add < 0)
					continue;
				for (int x = 0; x < n; x++)
					if (x == add ||
					    (g->group[add] >= 0 && g->group[x] == g->group[add]))
						in[x] = true;
				grew = true;
			}
	}
	for (int x = 0; x < n; x++)
		out[x] = in[x] ? to : stage[x];
	free(in);
}

/* A random valid partition near stage: a few legal group moves. */
static void wander(ts_rng *r, const sc_graph *g, int k, int *stage, int steps)
{
	for (int i = 0; i < steps; i++) {
		int v = ts_below(r, g->n), lo, hi;
		sc_part_legal_range(g, stage, k, v, &lo, &hi);
		move_group(g, stage, v, lo + ts_below(r, hi - lo + 1));
	}
}

/* The shadow history: every state the editor has been in, whole. */
typedef struct shadow {
	int n;
	int **state; /* state[0] initial; state[i] after the i-th edit */
	char **label;
	int len, cap, cursor, saved;
} shadow;

static void shadow_push(shadow *h, const int *stage, const char *label)
{
	for (int i = h->cursor + 1; i < h->len; i++) {
		free(h->state[i]);
		free(h->label[i]);
	}
	if (h->len > 0)
		h->len = h->cursor + 1;
	if (h->saved > h->cursor)
		h->saved = -1;
	if (h->len == h->cap) {
		h->cap = h->cap ? 2 * h->cap : 16;
		h->state = realloc(h->state, (size_t)h->cap * sizeof *h->state);
		h->label = realloc(h->label, (size_t)h->cap * sizeof *h->label);
	}
	h->state[h->len] = malloc((size_t)(h->n ? h->n : 1) * sizeof **h->state);
	memcpy(h->state[h->len], stage, (size_t)h->n * sizeof *stage);
	h->label[h->len] = label ? strdup(label) : NULL;
	h->cursor = h->len++;
}

static void shadow_free(shadow *h)
{
	for (int i = 0; i < h->len; i++) {
		free(h->state[i]);
		free(h->label[i]);
	}
	free(h->state);
	free(h->label);
}

/* Everything the editor says against the shadow and brute force. */
static void check_editor(ts_rng *r, const sc_graph *g, int k, const sc_editor *ed, const shadow *h,
                         sc_costs *fresh, int *scratch)
{
	const int *st = sc_editor_stages(ed);
	cr_assert(sc_part_check(g, st, k, NULL), "the partition stays valid");
	cr_assert_eq(memcmp(st, h->state[h->cursor], (size_t)g->n * sizeof *st), 0,
	             "stages equal the shadow's state %d", h->cursor);
	costs_are_fresh(ed, fresh);
	cr_assert_eq(sc_editor_undo_count(ed), h->cursor);
	cr_assert_eq(sc_editor_redo_count(ed), h->len - 1 - h->cursor);
	cr_assert_eq(sc_editor_dirty(ed), h->cursor != h->saved, "dirty (cursor %d saved %d)",
	             h->cursor, h->saved);
	const char *ul = sc_editor_undo_label(ed), *rl = sc_editor_redo_label(ed);
	if (h->cursor == 0)
		cr_assert_null(ul);
	else
		cr_assert_str_eq(ul, h->label[h->cursor]);
	if (h->cursor == h->len - 1)
		cr_assert_null(rl);
	else
		cr_assert_str_eq(rl, h->label[h->cursor + 1]);
	for (int i = 0; i < 4; i++) {
		int v = ts_below(r, g->n), lo, hi;
		sc_editor_range(ed, v, &lo, &hi);
		cr_assert(lo <= st[v] && st[v] <= hi, "range [%d, %d] holds stage %d", lo, hi,
		          st[v]);
		for (int s = 0; s < k; s++)
			cr_assert_eq(try_move(g, st, k, v, s, scratch), s >= lo && s <= hi,
			             "op %d stage %d range [%d, %d]", v, s, lo, hi);
	}
}

/* The label a move of v to `to` should leave on the undo list. */
static void move_label(const sc_graph *g, int v, int to, char *buf, size_t size)
{
	int gr = g->group[v];
	if (gr < 0) {
		snprintf(buf, size, "move %s to stage %d", g->op_name[v], to + 1);
	} else {
		int c = sc_graph_group_size(g, gr);
		snprintf(buf, size, "move group %s (%d op%s) to stage %d", g->group_name[gr], c,
		         c == 1 ? "" : "s", to + 1);
	}
}

Test(edit, random_edits_agree_with_brute_force_and_undo_everything, .timeout = 300)
{
	ts_rng r = {2024};
	int refused = 0, moved = 0, dragged = 0, sets = 0, undos = 0, redos = 0, grouped = 0;
	for (int t = 0; t < 300; t++) {
		/* every tenth graph is large enough for a set to be applied by a
		 * whole evaluation instead of incremental moves */
		bool big = t % 10 == 9;
		ts_graph_spec spec = {.n = big ? 150 + ts_below(&r, 100) : 1 + ts_below(&r, 30),
		                      .group_p = ts_uniform(&r) < 0.6 ? 0.3 : 0,
		                      .ngroups = 1 + ts_below(&r, 4),
		                      .integer_weights = ts_uniform(&r) < 0.3};
		spec.edge_p = big ? 3.0 / spec.n : ts_uniform(&r) * 0.3;
		sc_settings_init(&spec.settings);
		spec.settings.bandwidth = 0.5 + ts_uniform(&r) * 2;
		double x = ts_uniform(&r);
		if (x < 0.6) {
			spec.settings.memory = 5 + ts_uniform(&r) * 40;
			spec.settings.policy = x < 0.3 ? SC_MEM_HARD : SC_MEM_OVERFLOW;
		}
		sc_graph *g = ts_random_graph(&r, &spec);
		grouped += g->ngroups > 0;
		int n = g->n, k = 1 + ts_below(&r, 5);
		sc_settings set = g->settings;
		set.k = k;
		sc_costs *fresh = sc_costs_new(g, &set, NULL);
		int *stage = calloc((size_t)n, sizeof *stage); /* all in stage 1 is valid */
		int *scratch = malloc((size_t)n * sizeof *scratch);
		int *want = malloc((size_t)n * sizeof *want);
		sc_stage_cost *before = malloc((size_t)k * sizeof *before);
		wander(&r, g, k, stage, n);
		sc_error err;
		sc_editor *ed = sc_editor_new(g, &set, stage, &err);
		cr_assert(ed, "%s", err.msg);
		shadow h = {.n = n};
		shadow_push(&h, stage, NULL);
		h.saved = 0;
		sc_costs_eval(fresh, stage);
		sc_stage_cost *initial = malloc((size_t)k * sizeof *initial);
		memcpy(initial, fresh->st, (size_t)k * sizeof *initial);
		check_editor(&r, g, k, ed, &h, fresh, scratch);

		char why[512], label[512];
		for (int step = 0; step < 80; step++) {
			const int *cur = sc_editor_stages(ed);
			memcpy(stage, cur, (size_t)n * sizeof *stage);
			memcpy(before, sc_editor_costs(ed)->st, (size_t)k * sizeof *before);
			int v = ts_below(&r, n), to = ts_below(&r, k + 2) - 1; /* -1 .. k */
			double what = ts_uniform(&r);
			if (what < 0.35) {
				bool legal =
				        to >= 0 && to < k && try_move(g, stage, k, v, to, scratch);
				bool ok = sc_editor_move(ed, v, to, why, sizeof why);
				cr_assert_eq(ok, legal, "move op %d to %d: %s", v, to, why);
				if (!ok) {
					/* nothing changed, not even a rounding bit */
					refused++;
					cr_assert_eq(memcmp(cur, stage, (size_t)n * sizeof *stage),
					             0);
					cr_assert_eq(memcmp(sc_editor_costs(ed)->st, before,
					                    (size_t)k * sizeof *before),
					             0);
					cr_assert(
					        strstr(why, to < 0 || to >= k ? "outside" : "edge"),
					        "%s", why);
				} else if (stage[v] != to) {
					moved++;
					move_group(g, stage, v, to);
					move_label(g, v, to, label, sizeof label);
					cr_assert(strncmp(why, "moved ", 6) == 0 &&
					                  strcmp(why + 5, label + 4) == 0,
					          "'%s' for '%s'", why, label);
					shadow_push(&h, stage, label);
				}
			} else if (what < 0.55) {
				int got =
				        sc_editor_move_with_dependents(ed, v, to, why, sizeof why);
				if (to < 0 || to >= k) {
					cr_assert_eq(got, -1);
					cr_assert(strstr(why, "outside"), "%s", why);
					cr_assert_eq(memcmp(cur, stage, (size_t)n * sizeof *stage),
					             0);
				} else {
					brute_dependents(g, stage, v, to, want);
					int changed = 0;
					for (int u = 0; u < n; u++)
						changed += want[u] != stage[u];
					cr_assert_eq(got, changed, "op %d to %d: moved %d, want %d",
					             v, to, got, changed);
					cr_assert_eq(memcmp(cur, want, (size_t)n * sizeof *want), 0,
					             "the ops that had to move, and only they");
					if (got > 0) {
						dragged += got > 1;
						snprintf(label, sizeof label,
						         "move %s with dependents to stage %d",
						         g->op_name[v], to + 1);
						shadow_push(&h, want, label);
					}
				}
			} else if (what < 0.65) {
				/* a valid partition some way off, or (sometimes) junk */
				bool junk = ts_uniform(&r) < 0.3;
				memcpy(want, stage, (size_t)n * sizeof *want);
				if (junk)
					for (int u = 0; u < n; u++)
						want[u] = ts_below(&r, k + 1);
				else
					wander(&r, g, k, want, 1 + ts_below(&r, 2 * n));
				bool valid = sc_part_check(g, want, k, NULL);
				snprintf(label, sizeof label, "search result %d", step);
				cr_assert_eq(sc_editor_set(ed, want, label), valid);
				if (valid && memcmp(want, stage, (size_t)n * sizeof *want) != 0) {
					sets++;
					shadow_push(&h, want, label);
				}
				if (!valid)
					cr_assert_eq(memcmp(cur, stage, (size_t)n * sizeof *stage),
					             0);
			} else if (what < 0.8) {
				cr_assert_eq(sc_editor_undo(ed), h.cursor > 0);
				if (h.cursor > 0) {
					h.cursor--;
					undos++;
				}
			} else if (what < 0.95) {
				cr_assert_eq(sc_editor_redo(ed), h.cursor < h.len - 1);
				if (h.cursor < h.len - 1) {
					h.cursor++;
					redos++;
				}
			} else {
				sc_editor_mark_saved(ed);
				h.saved = h.cursor;
			}
			check_editor(&r, g, k, ed, &h, fresh, scratch);
		}

		/* all the way back: exactly the initial stages, the initial costs */
		while (sc_editor_redo(ed))
			h.cursor++;
		sc_stage_cost *final = malloc((size_t)k * sizeof *final);
		memcpy(final, sc_editor_costs(ed)->st, (size_t)k * sizeof *final);
		int *last = malloc((size_t)n * sizeof *last);
		memcpy(last, sc_editor_stages(ed), (size_t)n * sizeof *last);
		int edits = h.len - 1;
		cr_assert_eq(sc_editor_undo_count(ed), edits);
		for (int i = 0; i < edits; i++)
			cr_assert(sc_editor_undo(ed));
		cr_assert_not(sc_editor_undo(ed));
		cr_assert_eq(memcmp(sc_editor_stages(ed), h.state[0], (size_t)n * sizeof *last), 0);
		same_costs(sc_editor_costs(ed)->st, initial, k);
		cr_assert_eq(sc_editor_redo_count(ed), edits);
		for (int i = 0; i < edits; i++)
			cr_assert(sc_editor_redo(ed));
		cr_assert_not(sc_editor_redo(ed));
		cr_assert_eq(memcmp(sc_editor_stages(ed), last, (size_t)n * sizeof *last), 0);
		same_costs(sc_editor_costs(ed)->st, final, k);
		costs_are_fresh(ed, fresh);

		free(final);
		free(last);
		free(initial);
		shadow_free(&h);
		sc_editor_free(ed);
		free(before);
		free(want);
		free(scratch);
		free(stage);
		sc_costs_free(fresh);
		sc_graph_free(g);
	}
	/* every kind of step happened often (about 5000, 1500, 800, 1250,
	 * 2500 and 800 of them with this seed) */
	cr_assert_gt(refused, 3000);
	cr_assert_gt(moved, 1000);
	cr_assert_gt(dragged, 500);
	cr_assert_gt(sets, 800);
	cr_assert_gt(undos, 1500);
	cr_assert_gt(redos, 500);
	cr_assert_gt(grouped, 100);
}

/* The editor on a file's own partition (its `stage` attributes). */
static sc_editor *open_file(const char *path, sc_graph **gp, sc_settings *set)
{
	sc_graph *g = ts_load(path);
	*set = g->settings;
	int *stage = calloc((size_t)g->n, sizeof *stage);
	if (g->init_stage)
		memcpy(stage, g->init_stage, (size_t)g->n * sizeof *stage);
	sc_error err;
	sc_editor *ed = sc_editor_new(g, set, stage, &err);
	cr_assert(ed, "%s", err.msg);
	free(stage);
	*gp = g;
	return ed;
}

static int stage_of(const sc_graph *g, const sc_editor *ed, const char *name)
{
	int v = sc_graph_find(g, name);
	cr_assert_geq(v, 0, "no op %s", name);
	return sc_editor_stages(ed)[v] + 1;
}

Test(edit, figure2_reasons_name_the_edge)
{
	sc_graph *g;
	sc_settings set;
	sc_editor *ed = open_file("samples/paper/figure2.dot", &g, &set);
	int u = sc_graph_find(g, "u"), x = sc_graph_find(g, "x");
	char why[256];
	/* stages {a, u} {v, w} {x, y}: u feeds v and w in stage 2 */
	cr_assert_eq(stage_of(g, ed, "u"), 1);
	int lo, hi;
	sc_editor_range(ed, u, &lo, &hi);
	cr_assert_eq(lo, 0);
	cr_assert_eq(hi, 1);
	cr_assert_not(sc_editor_move(ed, u, 2, why, sizeof why));
	cr_assert_str_eq(why, "edge u -> v would go from stage 3 back to stage 2");
	cr_assert_not(sc_editor_move(ed, x, 0, why, sizeof why));
	cr_assert(strstr(why, "edge v -> x") || strstr(why, "edge w -> x"), "%s", why);
	cr_assert(strstr(why, "from stage 2 back to stage 1"), "%s", why);
	cr_assert_not(sc_editor_move(ed, x, 3, why, sizeof why));
	cr_assert_str_eq(why, "stage 4 is outside 1..3");
	cr_assert_not(sc_editor_move(ed, 99, 1, why, sizeof why));
	cr_assert_eq(sc_editor_undo_count(ed), 0);
	cr_assert_not(sc_editor_dirty(ed));

	/* figure2's costs are 5, 8, 5; u into stage 2 makes that stage
	 * 1 + 6 + 2 = 9 (a's tensor in, v's and w's out, u's now inside) and
	 * leaves stage 1 just a: 0 + 1 + 1 = 2 */
	cr_assert(sc_editor_move(ed, u, 1, why, sizeof why), "%s", why);
	cr_assert_str_eq(why, "moved u to stage 2");
	cr_assert_str_eq(sc_editor_undo_label(ed), "move u to stage 2");
	const sc_costs *c = sc_editor_costs(ed);
	cr_assert_float_eq(c->st[0].cost, 2, 1e-12);
	cr_assert_float_eq(c->st[1].cost, 9, 1e-12);
	cr_assert_float_eq(c->st[2].cost, 5, 1e-12);
	/* a move to where it is: true, no undo entry */
	cr_assert(sc_editor_move(ed, u, 1, why, sizeof why));
	cr_assert_eq(sc_editor_undo_count(ed), 1);
	cr_assert(sc_editor_undo(ed));
	cr_assert_float_eq(sc_editor_costs(ed)->st[1].cost, 8, 1e-12);

	/* with dependents: u to stage 3 drags v and w (x is already there) */
	cr_assert_eq(sc_editor_move_with_dependents(ed, u, 2, why, sizeof why), 3, "%s", why);
	cr_assert_str_eq(why, "moved u and 2 other ops to stage 3");
	cr_assert_str_eq(sc_editor_undo_label(ed), "move u with dependents to stage 3");
	cr_assert_eq(stage_of(g, ed, "a"), 1);
	cr_assert_eq(stage_of(g, ed, "v"), 3);
	cr_assert_eq(stage_of(g, ed, "w"), 3);
	cr_assert_eq(stage_of(g, ed, "y"), 3);
	/* and back to stage 1 drags everything before it except a, already there */
	cr_assert_eq(sc_editor_move_with_dependents(ed, sc_graph_find(g, "y"), 0, why, sizeof why),
	             5);
	for (int v = 0; v < g->n; v++)
		cr_assert_eq(sc_editor_stages(ed)[v], 0);
	cr_assert_eq(sc_editor_move_with_dependents(ed, x, 7, why, sizeof why), -1);
	cr_assert_str_eq(why, "stage 8 is outside 1..3");
	cr_assert(sc_editor_undo(ed));
	cr_assert(sc_editor_undo(ed));
	for (int v = 0; v < g->n; v++)
		cr_assert_eq(sc_editor_stages(ed)[v], g->init_stage[v]);
	cr_assert_not(sc_editor_dirty(ed));
	sc_editor_free(ed);
	sc_graph_free(g);
}

Test(edit, residual_group_moves_whole)
{
	sc_graph *g;
	sc_settings set;
	sc_editor *ed = open_file("samples/small/residual.dot", &g, &set); /* all in stage 1 */
	cr_assert_null(g->init_stage);
	int mm_a = sc_graph_find(g, "mm_a"), mm_b = sc_graph_find(g, "mm_b");
	char why[256];
	cr_assert_not(sc_editor_move(ed, mm_b, 1, why, sizeof why));
	cr_assert(strstr(why, "-> concat would go from stage 2 back to stage 1"), "%s", why);
	cr_assert(strstr(why, "edge mm_a ") || strstr(why, "edge mm_b "), "%s", why);
	cr_assert_eq(
	        sc_editor_move_with_dependents(ed, sc_graph_find(g, "concat"), 2, why, sizeof why),
	        2, "%s", why); /* concat and output */
	int lo, hi;
	sc_editor_range(ed, mm_a, &lo, &hi);
	cr_assert_eq(lo, 0);
	cr_assert_eq(hi, 2);
	cr_assert(sc_editor_move(ed, mm_b, 1, why, sizeof why), "%s", why);
	cr_assert_str_eq(why, "moved group matmul (2 ops) to stage 2");
	cr_assert_str_eq(sc_editor_undo_label(ed), "move group matmul (2 ops) to stage 2");
	cr_assert_eq(stage_of(g, ed, "mm_a"), 2);
	cr_assert_eq(stage_of(g, ed, "mm_b"), 2);
	cr_assert(sc_editor_move(ed, mm_a, 2, why, sizeof why), "%s", why);
	cr_assert_str_eq(why, "moved group matmul (2 ops) to stage 3");
	cr_assert_eq(stage_of(g, ed, "mm_b"), 3);
	/* hard memory 100: conv1 and conv2 (60 each) still share stage 1 */
	cr_assert_not(sc_costs_feasible(sc_editor_costs(ed)));
	cr_assert_eq(
	        sc_editor_move_with_dependents(ed, sc_graph_find(g, "conv2"), 1, why, sizeof why),
	        2, "%s", why); /* conv2 and add */
	cr_assert_eq(stage_of(g, ed, "add"), 2);
	cr_assert(sc_costs_feasible(sc_editor_costs(ed)));
	cr_assert(sc_editor_undo(ed));
	cr_assert_not(sc_costs_feasible(sc_editor_costs(ed)));
	sc_editor_free(ed);
	sc_graph_free(g);
}

Test(edit, dirty_until_saved_or_undone_to_the_save)
{
	sc_graph *g;
	sc_settings set;
	sc_editor *ed = open_file("samples/paper/figure2.dot", &g, &set);
	int u = sc_graph_find(g, "u"), v = sc_graph_find(g, "v");
	char why[256];
	cr_assert_not(sc_editor_dirty(ed), "a new editor is clean");
	cr_assert_not(sc_editor_move(ed, u, 2, why, sizeof why));
	cr_assert_not(sc_editor_dirty(ed), "a refused move changes nothing");
	cr_assert(sc_editor_move(ed, u, 0, why, sizeof why));
	cr_assert_not(sc_editor_dirty(ed), "nor does a move to the same stage");

	cr_assert(sc_editor_move(ed, u, 1, why, sizeof why)); /* edit 1 */
	cr_assert(sc_editor_dirty(ed));
	sc_editor_mark_saved(ed);
	cr_assert_not(sc_editor_dirty(ed));
	cr_assert(sc_editor_move(ed, v, 2, why, sizeof why)); /* edit 2 */
	cr_assert(sc_editor_dirty(ed));
	cr_assert(sc_editor_undo(ed));
	cr_assert_not(sc_editor_dirty(ed), "undone back to the saved state");
	cr_assert(sc_editor_undo(ed));
	cr_assert(sc_editor_dirty(ed), "undone past it");
	cr_assert(sc_editor_redo(ed));
	cr_assert_not(sc_editor_dirty(ed), "redone back to it");
	cr_assert(sc_editor_redo(ed));
	cr_assert(sc_editor_dirty(ed));

	/* undo below the save, then a new edit: the saved state is gone from
	 * the redo list, so no undo or redo is clean any more */
	cr_assert(sc_editor_undo(ed));
	cr_assert(sc_editor_undo(ed));
	cr_assert_eq(sc_editor_redo_count(ed), 2);
	cr_assert(sc_editor_move(ed, v, 2, why, sizeof why));
	cr_assert_eq(sc_editor_redo_count(ed), 0, "a new edit clears the redo list");
	cr_assert_not(sc_editor_redo(ed));
	cr_assert(sc_editor_dirty(ed));
	cr_assert(sc_editor_undo(ed));
	cr_assert(sc_editor_dirty(ed), "the initial state was never saved");
	cr_assert(sc_editor_redo(ed));
	sc_editor_mark_saved(ed);
	cr_assert_not(sc_editor_dirty(ed));

	/* a set is one edit, and an identical set none */
	int *stage = malloc((size_t)g->n * sizeof *stage);
	memcpy(stage, sc_editor_stages(ed), (size_t)g->n * sizeof *stage);
	cr_assert(sc_editor_set(ed, stage, "same"));
	cr_assert_not(sc_editor_dirty(ed));
	cr_assert_eq(sc_editor_undo_count(ed), 1);
	for (int x = 0; x < g->n; x++)
		stage[x] = 0;
	char label[32] = "kahn result";
	cr_assert(sc_editor_set(ed, stage, label));
	strcpy(label, "overwritten");
	cr_assert_str_eq(sc_editor_undo_label(ed), "kahn result");
	cr_assert(sc_editor_dirty(ed));
	stage[u] = 2; /* u -> v backwards */
	cr_assert_not(sc_editor_set(ed, stage, "bad"));
	cr_assert_eq(sc_editor_undo_count(ed), 2);
	cr_assert(sc_editor_undo(ed));
	cr_assert_not(sc_editor_dirty(ed));
	free(stage);
	sc_editor_free(ed);
	sc_graph_free(g);
}

Test(edit, invalid_start_is_refused)
{
	sc_graph *g = ts_load("samples/paper/figure2.dot");
	sc_settings set = g->settings;
	int *stage = malloc((size_t)g->n * sizeof *stage);
	memcpy(stage, g->init_stage, (size_t)g->n * sizeof *stage);
	stage[sc_graph_find(g, "u")] = 2;
	sc_error err;
	cr_assert_null(sc_editor_new(g, &set, stage, &err));
	cr_assert_eq(err.code, SC_ERR_INPUT);
	cr_assert(strstr(err.msg, "'u' -> 'v'"), "%s", err.msg);
	stage[sc_graph_find(g, "u")] = 0;
	set.k = 0;
	cr_assert_null(sc_editor_new(g, &set, stage, &err));
	cr_assert(strstr(err.msg, "k must be at least 1"), "%s", err.msg);
	set.k = 2; /* x and y are in stage 3 */
	cr_assert_null(sc_editor_new(g, &set, stage, &err));
	sc_editor_free(NULL);
	free(stage);
	sc_graph_free(g);
}

/* a -> x -> c: a has no CPU time, x runs only on a CPU (time 3), c has a
 * CPU time of 5; three stages, the second a CPU. */
static sc_graph *cpu_chain(void)
{
	sc_builder *b = sc_builder_new();
	sc_error err;
	int a = sc_builder_add_op(b, "a", 4, 0, 2, NULL, &err);
	int x = sc_builder_add_op(b, "x", 1, 0, 2, NULL, &err);
	int c = sc_builder_add_op(b, "c", 4, 0, 0, NULL, &err);
	cr_assert(sc_builder_add_edge(b, a, x, &err) == SC_OK);
	cr_assert(sc_builder_add_edge(b, x, c, &err) == SC_OK);
	cr_assert(sc_builder_set_devices(b, x, 3, true, false, &err) == SC_OK);
	cr_assert(sc_builder_set_devices(b, c, 5, true, true, &err) == SC_OK);
	sc_graph *g = sc_builder_finish(b, "chain", "chain", &err);
	sc_builder_free(b);
	cr_assert(g, "%s", err.msg);
	return g;
}

/* The editor's costs against a fresh evaluation with its devices. */
static void device_costs_are_fresh(const sc_graph *g, const sc_settings *set, sc_editor *ed)
{
	sc_error err;
	sc_costs *fresh = sc_costs_new(g, set, &err);
	sc_costs_set_kinds(fresh, sc_editor_kinds(ed));
	sc_costs_eval(fresh, sc_editor_stages(ed));
	const sc_costs *got = sc_editor_costs(ed);
	for (int s = 0; s < set->k; s++) {
		close_to(got->st[s].cost, fresh->st[s].cost, "cost", s);
		cr_assert_eq(got->st[s].cpu, fresh->st[s].cpu, "stage %d cpu", s + 1);
	}
	sc_costs_free(fresh);
}

Test(edit, devices_refuse_moves_by_name)
{
	sc_graph *g = cpu_chain();
	sc_settings set = g->settings;
	set.k = 3;
	int stage[3] = {0, 1, 2};
	int cpu[3] = {0, 1, 0}; /* kinds: 1 a CPU */
	sc_error err;
	sc_editor *ed = sc_editor_new_kinds(g, &set, stage, cpu, &err);
	cr_assert(ed, "%s", err.msg);
	cr_assert(sc_editor_kinds(ed) && sc_editor_kinds(ed)[1]);
	cr_assert(sc_editor_costs(ed)->st[1].cpu);
	close_to(sc_editor_costs(ed)->st[1].cost, 3, "cpu cost", 1);
	char why[256];
	cr_assert_not(sc_editor_move(ed, 0, 1, why, sizeof why));
	cr_assert_str_eq(why, "a has no CPU time: it may not go to stage 2 (CPU)");
	cr_assert_not(sc_editor_move(ed, 1, 2, why, sizeof why));
	cr_assert_str_eq(why, "x may not run on an accelerator: it may not go to stage 3 "
	                      "(accelerator)");
	cr_assert_eq(sc_editor_move_with_dependents(ed, 0, 2, why, sizeof why), -1);
	cr_assert(strstr(why, "may not go to stage 3"), "%s", why);
	cr_assert_eq(sc_editor_undo_count(ed), 0);
	/* c onto the CPU stage, which then costs 3 + 5, and back */
	cr_assert(sc_editor_move(ed, 2, 1, why, sizeof why), "%s", why);
	close_to(sc_editor_costs(ed)->st[1].cost, 8, "cpu cost", 1);
	device_costs_are_fresh(g, &set, ed);
	cr_assert(sc_editor_undo(ed));
	close_to(sc_editor_costs(ed)->st[1].cost, 3, "cpu cost", 1);
	device_costs_are_fresh(g, &set, ed);
	/* a start with an op on a device it may not go to */
	int all_accel[3] = {0, 0, 0};
	cr_assert_null(sc_editor_new_kinds(g, &set, stage, all_accel, &err));
	cr_assert(strstr(err.msg, "'x'"), "%s", err.msg);
	sc_editor_free(ed);
	/* without devices nothing is a CPU */
	int one[3] = {0, 0, 0};
	set.k = 1;
	ed = sc_editor_new(g, &set, one, &err);
	cr_assert(ed);
	cr_assert_null(sc_editor_kinds(ed));
	sc_editor_free(ed);
	sc_graph_free(g);
}

Test(edit, set_devices_is_one_undo_entry)
{
	sc_graph *g = cpu_chain();
	sc_settings set = g->settings;
	set.k = 3;
	int stage[3] = {0, 1, 2};
	int cpu[3] = {0, 1, 0}; /* kinds: 1 a CPU */
	sc_error err;
	sc_editor *ed = sc_editor_new_kinds(g, &set, stage, cpu, &err);
	cr_assert(ed, "%s", err.msg);
	/* the search's result: a on stage 1, x and c on a CPU stage 3 */
	int found[3] = {0, 2, 2};
	int found_cpu[3] = {0, 0, 1};
	int bad_cpu[3] = {0, 1, 0}; /* x on an accelerator */
	cr_assert_not(sc_editor_set_kinds(ed, found, bad_cpu, "bad"));
	cr_assert_eq(sc_editor_undo_count(ed), 0);
	cr_assert(sc_editor_set_kinds(ed, found, found_cpu, "search result"));
	cr_assert_eq(sc_editor_undo_count(ed), 1);
	cr_assert_str_eq(sc_editor_undo_label(ed), "search result");
	const int *d = sc_editor_kinds(ed);
	cr_assert(d && !d[0] && !d[1] && d[2]);
	close_to(sc_editor_costs(ed)->st[2].cost, 8, "cpu cost", 2);
	device_costs_are_fresh(g, &set, ed);
	cr_assert(sc_editor_dirty(ed));
	cr_assert(sc_editor_undo(ed));
	d = sc_editor_kinds(ed);
	cr_assert(d && !d[0] && d[1] && !d[2]);
	cr_assert_eq(sc_editor_stages(ed)[1], 1);
	device_costs_are_fresh(g, &set, ed);
	cr_assert_not(sc_editor_dirty(ed));
	cr_assert(sc_editor_redo(ed));
	d = sc_editor_kinds(ed);
	cr_assert(d[2] && !d[1]);
	device_costs_are_fresh(g, &set, ed);
	/* the same devices and stages again: no entry */
	cr_assert(sc_editor_set_kinds(ed, found, found_cpu, "again"));
	cr_assert_eq(sc_editor_undo_count(ed), 1);
	sc_editor_free(ed);
	sc_graph_free(g);
}
