/*
 * test_wbtraining.c - the workbench on a training graph, driven in tmux:
 * the header names the graph's kind and schedule (and under GPipe its
 * objective), the stage table splits each stage's cost by pass, the node
 * browser gives each op's pass, a move that breaks a training rule is
 * refused with the whole message (edge and rule), and a forward op takes
 * its group's backward op along.  An inference graph's screen has none of
 * it.
 *
 * The graph, tests/data/training_small.json (msr-fiddle format, bandwidth
 * 1, memory 1e6 under the hard policy, which nothing here reaches):
 *
 *   forward  embed (work 3, out 1)  -> layer1 (2, out 2) -> layer2 (3, out 1)
 *            -> loss (1, out 1)
 *   backward loss -> loss_grad (1, out 1) -> grad_sum (1, out 1)
 *            -> layer2_grad (6, out 2) -> layer1_grad (4, out 1)
 *            -> embed_grad (2); and the saved activations embed ->
 *            embed_grad, layer1 -> layer1_grad, layer2 -> layer2_grad
 *
 * Groups (colorClass): color1 {embed, embed_grad}, color2 {layer1,
 * layer1_grad}, color3 {layer2, layer2_grad}, color4 {loss, loss_grad};
 * grad_sum alone in color9, a backward op without a forward op in its
 * group: the orphan.  Its edges loss_grad -> grad_sum and grad_sum ->
 * layer2_grad keep the mirror order: they never go to a later stage.
 *
 * The partition tests/data/training_small.k3.json, by hand (a tensor
 * belongs to the pass of the op that makes it; cost = io in + work + io
 * out, fw + bw = cost):
 *   stage 1 {embed, embed_grad, layer1, layer1_grad}: work 3+2+2+4 = 11
 *     (bw 6); in: layer2_grad's 2 (bw); out: layer1's 2 (fw);
 *     cost 2 + 11 + 2 = 15, bw 2 + 6 = 8, fw 7.
 *   stage 2 {layer2, layer2_grad, grad_sum}: work 3+6+1 = 10 (bw 7); in:
 *     layer1's 2 (fw), loss_grad's 1 (bw); out: layer2's 1 (fw),
 *     layer2_grad's 2 (bw); cost 3 + 10 + 3 = 16, bw 1 + 2 + 7 = 10, fw 6.
 *   stage 3 {loss, loss_grad}: work 2 (bw 1); in: layer2's 1 (fw); out:
 *     loss_grad's 1 (bw); cost 1 + 2 + 1 = 4, bw 1 + 1 = 2, fw 2.
 *   bottleneck 16 (stage 2); GPipe: max fw 7 (stage 1) + max bw 10
 *   (stage 2) = 17.
 * After moving layer1 (with layer1_grad, its group) to stage 2:
 *   stage 1 {embed, embed_grad}: work 5 (bw 2); in: layer1_grad's 1 (bw);
 *     out: embed's 1 (fw); cost 7, bw 1 + 2 = 3, fw 4.
 *   stage 2 {layer1, layer1_grad, layer2, layer2_grad, grad_sum}: work 16
 *     (bw 11); in: embed's 1 (fw), loss_grad's 1 (bw); out: layer2's 1
 *     (fw), layer1_grad's 1 (bw); cost 2 + 16 + 2 = 20, bw 13, fw 7.
 *   stage 3 as before: 4 = 2 + 2.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support.h"

#define TRAINING "tests/data/training_small.json"
#define TRAINING_K3 "tests/data/training_small.k3.json"

/* Each test's own state directory, so that no recovery file of another
 * session is offered (and none is left behind). */
static char state[64];

static void make_state(void)
{
	ts_make_dir(state, "sc-wbtraining");
}

static void remove_state(void)
{
	ts_remove_dir(state);
}

TestSuite(wbtraining, .init = make_state, .fini = remove_state);

/* Starts the workbench on the training graph and its partition in a
 * cols x rows terminal and waits for the first screen. */
static void start_training(ts_tmux *t, int cols, int rows)
{
	char cmd[512], env[160];
	snprintf(cmd, sizeof cmd, "%s " TRAINING " -p " TRAINING_K3, ts_program());
	snprintf(env, sizeof env, "TERM=xterm-256color XDG_STATE_HOME=%s", state);
	ts_tmux_start(t, cols, rows, env, cmd);
	free(ts_tmux_wait(t, "training, 1F1B", 5));
}

static void quit(ts_tmux *t, bool edited)
{
	ts_tmux_keys(t, "q");
	if (edited) {
		free(ts_tmux_wait(t, "unsaved changes", 5));
		ts_tmux_keys(t, "q Enter");
	}
	free(ts_tmux_wait(t, "EXIT=0", 5));
	ts_tmux_stop(t);
}

/* The node browser sorted by stage then name lists: embed, embed_grad,
 * layer1, layer1_grad (stage 1), grad_sum, layer2, layer2_grad (stage 2),
 * loss, loss_grad (stage 3).  Selects the i-th (0-based) from the top. */
static void select_op(ts_tmux *t, int i)
{
	ts_tmux_keys(t, "2");
	free(ts_tmux_wait(t, "ops: 9 of 9", 5));
	ts_tmux_keys(t, "g");
	for (int j = 0; j < i; j++)
		ts_tmux_keys(t, "j");
}

Test(wbtraining, header_and_stage_costs_by_pass, .timeout = 30)
{
	ts_tmux t;
	start_training(&t, 120, 40);
	char *s = ts_tmux_wait(&t, "bottleneck 16.0000", 5);
	cr_assert(strstr(s, "9 ops  11 edges  k 3  B 1.0000  M 1000000.0000 (hard)  training, "
	                    "1F1B"),
	          "%s", s);
	cr_assert(strstr(s, "  stage    ops        work       io in      io out    overflow      "
	                    "  cost          fw          bw"),
	          "%s", s);
	/* the hand computation at the top of this file */
	cr_assert(strstr(s, "      1      4     11.0000      2.0000      2.0000      0.0000     "
	                    "15.0000      7.0000      8.0000"),
	          "%s", s);
	cr_assert(strstr(s, "*     2      3     10.0000      3.0000      3.0000      0.0000     "
	                    "16.0000      6.0000     10.0000"),
	          "%s", s);
	cr_assert(strstr(s, "      3      2      2.0000      1.0000      1.0000      0.0000     "
	                    " 4.0000      2.0000      2.0000"),
	          "%s", s);
	free(s);
	quit(&t, false);
}

/* 80 columns hold the nine columns and the parameter bytes: the numbers
 * get fewer cells. */
Test(wbtraining, stage_table_fits_80_columns, .timeout = 30)
{
	ts_tmux t;
	start_training(&t, 80, 24);
	char *s = ts_tmux_wait(&t, "bottleneck 16.0000", 5);
	cr_assert(strstr(s,
	                 "  stage    ops    work   io in  io out overflow    cost      fw      bw "
	                 "  param\n"),
	          "%s", s);
	cr_assert(strstr(s,
	                 "*     2      3 10.0000  3.0000  3.0000  0.0000 16.0000  6.0000 10.0000 "
	                 "  16384\n"),
	          "%s", s);
	free(s);
	quit(&t, false);
}

Test(wbtraining, node_browser_shows_each_pass, .timeout = 30)
{
	ts_tmux t;
	start_training(&t, 120, 40);
	select_op(&t, 4);
	char *s = ts_tmux_wait(&t, "grad_sum: 1 predecessors", 5);
	cr_assert(strstr(s, "backward pass, orphan"), "%s", s);
	const char *rows[] = {"embed ",    "fw",     "embed_grad ", "bw", "layer1_grad ", "bw",
	                      "grad_sum ", "orphan", "layer2 ",     "fw", "loss_grad ",   "bw"};
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i += 2) {
		/* the row of the op: its name, padded, then stage and pass */
		char *line = strstr(s, rows[i]);
		while (line && line[-1] != ' ')
			line = strstr(line + 1, rows[i]);
		cr_assert(line, "no row for %s:\n%s", rows[i], s);
		char *end = strchr(line, '\n');
		char row[256];
		snprintf(row, sizeof row, "%.*s", (int)(end - line), line);
		char name[64], pass[16];
		int stage;
		cr_assert_eq(sscanf(row, "%63s %d %15s", name, &stage, pass), 3, "%s", row);
		cr_assert_str_eq(pass, rows[i + 1], "%s", row);
	}
	free(s);
	quit(&t, false);
}

/* grad_sum (the orphan) one stage earlier: grad_sum -> layer2_grad would
 * then go from stage 1 on to stage 2, which the mirror rule forbids; embed
 * one stage later: embed -> layer1 would go back.  Both are refused with
 * the editor's whole message, which at 80 columns takes two rows. */
Test(wbtraining, refused_moves_name_the_edge_and_rule_uncut, .timeout = 30)
{
	ts_tmux t;
	start_training(&t, 80, 24);
	select_op(&t, 4);
	free(ts_tmux_wait(&t, "grad_sum: 1 predecessors", 5));
	ts_tmux_keys(&t, "'<'");
	char *s = ts_tmux_wait(&t, "never goes to a later stage)", 5);
	cr_assert(strstr(s, "refused: edge grad_sum -> layer2_grad would go from stage 1 on to "
	                    "stage 2 (an\nedge between backward ops, one of them an orphan, never "
	                    "goes to a later stage)"),
	          "the whole message, wrapped:\n%s", s);
	cr_assert(strstr(s, "bottleneck 16.0000"), "nothing changed:\n%s", s);
	free(s);
	ts_tmux_keys(&t, "g");
	free(ts_tmux_wait(&t, "embed: 0 predecessors", 5));
	ts_tmux_keys(&t, "'>'");
	s = ts_tmux_wait(&t, "refused: edge embed -> layer1 would go from stage 2 back to stage 1",
	                 5);
	cr_assert(strstr(s, "bottleneck 16.0000"), "nothing changed:\n%s", s);
	free(s);
	quit(&t, false);
}

/* layer1 one stage later takes layer1_grad (its group) along: the status
 * line says two ops moved, one of each pass; the list shows both in stage
 * 2, the stage table the costs by hand; undo puts both back. */
Test(wbtraining, a_forward_op_takes_its_backward_op_along, .timeout = 30)
{
	ts_tmux t;
	start_training(&t, 120, 40);
	select_op(&t, 2);
	free(ts_tmux_wait(&t, "layer1: 1 predecessors", 5));
	ts_tmux_keys(&t, "'>'");
	char *s = ts_tmux_wait(&t,
	                       "moved group color2 (2 ops) to stage 2: 1 forward op, 1 "
	                       "backward op",
	                       5);
	cr_assert(strstr(s, "bottleneck 20.0000"), "%s", s);
	const char *moved[] = {"layer1 ", "layer1_grad "};
	for (int i = 0; i < 2; i++) {
		char *line = strstr(s, moved[i]);
		while (line && line[-1] != ' ')
			line = strstr(line + 1, moved[i]);
		cr_assert(line, "%s", s);
		char name[64];
		int stage;
		cr_assert_eq(sscanf(line, "%63s %d", name, &stage), 2);
		cr_assert_eq(stage, 2, "%s is in stage %d:\n%s", name, stage, s);
	}
	free(s);
	ts_tmux_keys(&t, "1");
	s = ts_tmux_wait(&t, "  stage    ops", 5);
	cr_assert(strstr(s, "      1      2      5.0000      1.0000      1.0000      0.0000     "
	                    " 7.0000      4.0000      3.0000"),
	          "%s", s);
	cr_assert(strstr(s, "*     2      5     16.0000      2.0000      2.0000      0.0000     "
	                    "20.0000      7.0000     13.0000"),
	          "%s", s);
	cr_assert(strstr(s, "      3      2      2.0000      1.0000      1.0000      0.0000     "
	                    " 4.0000      2.0000      2.0000"),
	          "%s", s);
	free(s);
	ts_tmux_keys(&t, "u");
	s = ts_tmux_wait(&t, "undone", 5);
	cr_assert(strstr(s, "bottleneck 16.0000"), "%s", s);
	free(s);
	quit(&t, false); /* back at the partition loaded: nothing unsaved */
}

/* The settings form offers the schedule on a training graph; under GPipe
 * the header shows its objective, max fw 7 + max bw 10 = 17. */
Test(wbtraining, gpipe_objective_in_the_header, .timeout = 30)
{
	ts_tmux t;
	start_training(&t, 120, 40);
	ts_tmux_keys(&t, "o");
	char *s = ts_tmux_wait(&t, "schedule (training)", 5);
	cr_assert(strstr(s, "schedule (training)          1F1B"), "%s", s);
	free(s);
	/* the fifth field: k, bandwidth, memory, policy, schedule */
	ts_tmux_keys(&t, "j j j j Enter");
	free(ts_tmux_wait(&t, "new value:", 5));
	ts_tmux_keys(&t, "BSpace BSpace BSpace BSpace g p i p e Enter");
	free(ts_tmux_wait(&t, "schedule (training)          GPipe", 5));
	ts_tmux_keys(&t, "Escape");
	s = ts_tmux_wait(&t, "GPipe objective 17.0000 = fw 7.0000 + bw 10.0000", 5);
	cr_assert(strstr(s, "training, GPipe"), "%s", s);
	/* the table is the same; the objective is not its largest row */
	cr_assert(strstr(s, "*     2      3     10.0000      3.0000      3.0000      0.0000     "
	                    "16.0000      6.0000     10.0000"),
	          "%s", s);
	free(s);
	quit(&t, false);
}

/* View 3: each box splits its cost by pass, each edge its volume. */
Test(wbtraining, stage_graph_view_by_pass, .timeout = 30)
{
	ts_tmux t;
	start_training(&t, 120, 40);
	ts_tmux_keys(&t, "3");
	char *s = ts_tmux_wait(&t, "forward (fw) and backward (bw) apart", 5);
	free(s);
	s = ts_tmux_wait(&t, "bw 2 B", 5);
	cr_assert(strstr(s, "fw 2 B") && strstr(s, "fw 1 B") && strstr(s, "bw 1 B"), "%s", s);
	cr_assert(strstr(s, "\xe2\x94\x82"
	                    "fw          7"
	                    "\xe2\x94\x82"),
	          "stage 1's fw row:\n%s", s);
	cr_assert(strstr(s, "\xe2\x94\x82"
	                    "bw          8"
	                    "\xe2\x94\x82"),
	          "stage 1's bw row:\n%s", s);
	free(s);
	quit(&t, false);
}

/* An inference graph's screens are as they were: no pass anywhere. */
Test(wbtraining, inference_screens_have_no_pass, .timeout = 30)
{
	ts_tmux t;
	char cmd[512];
	snprintf(cmd, sizeof cmd, "%s samples/paper/figure2.dot", ts_program());
	char env[160];
	snprintf(env, sizeof env, "TERM=xterm-256color XDG_STATE_HOME=%s", state);
	ts_tmux_start(&t, 120, 40, env, cmd);
	char *s = ts_tmux_wait(&t, "bottleneck 8.0000", 5);
	cr_assert_null(strstr(s, "training"), "%s", s);
	cr_assert(strstr(s, "  stage    ops        work       io in      io out    overflow      "
	                    "  cost      param  [time units]\n"),
	          "%s", s);
	free(s);
	ts_tmux_keys(&t, "2");
	s = ts_tmux_wait(&t, "ops: 6 of 6", 5);
	cr_assert_null(strstr(s, "pass"), "%s", s);
	free(s);
	ts_tmux_keys(&t, "o");
	s = ts_tmux_wait(&t, "memory policy", 5);
	cr_assert_null(strstr(s, "schedule"), "%s", s);
	free(s);
	ts_tmux_keys(&t, "Escape");
	quit(&t, false);
}
