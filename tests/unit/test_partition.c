/*
 * test_partition.c - validity, legal stage ranges (checked against trying
 * every stage), and the partition file round trip.
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/formats/partition_file.h"
#include "core/partition.h"
#include "core/report.h"
#include "solvers/simple.h"
#include "tests/support.h"

Test(partition, violations_are_found_and_named)
{
	sc_graph *g = ts_load("samples/small/residual.dot");
	int k = 3;
	int *stage = malloc((size_t)g->n * sizeof *stage);
	cr_assert_eq(sc_greedy_split(g, k, stage, NULL), SC_OK);
	sc_violation viol;
	cr_assert(sc_part_check(g, stage, k, &viol));
	cr_assert_eq(viol.kind, SC_VIOL_NONE);
	char why[256];

	int conv1 = sc_graph_find(g, "conv1"), input = sc_graph_find(g, "input");
	int saved = stage[input];
	stage[input] = 2;
	stage[conv1] = 0;
	cr_assert_not(sc_part_check(g, stage, k, &viol));
	cr_assert_eq(viol.kind, SC_VIOL_EDGE);
	sc_part_describe(g, stage, &viol, why, sizeof why);
	cr_assert(strstr(why, "'input' -> "), "%s", why);
	stage[input] = saved;

	cr_assert_eq(sc_greedy_split(g, k, stage, NULL), SC_OK);
	int a = sc_graph_find(g, "mm_a"), b = sc_graph_find(g, "mm_b");
	cr_assert_eq(stage[a], stage[b], "greedy keeps groups together");
	/* split the group without breaking an edge: everything else to the ends */
	for (int v = 0; v < g->n; v++)
		stage[v] = 0;
	stage[sc_graph_find(g, "concat")] = stage[sc_graph_find(g, "output")] = 2;
	stage[b] = 1;
	cr_assert_not(sc_part_check(g, stage, k, &viol));
	cr_assert_eq(viol.kind, SC_VIOL_GROUP);
	sc_part_describe(g, stage, &viol, why, sizeof why);
	cr_assert(strstr(why, "group 'matmul'"), "%s", why);

	stage[b] = 7;
	cr_assert_not(sc_part_check(g, stage, k, &viol));
	cr_assert_eq(viol.kind, SC_VIOL_RANGE);
	cr_assert_eq(viol.a, b);
	free(stage);
	sc_graph_free(g);
}

/* Moves v and its group to stage s and says whether the result is valid. */
static bool try_move(const sc_graph *g, int *stage, int k, int v, int s)
{
	int n = g->n;
	int *copy = malloc((size_t)n * sizeof *copy);
	memcpy(copy, stage, (size_t)n * sizeof *copy);
	int gr = g->group[v];
	if (gr < 0)
		copy[v] = s;
	else
		for (int j = g->group_off[gr]; j < g->group_off[gr + 1]; j++)
			copy[g->group_ops[j]] = s;
	bool ok = sc_part_check(g, copy, k, NULL);
	free(copy);
	return ok;
}

Test(partition, legal_range_equals_trying_every_stage)
{
	ts_rng r = {5};
	for (int t = 0; t < 200; t++) {
		ts_graph_spec spec = {.n = 1 + ts_below(&r, 30),
		                      .edge_p = ts_uniform(&r) * 0.3,
		                      .group_p = ts_uniform(&r) < 0.5 ? 0.3 : 0,
		                      .ngroups = 3};
		sc_settings_init(&spec.settings);
		sc_graph *g = ts_random_graph(&r, &spec);
		int k = 1 + ts_below(&r, 6);
		int *stage = malloc((size_t)g->n * sizeof *stage);
		cr_assert_eq(sc_greedy_split(g, k, stage, NULL), SC_OK);
		cr_assert(sc_part_check(g, stage, k, NULL), "greedy split must be valid");
		/* wander through valid partitions with legal moves */
		for (int step = 0; step < 30; step++) {
			int v = ts_below(&r, g->n), lo, hi;
			sc_part_legal_range(g, stage, k, v, &lo, &hi);
			for (int s = 0; s < k; s++)
				cr_assert_eq(try_move(g, stage, k, v, s), s >= lo && s <= hi,
				             "op %d stage %d range [%d, %d]", v, s, lo, hi);
			if (hi >= lo) {
				int s = lo + ts_below(&r, hi - lo + 1);
				int gr = g->group[v];
				if (gr < 0)
					stage[v] = s;
				else
					for (int j = g->group_off[gr]; j < g->group_off[gr + 1];
					     j++)
						stage[g->group_ops[j]] = s;
				cr_assert(sc_part_check(g, stage, k, NULL));
			}
		}
		free(stage);
		sc_graph_free(g);
	}
}

Test(partition, file_round_trip_and_atomic_replace)
{
	char dir[] = "/tmp/sc-part-XXXXXX";
	cr_assert(mkdtemp(dir));
	char path[256];
	snprintf(path, sizeof path, "%s/p.json", dir);
	sc_graph *g = ts_load("samples/msr-fiddle/operator/bert_l-3_inference.json");
	int k = 5;
	int *stage = malloc((size_t)g->n * sizeof *stage),
	    *back = malloc((size_t)g->n * sizeof *back);
	cr_assert_eq(sc_greedy_split(g, k, stage, NULL), SC_OK);
	sc_settings set = g->settings;
	set.k = k;
	sc_costs *c = sc_costs_new(g, &set, NULL);
	sc_costs_eval(c, stage);
	sc_error err;
	cr_assert_eq(sc_part_write(path, g, stage, k, c, &err), SC_OK, "%s", err.msg);
	int k2 = 0;
	cr_assert_eq(sc_part_read(path, g, &k2, back, &err), SC_OK, "%s", err.msg);
	cr_assert_eq(k2, k);
	for (int v = 0; v < g->n; v++)
		cr_assert_eq(back[v], stage[v]);

	/* a failed write (directory gone) leaves no file and reports the path */
	char bad[300];
	snprintf(bad, sizeof bad, "%s/missing/p.json", dir);
	cr_assert_eq(sc_part_write(bad, g, stage, k, c, &err), SC_ERR_IO);
	cr_assert(strstr(err.msg, bad), "%s", err.msg);

	/* rewriting replaces the file whole, leaving no temporary files */
	stage[g->topo[g->n - 1]] = k - 1;
	cr_assert_eq(sc_part_write(path, g, stage, k, NULL, &err), SC_OK);
	cr_assert_eq(sc_part_read(path, g, &k2, back, &err), SC_OK);
	cr_assert_eq(back[g->topo[g->n - 1]], k - 1);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "test $(ls %s | wc -l) -eq 1", dir);
	cr_assert_eq(system(cmd), 0, "only p.json is left in %s", dir);

	/* an unknown op is refused, naming the op and the file */
	FILE *f = fopen(path, "w");
	fprintf(f,
	        "{\"format\": \"stagecut-partition/1\", \"k\": 2, \"stages\": {\"nosuchop\": 1}}");
	fclose(f);
	cr_assert_eq(sc_part_read(path, g, &k2, back, &err), SC_ERR_INPUT);
	cr_assert(strstr(err.msg, "nosuchop") && strstr(err.msg, path), "%s", err.msg);

	unlink(path);
	rmdir(dir);
	sc_costs_free(c);
	free(stage);
	free(back);
	sc_graph_free(g);
}

/* JSON text escapes DEL and the C1 controls (U+0080..U+009F, both ends)
 * but not U+00A0, whose first byte is the same, nor ASCII. */
Test(partition, json_text_escapes_the_controls_a_terminal_acts_on)
{
	json_t *v = json_string("a\x7f"
	                        "b\xc2\x80"
	                        "c\xc2\x9f"
	                        "d\xc2\xa0"
	                        "e\xc2\x9b");
	cr_assert_not_null(v);
	char *text = sc_json_dumps(v, JSON_ENCODE_ANY);
	cr_assert_str_eq(text, "\"a\\u007fb\\u0080c\\u009fd\xc2\xa0"
	                       "e\\u009b\"");
	json_t *back = json_loads(text, JSON_DECODE_ANY, NULL);
	cr_assert(back && json_equal(back, v), "reads back to the same string");
	json_decref(back);
	free(text);
	json_decref(v);
}
