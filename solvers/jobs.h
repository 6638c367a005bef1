/*
 * jobs.h - the engine: searches and MIP solves as jobs that report while
 * they run (DESIGN.md section 5).
 *
 * A search job runs on a thread of its own and is cancelled through
 * sc_search_cancel.  A MIP job runs sc_mip_solve in a child process, because
 * CBC is neither thread-safe nor interruptible: the child writes lines on a
 * pipe (progress, the result, an error), a cancel kills it, and if it dies
 * without a result the job fails with the signal or exit status named.
 *
 * The engine is driven from one thread (the workbench's loop or a batch
 * command): add jobs, then call sc_engine_poll, which never blocks longer
 * than asked, starts queued jobs while fewer than max_running run, and
 * updates each job's info.  Nothing here prints.
 *
 * The engine is the caller's event loop (redis's ae): one poll() over its
 * self-pipe, the solver processes' pipes and one descriptor of the
 * caller's (the workbench's terminal, whose hang-up it reports), woken at
 * once by whatever has something to say: a search thread or a signal
 * handler writes a byte to the self-pipe (sc_engine_wake,
 * sc_engine_wake_fd), a solver writes on its pipe or dies; and its timeout
 * is the nearest of the caller's and the jobs' deadlines, so a caller with
 * nothing due waits with no tick at all.  A caller that only waits for
 * something the jobs bring about runs sc_engine_run_until, the one loop
 * that polls until done.
 *
 * The user's own jobs come first (sc_engine_prefer): such a job starts
 * before every other queued job, and when every slot is taken it takes one
 * from a running job that can pause (a MIP solve: its process is stopped
 * with SIGSTOP and continued with SIGCONT, so it keeps all it has proven;
 * its time limit, wall-clock, keeps running while it is paused, and a
 * solve that reaches it stops with the bound proven so far, still valid).
 * A paused job is resumed, before any queued job starts, as soon as a slot
 * frees.  A search thread never pauses.
 *
 * The graph given to a job must outlive the engine (or the job); settings
 * and parameters are copied.  A job keeps its memory (a search's units,
 * slicer and best partition; a solve's buffers) until it is released
 * (sc_engine_release) or the engine is freed, so a long-lived engine such
 * as the workbench's releases each job once it has taken the result.
 *
 * The engine is jobs.c; each kind of job is a file of its own with a const
 * ops table (jobs_impl.h): job_search.c and job_mip.c.
 */
#ifndef SC_JOBS_H
#define SC_JOBS_H

#include <stdbool.h>

#include "core/graph.h"
#include "mip.h"
#include "search.h"

typedef enum sc_job_kind { SC_JOB_SEARCH, SC_JOB_MIP } sc_job_kind;

typedef enum sc_job_state {
	SC_JOB_QUEUED,
	SC_JOB_RUNNING,
	SC_JOB_DONE,      /* finished; a MIP solved to optimality (or infeasible) */
	SC_JOB_STOPPED,   /* a MIP stopped by its time limit: its bound is still valid */
	SC_JOB_CANCELLED, /* cancelled: a search keeps its best so far */
	SC_JOB_FAILED,    /* message says why */
} sc_job_state;

/* "queued", "running", "done", "stopped", "cancelled", "failed". */
const char *sc_job_state_name(sc_job_state s);

/* True once a job will not change any more. */
static inline bool sc_job_finished(sc_job_state s)
{
	return s >= SC_JOB_DONE;
}

typedef struct sc_job_info {
	sc_job_kind kind;
	sc_job_state state;
	unsigned version;         /* grows each time anything below changes */
	double elapsed;           /* seconds since the job started (0 while queued) */
	sc_progress search;       /* SEARCH: the latest snapshot */
	double bound;             /* MIP: proven lower bound so far (the lower given, at first) */
	double incumbent;         /* MIP: best solution's bottleneck so far, INFINITY when none */
	long nodes;               /* MIP: branch-and-bound nodes, -1 until known */
	sc_mip_status mip_status; /* MIP, when DONE or STOPPED */
	bool paused;              /* RUNNING but stopped to give its core to the user's job */
	bool preferred;           /* the user's job (sc_engine_prefer) */
	char message[256];        /* FAILED: the reason */
} sc_job_info;

typedef struct sc_engine sc_engine;

/* A new engine running at most max_running jobs at a time (<= 0: one per
 * online processor).  NULL with err set when out of resources. */
sc_engine *sc_engine_new(int max_running, sc_error *err);

/* Cancels every job, waits for the threads and reaps the children, frees e.
 * sc_engine_free(NULL) does nothing. */
void sc_engine_free(sc_engine *e);

/* Queues a search of g (see search.h); returns its job id (>= 0) or -1
 * with err set (e.g. an unknown method). */
int sc_engine_add_search(sc_engine *e, const sc_graph *g, const sc_settings *set,
                         const sc_search_params *p, sc_error *err);

/* Queues one MIP solve (see mip.h); returns its job id or -1 with err set. */
int sc_engine_add_mip(sc_engine *e, const sc_graph *g, const sc_settings *set,
                      const sc_mip_params *p, sc_error *err);

/* Marks job id (queued) as the user's: it starts before the jobs that are
 * not, and when every slot is taken it pauses a running job that is not
 * the user's and can pause (see above) to take its slot.  A job not queued
 * is passed by.  The engine's thread only. */
void sc_engine_prefer(sc_engine *e, int id);

/* Starts what may start, waits up to timeout_ms (0: do not wait, < 0: until
 * something happens: a report, a wake, a signal, a job's deadline) for
 * reports, and updates the jobs.  extra_fd, when >= 0, is polled too for
 * reading (the workbench's terminal) and *extra_revents, when not NULL,
 * gets what poll() said of it: POLLIN when it is readable, POLLHUP,
 * POLLERR or POLLNVAL when it has hung up or is no more (0: nothing, or
 * the wait was interrupted).  Returns the number of jobs that changed. */
int sc_engine_poll(sc_engine *e, int timeout_ms, int extra_fd, short *extra_revents);

/* Makes the sc_engine_poll under way, or the next one, return at once (it
 * writes a byte to the engine's self-pipe; a full pipe is awake already).
 * Thread-safe and async-signal-safe. */
void sc_engine_wake(sc_engine *e);

/* The write end of the engine's self-pipe, for a signal handler, which may
 * keep an int but not call into the engine: a byte written to it (write(2)
 * is async-signal-safe) wakes the engine as sc_engine_wake does.  The
 * engine owns it; valid until sc_engine_free. */
int sc_engine_wake_fd(const sc_engine *e);

/* What sc_engine_run_until asks before every poll (true: stop) and calls
 * after every poll; ctx is the caller's. */
typedef bool sc_engine_done_fn(void *ctx);
typedef void sc_engine_each_fn(void *ctx);

/* The wait-until-done loop, written once: while done(ctx) is false, polls
 * e (sc_engine_poll without an extra descriptor) and then calls each(ctx)
 * (when not NULL: take the jobs' news in, draw progress, cancel on a
 * signal).  Each poll waits at most timeout_ms, or with timeout_ms < 0
 * until a job reports; but with no job queued or running nothing would
 * report, and it does not wait at all (done must then come true through
 * each).  A caller that must notice something no job brings about (a flag
 * set by a signal handler that does not wake the engine) passes the
 * longest it may go unnoticed.  done is asked first: when it is true at
 * once nothing is polled.  Returns the number of polls. */
int sc_engine_run_until(sc_engine *e, int timeout_ms, sc_engine_done_fn *done,
                        sc_engine_each_fn *each, void *ctx);

/* Copies job id's info; false for an unknown or released id. */
bool sc_engine_info(const sc_engine *e, int id, sc_job_info *out);

/* Asks job id to stop (id < 0: every job).  A queued job is cancelled at
 * once; a search stops at its next step and keeps its best partition; a MIP
 * child is killed. */
void sc_engine_cancel(sc_engine *e, int id);

/* Polls until job id (id < 0: every job) has finished (sc_engine_run_until,
 * waking only when a job reports). */
void sc_engine_wait(sc_engine *e, int id);

/* The most jobs that run at once. */
int sc_engine_slots(const sc_engine *e);

/* Jobs queued or running. */
int sc_engine_busy(const sc_engine *e);

/* A finished search's result: its objective (sc_costs_objective: the
 * bottleneck, or the GPipe objective under that schedule; INFINITY when
 * none) and, when stage is not NULL, its op stages; *optimal when proven.
 * A MIP job's incumbent partition likewise (exact rung only; INFINITY when
 * none), but its value is the partition's bottleneck, the MIP's objective,
 * which under GPipe may be below the partition's objective: recompute it. */
double sc_engine_result(const sc_engine *e, int id, int *stage, bool *optimal);

/* On devices (set->cpus > 0 or set->fleet): the kinds of a finished job's
 * partition's stages (sc_engine_result's stage), an index into the fleet
 * (fleet.h) per stage, into kind (the fleet's stages, k + cpus without
 * one), and true; false when it has none (no partition, no devices, or a
 * kind of job that does not give them). */
bool sc_engine_result_kinds(const sc_engine *e, int id, int *kind);

/* Frees a finished job's memory (its search, its buffers and partitions).
 * Afterwards the id stays taken and unknown: sc_engine_info returns false,
 * sc_engine_result INFINITY, and cancel, wait and busy pass it by.  Refused
 * (returns false, nothing happens) for an unknown or already released id
 * and for a job that is queued or running: cancel it and wait for it
 * first.  Returns true when the job was released.  The engine's thread
 * only, like every function here but sc_job_state_name. */
bool sc_engine_release(sc_engine *e, int id);

/* Cancels job id and releases it as soon as it has finished (at once when it
 * already has, else at the sc_engine_poll that sees it end): for an owner
 * that no longer wants a job's result, such as a ladder freed while its
 * rungs still run.  An unknown or released id is passed by. */
void sc_engine_discard(sc_engine *e, int id);

#endif
