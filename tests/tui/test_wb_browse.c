/*
 * test_wb_browse.c - the node browser driven in tmux: its filter (any
 * case, the list following every key typed), n and N through its matches,
 * the sort by param, the detail pane (neighbours with their stages and
 * tensors, the legal range and the edge holding each end, derived by hand
 * below), and a stage's ops from the overview.  What the screen must show
 * is computed here from the files, never taken from the program's own
 * output.  The comparison, the quotient view's matrix and the export's
 * caption are in test_wb_stages.c.
 *
 * figure2 (samples/paper/figure2.dot) under its own partition {a, u} {v, w}
 * {x, y} costs 5, 8, 5 (the file's comment); the optimum is 7.
 */
#define _XOPEN_SOURCE 700 /* nanosleep */
#include <criterion/criterion.h>
#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/graph.h"
#include "tests/support.h"

#define FIG2 "samples/paper/figure2.dot"
#define BERT "samples/msr-fiddle/operator/bert_l-3_inference.json"

/* Each test's own state directory (no recovery file offered or left). */
static char state[64];

static void make_state(void)
{
	ts_make_dir(state, "sc-wbbrowse");
}

static void remove_state(void)
{
	ts_remove_dir(state);
}

TestSuite(wbbrowse, .init = make_state, .fini = remove_state);

/* Starts the workbench with args (after the program) in a cols x rows
 * terminal and waits for ready on the screen. */
static void start(ts_tmux *t, int cols, int rows, const char *args, const char *ready)
{
	char cmd[9000], env[160];
	snprintf(cmd, sizeof cmd, "%s %s", ts_program(), args);
	snprintf(env, sizeof env, "TERM=xterm-256color LANG=C.UTF-8 XDG_STATE_HOME=%s", state);
	ts_tmux_start(t, cols, rows, env, cmd);
	free(ts_tmux_wait(t, ready, 10));
	free(ts_tmux_idle(t, 30));
}

/* name contains filter, letters in any case. */
static bool has_any_case(const char *name, const char *filter)
{
	char a[512], b[128];
	snprintf(a, sizeof a, "%s", name);
	snprintf(b, sizeof b, "%s", filter);
	for (char *p = a; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	for (char *p = b; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return strstr(a, b) != NULL;
}

/* How many nodes of the msr-fiddle file at path have a name containing
 * filter in any case, read with jansson (not through the program). */
static int fiddle_matches(const char *path, const char *filter, int *total)
{
	json_error_t jerr;
	json_t *root = json_load_file(path, 0, &jerr);
	cr_assert(root, "%s: %s", path, jerr.text);
	json_t *nodes = json_object_get(root, "nodes");
	int n = 0;
	*total = (int)json_array_size(nodes);
	for (size_t i = 0; i < json_array_size(nodes); i++) {
		const char *name =
		        json_string_value(json_object_get(json_array_get(nodes, i), "name"));
		n += name && has_any_case(name, filter);
	}
	json_decref(root);
	return n;
}

/* ---- the node browser ---------------------------------------------------- */

Test(wbbrowse, the_filter_follows_every_key_in_any_case_and_n_N_step, .timeout = 60)
{
	int total;
	int lay = fiddle_matches(BERT, "lay", &total),
	    layern = fiddle_matches(BERT, "layerN", &total);
	cr_assert_eq(total, 235);
	/* "LayerNorm" in the names: a filter matching only in one case finds
	 * none of these (and of "lay", only the lower-case ones) */
	cr_assert(layern > 0 && lay > layern, "lay %d, layerN %d", lay, layern);
	ts_tmux t;
	char sq[512];
	start(&t, 120, 40, BERT, "235 ops  250 edges");
	ts_tmux_keys(&t, "2");
	free(ts_tmux_wait(&t, "ops: 235 of 235", 5));
	ts_tmux_keys(&t, "/");
	free(ts_tmux_wait(&t, "filter ops by name", 5));
	/* the prompt still open: the list follows each key */
	char want[96];
	ts_tmux_keys(&t, "l a y");
	snprintf(want, sizeof want, "ops: %d of 235  matching \"lay\"", lay);
	char *s = ts_tmux_settled(&t, want, 5);
	cr_assert(strstr(s, "filter ops by name"), "the prompt is still open:\n%s", s);
	free(s);
	ts_tmux_keys(&t, "e r N");
	snprintf(want, sizeof want, "ops: %d of 235  matching \"layerN\"", layern);
	free(ts_tmux_wait(&t, want, 5));
	ts_tmux_keys(&t, "Enter");
	snprintf(want, sizeof want, "%d ops match \"layerN\"", layern);
	free(ts_tmux_wait(&t, want, 5));
	/* n, N, and N again round to the last */
	ts_tmux_keys(&t, "n");
	snprintf(want, sizeof want, "match 2 of %d: ", layern);
	s = ts_tmux_settled(&t, want, 5);
	cr_assert(has_any_case(ts_line_of(s, want, sq, sizeof sq), "layernorm"), "%s\n%s", sq, s);
	free(s);
	ts_tmux_keys(&t, "N");
	snprintf(want, sizeof want, "match 1 of %d: ", layern);
	free(ts_tmux_wait(&t, want, 5));
	ts_tmux_keys(&t, "N");
	snprintf(want, sizeof want, "match %d of %d: ", layern, layern);
	s = ts_tmux_settled(&t, want, 5);
	cr_assert(has_any_case(ts_line_of(s, want, sq, sizeof sq), "layernorm"), "%s", sq);
	free(s);
	ts_tmux_quit(&t);
}

/* The list's op names, top down, from the row under its column titles. */
static int listed_ops(const char *s, char names[][64], int max)
{
	const char *p = strstr(s, "  op ");
	cr_assert(p, "no column titles:\n%s", s);
	p = strchr(p, '\n');
	int n = 0;
	while (p && n < max) {
		p++;
		char line[512];
		const char *e = strchr(p, '\n');
		snprintf(line, sizeof line, "%.*s", e ? (int)(e - p) : (int)strlen(p), p);
		char name[64];
		if (!line[0] || sscanf(line + 1, " %63s", name) != 1)
			break;
		snprintf(names[n++], 64, "%s", name);
		p = e;
	}
	return n;
}

/* The words of the list's row of op name (after its '*' mark, the name
 * first) into tok[0..max); returns their number, 0 when no row has it. */
static int row_tokens(const char *s, const char *name, char tok[][64], int max)
{
	for (const char *p = s; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
		char line[512];
		const char *e = strchr(p, '\n');
		snprintf(line, sizeof line, "%.*s", e ? (int)(e - p) : (int)strlen(p), p);
		if (strlen(line) < 2 || (line[0] != ' ' && line[0] != '*') || line[1] != ' ')
			continue;
		int n = 0;
		for (char *w = strtok(line + 2, " "); w && n < max; w = strtok(NULL, " "))
			snprintf(tok[n++], 64, "%s", w);
		if (n > 0 && strcmp(tok[0], name) == 0)
			return n;
	}
	return 0;
}

Test(wbbrowse, sorted_by_param_in_the_files_order, .timeout = 30)
{
	sc_graph *g = ts_load(FIG2);
	/* the file's params, by decreasing param then name, by a plain sort */
	int order[16], n = g->n;
	for (int i = 0; i < n; i++)
		order[i] = i;
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++) {
			int a = order[i], b = order[j];
			if (g->param[b] > g->param[a] ||
			    (g->param[b] == g->param[a] &&
			     strcmp(g->op_name[b], g->op_name[a]) < 0)) {
				order[i] = b;
				order[j] = a;
			}
		}
	ts_tmux t;
	start(&t, 100, 30, FIG2, "bottleneck 8.0000");
	/* O cycles the order: stage, work, name, param */
	ts_tmux_keys(&t, "2 O O O");
	char *s = ts_tmux_settled(&t, "sorted by param", 5);
	char names[16][64];
	cr_assert_eq(listed_ops(s, names, 16), n, "%s", s);
	for (int i = 0; i < n; i++) {
		int v = order[i];
		cr_assert_str_eq(names[i], g->op_name[v], "row %d:\n%s", i, s);
		/* the param column (after stage, range and work) shows the
		 * file's param */
		char want[32], tok[6][64];
		snprintf(want, sizeof want, "%.4f", g->param[v]);
		cr_assert_eq(row_tokens(s, g->op_name[v], tok, 6), 6, "%s", s);
		cr_assert_str_eq(tok[4], want, "%s has param %s:\n%s", g->op_name[v], want, s);
	}
	free(s);
	sc_graph_free(g);
	ts_tmux_quit(&t);
}

/* figure2, u (stage 1): its predecessor a (stage 1) sends a's 1-byte
 * tensor; it sends its 2-byte tensor to v and w (stage 2).  It may go to
 * stage 1 (the first) or 2, where u -> v holds it (and u -> w). */
Test(wbbrowse, the_detail_pane_on_figure2, .timeout = 30)
{
	ts_tmux t;
	start(&t, 100, 30, FIG2, "bottleneck 8.0000");
	ts_tmux_keys(&t, "2");
	free(ts_tmux_wait(&t, "ops: 6 of 6", 5));
	ts_tmux_keys(&t, "j Enter");
	char *s = ts_tmux_settled(&t, "u: stage 1, may move to 1-2", 5);
	cr_assert(strstr(s, "earliest stage 1: the first stage"), "%s", s);
	cr_assert(strstr(s, "latest stage 2, held by edge u -> v (and 1 more): an edge never goes "
	                    "to an earlier stage"),
	          "%s", s);
	char sq[512];
	ts_line_of(s, "1 B  a", sq, sizeof sq);
	cr_assert(strstr(sq, "1 1 B a"), "a: stage 1, its 1-byte tensor:\n%s", s);
	ts_line_of(s, "2 B  v", sq, sizeof sq);
	cr_assert(strstr(sq, "hi 2 2 B v"), "v: stage 2, u's 2-byte tensor, holds the top:\n%s", s);
	ts_line_of(s, "2 B  w", sq, sizeof sq);
	cr_assert(strstr(sq, "hi 2 2 B w"), "%s", s);
	free(s);
	/* the pane follows the selection: x (stage 3) is held below by v -> x
	 * and w -> x, and y is its last-stage successor */
	ts_tmux_keys(&t, "j j j");
	s = ts_tmux_settled(&t, "x: stage 3, may move to 2-3", 5);
	cr_assert(strstr(s, "earliest stage 2, held by edge v -> x (and 1 more)"), "%s", s);
	cr_assert(strstr(s, "latest stage 3: the last stage"), "%s", s);
	free(s);
	/* Enter closes it */
	ts_tmux_keys(&t, "Enter");
	s = ts_tmux_settled(&t, "(Enter: detail)", 5);
	cr_assert(!strstr(s, "may move to"), "%s", s);
	free(s);
	ts_tmux_quit(&t);
}

/* residual in {input, conv1} {conv2, add} {mm_a, mm_b, concat, output}:
 * the group matmul (mm_a, mm_b) may go to stages 2-3, held below by add
 * (add -> mm_a, and add -> mm_b the one more); conv2 to 1-2, held above by
 * conv2 -> add. */
Test(wbbrowse, the_detail_pane_on_a_group, .timeout = 30)
{
	char part[128];
	snprintf(part, sizeof part, "%s/residual.json", state);
	FILE *f = fopen(part, "w");
	cr_assert(f);
	fprintf(f, "{\"format\": \"stagecut-partition/1\", \"k\": 3, \"stages\": {\"input\": 1, "
	           "\"conv1\": 1, \"conv2\": 2, \"add\": 2, \"mm_a\": 3, \"mm_b\": 3, \"concat\": "
	           "3, \"output\": 3}}\n");
	fclose(f);
	char args[300];
	snprintf(args, sizeof args, "samples/small/residual.dot -p %s", part);
	ts_tmux t;
	start(&t, 100, 30, args, "8 ops  9 edges");
	/* by name: add, concat, conv1, conv2, input, mm_a, mm_b, output */
	ts_tmux_keys(&t, "2 O O");
	free(ts_tmux_wait(&t, "sorted by name", 5));
	ts_tmux_keys(&t, "g j j j Enter");
	char *s = ts_tmux_settled(&t, "conv2: stage 2, may move to 1-2", 5);
	cr_assert(strstr(s, "latest stage 2, held by edge conv2 -> add: an edge never goes"), "%s",
	          s);
	free(s);
	ts_tmux_keys(&t, "j j");
	s = ts_tmux_settled(&t, "mm_a: stage 3, may move to 2-3", 5);
	cr_assert(strstr(s, "group matmul (2 ops)"), "%s", s);
	cr_assert(strstr(s, "earliest stage 2, held by edge add -> mm_a (and 1 more)"), "%s", s);
	char sq[512];
	/* add's 8-byte tensor in, mm_a's 4-byte tensor out to concat */
	ts_line_of(s, "8 B  add", sq, sizeof sq);
	cr_assert(strstr(sq, "lo 2 8 B add"), "%s", s);
	ts_line_of(s, "4 B  concat", sq, sizeof sq);
	cr_assert(strstr(sq, "3 4 B concat"), "%s", s);
	free(s);
	ts_tmux_quit(&t);
}

/* tests/data/training_small.json under its k = 3 partition (the comment of
 * tests/tui/test_wbtraining.c): grad_sum, the orphan in stage 2, is held
 * below by its mirrored edge grad_sum -> layer2_grad (layer2_grad in stage
 * 2: an edge between backward ops, one an orphan, never goes to a later
 * stage) and may go to stage 3. */
Test(wbbrowse, the_detail_pane_names_a_mirrored_edge, .timeout = 30)
{
	ts_tmux t;
	start(&t, 160, 36, "tests/data/training_small.json -p tests/data/training_small.k3.json",
	      "training, 1F1B");
	/* by stage: embed, embed_grad, layer1, layer1_grad, grad_sum, ... */
	ts_tmux_keys(&t, "2 j j j j Enter");
	char *s = ts_tmux_settled(&t, "grad_sum: stage 2, may move to 2-3", 5);
	cr_assert(strstr(s, "earliest stage 2, held by edge grad_sum -> layer2_grad: an edge "
	                    "between backward ops, one of them an orphan, never goes to a later "
	                    "stage"),
	          "%s", s);
	char sq[512];
	ts_line_of(s, "mirror  layer2_grad", sq, sizeof sq);
	cr_assert(strstr(sq, "lo 2 1 B mirror layer2_grad"), "%s", s);
	free(s);
	ts_tmux_quit(&t);
}

Test(wbbrowse, enter_on_a_stage_lists_its_ops_and_b_finds_the_bottleneck, .timeout = 30)
{
	ts_tmux t;
	start(&t, 100, 30, FIG2, "bottleneck 8.0000");
	/* b selects stage 2, the bottleneck (8); Enter lists v and w alone */
	ts_tmux_keys(&t, "b");
	free(ts_tmux_wait(&t, "the bottleneck is stage 2", 5));
	ts_tmux_keys(&t, "Enter");
	char *s = ts_tmux_settled(&t, "ops: 2 of 6 in stage 2", 5);
	char names[8][64];
	cr_assert_eq(listed_ops(s, names, 8), 2, "%s", s);
	cr_assert_str_eq(names[0], "v");
	cr_assert_str_eq(names[1], "w");
	free(s);
	/* 2 lists every stage again; stage 3 from the overview */
	ts_tmux_keys(&t, "2");
	free(ts_tmux_wait(&t, "ops: 6 of 6", 5));
	ts_tmux_keys(&t, "1 j Enter");
	s = ts_tmux_settled(&t, "ops: 2 of 6 in stage 3", 5);
	cr_assert_eq(listed_ops(s, names, 8), 2, "%s", s);
	cr_assert_str_eq(names[0], "x");
	cr_assert_str_eq(names[1], "y");
	free(s);
	ts_tmux_quit(&t);
}
