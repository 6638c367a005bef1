/*
 * wb.h - the workbench's core: struct wb, the view and modal interfaces,
 * and what wb_state.c exports (the modal stack, the status line, the
 * current partition), which every file needs.  Every other file of
 * tui/wb/ exports through a header of its own (wb_jobs.c: wb_jobs.h, ...);
 * the state that one part alone uses lives in that part (a view's or a
 * modal's own state, w->jobs, w->rec), not here.
 *
 * One thread runs curses and the engine's poll; searches and MIPs run as
 * engine jobs, so the screen never waits for them.  The current partition
 * is what the engineer looks at and edits; the best partition is the best
 * any job has found; the ladder bounds the optimum from below.
 *
 * The screen is one view (overview, node browser, quotient view, timeline:
 * a wb_view_ops each) with a stack of modals over it (help, settings, tour,
 * a prompt: a wb_modal_ops each); a modal draws over what is beneath it.
 * Keys are decoded through one table (wb_keys.def) into actions, offered to
 * the top modal, then to the view, then to the global actions; each handler
 * says what happened as a WB_HANDLED / WB_REDRAW / WB_QUIT bitmask and only
 * the loop (workbench.c) redraws.
 *
 * The files: workbench.c (start-up and the loop), wb_state.c (the modal
 * stack, the current partition and the status line), wb_keytab.c +
 * wb_keys.def (the key table: decoding, key names, help lines, footers),
 * wb_keys.c (dispatch, the global actions, the help modal), wb_jobs.c
 * (searches, the ladder, the best result), wb_recover.c (the recovery
 * file), wb_files.c (save, load, quit), wb_lineedit.c (prompts, popups),
 * wb_settings.c (the settings form), wb_tour.c, wb_sample.c (the default
 * sample, the first partition), wb_draw.c (the frame), and one file per
 * view: wb_overview.c, wb_nodes.c, wb_quotient.c, wb_timeline.c, wb_modules.c; the node browser's
 * op detail pane (wb_detail.c), moving from op to op with a history (wb_nav.c) and the comparison
 * of two partitions (wb_compare.c).
 *
 * The layers (a file calls only files of its own layer or below, and the
 * calls inside a layer form no circle; scripts/check_house.sh checks it):
 *   1. wb_state.c, wb_sample.c: the state every part uses; they call no
 *      other file of tui/wb/.  wb_changed reaches the views' on_change
 *      through w->views, and wb_modal_state a modal's state through
 *      w->modals (data filled by the loop), not by name.
 *   2. wb_keytab.c: the key table's queries; calls nothing of tui/wb/.
 *   3. wb_jobs.c: searches and the ladder; calls the state.
 *   4. wb_lineedit.c (the prompt), then wb_recover.c, wb_draw.c,
 *      wb_overview.c, wb_files.c, wb_nav.c, wb_detail.c, wb_nodes.c, wb_quotient.c,
 *      wb_timeline.c, wb_modules.c, wb_compare.c, wb_settings.c, wb_tour.c: the views, the modals
 * and the services they share; they call layers 1-3 and each other only downwards in this order
 * (the prompt is the bottom one). A modal passes on a key by returning 0, never by calling the
 *      dispatcher; it opens another modal with wb_modal_push or wb_ask.
 *   5. wb_keys.c (dispatch, global actions, the help modal, the lists of
 *      views and of modals) and workbench.c (start-up and the loop): they may call and
 *      reference everything above; nothing else names them.
 */
#ifndef UI_WB_H
#define UI_WB_H

#include <stdbool.h>
#include <stddef.h>

#include "core/cost.h"
#include "core/edit.h"
#include "core/graph.h"
#include "solvers/jobs.h"
#include "tui/ui.h"
#include "tui/wb/wb_keytab.h"

/* The modal stack's depth; the views in wb_views (wb_keys.h). */
enum { WB_MODALS = 8, WB_NVIEWS = 5 };

typedef struct wb wb;
typedef struct wb_recover wb_recover;
typedef struct wb_jobs wb_jobs;

/* What a key handler did (htop's HandlerResult): the key was its own, the
 * screen must be redrawn, the workbench must quit. */
enum { WB_HANDLED = 1u, WB_REDRAW = 2u, WB_QUIT = 4u };

/* A view: the screen below the header.  draw fills rows y .. y+h-1; key
 * gets the action decoded from ch in the view's context and returns a
 * WB_* bitmask (0: not its own, so the global actions get it); on_change is
 * called for every view after every change of the current partition.  A
 * view's own state lives in it: init makes it at start-up (before the first
 * partition; NULL: out of memory), the loop keeps it in w->view_state and
 * the view reads it back with wb_view_state; fini frees it at exit (a NULL
 * state too).  Any field but draw may be NULL. */
typedef struct wb_view_ops {
	const char *name;
	unsigned in; /* the WB_IN_* context its keys are decoded in */
	int footer;  /* the WB_FOOT_* footer shown under it */
	void (*draw)(wb *w, int y, int h, int cols);
	unsigned (*key)(wb *w, wb_action a, int ch);
	void (*on_change)(wb *w);
	void *(*init)(wb *w);
	void (*fini)(wb *w, void *state);
} wb_view_ops;

/* A modal: drawn over the view (and the modals beneath it) in rows x cols;
 * key gets every key first and returns a WB_* bitmask (0: not its own, so
 * the key goes on to the modal beneath, then the view).  A modal's own
 * state lives in it, as a view's does: state_size bytes (0: none) the loop
 * allocates zeroed at start-up and keeps in w->modal_state while the
 * workbench runs, open or closed; the modal reads it back with
 * wb_modal_state.  At exit, after the engine has gone (a job may read a
 * modal's state until it ends), fini (may be NULL) frees what the state
 * holds, then the loop frees the state. */
typedef struct wb_modal_ops {
	const char *name;
	void (*draw)(wb *w, int rows, int cols);
	unsigned (*key)(wb *w, int ch);
	size_t state_size;
	void (*fini)(wb *w, void *state);
} wb_modal_ops;

/* The modals in wb_modals (wb_keys.h). */
enum { WB_NMODALS = 7 };

/* A modal open on the stack: its ops and what it was pushed with
 * (wb_modal_push_arg; NULL: nothing). */
typedef struct wb_open_modal {
	const wb_modal_ops *ops;
	void *arg;
} wb_open_modal;

/* The baseline: the partition as last saved, loaded or set by the program
 * (wb_mark_saved makes it, wb_state.c alone changes it); unsaved means
 * different from it.  wb_baseline_free frees it (NULL: a no-op). */
typedef struct wb_baseline {
	int *stage;       /* its stages */
	int *kind;        /* its stages' kinds, NULL without devices */
	int k;            /* its set.k */
	char origin[160]; /* where it came from (undone back to it, the current
	                   * partition says so again) */
} wb_baseline;
void wb_baseline_free(wb_baseline *base);

/* What a prompt does with its answer (ok false when cancelled); returns a
 * WB_* bitmask.  arg is the one given to wb_ask. */
typedef unsigned (*wb_answer_fn)(wb *w, const char *answer, bool ok, int arg);

struct wb {
	sc_graph *g;
	const ui_opts *opts; /* the command line's (--device, --dim, ...) */
	/* the problem, as the solvers take it: set.k the accelerator stages,
	 * set.cpus the CPU stages (or set.fleet); all the stages, what the
	 * partition and the kinds count, are sc_settings_stages(&set) */
	sc_settings set;
	char path[4096];
	/* the current partition and its costs, kept by the editor (undo, redo,
	 * incremental costs); stage and c point into it after every change */
	sc_editor *ed;
	unsigned part_version; /* grows with every change of the partition */
	const int *stage;
	const sc_costs *c;
	char origin[160]; /* where the current partition came from */
	bool edited;      /* differs from the baseline (base) */
	bool from_file;   /* the file's own partition: never replaced unasked */
	double simple;
	/* the best partition known */
	int *best_stage;
	double best;
	char best_from[48];
	bool best_optimal; /* proven by the exact DP or the exact MIP */
	/* jobs: the engine, and the searches' and the ladder's state
	 * (wb_jobs.h) */
	sc_engine *eng;
	wb_jobs *jobs;
	/* ops pinned (p in the node browser) to the stage they are in when a
	 * search starts (sc_settings.pin: every method keeps them there); the
	 * ladder's bounds ignore them */
	bool *pinned;
	int npinned;
	/* screen */
	const wb_view_ops *view;
	/* every view (wb_views, set at start-up): wb_changed calls their
	 * on_change through this, so wb_state.c names no view */
	const wb_view_ops *const *views;
	void *view_state[WB_NVIEWS]; /* views[i]'s own state (its init's), or NULL */
	/* every modal (wb_modals, set at start-up) and each one's own state
	 * (its init's, or NULL), as for the views */
	const wb_modal_ops *const *modals;
	void *modal_state[WB_NMODALS];
	wb_open_modal modal[WB_MODALS]; /* the modals open, bottom first */
	int nmodal;
	int pane;      /* overview: 0 stages, 1 ladder */
	int stage_sel; /* selected stage */
	bool color;
	/* the recovery file (wb_recover.h): its state, and whether it is
	 * behind (write or remove it: every change sets it) */
	wb_recover *rec;
	bool recover_due;
	wb_baseline *base; /* NULL until wb_mark_saved first runs */
	/* Devices (fleet.h): with L CPU stages (001 section 3) set.cpus = L
	 * beside set.k = k; kind, best_kind: the kinds of the
	 * sc_settings_stages(&set) stages (0 the graph's device, 1 a CPU) of
	 * the current partition (from the editor, wb_changed) and the best;
	 * NULL without devices.  Jobs: wb_job_settings. */
	int *kind, *best_kind;
	char msg[512]; /* the status line's message, or "" */
	double msg_t;
	bool msg_shown; /* the last redraw showed msg */
};

/* --- modals (wb_state.c) --- */

/* Pushes m over the screen (no-op when the stack is full); pops the top
 * one; closes m wherever it is in the stack; the top one or NULL; whether
 * m is open anywhere in the stack. */
void wb_modal_push(wb *w, const wb_modal_ops *m);
/* Pushes m as wb_modal_push does, with arg: state its opener owns (and
 * keeps until m is closed), which m reads back with wb_modal_arg. */
void wb_modal_push_arg(wb *w, const wb_modal_ops *m, void *arg);
/* The arg the topmost m in the stack was pushed with; NULL when m is not
 * open or was pushed without one. */
void *wb_modal_arg(const wb *w, const wb_modal_ops *m);
void wb_modal_pop(wb *w);
void wb_modal_close(wb *w, const wb_modal_ops *m);
const wb_modal_ops *wb_modal_top(const wb *w);
bool wb_modal_open(const wb *w, const wb_modal_ops *m);

/* --- the current partition and the status line (wb_state.c) --- */

/* How long the status line shows a message, in seconds. */
enum { WB_MSG_SECONDS = 8 };

/* Sets the status line's message (shown for WB_MSG_SECONDS). */
void wb_say(wb *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Whether the status line's message is still shown at time now. */
bool wb_msg_fresh(const wb *w, double now);

/* When the status line's message (the last one set) expires: the loop's
 * deadline for the redraw that takes it away. */
double wb_msg_expiry(const wb *w);

/* The state view v made with its init (NULL before start-up made it, or
 * for a view without init); v is found in w->views.  O(WB_NVIEWS). */
void *wb_view_state(const wb *w, const wb_view_ops *v);
/* The state of modal m (its state_size bytes; NULL for a modal without, or
 * before start-up made it); m is found in w->modals.  O(WB_NMODALS). */
void *wb_modal_state(const wb *w, const wb_modal_ops *m);

/* Called after every change of the current partition: re-reads the
 * editor, marks hand edits unsaved and tells every view in w->views (its
 * on_change; w->views may be NULL before start-up sets it). */
void wb_changed(wb *w, bool by_hand);

/* A new editor (the undo history starts over) on stage; false, with the
 * reason in the status line, when it cannot be made.  The baseline stays:
 * stage is an edit when it differs from it. */
bool wb_new_editor(wb *w, const int *stage);

/* Makes stage, with the stages' kinds kind (set.k of them; NULL: the
 * current kinds stay), the current partition.  Done by the program (a
 * search's result replacing the first partition) it is the new baseline,
 * not an unsaved edit, and the undo history starts there; done by the
 * engineer (by_hand) it is an edit, undoable, partition and kinds one undo
 * entry.  wb_new_editor_kinds is wb_new_editor with the kinds too. */
void wb_set_current_kinds(wb *w, const int *stage, const int *kind, const char *origin,
                          bool by_hand);
bool wb_new_editor_kinds(wb *w, const int *stage, const int *kind);

/* The settings a job runs with: w->set's (k the accelerator stages and
 * cpus the CPU stages, as the solvers count them; no CPU without devices). */
void wb_job_settings(const wb *w, sc_settings *out);
/* The settings of the partition as core's costs, editor and files and
 * viz's quotient take them: w->set's with k all the stages, accelerator
 * and CPU ones alike (sc_settings_stages). */
void wb_part_settings(const wb *w, sc_settings *out);
/* The simple lower bound for w's k (and CPUs: sc_bound_simple_cpus). */
double wb_simple_bound(const wb *w);

/* Makes the current partition the baseline (saved, or set by the program):
 * w->edited becomes false until it differs again. */
void wb_mark_saved(wb *w);

#endif
