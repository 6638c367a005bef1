/*
 * fuzz_dot.c - libFuzzer harness for the DOT loader (core/formats/load_dot.c through
 * sc_load, as the program calls it: the input is a file named .dot, so the
 * DOT loader is chosen and sc_load's own checks for empty, blank and binary
 * files run first).  A graph that loads must keep graph.h's invariants, and
 * its own stages (the stage attribute), when present, are checked and
 * evaluated as `stagecut eval` would.
 *
 * cgraph's parser keeps global state between reads, so after every input two
 * small known files (canaries) are loaded too: a graph that must come out
 * whole, and a syntax error that must be reported with its own line and no
 * other file's name.  An input that leaves the parser in a bad state for the
 * next file is a finding even though it crashes nothing.
 */
#define _GNU_SOURCE
#include "tests/fuzz/fuzz_common.h"

#include "core/formats/load.h"

static const char canary_dot[] = "digraph canary {\n"
                                 "	k = 2;\n"
                                 "	a [work = 1, out = 2];\n"
                                 "	b [work = 3, param = 4];\n"
                                 "	a -> b;\n"
                                 "}\n";

static const char bad_canary_dot[] = "digraph bad {\n"
                                     "	a -> ;\n"
                                     "}\n";

/* Loads the canaries and checks the graph is the one above and the error
 * names the bad one's line 2. */
static void check_canaries(const char *path, const char *bad)
{
	sc_error err;
	sc_error_clear(&err);
	sc_graph *g = sc_load(path, &err);
	if (!g) {
		fprintf(stderr, "fuzz_dot: the input broke the next load: %s\n", err.msg);
		abort();
	}
	FUZZ_CHECK(g->n == 2 && g->m == 1 && g->settings.k == 2);
	FUZZ_CHECK(strcmp(g->op_name[0], "a") == 0 && strcmp(g->op_name[1], "b") == 0);
	FUZZ_CHECK(g->work[0] == 1 && g->out[0] == 2 && g->work[1] == 3 && g->param[1] == 4);
	sc_graph_free(g);

	sc_error_clear(&err);
	FUZZ_CHECK(sc_load(bad, &err) == NULL);
	char want[PATH_MAX + 64];
	snprintf(want, sizeof want, "%s: syntax error in line 2 near ';'", bad);
	if (strcmp(err.msg, want) != 0) {
		fprintf(stderr, "fuzz_dot: the input changed the next error: %s\n", err.msg);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[PATH_MAX], canary[PATH_MAX], bad_canary[PATH_MAX];
	if (!path[0]) {
		fuzz_path("input.dot", path, sizeof path);
		fuzz_path("canary.dot", canary, sizeof canary);
		fuzz_write(canary, canary_dot, strlen(canary_dot));
		fuzz_path("bad-canary.dot", bad_canary, sizeof bad_canary);
		fuzz_write(bad_canary, bad_canary_dot, strlen(bad_canary_dot));
	}
	fuzz_write(path, data, size);
	sc_error err;
	sc_error_clear(&err);
	sc_graph *g = sc_load(path, &err);
	if (!g) {
		fuzz_check_error(&err);
	} else {
		fuzz_check_graph(g);
		if (g->init_stage) {
			FUZZ_CHECK(g->settings.k >= 1);
			fuzz_use_partition(g, g->init_stage, g->settings.k);
		}
		sc_graph_free(g);
	}
	check_canaries(canary, bad_canary);
	return 0;
}
