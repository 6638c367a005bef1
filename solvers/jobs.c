/*
 * jobs.c - the engine: a list of jobs driven by one poll() loop.  See
 * jobs.h.
 *
 * The engine knows no kind of job by name: each job carries its kind's
 * const ops table (jobs_impl.h), defined with the function that adds such a
 * job in job_search.c (a search on a thread) and job_mip.c (a CBC solve in
 * a child process).  Threads tell the engine that something changed by
 * writing a byte to a self-pipe (sc_job_wake); children write on pipes of
 * their own, which the engine polls beside it.  The caller's signal
 * handlers write to the same self-pipe (sc_engine_wake_fd), so one poll()
 * hears everything and needs no tick: its timeout is the nearest deadline.
 *
 * A job's id is its index in the list and is never reused.  A released job
 * (sc_engine_release) leaves a NULL in its place, so the list keeps one
 * pointer per job ever added while the jobs' memory goes back at once.
 */
#define _GNU_SOURCE /* pipe2 */
#include "jobs_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"

struct sc_engine {
	int max_running;
	sc_job **jobs; /* by id; NULL once released */
	int njobs, cap;
	int wake[2];
	unsigned gone; /* the versions of released jobs, so that a poll that
	                * releases one still counts as a change */
};

const char *sc_job_state_name(sc_job_state s)
{
	static const char *const names[] = {"queued",  "running",   "done",
	                                    "stopped", "cancelled", "failed"};
	return s >= 0 && s <= SC_JOB_FAILED ? names[s] : "?";
}

sc_engine *sc_engine_new(int max_running, sc_error *err)
{
	sc_engine *e = calloc(1, sizeof *e);
	if (!e) {
		sc_error_nomem(err, "the job engine");
		return NULL;
	}
	if (max_running <= 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		max_running = n > 0 ? (int)n : 1;
	}
	e->max_running = max_running;
	if (pipe2(e->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
		sc_error_set(err, SC_ERR_IO, "cannot make a pipe: %s", strerror(errno));
		free(e);
		return NULL;
	}
	return e;
}

void sc_engine_wake(sc_engine *e)
{
	char c = 1;
	ssize_t r = write(e->wake[1], &c, 1); /* a full pipe is already awake */
	(void)r;
}

int sc_engine_wake_fd(const sc_engine *e)
{
	return e->wake[1];
}

void sc_job_wake(sc_engine *e)
{
	sc_engine_wake(e);
}

void sc_job_fail(sc_job *j, const char *fmt, const char *what, int code)
{
	j->info.state = SC_JOB_FAILED;
	snprintf(j->info.message, sizeof j->info.message, fmt, what, code);
	j->info.version++;
}

int sc_job_add(sc_engine *e, sc_job *j, sc_error *err)
{
	if (e->njobs == e->cap) {
		int cap = e->cap ? 2 * e->cap : 16;
		sc_job **p = realloc(e->jobs, (size_t)cap * sizeof *p);
		if (!p)
			return sc_error_nomem(err, "the job list"), -1;
		e->jobs = p;
		e->cap = cap;
	}
	j->info.state = SC_JOB_QUEUED;
	j->info.incumbent = INFINITY;
	j->info.nodes = -1;
	e->jobs[e->njobs] = j;
	return e->njobs++;
}

/* Job id, or NULL when there is none (never added, or released). */
static sc_job *job_of(const sc_engine *e, int id)
{
	return id >= 0 && id < e->njobs ? e->jobs[id] : NULL;
}

/* The sum of the jobs' versions: it grows whenever any job changes. */
static unsigned versions(const sc_engine *e)
{
	unsigned v = e->gone;
	for (int i = 0; i < e->njobs; i++)
		if (e->jobs[i])
			v += e->jobs[i]->info.version;
	return v;
}

/* The jobs that hold a core: running and not paused. */
static int running(const sc_engine *e)
{
	int n = 0;
	for (int i = 0; i < e->njobs; i++)
		n += e->jobs[i] && e->jobs[i]->info.state == SC_JOB_RUNNING &&
		     !e->jobs[i]->info.paused;
	return n;
}

static void set_paused(sc_job *j, bool pause)
{
	j->ops->pause(j, pause);
	j->info.paused = pause;
	j->info.version++;
}

/* Pauses the running job started last that is not the user's and can
 * pause; true when there was one. */
static bool pause_one(sc_engine *e)
{
	for (int i = e->njobs - 1; i >= 0; i--) {
		sc_job *j = e->jobs[i];
		if (j && j->info.state == SC_JOB_RUNNING && !j->info.paused && !j->info.preferred &&
		    j->ops->pause) {
			set_paused(j, true);
			return true;
		}
	}
	return false;
}

static void start_job(sc_engine *e, sc_job *j)
{
	j->started = sc_clock_now();
	j->ops->start(e, j);
}

/* The user's queued jobs first, each taking a paused job's core when no
 * slot is free; then the paused jobs, which keep their place; then the
 * other queued jobs in the order they came. */
static void start_queued(sc_engine *e)
{
	int n = running(e);
	for (int i = 0; i < e->njobs; i++) {
		sc_job *j = e->jobs[i];
		if (!j || j->info.state != SC_JOB_QUEUED || !j->info.preferred)
			continue;
		if (n >= e->max_running && pause_one(e))
			n--;
		if (n >= e->max_running)
			break;
		start_job(e, j);
		n += j->info.state == SC_JOB_RUNNING;
	}
	for (int i = 0; i < e->njobs && n < e->max_running; i++) {
		sc_job *j = e->jobs[i];
		if (j && j->info.state == SC_JOB_RUNNING && j->info.paused) {
			set_paused(j, false);
			n++;
		}
	}
	for (int i = 0; i < e->njobs && n < e->max_running; i++) {
		sc_job *j = e->jobs[i];
		if (!j || j->info.state != SC_JOB_QUEUED)
			continue;
		start_job(e, j);
		n += j->info.state == SC_JOB_RUNNING;
	}
}

void sc_engine_prefer(sc_engine *e, int id)
{
	sc_job *j = job_of(e, id);
	if (j && j->info.state == SC_JOB_QUEUED)
		j->info.preferred = true;
}

int sc_engine_poll(sc_engine *e, int timeout_ms, int extra_fd, short *extra_revents)
{
	unsigned before = versions(e);
	start_queued(e);

	struct pollfd stack[64], *fds = stack;
	int nfds = 0, want = 2 + e->njobs;
	if (want > 64) {
		fds = malloc((size_t)want * sizeof *fds);
		if (!fds)
			fds = stack, want = 64;
	}
	if (extra_fd >= 0)
		fds[nfds++] = (struct pollfd){.fd = extra_fd, .events = POLLIN};
	fds[nfds++] = (struct pollfd){.fd = e->wake[0], .events = POLLIN};
	double t = sc_clock_now(), next = INFINITY;
	for (int i = 0; i < e->njobs && nfds < want; i++) {
		sc_job *j = e->jobs[i];
		if (!j || j->info.state == SC_JOB_QUEUED)
			continue;
		double deadline;
		int fd = j->ops->watch(j, &deadline);
		if (fd >= 0) {
			fds[nfds++] = (struct pollfd){.fd = fd, .events = POLLIN};
			next = fmin(next, deadline);
		}
	}
	if (isfinite(next)) {
		int ms = (int)ceil((next - t) * 1000);
		if (ms < 0)
			ms = 0;
		if (timeout_ms < 0 || ms < timeout_ms)
			timeout_ms = ms;
	}
	int r = poll(fds, (nfds_t)nfds, timeout_ms);
	if (extra_revents)
		*extra_revents = r > 0 && extra_fd >= 0 ? fds[0].revents : 0;
	char drain[256];
	while (read(e->wake[0], drain, sizeof drain) > 0)
		;
	if (fds != stack)
		free(fds);

	t = sc_clock_now();
	for (int i = 0; i < e->njobs; i++) {
		sc_job *j = e->jobs[i];
		if (!j || j->info.state != SC_JOB_RUNNING)
			continue;
		j->info.elapsed = t - j->started;
		j->ops->update(j, t);
		if (j->discard && sc_job_finished(j->info.state))
			sc_engine_release(e, i);
	}
	start_queued(e);
	return (int)(versions(e) - before);
}

bool sc_engine_info(const sc_engine *e, int id, sc_job_info *out)
{
	const sc_job *j = job_of(e, id);
	if (!j)
		return false;
	*out = j->info;
	return true;
}

void sc_engine_cancel(sc_engine *e, int id)
{
	for (int i = 0; i < e->njobs; i++) {
		sc_job *j = e->jobs[i];
		if (!j || (id >= 0 && i != id))
			continue;
		if (j->info.state == SC_JOB_QUEUED) {
			j->info.state = SC_JOB_CANCELLED;
			j->info.version++;
		} else if (j->info.state == SC_JOB_RUNNING) {
			j->ops->cancel(j);
		}
	}
}

/* True when job id (id < 0: every job) has finished; a released job has. */
static bool finished(const sc_engine *e, int id)
{
	for (int i = 0; i < e->njobs; i++)
		if ((id < 0 || i == id) && e->jobs[i] && !sc_job_finished(e->jobs[i]->info.state))
			return false;
	return true;
}

int sc_engine_run_until(sc_engine *e, int timeout_ms, sc_engine_done_fn *done,
                        sc_engine_each_fn *each, void *ctx)
{
	int polls = 0;
	while (!done(ctx)) {
		/* with no job queued or running, nothing would end a wait until
		 * something happens */
		int ms = timeout_ms < 0 && sc_engine_busy(e) == 0 ? 0 : timeout_ms;
		sc_engine_poll(e, ms, -1, NULL);
		polls++;
		if (each)
			each(ctx);
	}
	return polls;
}

/* sc_engine_wait's question to sc_engine_run_until. */
typedef struct wait_for {
	const sc_engine *e;
	int id;
} wait_for;

static bool wait_done(void *ctx)
{
	const wait_for *wf = ctx;
	return finished(wf->e, wf->id);
}

void sc_engine_wait(sc_engine *e, int id)
{
	wait_for wf = {.e = e, .id = id};
	sc_engine_run_until(e, -1, wait_done, NULL, &wf);
}

int sc_engine_slots(const sc_engine *e)
{
	return e->max_running;
}

int sc_engine_busy(const sc_engine *e)
{
	int n = 0;
	for (int i = 0; i < e->njobs; i++)
		n += e->jobs[i] && !sc_job_finished(e->jobs[i]->info.state);
	return n;
}

double sc_engine_result(const sc_engine *e, int id, int *stage, bool *optimal)
{
	if (optimal)
		*optimal = false;
	const sc_job *j = job_of(e, id);
	if (!j || !sc_job_finished(j->info.state))
		return INFINITY;
	return j->ops->result(j, stage, optimal);
}

bool sc_engine_result_kinds(const sc_engine *e, int id, int *kind)
{
	const sc_job *j = job_of(e, id);
	if (!j || !sc_job_finished(j->info.state) || !j->ops->kinds)
		return false;
	return j->ops->kinds(j, kind);
}

bool sc_engine_release(sc_engine *e, int id)
{
	sc_job *j = job_of(e, id);
	if (!j || !sc_job_finished(j->info.state))
		return false;
	e->gone += j->info.version + 1;
	j->ops->free(j);
	e->jobs[id] = NULL;
	return true;
}

void sc_engine_discard(sc_engine *e, int id)
{
	sc_job *j = job_of(e, id);
	if (!j)
		return;
	sc_engine_cancel(e, id);
	j->discard = true;
	if (sc_job_finished(j->info.state))
		sc_engine_release(e, id);
}

void sc_engine_free(sc_engine *e)
{
	if (!e)
		return;
	sc_engine_cancel(e, -1);
	for (int i = 0; i < e->njobs; i++)
		if (e->jobs[i])
			e->jobs[i]->ops->free(e->jobs[i]);
	free(e->jobs);
	close(e->wake[0]);
	close(e->wake[1]);
	free(e);
}
