/*
 * test_ideals.c - the exact dynamic program over ideals (ideals.c, 001
 * section 5.1.1): it reproduces the 30 published optima of the msr-fiddle
 * graphs (samples/msr-fiddle/REFERENCE.tsv) and proves them.  Its agreement
 * with brute force on random graphs is checked with every other method in
 * test_search.c.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/search.h"
#include "tests/support.h"

Test(ideals, exact_reproduces_the_published_optima, .timeout = 120)
{
	FILE *f = fopen("samples/msr-fiddle/REFERENCE.tsv", "r");
	cr_assert(f);
	char line[512], path[300], last[300] = "";
	int rows = 0;
	sc_graph *g = NULL;
	int *stage = NULL;
	cr_assert(fgets(line, sizeof line, f)); /* header */
	while (fgets(line, sizeof line, f)) {
		char graph[256];
		int k;
		double want, secs;
		cr_assert_eq(sscanf(line, "%255s %d %lf %lf", graph, &k, &want, &secs), 4, "%s",
		             line);
		snprintf(path, sizeof path, "samples/msr-fiddle/%s", graph);
		if (strcmp(path, last) != 0) {
			sc_graph_free(g);
			free(stage);
			g = ts_load(path);
			stage = malloc((size_t)g->n * sizeof *stage);
			snprintf(last, sizeof last, "%s", path);
		}
		bool optimal;
		double got = ts_search(g, k, "exact", 1, 0, stage, &optimal);
		cr_assert(optimal);
		cr_assert(fabs(got - want) <= 1e-9 * want, "%s k=%d: exact %.17g, published %.17g",
		          graph, k, got, want);
		cr_assert(fabs(ts_objective(g, k, stage) - got) <= 1e-12 * got);
		rows++;
	}
	fclose(f);
	cr_assert_eq(rows, 30);
	sc_graph_free(g);
	free(stage);
}
