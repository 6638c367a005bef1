/*
 * test_export_samples.c - solve --align D and export --align D agree (one
 * definition, core/layers.h) on every ONNX sample, at every module depth,
 * for k = 2..8: export's plan takes every partition solve --align makes,
 * and both writers write it; every DeepSpeed layer is a module of the file's tree under the
 * name torch knows (no torch.onnx "_N" call name), no layer holds another,
 * each layer's ops all sit in the stage its comment gives, and parts cut
 * the list where the stages change.  Under STAGECUT_TEST_SHORT (the
 * sanitizer run) k is 2, 5 and 8 only.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/formats/export.h"
#include "core/modules.h"
#include "tests/support.h"

TestSuite(export_samples, .init = ts_scratch_init, .fini = ts_scratch_fini, .timeout = 300);

/* Whether module a is b or below it. */
static bool below(const sc_modules *m, int a, int b)
{
	for (; a >= 0; a = m->m[a].parent)
		if (a == b)
			return true;
	return false;
}

/* Checks the DeepSpeed text of the partition stage (k stages) of g. */
static void check_layers(const sc_graph *g, const sc_modules *m, const int *stage, const char *text,
                         const char *what)
{
	const char *p = strstr(text, "\nlayers = [\n");
	cr_assert(p, "%s: %s", what, text);
	p += strlen("\nlayers = [\n");
	int mods[512], nm = 0, entries = 0, last_stage = -1, cuts[16], nc = 0;
	while (strncmp(p, "    ", 4) == 0) {
		const char *hash = strstr(p, "  # ");
		int idx, s;
		cr_assert(hash && sscanf(hash, "  # %d: stage %d", &idx, &s) == 2, "%s: %s", what,
		          p);
		cr_assert_eq(idx, entries, "%s", what);
		if (s - 1 != last_stage) {
			cr_assert_gt(s - 1, last_stage, "%s: stages go back at entry %d", what,
			             idx);
			cuts[nc++] = idx;
			last_stage = s - 1;
		}
		if (p[4] == '"') {
			char name[256];
			cr_assert_eq(sscanf(p + 5, "%255[^\"]", name), 1);
			int x = sc_modules_find(m, name);
			cr_assert_gt(x, 0, "%s: layer '%s' is no module of the file", what, name);
			cr_assert_eq(sc_modules_called(m, x), x, "%s: '%s' is a call name", what,
			             name);
			for (int i = 0; i < nm; i++)
				cr_assert(!below(m, x, mods[i]) && !below(m, mods[i], x),
				          "%s: '%s' and '%s' nest", what, name, m->m[mods[i]].name);
			for (int t = m->m[x].first; t < m->m[x].end; t++)
				cr_assert_eq(stage[m->ops_sorted[t]], s - 1, "%s: op '%s' of '%s'",
				             what, g->op_name[m->ops_sorted[t]], name);
			cr_assert_lt(nm, 512);
			mods[nm++] = x;
		} else
			cr_assert(strncmp(p + 4, "{\"own ops of\": \"", 16) == 0, "%s: %s", what,
			          p);
		entries++;
		p = strchr(p, '\n') + 1;
	}
	cr_assert_gt(nm, 0, "%s", what);
	char want[256];
	int used = 0;
	used += snprintf(want, sizeof want, "]\nparts = [");
	for (int i = 0; i < nc; i++)
		used += snprintf(want + used, sizeof want - (size_t)used, "%d, ", cuts[i]);
	snprintf(want + used, sizeof want - (size_t)used, "%d]\n", entries);
	cr_assert_str_eq(p, want, "%s", what);
}

Test(export_samples, solve_align_exports_at_every_depth_and_k)
{
	const char *samples[] = {"resnet50", "inception_v3", "vit_b_16", "transformer_encoder"};
	int cases = 0;
	for (int f = 0; f < 4; f++) {
		char onnx[256], part[256];
		snprintf(onnx, sizeof onnx, "samples/onnx/%s.onnx", samples[f]);
		ts_tpath(part, sizeof part, "p.json");
		sc_graph *g = ts_load(onnx);
		sc_error err;
		sc_modules *m = sc_modules_new(g, &err);
		cr_assert(m);
		cr_assert_geq(m->max_depth, 2, "%s", onnx);
		int *stage = malloc((size_t)g->n * sizeof *stage);
		for (int d = 1; d <= m->max_depth; d++)
			for (int k = 2; k <= 8; k += ts_short() ? 3 : 1) {
				char *out, *errs, what[300];
				snprintf(what, sizeof what, "%s --align %d -k %d", onnx, d, k);
				cr_assert_eq(ts_runf(&out, &errs, "solve %s -k %d --align %d -o %s",
				                     onnx, k, d, part),
				             0, "%s: %s", what, errs);
				free(out);
				free(errs);
				ts_read_partition(part, g, k, stage);
				/* export's plan and writers in this process: 105 runs of
				 * the program would double the test's time */
				sc_export_plan plan;
				cr_assert_eq(
				        sc_export_plan_init(&plan, g, m, stage, k, d, part, &err),
				        SC_OK, "%s: %s", what, err.msg);
				size_t len;
				cr_assert_eq(sc_export_pytorch.write(&plan, &out, &len, &err),
				             SC_OK);
				free(out);
				cr_assert_eq(sc_export_deepspeed.write(&plan, &out, &len, &err),
				             SC_OK);
				check_layers(g, m, stage, out, what);
				free(out);
				sc_export_plan_fini(&plan);
				cases++;
			}
		free(stage);
		sc_modules_free(m);
		sc_graph_free(g);
	}
	cr_assert_eq(cases, (ts_short() ? 3 : 7) * (4 + 3 + 5 + 3), "the samples' depths changed");
}

/* torch.onnx folded every BatchNorm of resnet50 into the convolution before
 * it, which then reads a weight named onnx::Conv_N (graph.h made_weight):
 * all 53 convolutions; the DeepSpeed list marks conv1, whose BatchNorm bn1
 * the file no longer names, and export warns. */
Test(export_samples, folded_modules_are_named)
{
	sc_graph *g = ts_load("samples/onnx/resnet50.onnx");
	cr_assert(g->made_weight);
	int made = 0, convs = 0;
	for (int v = 0; v < g->n; v++) {
		bool conv = strstr(g->op_name[v], "/Conv") != NULL;
		convs += conv;
		made += g->made_weight[v];
		cr_assert(!g->made_weight[v] || conv, "%s", g->op_name[v]);
	}
	cr_assert_eq(convs, 53);
	cr_assert_eq(made, 53);
	sc_graph_free(g);
	g = ts_load("samples/onnx/transformer_encoder.onnx");
	cr_assert_null(g->made_weight, "no convolution");
	sc_graph_free(g);
	char part[256], *out, *err;
	ts_tpath(part, sizeof part, "r.json");
	cr_assert_eq(
	        ts_runf(&out, &err, "solve samples/onnx/resnet50.onnx -k 3 --align 1 -o %s", part),
	        0, "%s", err);
	free(out);
	free(err);
	cr_assert_eq(ts_runf(&out, &err, "export samples/onnx/resnet50.onnx %s --format deepspeed",
	                     part),
	             0, "%s", err);
	cr_assert(strstr(out,
	                 "\n    \"conv1\",  # 0: stage 1, folded\n    \"relu\",  # 1: stage 1\n"),
	          "%s", out);
	cr_assert(strstr(err, "warning: 1 layer ('conv1') runs a module torch.onnx folded away"),
	          "%s", err);
	free(out);
	free(err);
	/* the split points need no such note: pipelining traces the model */
	cr_assert_eq(
	        ts_runf(&out, &err, "export samples/onnx/resnet50.onnx %s --format pytorch", part),
	        0, "%s", err);
	cr_assert_str_eq(err, "");
	free(out);
	free(err);
}
