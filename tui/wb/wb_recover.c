/*
 * wb_recover.c - the recovery file.
 *
 * While the partition has unsaved edits it is written (at most every two
 * seconds, atomically) to $XDG_STATE_HOME/stagecut/ (default
 * ~/.local/state/stagecut/), under a name made from the graph's full path
 * and k; a save, a deliberate quit, or coming back to the baseline (an
 * undo, a settings change that replaced the edits: w->edited false)
 * removes it.  A killed terminal or a crash leaves it, and the next start
 * on the same graph and k offers it, unless it holds the partition that
 * start shows anyway.
 * Files are written on a thread of their own from a snapshot of the stages,
 * so a big graph's JSON never delays a key press.  The loop (workbench.c)
 * decides when to write; saving is in wb_files.c.
 *
 * Layer: a service of layer 4 (wb.h), below the views and modals: it calls
 * the state and the prompt; wb_files.c, wb_settings.c and the loop call it.
 */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/partition.h"
#include "tui/wb/wb.h"

void wb_recover_path(wb *w)
{
	char full[PATH_MAX], dir[512];
	const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	if (state && *state)
		snprintf(dir, sizeof dir, "%s/stagecut", state);
	else if (home && *home)
		snprintf(dir, sizeof dir, "%s/.local/state/stagecut", home);
	else
		return;
	if (!realpath(w->path, full))
		return;
	/* mkdir -p */
	for (char *p = dir + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(dir, 0700);
			*p = '/';
		}
	mkdir(dir, 0700);
	char name[1024];
	size_t j = 0;
	for (const char *c = full; *c && j + 2 < sizeof name; c++)
		name[j++] = *c == '/' ? '%' : *c;
	name[j] = '\0';
	snprintf(w->recover, sizeof w->recover, "%s/%s-k%d.json", dir, name, w->set.k);
}

/* What the writer thread owns: a snapshot of the stages (freed by it). */
typedef struct recover_job {
	char path[4096];
	const sc_graph *g;
	sc_settings set;
	int *stage;
} recover_job;

static atomic_bool recover_busy;

static bool write_snapshot(recover_job *r)
{
	sc_error err;
	sc_costs *c = sc_costs_new(r->g, &r->set, &err);
	bool ok = c;
	if (c) {
		sc_costs_eval(c, r->stage);
		ok = sc_part_write(r->path, r->g, r->stage, r->set.k, c, &err) == SC_OK;
		sc_costs_free(c);
	}
	return ok;
}

static void *recover_main(void *arg)
{
	recover_job *r = arg;
	write_snapshot(r);
	free(r->stage);
	free(r);
	atomic_store(&recover_busy, false);
	return NULL;
}

void wb_recover_wait(void)
{
	while (atomic_load(&recover_busy)) {
		struct timespec t = {0, 5000000};
		nanosleep(&t, NULL);
	}
}

void wb_recover_write(wb *w, bool wait)
{
	/* while the offer waits for its answer the file is the earlier
	 * session's, not ours to touch */
	if (!w->recover[0] || !w->recover_due || w->recovered)
		return;
	if (wait)
		wb_recover_wait();
	else if (atomic_load(&recover_busy))
		return;
	if (!w->edited) {
		/* back at the baseline (an undo, a save, a settings change that
		 * replaced the edits): nothing is left to recover */
		unlink(w->recover);
		w->recover_due = false;
		return;
	}
	recover_job *r = malloc(sizeof *r);
	int *st = sc_part_new(w->g);
	if (!r || !st) {
		free(r);
		free(st);
		return;
	}
	memcpy(st, w->stage, (size_t)w->g->n * sizeof *st);
	snprintf(r->path, sizeof r->path, "%s", w->recover);
	r->g = w->g;
	r->set = w->set;
	r->stage = st;
	w->recover_due = false;
	w->recover_t = sc_clock_now();
	atomic_store(&recover_busy, true);
	pthread_t th;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (wait || pthread_create(&th, &attr, recover_main, r) != 0)
		recover_main(r);
	pthread_attr_destroy(&attr);
}

void wb_recover_clear(wb *w)
{
	wb_recover_wait();
	if (w->recover[0])
		unlink(w->recover);
	w->recover_due = false;
}

/* The offer's answer: r restores, d (or Esc) discards; then the start-up
 * goes on.  The recovered stages wait in w->recovered until
 * the answer. */
static unsigned offer_answer(wb *w, const char *answer, bool ok, int arg)
{
	(void)arg;
	(void)ok;
	if (answer[0] == 'r') {
		wb_set_current(w, w->recovered, "recovered from an earlier session (unsaved)",
		               true);
		wb_say(w, "restored the recovered partition; w saves it");
	} else {
		wb_recover_clear(w);
	}
	free(w->recovered);
	w->recovered = NULL;
	if (w->after_offer)
		w->after_offer(w);
	return WB_HANDLED | WB_REDRAW;
}

bool wb_recover_offer(wb *w, void (*then)(wb *w))
{
	if (!w->recover[0] || access(w->recover, R_OK) != 0)
		return false;
	int k2;
	sc_error err;
	int *rs = sc_part_new(w->g);
	if (!rs || sc_part_load(w->recover, w->g, w->set.k, &k2, rs, NULL, &err) != SC_OK) {
		free(rs);
		return false;
	}
	if (memcmp(rs, w->stage, (size_t)w->g->n * sizeof *rs) == 0) {
		/* the partition this start shows anyway: nothing to offer */
		free(rs);
		unlink(w->recover);
		return false;
	}
	free(w->recovered);
	w->recovered = rs;
	w->after_offer = then;
	wb_choose(w,
	          "recovered an unsaved partition from an earlier session: r restores it, d "
	          "discards it",
	          "rd", offer_answer, 0);
	return true;
}
