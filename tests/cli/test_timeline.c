/*
 * test_timeline.c - `stagecut eval --timeline` and `render --timeline`:
 * the JSON keys and a case computed by hand (samples/paper/figure2.dot with
 * its own partition; stage costs 0+3+2, 2+4+2, 2+3+0 from the file's
 * comment), and the pictures: the SVG parsed back for its lanes and compute
 * segments, a PNG's signature and size.
 */
#include "tests/cli/cli_test.h"

TestSuite(timeline, .init = ts_scratch_init, .fini = ts_scratch_fini, .timeout = 60);

static const char *fig2_part(void)
{
	static char p[128];
	ts_tpath(p, sizeof p, "fig2.json");
	ts_write_text(p, ts_fig2_own);
	return p;
}

Test(timeline, eval_json_by_hand)
{
	json_t *root = ts_run_json(0, "eval --timeline --json %s %s", FIGURE2, fig2_part());
	json_t *t = ts_jget(root, "timeline");
	cr_assert_eq(ts_jint(t, "batches"), 6); /* 2k */
	cr_assert_str_eq(ts_jstr(t, "schedule"), "inference");
	cr_assert_str_eq(ts_jstr(t, "time_unit"), "time units");
	/* stage 1 block b at [5b, 5b+5], stage 2 at [5+8b, 13+8b], stage 3 at
	 * [13+8b, 18+8b] */
	cr_assert_eq(ts_jnum(t, "makespan"), 58);
	cr_assert_eq(ts_jnum(t, "period"), 8);
	cr_assert_eq(ts_jnum(t, "throughput"), 0.125);
	cr_assert_eq(ts_jnum(t, "latency"), 18);
	cr_assert_eq(ts_jnum(t, "fill"), 13);
	cr_assert_eq(ts_jnum(t, "drain"), 28);
	cr_assert_eq(ts_jnum(t, "bottleneck"), 8);
	cr_assert_eq(ts_jint(t, "bottleneck_stage"), 2);
	json_t *lanes = ts_jget(t, "lanes");
	cr_assert_eq(json_array_size(lanes), 3);
	static const double first[3][3] = {{0, 0, 5}, {5, 7, 13}, {13, 15, 18}};
	static const double busy[3] = {30, 48, 30};
	for (int s = 0; s < 3; s++) {
		json_t *lane = json_array_get(lanes, (size_t)s);
		cr_assert_eq(ts_jint(lane, "stage"), s + 1);
		cr_assert_eq(ts_jnum(lane, "busy"), busy[s]);
		cr_assert(ts_close_rel(ts_jnum(lane, "idle"), 1 - busy[s] / 58, 1e-12));
		json_t *segs = ts_jget(lane, "segments");
		cr_assert_eq(json_array_size(segs), 18);
		for (size_t i = 0; i < 18; i++) {
			json_t *g = json_array_get(segs, i);
			int b = (int)i / 3;
			static const char *kinds[] = {"receive", "compute", "send"};
			cr_assert_eq(ts_jint(g, "batch"), b + 1);
			cr_assert_str_eq(ts_jstr(g, "pass"), "forward");
			cr_assert_str_eq(ts_jstr(g, "kind"), kinds[i % 3]);
			double shift = s == 0 ? 5 * b : 8 * b;
			if (i % 3 == 0)
				cr_assert_eq(ts_jnum(g, "start"), first[s][0] + shift,
				             "stage %d seg %zu", s + 1, i);
			if (i % 3 == 1)
				cr_assert_eq(ts_jnum(g, "start"), first[s][1] + shift);
			if (i % 3 == 2)
				cr_assert_eq(ts_jnum(g, "end"), first[s][2] + shift);
		}
	}
	json_decref(root);
}

Test(timeline, eval_text_and_batches)
{
	char *out = NULL;
	int st = ts_runf(&out, NULL, "eval --timeline --batches 3 %s %s", FIGURE2, fig2_part());
	cr_assert_eq(st, 0);
	/* three micro-batches: stage 3 ends at 18 + 16 */
	cr_assert(strstr(out, "timeline: 3 micro-batches, inference"), "%s", out);
	cr_assert(strstr(out, "makespan 34.0000"), "%s", out);
	cr_assert(strstr(out, "latency 18.0000"), "%s", out);
	free(out);
	json_t *root = ts_run_json(0, "eval --json %s %s", FIGURE2, fig2_part());
	cr_assert_null(json_object_get(root, "timeline"));
	json_decref(root);
	cr_assert_eq(ts_runf(NULL, NULL, "eval --timeline --batches 0 %s %s", FIGURE2, fig2_part()),
	             2);
}

Test(timeline, eval_training_schedules)
{
	char g[128];
	ts_tpath(g, sizeof g, "train.dot");
	cr_assert_eq(ts_runf(NULL, NULL, "gen --training -n 12 --seed 4 -o %s", g), 0);
	char p[128];
	ts_tpath(p, sizeof p, "train.part");
	cr_assert_eq(ts_runf(NULL, NULL, "solve %s -k 3 -o %s", g, p), 0);
	const char *scheds[] = {"1f1b", "gpipe"};
	for (int i = 0; i < 2; i++) {
		json_t *root =
		        ts_run_json(0, "eval --timeline --batches 5 --schedule %s --json %s %s",
		                    scheds[i], g, p);
		json_t *t = ts_jget(root, "timeline");
		cr_assert_str_eq(ts_jstr(t, "schedule"), scheds[i]);
		json_t *lanes = ts_jget(t, "lanes");
		cr_assert_eq(json_array_size(lanes), 3);
		json_t *segs = ts_jget(json_array_get(lanes, 0), "segments");
		cr_assert_eq(json_array_size(segs), 5 * 2 * 3);
		int back = 0;
		for (size_t j = 0; j < json_array_size(segs); j++)
			back += !strcmp(ts_jstr(json_array_get(segs, j), "pass"), "backward");
		cr_assert_eq(back, 15);
		json_decref(root);
	}
}
