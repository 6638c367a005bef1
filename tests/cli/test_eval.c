/*
 * test_eval.c - `stagecut eval`: stage tables by hand, ties, the reasons
 * given for an invalid or infeasible partition, and the settings options
 * moving the costs as the model says.
 *
 * Expected values never come from the program's own output: they are derived
 * by hand from the sample files, parsed from raw inputs, or computed by the
 * independent cost model and brute force of tests/support.c.  Hand-derived
 * values are sums of dyadic numbers, compared with ==; values from
 * real-valued inputs are compared to a relative 1e-9.  Split from the former
 * test_commands.c; the other commands' tests are test_<command>.c beside it.
 */
#include "tests/cli/cli_test.h"

TestSuite(eval, .init = ts_scratch_init, .fini = ts_scratch_fini, .timeout = 60);

/* ---- eval --------------------------------------------------------------- */

Test(eval, eval_figure2_own_partition_by_hand)
{
	char p[128];
	ts_write_text(ts_tpath(p, sizeof p, "own.json"), ts_fig2_own);
	json_t *r = ts_run_json(0, "eval --json " FIGURE2 " %s", p);
	cr_assert_str_eq(ts_jstr(r, "graph"), "figure2.dot");
	cr_assert_str_eq(ts_jstr(r, "partition"), p);
	cr_assert_eq(ts_jint(r, "k"), 3);
	cr_assert(ts_jbool(r, "valid"));
	cr_assert(ts_jbool(r, "feasible"));
	cr_assert_null(json_object_get(r, "violation"));
	/* the file's comments: 0+3+2, 2+4+2, 2+3+0; params 8, 10, 7 */
	const ts_hand_stage h[] = {
	        {2, 3, 0, 2, 0, 8, false},
	        {2, 4, 2, 2, 0, 10, false},
	        {2, 3, 2, 0, 0, 7, false},
	};
	ts_assert_hand_stages(r, h, 3, 1, "figure2 own");
	cr_assert(ts_jnum(r, "bottleneck") == 8);
	json_decref(r);

	/* the text report says the same */
	char *out;
	cr_assert_eq(ts_runf(&out, NULL, "eval " FIGURE2 " %s", p), 0);
	cr_assert(strstr(out, "bottleneck 8.0000 (stage 2)"), "%s", out);
	cr_assert(strstr(out, "\nvalid\n"), "%s", out);
	free(out);
}

/* The hand table of ts_fig2_p4 at bandwidth bw, memory M (overflow policy):
 * stage 1 {a}: io out 1 (a's tensor to u);
 * stage 2 {u, v, w}: io in 1 (a), work 2+3+1 = 6, io out v 1 + w 1 = 2,
 *   param 4+8+2 = 14 (u's tensor stays inside);
 * stage 3: empty;
 * stage 4 {x, y}: io in v 1 + w 1 = 2, work 2+1 = 3; param 6+1 = 7. */
static void fig2_p4_table(ts_hand_stage h[4], double bw, double memory, bool hard)
{
	const ts_hand_stage base[4] = {
	        {1, 1, 0, 1, 0, 4, false},
	        {3, 6, 1, 2, 0, 14, false},
	        {0, 0, 0, 0, 0, 0, false},
	        {2, 3, 2, 0, 0, 7, false},
	};
	for (int s = 0; s < 4; s++) {
		h[s] = base[s];
		h[s].io_in /= bw;
		h[s].io_out /= bw;
		h[s].over = h[s].param > memory;
		if (h[s].over && !hard)
			h[s].overflow = (h[s].param - memory) / bw;
	}
}

Test(eval, eval_figure2_with_an_empty_stage_by_hand)
{
	char p[128];
	ts_write_text(ts_tpath(p, sizeof p, "p4.json"), ts_fig2_p4);
	json_t *r = ts_run_json(0, "eval --json " FIGURE2 " %s", p);
	cr_assert_eq(ts_jint(r, "k"), 4);
	cr_assert(ts_jbool(r, "valid") && ts_jbool(r, "feasible"));
	ts_hand_stage h[4];
	fig2_p4_table(h, 1, INFINITY, false);
	ts_assert_hand_stages(r, h, 4, 1, "figure2 p4");
	cr_assert(ts_jnum(r, "bottleneck") == 9);
	cr_assert_eq(ts_jint(r, "bottleneck_stage"), 2);
	json_decref(r);
}

Test(eval, eval_ties_go_to_the_lowest_stage)
{
	/* lemma_b2's own partition {h_i, l_i}: every stage works 7/8 + 1/8 = 1
	 * and nothing crosses (h1 -> l1 stays in stage 1) */
	char p[128];
	ts_write_text(
	        ts_tpath(p, sizeof p, "opt.json"),
	        "{\"format\": \"stagecut-partition/1\", \"k\": 4, \"stages\": {\"h1\": 1, "
	        "\"l1\": 1, \"h2\": 2, \"l2\": 2, \"h3\": 3, \"l3\": 3, \"h4\": 4, \"l4\": 4}}");
	json_t *r = ts_run_json(0, "eval --json " LEMMA_B2 " %s", p);
	const ts_hand_stage h[4] = {
	        {2, 1, 0, 0, 0, 0, false},
	        {2, 1, 0, 0, 0, 0, false},
	        {2, 1, 0, 0, 0, 0, false},
	        {2, 1, 0, 0, 0, 0, false},
	};
	ts_assert_hand_stages(r, h, 4, 1, "lemma_b2 optimum");
	cr_assert_eq(ts_jint(r, "bottleneck_stage"), 1);
	json_decref(r);
}

/* Runs eval on residual.dot with partition text; expects exit 1, and
 * returns the JSON report; *text_out gets the text report's stdout. */
static json_t *eval_bad(const char *name, const char *text, const char *opts, char **text_out)
{
	char p[128];
	ts_write_text(ts_tpath(p, sizeof p, name), text);
	json_t *r = ts_run_json(1, "eval --json %s " RESIDUAL " %s", opts, p);
	char *err;
	int status = ts_runf(text_out, &err, "eval %s " RESIDUAL " %s", opts, p);
	cr_assert_eq(status, 1, "eval %s: exit %d, stderr %s", name, status, err);
	free(err);
	return r;
}

Test(eval, eval_names_an_edge_going_back)
{
	/* conv1 in stage 2 feeds conv2 in stage 1: the only edge going back */
	char *out;
	json_t *r = eval_bad("back.json",
	                     "{\"format\": \"stagecut-partition/1\", \"k\": 3, \"stages\": "
	                     "{\"input\": 1, \"conv1\": 2, \"conv2\": 1, \"add\": 2, \"mm_a\": 3,"
	                     " \"mm_b\": 3, \"concat\": 3, \"output\": 3}}",
	                     "", &out);
	cr_assert_not(ts_jbool(r, "valid"));
	const char *why = ts_jstr(r, "violation");
	cr_assert(strstr(why, "'conv1'") && strstr(why, "'conv2'"), "violation: %s", why);
	cr_assert(strstr(why, "'conv1' -> 'conv2'"), "edge not named in order: %s", why);
	/* the last line of the text report is "invalid: " and the same reason */
	char want[600];
	snprintf(want, sizeof want, "\ninvalid: %s\n", why);
	cr_assert(strstr(out, want), "text report: %s", out);
	/* the costs are still reported (B = 2): stage 1 {input, conv2} reads
	 * conv1 (8/2), works 6, sends input's and conv2's tensors (16/2) */
	json_t *st = json_array_get(ts_jget(r, "stages"), 0);
	cr_assert(ts_jnum(st, "io_in") == 4 && ts_jnum(st, "work") == 6 &&
	          ts_jnum(st, "io_out") == 8);
	json_decref(r);
	free(out);
}

Test(eval, eval_names_a_split_group)
{
	char *out;
	json_t *r = eval_bad("split.json",
	                     "{\"format\": \"stagecut-partition/1\", \"k\": 3, \"stages\": "
	                     "{\"input\": 1, \"conv1\": 1, \"conv2\": 2, \"add\": 2, \"mm_a\": 2,"
	                     " \"mm_b\": 3, \"concat\": 3, \"output\": 3}}",
	                     "", &out);
	cr_assert_not(ts_jbool(r, "valid"));
	const char *why = ts_jstr(r, "violation");
	cr_assert(strstr(why, "matmul"), "the group is not named: %s", why);
	char want[600];
	snprintf(want, sizeof want, "\ninvalid: %s\n", why);
	cr_assert(strstr(out, want), "text report: %s", out);
	json_decref(r);
	free(out);
}

Test(eval, eval_names_the_stage_over_the_hard_memory_limit)
{
	/* conv1 + conv2 hold 120 bytes in stage 1, over M = 100 (hard) */
	char *out;
	json_t *r = eval_bad("two.json", ts_residual_two, "", &out);
	cr_assert(ts_jbool(r, "valid"));
	cr_assert_not(ts_jbool(r, "feasible"));
	const char *why = ts_jstr(r, "violation");
	cr_assert(strstr(why, "stage 1") && strstr(why, "120") && strstr(why, "100") &&
	                  strstr(why, "memory"),
	          "violation: %s", why);
	char want[600];
	snprintf(want, sizeof want, "\ninfeasible: %s\n", why);
	cr_assert(strstr(out, want), "text report: %s", out);
	cr_assert(strstr(out, "over memory"), "stage not marked: %s", out);
	/* stage 1 {input, conv1, conv2}: sends input's and conv2's tensors to
	 * add (16 bytes / 2); stage 2 reads them and works 1+3+3+1+1 = 9 */
	const ts_hand_stage h[2] = {
	        {3, 12, 0, 8, 0, 120, true},
	        {5, 9, 8, 0, 0, 60, false},
	};
	ts_assert_hand_stages(r, h, 2, 2, "residual two");
	json_decref(r);
	free(out);
}

/* ---- eval: the settings options move the costs as the model says --------- */

Test(eval, eval_bandwidth_scales_io_exactly)
{
	char p[128];
	ts_write_text(ts_tpath(p, sizeof p, "p4.json"), ts_fig2_p4);
	static const double bws[] = {2, 0.5, 4};
	for (size_t i = 0; i < sizeof bws / sizeof bws[0]; i++) {
		json_t *r = ts_run_json(0, "eval --json " FIGURE2 " %s -B %g", p, bws[i]);
		ts_hand_stage h[4];
		fig2_p4_table(h, bws[i], INFINITY, false);
		char what[64];
		snprintf(what, sizeof what, "figure2 p4 -B %g", bws[i]);
		ts_assert_hand_stages(r, h, 4, bws[i], what);
		json_decref(r);
	}
	/* B = 2: 0.5 + 6 + 1 = 7.5 */
	json_t *r = ts_run_json(0, "eval --json " FIGURE2 " %s --bandwidth 2", p);
	cr_assert(ts_jnum(r, "bottleneck") == 7.5);
	json_decref(r);
}

Test(eval, eval_memory_overflow_and_hard_policy)
{
	char p[128];
	ts_write_text(ts_tpath(p, sizeof p, "p4.json"), ts_fig2_p4);
	ts_hand_stage h[4];
	/* M = 10, overflow: stage 2 pays (14 - 10)/1 = 4, so 13 */
	json_t *r = ts_run_json(0, "eval --json " FIGURE2 " %s -M 10", p);
	fig2_p4_table(h, 1, 10, false);
	ts_assert_hand_stages(r, h, 4, 1, "p4 -M 10");
	cr_assert(ts_jnum(r, "bottleneck") == 13);
	cr_assert(ts_jbool(r, "feasible"));
	json_decref(r);
	/* M = 10, B = 2: the overflow halves too: 0.5 + 6 + 1 + 2 = 9.5 */
	r = ts_run_json(0, "eval --json " FIGURE2 " %s -M 10 -B 2", p);
	fig2_p4_table(h, 2, 10, false);
	ts_assert_hand_stages(r, h, 4, 2, "p4 -M 10 -B 2");
	cr_assert(ts_jnum(r, "bottleneck") == 9.5);
	json_decref(r);
	/* M = 14 exactly fits: no overflow */
	r = ts_run_json(0, "eval --json " FIGURE2 " %s -M 14", p);
	fig2_p4_table(h, 1, 14, false);
	ts_assert_hand_stages(r, h, 4, 1, "p4 -M 14");
	cr_assert(ts_jnum(r, "bottleneck") == 9);
	json_decref(r);
	/* M = 10, hard: no overflow, stage 2 infeasible, exit 1 */
	r = ts_run_json(1, "eval --json " FIGURE2 " %s -M 10 --memory-policy hard", p);
	fig2_p4_table(h, 1, 10, true);
	ts_assert_hand_stages(r, h, 4, 1, "p4 -M 10 hard");
	cr_assert(ts_jbool(r, "valid"));
	cr_assert_not(ts_jbool(r, "feasible"));
	const char *why = ts_jstr(r, "violation");
	cr_assert(strstr(why, "stage 2") && strstr(why, "14"), "violation: %s", why);
	json_decref(r);
}

Test(eval, eval_policy_and_memory_overrides_on_residual)
{
	char p[128];
	ts_write_text(ts_tpath(p, sizeof p, "two.json"), ts_residual_two);
	/* overflow instead of hard: valid, stage 1 pays (120 - 100)/2 = 10 */
	json_t *r = ts_run_json(0, "eval --json --memory-policy overflow " RESIDUAL " %s", p);
	ts_hand_stage h[2] = {
	        {3, 12, 0, 8, 10, 120, true},
	        {5, 9, 8, 0, 0, 60, false},
	};
	ts_assert_hand_stages(r, h, 2, 2, "two, overflow");
	cr_assert(ts_jnum(r, "bottleneck") == 30);
	json_decref(r);
	/* unlimited memory: nothing over, 20 */
	r = ts_run_json(0, "eval --json -M inf " RESIDUAL " %s", p);
	h[0].overflow = 0;
	h[0].over = false;
	ts_assert_hand_stages(r, h, 2, 2, "two, -M inf");
	json_decref(r);
	/* M = 120 under the hard policy fits exactly; B = 1 doubles the io */
	r = ts_run_json(0, "eval --json -M 120 -B 1 " RESIDUAL " %s", p);
	h[0].io_out = 16;
	h[1].io_in = 16;
	ts_assert_hand_stages(r, h, 2, 1, "two, -M 120 -B 1");
	cr_assert(ts_jnum(r, "bottleneck") == 28);
	json_decref(r);
}

/* An op name holding ESC and TAB (valid UTF-8, so it loads, here after 512
 * bytes of comment; test_info.c loads one nearer the start): eval's
 * "invalid:" line on
 * stdout names it escaped, as stderr does, never with the raw bytes that a
 * terminal would obey; --json keeps the real name (JSON escapes it). */
Test(eval, op_names_are_escaped_on_stdout)
{
	char g[128], p[128];
	ts_tpath(g, sizeof g, "esc.dot");
	ts_tpath(p, sizeof p, "esc.json");
	char pad[700];
	memset(pad, 'x', sizeof pad - 1);
	pad[sizeof pad - 1] = '\0';
	char text[1024];
	snprintf(text, sizeof text,
	         "/* %s */\ndigraph esc {\n\tk = 2;\n\t\"a\x1b[31m\tb\" [work = 1];\n\tc [work = "
	         "2];\n\t\"a\x1b[31m\tb\" -> c;\n}\n",
	         pad);
	ts_write_text(g, text);
	ts_write_text(p, "{\"format\": \"stagecut-partition/1\", \"k\": 2, \"stages\": "
	                 "{\"a\\u001b[31m\\tb\": 2, \"c\": 1}}\n");
	char *out, *err;
	cr_assert_eq(ts_runf(&out, &err, "eval %s %s", g, p), 1, "%s", err);
	cr_assert_null(strchr(out, '\x1b'), "raw ESC on stdout:\n%s", out);
	cr_assert_null(strchr(out, '\t'), "raw TAB on stdout:\n%s", out);
	cr_assert(strstr(out, "invalid: edge 'a\\x1b[31m\\tb' -> 'c' goes from stage 2 back to "
	                      "stage 1\n"),
	          "%s", out);
	free(out);
	free(err);
	json_t *j = ts_run_json(1, "eval --json %s %s", g, p);
	cr_assert_str_eq(ts_jstr(j, "violation"),
	                 "edge 'a\x1b[31m\tb' -> 'c' goes from stage 2 back to stage 1");
	json_decref(j);
}

/* A C1 control in a name (U+0080-U+009F; U+009B is CSI, which starts a
 * terminal escape where C1 controls are taken in UTF-8) is escaped in a
 * report line on stdout, as C0 ones are, while other non-ASCII
 * characters (U+00A0, the same first byte) print as they are. */
Test(eval, c1_controls_in_names_are_escaped_on_stdout)
{
	char dot[256], part[256], *out, *err;
	ts_tpath(dot, sizeof dot, "c1.dot");
	ts_tpath(part, sizeof part, "c1.json");
	ts_write_text(dot, "digraph g { \"x\xc2\x9b"
	                   "31m\" [work = 1]; \"nb\xc2\xa0sp\" [work = 1]; "
	                   "\"nb\xc2\xa0sp\" -> \"x\xc2\x9b"
	                   "31m\"; }\n");
	ts_write_text(part, "{\"format\": \"stagecut-partition/1\", \"k\": 2, \"stages\": "
	                    "{\"x\xc2\x9b"
	                    "31m\": 3, \"nb\xc2\xa0sp\": 1}}\n");
	int st = ts_runf(&out, &err, "eval %s %s", dot, part);
	cr_assert_eq(st, 1, "%s", err);
	cr_assert(strstr(out, "invalid: op 'x\\xc2\\x9b31m' is in stage 3, outside 1..k"), "%s",
	          out);
	cr_assert_null(strstr(out, "\xc2\x9b"), "%s", out);
	free(out);
	free(err);
	ts_write_text(part, "{\"format\": \"stagecut-partition/1\", \"k\": 2, \"stages\": "
	                    "{\"x\xc2\x9b"
	                    "31m\": 1, \"nb\xc2\xa0sp\": 2}}\n");
	st = ts_runf(&out, &err, "eval %s %s", dot, part);
	cr_assert_eq(st, 1, "%s", err);
	cr_assert(strstr(out, "edge 'nb\xc2\xa0sp' -> 'x\\xc2\\x9b31m' goes from stage 2 back"),
	          "%s", out);
	free(out);
	free(err);
}

/* The same in JSON (JSON allows C1 controls raw, and a terminal
 * showing --json or a partition file acted on them): --json and the
 * partition file escape them as \u009b, U+00A0 stays as it is, and the file
 * reads back to the same names. */
Test(eval, c1_controls_in_names_are_escaped_in_json)
{
	char dot[256], part[256], *out, *err;
	ts_tpath(dot, sizeof dot, "c1j.dot");
	ts_tpath(part, sizeof part, "c1j.json");
	ts_write_text(dot, "digraph g { k = 2; \"x\xc2\x9b"
	                   "31m\" [work = 1]; \"nb\xc2\xa0sp\" [work = 2]; "
	                   "\"x\xc2\x9b"
	                   "31m\" -> \"nb\xc2\xa0sp\"; }\n");
	int st = ts_runf(&out, &err, "solve %s -o %s", dot, part);
	cr_assert_eq(st, 0, "%s", err);
	free(out);
	free(err);
	char *text = ts_slurp(part, NULL);
	cr_assert(strstr(text, "\"x\\u009b31m\": 1") && strstr(text, "\"nb\xc2\xa0sp\": 2"), "%s",
	          text);
	cr_assert_null(strstr(text, "\xc2\x9b"), "%s", text);
	free(text);
	st = ts_runf(&out, &err, "eval --json %s %s", dot, part);
	cr_assert_eq(st, 0, "the file reads back: %s", err);
	cr_assert_null(strstr(out, "\xc2\x9b"), "%s", out);
	free(out);
	free(err);
	/* a violation names the op in --json */
	ts_write_text(part, "{\"format\": \"stagecut-partition/1\", \"k\": 2, \"stages\": "
	                    "{\"x\xc2\x9b"
	                    "31m\": 2, \"nb\xc2\xa0sp\": 1}}\n");
	st = ts_runf(&out, &err, "eval --json %s %s", dot, part);
	cr_assert_eq(st, 1, "%s", err);
	cr_assert(strstr(out, "x\\u009b31m") && !strstr(out, "\xc2\x9b"), "%s", out);
	json_t *j = json_loads(out, 0, NULL);
	cr_assert(j && strstr(ts_jstr(j, "violation"), "'x\xc2\x9b"
	                                               "31m'"),
	          "the escape is JSON's: %s", out);
	json_decref(j);
	free(out);
	free(err);
}

/* A path that is not UTF-8 goes into the JSON escaped (jansson
 * refused it and the program said "out of memory"). */
Test(eval, a_path_not_utf8_is_escaped_in_json)
{
	char part[256];
	ts_tpath(part, sizeof part, "p\xe9.json");
	ts_write_text(part,
	              "{\"format\": \"stagecut-partition/1\", \"k\": 2, \"stages\": {\"h1\": 1, "
	              "\"h2\": 1, \"h3\": 1, \"h4\": 1, \"l1\": 2, \"l2\": 2, \"l3\": 2, "
	              "\"l4\": 2}}\n");
	json_t *j = ts_run_json(0, "eval --json " LEMMA_B2 " '%s'", part);
	const char *got = ts_jstr(j, "partition");
	cr_assert(strstr(got, "/p\\xe9.json"), "%s", got);
	json_decref(j);
}
