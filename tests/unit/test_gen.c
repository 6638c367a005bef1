/*
 * test_gen.c - the graph generator (core/gen.c): REGAL-style graphs repeat
 * for a seed and have the sizes asked for; bad specs are errors, and the
 * layered families (transformer, resnet) have their documented sizes.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gen.h"
#include "tests/support.h"

Test(gen, regal_graphs_are_deterministic_and_sized)
{
	sc_graph *a = sc_gen_regal(200, 9, SC_GEN_ANY, 4, NULL);
	sc_graph *b = sc_gen_regal(200, 9, SC_GEN_ANY, 4, NULL);
	sc_graph *c = sc_gen_regal(200, 10, SC_GEN_ER, 4, NULL);
	cr_assert(a && b && c);
	cr_assert_eq(a->n, 200);
	cr_assert_eq(a->m, b->m);
	cr_assert_eq(a->settings.k, 4);
	double mean = 0;
	bool same = true;
	for (int v = 0; v < a->n; v++) {
		cr_assert_eq(a->work[v], b->work[v]);
		cr_assert_eq(a->out[v], b->out[v]);
		same &= a->out[v] == c->out[v];
		mean += a->out[v] / a->n;
		cr_assert_geq(a->work[v], 0);
	}
	cr_assert_not(same, "another seed gives other tensors");
	cr_assert(fabs(mean - 50) < 3, "tensor sizes ~ N(50, 10): mean %g", mean);
	sc_graph_free(a);
	sc_graph_free(b);
	sc_graph_free(c);
}

Test(gen, a_spec_without_one_size_is_an_error_not_a_graph)
{
	static const char *const names[] = {"any", "er", "ba", "ws", "transformer", "resnet"};
	for (int i = 0; i < 6; i++) {
		sc_gen_model m;
		cr_assert(sc_gen_model_parse(names[i], &m), "%s", names[i]);
		cr_assert_str_eq(sc_gen_model_name(m), names[i]);
		cr_assert_eq(sc_gen_model_is_regal(m), i < 4, "%s", names[i]);
	}
	sc_gen_model m;
	cr_assert_not(sc_gen_model_parse("bert", &m));
	cr_assert_not(sc_gen_model_parse("", &m));
	static const struct {
		sc_gen_model model;
		int nodes, layers;
		const char *says;
	} bad[] = {
	        {SC_GEN_ER, 0, 0, "--nodes"},
	        {SC_GEN_ANY, 10, 3, "--layers is for"},
	        {SC_GEN_TRANSFORMER, 0, 0, "--layers L or --nodes N"},
	        {SC_GEN_TRANSFORMER, 30, 2, "not both"},
	        {SC_GEN_TRANSFORMER, 0, SC_GEN_MAX_LAYERS + 1, "from 1 to"},
	        {SC_GEN_RESNET, 0, 12, "from 14 to"},
	        {SC_GEN_RESNET, 0, SC_GEN_MAX_LAYERS + 1, "from 14 to"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		sc_gen_spec spec;
		sc_gen_spec_init(&spec);
		spec.model = bad[i].model;
		spec.nodes = bad[i].nodes;
		spec.layers = bad[i].layers;
		sc_error err;
		sc_error_clear(&err);
		cr_assert_null(sc_gen(&spec, &err), "bad spec %zu", i);
		cr_assert_eq(err.code, SC_ERR_INPUT, "bad spec %zu", i);
		cr_assert(strstr(err.msg, bad[i].says), "bad spec %zu: %s", i, err.msg);
	}
	/* sc_gen passes REGAL specs to sc_gen_regal unchanged */
	sc_gen_spec spec;
	sc_gen_spec_init(&spec);
	spec.model = SC_GEN_WS;
	spec.nodes = 40;
	spec.seed = 7;
	spec.k = 3;
	sc_graph *a = sc_gen(&spec, NULL), *b = sc_gen_regal(40, 7, SC_GEN_WS, 3, NULL);
	cr_assert(a && b);
	cr_assert_str_eq(a->name, "regal-ws-40-7");
	cr_assert_eq(a->m, b->m);
	for (int v = 0; v < a->n; v++)
		cr_assert(a->work[v] == b->work[v] && a->out[v] == b->out[v]);
	sc_graph_free(a);
	sc_graph_free(b);
	/* the layered families: their size, k and the interconnect's bandwidth */
	spec.model = SC_GEN_TRANSFORMER;
	spec.nodes = 0;
	spec.layers = 5;
	a = sc_gen(&spec, NULL);
	cr_assert(a);
	cr_assert_str_eq(a->name, "transformer-5-7");
	cr_assert_eq(a->n, 14 * 5 + 2);
	cr_assert_eq(a->settings.k, 3);
	cr_assert_eq(a->settings.bandwidth, SC_GEN_LINK_BYTES_PER_NS);
	sc_graph_free(a);
	spec.model = SC_GEN_RESNET;
	spec.layers = 101;
	a = sc_gen(&spec, NULL);
	cr_assert(a);
	cr_assert_str_eq(a->name, "resnet-101-7");
	cr_assert_eq(a->n, 10 * 33 + 14);
	sc_graph_free(a);
}
