/*
 * test_pins_cli.c - `solve --pin OP=STAGE`: the pinned optimum
 * of the paper's Lemma B.2 graph, worked out by hand below, under the exact
 * DP, brkga and the exact MIP's proof; the pins in the partition file and
 * the JSON; pins that cannot hold and bad option values exit 2 naming what
 * is wrong, and write nothing.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <string.h>
#include <unistd.h>

#include "tests/support.h"

#define LEMMA "samples/paper/lemma_b2.dot"

TestSuite(pins_cli, .init = ts_scratch_init, .fini = ts_scratch_fini, .timeout = 60);

/* h1 -> l1 carries 40 bytes at bandwidth 1; h ops weigh 0.875, l ops
 * 0.125.  Without pins the optimum is 1 ({h_i, l_i} per stage).  With h1
 * in stage 1 and l1 in stage 2 the tensor crosses: stage 1 costs at least
 * 0.875 + 40 = 40.875 and stage 2 at least 40.125, and everything else fits
 * beside l1 or in stages 3 and 4 under 40.875, so the pinned optimum is
 * 40.875, with h1 alone in stage 1. */
static void check_pinned(const char *method, const char *extra)
{
	char part[256];
	ts_tpath(part, sizeof part, "p.json");
	unlink(part);
	json_t *r =
	        ts_run_json(0, "solve " LEMMA " -k 4 --pin h1=1 --pin l1=2 -m %s %s -o %s --json",
	                    method, extra, part);
	double bn = ts_jnum(r, "bottleneck");
	cr_assert(ts_close_rel(bn, 40.875, 1e-9), "%s: bottleneck %.17g", method, bn);
	/* proven of the pinned problem, in "pinned"; of the free one (whose
	 * optimum is 1) nothing: no lower bound, not optimal */
	json_t *pd = ts_jget(r, "pinned");
	cr_assert(json_is_true(json_object_get(pd, "optimal")), "%s: not proven", method);
	cr_assert(ts_close_rel(ts_jnum(pd, "lower_bound"), 40.875, 1e-6), "%s: %.17g", method,
	          ts_jnum(pd, "lower_bound"));
	cr_assert(!ts_jbool(r, "optimal"), "%s: the pinned optimum called optimal", method);
	cr_assert(json_is_null(ts_jget(r, "lower_bound")) && json_is_null(ts_jget(r, "gap")) &&
	                  json_is_null(ts_jget(r, "proven_by")),
	          "%s: a bound of the pinned problem given as the free one's", method);
	cr_assert_str_eq(ts_jstr(r, "proof"), "pinned");
	json_t *pins = ts_jget(r, "pins");
	cr_assert_eq(json_array_size(pins), 2);
	cr_assert_str_eq(ts_jstr(json_array_get(pins, 0), "op"), "h1");
	cr_assert_eq(ts_jnum(json_array_get(pins, 0), "stage"), 1);
	json_decref(r);
	json_error_t e;
	json_t *p = json_load_file(part, 0, &e);
	cr_assert(p, "%s", e.text);
	json_t *st = json_object_get(p, "stages");
	cr_assert_eq(json_integer_value(json_object_get(st, "h1")), 1);
	cr_assert_eq(json_integer_value(json_object_get(st, "l1")), 2);
	json_decref(p);
}

Test(pins_cli, the_pinned_optimum_by_the_exact_dp)
{
	check_pinned("exact", "");
}

Test(pins_cli, the_pinned_optimum_by_brkga_and_the_mip_proof)
{
	check_pinned("brkga", "--proof -e 2000");
}

/* without the pins the same graph's optimum is 1: the pins did change it */
Test(pins_cli, without_pins_the_optimum_is_lower)
{
	json_t *r = ts_run_json(0, "solve " LEMMA " -k 4 -m exact --json");
	cr_assert(ts_close_rel(ts_jnum(r, "bottleneck"), 1, 1e-9));
	cr_assert_eq(json_array_size(ts_jget(r, "pins")), 0);
	json_decref(r);
}

Test(pins_cli, pins_that_cannot_hold_exit_2_and_write_nothing)
{
	char part[256];
	ts_tpath(part, sizeof part, "never.json");
	static const struct {
		const char *args, *says;
	} cases[] = {
	        {"--pin h1=2 --pin l1=1",
	         "'h1' (stage 2) and 'l1' (stage 1) are tied by the stage order"},
	        {"--pin h1=5", "--pin 'h1=5': the stage must be an integer from 1 to 4"},
	        {"--pin h1=0", "the stage must be an integer from 1 to 4"},
	        {"--pin h1=x", "the stage must be an integer from 1 to 4"},
	        {"--pin nosuch=1", "has no op named 'nosuch'"},
	        {"--pin h1", "expected OP=STAGE"},
	        {"--pin =1", "expected OP=STAGE"},
	        {"--pin h1=1 --pin h1=2", "'h1' is pinned to stage 1 already"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *out, *err;
		int st = ts_runf(&out, &err, "solve " LEMMA " -k 4 %s -o %s", cases[i].args, part);
		cr_assert_eq(st, 2, "%s: exit %d", cases[i].args, st);
		cr_assert(strstr(err, cases[i].says), "%s: %s", cases[i].args, err);
		cr_assert_eq(access(part, F_OK), -1, "%s: wrote %s", cases[i].args, part);
		free(out);
		free(err);
	}
}

/* An op pinned three times to its stage is one pin: the report counts ops,
 * not options. */
Test(pins_cli, a_repeated_pin_counts_once)
{
	char *out = NULL;
	int st = ts_runf(&out, NULL,
	                 "solve " LEMMA " -k 4 --pin h1=1 --pin h1=1 --pin h1=1 "
	                 "--pin l1=2 -m kahn --no-proof");
	cr_assert_eq(st, 0);
	cr_assert(strstr(out, "2 ops pinned (--pin)"), "%s", out);
	free(out);
}
