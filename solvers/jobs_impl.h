/*
 * jobs_impl.h - what the engine and its kinds of job share (private to
 * solvers/).
 *
 * The engine (jobs.c) keeps a list of jobs and drives them through one
 * poll() loop; it knows no kind by name.  Each kind of job is a file with a
 * const sc_job_ops table and the public function that adds such a job:
 * job_search.c (a search on a thread) and job_mip.c (a CBC solve in a child
 * process).  A kind's job struct starts with an sc_job, which the kind
 * allocates in its add function and frees in its free op.  The kinds call
 * the engine (sc_job_add, sc_job_wake, sc_job_fail); the engine reaches a
 * kind only through its ops, so the files do not call each other in a
 * circle.  Everything here runs on the engine's thread, except sc_job_wake.
 */
#ifndef SC_JOBS_IMPL_H
#define SC_JOBS_IMPL_H

#include <stdbool.h>

#include "jobs.h"

typedef struct sc_job sc_job;

/* What one kind of job does.  Every op is called from the engine's thread. */
typedef struct sc_job_ops {
	/* Starts a queued job: sets info.state to RUNNING, or to FAILED with
	 * info.message (through sc_job_fail) when it cannot start. */
	void (*start)(sc_engine *e, sc_job *j);
	/* The descriptor to poll for a running job's reports (-1: none, the
	 * job wakes the engine's pipe instead) and, into *deadline, the
	 * monotonic time by which the engine must look at the job again
	 * (INFINITY: no such time). */
	int (*watch)(const sc_job *j, double *deadline);
	/* After each poll, for a running job: takes its reports in, finishes
	 * it when it has ended, and bumps info.version on any change.  now is
	 * the engine's clock (sc_clock_now). */
	void (*update)(sc_job *j, double now);
	/* Asks a running job to stop; it finishes at a later update. */
	void (*cancel)(sc_job *j);
	/* Stops (pause true) or continues a running job without losing
	 * anything it has done; NULL for a kind of job that cannot pause. */
	void (*pause)(sc_job *j, bool pause);
	/* A finished job's result, as sc_engine_result says. */
	double (*result)(const sc_job *j, int *stage, bool *optimal);
	/* A finished job's result's kinds, as sc_engine_result_kinds says;
	 * NULL for a kind of job that never has them. */
	bool (*kinds)(const sc_job *j, int *kind);
	/* Stops whatever still runs (joins the thread, reaps the child) and
	 * frees the job with everything it owns. */
	void (*free)(sc_job *j);
} sc_job_ops;

/* The part every job shares; a kind's struct begins with it. */
struct sc_job {
	const sc_job_ops *ops;
	sc_job_info info;
	const sc_graph *g;
	sc_settings set;
	double started; /* sc_clock_now() when it started */
	bool discard;   /* release it once it has finished (sc_engine_discard) */
};

/* Puts j (queued, with ops, g and set filled in) on e's list and returns its
 * id, or -1 with err set when out of memory (j is then still the
 * caller's). */
int sc_job_add(sc_engine *e, sc_job *j, sc_error *err);

/* Tells e that a job has something to report: writes a byte to its
 * self-pipe.  Thread-safe and async-signal-safe. */
void sc_job_wake(sc_engine *e);

/* Marks j failed with the message fmt (which takes what, then code). */
void sc_job_fail(sc_job *j, const char *fmt, const char *what, int code);

/* Workers run at a lower priority than the thread that drives the engine
 * (the workbench's screen), so typing never waits for a search or a solve on
 * a machine with fewer cores than jobs. */
enum { SC_JOB_WORKER_NICE = 10 };

#endif
