/*
 * test_json_keys.c - one meaning per JSON key (stagecut(1), JSON OUTPUT,
 * "Keys, types and null").  Every document any test makes the program
 * print with --json (ts_runf, support.c) is checked against the man page's
 * key tables (support_json_keys.c); here a broad set of runs (every command with --json over
 * samples: plain,
 * --cpus, --devices, --pin, --align, infeasible under a hard limit,
 * training, timelines, bench's tables and records, partition files) is
 * checked the same way, and then every row of the tables must have been
 * used by one of them, so the tables hold no stale key.
 */
#include "cli_test.h"

TestSuite(json_keys, .init = ts_scratch_init, .fini = ts_scratch_fini, .timeout = 300);

#define TRAIN "samples/msr-fiddle/layer/bert24_training.json"
#define TRAIN_OP "samples/msr-fiddle/operator/bert_l-3_training.json"
#define BERT3 "samples/msr-fiddle/operator/bert_l-3_inference.json"
#define LAYER "samples/msr-fiddle/layer/resnet50_inference.json"
#define TIGHT "samples/onnx/resnet50.onnx -k 2 -M 1e6 --memory-policy hard"
#define R18 "samples/h100/onnx/resnet18.onnx"
#define RUNS R18 ",tests/data/h100/resnet18-N-1-fp16.csv,N=1"

/* Runs args (printf-style), any exit status in 0..3, and checks its JSON on
 * stdout against the table of its command. */
static void check_run(const char *fmt, ...)
{
	char args[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(args, sizeof args, fmt, ap);
	va_end(ap);
	int status;
	json_decref(ts_json_of(0, 3, &status, args)); /* checks the keys */
}

static void check_file(const char *doc, const char *path)
{
	json_error_t jerr;
	json_t *root = json_load_file(path, 0, &jerr);
	cr_assert(root, "%s: %s", path, jerr.text);
	ts_json_keys_check(doc, root, path);
	json_decref(root);
}

/* bench's records file: one JSON object a line */
static void check_records(const char *path)
{
	char *text = ts_slurp(path, NULL);
	cr_assert(text, "cannot read %s", path);
	int n = 0;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		json_t *rec = json_loads(line, 0, NULL);
		cr_assert(rec, "%s: a line is not JSON", path);
		ts_json_keys_check("record", rec, path);
		json_decref(rec);
		n++;
	}
	cr_assert_gt(n, 0, "%s: no records", path);
	free(text);
}

/* A file of name with text, in the scratch directory; its path in buf. */
static const char *scratch(char *buf, size_t size, const char *name, const char *text)
{
	ts_tpath(buf, size, name);
	if (text)
		ts_write_text(buf, text);
	return buf;
}

Test(json_keys, every_output_follows_the_tables_and_every_row_is_used)
{
	char fig2[256], p[256], pc[256], pt[256], zero[256], out[256], res[256], bj[256];
	scratch(fig2, sizeof fig2, "fig2.json", ts_fig2_own);
	scratch(zero, sizeof zero, "zero.dot", "digraph zero { a -> b; b -> c; }\n");
	/* info */
	check_run("info --json " FIGURE2 " -k 3");
	check_run("info --json " TRAIN);
	check_run("info --json " BERT3 " --cpus 1");
	check_run("info --json samples/onnx/resnet50.onnx");
	check_run("info --json samples/dynamic/encoder.onnx");
	check_run("info --json " R18 " --times tests/data/h100/resnet18-N-1-fp16.csv");
	check_run("info --json tests/fuzz/corpus/fuzz_onnx/unknown_op.onnx");
	check_run("info --json samples/onnx/resnet50.onnx --devices h100:1,a100:1");
	/* solve: plain, pinned, aligned, devices, CPU stages, infeasible, training */
	check_run("solve --json " FIGURE2 " -o %s", scratch(p, sizeof p, "p.json", NULL));
	check_run("solve --json " FIGURE2 " -k 2 --pin y=1");
	check_run("solve --json samples/onnx/resnet50.onnx -k 3 --align 1");
	check_run("solve --json samples/onnx/resnet50.onnx -k 3 --align 1 --pin %s",
	          "/conv1/Conv=1");
	check_run("solve --json " TIGHT " --align 1");
	check_run("solve --json " TIGHT);
	check_run("solve --json " LAYER " -k 2 --cpus 1 -m exact -o %s",
	          scratch(pc, sizeof pc, "pc.json", NULL));
	check_run("solve --json samples/onnx/resnet50.onnx --devices a100:2,h100:2");
	check_run("solve --json " TRAIN " -k 4 --ideal-limit 1 -o %s",
	          scratch(pt, sizeof pt, "pt.json", NULL));
	check_file("partition", p);
	check_file("partition", pc);
	check_file("partition", pt);
	/* bounds */
	check_run("bounds --json " FIGURE2 " -k 3 --all-rungs -t 20 -o %s",
	          scratch(out, sizeof out, "b.json", NULL));
	char pb[256];
	check_run("solve --json " BERT3 " -k 4 -m kahn -o %s",
	          scratch(pb, sizeof pb, "pb.json", NULL));
	check_run("bounds --json " BERT3 " -k 4 --rungs simple,guess -m kahn -p %s -t 20", pb);
	check_run("bounds --json " TIGHT " --all-rungs -t 30");
	check_run("bounds --json " LAYER " -k 2 --cpus 1 -t 20");
	check_run("bounds --json " TRAIN " -k 4 --rungs simple -t 20");
	check_run("bounds --json %s -k 2 -t 20", zero);
	/* eval */
	check_run("eval --json " FIGURE2 " %s --timeline", fig2);
	check_run("eval --json " FIGURE2 " %s",
	          scratch(out, sizeof out, "range.json",
	                  "{\"format\": \"stagecut-partition/1\", \"k\": 2, \"stages\": {\"a\": 1, "
	                  "\"u\": 1, \"v\": 2, \"w\": 2, \"x\": 3, \"y\": 3}}"));
	check_run("eval --json " LAYER " %s --timeline", pc);
	char kg[256], kp[256];
	scratch(kg, sizeof kg, "kinds.dot",
	        "digraph { a [work=4, work_b=6, out=2]; c [work=8, work_b=12, out=2]; "
	        "d [work=6, work_b=3, out=1]; e [work=7, work_b=7, out=1]; "
	        "a -> c -> e; a -> d -> e; }");
	check_run("solve --json %s --devices accel:1,b:2 -o %s", kg,
	          scratch(kp, sizeof kp, "kinds.json", NULL));
	check_file("partition", kp);
	check_run("eval --json %s %s --devices accel:1,b:2", kg, kp);
	check_run("bounds --json %s --devices accel:1,b:2 -t 20", kg);
	check_run("eval --json " TRAIN " %s", pt);
	char pr[256];
	check_run("solve --json " R18 " -k 2 --times tests/data/h100/resnet18-N-1-fp16.csv -o %s",
	          scratch(pr, sizeof pr, "pr.json", NULL));
	check_run("eval --json " R18 " %s --times tests/data/h100/resnet18-N-1-fp16.csv", pr);
	/* render */
	check_run("render --json " FIGURE2 " -T svg -o %s",
	          scratch(out, sizeof out, "g.svg", NULL));
	check_run("render --json " FIGURE2 " %s -T svg -o %s", fig2,
	          scratch(out, sizeof out, "s.svg", NULL));
	check_run("render --json " LAYER " %s --timeline -T svg -o %s", pc,
	          scratch(out, sizeof out, "t.svg", NULL));
	check_run("render --json " TRAIN " %s -T svg -o %s", pt,
	          scratch(out, sizeof out, "tr.svg", NULL));
	check_run("render --json " TRAIN " -T svg -o %s", scratch(out, sizeof out, "tg.svg", NULL));
	check_run("render --json samples/msr-fiddle/operator/resnet50_inference.json -k 4 --full "
	          "-T svg -o %s",
	          scratch(out, sizeof out, "full.svg", NULL));
	scratch(bj, sizeof bj, "bounds.json", NULL);
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "%s bounds " FIGURE2 " -k 3 -t 20 --json > '%s'", ts_program(),
	         bj);
	cr_assert_eq(ts_run(cmd, NULL, NULL), 0);
	check_run("render --json " FIGURE2 " %s --bounds %s -T svg -o %s", fig2, bj,
	          scratch(out, sizeof out, "b.svg", NULL));
	/* calibrate */
	check_run("calibrate --device h100 --precision fp16 -o %s --json " RUNS,
	          scratch(out, sizeof out, "cal.profile", NULL));
	/* bench: the tables on stdout, the records in the results file */
	scratch(res, sizeof res, "r.jsonl", NULL);
	check_run("bench samples/paper " TRAIN_OP " -k 2,3 --methods random-1,exact -t 20 -j 2 "
	          "--json -o %s",
	          res);
	check_records(res);
	check_run("bench " LAYER " -k 2 --cpus 1 --methods exact -t 20 --json -o %s", res);
	check_records(res);
	check_run("bench " LAYER " --devices accel:2,cpu:1 --methods exact -t 20 --json -o %s",
	          res);
	check_records(res);
	/* a graph bench cannot read: a record with its error */
	check_run("bench %s -k 2 --methods dpl -t 5 --json -o %s",
	          scratch(out, sizeof out, "bad.dot", "digraph { a -> }"), res);
	check_records(res);

	/* written only on failures no cheap run causes: a MIP rung that fails
	 * or crashes (its name, its message), a method that refuses an
	 * instance, and an ONNX model whose value_info names a dim that
	 * neither --dim nor inference derives */
	static const char *const rare[][2] = {
	        {"bounds", "failed_rungs[]"},          {"record", "rungs.*.message"},
	        {"record", "methods.*.refused"},       {"info", "onnx.underived_dims[]"},
	        {"info", "onnx.underived_dims[].dim"}, {"info", "onnx.underived_dims[].op"}};
	for (size_t i = 0; i < sizeof rare / sizeof rare[0]; i++)
		cr_assert(ts_json_keys_excuse(rare[i][0], rare[i][1]), "no row %s:%s", rare[i][0],
		          rare[i][1]);
	char unseen[4096];
	int n = ts_json_keys_unseen(unseen, sizeof unseen);
	cr_expect_eq(n, 0, "%d rows of stagecut(1)'s key tables written by none of the runs:%s", n,
	             unseen);
}

/* ---- what each key is about: the inconsistencies the tables showed ------ */

/* --align's proof is of the aligned problem: under "aligned", never as the
 * free problem's optimal / lower_bound.  resnet50 at k 3, depth 1: the
 * unaligned optimum (proven by the exact DP) is below the aligned one, so
 * the aligned partition is provably not optimal for the problem as given,
 * and a top-level "optimal": true (as written before) was false. */
Test(json_keys, align_proof_is_of_the_aligned_problem)
{
	json_t *j = ts_run_json(0, "solve --json samples/onnx/resnet50.onnx -k 3 --align 1");
	json_t *al = ts_jget(j, "align");
	double b = ts_jnum(j, "bottleneck");
	cr_assert(ts_jbool(al, "unaligned_optimal"));
	cr_assert_lt(ts_jnum(al, "unaligned"), b * (1 - 1e-9), "the sample no longer shows it");
	cr_assert(!ts_jbool(j, "optimal"), "optimal of the free problem, above its optimum");
	cr_assert_str_eq(ts_jstr(j, "proof"), "aligned");
	const char *free_keys[] = {"proven_by", "optimal_within", "lower_bound", "gap"};
	for (int i = 0; i < 4; i++)
		cr_assert(json_is_null(ts_jget(j, free_keys[i])), "%s of the free problem",
		          free_keys[i]);
	json_t *pr = ts_jget(j, "aligned");
	cr_assert(ts_jbool(pr, "optimal"));
	cr_assert_str_eq(ts_jstr(pr, "proven_by"), "exact DP");
	/* the DP's optimum is its own lower bound: exact, gap 0 */
	cr_assert_eq(ts_jnum(pr, "lower_bound"), b);
	cr_assert_eq(ts_jnum(pr, "gap"), 0);
	cr_assert_null(json_object_get(j, "pinned"));
	json_decref(j);
}

/* An op no accelerator may hold (accel_ok=false) with no CPU time can go to
 * no stage of any kind: no partition fits at any k and L, proven by that
 * alone.  info said "fits": true (with a null bottleneck) at L 0, and gave
 * the infinite simple bound as a bare null. */
Test(json_keys, info_cpus_says_none_fits_when_an_op_has_nowhere_to_go)
{
	char g[256];
	ts_tpath(g, sizeof g, "nowhere.dot");
	ts_write_text(g, "digraph { a [work=2, cpu_work=1]; b [work=3, accel_ok=false]; a -> b; }");
	json_t *j = ts_run_json(0, "info --json %s --cpus 1 -k 2", g);
	json_t *table = ts_jget(ts_jget(j, "cpus"), "table");
	cr_assert_eq(json_array_size(table), 6);
	size_t i;
	json_t *cell;
	json_array_foreach(table, i, cell)
	{
		cr_assert(!ts_jbool(cell, "fits"), "k %lld L %lld", ts_jint(cell, "k"),
		          ts_jint(cell, "cpus"));
		cr_assert(json_is_null(ts_jget(cell, "bottleneck")));
	}
	json_array_foreach(ts_jget(j, "simple_bound"), i, cell)
	{
		cr_assert(json_is_null(ts_jget(cell, "bound_cpus")));
		cr_assert(ts_jbool(cell, "cpus_infeasible"), "k %lld", ts_jint(cell, "k"));
	}
	json_decref(j);
}

/* tight_none.dot under its hard limit: no 4-stage partition fits (its
 * comment: the exact DP and the exact MIP prove it).  A guess position or
 * a bench record's rung whose bound is infinite says so with infeasible,
 * as bounds' rungs do, not with a bare null. */
Test(json_keys, infinite_rung_values_say_infeasible)
{
	/* --all-rungs: the exact MIP's proof must not stop the guess positions
	 * first (under load it can) */
	json_t *j = ts_run_json(1, "bounds --json tests/data/tight_none.dot -k 4 --rungs "
	                           "simple,guess,exact --all-rungs -m kahn -t 30");
	cr_assert(!ts_jbool(j, "feasible"));
	size_t i, n = 0;
	json_t *rung, *part;
	json_array_foreach(ts_jget(j, "rungs"), i, rung)
	{
		json_t *solves = json_object_get(rung, "solves");
		size_t s;
		json_array_foreach(solves, s, part)
		{
			bool inf = ts_jbool(part, "infeasible");
			cr_assert_eq(json_is_null(ts_jget(part, "value")), inf, "position %zu",
			             s + 1);
			n += inf;
		}
	}
	cr_assert_gt(n, 0, "no guess position proved that nothing fits");
	json_decref(j);
	char res[256], *out;
	ts_tpath(res, sizeof res, "tn.jsonl");
	cr_assert_eq(ts_runf(&out, NULL,
	                     "bench tests/data/tight_none.dot -k 4 --methods exact --rungs "
	                     "simple,exact -t 30 -o %s",
	                     res),
	             0);
	free(out);
	char *text = ts_slurp(res, NULL);
	json_t *rec = json_loads(text, 0, NULL);
	cr_assert(rec);
	cr_assert(ts_jbool(rec, "none_fits"));
	json_t *exact = ts_jget(ts_jget(rec, "rungs"), "exact");
	cr_assert(json_is_null(ts_jget(exact, "value")));
	cr_assert(ts_jbool(exact, "infeasible"));
	cr_assert(!ts_jbool(ts_jget(ts_jget(rec, "rungs"), "simple"), "infeasible"));
	json_decref(rec);
	free(text);
}

/* No memory limit is an infinite limit: memory is null (JSON has no number
 * for it) and memory_unlimited says so, as the other infinite values are
 * said; a limit given is a number and memory_unlimited false.  figure2 sets
 * no memory (its file), -M 100 sets one. */
Test(json_keys, unlimited_memory_is_said_not_left_to_null)
{
	json_t *j = ts_run_json(0, "bounds --json " FIGURE2 " -k 3 --rungs simple");
	cr_assert(json_is_null(ts_jget(j, "memory")));
	cr_assert(ts_jbool(j, "memory_unlimited"));
	json_decref(j);
	j = ts_run_json(0, "bounds --json " FIGURE2 " -k 3 --rungs simple -M 100");
	cr_assert_eq(ts_jnum(j, "memory"), 100);
	cr_assert(!ts_jbool(j, "memory_unlimited"));
	json_decref(j);
}
