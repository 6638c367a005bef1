/*
 * bench_report.c - bench's report and its printers.  See bench_report.h.
 *
 * The tables are computed by the testbed (solvers/testbed.c); this file
 * lays them out: a column per k, a row per rung or method, "-" where no
 * instance gave a ratio, and a note for a method that refused some
 * instances, whose mean is over fewer.
 */
#include "tui/cmd/bench_report.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>

#include "tui/ui.h"

void ui_bench_report_of(const sc_testbed_records *rs, ui_bench_report *r)
{
	*r = (ui_bench_report){.rs = rs};
	sc_testbed_tables_compute(rs, &r->t);
	for (int i = 0; i < rs->n; i++)
		r->failed += json_object_get(rs->r[i], "error") != NULL;
}

static void print_ratio_table(const sc_testbed_tables *t, const sc_testbed_row *rows, int n,
                              const char *title, const char *label)
{
	char b[32];
	printf("%s\n%-14s", title, label);
	for (int j = 0; j < t->nk; j++)
		printf(" %9s", (snprintf(b, sizeof b, "k=%d", t->ks[j]), b));
	for (int i = 0; i < n; i++) {
		printf("\n%-14s", rows[i].name);
		for (int j = 0; j < t->nk; j++) {
			double g = rows[i].ratio[j];
			printf(" %9s", isnan(g) ? "-" : (snprintf(b, sizeof b, "%.4f", g), b));
		}
	}
}

static void print_medians(const sc_testbed_row *rows, int n, const char *what)
{
	char b[32];
	for (int i = 0; i < n; i++) {
		double m = rows[i].median_seconds;
		printf("  %-6s %-14s %10s\n", what, rows[i].name,
		       isnan(m) ? "-" : (snprintf(b, sizeof b, "%.3f", m), b));
	}
}

void ui_bench_print_text(const ui_bench_report *r)
{
	const sc_testbed_tables *t = &r->t;
	print_ratio_table(t, t->rungs, t->nr,
	                  "\nTable 1: lower bound / best partition (geometric mean over instances; "
	                  "1 = proven optimal)",
	                  "rung");
	print_ratio_table(t, t->methods, t->nm,
	                  "\n\nTable 2: bottleneck / simple lower bound (geometric mean over "
	                  "instances; lower is better)",
	                  "method");
	/* a method that refused some instances is averaged over fewer: say so */
	for (int i = 0; i < t->nm; i++)
		if (t->methods[i].instances < t->usable)
			printf("\n  (%s: over the %d of %d instances it ran on; it refused the "
			       "others)",
			       t->methods[i].name, t->methods[i].instances, t->usable);
	printf("\n\nmedian seconds per instance\n");
	print_medians(t->methods, t->nm, "method");
	print_medians(t->rungs, t->nr, "rung");
	printf("\nproven optimal:");
	for (int j = 0; j < t->nk; j++)
		printf(" k=%d %d/%d%s", t->ks[j], t->proven[j], t->of[j], j + 1 < t->nk ? "," : "");
	printf("; %d of %d instances\n", t->proven_all, t->of_all);
}

bool ui_bench_print_json(const ui_bench_report *r)
{
	return ui_print_json(sc_testbed_tables_json(&r->t));
}

bool ui_bench_print(const ui_bench_report *r, bool json)
{
	/* a run names its failed instances (--merge counts them out only) */
	for (int i = 0; r->results && r->failed && i < r->rs->n; i++) {
		json_t *error = json_object_get(r->rs->r[i], "error");
		if (error)
			ui_error("bench: %s", json_string_value(error));
	}
	bool ok = true;
	if (json)
		ok = ui_bench_print_json(r);
	else
		ui_bench_print_text(r);
	if (r->stopped)
		ui_error("bench: %s; %d instance%s recorded in %s, a rerun goes on from there",
		         r->signal == SIGTERM  ? "stopped by SIGTERM"
		         : r->signal == SIGINT ? "interrupted"
		                               : "stopped",
		         r->rs->n, r->rs->n == 1 ? "" : "s", r->results);
	return ok;
}
