/*
 * solve_report.h - what `stagecut solve` computes, and its printers (the
 * command computes, then prints).  Two runs fill the one
 * ui_solve_report: cmd_solve.c's on the accelerators alone (with --align,
 * --pin, --proof) and solve_cpu.c's with CPU stages (--cpus); the steps
 * they share (the search, the partition's costs, the write of -o) are
 * here, and so are the text and JSON printers, which read the report
 * whichever run filled it.  See solve_report.c.
 */
#ifndef UI_SOLVE_REPORT_H
#define UI_SOLVE_REPORT_H

#include <stdbool.h>

#include "core/cost.h"
#include "core/graph.h"
#include "solvers/search.h"
#include "tui/cmd/solve_proof.h"
#include "tui/ui.h"

/* --align: the aligned problem and the unconstrained optimum it is
 * compared with. */
typedef struct ui_solve_align {
	int depth;
	int units;               /* distinct alignment units (modules) the ops fall in */
	double free_best;        /* the objective without alignment (the better of its
	                          * search and the aligned partition) */
	bool free_optimal;       /* free_best is proven optimal (the exact DP) */
	const char *free_method; /* NULL: the unaligned search did not start */
	double seconds;          /* the unaligned search's */
	double gap;              /* the price of alignment: aligned / unaligned - 1, NAN */
} ui_solve_align;

/* What one solve found and proved.  The members marked owned are freed by
 * ui_solve_report_fini; the rest are borrowed from the caller (g, the
 * options' strings) or static text. */
typedef struct ui_solve_report {
	/* the problem */
	const sc_graph *g;  /* the graph solved: with --align, aligned */
	sc_graph *aligned;  /* --align: the aligned copy of the graph loaded (owned) */
	sc_settings set;    /* the settings solved under (set.pin is pin) */
	const char *method; /* the search's */
	unsigned long long seed;
	int *pin; /* --pin: each op's stage (0-based) or -1 (owned); NULL without */
	int npins;
	/* the search and the partition reported */
	sc_progress pr;
	bool feasible; /* a partition within the hard memory limit was found */
	bool optimal;  /* it is proven optimal, or (not feasible) that none fits */
	double found;  /* the search's result, INFINITY when it found none that fits */
	int *stage;    /* each op's stage, 0-based (owned) */
	int *kind;     /* with devices: each stage's kind (owned; ui_solve_stages of them) */
	sc_costs *c;   /* the partition's costs (owned); NULL when not feasible */
	double bottleneck, objective;
	int at; /* the bottleneck stage, 0-based */
	/* the proof */
	ui_proof pf;
	double gap;          /* the certified gap: objective / lower bound - 1; NAN: none */
	bool decided;        /* the exact MIP ran on a search that found nothing */
	bool no_proof;       /* --no-proof (why nothing found stays undecided) */
	ui_solve_align al;   /* when aligned */
	const char *written; /* -o: the partition file written, or NULL */
} ui_solve_report;

/* The stages of r's partitions: k, k + cpus with CPU stages, the fleet's
 * with --devices. */
int ui_solve_stages(const ui_solve_report *r);

/* True when r's stages have kinds (--cpus or --devices). */
bool ui_solve_devices(const ui_solve_report *r);

/* An empty report of solving g (borrowed) under its settings: nothing found
 * or proven yet (unknown numbers NAN). */
void ui_solve_report_init(ui_solve_report *r, const sc_graph *g);

/* Frees what r owns (see above); r is then empty. */
void ui_solve_report_fini(ui_solve_report *r);

/* Runs the search of p on r->g under r->set, drawing its progress line on
 * stderr when stderr is a terminal, into r: pr, found, feasible, optimal
 * (that the result is optimal, or that none fits), and, when feasible,
 * stage and (r->kind not NULL) the kinds.  Once the search is made, ^C only raises
 * ui_interrupted (the search then ends with its best so far): the
 * interrupts are caught into *saved and *caught is set, for the caller to
 * release.  Returns UI_EXIT_OK, or UI_EXIT_INPUT after a message. */
int ui_solve_search(ui_solve_report *r, const sc_search_params *p, ui_interrupts *saved,
                    bool *caught);

/* Evaluates r->stage (with r->kind's kinds when there are devices)
 * into r->c, made on the first call, and fills bottleneck, at and
 * objective.  Returns UI_EXIT_OK, or UI_EXIT_INPUT after a message. */
int ui_solve_cost(ui_solve_report *r);

/* Writes r's partition with its costs (and devices) to path, then names it
 * r->written.  Returns UI_EXIT_OK, or UI_EXIT_INPUT after a message. */
int ui_solve_write(ui_solve_report *r, const char *path);

/* solve --json: one object of one shape whatever the outcome (unknowns
 * are null); CPU stages add "cpus" and "devices", --align "align", a
 * training graph the objective and its parts.  False when it could not be
 * written. */
bool ui_solve_print_json(const ui_solve_report *r);

/* solve's text on stdout, for a feasible r: the stage table, the
 * bottleneck and what proved it, and the lines --pin, --align, CPU stages
 * and -o add. */
void ui_solve_print_text(const ui_solve_report *r);

/* The end of a solve: says why on stderr when nothing fits or nothing was
 * found, prints r (JSON when json, else the text when feasible), and says
 * when ^C cut the text's search short.  Returns the exit status:
 * UI_EXIT_OK, UI_EXIT_INFEASIBLE (proven: nothing fits), UI_EXIT_UNDECIDED
 * (found nothing, proved nothing), UI_EXIT_INPUT (the JSON could not be
 * written) or 130 (interrupted). */
int ui_solve_print(const ui_solve_report *r, bool json);

#endif
