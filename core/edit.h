/*
 * edit.h - the editable partition behind the workbench's hand edits
 * (DESIGN.md section 6: move an op, move it with its dependents, undo, redo,
 * unsaved changes).
 *
 * An sc_editor owns a valid partition of a graph into k stages and its stage
 * costs.  Every edit keeps the partition valid (sc_part_check): a move that
 * would send an edge backwards is refused with the edge named, and an op
 * always moves together with its co-location group.  Costs are updated with
 * sc_costs_move, so a single-op move costs O(degree + group size) plus that
 * update, never O(n), even on graphs of 100 000 ops.
 *
 * The history is linear: the undo entries, then the redo entries, each
 * holding only the (op, from, to) triples it changed and a label; a new edit
 * drops the redo entries.  Its memory is proportional to the ops changed.
 *
 * Devices (fleet.h): an editor made with sc_editor_new_kinds knows each
 * stage's kind (an index into its costs' fleet: set->fleet's, or 0 the
 * graph's device and 1 a CPU of 001 section 3); a move never puts an op
 * on a kind that may not run it, and sc_editor_set_kinds replaces the
 * partition and the kinds as one undo entry (a change of a stage's
 * device is such an entry).
 *
 * Stages are 0-based in the interface; every text (reasons, labels) uses the
 * 1-based numbers people see.  Nothing here prints or exits.  An sc_editor is
 * not thread-safe.
 */
#ifndef SC_EDIT_H
#define SC_EDIT_H

#include <stdbool.h>
#include <stddef.h>

#include "cost.h"
#include "error.h"
#include "graph.h"

typedef struct sc_editor sc_editor;

/* Returns an editor for the partition stage[0..n) of g into set->k stages
 * (0-based; copied), which must be valid (see sc_part_check), with its costs
 * under set.  g and set are borrowed and must outlive the editor.  Returns
 * NULL with err set (SC_ERR_INPUT naming the violation, or SC_ERR_NOMEM)
 * when set->k < 1, the partition is invalid, or memory runs out. */
sc_editor *sc_editor_new(const sc_graph *g, const sc_settings *set, const int *stage,
                         sc_error *err);

/* sc_editor_new with each stage's kind: kind[0..set->k) (copied; NULL:
 * as sc_editor_new, which checks no device).  The partition must also put
 * every op on a kind that may run it (sc_part_check_kinds); the costs are
 * those of sc_costs_set_kinds. */
sc_editor *sc_editor_new_kinds(const sc_graph *g, const sc_settings *set, const int *stage,
                               const int *kind, sc_error *err);

/* The current kinds: k of them, owned by ed and updated in place, or NULL
 * while every stage is of kind 0.  O(k). */
const int *sc_editor_kinds(const sc_editor *ed);

/* Debug builds (SC_DEBUG, the sanitizer build) call this after every
 * edit, undo and redo: asserts the partition valid for its kinds and the
 * incremental costs those of a whole evaluation (to rounding).  O(n + m +
 * k). */
void sc_editor_check(const sc_editor *ed);

/* Frees ed and its history.  sc_editor_free(NULL) does nothing. */
void sc_editor_free(sc_editor *ed);

/* The current stages, 0-based, n entries; owned by ed and valid until the
 * next edit, undo or redo changes them in place (the pointer stays). */
const int *sc_editor_stages(const sc_editor *ed);

/* The current stage costs (see cost.h); owned by ed, updated in place. */
const sc_costs *sc_editor_costs(const sc_editor *ed);

/* The stages op v (0 <= v < n) may move to alone, with its group, without an
 * edge breaking its rule of the stage order (going backwards; on a training
 * graph also an orphan's edge going on to a later stage): [*lo, *hi], 0-based, always containing
 * its current stage.  O(degree of v's group + group size). */
void sc_editor_range(const sc_editor *ed, int v, int *lo, int *hi);

/* Moves op v with its whole co-location group to stage `to` (0-based).
 * Refuses, returning false, changing nothing and writing one line into why,
 * when v or `to` is out of range, when an edge would go to an earlier stage
 * ("edge conv1 -> add would go from stage 3 back to stage 2"; on a training
 * graph an edge between backward ops, one an orphan, to a later stage: "edge
 * a -> b would go from stage 1 on to stage 3 (an edge between backward ops,
 * one of them an orphan, never goes to a later stage)") or when the
 * history cannot grow (out of memory), or when an op of the group may not
 * go to that stage's device ("conv1 has no CPU time: it may not go to stage
 * 2 (CPU)", "relu1 may not run on an accelerator: it may not go to stage 1
 * (accelerator)").  On success returns true, records one
 * undo entry and writes "moved conv1 to stage 3" or "moved group g1 (4 ops)
 * to stage 3" into why.  A move to the current stage is a no-op that returns
 * true with no undo entry.  why may be NULL when size is 0. */
bool sc_editor_move(sc_editor *ed, int v, int to, char *why, size_t size);

/* Moves v to `to` together with every op that must move for the partition to
 * stay valid: moving later, every descendant at a stage < to (with its group,
 * transitively); moving earlier, every ancestor at a stage > to likewise.  All
 * of them end in stage `to`, as one undo entry.  Returns the number of ops
 * moved (0 for a no-op, with no undo entry) and describes the move in why;
 * -1 with the reason in why when v or `to` is out of range, an op that would
 * move may not go to that stage's device (named as by sc_editor_move), or
 * memory runs out.  O(degrees and groups of the ops moved) plus one cost update each. */
int sc_editor_move_with_dependents(sc_editor *ed, int v, int to, char *why, size_t size);

/* Replaces the whole partition with stage[0..n) (0-based, e.g. a search's
 * result) as one undo entry labelled label (copied; NULL means "set
 * partition").  Returns false, changing nothing, when stage is invalid or
 * memory runs out; true otherwise.  An identical partition is a no-op with no
 * undo entry.  O(n + m).  The devices stay; an op on a device it may not
 * go to makes stage invalid. */
bool sc_editor_set(sc_editor *ed, const int *stage, const char *label);

/* sc_editor_set with the kinds too: kind[0..k) (NULL: every stage kind 0)
 * replace the current ones in the same undo entry, so undo restores the
 * old partition and the old kinds together.  Returns false, changing
 * nothing, when stage is invalid for those kinds (sc_part_check_kinds), a
 * kind is none of the fleet's, or memory runs out.  O(n + m + k). */
bool sc_editor_set_kinds(sc_editor *ed, const int *stage, const int *kind, const char *label);

/* Undoes the last edit, or redoes the last undone one; false when there is
 * none.  Costs follow. */
bool sc_editor_undo(sc_editor *ed);
bool sc_editor_redo(sc_editor *ed);

/* How many edits can be undone, or redone. */
int sc_editor_undo_count(const sc_editor *ed);
int sc_editor_redo_count(const sc_editor *ed);

/* What undo or redo would do ("move conv1 to stage 3", "move group g1 (4
 * ops) to stage 3", "move conv1 with dependents to stage 3", or a set's
 * label), owned by ed until the history changes; NULL when there is none. */
const char *sc_editor_undo_label(const sc_editor *ed);
const char *sc_editor_redo_label(const sc_editor *ed);

/* Unsaved changes: true when the partition is not the one of the last
 * sc_editor_mark_saved (or of sc_editor_new).  Undoing or redoing back to
 * the saved state makes the editor clean again; once an edit has dropped the
 * saved state from the redo list it stays dirty until the next mark. */
bool sc_editor_dirty(const sc_editor *ed);
void sc_editor_mark_saved(sc_editor *ed);

#endif
