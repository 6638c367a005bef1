/*
 * wb.h - the workbench's state and what its files share.
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
 *      through w->views (data filled by the loop), not by name.
 *   2. wb_keytab.c: the key table's queries; calls nothing of tui/wb/.
 *   3. wb_jobs.c: searches and the ladder; calls the state.
 *   4. wb_lineedit.c (the prompt), then wb_recover.c, wb_draw.c,
 *      wb_overview.c, wb_files.c, wb_nav.c, wb_detail.c, wb_nodes.c, wb_quotient.c,
 *      wb_timeline.c, wb_modules.c, wb_compare.c, wb_settings.c, wb_tour.c: the views, the modals
 * and the services they share; they call layers 1-3 and each other only downwards in this order
 * (the prompt is the bottom one). A modal passes on a key by returning 0, never by calling the
 *      dispatcher; it opens another modal with wb_modal_push or wb_ask.
 *   5. wb_keys.c (dispatch, global actions, the help modal, the list of
 *      views) and workbench.c (start-up and the loop): they may call and
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
#include "solvers/ladder.h"
#include "tui/ui.h"
#include "tui/wb/wb_keytab.h"

enum { WB_HISTORY = 64, WB_MODALS = 8, WB_NVIEWS = 5 };

typedef struct wb wb;

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

extern const wb_view_ops wb_overview_view, wb_nodes_view, wb_quotient_view, wb_timeline_view,
        wb_modules_view;

/* The views in the order of the keys 1 2 3 4 5 (wb_keys.c). */
extern const wb_view_ops *const wb_views[WB_NVIEWS];

/* A modal: drawn over the view (and the modals beneath it) in rows x cols;
 * key gets every key first and returns a WB_* bitmask (0: not its own, so
 * the key goes on to the modal beneath, then the view). */
typedef struct wb_modal_ops {
	const char *name;
	void (*draw)(wb *w, int rows, int cols);
	unsigned (*key)(wb *w, int ch);
} wb_modal_ops;

extern const wb_modal_ops wb_help_modal, wb_settings_modal, wb_tour_modal, wb_prompt_modal;

/* What a prompt does with its answer (ok false when cancelled); returns a
 * WB_* bitmask.  arg is the one given to wb_ask. */
typedef unsigned (*wb_answer_fn)(wb *w, const char *answer, bool ok, int arg);

struct wb {
	sc_graph *g;
	const ui_opts *opts; /* the command line's (--device, --dim, ...) */
	sc_settings set;
	char path[4096];
	/* the current partition and its costs, kept by the editor (undo, redo,
	 * incremental costs); stage and c point into it after every change */
	sc_editor *ed;
	unsigned part_version; /* grows with every change of the partition */
	const int *stage;
	const sc_costs *c;
	char origin[160];      /* where the current partition came from */
	char base_origin[160]; /* where the baseline came from (undone back to it,
	                        * the current partition says so again) */
	bool edited;           /* differs from the baseline (base_stage, base_k) */
	bool from_file;        /* the file's own partition: never replaced unasked */
	double simple;
	/* the best partition known */
	int *best_stage;
	double best;
	char best_from[48];
	bool best_optimal; /* proven by the exact DP or the exact MIP */
	bool none_fits;    /* the search's exact DP proved no partition fits */
	/* jobs */
	sc_engine *eng;
	int search; /* job id or -1 */
	char search_method[24];
	double search_t0; /* when it started (sc_clock_now) */
	sc_job_info search_info;
	int search_queue; /* while the search is queued: its place in line (1: next), else 0 */
	int jobs_running, jobs_queued, jobs_paused;    /* the engine's, as of wb_follow_jobs */
	double hist_t[WB_HISTORY], hist_v[WB_HISTORY]; /* best so far over time */
	int nhist;
	sc_ladder *ladder;
	double ladder_upper; /* the upper bound the ladder was started with */
	/* the search's settings (settings screen): the method s and S run,
	 * the seed of the next search (each search takes one, so s never
	 * repeats a run), its evaluation budget (0: the method's default) */
	char search_pick[24];
	long search_seed, search_evals;
	long search_run_seed; /* the seed of the search on screen */
	/* S: the search runs again, with the next seed and twice the
	 * evaluations, until stopped (x) or proven optimal */
	bool until_stopped;
	/* ops pinned (p in the node browser) to the stage they are in when a
	 * search starts (sc_settings.pin: every method keeps them there); the
	 * ladder's bounds ignore them.  search_pins: how many the search on
	 * screen started with (its proof is of the best with them) */
	bool *pinned;
	int npinned, search_pins;
	long until_evals; /* the budget of the next round */
	int rounds;       /* rounds run since S */
	/* budgets (settings screen) */
	double search_time, rung_time;
	/* screen */
	const wb_view_ops *view;
	/* every view (wb_views, set at start-up): wb_changed calls their
	 * on_change through this, so wb_state.c names no view */
	const wb_view_ops *const *views;
	void *view_state[WB_NVIEWS];          /* views[i]'s own state (its init's), or NULL */
	const wb_modal_ops *modal[WB_MODALS]; /* the modals, bottom first */
	void *modal_arg[WB_MODALS];           /* what each was pushed with, or NULL */
	int nmodal;
	int pane;         /* overview: 0 stages, 1 ladder */
	int stage_top;    /* first stage row shown */
	int stage_sel;    /* selected stage */
	int tour;         /* the tour's step while it is open */
	int settings_sel; /* the settings form's selected field */
	struct {
		char question[1024]; /* room for a path and why (the recovery file) */
		char buf[1024];
		size_t size; /* at most sizeof buf */
		wb_answer_fn done;
		int arg;
		bool selected;       /* buf's text is selected: typing replaces it */
		const char *choices; /* a confirmation (wb_choose): these keys answer */
		/* called after every key that changed buf while the prompt is
		 * open (the filter as you type); wb_ask clears it, the asker
		 * sets it after wb_ask */
		void (*edited)(wb *w, const char *line, int arg);
	} prompt;
	bool color;
	/* the comparison (wb_compare.c), while it is open */
	struct {
		int *stage;      /* the other partition, or NULL */
		sc_costs *costs; /* its costs */
		char what[200];  /* what it is ("the best found (dpl)", a file) */
		int top;         /* the first line shown */
	} cmp;
	/* C's table (wb_cputable.c): row i a mix (grid: k + i/3, i%3 CPUs) */
	struct {
		int n, k, cpus; /* rows; the current run's k and CPUs (grid) */
		bool grid;
		sc_fleet mix[SC_FLEET_NEIGHBOURS];
		int id[SC_FLEET_NEIGHBOURS];
		bool run[SC_FLEET_NEIGHBOURS];
		double v[SC_FLEET_NEIGHBOURS];
		char why[SC_FLEET_NEIGHBOURS][128];
	} cput;
	/* the recovery file (wb_recover.c): this session's slot, locked
	 * through recover_lock (a descriptor, valid while recover[0]) */
	char recover[4096];         /* the recovery file's path, or "" */
	int recover_lock;           /* the slot's lock file, open and locked */
	bool recover_left;          /* recover holds a dead session's edits */
	char recover_note[320];     /* said when the status line is free */
	double recover_t;           /* when it was last written */
	bool recover_due;           /* the recovery file is behind: write or remove it */
	int *recovered;             /* the offered recovery file's stages, until answered */
	bool recover_misfit;        /* asking about a file that does not fit */
	void (*after_offer)(wb *w); /* what the start-up does after the answer */
	/* the baseline: the partition as last saved, loaded or set by the
	 * program, and its k (NULL until wb_mark_saved first runs) */
	int *base_stage;
	int base_k;
	/* Devices (fleet.h): with L CPU stages (001 section 3) set.k = k + L;
	 * kind, base_kind, best_kind: the stage kinds (0 the graph's device, 1
	 * a CPU) of the current partition (from the editor, wb_changed), the
	 * baseline and the best; NULL without devices.  Jobs: wb_job_settings. */
	int *kind, *base_kind, *best_kind;
	int *recovered_kind; /* the recovery file's kinds, until answered */
	int help_top;        /* the help's first row shown (it scrolls) */
	char msg[512];       /* the status line's message, or "" */
	double msg_t;
	bool msg_shown; /* the last redraw showed msg */
};

/* --- the screen (wb_draw.c) --- */

/* Draws the whole screen: header, view, footer, then the modals bottom up. */
void wb_draw(wb *w);

/* Clears a box of h x wd cells at (y0, x0) and writes title in reverse on
 * its first row (the help, settings and tour boxes). */
void wb_box(int y0, int x0, int h, int wd, const char *title);

/* The colour pairs workbench.c makes; wb_attr turns pair on or off, or
 * without colours the curses attributes fallback (A_BOLD, A_DIM, ...). */
enum { WB_PAIR_BOTTLENECK = 1, WB_PAIR_GOOD, WB_PAIR_TITLE, WB_PAIR_DIM };
void wb_attr(const wb *w, int pair, unsigned long fallback, bool on);

/* A byte count in at most 6 characters: "14", "12.35", "1.2e9", "inf". */
const char *wb_short_num(double x, char *buf, size_t size);

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

const char *wb_devices_text(const wb *w, char *buf, size_t size);

/* The settings a job runs with: set's with k the accelerator stages and
 * cpus the CPU stages (w->set.k counts both). */
void wb_job_settings(const wb *w, sc_settings *out);
/* The simple lower bound for w's k (and CPUs: sc_bound_simple_cpus). */
double wb_simple_bound(const wb *w);

/* Makes the current partition the baseline (saved, or set by the program):
 * w->edited becomes false until it differs again. */
void wb_mark_saved(wb *w);

/* --- prompts (wb_lineedit.c) --- */

/* Opens a prompt on the last rows with question and buf's initial text
 * (at most size - 1 characters are kept), selected: the first character
 * typed replaces it, Backspace, ^U or ^W erase it, Right or End keep it to
 * edit; ^U kills the line, ^W the word before the cursor.  On Enter or Esc
 * it closes and calls done(w, line, ok, arg) (ok: Enter on a non-empty
 * line), whose result is the key's.  Returns WB_HANDLED | WB_REDRAW. */
/* T: asks for a file of measured op times (times.h) and reloads the graph
 * with them: the jobs start over, the partition stays (wb_files.c). */
unsigned wb_load_times(wb *w);

unsigned wb_ask(wb *w, const char *question, const char *initial, size_t size, wb_answer_fn done,
                int arg);
/* A confirmation on the last row: one of the keys in keys (a letter, upper
 * case too) answers at once, done(w, "<key>", true, arg); Esc answers
 * done(w, "", false, arg); other keys are ignored.  Returns as wb_ask. */
unsigned wb_choose(wb *w, const char *question, const char *keys, wb_answer_fn done, int arg);
/* Clears a box of h x wd cells at (y0, x0), draws its border with title in
 * the top edge and foot (may be NULL) in the bottom one, both clipped. */
void wb_popup(int y0, int x0, int h, int wd, const char *title, const char *foot);

/* --- the node browser (wb_nodes.c) --- */

/* The node browser's orders, in the order S cycles through them. */
enum { WB_SORT_STAGE, WB_SORT_WORK, WB_SORT_NAME, WB_SORT_PARAM, WB_NSORTS };

/* Rebuilds the list after an edit or a change of filter or sort, keeping
 * the selected op selected (the node view's on_change). */
void wb_nodes_refresh(wb *w);
/* Whether name contains filter, ASCII letters matched in any case (every
 * name matches a NULL or empty filter). */
bool wb_name_matches(const char *name, const char *filter);
/* The node browser's order, without a terminal: the ops whose name contains
 * filter in any case (all when NULL or "") and, when only >= 0, whose stage
 * is only, and, when among is not NULL, with among[v] set, sorted by stage (WB_SORT_STAGE; then by
 * name), decreasing work or param (WB_SORT_WORK, WB_SORT_PARAM: by_value from wb_ops_by of that
 * value; ties by name) or name (WB_SORT_NAME), into out; by_name is every
 * op in name order (sc_names_order: the natural order, Add2 before
 * Add11).  Returns their number, or -1 when out of memory.  O(n + k). */
int wb_order_ops(const sc_graph *g, const int *stage, int k, const char *filter, int only,
                 const bool *among, int sort, const int *by_name, const int *by_value, int *out);
/* Opens the node browser on ops[0 .. n) alone (a module's ops: i in the
 * module view), every stage, no filter, what naming them in its title
 * ("module layer2.1"); 2 in the browser lists every op again.  Returns a
 * WB_* bitmask. */
unsigned wb_nodes_open_ops(wb *w, const int *ops, int n, const char *what);
/* All ops by decreasing value[v] (g->work, g->param), ties in the order of
 * by_name (the caller frees it), or NULL when out of memory.
 * O(n log n). */
int *wb_ops_by(const sc_graph *g, const int *by_name, const double *value);
/* Opens the node browser on the ops of stage s alone (0-based). */
unsigned wb_nodes_open_stage(wb *w, int s);

/* --- moving around the graph (wb_nav.c) --- */

/* What going to op u means for the view that asked (the node browser
 * selects it, listing it first if it must). */
typedef void wb_nav_go(wb *w, int u);

enum { WB_NAV_HISTORY = 256 };

/* The ops gone to, and the list of neighbours while it is open: the node
 * browser's, kept in its state; the functions below are its only
 * readers. */
typedef struct wb_nav {
	int op[WB_NAV_HISTORY];
	int n, at; /* ops op[0 .. n), the one stood on op[at] (-1: none) */
	/* the list of neighbours while it is open */
	int from;      /* whose */
	bool succ;     /* successors, else predecessors */
	int sel, top;  /* the selected row, the first shown */
	wb_nav_go *go; /* what Enter calls */
} wb_nav;

/* Makes nav an empty history (also to forget one: another graph). */
void wb_nav_init(wb_nav *nav);
/* ( and ): op v's only predecessor (succ false) or successor, gone to at
 * once through go and recorded in nav; with several, the list of them
 * opens (a modal, wb_nav_modal, pushed with nav: it must outlive the
 * modal) and Enter goes to the one chosen; with none, the status line
 * says so.  Returns a WB_* bitmask. */
unsigned wb_nav_neighbour(wb *w, wb_nav *nav, int v, bool succ, wb_nav_go *go);
extern const wb_modal_ops wb_nav_modal;
/* Records a step from op from to op to (what ( and ) do). */
void wb_nav_went(wb_nav *nav, int from, int to);
/* { and }: the op before (after) the one stood on in the history, or -1
 * at its start (end); cur is the op selected now: back from an op not in
 * the history records it first. */
int wb_nav_back(wb_nav *nav, int cur);
int wb_nav_forward(wb_nav *nav, int cur);
/* How many steps back and forward the history holds. */
void wb_nav_places(const wb_nav *nav, int *back, int *forward);

/* --- the op detail pane (wb_detail.c) --- */

/* What pins one end of an op's legal range: the order arc (core/graph.h)
 * between an op of v's group and a neighbour outside it whose stage is
 * that end.  by is the neighbour, -1 when nothing pins the end (it is then
 * the first or the last stage); from -> to is the graph edge (for a mirror
 * rule it runs from the group's op to by, else from by or to by as the
 * arc does); more counts the other neighbours in that same stage. */
typedef struct wb_pin {
	int by, from, to;
	sc_edge_rule rule;
	int more;
} wb_pin;

/* The legal range of op v under the valid partition stage into k stages,
 * as sc_part_legal_range gives it, in *lo and *hi (0-based), and what pins
 * each end in *plo and *phi.  O(degree of v's group + group size). */
void wb_range_pins(const sc_graph *g, const int *stage, int k, int v, int *lo, int *hi, wb_pin *plo,
                   wb_pin *phi);
/* Draws the detail pane of op v in rows y .. y+h-1: its stage, legal range
 * and the edge pinning each end, then its predecessors and successors with
 * their stages and the tensors crossing. */
void wb_detail_draw(wb *w, int v, int y, int h, int cols);

/* --- comparing partitions (wb_compare.c) --- */

extern const wb_modal_ops wb_compare_modal;

/* Opens the comparison of the current partition with the best one found,
 * or asks for a partition file when there is none. */
unsigned wb_compare(wb *w);
/* The actions of the browsing features that a view leaves: Enter on a
 * stage (its ops in the node browser), b (select the bottleneck stage), c
 * (the comparison); 0 for any other.  Called by the global actions
 * (wb_keys.c). */
unsigned wb_browse_action(wb *w, wb_action a);

/* --- the CPU table (wb_cputable.c) --- */
extern const wb_modal_ops wb_cputable_modal;

/* C: the optimum at k, k + 1 accelerators and 0, 1, 2 CPUs, each cell a
 * job of w->eng (exact DP); closing it discards the jobs still running. */
unsigned wb_cputable(wb *w);

/* --- the quotient view (wb_quotient.c) --- */

/* Asks for a file name and exports the stage graph as an image. */
unsigned wb_export(wb *w);
/* The quotient view's m: the matrix of stage-to-stage volumes in place of
 * the drawing, or back. */
unsigned wb_quotient_toggle(wb *w);

/* --- dispatch (wb_keys.c, the top layer) --- */

/* Handles one key: the modals top down, then the view, then the global
 * actions.  Returns a WB_* bitmask (0: nobody's key). */
unsigned wb_key(wb *w, int ch);

/* --- jobs (wb_jobs.c) --- */

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

/* --- the recovery file (wb_recover.c) --- */

/* The name (no directory) of recovery slot slot (1, 2, ...) for the graph
 * at full (an absolute path) and k, into buf: "<full escaped>-k<k>" then
 * ".<slot>" for slots after the first, then ".json", where full is escaped
 * as '/' %2F, '%' %25, '~' %7E (no two paths share a name); when that
 * name and its lock file's ("." + it, ".lock" for ".json") would not fit in
 * NAME_MAX, the end of full (from a '/' where one is near) then '~' and 16
 * hex digits of a hash of all of full stand for it.  Returns false when
 * buf is too small.  Pure; thread-safe. */
bool wb_recover_name(char *buf, size_t size, const char *full, int k, int slot);
/* Takes this session's recovery slot for the graph's path and k (giving up
 * any slot held): a slot is a recovery file and its lock file; the lock is
 * held until wb_recover_close or exit, so another workbench on the same
 * graph and k sees the slot is taken and leaves it alone.  With leftover
 * (at the start) a free slot that holds a file of a session that died is
 * preferred (w->recover_left, for wb_recover_offer), else a free slot
 * with no file (never another session's file).  Sets w->recover to the
 * file's path, or "" when there is none to be had; what went wrong, or
 * a non-regular file left alone in a slot, waits in w->recover_note.
 * Nothing it opens can block. */
void wb_recover_open(wb *w, bool leftover);
/* Gives up the slot: its lock file is removed and unlocked; the recovery
 * file, if any, stays.  A no-op without a slot. */
void wb_recover_close(wb *w);
/* When w->recover_due: writes the recovery file while the partition is
 * edited, on a thread of its own unless wait is set (then at once, after
 * any write under way); removes it when the partition is back at the
 * baseline.  Never while the recovery offer waits for its answer.  The
 * file is written beside and renamed into place, never through whatever
 * is at its path (a FIFO there is left alone and the write fails). */
void wb_recover_write(wb *w, bool wait);
/* The loop's turn at time now: writes when due and two seconds have passed
 * since the last write; a failed write, or w->recover_note, is said once
 * the status line is free. */
void wb_recover_tick(wb *w, double now);
/* When wb_recover_tick next has something to do, at time now (both
 * sc_clock_now's; INFINITY: nothing until an edit or a key): the write two
 * seconds after the last, a note once the status line's message has
 * expired, and a look every 50 ms while the writer thread runs (a failure
 * is said once it has ended). */
double wb_recover_next(const wb *w, double now);
/* Removes the recovery file (after a save or a deliberate quit). */
void wb_recover_clear(wb *w);
/* Waits for a write under way (the graph must outlive the writer). */
void wb_recover_wait(void);
/* When the slot holds a dead session's valid recovery file for this graph
 * and k, asks whether to restore it and returns true; then(w) runs after
 * the answer. */
bool wb_recover_offer(wb *w, void (*then)(wb *w));

/* --- save, load, quit (wb_files.c) --- */

/* Asks for a file name and saves the current partition; with then_quit the
 * answer's result has WB_QUIT when the partition was saved. */
unsigned wb_save(wb *w, bool then_quit);
/* Asks for a partition file and makes it the current partition. */
unsigned wb_load(wb *w);
/* Quits, asking first when the partition has unsaved edits. */
unsigned wb_quit(wb *w);

/* --- the first partition (wb_sample.c) --- */

/* A first partition at once into stage: DPL and refinement for graphs up to
 * 20 000 ops, else the greedy equal-work split; where it came from in
 * origin. */
void wb_first_partition(const sc_graph *g, const sc_settings *set, int *stage, char *origin,
                        size_t size);
/* With CPU stages: a fast search (dpl, half a second) under set (k
 * accelerator and set->cpus CPU stages) into stage and its kinds into
 * kind (k + cpus of them, 1 a CPU); false when it finds no partition that
 * fits. */
bool wb_first_partition_cpus(const sc_graph *g, const sc_settings *set, int *stage, int *kind,
                             char *origin, size_t size);

#endif
