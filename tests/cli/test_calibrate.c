/*
 * test_calibrate.c - `stagecut calibrate`: a profile fitted to op times
 * measured on an H100 (tests/data/h100: three runs of samples/h100's
 * measured.json as CSVs, made by scripts/h100_times_csv.sh) predicts those
 * times better than the h100 profile it started from, its Concat ops above
 * all (modelled as strided copies, 1.5 times too slow); the profile it
 * writes, read back with --device, gives the fitted times (a second fit
 * from it starts where the first ended); the report names each kind, says
 * which kept the base's numbers, and its JSON keys are the man page's.
 * Bad input is one message naming the file, exit 2, and an existing OUT is
 * left as it was.
 */
#include "cli_test.h"

TestSuite(calibrate, .init = ts_scratch_init, .fini = ts_scratch_fini, .timeout = 120);

#define R18 "samples/h100/onnx/resnet18.onnx"
#define GOOGLENET "samples/h100/onnx/googlenet.onnx"
#define RUNS                                                                                       \
	R18 ",tests/data/h100/resnet18-N-1-fp16.csv,N=1 " R18                                      \
	    ",tests/data/h100/resnet18-N-32-fp16.csv,N=32 " GOOGLENET                              \
	    ",tests/data/h100/googlenet-N-1-fp16.csv,N=1"

static double log_dist(json_t *stats, const char *key)
{
	return fabs(log(ts_jnum(stats, key)));
}

Test(calibrate, the_fit_predicts_the_measured_times_better)
{
	char out[256];
	ts_tpath(out, sizeof out, "h100-mine.profile");
	json_t *j =
	        ts_run_json(0, "calibrate --device h100 --precision fp16 -o %s --json " RUNS, out);
	cr_assert_eq(ts_jint(j, "runs"), 3);
	cr_assert_gt(ts_jint(j, "ops"), 200);
	cr_assert_str_eq(ts_jstr(j, "precision"), "fp16");
	cr_assert_str_eq(ts_jstr(j, "device"), "h100-mine");
	double before = ts_jnum(j, "error_before"), after = ts_jnum(j, "error_after");
	cr_assert_lt(after, 0.8 * before, "error %g -> %g", before, after);
	json_t *kinds = ts_jget(j, "kinds");
	/* Concat: the h100 profile has it 1.5x too slow; the fit brings it to 1 */
	json_t *concat = ts_jget(kinds, "concat");
	cr_assert_gt(ts_jint(concat, "ops"), 5);
	cr_assert(ts_jbool(concat, "fitted"));
	double cb = log_dist(ts_jget(concat, "ratio_before"), "median");
	double ca = log_dist(ts_jget(concat, "ratio_after"), "median");
	cr_assert_gt(cb, log(1.3), "concat before %g", exp(cb));
	cr_assert_lt(ca, log(1.1), "concat after %g", exp(ca));
	/* no standalone normalization in these runs: the h100's numbers kept */
	json_t *norm = ts_jget(kinds, "norm");
	cr_assert_eq(ts_jint(norm, "ops"), 0);
	cr_assert_not(ts_jbool(norm, "fitted"));
	cr_assert(json_is_null(ts_jget(ts_jget(norm, "ratio_after"), "median")));
	cr_assert(ts_close_rel(ts_jnum(norm, "overhead_us"), 1.814, 1e-9));
	char keys[40][40];
	int nk = ts_man_json_keys("calibrate", keys, 40);
	static const char *const none[] = {NULL};
	ts_assert_man_order(j, keys, nk, none, "calibrate --json");
	json_decref(j);

	/* the profile read back gives the fitted times: fitting again from it
	 * starts at the first fit's error */
	json_t *again = ts_run_json(0, "calibrate --device %s -o %s.2 --json " RUNS, out, out);
	cr_assert(ts_close_rel(ts_jnum(again, "error_before"), after, 1e-9), "%g vs %g",
	          ts_jnum(again, "error_before"), after);
	cr_assert_str_eq(ts_jstr(again, "precision"), "fp16");
	json_decref(again);

	/* and serves any model and batch through --device */
	json_t *info = ts_run_json(0, "info " GOOGLENET " --device %s --dim N=8 --json", out);
	cr_assert_str_eq(ts_jstr(ts_jget(info, "onnx"), "device"), "h100-mine");
	json_decref(info);
}

Test(calibrate, the_report_shows_each_kind)
{
	char out[256], *text = NULL;
	ts_tpath(out, sizeof out, "p.profile");
	int st = ts_runf(&text, NULL, "calibrate --device h100 -o %s " RUNS, out);
	cr_assert_eq(st, 0);
	cr_assert(strstr(text, "norm             0  no measured op: h100's numbers kept"), "%s",
	          text);
	/* concat's row: its ops, then the median and worst ratio before and after */
	char *row = strstr(text, "\nconcat ");
	int ops;
	double mb, wb, ma, wa;
	cr_assert(row && sscanf(row, "\nconcat %d %lf %lf %lf %lf", &ops, &mb, &wb, &ma, &wa) == 5,
	          "%s", text);
	cr_assert_gt(ops, 5);
	cr_assert_gt(fabs(log(mb)), fabs(log(ma)), "%s", text);
	cr_assert(strstr(text, "wrote   "), "%s", text);
	free(text);
	char *prof = ts_slurp(out, NULL);
	cr_assert(prof && strstr(prof, "overhead.concat = "), "%s", prof);
	cr_assert(strstr(prof, "precision = fp16\n"));
	free(prof);
}

Test(calibrate, an_onnx_runtime_profile_is_a_run_too)
{
	/* resnet18 at batch 8 on a CPU (samples/h100/ort): far slower than an
	 * H100, every op measured alone (graph optimizations off) */
	char out[256];
	ts_tpath(out, sizeof out, "cpu.profile");
	json_t *j = ts_run_json(0,
	                        "calibrate --device h100 --precision fp32 -o %s --json " R18
	                        ",samples/h100/ort/resnet18.ort-noopt.json,N=8",
	                        out);
	cr_assert_eq(ts_jint(j, "ops"), 49);
	cr_assert_lt(ts_jnum(ts_jget(j, "ratio_before"), "median"), 0.2);
	double after = ts_jnum(ts_jget(j, "ratio_after"), "median");
	cr_assert(fabs(log(after)) < log(1.1), "median after %g", after);
	cr_assert_lt(ts_jnum(j, "error_after"), ts_jnum(j, "error_before") / 5);
	json_decref(j);
}

Test(calibrate, normalizations_and_concats_have_kinds_of_their_own)
{
	/* samples/dynamic/encoder.onnx has 4 LayerNormalization ops (its Concats
	 * are shape arithmetic, folded); googlenet 9 Concats of tensors */
	json_t *j = ts_run_json(0, "info samples/dynamic/encoder.onnx --json");
	json_t *kinds = ts_jget(ts_jget(j, "onnx"), "ops_by_kind");
	cr_assert_eq(ts_jint(kinds, "norm"), 4);
	cr_assert_eq(ts_jint(kinds, "concat"), 0);
	json_decref(j);
	j = ts_run_json(0, "info " GOOGLENET " --json");
	kinds = ts_jget(ts_jget(j, "onnx"), "ops_by_kind");
	cr_assert_eq(ts_jint(kinds, "concat"), 9);
	cr_assert_eq(ts_jint(kinds, "copy"), 0);
	cr_assert_eq(ts_jint(kinds, "norm"), 0);
	/* the h100 profile costs them as before their kinds: elementwise's and
	 * copy's numbers */
	json_t *prof = ts_jget(ts_jget(j, "onnx"), "device_profile");
	json_t *oh = ts_jget(prof, "overhead_us"), *me = ts_jget(prof, "mem_eff");
	cr_assert_eq(ts_jnum(oh, "norm"), ts_jnum(oh, "elementwise"));
	cr_assert_eq(ts_jnum(me, "norm"), ts_jnum(me, "elementwise"));
	cr_assert_eq(ts_jnum(oh, "concat"), ts_jnum(oh, "copy"));
	cr_assert_eq(ts_jnum(me, "concat"), ts_jnum(me, "copy"));
	json_decref(j);
}

/* runs calibrate with args (OUT is %1$s) expecting exit 2 and one line on
 * stderr holding want; OUT, written before, is left as it was */
static void refused(const char *args, const char *want)
{
	char out[256], cmd[2048], *err = NULL;
	ts_tpath(out, sizeof out, "keep.profile");
	ts_write_text(out, "name = kept\n");
	snprintf(cmd, sizeof cmd, args, out);
	int st = ts_runf(NULL, &err, "calibrate --device h100 %s", cmd);
	cr_assert_eq(st, 2, "'%s': exit %d: %s", cmd, st, err);
	cr_assert(strstr(err, want), "'%s': %s", cmd, err);
	cr_assert_eq(strchr(err, '\n'), err + strlen(err) - 1, "'%s': %s", cmd, err);
	char *kept = ts_slurp(out, NULL);
	cr_assert_str_eq(kept, "name = kept\n");
	free(kept);
	free(err);
}

Test(calibrate, bad_input_exits_2_naming_the_file)
{
	char bad[256], dot[256];
	refused("-o %s nothere.onnx,tests/data/h100/resnet18-N-1-fp16.csv", "nothere.onnx");
	refused("-o %s " R18 ",missing.csv,N=1", "missing.csv");
	ts_tpath(bad, sizeof bad, "bad.csv");
	ts_write_text(bad, "/conv1/Conv,21\n/no/such/op,3\n");
	char args[1024];
	snprintf(args, sizeof args, "-o %%s " R18 ",%s,N=1", bad);
	refused(args, "bad.csv");
	refused("-o %s " R18 ",tests/data/h100/resnet18-N-1-fp16.csv,M=4", "'M'");
	refused("-o %s " R18 ",tests/data/h100/resnet18-N-1-fp16.csv,N=x", "N=x");
	refused("-o %s " R18, R18);
	ts_tpath(dot, sizeof dot, "g.dot");
	ts_write_text(dot, "digraph g { a [work=1]; }\n");
	snprintf(args, sizeof args, "-o %%s %s,tests/data/h100/resnet18-N-1-fp16.csv", dot);
	refused(args, "g.dot");
	/* -o naming an input, and an -o that cannot be written */
	char cmd[1024], *err = NULL;
	snprintf(cmd, sizeof cmd, "calibrate -o %s " R18 ",%s,N=1", bad, bad);
	cr_assert_eq(ts_runf(NULL, &err, "%s", cmd), 2);
	cr_assert(strstr(err, "bad.csv") && strstr(err, "reads"), "%s", err);
	free(err);
	char *csv = ts_slurp(bad, NULL);
	cr_assert_str_eq(csv, "/conv1/Conv,21\n/no/such/op,3\n");
	free(csv);
	cr_assert_eq(ts_runf(NULL, &err,
	                     "calibrate -o /nonexistent-dir/x.profile " R18
	                     ",tests/data/h100/resnet18-N-1-fp16.csv,N=1"),
	             2);
	cr_assert(strstr(err, "/nonexistent-dir/x.profile"), "%s", err);
	free(err);
	cr_assert_eq(ts_runf(NULL, &err, "calibrate " R18 ",tests/data/h100/resnet18-N-1-fp16.csv"),
	             2);
	cr_assert(strstr(err, "-o"), "%s", err);
	free(err);
}
