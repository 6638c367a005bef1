/*
 * fuzz_partition.c - libFuzzer harness for partition files (sc_part_read in
 * core/formats/partition_file.c: the JSON reader, and the DOT reader with
 * the DOT graph loader under it), read against two fixed graphs loaded
 * once: paper 000's Figure 2 (samples/paper/figure2.dot, the graph
 * tests/bad/part_*.json and part_dot_*.dot are written for) and
 * samples/small/residual.dot (it has a group, so group violations are
 * reachable).  Their text is embedded so the harness does not depend on the
 * working directory.  The input is a file named .json: the registry reads it
 * as DOT when it begins with a DOT keyword or comment (the seeds *.dot), as
 * JSON otherwise.  A partition that reads is checked, described and, when
 * valid, evaluated, as `stagecut eval` does.
 */
#define _GNU_SOURCE
#include "tests/fuzz/fuzz_common.h"

#include "core/formats/load.h"
#include "core/fleet.h"
#include "core/formats/partition_file.h"

#define NGRAPHS 2
/* loaded on the first input and kept for the life of the process */
static sc_graph *graphs[NGRAPHS];

static sc_graph *load_fixture(const char *name, const char *text)
{
	char path[PATH_MAX];
	fuzz_path(name, path, sizeof path);
	fuzz_write(path, text, strlen(text));
	sc_error err;
	sc_error_clear(&err);
	sc_graph *g = sc_load(path, &err);
	if (!g) {
		fprintf(stderr, "fuzz_partition: %s\n", err.msg);
		abort();
	}
	unlink(path);
	return g;
}

static void free_fixtures(void)
{
	for (int i = 0; i < NGRAPHS; i++)
		sc_graph_free(graphs[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[PATH_MAX];
	if (!path[0]) {
		fuzz_path("input.json", path, sizeof path);
		graphs[0] = load_fixture("figure2.dot", fuzz_figure2_dot);
		graphs[1] = load_fixture("residual.dot", fuzz_residual_dot);
		atexit(free_fixtures);
	}
	fuzz_write(path, data, size);
	for (int i = 0; i < NGRAPHS; i++) {
		const sc_graph *g = graphs[i];
		int *stage = malloc((size_t)g->n * sizeof *stage);
		FUZZ_CHECK(stage != NULL);
		int k = -1;
		sc_error err;
		sc_error_clear(&err);
		if (sc_part_read(path, g, &k, stage, &err) == SC_OK) {
			FUZZ_CHECK(k >= 1 && k <= 1000000);
			for (int v = 0; v < g->n; v++)
				FUZZ_CHECK(stage[v] >= -1000001 && stage[v] < 1000000);
			fuzz_use_partition(g, stage, k);
		} else {
			fuzz_check_error(&err);
		}
		/* the reader with devices: the file's own kinds, every one of
		 * them a kind of the fleet it makes, within the stages */
		sc_fleet f;
		int *kind = NULL;
		sc_error_clear(&err);
		sc_status st =
		        sc_part_load_kinds(path, g, NULL, 0, &k, stage, &f, &kind, NULL, &err);
		if (st == SC_OK || st == SC_ERR_INVALID) {
			FUZZ_CHECK(f.n >= 1 && f.n <= SC_KINDS_MAX);
			for (int s = 0; kind && s < k; s++)
				FUZZ_CHECK(kind[s] >= 0 && kind[s] < f.n);
		}
		if (st != SC_OK)
			fuzz_check_error(&err);
		free(kind);
		free(stage);
	}
	return 0;
}
