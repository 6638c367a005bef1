/*
 * test_load.c - the loaders: the DOT and msr-fiddle JSON forms of one graph
 * load equal; the msr-fiddle samples load with the counts and totals of
 * their files; settings and initial stages come through.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/formats/load.h"
#include "tests/support.h"

Test(load, dot_and_json_forms_are_equal)
{
	sc_graph *d = ts_load("tests/data/pair.dot"), *j = ts_load("tests/data/pair.json");
	cr_assert_eq(d->n, j->n);
	cr_assert_eq(d->m, j->m);
	cr_assert_eq(d->settings.k, j->settings.k);
	cr_assert_eq(d->settings.memory, j->settings.memory);
	cr_assert_eq(d->settings.policy, j->settings.policy);
	cr_assert_eq(d->settings.bandwidth, j->settings.bandwidth);
	for (int v = 0; v < d->n; v++) {
		int w = sc_graph_find(j, d->op_name[v]);
		cr_assert_geq(w, 0, "op %s", d->op_name[v]);
		cr_assert_eq(d->work[v], j->work[w], "%s work", d->op_name[v]);
		cr_assert_eq(d->param[v], j->param[w], "%s param", d->op_name[v]);
		cr_assert_eq(d->out[v], j->out[w], "%s out", d->op_name[v]);
		cr_assert_eq(sc_graph_outdeg(d, v), sc_graph_outdeg(j, w));
		for (int i = d->succ_off[v]; i < d->succ_off[v + 1]; i++) {
			int t = sc_graph_find(j, d->op_name[d->succ[i]]);
			bool found = false;
			for (int x = j->succ_off[w]; x < j->succ_off[w + 1]; x++)
				found |= j->succ[x] == t;
			cr_assert(found, "edge %s -> %s", d->op_name[v], d->op_name[d->succ[i]]);
		}
		/* same co-location relation (a one-op group is no constraint) */
		for (int u = 0; u < d->n; u++) {
			if (u == v)
				continue;
			int x = sc_graph_find(j, d->op_name[u]);
			bool same_d = d->group[v] >= 0 && d->group[v] == d->group[u];
			bool same_j = j->group[w] >= 0 && j->group[w] == j->group[x];
			cr_assert_eq(same_d, same_j, "%s and %s", d->op_name[v], d->op_name[u]);
		}
	}
	sc_graph_free(d);
	sc_graph_free(j);
}

static const char *const fiddle[] = {
        "samples/msr-fiddle/layer/bert24_inference.json",
        "samples/msr-fiddle/layer/resnet50_inference.json",
        "samples/msr-fiddle/operator/bert_l-3_inference.json",
        "samples/msr-fiddle/operator/bert_l-6_inference.json",
        "samples/msr-fiddle/operator/resnet50_inference.json",
};

Test(load, fiddle_samples_match_their_files)
{
	for (size_t i = 0; i < sizeof fiddle / sizeof *fiddle; i++) {
		sc_graph *g = ts_load(fiddle[i]);
		json_error_t jerr;
		json_t *root = json_load_file(fiddle[i], 0, &jerr);
		cr_assert(root);
		json_t *nodes = json_object_get(root, "nodes"),
		       *edges = json_object_get(root, "edges");
		cr_assert_eq((size_t)g->n, json_array_size(nodes));
		cr_assert_eq((size_t)g->m, json_array_size(edges), "%s has no duplicate edges",
		             fiddle[i]);
		cr_assert_eq(g->settings.policy, SC_MEM_HARD);
		cr_assert_eq(g->settings.memory,
		             json_number_value(json_object_get(root, "maxSizePerFPGA")));
		size_t idx;
		json_t *nd;
		json_array_foreach(nodes, idx, nd)
		{
			int v = sc_graph_find(g, json_string_value(json_object_get(nd, "name")));
			cr_assert_geq(v, 0);
			cr_assert_eq(g->work[v],
			             json_number_value(json_object_get(nd, "fpgaLatency")));
			cr_assert_eq(g->param[v], json_number_value(json_object_get(nd, "size")));
			/* out is the cost of every edge leaving the node, 0 for sinks */
			json_int_t id = json_integer_value(json_object_get(nd, "id"));
			size_t e;
			json_t *ed;
			double out = 0;
			json_array_foreach(edges, e, ed) if (json_integer_value(json_object_get(
			                                             ed, "sourceId")) == id) out =
			        json_number_value(json_object_get(ed, "cost"));
			cr_assert_eq(g->out[v], out, "%s out", g->op_name[v]);
		}
		json_decref(root);
		sc_graph_free(g);
	}
}

Test(load, dot_settings_and_stages)
{
	sc_graph *g = ts_load("samples/small/residual.dot");
	cr_assert_eq(g->settings.k, 3);
	cr_assert_eq(g->settings.bandwidth, 2);
	cr_assert_eq(g->settings.memory, 100);
	cr_assert_eq(g->settings.policy, SC_MEM_HARD);
	cr_assert_null(g->init_stage);
	cr_assert_eq(g->ngroups, 1);
	cr_assert_str_eq(g->group_name[0], "matmul");
	sc_graph_free(g);

	g = ts_load("samples/paper/figure2.dot");
	cr_assert(g->init_stage);
	cr_assert_eq(g->init_stage[sc_graph_find(g, "a")], 0);
	cr_assert_eq(g->init_stage[sc_graph_find(g, "x")], 2);
	cr_assert(isinf(g->settings.memory));
	cr_assert_eq(g->settings.policy, SC_MEM_OVERFLOW);
	cr_assert_eq(g->settings.bandwidth, 1);
	sc_graph_free(g);
}

Test(load, weights_parse_strictly)
{
	double x;
	cr_assert(sc_parse_weight("0", &x) && x == 0);
	cr_assert(sc_parse_weight(" 2.5e3 ", &x) && x == 2500);
	cr_assert(sc_parse_weight(".5", &x) && x == 0.5);
	const char *bad[] = {"",     " ",     "-1",  "nan", "NaN",  "inf",
	                     "-0.5", "1e999", "abc", "1x",  "0x10", NULL};
	for (int i = 0; bad[i]; i++)
		cr_assert_not(sc_parse_weight(bad[i], &x), "'%s' accepted", bad[i]);
}

Test(load, errors_name_the_file)
{
	sc_error err;
	cr_assert_null(sc_load("tests/data/no-such-file.dot", &err));
	cr_assert_eq(err.code, SC_ERR_IO);
	cr_assert(strstr(err.msg, "tests/data/no-such-file.dot"), "%s", err.msg);
	cr_assert_null(sc_load("tests/data", &err));
	cr_assert(strstr(err.msg, "directory"), "%s", err.msg);
}

/* Names must be UTF-8 as JSON (jansson) takes it: no overlong forms,
 * surrogates or code points above U+10FFFF. */
Test(load, utf8_validity_is_what_json_accepts)
{
	static const struct {
		const char *text;
		bool valid;
		size_t bad;
	} cases[] = {
	        {"", true, 0},
	        {"plain_op/1", true, 0},
	        {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", true, 0}, /* é € emoji */
	        {"esc\x1b[31m\ttab", true, 0},  /* control bytes are UTF-8; printing escapes them */
	        {"caf\xe9", false, 3},          /* Latin-1 */
	        {"\xc0\xaf", false, 0},         /* overlong '/' */
	        {"x\xe0\x80\xaf", false, 1},    /* overlong, 3 bytes */
	        {"x\xed\xa0\x80", false, 1},    /* a surrogate */
	        {"\xf4\x90\x80\x80", false, 0}, /* above U+10FFFF */
	        {"ab\xe2\x82", false, 2},       /* cut short */
	        {"\xff", false, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t bad = 99;
		bool ok = sc_utf8_valid(cases[i].text, &bad);
		cr_assert_eq(ok, cases[i].valid, "case %zu", i);
		if (!ok)
			cr_assert_eq(bad, cases[i].bad, "case %zu: offset %zu", i, bad);
		/* and jansson agrees, so every name that loads can be written */
		json_t *s = json_string(cases[i].text);
		cr_assert_eq(s != NULL, cases[i].valid, "case %zu: jansson disagrees", i);
		json_decref(s);
	}
}

/* A DOT op name that is not UTF-8 is refused at load, naming it escaped. */
Test(load, dot_name_not_utf8_is_refused)
{
	sc_error err;
	sc_graph *g = sc_load("tests/bad/dot_name_not_utf8.dot", &err);
	cr_assert_null(g);
	cr_assert_eq(err.code, SC_ERR_INPUT);
	cr_assert(strstr(err.msg, "tests/bad/dot_name_not_utf8.dot: node 'caf\xe9': the name is "
	                          "not valid UTF-8 (byte 0xe9 at offset 3)"),
	          "%s", err.msg);
}

/* isBackwardNode (a boolean or a number) marks the backward ops;
 * inference graphs have none, and their order arcs are their edges. */
Test(load, backward_ops_are_counted)
{
	sc_graph *g = ts_load("tests/data/fiddle_training.json");
	cr_assert_eq(g->n, 4);
	cr_assert_eq(g->backward_ops, 2);
	cr_assert(g->backward[sc_graph_find(g, "attn_grad")]);
	cr_assert(g->backward[sc_graph_find(g, "embed_grad")]);
	cr_assert(!g->backward[sc_graph_find(g, "attn")]);
	cr_assert_eq(g->orphans, 0);
	cr_assert_eq(g->m_order, 1); /* embed -> attn; the rest is free */
	sc_graph_free(g);
	g = ts_load("samples/msr-fiddle/layer/bert24_inference.json");
	cr_assert_eq(g->backward_ops, 0);
	sc_graph_free(g);
	g = ts_load("tests/data/pair.dot");
	cr_assert_eq(g->backward_ops, 0);
	cr_assert_null(g->backward);
	cr_assert_eq(g->m_order, g->m);
	sc_graph_free(g);
}

/* A graph file whose name is not UTF-8 loads; its name (for partition files
 * and JSON) is the file name with the odd bytes as \xHH. */
Test(load, graph_name_not_utf8_is_escaped)
{
	char *e = sc_utf8_escape("caf\xe9-\xc3\xa9-\xed\xa0\x80.dot");
	cr_assert_str_eq(e, "caf\\xe9-\xc3\xa9-\\xed\\xa0\\x80.dot");
	free(e);
	char dir[64], path[128];
	ts_make_dir(dir, "sc-load-name");
	snprintf(path, sizeof path, "%s/caf\xe9.dot", dir);
	FILE *f = fopen(path, "w");
	cr_assert(f);
	fputs("digraph g { a -> b; }\n", f);
	fclose(f);
	sc_graph *g = ts_load(path);
	cr_assert_str_eq(g->name, "caf\\xe9.dot");
	cr_assert_str_eq(g->source, path);
	sc_graph_free(g);
	ts_remove_dir(dir);
}
