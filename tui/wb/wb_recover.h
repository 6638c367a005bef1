/*
 * wb_recover.h - the recovery file of unsaved edits (wb_recover.c): its
 * slot and lock, its writer, and the start's offer of a dead session's.
 */
#ifndef UI_WB_RECOVER_H
#define UI_WB_RECOVER_H

#include <stdbool.h>
#include <stddef.h>

#include "tui/wb/wb.h"

/* The recovery file's state, w->rec (w->recover_due, which every change
 * sets, is the workbench's own).  Only wb_recover.c changes it. */
struct wb_recover {
	char path[4096]; /* the recovery file's path, or "" */
	int lock;        /* the slot's lock file, open and locked while path[0] */
	bool left;       /* path holds a dead session's edits */
	char note[320];  /* said when the status line is free */
	double t;        /* when it was last written */
	/* the offered recovery file's stages and kinds (NULL without devices),
	 * until answered */
	int *stage, *kind;
	bool misfit;                /* asking about a file that does not fit */
	void (*after_offer)(wb *w); /* what the start-up does after the answer */
};

/* An empty state, no slot taken (NULL: out of memory); freed, with what it
 * holds, by wb_recover_free (after wb_recover_close; NULL: a no-op). */
wb_recover *wb_recover_new(void);
void wb_recover_free(wb_recover *rec);

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
 * preferred (rec->left, for wb_recover_offer), else a free slot
 * with no file (never another session's file).  Sets rec->path to the
 * file's path, or "" when there is none to be had; what went wrong, or
 * a non-regular file left alone in a slot, waits in rec->note.
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
 * since the last write; a failed write, or rec->note, is said once
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

/* Whether the start's offer waits for its answer (nothing is written or
 * removed meanwhile). */
bool wb_recover_asking(const wb *w);

#endif
