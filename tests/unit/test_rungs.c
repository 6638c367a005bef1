/*
 * test_rungs.c - the table of rungs (solvers/rungs.def) and the safety of
 * their values: every rung has a name, a proof name, a label and a help
 * line, all distinct, that the man page documents; and no rung's value
 * passes the brute-force optimum (by more than CBC's floating point, 1e-9
 * relative; solvers/mip.c), even where partitions nearly tie (closer
 * than CBC's default cutoff increment, which once let the exact MIP call a
 * partition 1e-6 worse than the optimum optimal and report its value as a
 * lower bound), nor does the ladder call an upper bound optimal that a
 * better partition beats by more than its tolerance.  The command's side
 * (bounds --rungs R alone, the samples) is in tests/cli/test_bounds.c.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cost.h"
#include "core/partition.h"
#include "solvers/jobs.h"
#include "solvers/ladder.h"
#include "tests/support.h"

#define MAN_PAGE "man/stagecut.1"

Test(rungs, one_table_names_every_rung)
{
	const char *(*const col[])(sc_rung) = {sc_rung_name, sc_rung_proof, sc_rung_label,
	                                       sc_rung_help};
	for (int r = 0; r < SC_RUNG_COUNT; r++) {
		for (int c = 0; c < 4; c++) {
			const char *s = col[c]((sc_rung)r);
			cr_assert(s && *s && strcmp(s, "?") != 0 && strcmp(s, "off") != 0,
			          "rung %d, column %d: '%s'", r, c, s ? s : "(null)");
			for (int q = 0; q < r; q++)
				cr_assert_str_neq(s, col[c]((sc_rung)q), "rungs %d and %d", q, r);
		}
		/* the help list's lines fit 80 columns: "  %-12s %s" */
		cr_assert_leq(strlen(sc_rung_help((sc_rung)r)), 64, "%s", sc_rung_name((sc_rung)r));
		sc_rung back;
		cr_assert(sc_rung_parse(sc_rung_name((sc_rung)r), &back));
		cr_assert_eq(back, (sc_rung)r);
	}
	sc_rung none;
	cr_assert(!sc_rung_parse("off", &none) && !sc_rung_parse("", &none));
	cr_assert_str_eq(sc_rung_name(SC_RUNG_COUNT), "?");
	cr_assert_str_eq(sc_rung_proof(SC_RUNG_COUNT), "?");
	cr_assert_eq(SC_RUNGS_ALL, (1u << SC_RUNG_COUNT) - 1);
}

Test(rungs, the_man_page_describes_every_rung)
{
	char *man = ts_slurp(MAN_PAGE, NULL);
	cr_assert(man, "cannot read " MAN_PAGE);
	/* the bounds command's list (".TP" then ".B NAME") and --rungs */
	char *cmd = strstr(man, "\n.BI bounds \" FILE\"\n");
	cr_assert(cmd, "no bounds entry in " MAN_PAGE);
	char *rungs_opt = strstr(man, "\\-\\-rungs \" \\fILIST\\fP\"\n");
	cr_assert(rungs_opt, "no --rungs entry in " MAN_PAGE);
	for (int r = 0; r < SC_RUNG_COUNT; r++) {
		char want[64];
		snprintf(want, sizeof want, "\n.B %s\n", sc_rung_name((sc_rung)r));
		cr_expect(strstr(cmd, want), "rung %s is not described under bounds",
		          sc_rung_name((sc_rung)r));
		cr_expect(strstr(rungs_opt, sc_rung_name((sc_rung)r)), "--rungs does not list %s",
		          sc_rung_name((sc_rung)r));
	}
	free(man);
}

static double objective(const sc_graph *g, const sc_settings *set, const int *stage)
{
	sc_costs *c = sc_costs_new(g, set, NULL);
	cr_assert(c);
	sc_costs_eval(c, stage);
	double v = sc_costs_objective(c);
	sc_costs_free(c);
	return v;
}

Test(rungs, no_rung_passes_the_optimum_where_partitions_nearly_tie, .timeout = 600)
{
	/* integer weights tie many partitions; every op's work then moves by
	 * 2e-6 to 8e-6 of the total, so the ties become near-ties (a few 1e-6
	 * relative apart, below CBC's default cutoff increment of 1e-5), and
	 * the ladder starts from the optimum of the graph before the move,
	 * often no longer the optimum */
	ts_rng r = {2026};
	sc_error err;
	sc_engine *e = sc_engine_new(2, &err);
	cr_assert(e, "%s", err.msg);
	int n = ts_trials(80), worse_start = 0, improved = 0, proven = 0;
	for (int t = 0; t < n; t++) {
		ts_graph_spec spec = {.n = 4 + ts_below(&r, 4),
		                      .edge_p = 0.2 + ts_uniform(&r) * 0.4,
		                      .integer_weights = true};
		sc_settings_init(&spec.settings);
		sc_graph *g = ts_random_graph(&r, &spec);
		int k = 2 + ts_below(&r, 2);
		sc_settings set = g->settings;
		set.k = k;
		int *start = malloc((size_t)g->n * sizeof *start);
		int *best = malloc((size_t)g->n * sizeof *best);
		cr_assert(isfinite(ts_brute_optimum(g, k, start)));
		double total = 0;
		for (int v = 0; v < g->n; v++)
			total += g->work[v];
		for (int v = 0; v < g->n; v++)
			g->work[v] += total * 2e-6 * (1 + ts_below(&r, 4));
		double opt = ts_brute_optimum(g, k, best);
		double upper = objective(g, &set, start);
		worse_start += upper > opt * (1 + 1e-12);
		sc_ladder_params lp = {.rungs = SC_RUNGS_ALL,
		                       .time_limit = 30,
		                       .upper = upper,
		                       .start = start,
		                       .stop_at_proof = t % 2 == 0};
		sc_ladder *l = sc_ladder_new(e, g, &set, &lp, &err);
		cr_assert(l, "%s", err.msg);
		ts_run_ladder(l, e);
		for (int q = 0; q < SC_RUNG_COUNT; q++) {
			sc_rung_info ri;
			sc_ladder_info(l, (sc_rung)q, &ri);
			cr_assert_neq(ri.state, SC_RS_FAILED, "%s: %s (t %d)",
			              sc_rung_name((sc_rung)q), ri.message, t);
			cr_assert_leq(ri.value, opt * (1 + 1e-9),
			              "%s %.17g > optimum %.17g (t %d, start %.17g)",
			              sc_rung_name((sc_rung)q), ri.value, opt, t, upper);
		}
		cr_assert_leq(sc_ladder_lower(l), opt * (1 + 1e-9), "t %d", t);
		double up = sc_ladder_upper(l, NULL);
		cr_assert_geq(up, opt * (1 - 1e-12), "t %d: no partition beats the optimum", t);
		improved += up < upper;
		/* proven: no partition better than the upper bound by more than
		 * the proof's tolerance; an exact proof, none at all */
		const char *by = NULL;
		double tol = sc_ladder_proof_tolerance(l);
		cr_assert_eq(sc_ladder_proven(l, &by), !isnan(tol));
		if (!isnan(tol)) {
			proven++;
			cr_assert(tol == 0 || tol == SC_LADDER_REL_TOL, "t %d: tolerance %g", t,
			          tol);
			cr_assert_leq(up, opt * (1 + tol + 1e-9),
			              "t %d: %s proves %.17g optimal (within %g), optimum %.17g", t,
			              by, up, tol, opt);
		}
		sc_ladder_free(l);
		free(start);
		free(best);
		sc_graph_free(g);
	}
	sc_engine_free(e);
	ts_assert_no_children();
	cr_assert_geq(worse_start, n / 10, "only %d of %d starts were not optimal", worse_start, n);
	cr_assert_geq(improved, worse_start / 2, "the exact MIP improved %d of %d", improved,
	              worse_start);
	cr_assert_geq(proven, n / 2, "%d of %d proven", proven, n);
}
