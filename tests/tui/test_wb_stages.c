/*
 * test_wb_stages.c - the workbench's views of the stages driven in tmux:
 * the comparison with a partition file (its differences derived by hand),
 * the quotient view's matrix on a dense stage graph (against a recount of
 * the volumes and eval's in and out bytes) and the export's caption (read
 * from the SVG).  What the screen must show is computed here from the
 * files, never taken from the program's own output.
 *
 * figure2 (samples/paper/figure2.dot) under its own partition {a, u} {v, w}
 * {x, y} costs 5, 8, 5 (the file's comment); the optimum is 7.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <criterion/criterion.h>
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

/* Each test's own state directory (no recovery file offered or left). */
static char state[64];

static void make_state(void)
{
	ts_make_dir(state, "sc-wbstages");
}

static void remove_state(void)
{
	ts_remove_dir(state);
}

TestSuite(wbstages, .init = make_state, .fini = remove_state);

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

/* ---- comparing partitions ------------------------------------------------ */

/* The other partition {a} {u, v, w, x} {y}, by hand (bandwidth 1):
 *   stage 1 {a}: work 1, out a's 1 = 2            (now 5: -3; u goes out)
 *   stage 2 {u, v, w, x}: in a's 1, work 8, out x's 1 = 10 (now 8: +2; u
 *     and x come in)
 *   stage 3 {y}: in x's 1, work 1 = 2             (now 5: -3; x goes out)
 * objective 10 against 8: +2 (+25.00%); u moves 1 -> 2, x 3 -> 2. */
Test(wbstages, comparing_with_a_partition_file, .timeout = 30)
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
	char *s = ts_tmux_settled(&t, keys, 5);
	cr_assert(strstr(s, "objective: current 8.0000, other 10.0000, difference +2.0000 "
	                    "(+25.00%)"),
	          "%s", s);
	char sq[512];
	/* stage, ops now, ops there, cost now, cost there, diff, in, out */
	ts_line_of(s, "     -3.0000      0      1", sq, sizeof sq);
	cr_assert_str_eq(sq, "1 2 1 5.0000 2.0000 -3.0000 0 1", "%s", s);
	ts_line_of(s, "     +2.0000", sq, sizeof sq);
	cr_assert_str_eq(sq, "*o 2 2 4 8.0000 10.0000 +2.0000 2 0", "%s", s);
	ts_line_of(s, "  3      2      1", sq, sizeof sq);
	cr_assert_str_eq(sq, "3 2 1 5.0000 2.0000 -3.0000 0 1", "%s", s);
	cr_assert(strstr(s, "2 ops move: stage now -> in the other"), "%s", s);
	cr_assert(strstr(s, "  u  1 -> 2"), "%s", s);
	cr_assert(strstr(s, "  x  3 -> 2"), "%s", s);
	cr_assert(!strstr(s, "  w  "), "w stays:\n%s", s);
	free(s);
	/* Esc closes it; nothing changed */
	ts_tmux_keys(&t, "Escape");
	s = ts_tmux_settled(&t, "ladder of lower bounds", 5);
	cr_assert(!strstr(s, "compare the current"), "%s", s);
	cr_assert(strstr(s, "bottleneck 8.0000"), "%s", s);
	free(s);
	ts_tmux_quit(&t);
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

Test(wbstages, a_dense_stage_graph_falls_back_to_the_matrix, .timeout = 90)
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
	char *s = ts_tmux_settled(&t, "stage graph as a matrix of tensor volumes", 10);
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
		cr_assert(ts_has_line(s, want), "no row \"%s\" on the screen:\n%s", want, s);
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
	ts_line_of(s, "    in ", sq, sizeof sq);
	cr_assert_str_eq(sq, want, "%s", s);
	free(s);
	/* m draws the graph anyway, and m again brings the matrix back */
	ts_tmux_keys(&t, "m");
	free(ts_tmux_wait(&t, "the stage graph drawn (m: the matrix)", 5));
	s = ts_tmux_settled(&t, "stage graph: tensor volume between stages", 5);
	cr_assert(strstr(s, "stage graph: tensor volume between stages"), "%s", s);
	free(s);
	ts_tmux_keys(&t, "m");
	free(ts_tmux_wait(&t, "the stage graph as a matrix (m: the drawing)", 5));
	ts_tmux_quit(&t);
	json_decref(root);
	free(out);
	free(stage);
	sc_graph_free(g);
}

/* figure2 keeps the drawing: three stages read well. */
Test(wbstages, a_sparse_stage_graph_is_drawn, .timeout = 30)
{
	ts_tmux t;
	start(&t, 120, 40, FIG2, "bottleneck 8.0000");
	ts_tmux_keys(&t, "3");
	char *s = ts_tmux_settled(&t, "stage 2 *", 5);
	cr_assert(!strstr(s, "matrix"), "%s", s);
	free(s);
	ts_tmux_quit(&t);
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
Test(wbstages, the_export_caption_speaks_of_the_partition_on_screen, .timeout = 40)
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
	ts_tmux_keys(&t, "Right BSpace BSpace BSpace s v g Enter"); /* Right keeps the default */
	free(ts_tmux_wait(&t, "exported the stage graph to figure2-k3.svg", 10));
	ts_tmux_quit(&t);
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
