/*
 * solve_proof.h - the certificate `stagecut solve` asks for when its search
 * ends without a proof: the exact MIP of the ladder (solvers/ladder.h, the
 * rung `bounds` runs last), started from the partition found, with the
 * simple bound as its floor.  See solve_proof.c.
 */
#ifndef UI_SOLVE_PROOF_H
#define UI_SOLVE_PROOF_H

#include <stdbool.h>

#include "core/graph.h"

/* Without --time the proof may take this many seconds (with --time T, what
 * the search left of T). */
#define UI_PROOF_SECONDS 30.0

/* Below this many seconds left of --time the proof is not tried. */
#define UI_PROOF_MIN_SECONDS 0.5

typedef enum ui_proof_status {
	UI_PROOF_SEARCH,      /* the search proved it (the exact DP): no MIP asked */
	UI_PROOF_PROVEN,      /* the MIP (or the simple bound) proved the partition optimal */
	UI_PROOF_TIME_LIMIT,  /* not proven in the time: lower is the bound proven */
	UI_PROOF_OFF,         /* --no-proof */
	UI_PROOF_NO_TIME,     /* --time left too little to try */
	UI_PROOF_INTERRUPTED, /* ^C before or during the proof */
	UI_PROOF_FAILED,      /* the solver failed; message says why */
	UI_PROOF_NONE,        /* no partition to prove (none feasible) */
	UI_PROOF_NO_BOUND,    /* with CPU stages: no lower bound (out of memory) */
	UI_PROOF_BOUND,       /* with CPU stages: the simple bound, below the result */
} ui_proof_status;

typedef struct ui_proof {
	ui_proof_status status;
	const char *by;  /* what proved it ("exact DP", "exact MIP", ...) or NULL */
	double within;   /* 0 exact, SC_LADDER_REL_TOL for a MIP's proof, NAN unproven */
	double lower;    /* the best lower bound proven on the objective, NAN when none */
	double upper;    /* the objective of the partition reported */
	bool improved;   /* the MIP found a partition better than the search's */
	double searched; /* the search's partition's objective */
	double seconds;  /* the proof's wall time */
	char message[sizeof(((sc_error *)0)->msg)]; /* FAILED: why */
} ui_proof;

/* Asks the exact MIP to prove stage (op stages, 0-based; objective upper
 * under set, set->k stages) optimal for g within seconds, drawing progress
 * on stderr when tty.  On devices (set->cpus > 0 or set->fleet) stage is
 * in 0..K-1 (K the fleet's stages: set->k + set->cpus without one) and
 * kind (else NULL) holds their K kinds.  On a better partition found,
 * stage (and kind) are overwritten with it.  Fills pf; never fails
 * otherwise (a failure is pf->status UI_PROOF_FAILED).  ^C
 * (ui_interrupted) stops it. */
void ui_proof_run(const sc_graph *g, const sc_settings *set, int *stage, int *kind, double upper,
                  double seconds, bool tty, ui_proof *pf);

/* "proven", "time_limit", "off", "no_time", ... for --json; static text. */
const char *ui_proof_status_name(ui_proof_status s);

#endif
