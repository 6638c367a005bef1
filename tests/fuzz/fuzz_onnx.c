/*
 * fuzz_onnx.c - libFuzzer harness for the ONNX loader (core/formats/load_onnx.c
 * through sc_load_with, the input being a file named .onnx): protobuf-c's
 * decoding, the tensor table, shape inference and the roofline costs.  A
 * graph that loads must keep graph.h's invariants; it is then evaluated as
 * one stage and as a topological split into 2 stages.
 */
#define _GNU_SOURCE
#include "tests/fuzz/fuzz_common.h"

#include "core/formats/load.h"
#include "core/formats/onnx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[PATH_MAX];
	if (!path[0])
		fuzz_path("input.onnx", path, sizeof path);
	fuzz_write(path, data, size);
	sc_error err;
	sc_error_clear(&err);
	const char *names[] = {"N", "batch"};
	const long long values[] = {2, 3};
	sc_onnx_report rep = {0};
	sc_load_opts opts = {.ndims = 2, .dim_name = names, .dim_value = values, .report = &rep};
	sc_graph *g = sc_load_with(path, &opts, &err);
	if (!g) {
		FUZZ_CHECK(!rep.filled);
		fuzz_check_error(&err);
		return 0;
	}
	FUZZ_CHECK(rep.filled && rep.nunknown <= g->n);
	fuzz_check_graph(g);
	int *stage = calloc((size_t)(g->n ? g->n : 1), sizeof *stage);
	FUZZ_CHECK(stage != NULL);
	fuzz_use_partition(g, stage, 1);
	for (int i = 0; i < g->n; i++)
		stage[g->topo[i]] = (int)((long long)i * 2 / g->n);
	fuzz_use_partition(g, stage, 2);
	free(stage);
	sc_onnx_report_fini(&rep);
	sc_graph_free(g);
	return 0;
}
