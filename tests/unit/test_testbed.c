/*
 * test_testbed.c - solvers/testbed.c without the command: configuration
 * parsing, the records file (reading, a torn last line, appending), the
 * resume plan, selecting a configuration's records, the tables computed
 * from hand-made records, and one small instance run end to end.
 *
 * Hand-made ratios are powers of two; geometric means go through log and
 * exp, so they are compared to 1e-12.
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "solvers/testbed.h"
#include "tests/support.h"

static json_t *record(const char *text)
{
	json_error_t je;
	json_t *v = json_loads(text, 0, &je);
	cr_assert(v, "bad test record: %s", je.text);
	return v;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	cr_assert(f);
	fputs(text, f);
	fclose(f);
}

Test(testbed, methods_and_ks_parse)
{
	sc_testbed_config c;
	sc_error err;
	sc_testbed_config_init(&c);
	cr_assert_eq(sc_testbed_parse_methods("brkga-100,dpl,random-7", &c, &err), SC_OK, "%s",
	             err.msg);
	cr_assert_eq(c.nm, 3);
	cr_assert_str_eq(c.m[0].name, "brkga-100");
	cr_assert_str_eq(c.m[0].base, "brkga");
	cr_assert_eq(c.m[0].evals, 100);
	cr_assert_eq(c.m[1].evals, 0);
	cr_assert_eq(c.m[2].evals, 7);
	cr_assert_eq(sc_testbed_parse_methods("refine", &c, &err), SC_ERR_INPUT);
	cr_assert(strstr(err.msg, "--methods: unknown method 'refine'"), "%s", err.msg);
	cr_assert_eq(sc_testbed_parse_methods("brkga-0", &c, &err), SC_ERR_INPUT);
	cr_assert_eq(sc_testbed_parse_ks("2,4,8", &c, &err), SC_OK);
	cr_assert_eq(c.nk, 3);
	cr_assert_eq(c.k[2], 8);
	cr_assert_eq(sc_testbed_parse_ks("2,x", &c, &err), SC_ERR_INPUT);
	cr_assert(strstr(err.msg, "-k: '2,x' is not a list"), "%s", err.msg);
	c.time_limit = 30;
	c.seed = 5;
	sc_testbed_config_key(&c, NULL, "simple");
	cr_assert_str_eq(c.key,
	                 "methods=" SC_TESTBED_METHODS ";rungs=simple;instance-time=30;seed=5");
}

Test(testbed, records_read_skips_a_torn_last_line_and_rejects_junk)
{
	char dir[64], path[128];
	ts_make_dir(dir, "sc-testbed");
	snprintf(path, sizeof path, "%s/r.jsonl", dir);
	write_file(path, "{\"graph\": \"a.dot\", \"k\": 2, \"config\": \"x\"}\n"
	                 "\n"
	                 "{\"graph\": \"b.dot\", \"k\": 4, \"config\": \"x\"}\n"
	                 "{\"graph\": \"c.dot\", \"k\"");
	sc_testbed_records rs = {0};
	sc_error err;
	cr_assert_eq(sc_testbed_read(path, true, &rs, &err), SC_OK, "%s", err.msg);
	cr_assert_eq(rs.n, 2);
	sc_testbed_records_fini(&rs);

	write_file(path, "{\"graph\": \"a.dot\", \"k\": 2, \"config\": \"x\"}\n[1]\n");
	cr_assert_eq(sc_testbed_read(path, true, &rs, &err), SC_ERR_INPUT);
	cr_assert(strstr(err.msg, "r.jsonl:2: not a stagecut bench record"), "%s", err.msg);
	sc_testbed_records_fini(&rs);

	snprintf(path, sizeof path, "%s/missing.jsonl", dir);
	cr_assert_eq(sc_testbed_read(path, false, &rs, &err), SC_OK);
	cr_assert_eq(rs.n, 0);
	cr_assert_eq(sc_testbed_read(path, true, &rs, &err), SC_ERR_IO);
	ts_remove_dir(dir);
}

Test(testbed, appended_records_read_back)
{
	char dir[64], path[128];
	ts_make_dir(dir, "sc-testbed");
	snprintf(path, sizeof path, "%s/r.jsonl", dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	cr_assert(fd >= 0);
	sc_error err;
	json_t *a = record("{\"graph\": \"a.dot\", \"k\": 2, \"config\": \"x\", \"upper\": 0.1}");
	cr_assert_eq(sc_testbed_append(fd, a, &err), SC_OK);
	cr_assert_eq(sc_testbed_append(fd, a, &err), SC_OK);
	close(fd);
	sc_testbed_records rs = {0};
	cr_assert_eq(sc_testbed_read(path, true, &rs, &err), SC_OK, "%s", err.msg);
	cr_assert_eq(rs.n, 2);
	cr_assert(json_equal(rs.r[1], a));
	json_decref(a);
	sc_testbed_records_fini(&rs);
	ts_remove_dir(dir);
}

/* The resume logic: instances recorded under the same key are skipped,
 * under another key they run again; --part keeps every Nth. */
Test(testbed, plan_resumes_and_splits_into_parts)
{
	sc_testbed_config c;
	sc_error err;
	sc_testbed_config_init(&c);
	cr_assert_eq(sc_testbed_parse_ks("2,4", &c, &err), SC_OK);
	snprintf(c.key, sizeof c.key, "K");
	sc_testbed_files files = {0};
	char **paths = malloc(2 * sizeof *paths);
	cr_assert(paths);
	paths[0] = strdup("a.dot");
	paths[1] = strdup("b.dot");
	files = (sc_testbed_files){.path = paths, .n = 2, .cap = 2};
	sc_testbed_records done = {0};
	sc_testbed_push(&done, record("{\"graph\": \"a.dot\", \"k\": 4, \"config\": \"K\"}"), &err);
	sc_testbed_push(&done, record("{\"graph\": \"b.dot\", \"k\": 2, \"config\": \"other\"}"),
	                &err);
	sc_testbed_instance todo[4];
	int skipped;
	int n = sc_testbed_plan(&files, &c, 0, 0, &done, todo, &skipped);
	cr_assert_eq(n, 3);
	cr_assert_eq(skipped, 1);
	cr_assert_str_eq(todo[0].path, "a.dot");
	cr_assert_eq(todo[0].k, 2);
	cr_assert_str_eq(todo[1].path, "b.dot");
	cr_assert_eq(todo[1].k, 2);
	cr_assert_eq(todo[2].k, 4);
	/* part 2 of 2: instances 1 and 3 (a.dot k 4, recorded; b.dot k 4) */
	n = sc_testbed_plan(&files, &c, 2, 2, &done, todo, &skipped);
	cr_assert_eq(n, 1);
	cr_assert_eq(skipped, 1);
	cr_assert_str_eq(todo[0].path, "b.dot");
	cr_assert_eq(todo[0].k, 4);

	sc_testbed_records mine = {0};
	cr_assert_eq(sc_testbed_select(&done, "K", &files, &mine, &err), SC_OK);
	cr_assert_eq(mine.n, 1);
	cr_assert_str_eq(json_string_value(json_object_get(mine.r[0], "graph")), "a.dot");
	sc_testbed_records_fini(&mine);
	sc_testbed_records_fini(&done);
	sc_testbed_files_fini(&files);
}

Test(testbed, tables_from_hand_made_records)
{
	sc_testbed_records rs = {0};
	sc_error err;
	/* k 2: rung simple at 1/2 and 1/8 of upper (geomean 1/4); method m at
	 * 2 and 8 times simple (geomean 4); k 4: one record, m refused */
	sc_testbed_push(&rs,
	                record("{\"graph\": \"a\", \"k\": 2, \"config\": \"K\", \"simple\": 1,"
	                       " \"upper\": 2, \"lower\": 2, \"proven_optimal\": true,"
	                       " \"rungs\": {\"simple\": {\"value\": 1, \"seconds\": 1}},"
	                       " \"methods\": {\"m\": {\"bottleneck\": 2, \"seconds\": 3}}}"),
	                &err);
	sc_testbed_push(&rs,
	                record("{\"graph\": \"b\", \"k\": 2, \"config\": \"K\", \"simple\": 1,"
	                       " \"upper\": 8, \"lower\": 4, \"proven_optimal\": false,"
	                       " \"rungs\": {\"simple\": {\"value\": 1, \"seconds\": 2}},"
	                       " \"methods\": {\"m\": {\"bottleneck\": 8, \"seconds\": 5}}}"),
	                &err);
	sc_testbed_push(&rs,
	                record("{\"graph\": \"a\", \"k\": 4, \"config\": \"K\", \"simple\": 1,"
	                       " \"upper\": 1, \"lower\": 1, \"proven_optimal\": true,"
	                       " \"rungs\": {\"simple\": {\"value\": 1, \"seconds\": 4}},"
	                       " \"methods\": {\"m\": {\"bottleneck\": null, \"refused\": \"no\"},"
	                       " \"n\": {\"bottleneck\": 1, \"seconds\": 1}}}"),
	                &err);
	sc_testbed_tables t;
	sc_testbed_tables_compute(&rs, &t);
	cr_assert_eq(t.records, 3);
	cr_assert_eq(t.nk, 2);
	cr_assert_eq(t.ks[0], 2);
	cr_assert_eq(t.ks[1], 4);
	cr_assert_eq(t.nr, 2);
	cr_assert_str_eq(t.rungs[0].name, "simple");
	cr_assert(fabs(t.rungs[0].ratio[0] - 0.25) < 1e-12, "%.17g", t.rungs[0].ratio[0]);
	cr_assert(t.rungs[0].ratio[1] == 1);
	cr_assert(t.rungs[0].median_seconds == 2);
	/* the best row: each record's lower / upper (1 and 1/2 at k 2, 1 at
	 * k 4), not any rung's */
	cr_assert_str_eq(t.rungs[1].name, "best");
	cr_assert(fabs(t.rungs[1].ratio[0] - sqrt(0.5)) < 1e-12, "%.17g", t.rungs[1].ratio[0]);
	cr_assert(t.rungs[1].ratio[1] == 1);
	cr_assert_eq(t.rungs[1].instances, 3);
	cr_assert(isnan(t.rungs[1].median_seconds));
	cr_assert_eq(t.nm, 2);
	cr_assert_str_eq(t.methods[0].name, "m");
	cr_assert(fabs(t.methods[0].ratio[0] - 4) < 1e-12, "%.17g", t.methods[0].ratio[0]);
	cr_assert(isnan(t.methods[0].ratio[1]));
	cr_assert_eq(t.methods[0].instances, 2);
	cr_assert_eq(t.usable, 3);
	cr_assert(t.methods[0].median_seconds == 4);
	cr_assert_str_eq(t.methods[1].name, "n");
	cr_assert_eq(t.proven[0], 1);
	cr_assert_eq(t.of[0], 2);
	cr_assert_eq(t.proven_all, 2);
	cr_assert_eq(t.of_all, 3);

	json_t *j = sc_testbed_tables_json(&t);
	cr_assert(j);
	cr_assert_eq(json_integer_value(json_object_get(j, "instances")), 3);
	json_t *m = json_object_get(json_object_get(j, "table2"), "m");
	cr_assert(fabs(json_real_value(json_object_get(m, "2")) - 4) < 1e-12);
	cr_assert(json_is_null(json_object_get(m, "4")));
	cr_assert_eq(json_integer_value(json_object_get(m, "instances")), 2);
	json_t *p4 = json_object_get(json_object_get(j, "proven_optimal"), "4");
	cr_assert_eq(json_integer_value(json_object_get(p4, "proven")), 1);
	json_decref(j);
	sc_testbed_records_fini(&rs);
}

static bool stop_now(void *ctx)
{
	(void)ctx;
	return true;
}

Test(testbed, an_instance_runs_and_a_stop_drops_it, .timeout = 60)
{
	sc_testbed_config c;
	sc_error err;
	sc_testbed_config_init(&c);
	cr_assert_eq(sc_testbed_parse_methods("dpl,exact", &c, &err), SC_OK);
	c.rungs = 1u << SC_RUNG_SIMPLE;
	sc_testbed_config_key(&c, "dpl,exact", "simple");
	sc_testbed_instance inst = {"samples/paper/lemma_b2.dot", 4};
	json_t *rec = sc_testbed_run(&inst, &c, 1, NULL, NULL, NULL);
	cr_assert(rec);
	cr_assert_null(json_object_get(rec, "error"));
	cr_assert_eq(json_integer_value(json_object_get(rec, "k")), 4);
	cr_assert(json_is_object(json_object_get(json_object_get(rec, "methods"), "exact")));
	json_t *simple = json_object_get(json_object_get(rec, "rungs"), "simple");
	cr_assert_str_eq(json_string_value(json_object_get(simple, "status")), "optimal");
	/* the exact DP proves the optimum (lemma_b2: OPT = 1 at k = 4) */
	cr_assert(json_real_value(json_object_get(rec, "upper")) == 1);
	cr_assert(json_is_true(json_object_get(rec, "proven_optimal")));
	json_decref(rec);

	cr_assert_null(sc_testbed_run(&inst, &c, 1, stop_now, NULL, NULL));

	inst.path = "tests/bad/no-such-graph.dot";
	rec = sc_testbed_run(&inst, &c, 1, NULL, NULL, NULL);
	cr_assert(strstr(json_string_value(json_object_get(rec, "error")), "cannot open"));
	json_decref(rec);
}
