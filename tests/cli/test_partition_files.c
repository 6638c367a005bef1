/*
 * test_partition_files.c - partition files in their two formats across the
 * commands (stagecut(1), PARTITION FILES): `solve -o p.dot` writes a DOT
 * graph with the stages, which eval and render read back with solve's
 * bottleneck and which opens as a graph with its stages; a partition with
 * CPU stages is refused as DOT, nothing written.
 *
 * The stages are read here from the DOT file by the graph loader (the file
 * is a graph) and costed by the independent model of tests/support.c, so
 * that solve, eval and render are each checked against a bottleneck they
 * did not compute.
 */
#include "tests/cli/cli_test.h"

#include "core/formats/load.h"

TestSuite(partition_files, .init = ts_scratch_init, .fini = ts_scratch_fini, .timeout = 60);

/* The stages of g that the DOT file path gives its ops, by name, through
 * the graph loader; returns the file's k. */
static int stages_of_dot(const char *path, const sc_graph *g, int *stage)
{
	sc_error err;
	sc_graph *h = sc_load(path, &err);
	cr_assert_not_null(h, "%s", err.msg);
	cr_assert_not_null(h->init_stage, "%s: no stages", path);
	cr_assert_eq(h->n, g->n, "%s: one node per op", path);
	for (int i = 0; i < h->n; i++) {
		int v = sc_graph_find(g, h->op_name[i]);
		cr_assert(v >= 0, "%s: unknown op '%s'", path, h->op_name[i]);
		stage[v] = h->init_stage[i];
	}
	int k = h->settings.k;
	sc_graph_free(h);
	return k;
}

/* solve -o OUT.dot on graph, then eval, render and the file itself. */
static void solve_to_dot_and_back(const char *graph, int k)
{
	char outp[192], rendered[192];
	snprintf(outp, sizeof outp, "%s/%s-%d.dot", ts_dir, strrchr(graph, '/') + 1, k);
	snprintf(rendered, sizeof rendered, "%s/rendered.dot", ts_dir);
	json_t *r = ts_run_json(0, "solve %s -k %d -o %s --json", graph, k, outp);
	double bn = ts_jnum(r, "bottleneck");
	cr_assert_str_eq(ts_jstr(r, "partition"), outp);
	json_decref(r);

	char *text = ts_slurp(outp, NULL);
	cr_assert(text && strstr(text, "digraph") && strstr(text, "stage="), "%s: DOT with stages",
	          outp);
	free(text);
	sc_graph *g = ts_load(graph);
	int *stage = malloc((size_t)g->n * sizeof *stage);
	ts_cost *c = malloc((size_t)k * sizeof *c);
	cr_assert(stage && c);
	cr_assert_eq(stages_of_dot(outp, g, stage), k, "%s: k", outp);
	ts_assert_valid(g, stage, k, outp);
	sc_settings set = g->settings;
	ts_costs(g, stage, &set, k, c);
	int at;
	double mine = ts_bottleneck(c, k, &at);
	cr_assert(ts_close_rel(bn, mine, 1e-9), "%s: solve says %.17g, costed here %.17g", graph,
	          bn, mine);

	json_t *e = ts_run_json(0, "eval --json %s %s", graph, outp);
	cr_assert(ts_jbool(e, "valid"), "eval %s", outp);
	cr_assert_eq(ts_jint(e, "k"), k);
	cr_assert(ts_close_rel(ts_jnum(e, "bottleneck"), bn, 1e-9), "eval says %.17g, solve %.17g",
	          ts_jnum(e, "bottleneck"), bn);
	ts_assert_stages_match(ts_jget(e, "stages"), c, k, "eval of the DOT partition");
	json_decref(e);

	json_t *d = ts_run_json(0, "render %s %s -T dot -o %s --json", graph, outp, rendered);
	cr_assert_str_eq(ts_jstr(d, "partition"), outp);
	cr_assert_eq(ts_jint(d, "k"), k);
	cr_assert(ts_close_rel(ts_jnum(d, "bottleneck"), bn, 1e-9),
	          "render says %.17g, solve %.17g", ts_jnum(d, "bottleneck"), bn);
	json_decref(d);

	/* the file is a graph too, with g's ops and edges */
	json_t *i = ts_run_json(0, "info %s --json", outp);
	cr_assert_eq(ts_jint(i, "ops"), g->n);
	cr_assert_eq(ts_jint(i, "edges"), g->m);
	json_decref(i);

	free(c);
	free(stage);
	sc_graph_free(g);
}

Test(partition_files, solve_writes_dot_that_eval_and_render_read)
{
	solve_to_dot_and_back(FIGURE2, 3);
	solve_to_dot_and_back(RESIDUAL, 3);
	solve_to_dot_and_back(BERT3_OP, 4);
}

Test(partition_files, a_partition_with_cpu_stages_is_not_written_as_dot)
{
	char outp[192];
	snprintf(outp, sizeof outp, "%s/cpus.dot", ts_dir);
	char *out = NULL, *err = NULL;
	int st = ts_runf(&out, &err, "solve %s -k 2 --cpus 1 -o %s", BERT3_OP, outp);
	/* bert's best split puts a stage on the CPU (else this tests nothing) */
	cr_assert_eq(st, 2, "exit %d: %s", st, err);
	cr_assert(strstr(err, outp) && strstr(err, "CPU stages"), "%s", err);
	cr_assert_neq(access(outp, F_OK), 0, "%s was written", outp);
	free(out);
	free(err);
	/* the same as JSON names the devices */
	snprintf(outp, sizeof outp, "%s/cpus.json", ts_dir);
	json_t *r = ts_run_json(0, "solve %s -k 2 --cpus 1 -o %s --json", BERT3_OP, outp);
	json_decref(r);
	json_error_t jerr;
	json_t *file = json_load_file(outp, 0, &jerr);
	cr_assert(file, "%s: %s", outp, jerr.text);
	json_t *dev = ts_jget(file, "devices");
	cr_assert(json_is_array(dev), "%s: devices", outp);
	bool any = false;
	for (size_t s = 0; s < json_array_size(dev); s++)
		any |= strcmp(json_string_value(json_array_get(dev, s)), "cpu") == 0;
	cr_assert(any, "%s: a CPU stage", outp);
	json_decref(file);
}
