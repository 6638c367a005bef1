/*
 * test_jobs.c - the engine (jobs.c, job_search.c, job_mip.c): results
 * through the engine equal direct calls, at most max_running jobs run at
 * once, cancel stops searches and kills solver processes, a crashing solver
 * is reported as a crash, and finished jobs are released (their memory
 * freed, their ids unknown afterwards) while running ones are not; the
 * loop's parts: sc_engine_run_until (done first, each after every poll, no
 * wait with nothing to wait for), the wake pipe (a byte ends a wait at
 * once) and the extra descriptor's report (readable, hung up).  The
 * ladder, which runs on the engine, is tested in test_ladder.c.  The
 * user's jobs first: a preferred job pauses a solve, which resumes after.
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "solvers/jobs.h"
#include "solvers/simple.h"
#include "tests/support.h"

Test(jobs, search_through_the_engine_equals_a_direct_run)
{
	sc_graph *g = ts_load("samples/msr-fiddle/operator/resnet50_inference.json");
	sc_settings set = g->settings;
	set.k = 8;
	sc_search_params p;
	sc_search_params_init(&p);
	p.method = "brkga";
	p.evals = 600;
	p.seed = 9;
	sc_error err;
	sc_search *s = sc_search_new(g, &set, &p, &err);
	sc_search_run(s, &err);
	int *a = malloc((size_t)g->n * sizeof *a), *b = malloc((size_t)g->n * sizeof *b);
	double direct = sc_search_result(s, a, NULL);
	sc_search_free(s);

	sc_engine *e = sc_engine_new(2, &err);
	int id = sc_engine_add_search(e, g, &set, &p, &err);
	cr_assert_geq(id, 0, "%s", err.msg);
	unsigned versions = 0;
	sc_job_info ji;
	do {
		sc_engine_poll(e, 50, -1, NULL);
		sc_engine_info(e, id, &ji);
		cr_assert_geq(ji.version, versions);
		versions = ji.version;
	} while (!sc_job_finished(ji.state));
	cr_assert_eq(ji.state, SC_JOB_DONE);
	cr_assert_eq(ji.search.evals > 0, true);
	double via = sc_engine_result(e, id, b, NULL);
	cr_assert_eq(via, direct);
	cr_assert_eq(memcmp(a, b, (size_t)g->n * sizeof *a), 0);
	sc_engine_free(e);
	free(a);
	free(b);
	sc_graph_free(g);
}

Test(jobs, unknown_method_is_refused_when_added)
{
	sc_graph *g = ts_load("samples/paper/figure2.dot");
	sc_error err;
	sc_engine *e = sc_engine_new(1, &err);
	sc_search_params p;
	sc_search_params_init(&p);
	p.method = "nosuch";
	cr_assert_eq(sc_engine_add_search(e, g, &g->settings, &p, &err), -1);
	cr_assert(strstr(err.msg, "nosuch"), "%s", err.msg);
	sc_engine_free(e);
	sc_graph_free(g);
}

Test(jobs, mip_through_the_engine_and_the_concurrency_limit, .timeout = 300)
{
	/* a MIP of a fraction of a second: long enough to be seen running */
	sc_graph *g = ts_load("samples/testbed/transformer-2-1.dot");
	sc_settings set = g->settings;
	set.k = 4;
	sc_error err;
	sc_engine *e = sc_engine_new(1, &err);
	cr_assert_eq(sc_engine_slots(e), 1);
	sc_mip_params p = {.rung = SC_RUNG_BOTTLENECK, .k = 4, .upper = INFINITY};
	int a = sc_engine_add_mip(e, g, &set, &p, &err);
	int b = sc_engine_add_mip(e, g, &set, &p, &err);
	cr_assert(a >= 0 && b >= 0, "%s", err.msg);
	int most = 0;
	sc_job_info ia, ib;
	do {
		sc_engine_poll(e, 50, -1, NULL);
		sc_engine_info(e, a, &ia);
		sc_engine_info(e, b, &ib);
		int now = (ia.state == SC_JOB_RUNNING) + (ib.state == SC_JOB_RUNNING);
		if (now > most)
			most = now;
	} while (!sc_job_finished(ia.state) || !sc_job_finished(ib.state));
	cr_assert_eq(most, 1, "one slot, one job at a time");
	cr_assert_eq(ia.state, SC_JOB_DONE);
	cr_assert_eq(ia.mip_status, SC_MIP_OPTIMAL);
	sc_mip_result direct;
	cr_assert_eq(sc_mip_solve(g, &set, &p, NULL, NULL, &direct, &err), SC_OK);
	cr_assert_float_eq(ia.bound, direct.bound, 1e-9 * direct.bound);
	cr_assert_float_eq(ib.bound, direct.bound, 1e-9 * direct.bound);
	sc_engine_free(e);
	ts_assert_no_children();
	sc_graph_free(g);
}

Test(jobs, cancel_kills_the_solver_and_stops_the_search, .timeout = 60)
{
	sc_graph *g = ts_load("samples/msr-fiddle/operator/resnet50_inference.json");
	sc_settings set = g->settings;
	set.k = 16;
	sc_error err;
	sc_engine *e = sc_engine_new(2, &err);
	sc_mip_params p = {.rung = SC_RUNG_EXACT, .k = 16, .upper = INFINITY};
	int m = sc_engine_add_mip(e, g, &set, &p, &err);
	sc_search_params sp;
	sc_search_params_init(&sp);
	sp.method = "brkga";
	sp.evals = 100000000;
	int s = sc_engine_add_search(e, g, &set, &sp, &err);
	int q = sc_engine_add_mip(e, g, &set, &p, &err); /* stays queued */
	sc_job_info ji;
	for (int i = 0; i < 10; i++)
		sc_engine_poll(e, 50, -1, NULL);
	sc_engine_info(e, m, &ji);
	cr_assert_eq(ji.state, SC_JOB_RUNNING);
	sc_engine_info(e, q, &ji);
	cr_assert_eq(ji.state, SC_JOB_QUEUED);
	sc_engine_cancel(e, -1);
	sc_engine_wait(e, -1);
	sc_engine_info(e, m, &ji);
	cr_assert_eq(ji.state, SC_JOB_CANCELLED);
	sc_engine_info(e, q, &ji);
	cr_assert_eq(ji.state, SC_JOB_CANCELLED);
	sc_engine_info(e, s, &ji);
	cr_assert_eq(ji.state, SC_JOB_CANCELLED);
	cr_assert_lt(ji.search.evals, 100000000);
	int *stage = malloc((size_t)g->n * sizeof *stage);
	cr_assert(isfinite(sc_engine_result(e, s, stage, NULL)),
	          "a cancelled search keeps its best");
	free(stage);
	ts_assert_no_children();
	sc_engine_free(e);
	sc_graph_free(g);
}

Test(jobs, a_crashing_solver_is_reported, .timeout = 30)
{
	sc_graph *g = ts_load("samples/paper/figure2.dot");
	sc_error err;
	sc_engine *e = sc_engine_new(1, &err);
	sc_mip_params p = {.rung = SC_RUNG_EXACT, .k = 3, .upper = INFINITY};
	setenv("STAGECUT_TEST_CRASH", "1", 1);
	int id = sc_engine_add_mip(e, g, &g->settings, &p, &err);
	sc_engine_wait(e, id);
	unsetenv("STAGECUT_TEST_CRASH");
	sc_job_info ji;
	sc_engine_info(e, id, &ji);
	cr_assert_eq(ji.state, SC_JOB_FAILED);
	cr_assert(strstr(ji.message, "crashed") && strstr(ji.message, "signal 11"), "%s",
	          ji.message);
	/* the next one works */
	id = sc_engine_add_mip(e, g, &g->settings, &p, &err);
	sc_engine_wait(e, id);
	sc_engine_info(e, id, &ji);
	cr_assert_eq(ji.state, SC_JOB_DONE);
	cr_assert_float_eq(ji.bound, 7.0, 1e-6);
	sc_engine_free(e);
	ts_assert_no_children();
	sc_graph_free(g);
}

Test(jobs, finished_searches_are_released_one_by_one)
{
	sc_graph *g = ts_load("samples/paper/figure2.dot");
	sc_settings set = g->settings;
	set.k = 3;
	sc_error err;
	sc_engine *e = sc_engine_new(2, &err);
	sc_search_params p;
	sc_search_params_init(&p);
	p.method = "random";
	p.evals = 20;
	int *stage = malloc((size_t)g->n * sizeof *stage);
	double first = NAN;
	/* as a long workbench session does: run, take the result, release */
	for (int i = 0; i < 300; i++) {
		p.seed = (uint64_t)(1 + i % 3);
		int id = sc_engine_add_search(e, g, &set, &p, &err);
		cr_assert_eq(id, i, "ids are never reused: %s", err.msg);
		sc_engine_wait(e, id);
		double v = sc_engine_result(e, id, stage, NULL);
		cr_assert(isfinite(v));
		if (i == 0)
			first = v;
		cr_assert(sc_engine_release(e, id));
		sc_job_info ji;
		cr_assert_not(sc_engine_info(e, id, &ji), "no info after release");
		cr_assert(isinf(sc_engine_result(e, id, stage, NULL)));
		cr_assert_not(sc_engine_release(e, id), "released twice");
		cr_assert_eq(sc_engine_busy(e), 0);
	}
	cr_assert(isfinite(first));
	sc_engine_cancel(e, -1); /* passes the released ids by */
	sc_engine_wait(e, -1);
	cr_assert_not(sc_engine_release(e, -1));
	cr_assert_not(sc_engine_release(e, 300), "never added");
	free(stage);
	sc_engine_free(e);
	sc_graph_free(g);
}

/* A one-slot engine on operator/resnet50 (k = 8) running a search that
 * would take hours (*s) with a MIP queued behind it (*q), polled until the
 * search runs. */
static sc_engine *running_and_queued(sc_graph **g, int *s, int *q)
{
	*g = ts_load("samples/msr-fiddle/operator/resnet50_inference.json");
	sc_settings set = (*g)->settings;
	set.k = 8;
	sc_error err;
	sc_engine *e = sc_engine_new(1, &err);
	cr_assert(e, "%s", err.msg);
	sc_search_params sp;
	sc_search_params_init(&sp);
	sp.method = "brkga";
	sp.evals = 100000000;
	*s = sc_engine_add_search(e, *g, &set, &sp, &err);
	sc_mip_params mp = {.rung = SC_RUNG_BOTTLENECK, .k = 8, .upper = INFINITY};
	*q = sc_engine_add_mip(e, *g, &set, &mp, &err); /* stays queued: one slot */
	cr_assert(*s >= 0 && *q >= 0, "%s", err.msg);
	for (int i = 0; i < 5; i++)
		sc_engine_poll(e, 20, -1, NULL);
	return e;
}

Test(jobs, release_refuses_a_running_or_queued_job, .timeout = 60)
{
	sc_graph *g;
	int s, q;
	sc_engine *e = running_and_queued(&g, &s, &q);
	sc_job_info ji;
	sc_engine_info(e, s, &ji);
	cr_assert_eq(ji.state, SC_JOB_RUNNING);
	cr_assert_not(sc_engine_release(e, s), "a running job is not released");
	cr_assert_not(sc_engine_release(e, q), "a queued job is not released");
	cr_assert(sc_engine_info(e, s, &ji) && sc_engine_info(e, q, &ji));
	sc_engine_cancel(e, -1);
	sc_engine_wait(e, -1);
	cr_assert(sc_engine_release(e, s));
	cr_assert(sc_engine_release(e, q));
	cr_assert_not(sc_engine_info(e, s, &ji));
	cr_assert_eq(sc_engine_busy(e), 0);
	sc_engine_free(e);
	ts_assert_no_children();
	sc_graph_free(g);
}

Test(jobs, a_finished_solve_is_released_and_its_child_reaped, .timeout = 60)
{
	sc_graph *g = ts_load("samples/paper/figure2.dot");
	sc_error err;
	sc_engine *e = sc_engine_new(1, &err);
	sc_mip_params p = {.rung = SC_RUNG_EXACT, .k = 3, .upper = INFINITY};
	for (int i = 0; i < 3; i++) {
		int id = sc_engine_add_mip(e, g, &g->settings, &p, &err);
		cr_assert_geq(id, 0, "%s", err.msg);
		sc_engine_wait(e, id);
		sc_job_info ji;
		sc_engine_info(e, id, &ji);
		cr_assert_eq(ji.state, SC_JOB_DONE);
		cr_assert(isfinite(sc_engine_result(e, id, NULL, NULL)));
		cr_assert(sc_engine_release(e, id));
		cr_assert_not(sc_engine_info(e, id, &ji));
		ts_assert_no_children();
	}
	sc_engine_free(e);
	sc_graph_free(g);
}

Test(jobs, a_discarded_job_is_released_once_it_has_ended, .timeout = 60)
{
	sc_graph *g;
	int s, q;
	sc_engine *e = running_and_queued(&g, &s, &q);
	sc_job_info ji;
	cr_assert(sc_engine_info(e, s, &ji));
	cr_assert_eq(ji.state, SC_JOB_RUNNING);
	/* a queued job is cancelled at once, so it goes at once */
	sc_engine_discard(e, q);
	cr_assert_not(sc_engine_info(e, q, &ji), "a queued job discarded is released at once");
	/* a running one is stopped and goes at the poll that sees it end */
	sc_engine_discard(e, s);
	int polls = 0;
	while (sc_engine_info(e, s, &ji) && polls++ < 1000) {
		cr_assert(ji.state == SC_JOB_RUNNING || ji.state == SC_JOB_CANCELLED);
		sc_engine_poll(e, 20, -1, NULL);
	}
	cr_assert_not(sc_engine_info(e, s, &ji), "released after it ended");
	cr_assert_eq(sc_engine_busy(e), 0);
	sc_engine_discard(e, s); /* passed by */
	sc_engine_discard(e, 99);
	sc_engine_free(e);
	ts_assert_no_children();
	sc_graph_free(g);
}

/* ---- the loop: sc_engine_run_until, the wake pipe, the extra descriptor ---- */

typedef struct until_ctx {
	sc_engine *e;
	int id;     /* the job waited for, or -1 */
	int each;   /* calls of each */
	int stop;   /* with id < 0: done after this many calls of each */
	bool early; /* each ran with the job still unfinished */
} until_ctx;

static bool until_done(void *arg)
{
	until_ctx *c = arg;
	if (c->id < 0)
		return c->each >= c->stop;
	sc_job_info ji;
	return sc_engine_info(c->e, c->id, &ji) && sc_job_finished(ji.state);
}

static void until_each(void *arg)
{
	until_ctx *c = arg;
	c->each++;
	sc_job_info ji;
	if (c->id >= 0 && sc_engine_info(c->e, c->id, &ji) && !sc_job_finished(ji.state))
		c->early = true;
}

Test(jobs, run_until_polls_until_done_calling_each_after_every_poll, .timeout = 60)
{
	sc_graph *g = ts_load("samples/msr-fiddle/operator/resnet50_inference.json");
	sc_settings set = g->settings;
	set.k = 8;
	sc_search_params p;
	sc_search_params_init(&p);
	p.method = "brkga";
	p.evals = 2000;
	sc_error err;
	sc_engine *e = sc_engine_new(1, &err);
	int id = sc_engine_add_search(e, g, &set, &p, &err);
	cr_assert_geq(id, 0, "%s", err.msg);
	until_ctx c = {.e = e, .id = id};
	int polls = sc_engine_run_until(e, -1, until_done, until_each, &c);
	sc_job_info ji;
	cr_assert(sc_engine_info(e, id, &ji));
	cr_assert_eq(ji.state, SC_JOB_DONE);
	cr_assert_gt(polls, 0);
	cr_assert_eq(c.each, polls, "each once after every poll");
	/* done is asked first: nothing is polled once it holds */
	c.each = 0;
	cr_assert_eq(sc_engine_run_until(e, -1, until_done, until_each, &c), 0);
	cr_assert_eq(c.each, 0);
	sc_engine_free(e);
	sc_graph_free(g);
}

Test(jobs, run_until_without_jobs_waits_only_as_long_as_asked, .timeout = 30)
{
	sc_error err;
	sc_engine *e = sc_engine_new(1, &err);
	/* until something happens, with nothing to happen: no wait at all */
	until_ctx c = {.e = e, .id = -1, .stop = 3};
	double t0 = sc_clock_now();
	cr_assert_eq(sc_engine_run_until(e, -1, until_done, until_each, &c), 3);
	cr_assert_lt(sc_clock_now() - t0, 0.5, "it waited with nothing to wait for");
	/* a timeout is waited out each turn */
	c = (until_ctx){.e = e, .id = -1, .stop = 3};
	t0 = sc_clock_now();
	cr_assert_eq(sc_engine_run_until(e, 100, until_done, until_each, &c), 3);
	cr_assert_geq(sc_clock_now() - t0, 0.29);
	/* each without a job is still called, NULL each too */
	c = (until_ctx){.e = e, .id = -1, .stop = 0};
	cr_assert_eq(sc_engine_run_until(e, -1, until_done, NULL, &c), 0);
	sc_engine_free(e);
}

static void *wake_later(void *arg)
{
	struct timespec t = {0, 100 * 1000 * 1000};
	nanosleep(&t, NULL);
	char c = 1;
	/* as a signal handler would: a byte on the descriptor, nothing else */
	ssize_t r = write(sc_engine_wake_fd(arg), &c, 1);
	(void)r;
	return NULL;
}

static void *wake_later_call(void *arg)
{
	struct timespec t = {0, 100 * 1000 * 1000};
	nanosleep(&t, NULL);
	sc_engine_wake(arg);
	return NULL;
}

Test(jobs, a_byte_on_the_wake_pipe_ends_a_wait_at_once, .timeout = 30)
{
	sc_error err;
	sc_engine *e = sc_engine_new(1, &err);
	void *(*wakers[2])(void *) = {wake_later, wake_later_call};
	for (int i = 0; i < 2; i++) {
		pthread_t th;
		cr_assert_eq(pthread_create(&th, NULL, wakers[i], e), 0);
		double t0 = sc_clock_now();
		sc_engine_poll(e, 20000, -1, NULL);
		double waited = sc_clock_now() - t0;
		pthread_join(th, NULL);
		cr_assert_lt(waited, 5, "the wake did not end the wait (%d)", i);
		/* the pipe was drained: the next poll waits its timeout out */
		t0 = sc_clock_now();
		sc_engine_poll(e, 50, -1, NULL);
		cr_assert_geq(sc_clock_now() - t0, 0.04);
	}
	sc_engine_free(e);
}

Test(jobs, poll_reports_what_happened_on_the_extra_descriptor, .timeout = 30)
{
	sc_error err;
	sc_engine *e = sc_engine_new(1, &err);
	int p[2];
	cr_assert_eq(pipe(p), 0);
	short rev = -1;
	sc_engine_poll(e, 0, p[0], &rev);
	cr_assert_eq(rev, 0, "nothing to read yet");
	cr_assert_eq(write(p[1], "x", 1), 1);
	sc_engine_poll(e, 1000, p[0], &rev);
	cr_assert(rev & POLLIN, "readable: %#x", (unsigned)rev);
	char c;
	cr_assert_eq(read(p[0], &c, 1), 1);
	/* the other end gone: a hang-up, at once, not after the timeout */
	close(p[1]);
	double t0 = sc_clock_now();
	sc_engine_poll(e, 20000, p[0], &rev);
	cr_assert_lt(sc_clock_now() - t0, 5);
	cr_assert(rev & POLLHUP, "hung up: %#x", (unsigned)rev);
	close(p[0]);
	sc_engine_free(e);
}

/* The user's job first (sc_engine_prefer): with the one slot held by a
 * solve, a preferred search starts at once and the solve is paused (its
 * process stopped), not cancelled; a job queued meanwhile does not take
 * the slot the search frees: the paused solve resumes first.  A paused
 * solve's time limit runs on: it ends stopped by it, with a valid bound
 * (at least the lower bound it was given), never failed. */
Test(jobs, a_preferred_job_pauses_a_solve_and_the_solve_resumes, .timeout = 120)
{
	sc_graph *g = ts_load("samples/msr-fiddle/operator/resnet50_inference.json");
	sc_settings set = g->settings;
	set.k = 16;
	sc_error err;
	sc_engine *e = sc_engine_new(1, &err);
	double lower = sc_bound_simple(g, set.k);
	sc_mip_params p = {
	        .rung = SC_RUNG_EXACT, .k = 16, .upper = INFINITY, .lower = lower, .time_limit = 3};
	int m = sc_engine_add_mip(e, g, &set, &p, &err);
	for (int i = 0; i < 4; i++)
		sc_engine_poll(e, 50, -1, NULL);
	sc_job_info ji;
	sc_engine_info(e, m, &ji);
	cr_assert_eq(ji.state, SC_JOB_RUNNING);
	sc_search_params sp;
	sc_search_params_init(&sp);
	sp.method = "brkga";
	sp.evals = 100000000;
	int s = sc_engine_add_search(e, g, &set, &sp, &err);
	sc_engine_prefer(e, s);
	int q = sc_engine_add_mip(e, g, &set, &p, &err); /* not the user's: waits */
	sc_engine_poll(e, 0, -1, NULL);
	sc_engine_info(e, s, &ji);
	cr_assert_eq(ji.state, SC_JOB_RUNNING, "the user's search waits for the solve");
	cr_assert(ji.preferred);
	sc_engine_info(e, m, &ji);
	cr_assert(ji.state == SC_JOB_RUNNING && ji.paused, "the solve is %s, %s paused",
	          sc_job_state_name(ji.state), ji.paused ? "" : "not");
	sc_engine_info(e, q, &ji);
	cr_assert_eq(ji.state, SC_JOB_QUEUED);
	/* paused past its time limit */
	for (int i = 0; i < 40; i++)
		sc_engine_poll(e, 100, -1, NULL);
	sc_engine_info(e, m, &ji);
	cr_assert(ji.state == SC_JOB_RUNNING && ji.paused);
	sc_engine_cancel(e, s);
	sc_engine_wait(e, s);
	sc_engine_poll(e, 0, -1, NULL);
	sc_engine_info(e, m, &ji);
	cr_assert(!ji.paused, "the solve resumes once the search has ended");
	sc_engine_info(e, q, &ji);
	cr_assert_eq(ji.state, SC_JOB_QUEUED, "the queued solve took the paused one's slot");
	sc_engine_wait(e, m);
	sc_engine_info(e, m, &ji);
	cr_assert_eq(ji.state, SC_JOB_STOPPED, "%s: %s", sc_job_state_name(ji.state), ji.message);
	cr_assert_geq(ji.bound, lower * (1 - 1e-9));
	sc_engine_cancel(e, -1);
	sc_engine_wait(e, -1);
	ts_assert_no_children();
	sc_engine_free(e);
	sc_graph_free(g);
}

/* A search cannot pause: a preferred job behind one waits in line, and
 * then starts before the jobs that are not preferred. */
Test(jobs, a_preferred_job_waits_behind_what_cannot_pause, .timeout = 60)
{
	sc_graph *g = ts_load("samples/paper/figure2.dot");
	sc_settings set = g->settings;
	sc_error err;
	sc_engine *e = sc_engine_new(1, &err);
	sc_search_params sp;
	sc_search_params_init(&sp);
	sp.method = "brkga";
	sp.evals = 100000000;
	int a = sc_engine_add_search(e, g, &set, &sp, &err);
	sc_engine_poll(e, 0, -1, NULL);
	int b = sc_engine_add_search(e, g, &set, &sp, &err);
	int c = sc_engine_add_search(e, g, &set, &sp, &err);
	sc_engine_prefer(e, c);
	sc_engine_poll(e, 0, -1, NULL);
	sc_job_info ji;
	sc_engine_info(e, a, &ji);
	cr_assert(ji.state == SC_JOB_RUNNING && !ji.paused);
	sc_engine_info(e, c, &ji);
	cr_assert_eq(ji.state, SC_JOB_QUEUED);
	sc_engine_cancel(e, a);
	sc_engine_wait(e, a);
	sc_engine_poll(e, 0, -1, NULL);
	sc_engine_info(e, c, &ji);
	cr_assert_eq(ji.state, SC_JOB_RUNNING, "the preferred job starts first");
	sc_engine_info(e, b, &ji);
	cr_assert_eq(ji.state, SC_JOB_QUEUED);
	sc_engine_cancel(e, -1);
	sc_engine_wait(e, -1);
	sc_engine_free(e);
	sc_graph_free(g);
}
