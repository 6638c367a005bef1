/*
 * wb.h - the workbench's state, shared by its files (workbench.c: start,
 * loop and keys; wb_draw.c: the screens).
 *
 * One thread runs curses and the engine's poll; searches and MIPs run as
 * engine jobs, so the screen never waits for them.  The current partition
 * is what the engineer looks at and edits; the best partition is the best
 * any job has found; the ladder bounds the optimum from below.
 */
#ifndef UI_WB_H
#define UI_WB_H

#include <stdbool.h>

#include "core/cost.h"
#include "core/edit.h"
#include "core/graph.h"
#include "solvers/jobs.h"
#include "solvers/ladder.h"

enum { WB_OVERVIEW = 1, WB_NODES, WB_QUOTIENT };
enum { WB_HISTORY = 64 };

typedef struct wb {
	sc_graph *g;
	sc_settings set;
	char path[4096];
	/* the current partition and its costs, kept by the editor (undo, redo,
	 * incremental costs); stage and c point into it after every change */
	sc_editor *ed;
	unsigned part_version; /* grows with every change of the partition */
	const int *stage;
	const sc_costs *c;
	char origin[160]; /* where the current partition came from */
	bool edited;      /* changed by hand since it was set */
	bool from_file;   /* the file's own partition: never replaced unasked */
	double simple;
	/* the best partition known */
	int *best_stage;
	double best;
	char best_from[48];
	bool best_optimal; /* proven by the exact DP or the exact MIP */
	/* jobs */
	sc_engine *eng;
	int search;          /* job id or -1 */
	char search_method[24];
	double search_t0;    /* when it started (monotonic seconds) */
	sc_job_info search_info;
	double hist_t[WB_HISTORY], hist_v[WB_HISTORY]; /* best so far over time */
	int nhist;
	sc_ladder *ladder;
	double ladder_upper; /* the upper bound the ladder was started with */
	/* budgets (settings screen) */
	double search_time, rung_time;
	/* screen */
	int view;
	int pane;       /* overview: 0 stages, 1 ladder */
	int stage_top;  /* first stage row shown */
	int stage_sel;  /* selected stage */
	bool help;
	int tour;         /* the tour's step, 0 when off */
	bool settings;    /* the settings form is open */
	int settings_sel; /* its selected field */
	bool color;
	/* node browser */
	int *order, norder; /* the ops shown, in order */
	int *by_work;       /* all ops by decreasing work */
	int node_sel, node_top, node_sort; /* sort: 0 stage, 1 work, 2 name */
	char filter[64];
	char recover[4096]; /* the recovery file's path, or "" */
	double recover_t;   /* when it was last written */
	bool recover_due;   /* edits not yet in the recovery file */
	char msg[256];  /* the status line's message, or "" */
	double msg_t;
} wb;

/* Draws the whole screen for w's current view. */
void wb_draw(wb *w);

/* The best lower bound known and what proved it ("simple", a rung, "exact
 * DP"). */
double wb_lower_bound(const wb *w, const char **by);

/* The node browser (wb_nodes.c): rebuilds the list after an edit or a
 * change of filter or sort, keeping the selected op selected; draws it;
 * handles its keys (true when the key was its own). */
void wb_nodes_refresh(wb *w);
/* The node browser's order, without a terminal: the ops whose name contains
 * filter (all when NULL or ""), sorted by stage (0; then by name), work (1,
 * decreasing; ties by name; by_work from wb_ops_by_work) or name (2), into
 * out.  Returns their number, or -1 when out of memory.  O(n + k). */
int wb_order_ops(const sc_graph *g, const int *stage, int k, const char *filter, int sort,
		 const int *by_work, int *out);
/* All ops by decreasing work, ties by name (malloc'd), or NULL. */
int *wb_ops_by_work(const sc_graph *g);
void wb_nodes_draw(wb *w, int y, int h, int cols);
bool wb_nodes_key(wb *w, int ch);

/* The quotient view (wb_quotient.c) and the image export (e). */
void wb_quotient_draw(wb *w, int y, int h, int cols);
void wb_export(wb *w);
void wb_quotient_free(void);

/* Reads a line at the bottom of the screen; false when cancelled. */
bool wb_prompt(wb *w, const char *question, char *buf, size_t size);

/* Sets the status line's message. */
void wb_say(wb *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Called after every change of the current partition. */
void wb_changed(wb *w, bool by_hand);

/* Monotonic seconds. */
double wb_now(void);

#endif
