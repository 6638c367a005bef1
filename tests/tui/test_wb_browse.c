/*
 * test_wb_browse.c - browsing in the workbench, driven in tmux: the node
 * browser's filter (any case, the list following every key typed), n and N
 * through its matches, the sort by param, the detail pane (neighbours with
 * their stages and tensors, the legal range and the edge holding each end,
 * derived by hand below), a stage's ops from the overview, the comparison
 * with a partition file (its differences derived by hand), the quotient
 * view's matrix on a dense stage graph (against a recount of the volumes
 * and eval's in and out bytes) and the export's caption (read from the
 * SVG).  What the screen must show is computed here from the files, never
 * taken from the program's own output.
 *
 * figure2 (samples/paper/figure2.dot) under its own partition {a, u} {v, w}
 * {x, y} costs 5, 8, 5 (the file's comment); the optimum is 7.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <criterion/criterion.h>
#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/graph.h"
#include "core/partition.h"
#include "tests/support.h"
#include "viz/quotient.h"

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
}

static void quit(ts_tmux *t)
{
	ts_tmux_keys(t, "q");
	free(ts_tmux_wait(t, "EXIT=0", 5));
	ts_tmux_stop(t);
}

/* The line of screen s holding text (a copy, without its newline), or ""
 * when none does. */
static char *line_of(const char *s, const char *text)
{
	static char buf[4][1024];
	static int next;
	char *out = buf[next++ % 4];
	out[0] = '\0';
	const char *p = strstr(s, text);
	if (!p)
		return out;
	const char *a = p, *b = p;
	while (a > s && a[-1] != '\n')
		a--;
	while (*b && *b != '\n')
		b++;
	snprintf(out, sizeof buf[0], "%.*s", (int)(b - a), a);
	return out;
}

/* s with every run of spaces made one and no space at either end. */
static void squeeze(const char *s, char *out, size_t size)
{
	size_t n = 0;
	bool space = false;
	for (; *s && n + 1 < size; s++) {
		if (*s == ' ') {
			space = n > 0;
			continue;
		}
		if (space && n + 2 < size)
			out[n++] = ' ';
		space = false;
		out[n++] = *s;
	}
	out[n] = '\0';
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
	start(&t, 120, 40, BERT, "235 ops  250 edges");
	ts_tmux_keys(&t, "2");
	free(ts_tmux_wait(&t, "ops: 235 of 235", 5));
	ts_tmux_keys(&t, "/");
	free(ts_tmux_wait(&t, "filter ops by name", 5));
	/* the prompt still open: the list follows each key */
	char want[96];
	ts_tmux_keys(&t, "l a y");
	snprintf(want, sizeof want, "ops: %d of 235  matching \"lay\"", lay);
	char *s = ts_tmux_wait(&t, want, 5);
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
	s = ts_tmux_wait(&t, want, 5);
	cr_assert(has_any_case(line_of(s, want), "layernorm"), "%s", line_of(s, want));
	free(s);
	ts_tmux_keys(&t, "N");
	snprintf(want, sizeof want, "match 1 of %d: ", layern);
	free(ts_tmux_wait(&t, want, 5));
	ts_tmux_keys(&t, "N");
	snprintf(want, sizeof want, "match %d of %d: ", layern, layern);
	s = ts_tmux_wait(&t, want, 5);
	cr_assert(has_any_case(line_of(s, want), "layernorm"), "%s", line_of(s, want));
	free(s);
	quit(&t);
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
	/* S cycles stage, work, name, param */
	ts_tmux_keys(&t, "2 S S S");
	char *s = ts_tmux_wait(&t, "sorted by param", 5);
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
	quit(&t);
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
	char *s = ts_tmux_wait(&t, "u: stage 1, may move to 1-2", 5);
	cr_assert(strstr(s, "earliest stage 1: the first stage"), "%s", s);
	cr_assert(strstr(s, "latest stage 2, held by edge u -> v (and 1 more): an edge never goes "
	                    "to an earlier stage"),
	          "%s", s);
	char sq[512];
	squeeze(line_of(s, "1 B  a"), sq, sizeof sq);
	cr_assert(strstr(sq, "1 1 B a"), "a: stage 1, its 1-byte tensor:\n%s", s);
	squeeze(line_of(s, "2 B  v"), sq, sizeof sq);
	cr_assert(strstr(sq, "hi 2 2 B v"), "v: stage 2, u's 2-byte tensor, holds the top:\n%s", s);
	squeeze(line_of(s, "2 B  w"), sq, sizeof sq);
	cr_assert(strstr(sq, "hi 2 2 B w"), "%s", s);
	free(s);
	/* the pane follows the selection: x (stage 3) is held below by v -> x
	 * and w -> x, and y is its last-stage successor */
	ts_tmux_keys(&t, "j j j");
	s = ts_tmux_wait(&t, "x: stage 3, may move to 2-3", 5);
	cr_assert(strstr(s, "earliest stage 2, held by edge v -> x (and 1 more)"), "%s", s);
	cr_assert(strstr(s, "latest stage 3: the last stage"), "%s", s);
	free(s);
	/* Enter closes it */
	ts_tmux_keys(&t, "Enter");
	s = ts_tmux_wait(&t, "(Enter: detail)", 5);
	cr_assert(!strstr(s, "may move to"), "%s", s);
	free(s);
	quit(&t);
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
	ts_tmux_keys(&t, "2 S S");
	free(ts_tmux_wait(&t, "sorted by name", 5));
	ts_tmux_keys(&t, "g j j j Enter");
	char *s = ts_tmux_wait(&t, "conv2: stage 2, may move to 1-2", 5);
	cr_assert(strstr(s, "latest stage 2, held by edge conv2 -> add: an edge never goes"), "%s",
	          s);
	free(s);
	ts_tmux_keys(&t, "j j");
	s = ts_tmux_wait(&t, "mm_a: stage 3, may move to 2-3", 5);
	cr_assert(strstr(s, "group matmul (2 ops)"), "%s", s);
	cr_assert(strstr(s, "earliest stage 2, held by edge add -> mm_a (and 1 more)"), "%s", s);
	char sq[512];
	/* add's 8-byte tensor in, mm_a's 4-byte tensor out to concat */
	squeeze(line_of(s, "8 B  add"), sq, sizeof sq);
	cr_assert(strstr(sq, "lo 2 8 B add"), "%s", s);
	squeeze(line_of(s, "4 B  concat"), sq, sizeof sq);
	cr_assert(strstr(sq, "3 4 B concat"), "%s", s);
	free(s);
	quit(&t);
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
	char *s = ts_tmux_wait(&t, "grad_sum: stage 2, may move to 2-3", 5);
	cr_assert(strstr(s, "earliest stage 2, held by edge grad_sum -> layer2_grad: an edge "
	                    "between backward ops, one of them an orphan, never goes to a later "
	                    "stage"),
	          "%s", s);
	char sq[512];
	squeeze(line_of(s, "mirror  layer2_grad"), sq, sizeof sq);
	cr_assert(strstr(sq, "lo 2 1 B mirror layer2_grad"), "%s", s);
	free(s);
	quit(&t);
}

Test(wbbrowse, enter_on_a_stage_lists_its_ops_and_b_finds_the_bottleneck, .timeout = 30)
{
	ts_tmux t;
	start(&t, 100, 30, FIG2, "bottleneck 8.0000");
	/* b selects stage 2, the bottleneck (8); Enter lists v and w alone */
	ts_tmux_keys(&t, "b");
	free(ts_tmux_wait(&t, "the bottleneck is stage 2", 5));
	ts_tmux_keys(&t, "Enter");
	char *s = ts_tmux_wait(&t, "ops: 2 of 6 in stage 2", 5);
	char names[8][64];
	cr_assert_eq(listed_ops(s, names, 8), 2, "%s", s);
	cr_assert_str_eq(names[0], "v");
	cr_assert_str_eq(names[1], "w");
	free(s);
	/* 2 lists every stage again; stage 3 from the overview */
	ts_tmux_keys(&t, "2");
	free(ts_tmux_wait(&t, "ops: 6 of 6", 5));
	ts_tmux_keys(&t, "1 j Enter");
	s = ts_tmux_wait(&t, "ops: 2 of 6 in stage 3", 5);
	cr_assert_eq(listed_ops(s, names, 8), 2, "%s", s);
	cr_assert_str_eq(names[0], "x");
	cr_assert_str_eq(names[1], "y");
	free(s);
	quit(&t);
}

/* ---- comparing partitions ------------------------------------------------ */

/* The other partition {a} {u, v, w, x} {y}, by hand (bandwidth 1):
 *   stage 1 {a}: work 1, out a's 1 = 2            (now 5: -3; u goes out)
 *   stage 2 {u, v, w, x}: in a's 1, work 8, out x's 1 = 10 (now 8: +2; u
 *     and x come in)
 *   stage 3 {y}: in x's 1, work 1 = 2             (now 5: -3; x goes out)
 * objective 10 against 8: +2 (+25.00%); u moves 1 -> 2, x 3 -> 2. */
Test(wbbrowse, comparing_with_a_partition_file, .timeout = 30)
{
	char part[128];
	snprintf(part, sizeof part, "%s/other.json", state);
	FILE *f = fopen(part, "w");
	cr_assert(f);
	fprintf(f, "{\"format\": \"stagecut-partition/1\", \"k\": 3, \"stages\": {\"a\": 1, \"u\": "
	           "2, \"v\": 2, \"w\": 2, \"x\": 2, \"y\": 3}}\n");
	fclose(f);
	ts_tmux t;
	start(&t, 100, 30, FIG2, "bottleneck 8.0000");
	/* with the best found at once: wait for it, then take the file */
	free(ts_tmux_wait(&t, "best 7.0000", 10));
	ts_tmux_keys(&t, "c");
	free(ts_tmux_wait(&t, "compare the current partition with the best found", 5));
	ts_tmux_keys(&t, "f");
	free(ts_tmux_wait(&t, "compare with the partition file:", 5));
	char keys[200];
	snprintf(keys, sizeof keys, "-l %s", part);
	ts_tmux_keys(&t, keys);
	ts_tmux_keys(&t, "Enter");
	snprintf(keys, sizeof keys, "compare the current partition with %s", part);
	char *s = ts_tmux_wait(&t, keys, 5);
	cr_assert(strstr(s, "objective: current 8.0000, other 10.0000, difference +2.0000 "
	                    "(+25.00%)"),
	          "%s", s);
	char sq[512];
	/* stage, ops now, ops there, cost now, cost there, diff, in, out */
	squeeze(line_of(s, "     -3.0000      0      1"), sq, sizeof sq);
	cr_assert_str_eq(sq, "1 2 1 5.0000 2.0000 -3.0000 0 1", "%s", s);
	squeeze(line_of(s, "     +2.0000"), sq, sizeof sq);
	cr_assert_str_eq(sq, "*o 2 2 4 8.0000 10.0000 +2.0000 2 0", "%s", s);
	squeeze(line_of(s, "  3      2      1"), sq, sizeof sq);
	cr_assert_str_eq(sq, "3 2 1 5.0000 2.0000 -3.0000 0 1", "%s", s);
	cr_assert(strstr(s, "2 ops move: stage now -> in the other"), "%s", s);
	cr_assert(strstr(s, "  u  1 -> 2"), "%s", s);
	cr_assert(strstr(s, "  x  3 -> 2"), "%s", s);
	cr_assert(!strstr(s, "  w  "), "w stays:\n%s", s);
	free(s);
	/* Esc closes it; nothing changed */
	ts_tmux_keys(&t, "Escape");
	s = ts_tmux_wait(&t, "ladder of lower bounds", 5);
	cr_assert(!strstr(s, "compare the current"), "%s", s);
	cr_assert(strstr(s, "bottleneck 8.0000"), "%s", s);
	free(s);
	quit(&t);
}

/* ---- the quotient view's matrix ------------------------------------------ */

/* The bytes crossing from stage s to stage t (s != t) of g under stage,
 * counted here: each op's tensor once per other stage reading it; has[]
 * says where an edge goes at all. */
static void recount(const sc_graph *g, const int *stage, int k, double *vol, bool *has)
{
	memset(vol, 0, (size_t)k * (size_t)k * sizeof *vol);
	memset(has, 0, (size_t)k * (size_t)k * sizeof *has);
	bool *seen = calloc((size_t)k, sizeof *seen);
	for (int u = 0; u < g->n; u++) {
		memset(seen, 0, (size_t)k * sizeof *seen);
		for (int i = g->succ_off[u]; i < g->succ_off[u + 1]; i++) {
			int t = stage[g->succ[i]], s = stage[u];
			if (t == s || seen[t])
				continue;
			seen[t] = true;
			vol[s * k + t] += g->out[u];
			has[s * k + t] = true;
		}
	}
	free(seen);
}

Test(wbbrowse, a_dense_stage_graph_falls_back_to_the_matrix, .timeout = 90)
{
	char graph[128], part[128];
	snprintf(graph, sizeof graph, "%s/g.dot", state);
	snprintf(part, sizeof part, "%s/g.json", state);
	cr_assert_eq(ts_runf(NULL, NULL, "gen --nodes 200 --seed 3 -k 12 -o %s", graph), 0);
	cr_assert_eq(ts_runf(NULL, NULL, "solve %s -k 12 --method dpl -o %s", graph, part), 0);
	sc_graph *g = ts_load(graph);
	enum { K = 12 };
	int *stage = malloc((size_t)g->n * sizeof *stage);
	ts_read_partition(part, g, K, stage);
	double vol[K * K];
	bool has[K * K];
	recount(g, stage, K, vol, has);
	/* eval's in and out bytes per stage */
	char *out;
	cr_assert_eq(ts_runf(&out, NULL, "eval %s %s --json", graph, part), 0);
	json_error_t jerr;
	json_t *root = json_loads(out, 0, &jerr);
	cr_assert(root, "%s", jerr.text);
	json_t *stages = json_object_get(root, "stages");
	cr_assert_eq(json_array_size(stages), K);

	ts_tmux t;
	char args[300];
	snprintf(args, sizeof args, "%s -p %s", graph, part);
	start(&t, 130, 40, args, "200 ops");
	ts_tmux_keys(&t, "3");
	char *s = ts_tmux_wait(&t, "stage graph as a matrix of tensor volumes", 10);
	cr_assert(strstr(s, "the drawing is crowded ("), "%s", s);
	/* every row: the stage (and * on the bottleneck), its volumes to
	 * stages 1..12 ("." where no edge goes), its out bytes from eval */
	for (int r = 0; r < K; r++) {
		char want[1024], b[32];
		double ob = json_number_value(
		        json_object_get(json_array_get(stages, (size_t)r), "out_bytes"));
		int n = snprintf(want, sizeof want, "%d", r + 1);
		if (json_integer_value(json_object_get(root, "bottleneck_stage")) == r + 1)
			want[n++] = '*', want[n] = '\0';
		for (int c = 0; c < K; c++)
			n += snprintf(want + n, sizeof want - (size_t)n, " %s",
			              has[r * K + c]
			                      ? sc_quotient_fmt_bytes(vol[r * K + c], b, sizeof b)
			                      : ".");
		snprintf(want + n, sizeof want - (size_t)n, " %s",
		         sc_quotient_fmt_bytes(ob, b, sizeof b));
		/* the screen row that squeezes to it */
		bool found = false;
		for (const char *p = s; p && *p && !found; p = strchr(p, '\n'), p = p ? p + 1 : p) {
			char line[1024], sq[1024];
			const char *e = strchr(p, '\n');
			snprintf(line, sizeof line, "%.*s", e ? (int)(e - p) : (int)strlen(p), p);
			squeeze(line, sq, sizeof sq);
			found = strcmp(sq, want) == 0;
		}
		cr_assert(found, "no row \"%s\" on the screen:\n%s", want, s);
	}
	/* the last row: eval's in bytes, and each is its column's sum */
	char want[1024] = "in", b[32];
	int n = 2;
	for (int c = 0; c < K; c++) {
		double ib = json_number_value(
		        json_object_get(json_array_get(stages, (size_t)c), "in_bytes"));
		double sum = 0;
		for (int r = 0; r < K; r++)
			sum += vol[r * K + c];
		cr_assert_float_eq(sum, ib, 1e-6 * (1 + ib), "stage %d's in bytes", c + 1);
		n += snprintf(want + n, sizeof want - (size_t)n, " %s",
		              sc_quotient_fmt_bytes(ib, b, sizeof b));
	}
	char sq[1024];
	squeeze(line_of(s, "    in "), sq, sizeof sq);
	cr_assert_str_eq(sq, want, "%s", s);
	free(s);
	/* m draws the graph anyway, and m again brings the matrix back */
	ts_tmux_keys(&t, "m");
	free(ts_tmux_wait(&t, "the stage graph drawn (m: the matrix)", 5));
	s = ts_tmux_screen(&t);
	cr_assert(strstr(s, "stage graph: tensor volume between stages"), "%s", s);
	free(s);
	ts_tmux_keys(&t, "m");
	free(ts_tmux_wait(&t, "the stage graph as a matrix (m: the drawing)", 5));
	quit(&t);
	json_decref(root);
	free(out);
	free(stage);
	sc_graph_free(g);
}

/* figure2 keeps the drawing: three stages read well. */
Test(wbbrowse, a_sparse_stage_graph_is_drawn, .timeout = 30)
{
	ts_tmux t;
	start(&t, 120, 40, FIG2, "bottleneck 8.0000");
	ts_tmux_keys(&t, "3");
	char *s = ts_tmux_wait(&t, "stage 2 *", 5);
	cr_assert(!strstr(s, "matrix"), "%s", s);
	free(s);
	quit(&t);
}

/* ---- the export's caption ------------------------------------------------ */

/* The text of an SVG: its <text> elements' contents, one per line, with
 * &#39; read as '. */
static char *svg_text(const char *path)
{
	char *svg = ts_slurp(path, NULL);
	cr_assert(svg, "no %s", path);
	size_t cap = strlen(svg) + 1, n = 0;
	char *out = malloc(cap);
	for (const char *p = strstr(svg, "<text"); p; p = strstr(p, "<text")) {
		p = strchr(p, '>');
		if (!p)
			break;
		for (p++; *p && *p != '<'; p++) {
			if (strncmp(p, "&#39;", 5) == 0) {
				out[n++] = '\'';
				p += 4;
			} else {
				out[n++] = *p;
			}
		}
		out[n++] = '\n';
	}
	out[n] = '\0';
	free(svg);
	return out;
}

/* figure2's own partition on screen (bottleneck 8 in stage 2), the best
 * lower bound 7 (the exact DP's optimum), so the gap is 8 / 7 - 1 =
 * 14.29%; the best found, 7, is better and optimal. */
Test(wbbrowse, the_export_caption_speaks_of_the_partition_on_screen, .timeout = 40)
{
	char dir[] = "/tmp/sc-wbx-XXXXXX";
	cr_assert(mkdtemp(dir));
	char cmd[9000], prog[4096], root[4096], env[160];
	cr_assert(realpath(ts_program(), prog) && getcwd(root, sizeof root));
	snprintf(cmd, sizeof cmd, "sh -c 'cd %s && %s %s/" FIG2 "'", dir, prog, root);
	snprintf(env, sizeof env, "TERM=xterm-256color XDG_STATE_HOME=%s", state);
	ts_tmux t;
	ts_tmux_start(&t, 120, 40, env, cmd);
	free(ts_tmux_wait(&t, "lower bound 7.0000 (exact DP)", 15));
	free(ts_tmux_wait(&t, "best 7.0000", 5));
	ts_tmux_keys(&t, "e");
	free(ts_tmux_wait(&t, "figure2-k3.png", 5));
	ts_tmux_keys(&t, "BSpace BSpace BSpace s v g Enter");
	free(ts_tmux_wait(&t, "exported the stage graph to figure2-k3.svg", 10));
	quit(&t);
	char path[128];
	snprintf(path, sizeof path, "%s/figure2-k3.svg", dir);
	char *text = svg_text(path);
	cr_assert(strstr(text, "figure2.dot, k 3\n"), "%s", text);
	cr_assert(strstr(text, "the partition on screen: the file's own stages\n"), "%s", text);
	cr_assert(strstr(text, "3 stages, bottleneck 8 in stage 2\n"), "%s", text);
	cr_assert(strstr(text, "best lower bound 7 (exact DP), gap 14.29%\n"), "%s", text);
	cr_assert(strstr(text, "best found 7 (best): optimal\n"), "%s", text);
	free(text);
	unlink(path);
	rmdir(dir);
}
