/*
 * job_search.c - a search as a job of the engine: sc_engine_add_search and
 * the search kind's ops.  See jobs.h and jobs_impl.h.
 *
 * The search is made when the job is added (so that a bad method is
 * reported to the caller at once) and stepped to the end on a thread of its
 * own at a lower priority.  The thread wakes the engine through its
 * self-pipe at most every 50 ms and once at the end; the engine then reads
 * the search's thread-safe progress snapshot (update).  A cancel goes
 * through sc_search_cancel, so the search stops at its next step with its
 * best partition so far.  The neighbours: the engine in jobs.c, the other
 * kind (a CBC solve in a child process) in job_mip.c.
 */
#define _GNU_SOURCE /* syscall */
#include "jobs_impl.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/partition.h"

typedef struct search_job {
	sc_job base;
	sc_search_params sp;
	int *start; /* copy of the start partition, or NULL */
	int *pin;   /* copy of the settings' pins, or NULL */
	sc_search *search;
	sc_engine *engine; /* to wake, from the thread */
	pthread_t thread;
	bool joined;
	atomic_bool done;
} search_job;

static void *search_main(void *arg)
{
	search_job *j = arg;
	if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), SC_JOB_WORKER_NICE) != 0) {
		/* not allowed to lower it: run at the same priority */
	}
	double last = sc_clock_now();
	while (sc_search_step(j->search)) {
		double t = sc_clock_now();
		if (t - last >= 0.05) {
			sc_job_wake(j->engine);
			last = t;
		}
	}
	atomic_store(&j->done, true);
	sc_job_wake(j->engine);
	return NULL;
}

static void search_start(sc_engine *e, sc_job *base)
{
	search_job *j = (search_job *)base;
	j->engine = e;
	int rc = pthread_create(&j->thread, NULL, search_main, j);
	if (rc != 0) {
		sc_job_fail(base, "cannot start a thread: %s (%d)", strerror(rc), rc);
		return;
	}
	j->joined = false;
	base->info.state = SC_JOB_RUNNING;
	base->info.version++;
}

static int search_watch(const sc_job *base, double *deadline)
{
	(void)base;
	*deadline = INFINITY;
	return -1; /* the thread wakes the engine's pipe */
}

static void join(search_job *j)
{
	if (!j->joined) {
		pthread_join(j->thread, NULL);
		j->joined = true;
	}
}

static void finish(search_job *j)
{
	sc_job_info *info = &j->base.info;
	join(j);
	sc_search_progress(j->search, &info->search);
	const sc_error *err = sc_search_error(j->search);
	if (err) {
		info->state = SC_JOB_FAILED;
		size_t n = strlen(err->msg);
		if (n >= sizeof info->message)
			n = sizeof info->message - 1;
		memcpy(info->message, err->msg, n);
		info->message[n] = '\0';
	} else {
		info->state = info->search.cancelled ? SC_JOB_CANCELLED : SC_JOB_DONE;
	}
	info->version++;
}

static void search_update(sc_job *base, double now)
{
	search_job *j = (search_job *)base;
	(void)now;
	if (atomic_load(&j->done)) {
		finish(j);
		return;
	}
	sc_progress p;
	sc_search_progress(j->search, &p);
	if (p.evals != base->info.search.evals || p.best != base->info.search.best ||
	    strcmp(p.phase, base->info.search.phase) != 0)
		base->info.version++;
	base->info.search = p;
}

static void search_cancel(sc_job *base)
{
	sc_search_cancel(((search_job *)base)->search);
}

static double search_result(const sc_job *base, int *stage, bool *optimal)
{
	return sc_search_result(((const search_job *)base)->search, stage, optimal);
}

/* On devices, the kinds of the result's stages (search.h). */
static bool search_kinds(const sc_job *base, int *kind)
{
	const search_job *j = (const search_job *)base;
	return (j->base.set.cpus > 0 || j->base.set.fleet) &&
	       sc_search_result_kinds(j->search, NULL, kind, NULL) < INFINITY;
}

static void search_free(sc_job *base)
{
	search_job *j = (search_job *)base;
	join(j);
	sc_search_free(j->search);
	free(j->start);
	free(j->pin);
	free(j);
}

static const sc_job_ops search_ops = {
        .start = search_start,
        .watch = search_watch,
        .update = search_update,
        .cancel = search_cancel,
        .result = search_result,
        .kinds = search_kinds,
        .free = search_free,
};

int sc_engine_add_search(sc_engine *e, const sc_graph *g, const sc_settings *set,
                         const sc_search_params *p, sc_error *err)
{
	search_job *j = calloc(1, sizeof *j);
	if (!j)
		return sc_error_nomem(err, "a search job"), -1;
	j->base.ops = &search_ops;
	j->base.info.kind = SC_JOB_SEARCH;
	j->base.g = g;
	j->base.set = *set;
	j->sp = *p;
	j->joined = true; /* nothing to join until it starts */
	atomic_init(&j->done, false);
	if (p->start) {
		j->start = sc_part_new(g);
		if (!j->start) {
			free(j);
			return sc_error_nomem(err, "a search job"), -1;
		}
		memcpy(j->start, p->start, (size_t)g->n * sizeof *j->start);
		j->sp.start = j->start;
	}
	if (set->pin) { /* the caller may change its pins while this runs */
		j->pin = sc_part_new(g);
		if (!j->pin) {
			free(j->start);
			free(j);
			return sc_error_nomem(err, "a search job"), -1;
		}
		memcpy(j->pin, set->pin, (size_t)g->n * sizeof *j->pin);
		j->base.set.pin = j->pin;
	}
	/* made now, so that a bad method is reported to the caller */
	j->search = sc_search_new(g, &j->base.set, &j->sp, err);
	if (!j->search) {
		free(j->start);
		free(j->pin);
		free(j);
		return -1;
	}
	j->base.info.search.best = INFINITY;
	int id = sc_job_add(e, &j->base, err);
	if (id < 0)
		search_free(&j->base);
	return id;
}
