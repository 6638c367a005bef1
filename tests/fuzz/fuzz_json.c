/*
 * fuzz_json.c - libFuzzer harness for the msr-fiddle JSON loader
 * (core/formats/load_fiddle.c through sc_load, the input being a file named .json).
 * A graph that loads must keep graph.h's invariants; each one is then
 * evaluated as a single stage and as a topological split into its k (or 2)
 * stages, which exercises the costs of a JSON graph's hard memory limit.
 */
#define _GNU_SOURCE
#include "tests/fuzz/fuzz_common.h"

#include "core/formats/load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[PATH_MAX];
	if (!path[0])
		fuzz_path("input.json", path, sizeof path);
	fuzz_write(path, data, size);
	sc_error err;
	sc_error_clear(&err);
	sc_graph *g = sc_load(path, &err);
	if (!g) {
		fuzz_check_error(&err);
		return 0;
	}
	fuzz_check_graph(g);
	int *stage = calloc((size_t)(g->n ? g->n : 1), sizeof *stage);
	FUZZ_CHECK(stage != NULL);
	fuzz_use_partition(g, stage, 1);
	/* contiguous runs of the topological order: always valid when the
	 * graph has no groups, and a group split otherwise */
	int k = g->settings.k >= 2 && g->settings.k <= FUZZ_MAX_EVAL_K ? g->settings.k : 2;
	for (int i = 0; i < g->n; i++)
		stage[g->topo[i]] = (int)((long long)i * k / g->n);
	fuzz_use_partition(g, stage, k);
	free(stage);
	sc_graph_free(g);
	return 0;
}
