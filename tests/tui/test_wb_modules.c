/*
 * test_wb_modules.c - the module view (5), driven in tmux
 * on vit_b_16 and resnet50 under a partition solved beforehand and opened
 * with -p (the file's own partition stays on screen): the top-level modules
 * and, unfolded, the modules below them with their op counts and the stages
 * their ops span; the bottleneck module of each depth marked and reached
 * with b; the search; i opening the node browser on one module's ops alone;
 * the one line of a graph without modules.
 *
 * Expected values never come from the view: op counts from core's module
 * tree (sc_modules_new, itself tested against hand-read names in
 * tests/unit/test_modules.c), stage ranges from the partition file read
 * with sc_part_read, the bottleneck stage from `stagecut eval --json`, the
 * bottleneck modules by summing the loaded graph's work here (the sum of
 * the bottleneck stage's work checked against eval's first).
 */
#define _XOPEN_SOURCE 700
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/formats/partition_file.h"
#include "core/modules.h"
#include "core/partition.h"
#include "tests/support.h"

#define VIT "samples/onnx/vit_b_16.onnx"
#define RESNET "samples/onnx/resnet50.onnx"
#define FIG2 "samples/paper/figure2.dot"

static char state[64];

static void make_state(void)
{
	ts_make_dir(state, "sc-wbmod");
}

static void remove_state(void)
{
	ts_remove_dir(state);
}

TestSuite(wb_modules, .init = make_state, .fini = remove_state);

/* A partition of graph into k stages solved into state/part.json; its
 * path into part. */
static void solve(const char *graph, int k, char *part, size_t size)
{
	snprintf(part, size, "%s/part.json", state);
	char *out = NULL, *err = NULL;
	int st = ts_runf(&out, &err, "solve %s -k %d -o %s", graph, k, part);
	cr_assert_eq(st, 0, "solve failed: %s", err ? err : "");
	free(out);
	free(err);
}

static void start(ts_tmux *t, const char *graph, const char *part)
{
	char cmd[9000], env[160];
	snprintf(cmd, sizeof cmd, "%s %s%s%s", ts_program(), graph, part ? " -p " : "",
	         part ? part : "");
	snprintf(env, sizeof env, "TERM=xterm-256color LANG=C.UTF-8 XDG_STATE_HOME=%s", state);
	ts_tmux_start(t, 120, 50, env, cmd);
	free(ts_tmux_wait(t, "stagecut", 20));
	free(ts_tmux_idle(t, 60));
}

/* One row of the module list as read from the screen. */
typedef struct mrow {
	bool marked;  /* '*' in the first column */
	char fold;    /* '+', '-' or ' ' */
	int depth;    /* from the label's indentation */
	int ops;      /* the ops column */
	char st[32];  /* the stages column */
	double share; /* the "of bn" column, per cent */
} mrow;

/* The row of the list labelled label (exactly), into *r; false when none. */
static bool find_row(const char *s, const char *label, mrow *r)
{
	const char *p = strstr(s, "    module ");
	if (!p)
		return false;
	p = strchr(p, '\n');
	while (p && p[1]) {
		const char *e = strchr(p + 1, '\n');
		size_t n = e ? (size_t)(e - p - 1) : strlen(p + 1);
		char line[512];
		snprintf(line, sizeof line, "%.*s", (int)n, p + 1);
		p = e;
		if (strlen(line) < 6)
			continue;
		/* "M F " then the label indented by 2 per depth below 1 */
		int at = 4;
		while (line[at] == ' ')
			at++;
		char name[256], st[32];
		int ops;
		double work, share;
		if (sscanf(line + at, "%255s %d %lf %31s %lf%%", name, &ops, &work, st, &share) !=
		    5)
			continue;
		if (strcmp(name, label) != 0)
			continue;
		r->marked = line[0] == '*';
		r->fold = line[2];
		r->depth = 1 + (at - 4) / 2;
		r->ops = ops;
		snprintf(r->st, sizeof r->st, "%s", st);
		r->share = share;
		return true;
	}
	return false;
}

/* The stages module i spans under stage, as the view writes them. */
static void want_stages(const sc_modules *m, int i, const int *stage, char *buf, size_t size)
{
	int lo = 1 << 30, hi = -1;
	for (int j = m->m[i].first; j < m->m[i].end; j++) {
		int s = stage[m->ops_sorted[j]];
		lo = s < lo ? s : lo;
		hi = s > hi ? s : hi;
	}
	if (lo == hi)
		snprintf(buf, size, "%d", lo + 1);
	else
		snprintf(buf, size, "%d-%d", lo + 1, hi + 1);
}

/* The graph, its module tree and the partition in part (k stages). */
typedef struct fixture {
	sc_graph *g;
	sc_modules *m;
	int *stage, k;
} fixture;

static fixture load(const char *graph, const char *part)
{
	fixture f = {.g = ts_load(graph)};
	sc_error err;
	sc_error_clear(&err);
	f.m = sc_modules_new(f.g, &err);
	cr_assert(f.m, "%s", err.msg);
	f.stage = malloc((size_t)f.g->n * sizeof *f.stage);
	cr_assert_eq(sc_part_read(part, f.g, &f.k, f.stage, &err), SC_OK, "%s", err.msg);
	return f;
}

static void unload(fixture *f)
{
	sc_modules_free(f->m);
	sc_graph_free(f->g);
	free(f->stage);
}

/* Checks module name's row on screen s: shown, its op count and stages. */
static void check_row(const char *s, const fixture *f, const char *name, const char *label)
{
	int i = sc_modules_find(f->m, name);
	cr_assert_gt(i, 0, "no module %s in the tree", name);
	mrow r;
	cr_assert(find_row(s, label, &r), "no row for %s:\n%s", name, s);
	cr_expect_eq(r.ops, f->m->m[i].end - f->m->m[i].first, "%s's ops:\n%s", name, s);
	cr_expect_eq(r.depth, f->m->m[i].depth, "%s's depth:\n%s", name, s);
	char want[32];
	want_stages(f->m, i, f->stage, want, sizeof want);
	cr_expect_str_eq(r.st, want, "%s's stages:\n%s", name, s);
	cr_expect_eq(r.fold, f->m->m[i].first_child < 0 ? ' ' : '+', "%s's fold mark:\n%s", name,
	             s);
}

Test(wb_modules, vit_tree_unfolds_with_the_stages_of_the_partition, .timeout = 120)
{
	char part[128];
	solve(VIT, 4, part, sizeof part);
	fixture f = load(VIT, part);
	ts_tmux t;
	start(&t, VIT, part);
	ts_tmux_keys(&t, "5");
	char *s = ts_tmux_settled(&t, "modules: 102, depth 5", 5);
	check_row(s, &f, "conv_proj", "conv_proj");
	check_row(s, &f, "encoder", "encoder");
	check_row(s, &f, "heads", "heads");
	mrow r;
	cr_assert(!find_row(s, "layers", &r), "folded at first:\n%s", s);
	free(s);
	/* Enter on encoder unfolds it; + on layers unfolds the twelve layers */
	ts_tmux_keys(&t, "j Enter");
	s = ts_tmux_settled(&t, "    ln ", 5);
	check_row(s, &f, "encoder.layers", "layers");
	check_row(s, &f, "encoder.ln", "ln");
	cr_assert(find_row(s, "encoder", &r) && r.fold == '-', "encoder unfolded:\n%s", s);
	free(s);
	ts_tmux_keys(&t, "j +");
	s = ts_tmux_settled(&t, "encoder_layer_11", 5);
	int ranges = 0;
	for (int l = 0; l < 12; l++) {
		char name[128], label[64];
		snprintf(label, sizeof label, "encoder_layer_%d", l);
		snprintf(name, sizeof name, "encoder.layers.%s", label);
		check_row(s, &f, name, label);
		ranges += find_row(s, label, &r) && strchr(r.st, '-') != NULL;
	}
	/* k = 4 over 12 layers: some layer is cut between two stages */
	cr_expect_geq(ranges, 1, "no layer spans two stages:\n%s", s);
	free(s);
	/* - folds layers again, Left folds encoder */
	ts_tmux_keys(&t, "-");
	s = ts_tmux_settled(&t, "encoder.layers:", 5);
	cr_expect(!find_row(s, "encoder_layer_0", &r), "layers folded:\n%s", s);
	free(s);
	ts_tmux_keys(&t, "Left Left");
	s = ts_tmux_settled(&t, "encoder: 610 ops", 5);
	cr_expect(!find_row(s, "layers", &r), "encoder folded:\n%s", s);
	free(s);
	ts_tmux_quit(&t);
	unload(&f);
}

Test(wb_modules, resnet_bottleneck_module_marked_at_each_depth, .timeout = 120)
{
	char part[128];
	solve(RESNET, 4, part, sizeof part);
	fixture f = load(RESNET, part);
	json_t *ev = ts_run_json(0, "eval %s %s --json", RESNET, part);
	int at = (int)ts_jint(ev, "bottleneck_stage") - 1;
	double stage_work = ts_jnum(json_array_get(ts_jget(ev, "stages"), (size_t)at), "work");
	json_decref(ev);
	double bn = 0;
	for (int v = 0; v < f.g->n; v++)
		bn += f.stage[v] == at ? f.g->work[v] : 0;
	cr_assert_float_eq(bn, stage_work, 1e-6 * stage_work, "the test's work is eval's");
	/* the bottleneck module of depths 1 and 2: the largest part of bn */
	const sc_modules *m = f.m;
	double *part_of = calloc((size_t)m->n, sizeof *part_of);
	for (int i = 0; i < m->n; i++)
		for (int j = m->m[i].first; j < m->m[i].end; j++)
			if (f.stage[m->ops_sorted[j]] == at)
				part_of[i] += f.g->work[m->ops_sorted[j]];
	int top[3] = {-1, -1, -1};
	for (int d = 1; d <= 2; d++)
		for (int i = 1; i < m->n; i++)
			if (m->m[i].depth == d && part_of[i] > 0 &&
			    (top[d] < 0 || part_of[i] > part_of[top[d]]))
				top[d] = i;
	cr_assert(top[1] > 0 && top[2] > 0);
	ts_tmux t;
	start(&t, RESNET, part);
	ts_tmux_keys(&t, "5");
	char *s = ts_tmux_settled(&t, "modules: 129, depth 4", 5);
	static const char *const tops[] = {"conv1",  "relu",   "maxpool", "layer1", "layer2",
	                                   "layer3", "layer4", "avgpool", "fc"};
	for (int i = 0; i < 9; i++) {
		check_row(s, &f, tops[i], tops[i]);
		mrow r;
		find_row(s, tops[i], &r);
		int mi = sc_modules_find(m, tops[i]);
		cr_expect_eq(r.marked, mi == top[1], "%s marked %d:\n%s", tops[i], r.marked, s);
		cr_expect(fabs(r.share - 100.0 * part_of[mi] / bn) < 0.051, "%s's share %.1f:\n%s",
		          tops[i], r.share, s);
	}
	char want[160];
	snprintf(want, sizeof want, "bottleneck stage %d", at + 1);
	cr_expect(strstr(s, want), "%s:\n%s", want, s);
	free(s);
	/* b: the top-level bottleneck module, then the one below it */
	ts_tmux_keys(&t, "b");
	snprintf(want, sizeof want, "the bottleneck module at depth 1: %s,", m->m[top[1]].name);
	free(ts_tmux_settled(&t, want, 5));
	ts_tmux_keys(&t, "b");
	snprintf(want, sizeof want, "the bottleneck module at depth 2: %s,", m->m[top[2]].name);
	s = ts_tmux_settled(&t, want, 5);
	if (m->m[top[2]].parent == top[1]) {
		mrow r;
		cr_assert(find_row(s, m->m[top[2]].label, &r), "%s", s);
		cr_expect(r.marked, "%s marked:\n%s", m->m[top[2]].name, s);
		cr_expect_eq(r.depth, 2);
	}
	free(s);
	ts_tmux_quit(&t);
	free(part_of);
	unload(&f);
}

Test(wb_modules, i_lists_the_ops_of_the_module_found, .timeout = 120)
{
	char part[128];
	solve(VIT, 4, part, sizeof part);
	fixture f = load(VIT, part);
	int i = sc_modules_find(f.m, "encoder.layers.encoder_layer_3");
	cr_assert_gt(i, 0);
	int want_ops = f.m->m[i].end - f.m->m[i].first;
	ts_tmux t;
	start(&t, VIT, part);
	/* the search finds the module folded away, unfolding what hides it */
	ts_tmux_keys(&t, "5 /");
	free(ts_tmux_wait(&t, "search modules by name", 5));
	ts_tmux_keys(&t, "l a y e r _ 3 Enter");
	char *s = ts_tmux_settled(&t, "encoder.layers.encoder_layer_3: ", 5);
	mrow r;
	cr_expect(find_row(s, "encoder_layer_3", &r) && r.depth == 3, "%s", s);
	free(s);
	ts_tmux_keys(&t, "n");
	free(ts_tmux_settled(&t, "encoder.layers.encoder_layer_3.ln_1: ", 5));
	ts_tmux_keys(&t, "N");
	free(ts_tmux_settled(&t, "encoder.layers.encoder_layer_3: ", 5));
	ts_tmux_keys(&t, "i");
	char want[160];
	snprintf(want, sizeof want, "ops: %d of %d in module encoder.layers.encoder_layer_3",
	         want_ops, f.g->n);
	s = ts_tmux_settled(&t, want, 5);
	/* every op listed is the module's: its rows name layer 3 */
	int rows = 0;
	const char *p = strstr(s, "  op ");
	cr_assert(p, "no column titles:\n%s", s);
	while ((p = strchr(p, '\n')) && p[1]) {
		const char *e = strchr(p + 1, '\n');
		char line[512];
		snprintf(line, sizeof line, "%.*s", e ? (int)(e - p - 1) : (int)strlen(p + 1),
		         p + 1);
		p++;
		if (!strstr(line, "/encoder"))
			continue;
		cr_expect(strstr(line, "/encoder_layer_3/"), "not the module's: %s", line);
		rows++;
	}
	cr_expect_geq(rows, 20, "%d rows:\n%s", rows, s);
	free(s);
	/* 2: every op again */
	ts_tmux_keys(&t, "2");
	snprintf(want, sizeof want, "ops: %d of %d  sorted", f.g->n, f.g->n);
	free(ts_tmux_settled(&t, want, 5));
	ts_tmux_quit(&t);
	unload(&f);
}

Test(wb_modules, a_graph_without_modules_says_so, .timeout = 60)
{
	ts_tmux t;
	start(&t, FIG2, NULL);
	ts_tmux_keys(&t, "5");
	char *s = ts_tmux_settled(&t, "no modules: no op name has a module path", 5);
	cr_expect(!strstr(s, "    module "), "no list:\n%s", s);
	free(s);
	ts_tmux_quit(&t);
}
