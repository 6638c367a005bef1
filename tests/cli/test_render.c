/*
 * test_render.c - `stagecut render` end to end: pictures of every sample
 * read back as svg text against `stagecut eval`, bitmaps checked as PNG,
 * captions against `stagecut bounds`, training graphs' styling and volumes
 * by pass, and the refusals.
 *
 * Longer than 600 lines: one suite for every way render is called, sharing
 * the svg and DOT readers; the training cases use them too.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <graphviz/cgraph.h>

#include "tests/support.h"
#include "core/modules.h"
#include "viz/quotient.h"

static char dir[64];

static void make_dir(void)
{
	ts_make_dir(dir, "sc-render");
}

static void remove_dir(void)
{
	ts_remove_dir(dir);
}

TestSuite(render, .init = make_dir, .fini = remove_dir, .timeout = 120);

static char *slurp(const char *path, size_t *len)
{
	char *text = ts_slurp(path, len);
	cr_assert(text, "cannot read %s", path);
	return text;
}

static const char *in_dir(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", dir, name);
	return buf;
}

/* `stagecut eval --json` of a partition, parsed. */
static json_t *eval_json(const char *graph, const char *part)
{
	char *out = NULL;
	int st = ts_runf(&out, NULL, "eval '%s' '%s' --json", graph, part);
	cr_assert_eq(st, 0, "eval %s %s exited %d", graph, part, st);
	json_error_t je;
	json_t *v = json_loads(out, 0, &je);
	cr_assert(v, "eval printed no JSON: %s", out);
	free(out);
	return v;
}

/* The svg text of the group whose <title> is name, up to the group's end. */
static char *svg_group(const char *svg, const char *name)
{
	char title[96];
	snprintf(title, sizeof title, "<title>%s</title>", name);
	const char *at = strstr(svg, title);
	if (!at)
		return NULL;
	const char *end = strstr(at, "</g>");
	cr_assert(end);
	return strndup(at, (size_t)(end - at));
}

/* Every stage of the stage-graph svg shows eval's cost; the bottleneck
 * stage (eval's) and only the stages tied with it say "bottleneck". */
static void check_stage_svg(const char *svg, json_t *ev, const char *what)
{
	json_t *stages = json_object_get(ev, "stages");
	int at = (int)json_integer_value(json_object_get(ev, "bottleneck_stage"));
	cr_assert_gt(json_array_size(stages), 0);
	for (size_t i = 0; i < json_array_size(stages); i++) {
		json_t *row = json_array_get(stages, i);
		int s = (int)json_integer_value(json_object_get(row, "stage"));
		char name[32], want[96], num[32];
		snprintf(name, sizeof name, "s%d", s);
		char *node = svg_group(svg, name);
		cr_assert(node, "%s: no stage %d in the svg", what, s);
		snprintf(want, sizeof want, ">stage %d</text>", s);
		cr_assert(strstr(node, want), "%s: stage %d's heading is missing", what, s);
		const char *cost = strstr(node, ">cost</text>");
		cr_assert(cost, "%s: stage %d has no cost", what, s);
		snprintf(want, sizeof want, ">%s</text>",
		         sc_quotient_fmt(json_real_value(json_object_get(row, "cost")), num,
		                         sizeof num));
		const char *value = strstr(cost + 1, "<text");
		cr_assert(value && strncmp(strchr(value, '>'), want, strlen(want)) == 0,
		          "%s: stage %d does not show eval's cost %s", what, s, want);
		/* a stage tied with eval's bottleneck is the bottleneck too */
		double bn = json_real_value(json_object_get(ev, "bottleneck")),
		       c = json_real_value(json_object_get(row, "cost"));
		bool tied = s == at || (bn > 0 && c >= bn * (1 - 1e-9));
		cr_assert_eq(strstr(node, ">bottleneck</text>") != NULL, tied,
		             "%s: stage %d's bottleneck mark (eval says stage %d, %g of %g)", what,
		             s, at, c, bn);
		free(node);
	}
}

/* The samples, each with a partition: its own stages or a search's. */
static const char *const samples[] = {
        "samples/paper/figure2.dot",
        "samples/paper/lemma_b2.dot",
        "samples/small/residual.dot",
        "samples/msr-fiddle/layer/bert24_inference.json",
        "samples/msr-fiddle/layer/resnet50_inference.json",
        "samples/msr-fiddle/operator/bert_l-3_inference.json",
        "samples/msr-fiddle/operator/bert_l-6_inference.json",
        "samples/msr-fiddle/operator/resnet50_inference.json",
};

Test(render, every_sample_shows_evals_costs_and_bottleneck)
{
	for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
		char part[256], svg_path[256];
		in_dir(part, sizeof part, "part.json");
		in_dir(svg_path, sizeof svg_path, "stages.svg");
		int k = strstr(samples[i], "residual") ? 4 : 6;
		cr_assert_eq(ts_runf(NULL, NULL, "solve '%s' -k %d --method kahn -o '%s'",
		                     samples[i], k, part),
		             0, "solve %s", samples[i]);
		char *err = NULL;
		int st =
		        ts_runf(NULL, &err, "render '%s' '%s' -o '%s'", samples[i], part, svg_path);
		cr_assert_eq(st, 0, "render %s: %s", samples[i], err);
		free(err);
		char *svg = slurp(svg_path, NULL);
		cr_assert(strstr(svg, "<svg"), "not an svg");
		json_t *ev = eval_json(samples[i], part);
		check_stage_svg(svg, ev, samples[i]);
		json_decref(ev);
		free(svg);
	}
}

Test(render, full_picture_clusters_every_op_by_stage)
{
	const char *g = "samples/small/residual.dot";
	char part[256], path[256];
	in_dir(part, sizeof part, "part.json");
	in_dir(path, sizeof path, "full.svg");
	cr_assert_eq(ts_runf(NULL, NULL, "solve %s -k 3 --method exact -o '%s'", g, part), 0);
	cr_assert_eq(ts_runf(NULL, NULL, "render %s '%s' --full -o '%s'", g, part, path), 0);
	char *svg = slurp(path, NULL);
	json_t *ev = eval_json(g, part);
	int at = (int)json_integer_value(json_object_get(ev, "bottleneck_stage"));
	sc_graph *gr = ts_load(g);
	int k = (int)json_array_size(json_object_get(ev, "stages"));
	for (int s = 1; s <= k; s++) {
		char name[32], want[64], num[32];
		snprintf(name, sizeof name, "cluster_s%d", s);
		char *cl = svg_group(svg, name);
		cr_assert(cl, "no cluster for stage %d", s);
		snprintf(want, sizeof want, ">stage %d</text>", s);
		cr_assert(strstr(cl, want), "cluster %d has no heading", s);
		json_t *row = json_array_get(json_object_get(ev, "stages"), (size_t)s - 1);
		snprintf(want, sizeof want, ">cost %s \xc2\xb7 ",
		         sc_quotient_fmt(json_real_value(json_object_get(row, "cost")), num,
		                         sizeof num));
		cr_assert(strstr(cl, want), "cluster %d does not show cost %s: %s", s, want, cl);
		cr_assert_eq(strstr(cl, ">bottleneck</text>") != NULL, s == at,
		             "cluster %d's bottleneck mark", s);
		free(cl);
	}
	/* every op once, named in its label */
	for (int v = 0; v < gr->n; v++) {
		char want[128];
		snprintf(want, sizeof want, ">%s</text>", gr->op_name[v]);
		const char *hit = strstr(svg, want);
		cr_assert(hit, "op %s is not drawn", gr->op_name[v]);
		cr_assert_null(strstr(hit + 1, want), "op %s is drawn twice", gr->op_name[v]);
	}
	/* the edges are all there, plus one invisible order edge per stage
	 * boundary, which the svg leaves out */
	int edges = 0;
	for (const char *p = svg; (p = strstr(p, "class=\"edge\"")); p++)
		edges++;
	cr_assert_eq(edges, gr->m, "%d edges drawn, the graph has %d", edges, gr->m);
	sc_graph_free(gr);
	json_decref(ev);
	free(svg);
}

/* The width and height a PNG's header gives. */
static void png_size(const char *path, unsigned *w, unsigned *h)
{
	size_t len;
	unsigned char *png = (unsigned char *)slurp(path, &len);
	cr_assert_gt(len, 33u, "%s is too short for a PNG", path);
	cr_assert(memcmp(png, "\x89PNG\r\n\x1a\n", 8) == 0, "%s has no PNG signature", path);
	cr_assert(memcmp(png + 12, "IHDR", 4) == 0, "%s does not start with IHDR", path);
	*w = (unsigned)png[16] << 24 | png[17] << 16 | png[18] << 8 | png[19];
	*h = (unsigned)png[20] << 24 | png[21] << 16 | png[22] << 8 | png[23];
	free(png);
}

Test(render, png_pdf_and_dot_outputs)
{
	const char *g = "samples/paper/figure2.dot";
	char path[256];
	unsigned w, h;
	/* the format from the extension */
	cr_assert_eq(
	        ts_runf(NULL, NULL, "render %s -o '%s'", g, in_dir(path, sizeof path, "f.png")), 0);
	png_size(path, &w, &h);
	cr_assert(w >= 200 && w <= 4000 && h >= 100 && h <= 4000, "stage graph %u x %u", w, h);
	cr_assert_eq(ts_runf(NULL, NULL, "render %s --full -o '%s'", g, path), 0);
	png_size(path, &w, &h);
	cr_assert(w >= 200 && w <= 4000 && h >= 100 && h <= 4000, "full picture %u x %u", w, h);
	/* -T wins over the extension */
	cr_assert_eq(ts_runf(NULL, NULL, "render %s -T pdf -o '%s'", g,
	                     in_dir(path, sizeof path, "f.picture")),
	             0);
	char *pdf = slurp(path, NULL);
	cr_assert(strncmp(pdf, "%PDF-", 5) == 0, "not a PDF");
	free(pdf);
	cr_assert_eq(
	        ts_runf(NULL, NULL, "render %s -o '%s'", g, in_dir(path, sizeof path, "f.dot")), 0);
	char *dot = slurp(path, NULL);
	cr_assert(strstr(dot, "digraph") && strstr(dot, "pos="), "not a laid-out dot file");
	free(dot);
	/* a huge bitmap is drawn smaller, and says so */
	char *err = NULL, *out = NULL;
	cr_assert_eq(
	        ts_runf(&out, &err,
	                "render samples/msr-fiddle/operator/resnet50_inference.json -k 4 --full "
	                "--page-ops 0 --json -o '%s'",
	                in_dir(path, sizeof path, "big.png")),
	        0);
	png_size(path, &w, &h);
	cr_assert(w <= 32767 && h <= 32767, "%u x %u is beyond cairo's limit", w, h);
	json_t *v = json_loads(out, 0, NULL);
	double scale = json_real_value(json_object_get(v, "scale"));
	cr_assert(scale > 0 && scale <= 1, "scale %g", scale);
	cr_assert_eq(scale < 1, strstr(err, "was drawn at") != NULL, "note on stderr: %s", err);
	cr_assert_null(strstr(err, "cairo"), "Graphviz spoke on stderr: %s", err);
	json_decref(v);
	free(err);
	free(out);
}

Test(render, without_a_partition_the_graph_itself)
{
	const char *g = "samples/msr-fiddle/layer/bert24_inference.json";
	char path[256], *out = NULL;
	cr_assert_eq(ts_runf(&out, NULL, "render %s --json -o '%s'", g,
	                     in_dir(path, sizeof path, "g.svg")),
	             0);
	json_t *v = json_loads(out, 0, NULL);
	cr_assert_str_eq(json_string_value(json_object_get(v, "picture")), "graph");
	cr_assert(json_is_null(json_object_get(v, "k")));
	json_decref(v);
	free(out);
	char *svg = slurp(path, NULL);
	sc_graph *gr = ts_load(g);
	int nodes = 0;
	for (const char *p = svg; (p = strstr(p, "class=\"node\"")); p++)
		nodes++;
	cr_assert_eq(nodes, gr->n, "%d nodes drawn, the graph has %d ops", nodes, gr->n);
	cr_assert_null(strstr(svg, "cluster_s"), "no stages without a partition");
	char want[64];
	snprintf(want, sizeof want, "%d ops, %d edges", gr->n, gr->m);
	cr_assert(strstr(svg, want), "the caption gives the graph's size");
	sc_graph_free(gr);
	free(svg);
}

Test(render, bounds_caption_matches_stagecut_bounds)
{
	const char *g = "samples/msr-fiddle/operator/bert_l-3_inference.json";
	char part[256], bj[256], path[256], *out = NULL;
	in_dir(part, sizeof part, "p.json");
	in_dir(bj, sizeof bj, "b.json");
	in_dir(path, sizeof path, "c.svg");
	cr_assert_eq(ts_runf(NULL, NULL, "solve %s -k 4 --method kahn -o '%s'", g, part), 0);
	/* -m kahn: no exact DP in bounds, so a rung gives the lower bound */
	char cmd[1024];
	snprintf(cmd, sizeof cmd,
	         "%s bounds %s -k 4 --rungs simple,bottleneck --time 20 --partition '%s' -m kahn "
	         "--json > '%s'",
	         ts_program(), g, part, bj);
	cr_assert_eq(ts_run(cmd, NULL, NULL), 0);
	json_t *b = json_load_file(bj, 0, NULL);
	double lower = json_real_value(json_object_get(b, "lower_bound"));
	cr_assert_gt(lower, 0);
	cr_assert_eq(ts_runf(&out, NULL, "render %s '%s' --bounds '%s' --json -o '%s'", g, part, bj,
	                     path),
	             0);
	json_t *v = json_loads(out, 0, NULL);
	double bn = json_real_value(json_object_get(v, "bottleneck"));
	cr_assert_float_eq(json_real_value(json_object_get(v, "lower_bound")), lower, 1e-12);
	cr_assert_float_eq(json_real_value(json_object_get(v, "gap")), bn / lower - 1, 1e-9);
	char *svg = slurp(path, NULL);
	/* the caption names the rung that gave the bound */
	const char *rung = NULL;
	json_t *r;
	size_t i;
	json_array_foreach(json_object_get(b, "rungs"), i, r)
	{
		if (!rung && json_real_value(json_object_get(r, "value")) == lower)
			rung = json_string_value(json_object_get(r, "name"));
	}
	cr_assert(rung, "no rung has the lower bound");
	char want[128], num[32];
	snprintf(want, sizeof want, "best lower bound %s (%s), gap %.2f%%",
	         sc_quotient_fmt(lower, num, sizeof num), rung, 100 * (bn / lower - 1));
	cr_assert(strstr(svg, want), "the caption lacks '%s'", want);
	free(svg);
	json_decref(v);
	free(out);

	/* bounds that cannot be about this partition are refused */
	char *err = NULL;
	json_object_set_new(b, "lower_bound", json_real(bn * 2));
	char bad[256];
	json_dump_file(b, in_dir(bad, sizeof bad, "too-high.json"), 0);
	cr_assert_eq(ts_runf(NULL, &err, "render %s '%s' --bounds '%s' -o '%s'", g, part, bad,
	                     in_dir(path, sizeof path, "x.svg")),
	             2);
	cr_assert(strstr(err, "too-high.json") && strstr(err, "exceeds"), "%s", err);
	cr_assert_neq(access(path, F_OK), 0, "nothing written");
	free(err);
	json_object_set_new(b, "lower_bound", json_real(lower));
	json_object_set_new(b, "k", json_integer(5));
	json_dump_file(b, in_dir(bad, sizeof bad, "other-k.json"), 0);
	cr_assert_eq(
	        ts_runf(NULL, &err, "render %s '%s' --bounds '%s' -o '%s'", g, part, bad, path), 2);
	cr_assert(strstr(err, "other-k.json") && strstr(err, "k = 5"), "%s", err);
	free(err);
	json_object_set_new(b, "k", json_integer(4));
	json_object_set_new(b, "bandwidth", json_real(7));
	json_dump_file(b, in_dir(bad, sizeof bad, "other-bw.json"), 0);
	cr_assert_eq(
	        ts_runf(NULL, &err, "render %s '%s' --bounds '%s' -o '%s'", g, part, bad, path), 2);
	cr_assert(strstr(err, "bandwidth"), "%s", err);
	free(err);
	FILE *f = fopen(in_dir(bad, sizeof bad, "broken.json"), "w");
	fputs("{\"k\": 4,\n \"lower_bound\": }", f);
	fclose(f);
	cr_assert_eq(
	        ts_runf(NULL, &err, "render %s '%s' --bounds '%s' -o '%s'", g, part, bad, path), 2);
	cr_assert(strstr(err, "broken.json:2"), "names the file and line: %s", err);
	free(err);
	json_decref(b);
}

Test(render, refusals_exit_2_and_leave_the_output_alone)
{
	const char *g = "samples/paper/figure2.dot";
	char path[256], *err = NULL;
	in_dir(path, sizeof path, "keep.png");
	FILE *f = fopen(path, "w");
	fputs("precious", f);
	fclose(f);
	struct {
		const char *args, *says;
		int status;
	} cases[] = {
	        {"", "-o OUT", 2},
	        {"-T nosuchformat -o '%s'", "nosuchformat", 2},
	        {"--max-ops 3 --full -o '%s'", "--max-ops", 2},
	        {"-k 0 -o '%s'", "-k", 2},
	        {"samples/paper/missing.json -o '%s'", "missing.json", 2},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char args[512];
		snprintf(args, sizeof args, cases[i].args, path);
		int st = ts_runf(NULL, &err, "render %s %s", g, args);
		cr_assert_eq(st, cases[i].status, "render %s exited %d: %s", args, st, err);
		cr_assert(strstr(err, cases[i].says), "render %s: %s", args, err);
		cr_assert_eq(strchr(err, '\n'), err + strlen(err) - 1, "one line: %s", err);
		free(err);
		char *kept = slurp(path, NULL);
		cr_assert_str_eq(kept, "precious", "render %s overwrote the output", args);
		free(kept);
	}
	/* a partition with an edge going back exits 1 and names it */
	char part[256];
	f = fopen(in_dir(part, sizeof part, "back.json"), "w");
	fputs("{\"format\": \"stagecut-partition/1\", \"k\": 2, \"stages\": {\"a\": 2, \"u\": 1, "
	      "\"v\": 1, \"w\": 1, \"x\": 2, \"y\": 2}}",
	      f);
	fclose(f);
	int st = ts_runf(NULL, &err, "render %s '%s' -o '%s'", g, part, path);
	cr_assert_eq(st, 1, "exit %d: %s", st, err);
	cr_assert(strstr(err, "back.json") && strstr(err, "invalid"), "%s", err);
	free(err);
	char *kept = slurp(path, NULL);
	cr_assert_str_eq(kept, "precious");
	free(kept);
}

Test(render, a_10000_op_graph_renders_its_stage_graph)
{
	char gpath[256], part[256], path[256], *err = NULL;
	in_dir(gpath, sizeof gpath, "big.dot");
	in_dir(part, sizeof part, "big.json");
	in_dir(path, sizeof path, "big.svg");
	cr_assert_eq(ts_runf(NULL, NULL, "gen --nodes 10000 --seed 5 -o '%s'", gpath), 0);
	cr_assert_eq(ts_runf(NULL, NULL, "solve '%s' -k 8 --method kahn -o '%s'", gpath, part), 0);
	cr_assert_eq(ts_runf(NULL, &err, "render '%s' '%s' -o '%s'", gpath, part, path), 0, "%s",
	             err);
	free(err);
	char *svg = slurp(path, NULL);
	json_t *ev = eval_json(gpath, part);
	check_stage_svg(svg, ev, "10000 ops");
	json_decref(ev);
	free(svg);
	/* every op of it would be unreadable: refused, suggesting the stage graph */
	cr_assert_eq(ts_runf(NULL, &err, "render '%s' '%s' --full -o '%s'", gpath, part,
	                     in_dir(path, sizeof path, "bigfull.svg")),
	             2);
	cr_assert(strstr(err, "10000 ops") && strstr(err, "stage graph"), "%s", err);
	cr_assert_neq(access(path, F_OK), 0);
	free(err);
}

Test(render, interrupted_search_writes_nothing_and_exits_130)
{
	char gpath[256], out[256], cmd[1024];
	snprintf(gpath, sizeof gpath, "%s/g3k.dot", dir);
	snprintf(out, sizeof out, "%s/int.svg", dir);
	cr_assert_eq(ts_runf(NULL, NULL, "gen -n 3000 -s 4 -o '%s'", gpath), 0);
	snprintf(cmd, sizeof cmd, "exec %s render '%s' -k 8 -m brkga -o '%s' 2>'%s/int.err'",
	         ts_program(), gpath, out, dir);
	pid_t pid = ts_spawn(cmd, false);
	usleep(1500000);
	kill(pid, SIGINT);
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 130, "status %d", st);
	cr_assert_neq(access(out, F_OK), 0, "a picture was written");
}

/* ---- training graphs ---------------------------------------------------- */

#define TRAINING "tests/data/training_small.json"
#define TRAINING_K3 "tests/data/training_small.k3.json"

/* How many times needle occurs in hay. */
static int count_of(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* Reads back the dot output of --full for g: every op's node ("o<index>")
 * carries class=backward and the dashed style exactly when the op is
 * backward, every edge exactly when its head is (an edge into the backward
 * pass, from either pass; the invisible order edges aside).  Returns the
 * numbers of backward nodes and edges in *nodes and *edges. */
static void check_backward_styling(const char *dot, const sc_graph *g, int *nodes, int *edges)
{
	Agraph_t *G = agmemread(dot);
	cr_assert(G, "the dot output does not parse");
	*nodes = *edges = 0;
	int seen = 0, real_edges = 0;
	for (Agnode_t *n = agfstnode(G); n; n = agnxtnode(G, n)) {
		int v;
		if (sscanf(agnameof(n), "o%d", &v) != 1)
			continue; /* an empty stage's placeholder */
		cr_assert(v >= 0 && v < g->n);
		seen++;
		const char *cls = agget(n, "class"), *style = agget(n, "style");
		bool bw = cls && strcmp(cls, "backward") == 0;
		cr_assert_eq(bw, g->backward[v], "op %s: class '%s'", g->op_name[v],
		             cls ? cls : "");
		cr_assert_eq(style && strstr(style, "dashed") != NULL, g->backward[v],
		             "op %s: style '%s'", g->op_name[v], style ? style : "");
		*nodes += bw;
		for (Agedge_t *e = agfstout(G, n); e; e = agnxtout(G, e)) {
			const char *es = agget(e, "style");
			if (es && strcmp(es, "invis") == 0)
				continue;
			int w;
			cr_assert_eq(sscanf(agnameof(aghead(e)), "o%d", &w), 1);
			real_edges++;
			const char *ec = agget(e, "class");
			bool ebw = ec && strcmp(ec, "backward") == 0;
			cr_assert_eq(ebw, g->backward[w], "edge %s -> %s: class '%s'",
			             g->op_name[v], g->op_name[w], ec ? ec : "");
			*edges += ebw;
		}
	}
	cr_assert_eq(seen, g->n);
	cr_assert_eq(real_edges, g->m);
	agclose(G);
}

/* tests/data/training_small.json: 9 ops, 5 of them backward (loss_grad,
 * grad_sum -- the orphan --, layer2_grad, layer1_grad, embed_grad); 11
 * edges, 8 of them into a backward op (4 forward -> backward, 4 backward ->
 * backward) and 3 forward -> forward.  The picture of every op, with and
 * without a partition, styles exactly those apart and says so in its
 * caption; the svg marks them with the class "backward". */
Test(render, training_full_picture_draws_exactly_the_backward_pass_apart)
{
	sc_graph *g = ts_load(TRAINING);
	cr_assert_eq(g->backward_ops, 5);
	char path[256];
	for (int staged = 0; staged < 2; staged++) {
		char *out;
		in_dir(path, sizeof path, "full.dot");
		cr_assert_eq(ts_runf(&out, NULL, "render %s %s --full -o '%s'", TRAINING,
		                     staged ? TRAINING_K3 : "", path),
		             0);
		cr_assert(strstr(out, "\ntraining graph, 5 of 9 ops backward, schedule 1F1B\n"),
		          "%s", out);
		free(out);
		char *dot = slurp(path, NULL);
		int nodes, edges;
		check_backward_styling(dot, g, &nodes, &edges);
		cr_assert_eq(nodes, 5);
		cr_assert_eq(edges, 8);
		cr_assert(strstr(dot, "training graph: 5 of 9 ops backward (1 orphan), schedule "
		                      "1F1B"),
		          "the caption says it");
		cr_assert(strstr(dot, "backward ops dashed on lavender; edges into backward ops "
		                      "dashed purple"),
		          "the legend");
		if (staged) /* each stage's heading splits its cost by pass (stage 2: 16 = 6 + 10)
		             */
			cr_assert(strstr(dot, "cost 16 (forward 6 + backward 10) &#183; 3 ops"),
			          "%s", dot);
		free(dot);
		in_dir(path, sizeof path, "full.svg");
		cr_assert_eq(ts_runf(NULL, NULL, "render %s %s --full -o '%s'", TRAINING,
		                     staged ? TRAINING_K3 : "", path),
		             0);
		char *svg = slurp(path, NULL);
		cr_assert_eq(count_of(svg, "class=\"node backward\""), 5);
		cr_assert_eq(count_of(svg, "class=\"node\""), 4);
		cr_assert_eq(count_of(svg, "class=\"edge backward\""), 8);
		cr_assert_eq(count_of(svg, "class=\"edge\""), 3);
		cr_assert_eq(count_of(svg, ">backward</text>"), 4, "the label of each non-orphan");
		cr_assert_eq(count_of(svg, ">backward, orphan</text>"), 1);
		free(svg);
	}
	sc_graph_free(g);
}

/* The stage graph of a training graph: each edge says the volume of each
 * pass, the text and --json outputs give the schedule, the objective and
 * every stage's cost split by pass (the hand computation of
 * tests/tui/test_wbtraining.c); an inference graph's --json has none of
 * the new keys. */
Test(render, training_stage_graph_text_and_json)
{
	char path[256], *out;
	in_dir(path, sizeof path, "stages.dot");
	cr_assert_eq(ts_runf(&out, NULL, "render %s %s -o '%s'", TRAINING, TRAINING_K3, path), 0);
	cr_assert(strstr(out, "bottleneck 16.0000 in stage 2\n"
	                      "training graph, 5 of 9 ops backward, schedule 1F1B\n"),
	          "%s", out);
	free(out);
	char *dot = slurp(path, NULL);
	Agraph_t *G = agmemread(dot);
	cr_assert(G);
	/* stage s -> t: its label */
	const struct {
		const char *from, *to, *label;
	} want[] = {{"s1", "s2", "fw 2 B"},
	            {"s2", "s1", "bw 2 B"},
	            {"s2", "s3", "fw 1 B"},
	            {"s3", "s2", "bw 1 B"}};
	int found = 0;
	for (Agnode_t *n = agfstnode(G); n; n = agnxtnode(G, n))
		for (Agedge_t *e = agfstout(G, n); e; e = agnxtout(G, e)) {
			const char *style = agget(e, "style");
			if (style && strcmp(style, "invis") == 0)
				continue;
			for (size_t i = 0; i < sizeof want / sizeof *want; i++)
				if (strcmp(agnameof(n), want[i].from) == 0 &&
				    strcmp(agnameof(aghead(e)), want[i].to) == 0) {
					cr_assert_str_eq(agget(e, "label"), want[i].label);
					found++;
				}
		}
	cr_assert_eq(found, 4);
	agclose(G);
	free(dot);

	json_t *j = ts_run_json(0, "render %s %s -o '%s' --json", TRAINING, TRAINING_K3, path);
	cr_assert(ts_jbool(j, "training"));
	cr_assert_eq(ts_jint(j, "backward_ops"), 5);
	cr_assert_eq(ts_jint(j, "orphans"), 1);
	cr_assert_str_eq(ts_jstr(j, "schedule"), "1f1b");
	cr_assert_eq(ts_jnum(j, "objective"), 16);
	cr_assert_eq(ts_jnum(j, "bottleneck"), 16);
	json_t *st = ts_jget(j, "stages");
	cr_assert_eq(json_array_size(st), 3);
	const double cost[] = {15, 16, 4}, fw[] = {7, 6, 2}, bw[] = {8, 10, 2};
	for (int s = 0; s < 3; s++) {
		json_t *row = json_array_get(st, (size_t)s);
		cr_assert_eq(ts_jint(row, "stage"), s + 1);
		cr_assert_eq(ts_jnum(row, "cost"), cost[s]);
		cr_assert_eq(ts_jnum(row, "cost_fw"), fw[s]);
		cr_assert_eq(ts_jnum(row, "cost_bw"), bw[s]);
	}
	json_decref(j);
	/* without a partition: no objective, no stages */
	j = ts_run_json(0, "render %s -o '%s' --json", TRAINING, path);
	cr_assert(ts_jbool(j, "training"));
	cr_assert(json_is_null(json_object_get(j, "objective")));
	cr_assert(json_is_null(json_object_get(j, "stages")));
	json_decref(j);
	/* an inference graph: the keys it always had, and no others */
	j = ts_run_json(0, "render samples/paper/figure2.dot -o '%s' --json", path);
	static const char *const keys[] = {
	        "graph",      "output",           "format",      "picture", "k",    "partition",
	        "bottleneck", "bottleneck_stage", "lower_bound", "gap",     "scale"};
	cr_assert_eq(json_object_size(j), sizeof keys / sizeof *keys);
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
		cr_assert(json_object_get(j, keys[i]), "no key %s", keys[i]);
	json_decref(j);
	cr_assert_eq(ts_runf(&out, NULL, "render samples/paper/figure2.dot -o '%s'", path), 0);
	cr_assert_eq(count_of(out, "\n"), 1, "one line: %s", out);
	free(out);
	dot = slurp(path, NULL);
	cr_assert_null(strstr(dot, "class="));
	cr_assert_null(strstr(dot, "training"));
	free(dot);
}

/* Stages tied for the largest cost are all the bottleneck: a
 * chain of three ops of work 5 in three stages marks every stage in the
 * picture, and its caption names them all. */
Test(render, every_tied_bottleneck_stage_is_marked)
{
	char graph[128], svg[128];
	FILE *f = fopen(in_dir(graph, sizeof graph, "tied.dot"), "w");
	cr_assert_not_null(f);
	fprintf(f, "digraph tied {\n a [work = 5, out = 0];\n b [work = 5, out = 0];\n"
	           " c [work = 5, out = 0];\n a -> b -> c;\n}\n");
	fclose(f);
	int st = ts_runf(NULL, NULL, "render '%s' -k 3 -o '%s'", graph,
	                 in_dir(svg, sizeof svg, "tied.svg"));
	cr_assert_eq(st, 0);
	char *text = slurp(svg, NULL);
	cr_assert(strstr(text, "bottleneck 5 in stages 1, 2, 3"), "the caption names one stage");
	int marked = 0;
	for (const char *p = text; (p = strstr(p, ">bottleneck<")); p++)
		marked++;
	cr_assert_eq(marked, 3, "%d stages marked", marked);
	free(text);
}

/* k far above the ops (k = 1 000 000 once drew a million empty boxes,
 * 184 s and 8 GB): past 16 empty stages only the stages with ops are drawn
 * and the caption says how many were left out; 14 empty stages still are. */
Test(render, many_empty_stages_are_left_out)
{
	char out[512];
	in_dir(out, sizeof out, "million.svg");
	int st = ts_runf(NULL, NULL, "render samples/paper/figure2.dot -k 1000000 -o '%s'", out);
	cr_assert_eq(st, 0);
	char *svg = slurp(out, NULL);
	cr_assert(strstr(svg, "999996 empty stages not drawn"), "no note in the caption");
	cr_assert(strstr(svg, ">stage 4<"), "stage 4 missing");
	cr_assert_null(strstr(svg, ">stage 5<"), "an empty stage was drawn");
	free(svg);
	in_dir(out, sizeof out, "million_full.svg");
	st = ts_runf(NULL, NULL, "render samples/paper/figure2.dot -k 1000000 --full -o '%s'", out);
	cr_assert_eq(st, 0);
	svg = slurp(out, NULL);
	cr_assert(strstr(svg, "999996 empty stages not drawn"));
	cr_assert_null(strstr(svg, "no ops"), "an empty stage was drawn");
	free(svg);
	in_dir(out, sizeof out, "twenty.svg");
	st = ts_runf(NULL, NULL, "render samples/paper/figure2.dot -k 20 -o '%s'", out);
	cr_assert_eq(st, 0);
	svg = slurp(out, NULL);
	cr_assert(strstr(svg, ">stage 20<"), "the empty stages of k = 20 are not drawn");
	cr_assert_null(strstr(svg, "not drawn"));
	free(svg);
}

/* Pictures of every op that real models can be read in.  The ONNX models
 * at the tester's settings, each with a kahn partition into 4 stages. */
#define R50 "samples/onnx/resnet50.onnx --device h100 --dim N=32"
#define VIT "samples/onnx/vit_b_16.onnx --device h100"

/* Solves model (path and options) into dir/name with kahn, k stages. */
static const char *kahn_part(char *buf, size_t size, const char *model, const char *name, int k)
{
	in_dir(buf, size, name);
	cr_assert_eq(ts_runf(NULL, NULL, "solve %s -k %d -m kahn -o '%s'", model, k, buf), 0,
	             "solve %s", model);
	return buf;
}

/* The laid-out DOT output of render ARGS, parsed. */
static Agraph_t *render_dot(const char *args, const char *name)
{
	char path[256];
	in_dir(path, sizeof path, name);
	char *err = NULL;
	int st = ts_runf(NULL, &err, "render %s -o '%s'", args, path);
	cr_assert_eq(st, 0, "render %s exited %d: %s", args, st, err);
	free(err);
	char *dot = slurp(path, NULL);
	Agraph_t *G = agmemread(dot);
	cr_assert(G, "the dot output of render %s does not parse", args);
	free(dot);
	return G;
}

/* The subgraph called name anywhere in G, or NULL. */
static Agraph_t *find_subg(Agraph_t *G, const char *name)
{
	for (Agraph_t *c = agfstsubg(G); c; c = agnxtsubg(c)) {
		if (strcmp(agnameof(c), name) == 0)
			return c;
		Agraph_t *in = find_subg(c, name);
		if (in)
			return in;
	}
	return NULL;
}

/* The drawing's width over height, from the root's bounding box. */
static double dot_aspect(Agraph_t *G)
{
	double llx, lly, urx, ury;
	cr_assert_eq(sscanf(agget(G, "bb"), "%lf,%lf,%lf,%lf", &llx, &lly, &urx, &ury), 4);
	return (urx - llx) / (ury - lly);
}

/* The page of resnet50 and vit_b_16, every op and modules collapsed at
 * depth 2 (the tester's 27191 x 251 px strip): neither side is more than
 * SC_FULL_ASPECT_MAX (2.5) times the other, as the man page says, and the
 * PNG is drawn at full size. */
Test(render, full_pictures_of_real_models_keep_a_screen_shape)
{
	const char *models[] = {R50, VIT};
	const char *depths[] = {"", "--depth 2"};
	for (int i = 0; i < 2; i++) {
		char part[256], args[512];
		kahn_part(part, sizeof part, models[i], "part.json", 4);
		for (int d = 0; d < 2; d++) {
			snprintf(args, sizeof args, "%s '%s' --full --page-ops 0 %s", models[i],
			         part, depths[d]);
			Agraph_t *G = render_dot(args, "shape.dot");
			double a = dot_aspect(G);
			cr_assert(a <= 2.5 && a >= 1 / 2.5, "render %s: width / height %.2f", args,
			          a);
			agclose(G);
		}
	}
	/* the bitmap of the collapsed resnet50 fits a screen at full size */
	char part[256], path[256], *out = NULL;
	kahn_part(part, sizeof part, R50, "part.json", 4);
	cr_assert_eq(ts_runf(&out, NULL, "render %s '%s' --full --depth 2 --json -o '%s'", R50,
	                     part, in_dir(path, sizeof path, "r50.png")),
	             0);
	unsigned w, h;
	png_size(path, &w, &h);
	cr_assert(w <= 2560 && h <= 1600, "resnet50 at depth 2 is %u x %u px", w, h);
	json_t *v = json_loads(out, 0, NULL);
	cr_assert_eq(json_real_value(json_object_get(v, "scale")), 1.0);
	json_decref(v);
	free(out);
}

/* Every stage has its cluster; at op level every op is a node and every
 * module of more than one op a box (a cluster "cluster_m<module>_<piece>");
 * at depth 2 every module at depth 2 is one node "m<module>" whose label
 * gives its name and op count, the shallower modules of more than one op
 * are boxes, and the nodes account for every op once. */
Test(render, full_picture_draws_every_stage_and_module)
{
	const char *models[] = {R50, VIT};
	const char *files[] = {"samples/onnx/resnet50.onnx", "samples/onnx/vit_b_16.onnx"};
	for (int i = 0; i < 2; i++) {
		sc_graph *g = ts_load(files[i]);
		sc_error err;
		sc_modules *m = sc_modules_new(g, &err);
		cr_assert(m && m->max_depth >= 3, "%s has modules", files[i]);
		char part[256], args[512];
		kahn_part(part, sizeof part, models[i], "part.json", 4);
		for (int depth = 0; depth <= 2; depth += 2) {
			snprintf(args, sizeof args, "%s '%s' --full --page-ops 0 %s%.0d", models[i],
			         part, depth ? "--depth " : "", depth);
			Agraph_t *G = render_dot(args, "mods.dot");
			for (int s = 1; s <= 4; s++) {
				char name[32];
				snprintf(name, sizeof name, "cluster_s%d", s);
				Agraph_t *c = find_subg(G, name);
				double bb[4];
				cr_assert(c && sscanf(agget(c, "bb"), "%lf,%lf,%lf,%lf", &bb[0],
				                      &bb[1], &bb[2], &bb[3]) == 4,
				          "%s: no stage %d", args, s);
			}
			int counted = 0;
			for (int x = 1; x < m->n; x++) {
				const sc_module *mod = &m->m[x];
				int ops = mod->end - mod->first;
				char name[64];
				if (depth && mod->depth == depth) {
					/* a box per stage it has ops in ("m<module>", then
					 * "m<module>_s<stage>"), the op counts adding up */
					snprintf(name, sizeof name, "m%d", x);
					cr_assert(agnode(G, name, 0), "%s: module %s is not drawn",
					          args, mod->name);
					int parts = 0;
					for (int s = 0; s <= 4; s++) {
						if (s)
							snprintf(name, sizeof name, "m%d_s%d", x,
							         s);
						Agnode_t *n = agnode(G, name, 0);
						if (!n)
							continue;
						char want[160];
						snprintf(want, sizeof want, "<B>%s</B><BR/>",
						         mod->name);
						const char *lab = agget(n, "label");
						int their = 0;
						cr_assert(strstr(lab, want),
						          "%s: module %s's label: %s", args,
						          mod->name, lab);
						const char *num = strstr(lab, "POINT-SIZE=\"8\">");
						cr_assert(num &&
						          sscanf(num + 15, "%d op", &their) == 1);
						parts += their;
					}
					cr_assert_eq(parts, ops, "%s: module %s", args, mod->name);
					counted += ops;
				} else if ((!depth || mod->depth < depth) && ops > 1) {
					/* a box in some piece */
					bool found = false;
					for (int piece = 1; piece <= 64 && !found; piece++) {
						snprintf(name, sizeof name, "cluster_m%d_%d", x,
						         piece);
						found = find_subg(G, name) != NULL;
					}
					cr_assert(found, "%s: module %s has no box", args,
					          mod->name);
				}
			}
			for (int v = 0; v < g->n; v++) {
				char name[32];
				snprintf(name, sizeof name, "o%d", v);
				int at = depth ? sc_modules_at_depth(m, v, depth) : 0;
				bool boxed = depth && at > 0 && m->m[at].depth == depth;
				cr_assert_eq(agnode(G, name, 0) != NULL, !boxed, "%s: op %s", args,
				             g->op_name[v]);
				counted += !boxed;
			}
			cr_assert_eq(counted, g->n);
			agclose(G);
		}
		sc_modules_free(m);
		sc_graph_free(g);
	}
}

/* The bounding boxes of every piece of every stage ("cluster_s<s>" and
 * its continuations "cluster_s<s>_<j>") anywhere in G: box[s][j] for
 * stage s (1-based), up to 8 pieces; returns the pieces of s in n[s]. */
typedef struct piece_box {
	double llx, lly, urx, ury;
} piece_box;

static void stage_boxes(Agraph_t *G, piece_box box[][8], int *n, int k)
{
	for (Agraph_t *c = agfstsubg(G); c; c = agnxtsubg(c)) {
		int s, j = 1;
		const char *name = agnameof(c);
		if ((sscanf(name, "cluster_s%d_%d", &s, &j) >= 1) && s >= 1 && s <= k && j <= 8) {
			piece_box *b = &box[s][j - 1];
			cr_assert_eq(sscanf(agget(c, "bb"), "%lf,%lf,%lf,%lf", &b->llx, &b->lly,
			                    &b->urx, &b->ury),
			             4);
			if (j > n[s])
				n[s] = j;
		}
		stage_boxes(c, box, n, k);
	}
}

/* Stage order along the flow: every piece of stage s comes before every
 * piece of a later stage t, either in an earlier column (wholly to its
 * left) or above it in the same column (dot's y grows upwards).  gnmt's
 * layers drew stages 4 and 5 above stage 3. */
Test(render, full_picture_keeps_stage_order_along_the_flow)
{
	struct {
		const char *model;
		int k;
	} cases[] = {
	        {"samples/msr-fiddle/layer/gnmt_inference.json", 6},
	        {"samples/msr-fiddle/layer/bert24_inference.json", 4},
	        {R50, 4},
	        {"samples/msr-fiddle/operator/bert_l-3_inference.json", 5},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char part[256], args[512];
		kahn_part(part, sizeof part, cases[i].model, "part.json", cases[i].k);
		snprintf(args, sizeof args, "%s '%s' --full --page-ops 0", cases[i].model, part);
		Agraph_t *G = render_dot(args, "order.dot");
		piece_box box[9][8];
		int n[9] = {0};
		stage_boxes(G, box, n, cases[i].k);
		for (int s = 1; s <= cases[i].k; s++) {
			cr_assert_gt(n[s], 0, "%s: stage %d is not drawn", args, s);
			for (int t = s + 1; t <= cases[i].k; t++)
				for (int a = 0; a < n[s]; a++)
					for (int b = 0; b < n[t]; b++) {
						const piece_box *x = &box[s][a], *y = &box[t][b];
						bool left = x->urx <= y->llx + 1e-6;
						bool above = x->lly >= y->ury - 1e-6 &&
						             x->urx > y->llx && y->urx > x->llx;
						cr_assert(left || above,
						          "%s: stage %d (piece %d) is not before "
						          "stage %d "
						          "(piece %d)",
						          args, s, a + 1, t, b + 1);
					}
		}
		agclose(G);
	}
}

/* The caption says what the numbers mean: units, device and dims (both
 * pictures), "time units" for a file's own numbers. */
Test(render, caption_gives_units_device_and_dims)
{
	char part[256], args[512];
	kahn_part(part, sizeof part, R50, "part.json", 4);
	for (int full = 0; full < 2; full++) {
		snprintf(args, sizeof args, "%s '%s' %s", R50, part,
		         full ? "--full --depth 2" : "");
		Agraph_t *G = render_dot(args, "cap.dot");
		const char *label = agget(G, "label");
		cr_assert(strstr(label, "units: work and costs in microseconds, tensors and memory "
		                        "in bytes"),
		          "%s: %s", args, label);
		cr_assert(strstr(label, "device h100 at fp16"), "%s: %s", args, label);
		cr_assert(strstr(label, "dims N=32"), "%s: %s", args, label);
		agclose(G);
	}
	Agraph_t *G = render_dot("samples/paper/figure2.dot --full", "cap2.dot");
	cr_assert(strstr(agget(G, "label"), "units: work and costs in time units"), "%s",
	          agget(G, "label"));
	cr_assert_null(strstr(agget(G, "label"), "device"));
	agclose(G);
}

/* A picture of more boxes than a page holds is drawn on
 * pages (--page-ops, 80 by default).  vit_b_16 at op level, 616 ops in 4
 * stages: every page parses, fits a 2560 x 2048 screen at full size and
 * keeps the aspect limit; the pages draw every op exactly once, every
 * stage and every module of more than one op somewhere; an edge between
 * pages ends at a stub naming the other page on both; OUT is the overview
 * naming the pages; --json lists them; --page-ops 0 draws one picture. */
Test(render, large_pictures_are_drawn_on_pages_each_fitting_a_screen)
{
	char part[256], path[256], page[300], *out = NULL;
	kahn_part(part, sizeof part, VIT, "part.json", 4);
	in_dir(path, sizeof path, "vit.dot");
	cr_assert_eq(ts_runf(&out, NULL, "render %s '%s' --full --json -o '%s'", VIT, part, path),
	             0);
	json_t *v = json_loads(out, 0, NULL);
	json_t *files = json_object_get(v, "pages");
	int pages = (int)json_array_size(files);
	cr_assert(pages >= 616 / 80 && pages <= 616 / 40, "%d pages", pages);
	sc_graph *g = ts_load("samples/onnx/vit_b_16.onnx");
	sc_error err;
	sc_modules *m = sc_modules_new(g, &err);
	cr_assert(m);
	int *on = calloc((size_t)g->n, sizeof *on);
	bool stage_seen[5] = {false}, *boxed = calloc((size_t)m->n, 1);
	Agraph_t **G = calloc((size_t)pages, sizeof *G);
	cr_assert(on && boxed && G);
	for (int i = 0; i < pages; i++) {
		snprintf(page, sizeof page, "%s/vit-%d.dot", dir, i + 1);
		cr_assert_str_eq(json_string_value(json_array_get(files, i)), page);
		char *dot = slurp(page, NULL);
		cr_assert((G[i] = agmemread(dot)), "page %d does not parse", i + 1);
		free(dot);
		double llx, lly, urx, ury;
		cr_assert_eq(sscanf(agget(G[i], "bb"), "%lf,%lf,%lf,%lf", &llx, &lly, &urx, &ury),
		             4);
		double w = (urx - llx) * 96 / 72, h = (ury - lly) * 96 / 72;
		cr_assert(w <= 2560 && h <= 2048, "page %d is %.0f x %.0f px", i + 1, w, h);
		char want[32];
		snprintf(want, sizeof want, "page %d of %d", i + 1, pages);
		cr_assert(strstr(agget(G[i], "label"), want), "page %d's caption", i + 1);
		for (int v2 = 0; v2 < g->n; v2++) {
			char name[32];
			snprintf(name, sizeof name, "o%d", v2);
			if (agnode(G[i], name, 0)) {
				cr_assert_eq(on[v2], 0, "op %s on pages %d and %d", g->op_name[v2],
				             on[v2], i + 1);
				on[v2] = i + 1;
			}
		}
		for (int s = 1; s <= 4; s++) {
			char name[32];
			snprintf(name, sizeof name, "cluster_s%d", s);
			stage_seen[s] |= find_subg(G[i], name) != NULL;
		}
		for (int x = 1; x < m->n; x++)
			for (int piece = 1; piece <= 64 && !boxed[x]; piece++) {
				char name[48];
				snprintf(name, sizeof name, "cluster_m%d_%d", x, piece);
				boxed[x] = find_subg(G[i], name) != NULL;
			}
	}
	for (int v2 = 0; v2 < g->n; v2++)
		cr_assert_gt(on[v2], 0, "op %s is on no page", g->op_name[v2]);
	for (int s = 1; s <= 4; s++)
		cr_assert(stage_seen[s], "stage %d is on no page", s);
	for (int x = 1; x < m->n; x++)
		cr_assert(boxed[x] || m->m[x].end - m->m[x].first < 2, "module %s has no box",
		          m->m[x].name);
	/* every edge between pages has its stubs */
	for (int a = 0; a < g->n; a++)
		for (int j = g->succ_off[a]; j < g->succ_off[a + 1]; j++) {
			int b = g->succ[j], pa = on[a], pb = on[b];
			if (pa == pb)
				continue;
			bool to = false, from = false;
			for (int c = 1; c <= 40; c++) {
				char name[48];
				snprintf(name, sizeof name, "to_p%d_c%d", pb, c);
				to |= agnode(G[pa - 1], name, 0) != NULL;
				snprintf(name, sizeof name, "from_p%d_c%d", pa, c);
				from |= agnode(G[pb - 1], name, 0) != NULL;
			}
			cr_assert(to && from, "edge %s (page %d) -> %s (page %d) has no stubs",
			          g->op_name[a], pa, g->op_name[b], pb);
		}
	for (int i = 0; i < pages; i++)
		agclose(G[i]);
	/* the overview names the pages */
	char *dot = slurp(path, NULL), want[64];
	Agraph_t *O = agmemread(dot);
	cr_assert(O);
	snprintf(want, sizeof want, "every op on %d pages, vit-1.dot to vit-%d.dot", pages, pages);
	cr_assert(strstr(agget(O, "label"), want), "overview caption: %s", agget(O, "label"));
	cr_assert_gt(json_integer_value(json_object_get(v, "overview_depth")), 0);
	agclose(O);
	free(dot);
	json_decref(v);
	free(out);
	/* one picture when asked: no page is written */
	in_dir(path, sizeof path, "one.dot");
	cr_assert_eq(ts_runf(&out, NULL, "render %s '%s' --full --page-ops 0 --json -o '%s'", VIT,
	                     part, path),
	             0);
	v = json_loads(out, 0, NULL);
	cr_assert_null(json_object_get(v, "pages"));
	snprintf(page, sizeof page, "%s/one-1.dot", dir);
	cr_assert_neq(access(page, F_OK), 0);
	json_decref(v);
	free(out);
	free(on);
	free(boxed);
	free(G);
	sc_modules_free(m);
	sc_graph_free(g);
}

/* The same picture, byte for byte, run after run: cgraph kept clusters in
 * the order of its names' addresses, and bert24's every-op picture drew
 * them in another order from run to run (4 runs gave 4 SVGs); the stage
 * graph and the full picture now keep the order they are made in. */
Test(render, the_same_picture_every_run)
{
	const char *what[] = {"--full --max-ops 300", ""};
	for (int w = 0; w < 2; w++) {
		char *first = NULL;
		size_t first_len = 0;
		for (int run = 0; run < 4; run++) {
			char path[128], *out = NULL, *err = NULL;
			in_dir(path, sizeof path, "same.svg");
			cr_assert_eq(ts_runf(&out, &err,
			                     "render "
			                     "samples/msr-fiddle/layer/bert24_inference.json -k 2 "
			                     "-m kahn %s -o '%s'",
			                     what[w], path),
			             0, "%s", err);
			free(out);
			free(err);
			size_t len;
			char *svg = slurp(path, &len);
			if (!first) {
				first = svg;
				first_len = len;
				continue;
			}
			cr_assert(len == first_len && memcmp(svg, first, len) == 0,
			          "render %s: run %d drew another SVG than run 1", what[w],
			          run + 1);
			free(svg);
		}
		free(first);
	}
}
