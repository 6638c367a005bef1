/*
 * test_partition_file.c - the registry of partition formats
 * (core/formats/partition_file.h): which format reads a file (its content
 * over a misleading extension) and which one a name writes; the DOT format's
 * round trip, on a sample and on random graphs, and read back as a graph
 * with its stages; each of the DOT reader's refusals; a partition with CPU
 * stages refused as DOT with nothing written.  The JSON format's own round
 * trip is in test_partition.c.
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/formats/load.h"
#include "core/fleet.h"
#include "core/formats/partition_file.h"
#include "core/partition.h"
#include "solvers/simple.h"
#include "tests/support.h"

#define FIGURE2 "samples/paper/figure2.dot"

static char dir[64];

static void make_dir(void)
{
	ts_make_dir(dir, "sc-partfile");
}

static void remove_dir(void)
{
	ts_remove_dir(dir);
}

/* The path of name in the scratch directory, into buf. */
static const char *at(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", dir, name);
	return buf;
}

TestSuite(partition_file, .init = make_dir, .fini = remove_dir);

Test(partition_file, the_probes_go_by_content_before_the_extension)
{
	/* content decides, whatever the name says */
	cr_assert_eq(sc_part_format_for_read("p.dot", "{\"format\"", 9), &sc_part_format_json);
	cr_assert_eq(sc_part_format_for_read("p.gv", "[1]", 3), &sc_part_format_json);
	cr_assert_eq(sc_part_format_for_read("p.json", "digraph p {", 11), &sc_part_format_dot);
	cr_assert_eq(sc_part_format_for_read("p.json", "strict digraph", 14), &sc_part_format_dot);
	cr_assert_eq(sc_part_format_for_read("p.json", "// a comment", 12), &sc_part_format_dot);
	/* the extension where the content does not tell */
	cr_assert_eq(sc_part_format_for_read("p.DOT", "x", 1), &sc_part_format_dot);
	cr_assert_eq(sc_part_format_for_read("p.gv", "x", 1), &sc_part_format_dot);
	cr_assert_eq(sc_part_format_for_read("p.json", "x", 1), &sc_part_format_json);
	/* JSON when nothing does (the format partition files had before DOT) */
	cr_assert_eq(sc_part_format_for_read("p.txt", "x", 1), &sc_part_format_json);
	cr_assert_eq(sc_part_format_for_read("p", "", 0), &sc_part_format_json);
	/* writing goes by the name alone */
	cr_assert_eq(sc_part_format_for_write("out.dot"), &sc_part_format_dot);
	cr_assert_eq(sc_part_format_for_write("OUT.GV"), &sc_part_format_dot);
	cr_assert_eq(sc_part_format_for_write("out.json"), &sc_part_format_json);
	cr_assert_eq(sc_part_format_for_write("out.dot.json"), &sc_part_format_json);
	cr_assert_eq(sc_part_format_for_write("dot"), &sc_part_format_json);
	cr_assert_eq(sc_part_format_for_write("/dev/stdout"), &sc_part_format_json);
}

/* A partition of g into k stages, each op's stage drawn at random (valid or
 * not: the files hold any stage in 1..k). */
static int *random_stages(ts_rng *r, const sc_graph *g, int k)
{
	int *stage = malloc((size_t)g->n * sizeof *stage);
	cr_assert_not_null(stage);
	for (int v = 0; v < g->n; v++)
		stage[v] = ts_below(r, k);
	return stage;
}

/* Reads path for g and asserts it gives k and stage. */
static void assert_reads_back(const char *path, const sc_graph *g, int k, const int *stage)
{
	int *back = malloc((size_t)g->n * sizeof *back);
	cr_assert_not_null(back);
	int k2 = -1;
	sc_error err;
	cr_assert_eq(sc_part_read(path, g, &k2, back, &err), SC_OK, "%s", err.msg);
	cr_assert_eq(k2, k, "%s: k %d, written %d", path, k2, k);
	for (int v = 0; v < g->n; v++)
		cr_assert_eq(back[v], stage[v], "%s: op '%s' in stage %d, written %d", path,
		             g->op_name[v], back[v] + 1, stage[v] + 1);
	free(back);
}

Test(partition_file, a_misleading_extension_does_not_decide)
{
	sc_graph *g = ts_load(FIGURE2);
	int stage[6];
	for (int v = 0; v < g->n; v++)
		stage[v] = v % 2;
	char p[128], q[128];
	sc_error err;
	/* JSON in a file named .dot, DOT in one named .json */
	at(p, sizeof p, "json.dot");
	at(q, sizeof q, "dot.json");
	cr_assert_eq(sc_part_format_json.write(p, g, stage, 2, NULL, NULL, NULL, &err), SC_OK, "%s",
	             err.msg);
	cr_assert_eq(sc_part_format_dot.write(q, g, stage, 2, NULL, NULL, NULL, &err), SC_OK, "%s",
	             err.msg);
	char *text = ts_slurp(p, NULL);
	cr_assert(text && text[0] == '{', "JSON in %s", p);
	free(text);
	text = ts_slurp(q, NULL);
	cr_assert(text && strstr(text, "digraph"), "DOT in %s", q);
	free(text);
	assert_reads_back(p, g, 2, stage);
	assert_reads_back(q, g, 2, stage);
	sc_graph_free(g);
}

Test(partition_file, dot_round_trip_on_a_sample_keeps_k_and_stages)
{
	/* residual.dot has a group and no k: the file's k is the partition's */
	sc_graph *g = ts_load("samples/small/residual.dot");
	int k = 3;
	int *stage = malloc((size_t)g->n * sizeof *stage);
	cr_assert_eq(sc_greedy_split(g, k, stage, NULL), SC_OK);
	char p[128];
	sc_error err;
	cr_assert_eq(sc_part_write(at(p, sizeof p, "p.dot"), g, stage, k, NULL, &err), SC_OK, "%s",
	             err.msg);
	assert_reads_back(p, g, k, stage);
	int k2;
	cr_assert_eq(sc_part_load(p, g, k, &k2, stage, NULL, &err), SC_OK, "%s", err.msg);

	/* a graph whose own k differs: the file holds the partition's k */
	sc_graph *f = ts_load(FIGURE2);
	cr_assert_eq(f->settings.k, 3);
	int two[6];
	for (int v = 0; v < f->n; v++)
		two[v] = v >= f->n / 2;
	cr_assert_eq(sc_part_write(p, f, two, 2, NULL, &err), SC_OK, "%s", err.msg);
	assert_reads_back(p, f, 2, two);
	sc_graph_free(f);
	free(stage);
	sc_graph_free(g);
}

Test(partition_file, dot_round_trip_on_random_graphs)
{
	ts_rng r = {30};
	char p[128], q[128];
	at(p, sizeof p, "p.gv");
	at(q, sizeof q, "graph.dot");
	for (int t = 0; t < ts_trials(60); t++) {
		ts_graph_spec spec = {.n = 1 + ts_below(&r, 40),
		                      .edge_p = ts_uniform(&r) * 0.3,
		                      .group_p = ts_uniform(&r) < 0.5 ? 0.3 : 0,
		                      .ngroups = 3};
		sc_settings_init(&spec.settings);
		if (ts_below(&r, 2))
			spec.settings.k = 1 + ts_below(&r, 8); /* the graph's own k */
		sc_graph *g = ts_random_graph(&r, &spec);
		int k = 1 + ts_below(&r, 6);
		int *stage = random_stages(&r, g, k);
		sc_error err;
		cr_assert_eq(sc_part_write(p, g, stage, k, NULL, &err), SC_OK, "%s", err.msg);
		assert_reads_back(p, g, k, stage);

		/* the file is a graph: `stagecut p.gv` opens g with the stages */
		cr_assert_eq(rename(p, q), 0);
		sc_graph *h = sc_load(q, &err);
		cr_assert_not_null(h, "%s", err.msg);
		cr_assert_eq(h->n, g->n);
		cr_assert_eq(h->m, g->m);
		cr_assert_eq(h->settings.k, k);
		cr_assert_not_null(h->init_stage);
		for (int i = 0; i < h->n; i++) {
			int v = sc_graph_find(g, h->op_name[i]);
			cr_assert(v >= 0, "op '%s' of the file is g's", h->op_name[i]);
			cr_assert_eq(h->init_stage[i], stage[v]);
			cr_assert_eq(h->work[i], g->work[v]);
		}
		sc_graph_free(h);
		free(stage);
		sc_graph_free(g);
	}
}

/* Writes text to name in the scratch directory, reads it as a partition of
 * figure2.dot, and asserts SC_ERR_INPUT with a message naming the file and
 * holding want. */
static void assert_refused(const char *name, const char *text, const char *want)
{
	sc_graph *g = ts_load(FIGURE2);
	char p[128];
	at(p, sizeof p, name);
	ts_write_text(p, text);
	int stage[6], k = -1;
	sc_error err;
	cr_assert_eq(sc_part_read(p, g, &k, stage, &err), SC_ERR_INPUT, "%s: %s", name, err.msg);
	cr_assert(strstr(err.msg, p), "names the file: %s", err.msg);
	cr_assert(strstr(err.msg, want), "says '%s': %s", want, err.msg);
	sc_graph_free(g);
}

Test(partition_file, the_dot_reader_refuses_what_is_no_partition_of_the_graph)
{
	/* an op of the graph the file lacks */
	assert_refused("missing.dot",
	               "digraph { a [stage=1]; u [stage=1]; v [stage=2]; x [stage=3]; "
	               "y [stage=3]; }\n",
	               "op 'w' of " FIGURE2 " has no stage");
	/* an op the graph lacks */
	assert_refused("unknown.dot",
	               "digraph { a [stage=1]; u [stage=1]; v [stage=2]; w [stage=2]; "
	               "zeta [stage=2]; x [stage=3]; y [stage=3]; }\n",
	               "unknown op 'zeta'");
	/* a stage above the file's k, and a stage 0 */
	assert_refused("range.dot",
	               "digraph { k = 2; a [stage=1]; u [stage=1]; v [stage=2]; "
	               "w [stage=3]; x [stage=2]; y [stage=2]; }\n",
	               "node 'w' attribute 'stage': '3' is not an integer from 1 to 2");
	assert_refused("zero.dot",
	               "digraph { a [stage=0]; u [stage=1]; v [stage=2]; w [stage=2]; "
	               "x [stage=3]; y [stage=3]; }\n",
	               "node 'a' attribute 'stage': '0' is not an integer from 1 to");
	/* a graph without stages, and one with some */
	assert_refused("nostage.dot", "digraph { a; u; v; w; x; y; }\n",
	               "no node has a 'stage' attribute");
	assert_refused("partial.dot",
	               "digraph { a [stage=1]; u; v [stage=2]; w [stage=2]; x [stage=3]; "
	               "y [stage=3]; }\n",
	               "node 'u' has no 'stage' attribute");
	/* named .dot, neither JSON nor DOT: DOT's syntax error */
	assert_refused("garbage.dot", "stages: a=1\n", "syntax error");
}

Test(partition_file, dot_k_is_the_largest_stage_without_a_k_attribute)
{
	sc_graph *g = ts_load(FIGURE2);
	char p[128];
	at(p, sizeof p, "nok.dot");
	ts_write_text(p, "digraph { a [stage=1]; u [stage=1]; v [stage=2]; w [stage=4]; "
	                 "x [stage=4]; y [stage=4]; }\n");
	int stage[6], k = -1;
	sc_error err;
	cr_assert_eq(sc_part_read(p, g, &k, stage, &err), SC_OK, "%s", err.msg);
	cr_assert_eq(k, 4);
	cr_assert_eq(stage[sc_graph_find(g, "w")], 3);
	cr_assert_eq(stage[sc_graph_find(g, "u")], 0);
	/* an edge going back is an invalid partition, as in JSON */
	ts_write_text(p, "digraph { a [stage=2]; u [stage=1]; v [stage=2]; w [stage=2]; "
	                 "x [stage=2]; y [stage=2]; }\n");
	sc_violation viol;
	cr_assert_eq(sc_part_load(p, g, 0, &k, stage, &viol, &err), SC_ERR_INVALID, "%s", err.msg);
	cr_assert_eq(viol.kind, SC_VIOL_EDGE);
	cr_assert(strstr(err.msg, "edge 'a' -> 'u'"), "%s", err.msg);
	sc_graph_free(g);
}

Test(partition_file, cpu_stages_are_not_written_as_dot)
{
	sc_graph *g = ts_load(FIGURE2);
	int stage[6];
	for (int v = 0; v < g->n; v++)
		stage[v] = v < 3 ? 0 : 1;
	char p[128], old[128];
	sc_error err;
	/* the costs name the devices: one CPU stage among two */
	sc_settings set = g->settings;
	set.k = 2;
	set.cpus = 1;
	sc_costs *c = sc_costs_new(g, &set, &err);
	cr_assert(c, "%s", err.msg);
	int kind[2] = {0, 1};
	sc_costs_set_kinds(c, kind);
	sc_costs_eval(c, stage);
	/* nothing written where there was nothing */
	at(p, sizeof p, "cpu.dot");
	cr_assert_eq(sc_part_write(p, g, stage, 2, c, &err), SC_ERR_INPUT);
	cr_assert(strstr(err.msg, p) && strstr(err.msg, "CPU stages"), "%s", err.msg);
	cr_assert_neq(access(p, F_OK), 0, "%s was written", p);
	/* and a file that was there left as it was */
	at(old, sizeof old, "old.gv");
	ts_write_text(old, "what was here\n");
	cr_assert_eq(sc_part_write(old, g, stage, 2, c, &err), SC_ERR_INPUT);
	char *text = ts_slurp(old, NULL);
	cr_assert_str_eq(text, "what was here\n");
	free(text);
	/* without a CPU stage the same call writes DOT */
	int none[2] = {0, 0};
	sc_costs_set_kinds(c, none);
	sc_costs_eval(c, stage);
	cr_assert_eq(sc_part_write(p, g, stage, 2, c, &err), SC_OK, "%s", err.msg);
	assert_reads_back(p, g, 2, stage);
	/* and JSON keeps the devices */
	sc_costs_set_kinds(c, kind);
	sc_costs_eval(c, stage);
	at(p, sizeof p, "cpu.json");
	cr_assert_eq(sc_part_write(p, g, stage, 2, c, &err), SC_OK, "%s", err.msg);
	sc_costs_free(c);
	int *back = NULL;
	int got[6], k = 0;
	sc_fleet f;
	/* (op w has no CPU time: on a CPU stage the partition is invalid, and
	 * its stages and kinds are still read) */
	cr_assert_eq(sc_part_load_kinds(p, g, NULL, 0, &k, got, &f, &back, NULL, &err),
	             SC_ERR_INVALID, "%s", err.msg);
	cr_assert(strstr(err.msg, "no CPU time"), "%s", err.msg);
	/* the file's own devices: kind 0 the graph's, kind 1 a CPU */
	cr_assert(back && back[0] == 0 && back[1] == 1);
	cr_assert(f.kind[1].cpu && f.kind[0].count == 1 && f.kind[1].count == 1);
	free(back);
	/* a reader that takes no devices refuses the file by name */
	cr_assert_eq(sc_part_read(p, g, &k, got, &err), SC_ERR_INPUT);
	cr_assert(strstr(err.msg, p) && strstr(err.msg, "'cpu'") && strstr(err.msg, "--cpus"), "%s",
	          err.msg);
	sc_graph_free(g);
}
