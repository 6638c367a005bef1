/*
 * bench_report.h - what `stagecut bench` reports once its testbed ran (or
 * --merge read the results files): the tables of the records (paper 000,
 * Tables 1 and 2), printed as text or as one JSON object, and, after a
 * run, its failed instances and why it stopped (the command
 * computes, then prints).  See bench_report.c.
 */
#ifndef UI_BENCH_REPORT_H
#define UI_BENCH_REPORT_H

#include <stdbool.h>

#include "solvers/testbed.h"

/* The tables of a set of records, and how the run that made them ended. */
typedef struct ui_bench_report {
	const sc_testbed_records *rs; /* the records (borrowed; the tables borrow
	                               * their names) */
	sc_testbed_tables t;
	int failed; /* records of instances that failed (with an "error") */
	/* after a run (the caller sets them; zero for --merge): */
	const char *results; /* the results file */
	bool stopped;        /* ^C or SIGTERM stopped the run ... */
	int signal;          /* ... this one (0: stopped by hand) */
} ui_bench_report;

/* The report of rs (borrowed, to outlive r): its tables and its failed
 * instances; no run.  Never fails. */
void ui_bench_report_of(const sc_testbed_records *rs, ui_bench_report *r);

/* bench's tables on stdout: Table 1 (lower bound / best partition), Table
 * 2 (bottleneck / simple bound), the median seconds and the proven
 * optima. */
void ui_bench_print_text(const ui_bench_report *r);

/* bench --json: the tables as one object (sc_testbed_tables_json).  False
 * when it could not be written. */
bool ui_bench_print_json(const ui_bench_report *r);

/* Prints r: after a run, its failed instances on stderr; the tables as
 * JSON when json, else as text; why a run stopped.  False when the JSON
 * could not be written. */
bool ui_bench_print(const ui_bench_report *r, bool json);

#endif
