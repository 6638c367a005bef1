/*
 * test_wb_names.c - readable names in the node browser, driven in tmux:
 * vit_b_16's long ONNX names told apart at 80
 * columns (the tail that differs kept by the middle ellipsis) and whole at
 * 200, in natural order (encoder_layer_2 before encoder_layer_10), the name
 * column scrolled with Right and Left, the selection line and the detail
 * pane's title wrapped instead of cut; and moving around figure2 from the
 * detail pane: ( and ) to a predecessor and a successor (a list when there
 * are several), { and } back and forward, with the neighbourhood drawn.
 *
 * vit_b_16's names are /encoder/layers/encoder_layer_<i>/<block>/<op> for
 * i = 0 .. 11; figure2 (samples/paper/figure2.dot) is a -> u, u -> v,
 * u -> w, v -> x, w -> x, x -> y under stages {a, u} {v, w} {x, y}.
 */
#define _XOPEN_SOURCE 700
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support.h"

#define VIT "samples/onnx/vit_b_16.onnx"
#define FIG2 "samples/paper/figure2.dot"

static char state[64];

static void make_state(void)
{
	ts_make_dir(state, "sc-wbnames");
}

static void remove_state(void)
{
	ts_remove_dir(state);
}

TestSuite(wbnames, .init = make_state, .fini = remove_state);

static void start(ts_tmux *t, int cols, int rows, const char *args, const char *ready)
{
	char cmd[9000], env[160];
	snprintf(cmd, sizeof cmd, "%s %s", ts_program(), args);
	snprintf(env, sizeof env, "TERM=xterm-256color LANG=C.UTF-8 XDG_STATE_HOME=%s", state);
	ts_tmux_start(t, cols, rows, env, cmd);
	free(ts_tmux_wait(t, ready, 20));
	free(ts_tmux_idle(t, 60));
}

/* The node browser of vit_b_16 sorted by name and filtered by filter. */
static char *vit_filtered(ts_tmux *t, int cols, int rows, const char *filter_keys,
                          const char *matching)
{
	start(t, cols, rows, VIT, "vit_b_16.onnx");
	ts_tmux_keys(t, "2 O O");
	free(ts_tmux_wait(t, "sorted by name", 5));
	ts_tmux_keys(t, "/");
	free(ts_tmux_wait(t, "filter ops by name", 5));
	ts_tmux_keys(t, filter_keys);
	ts_tmux_keys(t, "Enter");
	return ts_tmux_settled(t, matching, 5);
}

/* The row of screen s (from the column titles down) holding text, its
 * index among the list's rows, or -1. */
static int list_row(const char *s, const char *text)
{
	const char *p = strstr(s, "  op");
	cr_assert(p, "no column titles:\n%s", s);
	p = strchr(p, '\n');
	for (int r = 0; p && p[1]; r++) {
		const char *e = strchr(p + 1, '\n');
		size_t n = e ? (size_t)(e - p - 1) : strlen(p + 1);
		char line[1024];
		snprintf(line, sizeof line, "%.*s", (int)n, p + 1);
		if (strstr(line, text))
			return r;
		p = e;
	}
	return -1;
}

Test(wbnames, vit_names_told_apart_at_80_columns_in_natural_order, .timeout = 90)
{
	ts_tmux t;
	char *s = vit_filtered(&t, 80, 24, "m l p . 0 / M a t M u l", "ops: 12 of ");
	/* every layer's row names its layer, in the order of the numbers */
	int last = -1;
	for (int i = 0; i < 12; i++) {
		char want[96];
		snprintf(want, sizeof want, "_layer_%d/mlp/mlp.0/MatMul ", i);
		int r = list_row(s, want);
		cr_assert_geq(r, 0, "no row shows '%s':\n%s", want, s);
		cr_assert_gt(r, last, "layer %d listed before layer %d:\n%s", i, i - 1, s);
		last = r;
	}
	free(s);
	ts_tmux_quit(&t);
}

Test(wbnames, the_name_column_grows_with_the_terminal, .timeout = 90)
{
	ts_tmux t;
	char *s = vit_filtered(&t, 200, 40, "s e l f _ a t t e n t i o n / M a t M u l _ 1",
	                       "ops: 12 of ");
	/* whole names at 200 columns, and the out column beside them */
	cr_assert_geq(list_row(s, "/encoder/layers/encoder_layer_10/self_attention/MatMul_1 "), 0,
	              "%s", s);
	cr_assert(strstr(s, " out"), "%s", s);
	free(s);
	/* narrowed to 80: fitted, the layer still there */
	ts_tmux_resize(&t, 80, 24);
	s = ts_tmux_settled(&t, "r_layer_10/self_attention/MatMul_1", 5);
	cr_assert_lt(list_row(s, "/encoder/layers/encoder_layer_10/"), 0, "%s", s);
	cr_assert_geq(list_row(s, "/encoder/"
	                          "\xe2\x80\xa6"),
	              0, "a middle ellipsis:\n%s", s);
	free(s);
	ts_tmux_quit(&t);
}

Test(wbnames, right_and_left_scroll_the_names, .timeout = 90)
{
	ts_tmux t;
	char *s = vit_filtered(&t, 80, 24, "s e l f _ a t t e n t i o n / M a t M u l _ 1",
	                       "ops: 12 of ");
	cr_assert_lt(list_row(s, "layers/encoder_layer_10"), 0, "fitted at first:\n%s", s);
	free(s);
	ts_tmux_keys(&t, "Right");
	s = ts_tmux_settled(&t, "op, from its cell 9", 5);
	/* cells 9 on: the middle that the ellipsis took is there */
	cr_assert_geq(list_row(s, "/layers/encoder_layer_10/self_attention/Mat"), 0, "%s", s);
	free(s);
	ts_tmux_keys(&t, "Left");
	s = ts_tmux_settled(&t, "r_layer_10/self_attention/MatMul_1", 5);
	cr_assert_null(strstr(s, "from its cell"), "%s", s);
	cr_assert_lt(list_row(s, "layers/encoder_layer_10"), 0, "%s", s);
	free(s);
	ts_tmux_quit(&t);
}

Test(wbnames, the_selection_and_the_detail_title_wrap, .timeout = 90)
{
	ts_tmux t;
	char *s = vit_filtered(&t, 80, 24,
	                       "l a y e r _ 1 0 / s e l f _ a t t e n t i o n / M a t M u l _ 1",
	                       "ops: 1 of ");
	/* the whole name, then what follows it on the next row */
	cr_assert(strstr(s, "\n/encoder/layers/encoder_layer_10/self_attention/MatMul_1: 2 "
	                    "predecessors, 1\nsuccessors, work modelled  (Enter: detail)"),
	          "%s", s);
	free(s);
	ts_tmux_keys(&t, "Enter");
	s = ts_tmux_settled(&t, "(Enter closes)", 5);
	cr_assert(strstr(s, "an edge never goes to an earlier stage") ||
	                  strstr(s, "the last stage"),
	          "both ends of the range:\n%s", s);
	free(s);
	ts_tmux_quit(&t);
}

Test(wbnames, jump_to_neighbours_back_and_forward, .timeout = 60)
{
	ts_tmux t;
	char sq[512];
	start(&t, 100, 30, FIG2, "bottleneck 8.0000");
	ts_tmux_keys(&t, "2");
	free(ts_tmux_wait(&t, "ops: 6 of 6", 5));
	/* u, in detail: a fans in, v and w fan out of its stage's box */
	ts_tmux_keys(&t, "j Enter");
	char *s = ts_tmux_settled(&t, "u: stage 1, may move to 1-2", 5);
	ts_line_of(s, "[1]", sq, sizeof sq);
	cr_assert(strstr(sq,
	                 "1 1 B a \xe2\x94\x80\xe2\x94\x80\xe2\x96\xb6[1]\xe2\x94\xac\xe2\x94\x80"
	                 "\xe2\x96\xb6 hi 2 2 B v"),
	          "a -> [1] -> v:\n%s", s);
	ts_line_of(s, "2 B  w", sq, sizeof sq);
	cr_assert(strstr(sq, "\xe2\x94\x94\xe2\x94\x80\xe2\x96\xb6 hi 2 2 B w"), "then w:\n%s", s);
	free(s);
	/* ) with two successors: the list, j Enter picks w */
	ts_tmux_keys(&t, "')'");
	free(ts_tmux_wait(&t, "go to a successor (2)", 5));
	ts_tmux_keys(&t, "j Enter");
	free(ts_tmux_settled(&t, "w: stage 2, may move to 1-3", 5));
	/* ) with one: straight to x; ( with two from x (v, w) */
	ts_tmux_keys(&t, "')'");
	free(ts_tmux_settled(&t, "x: stage 3, may move to 2-3", 5));
	/* back to w, back to u, forward to w */
	ts_tmux_keys(&t, "'{'");
	free(ts_tmux_settled(&t, "w: stage 2", 5));
	ts_tmux_keys(&t, "'{'");
	s = ts_tmux_settled(&t, "u: stage 1", 5);
	cr_assert(strstr(s, "{ back (0), } forward (2)"), "%s", s);
	free(s);
	ts_tmux_keys(&t, "'}'");
	s = ts_tmux_settled(&t, "w: stage 2", 5);
	cr_assert(strstr(s, "{ back (1), } forward (1)"), "%s", s);
	free(s);
	ts_tmux_keys(&t, "'('");
	s = ts_tmux_settled(&t, "u: stage 1", 5);
	cr_assert(strstr(s, "{ back (2), } forward (0)"), "a new step drops what lay ahead:\n%s",
	          s);
	free(s);
	ts_tmux_quit(&t);
}
