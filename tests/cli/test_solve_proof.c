/*
 * test_solve_proof.c - `stagecut solve` asks the exact MIP for a proof when
 * its search proved nothing: the proof, the better partition it
 * finds, the certified gap when time runs out, --no-proof, and never a proof
 * of a partition a brute force beats.  Expected optima come from
 * REFERENCE.tsv, brute force (tests/support.c) or the exact DP.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/formats/write_dot.h"
#include "tests/support.h"

#define BERT24_TRAIN "samples/msr-fiddle/layer/bert24_training.json"
/* REFERENCE.tsv: layer/bert24_training.json, k 4 */
#define BERT24_TRAIN_K4 58.545812500000004

TestSuite(solve_proof, .init = ts_scratch_init, .fini = ts_scratch_fini, .timeout = 60);

/* The tester's case: best falls back to brkga (here forced by
 * --ideal-limit 1), which proves nothing; the exact MIP proves its
 * partition optimal, which is the published optimum. */
Test(solve_proof, the_exact_mip_proves_what_brkga_found)
{
	char part[256];
	ts_tpath(part, sizeof part, "p.json");
	json_t *r =
	        ts_run_json(0, "solve " BERT24_TRAIN " -k 4 --ideal-limit 1 -o %s --json", part);
	cr_assert(ts_jbool(r, "optimal"));
	cr_assert_str_eq(ts_jstr(r, "proof"), "proven");
	cr_assert_str_eq(ts_jstr(r, "proven_by"), "exact MIP");
	cr_assert_eq(ts_jnum(r, "optimal_within"), 1e-6);
	double bn = ts_jnum(r, "bottleneck");
	cr_assert(ts_close_rel(bn, BERT24_TRAIN_K4, 1e-9), "bottleneck %.17g", bn);
	cr_assert_leq(ts_jnum(r, "lower_bound"), bn * (1 + 1e-9));
	cr_assert_geq(ts_jnum(r, "lower_bound"), bn * (1 - 1e-6));
	cr_assert_gt(ts_jnum(r, "proof_seconds"), 0);
	json_decref(r);
	/* the file holds that partition */
	json_t *e = ts_run_json(0, "eval --json " BERT24_TRAIN " %s", part);
	cr_assert(ts_close_rel(ts_jnum(e, "bottleneck"), BERT24_TRAIN_K4, 1e-9));
	json_decref(e);
	char *out;
	cr_assert_eq(ts_runf(&out, NULL, "solve " BERT24_TRAIN " -k 4 --ideal-limit 1"), 0);
	cr_assert(strstr(out, "bottleneck 58.5458 (stage 3), proven optimal (exact MIP)   "), "%s",
	          out);
	cr_assert(strstr(out, "proof: exact MIP, optimal within 1e-6 relative in "), "%s", out);
	free(out);
}

/* A weak search (one Kahn order, not refined) on the same graph: the MIP
 * finds and proves a better partition, which solve reports and writes;
 * --no-proof leaves the search's partition unproven; a --time the search
 * used up leaves no time for the proof. */
Test(solve_proof, a_better_partition_from_the_mip_is_the_one_reported)
{
	char part[256];
	ts_tpath(part, sizeof part, "p.json");
	json_t *off =
	        ts_run_json(0, "solve " BERT24_TRAIN " -k 4 -m kahn --no-refine --no-proof --json");
	cr_assert_not(ts_jbool(off, "optimal"));
	cr_assert_str_eq(ts_jstr(off, "proof"), "off");
	cr_assert(json_is_null(ts_jget(off, "proven_by")));
	cr_assert(json_is_null(ts_jget(off, "lower_bound")));
	cr_assert_eq(ts_jnum(off, "proof_seconds"), 0);
	double kahn = ts_jnum(off, "bottleneck");
	cr_assert_gt(kahn, BERT24_TRAIN_K4 * (1 + 1e-3), "kahn is not optimal here");
	json_decref(off);

	json_t *r = ts_run_json(
	        0, "solve " BERT24_TRAIN " -k 4 -m kahn --no-refine --proof -o %s --json", part);
	cr_assert(ts_jbool(r, "optimal"));
	cr_assert_str_eq(ts_jstr(r, "found_by"), "exact MIP");
	cr_assert_str_eq(ts_jstr(r, "method"), "kahn");
	cr_assert(ts_close_rel(ts_jnum(r, "bottleneck"), BERT24_TRAIN_K4, 1e-9));
	json_decref(r);
	json_t *e = ts_run_json(0, "eval --json " BERT24_TRAIN " %s", part);
	cr_assert(ts_close_rel(ts_jnum(e, "bottleneck"), BERT24_TRAIN_K4, 1e-9), "written");
	json_decref(e);
	char *out;
	cr_assert_eq(ts_runf(&out, NULL, "solve " BERT24_TRAIN " -k 4 -m kahn --no-refine --proof"),
	             0);
	cr_assert(strstr(out, "the exact MIP found a better partition than kahn's 59.5469: 1.68% "
	                      "lower\n"),
	          "%s", out);
	free(out);

	r = ts_run_json(0,
	                "solve " BERT24_TRAIN " -k 4 -m brkga -e 1000000000 -t 0.3 --proof --json");
	cr_assert_str_eq(ts_jstr(r, "proof"), "no_time");
	cr_assert_not(ts_jbool(r, "optimal"));
	json_decref(r);
}

/* Out of time: a 35-op random graph whose MIP does not finish in 2 s.  The
 * report gives the MIP's lower bound, which must not exceed the optimum
 * (the exact DP's), and the gap from it. */
Test(solve_proof, out_of_time_the_gap_is_certified)
{
	char g[256];
	ts_tpath(g, sizeof g, "ba35.dot");
	cr_assert_eq(ts_runf(NULL, NULL, "gen --model ba --nodes 35 -o %s", g), 0);
	json_t *dp = ts_run_json(0, "solve %s -k 4 -m exact --no-refine --json", g);
	cr_assert(ts_jbool(dp, "optimal"));
	cr_assert_str_eq(ts_jstr(dp, "proof"), "search");
	cr_assert_str_eq(ts_jstr(dp, "proven_by"), "exact DP");
	double opt = ts_jnum(dp, "bottleneck");
	json_decref(dp);
	json_t *r = ts_run_json(0, "solve %s -k 4 -m slice --no-refine -t 2 --proof --json", g);
	const char *proof = ts_jstr(r, "proof");
	double bn = ts_jnum(r, "bottleneck");
	cr_assert_geq(bn, opt * (1 - 1e-9));
	if (strcmp(proof, "proven") == 0) {
		/* a fast machine: then it must be the optimum */
		cr_assert(ts_close_rel(bn, opt, 1e-6));
	} else {
		cr_assert_str_eq(proof, "time_limit");
		cr_assert_not(ts_jbool(r, "optimal"));
		double lb = ts_jnum(r, "lower_bound");
		cr_assert_leq(lb, opt * (1 + 1e-9), "lower bound %.17g over the optimum %.17g", lb,
		              opt);
		cr_assert(ts_close_rel(ts_jnum(r, "gap"), bn / lb - 1, 1e-9));
		cr_assert_lt(ts_jnum(r, "proof_seconds"), 2 + 2.5);
	}
	json_decref(r);
}

/* Never a false proof: on random small graphs, a weak search followed by
 * the MIP either proves a partition at the brute-force optimum (within the
 * stated 1e-6) or proves nothing, and what it reports is never below the
 * optimum nor its lower bound above it. */
Test(solve_proof, never_a_false_proof_against_brute_force, .timeout = 120)
{
	ts_rng r = {2604};
	int proven = 0, improved = 0, trials = ts_trials(24);
	for (int t = 0; t < trials; t++) {
		ts_graph_spec spec = {.n = 4 + ts_below(&r, 5),
		                      .edge_p = 0.2 + ts_uniform(&r) * 0.4,
		                      .group_p = ts_uniform(&r) < 0.3 ? 0.3 : 0,
		                      .ngroups = 2};
		sc_settings_init(&spec.settings);
		spec.settings.bandwidth = 0.5 + ts_uniform(&r) * 2;
		if (ts_uniform(&r) < 0.3)
			spec.settings.memory = 10 + ts_uniform(&r) * 20;
		sc_graph *g = ts_random_graph(&r, &spec);
		int k = 2 + ts_below(&r, 3);
		double opt = ts_brute_optimum(g, k, NULL);
		char path[256];
		snprintf(path, sizeof path, "%s/g%d.dot", ts_dir, t);
		sc_error err;
		cr_assert_eq(sc_write_dot(g, NULL, path, &err), SC_OK, "%s", err.msg);
		sc_graph_free(g);
		if (!isfinite(opt))
			continue;
		int st;
		char args[400];
		snprintf(args, sizeof args,
		         "solve %s -k %d -m kahn --no-refine --proof --seed %d --json", path, k,
		         t + 1);
		json_t *o = ts_json_of(0, 1, &st, args);
		if (st == 0) {
			double bn = ts_jnum(o, "bottleneck");
			cr_assert_geq(bn, opt * (1 - 1e-9), "t %d: %.17g below the optimum %.17g",
			              t, bn, opt);
			if (ts_jbool(o, "optimal")) {
				proven++;
				cr_assert_leq(bn, opt * (1 + 1e-6) + 1e-12,
				              "t %d: 'proven optimal' %.17g, brute force %.17g", t,
				              bn, opt);
			}
			if (!json_is_null(ts_jget(o, "lower_bound")))
				cr_assert_leq(ts_jnum(o, "lower_bound"), opt * (1 + 1e-9) + 1e-12,
				              "t %d", t);
			improved += strcmp(ts_jstr(o, "found_by"), "exact MIP") == 0;
		}
		json_decref(o);
	}
	cr_assert_gt(proven, 0, "the MIP proved none of %d", trials);
	if (trials >= 24)
		cr_assert_gt(improved, 0, "the MIP never beat one Kahn order");
}

#define RESNET_LAYER "samples/msr-fiddle/layer/resnet50_inference.json"

/* solve --json's keys are the man page's, in its order. */
Test(solve_proof, json_keys_follow_the_man_page)
{
	static const char *const optional[] = {"objective", "training", "align",
	                                       "cpus",      "devices",  "fleet",
	                                       "pinned",    "aligned",  NULL};
	char keys[40][40];
	int n = ts_man_json_keys("solve", keys, 40);
	cr_assert_geq(n, 20, "only %d keys in the man page", n);
	json_t *r = ts_run_json(0, "solve " BERT24_TRAIN " -k 4 --ideal-limit 1 --json");
	ts_assert_man_order(r, keys, n, optional, "solve, training");
	json_decref(r);
	r = ts_run_json(0, "solve samples/paper/figure2.dot --json");
	ts_assert_man_order(r, keys, n, optional, "solve");
	json_decref(r);
	r = ts_run_json(0, "solve samples/onnx/resnet50.onnx -k 3 --align 1 --json");
	ts_assert_man_order(r, keys, n, optional, "solve --align");
	json_decref(r);
	/* with CPU stages (001 section 3) */
	r = ts_run_json(0, "solve " RESNET_LAYER " -k 2 --cpus 1 -m exact --json");
	ts_assert_man_order(r, keys, n, optional, "solve --cpus");
	cr_assert(json_object_get(r, "cpus") && json_object_get(r, "devices"));
	json_decref(r);
	/* with pins: what is proven of the pinned problem in "pinned" */
	r = ts_run_json(0, "solve samples/paper/figure2.dot -k 2 --pin y=1 --json");
	ts_assert_man_order(r, keys, n, optional, "solve --pin");
	cr_assert(json_object_get(r, "pinned"));
	json_decref(r);
	/* with devices of several kinds */
	r = ts_run_json(0, "solve samples/onnx/resnet50.onnx --devices a100:2,h100:1 --json");
	ts_assert_man_order(r, keys, n, optional, "solve --devices");
	cr_assert(json_object_get(r, "fleet") && json_object_get(r, "devices"));
	json_decref(r);
}

/* A method named on purpose gives its own result: no MIP after it unless
 * --proof asks (the proof's 30 s after every kahn made render's samples
 * take 70 s). */
Test(solve_proof, a_named_method_is_not_proven_unless_asked)
{
	json_t *r = ts_run_json(0, "solve " BERT24_TRAIN " -k 4 -m kahn --no-refine --json");
	cr_assert_str_eq(ts_jstr(r, "proof"), "off");
	cr_assert_not(ts_jbool(r, "optimal"));
	json_decref(r);
	r = ts_run_json(0, "solve " BERT24_TRAIN " -k 4 -m kahn --no-refine --proof --json");
	cr_assert_str_neq(ts_jstr(r, "proof"), "off");
	json_decref(r);
}

/* Under a tight hard limit a search starts from the first-fit partition:
 * kahn's one order, sliced, fits nowhere in tight_feasible.dot,
 * and kahn without refinement still ends with a partition that fits (it
 * exited 3, "found nothing", before), no better than the optimum. */
Test(solve_proof, a_search_starts_from_a_first_fit_partition)
{
	const char *fits = "tests/data/tight_feasible.dot";
	json_t *x = ts_run_json(0, "solve %s -k 3 -m exact --json", fits);
	const char *methods[] = {"kahn", "slice", "dpl", "mla"};
	for (int m = 0; m < 4; m++) {
		json_t *r = ts_run_json(0, "solve %s -k 3 -m %s --no-refine --no-proof --json",
		                        fits, methods[m]);
		cr_assert(ts_jbool(r, "feasible"), "%s", methods[m]);
		cr_assert_geq(ts_jnum(r, "bottleneck"), ts_jnum(x, "bottleneck") * (1 - 1e-9), "%s",
		              methods[m]);
		json_t *stages = json_object_get(r, "stages");
		size_t i;
		json_t *st;
		json_array_foreach(stages, i, st)
		        cr_assert_leq(ts_jnum(st, "param"), 87, "%s, stage %zu", methods[m], i + 1);
		json_decref(r);
	}
	json_decref(x);
}

/* "No partition fits" and exit 1 only when it is proven: a
 * search that finds nothing asks the exact MIP, which finds a partition
 * (exit 0) or proves none fits (exit 1, naming the proof); found nothing
 * and proved nothing is exit 3. */
Test(solve_proof, nothing_fits_only_when_proven)
{
	const char *fits = "tests/data/tight_firstfit_misses.dot",
	           *none = "tests/data/tight_none.dot";
	char *err = NULL;
	/* kahn's one order and first fit find nothing within the limit here */
	int st = ts_runf(NULL, &err, "solve %s -k 3 -m kahn --no-refine --no-proof", fits);
	cr_assert_eq(st, 3, "%s", err);
	cr_assert(strstr(err, "none is proven impossible (--no-proof)"), "%s", err);
	free(err);
	json_t *r = ts_run_json(0, "solve %s -k 3 -m kahn --no-refine --proof --json", fits);
	cr_assert(ts_jbool(r, "feasible"));
	cr_assert_str_eq(ts_jstr(r, "found_by"), "exact MIP");
	json_t *x = ts_run_json(0, "solve %s -k 3 -m exact --json", fits);
	cr_assert_float_eq(ts_jnum(r, "bottleneck"), ts_jnum(x, "bottleneck"),
	                   1e-6 * ts_jnum(x, "bottleneck"));
	json_decref(r);
	json_decref(x);
	st = ts_runf(NULL, &err, "solve %s -k 4 -m kahn --no-refine --proof", none);
	cr_assert_eq(st, 1, "%s", err);
	cr_assert(strstr(err, "no partition into 4 stages keeps every stage within the hard "
	                      "memory limit (proven by exact MIP)"),
	          "%s", err);
	free(err);
	st = ts_runf(NULL, &err, "solve %s -k 4 -m exact", none);
	cr_assert_eq(st, 1, "%s", err);
	cr_assert(strstr(err, "(proven by the exact DP)"), "%s", err);
	free(err);
}
