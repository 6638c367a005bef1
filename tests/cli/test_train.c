/*
 * test_train.c - training graphs through the commands that describe and
 * evaluate them: eval's costs by pass and the rule a partition breaks, the
 * GPipe objective, info's counts against the JSON files read here, gen
 * --training's shape, and DOT written and read back.
 *
 * Expected values come from the hand computation in tests/data/train_tiny.dot,
 * from the independent cost model of tests/support_cli.c (ts_costs, ts_valid)
 * or from the msr-fiddle files parsed here with jansson, never from the
 * program's own output.
 */
#define _XOPEN_SOURCE 700
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/graph.h"
#include "tests/support.h"

#define TINY "tests/data/train_tiny.dot"
#define TINY_PART "tests/data/train_tiny.part.json"
#define TINY_ORPHAN "tests/data/train_tiny_orphan.part.json"
#define FIDDLE "samples/msr-fiddle/"

TestSuite(train, .init = ts_scratch_init, .fini = ts_scratch_fini, .timeout = 60);

/* The hand-computed table of train_tiny.dot (see its comment): per stage
 * work, io, fw and bw, and both objectives. */
Test(train, eval_splits_each_stage_by_pass)
{
	char *out, *err;
	cr_assert_eq(ts_runf(&out, &err, "eval " TINY " " TINY_PART), 0, "%s", err);
	cr_assert(strstr(out, "  stage     ops         work        io in       io out     "
	                      "overflow           fw           bw         cost        param\n"
	                      "*     1       2      10.0000       1.0000       1.0000       "
	                      "0.0000       7.0000       5.0000      12.0000       0.0000\n"
	                      "      2       3       9.0000       1.0000       1.0000       "
	                      "0.0000       4.0000       7.0000      11.0000       0.0000\n"
	                      "bottleneck 12.0000 (stage 1)"),
	          "%s", out);
	cr_assert(strstr(out, "1F1B schedule: the objective is the bottleneck (GPipe would give "
	                      "14.0000)"),
	          "%s", out);
	free(out);
	free(err);
	cr_assert_eq(ts_runf(&out, &err, "eval --schedule gpipe " TINY " " TINY_PART), 0, "%s",
	             err);
	cr_assert(strstr(out, "GPipe objective 14.0000 = forward 7.0000 (stage 1) + backward "
	                      "7.0000 (stage 2)"),
	          "%s", out);
	free(out);
	free(err);
	json_t *j = ts_run_json(0, "eval --json --schedule gpipe " TINY " " TINY_PART);
	cr_assert_eq(ts_jnum(j, "bottleneck"), 12.0);
	cr_assert_eq(ts_jnum(j, "objective"), 14.0);
	json_t *t = ts_jget(j, "training");
	cr_assert_str_eq(ts_jstr(t, "schedule"), "gpipe");
	cr_assert_eq(ts_jnum(t, "gpipe"), 14.0);
	json_t *st = ts_jget(j, "stages");
	double want_fw[] = {7, 4}, want_bw[] = {5, 7}, want_wbw[] = {4, 6};
	for (int s = 0; s < 2; s++) {
		json_t *x = json_array_get(st, (size_t)s);
		cr_assert_eq(ts_jnum(x, "cost_fw"), want_fw[s], "stage %d", s + 1);
		cr_assert_eq(ts_jnum(x, "cost_bw"), want_bw[s], "stage %d", s + 1);
		cr_assert_eq(ts_jnum(x, "work_bw"), want_wbw[s], "stage %d", s + 1);
	}
	json_decref(j);
	/* 1F1B: the objective is the bottleneck */
	j = ts_run_json(0, "eval --json " TINY " " TINY_PART);
	cr_assert_eq(ts_jnum(j, "objective"), 12.0);
	cr_assert_str_eq(ts_jstr(ts_jget(j, "training"), "schedule"), "1f1b");
	json_decref(j);
}

/* o is an orphan: o -> bg may not go to a later stage, and eval says so,
 * naming the edge and the rule, exit 1, with the costs still shown. */
Test(train, eval_names_the_orphan_rule_a_partition_breaks)
{
	char *out, *err;
	cr_assert_eq(ts_runf(&out, &err, "eval " TINY " " TINY_ORPHAN), 1, "%s", err);
	cr_assert(strstr(out, "invalid: edge 'o' -> 'bg' goes from stage 1 on to stage 2, but an "
	                      "edge between backward ops, one of them an orphan, never goes to a "
	                      "later stage\n"),
	          "%s", out);
	cr_assert(strstr(out, "bottleneck "), "%s", out);
	free(out);
	free(err);
	/* a forward edge going back keeps the inference wording */
	char part[512];
	ts_tpath(part, sizeof part, "back.json");
	ts_write_text(part, "{\"format\": \"stagecut-partition/1\", \"graph\": \"train_tiny.dot\", "
	                    "\"k\": 2, \"stages\": {\"a\": 2, \"ag\": 2, \"b\": 1, \"bg\": 1, "
	                    "\"o\": 1}}");
	cr_assert_eq(ts_runf(&out, &err, "eval " TINY " '%s'", part), 1, "%s", err);
	cr_assert(strstr(out, "invalid: edge 'a' -> 'b' goes from stage 2 back to stage 1\n"), "%s",
	          out);
	free(out);
	free(err);
}

/* Every partition of train_tiny into 2 stages: eval's verdict equals the
 * rules written in the test (ts_valid) and its costs the independent model
 * (ts_costs), by pass too. */
Test(train, eval_agrees_with_the_rules_and_costs_written_apart)
{
	sc_graph *g = ts_load(TINY);
	int n = g->n, stage[8] = {0};
	char part[512];
	ts_tpath(part, sizeof part, "all.json");
	for (int mask = 0; mask < (1 << n); mask++) {
		char text[1024];
		int used = snprintf(text, sizeof text,
		                    "{\"format\": \"stagecut-partition/1\", \"graph\": "
		                    "\"train_tiny.dot\", \"k\": 2, \"stages\": {");
		for (int v = 0; v < n; v++) {
			stage[v] = (mask >> v) & 1;
			used += snprintf(text + used, sizeof text - (size_t)used, "%s\"%s\": %d",
			                 v ? ", " : "", g->op_name[v], stage[v] + 1);
		}
		snprintf(text + used, sizeof text - (size_t)used, "}}");
		ts_write_text(part, text);
		bool valid = ts_valid(g, stage, 2);
		json_t *j = ts_run_json(valid ? 0 : 1, "eval --json " TINY " '%s'", part);
		cr_assert_eq(ts_jbool(j, "valid"), valid, "mask %d", mask);
		ts_cost c[2];
		ts_costs(g, stage, &g->settings, 2, c);
		json_t *st = ts_jget(j, "stages");
		for (int s = 0; s < 2; s++) {
			json_t *x = json_array_get(st, (size_t)s);
			cr_assert(ts_close_rel(ts_jnum(x, "cost"), c[s].cost, 1e-12), "mask %d",
			          mask);
			cr_assert(ts_close_rel(ts_jnum(x, "cost_fw"), c[s].cost_fw, 1e-12),
			          "mask %d", mask);
			cr_assert(ts_close_rel(ts_jnum(x, "cost_bw"), c[s].cost_bw, 1e-12),
			          "mask %d", mask);
		}
		json_decref(j);
	}
	sc_graph_free(g);
}

/* info's counts on the real training graphs, against the JSON read here:
 * backward ops (isBackwardNode), orphans (a backward node whose colorClass
 * holds no forward node, or that has none) and the work of each pass. */
Test(train, info_counts_the_passes_of_the_msr_fiddle_graphs)
{
	static const char *const files[] = {
	        "operator/bert_l-3_training.json", "operator/bert_l-6_training.json",
	        "operator/resnet50_training.json", "layer/bert24_training.json",
	        "layer/resnet50_training.json"};
	for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
		char path[256];
		snprintf(path, sizeof path, FIDDLE "%s", files[f]);
		json_error_t jerr;
		json_t *root = json_load_file(path, 0, &jerr);
		cr_assert(root, "%s: %s", path, jerr.text);
		json_t *nodes = ts_jget(root, "nodes");
		size_t n = json_array_size(nodes);
		int backward = 0, orphans = 0;
		double wf = 0, wb = 0;
		for (size_t i = 0; i < n; i++) {
			json_t *nd = json_array_get(nodes, i);
			json_t *bw = json_object_get(nd, "isBackwardNode");
			bool b =
			        json_is_true(bw) || (json_is_integer(bw) && json_integer_value(bw));
			double w = json_number_value(json_object_get(nd, "fpgaLatency"));
			if (!b) {
				wf += w;
				continue;
			}
			backward++;
			wb += w;
			json_t *cc = json_object_get(nd, "colorClass");
			bool has_fw = false;
			for (size_t j = 0; cc && j < n && !has_fw; j++) {
				json_t *o = json_array_get(nodes, j);
				json_t *ob = json_object_get(o, "isBackwardNode");
				bool obw = json_is_true(ob) ||
				           (json_is_integer(ob) && json_integer_value(ob));
				has_fw = !obw && json_equal(json_object_get(o, "colorClass"), cc);
			}
			orphans += !has_fw;
		}
		json_decref(root);
		json_t *j = ts_run_json(0, "info --json %s", path);
		json_t *t = ts_jget(j, "training");
		cr_assert_eq(ts_jint(t, "backward_ops"), backward, "%s", path);
		cr_assert_eq(ts_jint(t, "forward_ops"), (long long)n - backward, "%s", path);
		cr_assert_eq(ts_jint(t, "orphans"), orphans, "%s", path);
		cr_assert(ts_close_rel(ts_jnum(t, "work_forward"), wf, 1e-9), "%s", path);
		cr_assert(ts_close_rel(ts_jnum(t, "work_backward"), wb, 1e-9), "%s", path);
		json_decref(j);
	}
}

/* gen --training on a generated transformer: every forward op has its
 * backward op in its group, one orphan (loss.grad), edges 3 m + 2 sinks;
 * written as DOT and read back, the passes survive. */
Test(train, gen_training_has_the_shape_it_promises)
{
	char fw[512], tr[512];
	ts_tpath(fw, sizeof fw, "fw.dot");
	ts_tpath(tr, sizeof tr, "tr.dot");
	char *out, *err;
	cr_assert_eq(ts_runf(&out, &err, "gen --model transformer --layers 2 -o '%s'", fw), 0, "%s",
	             err);
	free(out);
	free(err);
	cr_assert_eq(
	        ts_runf(&out, &err, "gen --model transformer --layers 2 --training -o '%s'", tr), 0,
	        "%s", err);
	free(out);
	free(err);
	sc_graph *f = ts_load(fw), *t = ts_load(tr);
	int sinks = 0;
	for (int v = 0; v < f->n; v++)
		sinks += sc_graph_outdeg(f, v) == 0;
	cr_assert_eq(t->n, 2 * f->n + 1);
	cr_assert_eq(t->backward_ops, f->n + 1);
	cr_assert_eq(t->orphans, 1);
	cr_assert_eq(t->m, 3 * f->m + 2 * sinks);
	for (int v = 0; v < f->n; v++) {
		int a = sc_graph_find(t, f->op_name[v]);
		char name[600];
		snprintf(name, sizeof name, "%s.grad", f->op_name[v]);
		int b = sc_graph_find(t, name);
		cr_assert(a >= 0 && b >= 0, "%s", name);
		cr_assert(!t->backward[a] && t->backward[b]);
		cr_assert(t->group[a] >= 0 && t->group[a] == t->group[b], "%s", name);
		cr_assert_eq(t->work[b], 2 * f->work[v]);
	}
	cr_assert(t->orphan[sc_graph_find(t, "loss.grad")]);
	sc_graph_free(f);
	sc_graph_free(t);
}

/* An option value that is not a schedule is refused with the option named. */
Test(train, schedule_option_is_checked)
{
	char *out, *err;
	cr_assert_eq(ts_runf(&out, &err, "eval --schedule zigzag " TINY " " TINY_PART), 2);
	cr_assert(strstr(err, "--schedule: 'zigzag' is not '1f1b' or 'gpipe'"), "%s", err);
	free(out);
	free(err);
}
