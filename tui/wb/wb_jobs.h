/*
 * wb_jobs.h - the workbench's jobs (wb_jobs.c): the search on screen, S's
 * rounds, the ladder of lower bounds, the best partition they find, and
 * the answer the screen gives from them.
 */
#ifndef UI_WB_JOBS_H
#define UI_WB_JOBS_H

#include <stdbool.h>

#include "solvers/jobs.h"
#include "solvers/ladder.h"
#include "tui/wb/wb.h"

enum { WB_HISTORY = 64 };

/* The jobs' state, w->jobs: wb_jobs.c changes it, the settings form edits
 * the search's settings, the views read it. */
struct wb_jobs {
	int search; /* job id or -1 */
	char search_method[24];
	double search_t0; /* when it started (sc_clock_now) */
	sc_job_info search_info;
	int search_queue; /* while the search is queued: its place in line (1: next), else 0 */
	int running, queued, paused;                   /* the engine's, as of wb_follow_jobs */
	double hist_t[WB_HISTORY], hist_v[WB_HISTORY]; /* best so far over time */
	int nhist;
	sc_ladder *ladder;
	double ladder_upper; /* the upper bound the ladder was started with */
	bool none_fits;      /* the search's exact DP proved no partition fits */
	/* the search's settings (settings screen): the method s and S run,
	 * the seed of the next search (each search takes one, so s never
	 * repeats a run), its evaluation budget (0: the method's default) */
	char search_pick[24];
	long search_seed, search_evals;
	long search_run_seed; /* the seed of the search on screen */
	/* S: the search runs again, with the next seed and twice the
	 * evaluations, until stopped (x) or proven optimal */
	bool until_stopped;
	long until_evals; /* the budget of the next round */
	int rounds;       /* rounds run since S */
	/* how many pinned ops (w->pinned) the search on screen started with
	 * (its proof is of the best with them) */
	int search_pins;
	/* budgets (settings screen) */
	double search_time, rung_time;
};

/* No job yet, the settings' defaults (NULL: out of memory); freed, with
 * its ladder, by wb_jobs_free (NULL: a no-op) before the engine is. */
wb_jobs *wb_jobs_new(void);
void wb_jobs_free(wb_jobs *jobs);

/* Starts search method (NULL: the settings' method; cancelling the running
 * one) from start (may be NULL) with the settings' evaluations and the
 * next seed; the outcome goes to the status line. */
void wb_start_search(wb *w, const char *method, const int *start);

/* s and S: the settings' method with the next seed, once (s) or round after
 * round with twice the evaluations until stopped or proven (S). */
void wb_search_again(wb *w, bool until_stopped);
/* (Re)starts the ladder of lower bounds from the best partition known,
 * every rung (the engineer asked: l, the tour), even once the optimum is
 * proven.  The ladder the first search starts stops its rungs at a proof. */
void wb_start_ladder(wb *w);
/* x: stops the search (S's rounds too), never the rungs; X: them too. */
void wb_cancel_jobs(wb *w, bool ladder_too);
/* Makes the best partition found the current one (an edit). */
void wb_adopt_best(wb *w);
/* Takes in what the jobs reported since the last call (progress, a
 * finished search's result, the ladder's rungs); starts the ladder when
 * the first search is done. */
void wb_follow_jobs(wb *w);
/* Forgets the best partition and starts over from the current one. */
void wb_reset_best(wb *w);

/* The best lower bound known and what proved it ("simple", a rung, "exact
 * DP"; a running rung's bound so far is "<rung> so far"). */
double wb_lower_bound(const wb *w, const char **by);

/* The practitioner's question about the partition on screen: its
 * objective against the best lower bound, and the best partition found
 * beside it.  The header, the ladder, the tour and the exported image's
 * caption all read it from here, so they never disagree. */
typedef struct wb_answer {
	const char *name; /* "bottleneck" or, under GPipe, "GPipe objective" */
	double objective; /* the current partition's (even when infeasible) */
	int at;           /* its bottleneck stage, 0-based */
	bool feasible;    /* false: a stage breaks the hard memory limit */
	int over, nover;  /* then the first such stage (0-based) and how many */
	double lower;     /* wb_lower_bound */
	const char *lower_by;
	double gap;       /* objective / lower - 1 (0 within rounding); NAN when
	                   * infeasible or without a positive bound */
	bool best_better; /* the best found beats the current partition */
	double best;      /* its objective */
	double gain;      /* then (objective - best) / objective: 0.125 is 12.5% */
	double best_gap;  /* best / lower - 1, like gap */
	/* no k-stage partition fits the hard memory limit, and that is proven
	 * (by the exact DP's search or the ladder's exact MIP): none_fits_by
	 * names the proof, else NULL */
	const char *none_fits_by;
} wb_answer;
void wb_answer_get(const wb *w, wb_answer *a);

#endif
