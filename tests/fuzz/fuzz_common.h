/*
 * fuzz_common.h - helpers shared by the fuzz harnesses (one translation unit
 * each, so everything here is static).
 *
 * The loaders take a path, not a buffer, so every harness writes its input to
 * a file in a private directory made once per process with mkdtemp (several
 * fuzzers, or libFuzzer's -jobs, never share one) and removed at exit.  After
 * a load succeeds the harnesses check the graph's documented invariants
 * (graph.h) and abort on a broken one, so that a loader accepting bad data is
 * a finding too, not only a crash.
 */
#ifndef SC_FUZZ_COMMON_H
#define SC_FUZZ_COMMON_H

#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cost.h"
#include "core/graph.h"
#include "core/partition.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Larger k is legal (up to 1000000) but makes every evaluation allocate and
 * clear k stage records: slow fuzzing, and nothing the small k do not cover. */
#define FUZZ_MAX_EVAL_K 256

static char fuzz_dir[64];

static inline void fuzz_cleanup(void)
{
	DIR *d = opendir(fuzz_dir);
	if (d) {
		struct dirent *e;
		char path[PATH_MAX];
		while ((e = readdir(d)) != NULL) {
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			snprintf(path, sizeof path, "%s/%s", fuzz_dir, e->d_name);
			unlink(path);
		}
		closedir(d);
	}
	rmdir(fuzz_dir);
}

/* The private directory of this process, made on first use; aborts when it
 * cannot be made (the harness could test nothing). */
static inline const char *fuzz_tmpdir(void)
{
	if (!fuzz_dir[0]) {
		const char *base = getenv("TMPDIR");
		snprintf(fuzz_dir, sizeof fuzz_dir, "%s/stagecut-fuzz-XXXXXX",
		         base && *base && strlen(base) < 32 ? base : "/tmp");
		if (!mkdtemp(fuzz_dir)) {
			perror("fuzz: mkdtemp");
			abort();
		}
		atexit(fuzz_cleanup);
	}
	return fuzz_dir;
}

/* Writes "<tmpdir>/name" into buf and returns buf. */
static inline const char *fuzz_path(const char *name, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s", fuzz_tmpdir(), name);
	return buf;
}

/* Replaces the file at path with size bytes of data; aborts on failure (a
 * full /tmp would otherwise look like a clean run).  The old file is removed
 * first: ext4 flushes a file truncated and rewritten in place at close
 * (auto_da_alloc), which made each input cost milliseconds. */
static inline void fuzz_write(const char *path, const void *data, size_t size)
{
	unlink(path);
	FILE *f = fopen(path, "wb");
	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
		perror(path);
		abort();
	}
}

#define FUZZ_CHECK(cond)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "fuzz: invariant broken at %s:%d: %s\n", __FILE__,         \
			        __LINE__, #cond);                                                  \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

/* A failed call must say why (error.h): a code and a non-empty message. */
static inline void fuzz_check_error(const sc_error *err)
{
	FUZZ_CHECK(err->code != SC_OK);
	FUZZ_CHECK(err->msg[0] != '\0');
	FUZZ_CHECK(memchr(err->msg, '\0', sizeof err->msg) != NULL);
}

static inline bool fuzz_weight_ok(double x)
{
	return isfinite(x) && x >= 0;
}

/* Checks what graph.h promises of a built graph. */
static inline void fuzz_check_graph(const sc_graph *g)
{
	FUZZ_CHECK(g->n >= 0 && g->m >= 0);
	FUZZ_CHECK(g->name && g->source);
	FUZZ_CHECK(g->succ_off[0] == 0 && g->pred_off[0] == 0);
	FUZZ_CHECK(g->succ_off[g->n] == g->m && g->pred_off[g->n] == g->m);
	FUZZ_CHECK(g->settings.k >= 0 && g->settings.k <= 1000000);
	FUZZ_CHECK(isfinite(g->settings.bandwidth) && g->settings.bandwidth > 0);
	FUZZ_CHECK(g->settings.memory >= 0 && !isnan(g->settings.memory));
	int *pos = malloc((size_t)(g->n ? g->n : 1) * sizeof *pos);
	FUZZ_CHECK(pos != NULL);
	for (int i = 0; i < g->n; i++)
		pos[i] = -1;
	for (int i = 0; i < g->n; i++) {
		FUZZ_CHECK(g->topo[i] >= 0 && g->topo[i] < g->n && pos[g->topo[i]] < 0);
		pos[g->topo[i]] = i;
	}
	for (int v = 0; v < g->n; v++) {
		FUZZ_CHECK(g->op_name[v] != NULL);
		FUZZ_CHECK(sc_graph_find(g, g->op_name[v]) == v);
		FUZZ_CHECK(fuzz_weight_ok(g->work[v]) && fuzz_weight_ok(g->param[v]) &&
		           fuzz_weight_ok(g->out[v]));
		FUZZ_CHECK(g->group[v] >= -1 && g->group[v] < g->ngroups);
		for (int i = g->succ_off[v]; i < g->succ_off[v + 1]; i++) {
			int s = g->succ[i];
			FUZZ_CHECK(s >= 0 && s < g->n && s != v);
			FUZZ_CHECK(i == g->succ_off[v] || g->succ[i - 1] < s); /* sorted, no dups */
			FUZZ_CHECK(pos[v] < pos[s]);                           /* topological */
		}
		for (int i = g->pred_off[v]; i < g->pred_off[v + 1]; i++) {
			int p = g->pred[i];
			FUZZ_CHECK(p >= 0 && p < g->n && p != v);
			FUZZ_CHECK(i == g->pred_off[v] || g->pred[i - 1] < p);
		}
		if (g->init_stage)
			FUZZ_CHECK(g->init_stage[v] >= 0 &&
			           (g->settings.k == 0 || g->init_stage[v] < g->settings.k));
	}
	for (int i = 0; i < g->ngroups; i++) {
		FUZZ_CHECK(g->group_name[i] != NULL);
		for (int j = g->group_off[i]; j < g->group_off[i + 1]; j++)
			FUZZ_CHECK(g->group[g->group_ops[j]] == i);
	}
	/* the order arcs: the edges on an inference graph; on a training graph
	 * never between the passes, every one along ord_topo */
	FUZZ_CHECK((g->backward == NULL) == (g->backward_ops == 0));
	FUZZ_CHECK(g->backward || (g->ord_succ == g->succ && g->m_order == g->m));
	for (int i = 0; i < g->n; i++) {
		FUZZ_CHECK(g->ord_topo[i] >= 0 && g->ord_topo[i] < g->n);
		pos[g->ord_topo[i]] = i;
	}
	for (int v = 0; v < g->n; v++)
		for (int i = g->ord_succ_off[v]; i < g->ord_succ_off[v + 1]; i++) {
			int s = g->ord_succ[i];
			FUZZ_CHECK(pos[v] < pos[s]);
			FUZZ_CHECK(!g->backward || g->backward[v] == g->backward[s]);
		}
	free(pos);
}

/* Checks and evaluates the partition stage (k stages) of g as `stagecut eval`
 * does: validity, its description, legal ranges and stage costs. */
static inline void fuzz_use_partition(const sc_graph *g, const int *stage, int k)
{
	sc_violation viol;
	bool valid = sc_part_check(g, stage, k, &viol);
	char why[512];
	sc_part_describe(g, stage, &viol, why, sizeof why);
	FUZZ_CHECK(valid == (viol.kind == SC_VIOL_NONE));
	if (!valid || k > FUZZ_MAX_EVAL_K)
		return;
	for (int v = 0; v < g->n; v++) {
		int lo, hi;
		sc_part_legal_range(g, stage, k, v, &lo, &hi);
		FUZZ_CHECK(lo <= stage[v] && stage[v] <= hi);
	}
	sc_settings set = g->settings;
	set.k = k;
	sc_error err;
	sc_error_clear(&err);
	sc_costs *c = sc_costs_new(g, &set, &err);
	FUZZ_CHECK(c != NULL);
	sc_costs_eval(c, stage);
	int at;
	double b = sc_costs_bottleneck(c, &at);
	FUZZ_CHECK(b >= 0 && !isnan(b) && at >= 0 && at < k);
	(void)sc_costs_feasible(c);
	sc_costs_free(c);
}

/* Two small graphs the harnesses load as fixtures: paper 000's Figure 2
 * with its own stages (samples/paper/figure2.dot), and the residual sample
 * with a group and a hard memory limit (samples/small/residual.dot). */
static const char fuzz_figure2_dot[] = "digraph figure2 {\n"
                                       "	k = 3;\n"
                                       "	a [work = 1, out = 1, param = 4, stage = 1];\n"
                                       "	u [work = 2, out = 2, param = 4, stage = 1];\n"
                                       "	v [work = 3, out = 1, param = 8, stage = 2];\n"
                                       "	w [work = 1, out = 1, param = 2, stage = 2];\n"
                                       "	x [work = 2, out = 1, param = 6, stage = 3];\n"
                                       "	y [work = 1, out = 0, param = 1, stage = 3];\n"
                                       "	a -> u; u -> v; u -> w; v -> x; w -> x; x -> y;\n"
                                       "}\n";

static const char fuzz_residual_dot[] =
        "digraph residual {\n"
        "	k = 3; bandwidth = 2; memory = 100; memory_policy = hard;\n"
        "	input  [work = 0, out = 8];\n"
        "	conv1  [work = 6, param = 60, out = 8];\n"
        "	conv2  [work = 6, param = 60, out = 8];\n"
        "	mm_a   [work = 3, param = 30, out = 4, group = \"matmul\"];\n"
        "	mm_b   [work = 3, param = 30, out = 4, group = \"matmul\"];\n"
        "	concat [work = 1, out = 8];\n"
        "	add    [work = 1, out = 8];\n"
        "	output [work = 1, out = 0];\n"
        "	input -> conv1 -> conv2 -> add;\n"
        "	input -> add;\n"
        "	add -> mm_a -> concat;\n"
        "	add -> mm_b -> concat;\n"
        "	concat -> output;\n"
        "}\n";

#endif
