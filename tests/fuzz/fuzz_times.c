/*
 * fuzz_times.c - libFuzzer harness for measured op times (core/formats/times.c):
 * ONNX Runtime profiles (jansson) and CSVs (the input is both, told apart by
 * its first byte as sc_times_read tells them).  A file that reads must hold
 * finite times >= 0 under names that are not empty; it is then applied to a
 * small graph through a fake loader (every name ending in "_output_0" is a
 * tensor of the op it starts with), which must keep the times: the measured
 * work sums to the file's times less those dropped.
 */
#define _GNU_SOURCE
#include "tests/fuzz/fuzz_common.h"

#include <math.h>

#include "core/formats/times.h"

static const char *const ops[] = {"a", "b", "c", "d"};

static int producer(void *ctx, const char *name)
{
	(void)ctx;
	for (int i = 0; i < 4; i++)
		if (!strncmp(name, ops[i], 1) && !strcmp(name + 1, "_output_0"))
			return i;
	return -1;
}

static bool folded(void *ctx, const char *name, int *to)
{
	(void)ctx;
	if (strcmp(name, "Identity_0") != 0)
		return false;
	*to = 2;
	return true;
}

static bool follows(void *ctx, int v)
{
	(void)ctx;
	return v == 3;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[PATH_MAX];
	if (!path[0])
		fuzz_path("input.times", path, sizeof path);
	fuzz_write(path, data, size);
	sc_error err;
	sc_error_clear(&err);
	sc_times *t = sc_times_read(path, &err);
	if (!t) {
		fuzz_check_error(&err);
		return 0;
	}
	FUZZ_CHECK(t->n >= 1 && t->runs >= 1);
	double sum = 0;
	for (int i = 0; i < t->n; i++) {
		FUZZ_CHECK(t->e[i].name && t->e[i].name[0]);
		FUZZ_CHECK(isfinite(t->e[i].us) && t->e[i].us >= 0);
		sum += t->e[i].us;
	}
	sc_builder *b = sc_builder_new();
	FUZZ_CHECK(b != NULL);
	for (int i = 0; i < 4; i++)
		FUZZ_CHECK(sc_builder_add_op(b, ops[i], 1 + i, 0, 1, NULL, &err) == i);
	for (int i = 0; i < 3; i++)
		FUZZ_CHECK(sc_builder_add_edge(b, i, i + 1, &err) == SC_OK);
	sc_graph *g = sc_builder_finish(b, "fuzz", "fuzz", &err);
	sc_builder_free(b);
	FUZZ_CHECK(g != NULL);
	sc_times_names names = {.producer = producer, .folded = folded, .follows = follows};
	sc_times_report rep;
	double before = sc_graph_total_work(g);
	if (sc_times_apply(g, t, &names, &rep, &err) == SC_OK) {
		FUZZ_CHECK(rep.filled && rep.ops_measured + rep.ops_modelled == g->n);
		double measured = 0;
		for (int v = 0; v < g->n; v++)
			if (g->work_source[v] == SC_WORK_MEASURED)
				measured += g->work[v];
		double want = sum - rep.time_dropped;
		if (isfinite(sum) && sum < 1e300)
			FUZZ_CHECK(fabs(measured - want) <= 1e-9 * fmax(1, want));
		FUZZ_CHECK(sc_times_describe(g, t, &rep, "the fuzz model", &err) == SC_OK);
		FUZZ_CHECK(g->cost_origin && g->cost_short);
	} else {
		fuzz_check_error(&err);
		FUZZ_CHECK(sc_graph_total_work(g) == before);
	}
	sc_graph_free(g);
	sc_times_free(t);
	return 0;
}
