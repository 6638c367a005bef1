/*
 * test_wbview.c - the workbench's view logic that needs no terminal: the
 * node browser's filter and orders, checked against a plain sort on random
 * graphs and partitions.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/simple.h"
#include "tests/support.h"
#include "tui/wb/wb.h"

Test(wbview, node_orders_and_filter_match_a_plain_sort)
{
	ts_rng r = {31};
	for (int t = 0; t < 100; t++) {
		ts_graph_spec spec = {
		        .n = 1 + ts_below(&r, 40), .edge_p = 0.1, .integer_weights = true};
		sc_settings_init(&spec.settings);
		sc_graph *g = ts_random_graph(&r, &spec);
		int k = 1 + ts_below(&r, 6);
		int *stage = malloc((size_t)g->n * sizeof *stage),
		    *out = malloc((size_t)g->n * sizeof *out);
		sc_greedy_split(g, k, stage, NULL);
		int *by_work = wb_ops_by_work(g);
		const char *filter = t % 3 == 0 ? "1" : t % 3 == 1 ? "" : NULL;
		for (int sort = 0; sort < 3; sort++) {
			int m = wb_order_ops(g, stage, k, filter, sort, by_work, out);
			int want = 0;
			for (int v = 0; v < g->n; v++)
				want += !filter || !*filter ||
				        strstr(g->op_name[v], filter) != NULL;
			cr_assert_eq(m, want, "every matching op once");
			for (int i = 0; i < m; i++)
				cr_assert(!filter || !*filter ||
				          strstr(g->op_name[out[i]], filter));
			for (int i = 0; i + 1 < m; i++) {
				int a = out[i], b = out[i + 1];
				int byname = strcmp(g->op_name[a], g->op_name[b]);
				cr_assert_neq(a, b);
				if (sort == 0)
					cr_assert(stage[a] < stage[b] ||
					                  (stage[a] == stage[b] && byname < 0),
					          "by stage, then name");
				else if (sort == 1)
					cr_assert(g->work[a] > g->work[b] ||
					                  (g->work[a] == g->work[b] && byname < 0),
					          "by decreasing work, then name");
				else
					cr_assert_lt(byname, 0, "by name");
			}
		}
		free(by_work);
		free(stage);
		free(out);
		sc_graph_free(g);
	}
}
