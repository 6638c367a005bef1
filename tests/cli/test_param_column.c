/*
 * test_param_column.c - the parameter bytes each stage holds, in the text
 * reports of eval and solve (the param column, and the memory limit it is
 * held against) and in the rendered stage graph (a param row per stage,
 * the limit and an infeasible stage in the caption).
 *
 * Expected values come by hand from the samples: figure2.dot's params are
 * a 4, u 4, v 8, w 2, x 6, y 1, so its own partition {a, u} {v, w} {x, y}
 * holds 8, 10 and 7 bytes; residual.dot's conv1 and conv2 hold 60 each
 * (120 together, over its hard limit of 100) and mm_a and mm_b 30 each.
 */
#include "tests/cli/cli_test.h"

TestSuite(param_column, .init = ts_scratch_init, .fini = ts_scratch_fini, .timeout = 60);

/* The text after the cost of stage s's row (1-based) in a report, or
 * NULL: the rows start with the bottleneck mark, the stage and its ops. */
static const char *row_of(const char *out, int s)
{
	for (const char *p = out; (p = strchr(p, '\n')) != NULL; p++) {
		int stage;
		if (sscanf(p + 2, "%d", &stage) == 1 && stage == s && (p[1] == ' ' || p[1] == '*'))
			return p + 1;
	}
	return NULL;
}

/* The last number of a row, before any "  over memory". */
static double last_number(const char *row)
{
	const char *end = strchr(row, '\n'), *over = strstr(row, "  over memory");
	if (over && over < end)
		end = over;
	const char *p = end;
	while (p > row && p[-1] != ' ')
		p--;
	return atof(p);
}

Test(param_column, eval_gives_each_stage_its_parameter_bytes)
{
	char p[128], *out;
	ts_write_text(ts_tpath(p, sizeof p, "own.json"), ts_fig2_own);
	cr_assert_eq(ts_runf(&out, NULL, "eval " FIGURE2 " %s", p), 0);
	cr_assert(strstr(out, "         cost        param\n"), "no param heading:\n%s", out);
	const double want[3] = {4 + 4, 8 + 2, 6 + 1};
	for (int s = 1; s <= 3; s++) {
		const char *row = row_of(out, s);
		cr_assert(row, "no row for stage %d:\n%s", s, out);
		cr_assert_eq(last_number(row), want[s - 1], "stage %d:\n%s", s, out);
	}
	/* no memory limit, so no line saying one */
	cr_assert_null(strstr(out, "memory limit"), "%s", out);
	free(out);
}

Test(param_column, eval_holds_the_bytes_against_the_limit)
{
	char p[128], *out;
	ts_write_text(ts_tpath(p, sizeof p, "two.json"), ts_residual_two);
	cr_assert_eq(ts_runf(&out, NULL, "eval " RESIDUAL " %s", p), 1);
	const char *one = row_of(out, 1), *two = row_of(out, 2);
	cr_assert(one && two, "%s", out);
	/* {input, conv1, conv2}: 60 + 60; the rest: mm_a and mm_b, 30 + 30 */
	cr_assert_eq(last_number(one), 120, "%s", out);
	cr_assert_eq(last_number(two), 60, "%s", out);
	cr_assert(strncmp(strstr(one, "120.0000"), "120.0000  over memory\n", 22) == 0, "%s", out);
	cr_assert(strstr(out, "memory limit 100.0000 bytes of parameters per stage (hard)\n"), "%s",
	          out);
	free(out);
	/* the overflow policy: the same bytes, the same limit */
	cr_assert_eq(ts_runf(&out, NULL, "eval --memory-policy overflow -M 150 " RESIDUAL " %s", p),
	             0);
	cr_assert_eq(last_number(row_of(out, 1)), 120, "%s", out);
	cr_assert(strstr(out, "memory limit 150.0000 bytes of parameters per stage (overflow)\n"),
	          "%s", out);
	free(out);
}

/* solve's table is eval's: its param column is what the JSON of the same
 * run says each stage holds. */
Test(param_column, solve_prints_the_param_column_of_its_partition)
{
	char *out;
	cr_assert_eq(ts_runf(&out, NULL, "solve " FIGURE2), 0);
	json_t *j = ts_run_json(0, "solve --json " FIGURE2);
	json_t *st = ts_jget(j, "stages");
	cr_assert_eq(json_array_size(st), 3);
	double total = 0;
	for (int s = 1; s <= 3; s++) {
		const char *row = row_of(out, s);
		cr_assert(row, "no row for stage %d:\n%s", s, out);
		double want = ts_jnum(json_array_get(st, (size_t)s - 1), "param");
		cr_assert_eq(last_number(row), want, "stage %d:\n%s", s, out);
		total += want;
	}
	cr_assert_eq(total, 4 + 4 + 8 + 2 + 6 + 1, "every op's params are somewhere");
	json_decref(j);
	free(out);
}

/* The stage graph as DOT: each stage's box has its param row, against the
 * limit; an infeasible partition's caption says so and gives no gap. */
Test(param_column, render_shows_the_parameter_bytes_and_the_limit)
{
	char p[128], dot[128];
	ts_write_text(ts_tpath(p, sizeof p, "two.json"), ts_residual_two);
	ts_tpath(dot, sizeof dot, "two.dot");
	cr_assert_eq(ts_runf(NULL, NULL, "render " RESIDUAL " %s -T dot -o %s", p, dot), 0);
	char *text = ts_slurp(dot, NULL);
	cr_assert(strstr(text, ">120 B / 100 B<"), "%s", text);
	cr_assert(strstr(text, ">60 B / 100 B<"), "%s", text);
	cr_assert(strstr(text, "over memory: infeasible"), "%s", text);
	cr_assert(strstr(text,
	                 "infeasible: stage 1 holds 120 B of parameters, over the hard memory "
	                 "limit of 100 B"),
	          "%s", text);
	cr_assert_null(strstr(text, "gap"), "%s", text);
	free(text);
	/* figure2 has no limit: the bytes alone */
	ts_write_text(ts_tpath(p, sizeof p, "own.json"), ts_fig2_own);
	cr_assert_eq(ts_runf(NULL, NULL, "render " FIGURE2 " %s -T dot -o %s", p, dot), 0);
	text = ts_slurp(dot, NULL);
	cr_assert(strstr(text, ">10 B<"), "%s", text);
	cr_assert_null(strstr(text, "memory limit"), "%s", text);
	free(text);
}
