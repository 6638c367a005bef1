/*
 * jobs.c - searches on threads, MIP solves in child processes.  See jobs.h.
 *
 * Threads tell the engine that something changed by writing a byte to a
 * self-pipe (at most every 50 ms, and once at the end); the engine then
 * reads their thread-safe progress snapshot.  A MIP child writes lines:
 *   P bound incumbent nodes seconds     progress
 *   R status bound incumbent nodes seconds
 *   S n s0 s1 ... s(n-1)                the exact rung's partition
 *   E message                           sc_mip_solve failed
 * and exits; end of file without an R or E line means it died.
 */
#define _GNU_SOURCE /* pipe2 */
#include "jobs.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"

typedef struct job {
	sc_job_info info;
	const sc_graph *g;
	sc_settings set;
	double started; /* monotonic seconds */
	int *start;     /* copy of the start partition, or NULL */
	/* search */
	sc_search_params sp;
	sc_search *search;
	pthread_t thread;
	bool joined;
	atomic_bool done;
	/* mip */
	sc_mip_params mp;
	pid_t pid;
	int fd;
	char *buf;
	size_t len, cap;
	bool got_result, killed_cancel, killed_time;
	int *stages;
	double result;
	bool optimal;
} job;

struct sc_engine {
	int max_running;
	job **jobs;
	int njobs, cap;
	int wake[2];
};

const char *sc_job_state_name(sc_job_state s)
{
	static const char *const names[] = {"queued",    "running", "done",
					    "stopped",   "cancelled", "failed"};
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

static void wake(sc_engine *e)
{
	char c = 1;
	ssize_t r = write(e->wake[1], &c, 1); /* a full pipe is already awake */
	(void)r;
}

static int add_job(sc_engine *e, job *j, sc_error *err)
{
	if (e->njobs == e->cap) {
		int cap = e->cap ? 2 * e->cap : 16;
		job **p = realloc(e->jobs, (size_t)cap * sizeof *p);
		if (!p)
			return sc_error_nomem(err, "the job list"), -1;
		e->jobs = p;
		e->cap = cap;
	}
	j->info.state = SC_JOB_QUEUED;
	j->info.incumbent = INFINITY;
	j->info.nodes = -1;
	j->fd = -1;
	j->pid = -1;
	j->result = INFINITY;
	e->jobs[e->njobs] = j;
	return e->njobs++;
}

int sc_engine_add_search(sc_engine *e, const sc_graph *g, const sc_settings *set,
			 const sc_search_params *p, sc_error *err)
{
	job *j = calloc(1, sizeof *j);
	if (!j)
		return sc_error_nomem(err, "a search job"), -1;
	j->info.kind = SC_JOB_SEARCH;
	j->g = g;
	j->set = *set;
	j->sp = *p;
	if (p->start) {
		j->start = malloc((size_t)g->n * sizeof *j->start);
		if (!j->start) {
			free(j);
			return sc_error_nomem(err, "a search job"), -1;
		}
		memcpy(j->start, p->start, (size_t)g->n * sizeof *j->start);
		j->sp.start = j->start;
	}
	/* made now, so that a bad method is reported to the caller */
	j->search = sc_search_new(g, &j->set, &j->sp, err);
	if (!j->search) {
		free(j->start);
		free(j);
		return -1;
	}
	j->info.search.best = INFINITY;
	j->joined = true; /* nothing to join until it starts */
	int id = add_job(e, j, err);
	if (id < 0) {
		sc_search_free(j->search);
		free(j->start);
		free(j);
	}
	return id;
}

int sc_engine_add_mip(sc_engine *e, const sc_graph *g, const sc_settings *set,
		      const sc_mip_params *p, sc_error *err)
{
	if (p->rung != SC_RUNG_BOTTLENECK && p->rung != SC_RUNG_GUESS && p->rung != SC_RUNG_EXACT)
		return sc_error_set(err, SC_ERR_INPUT, "rung %s is not a MIP", sc_rung_name(p->rung)),
		       -1;
	job *j = calloc(1, sizeof *j);
	if (!j)
		return sc_error_nomem(err, "a MIP job"), -1;
	j->info.kind = SC_JOB_MIP;
	j->g = g;
	j->set = *set;
	j->mp = *p;
	if (p->start) {
		j->start = malloc((size_t)g->n * sizeof *j->start);
		if (!j->start) {
			free(j);
			return sc_error_nomem(err, "a MIP job"), -1;
		}
		memcpy(j->start, p->start, (size_t)g->n * sizeof *j->start);
		j->mp.start = j->start;
	}
	j->info.bound = p->lower > 0 ? p->lower : 0;
	j->joined = true;
	int id = add_job(e, j, err);
	if (id < 0) {
		free(j->start);
		free(j);
	}
	return id;
}

/* --- search threads ------------------------------------------------------ */

typedef struct thread_arg {
	sc_engine *e;
	job *j;
} thread_arg;

/* Workers run at a lower priority than the thread that drives the engine
 * (the workbench's screen), so typing never waits for a search or a solve on
 * a machine with fewer cores than jobs. */
enum { WORKER_NICE = 10 };

static void *search_main(void *arg)
{
	thread_arg a = *(thread_arg *)arg;
	free(arg);
	if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), WORKER_NICE) != 0) {
		/* not allowed to lower it: run at the same priority */
	}
	double last = sc_clock_now();
	while (sc_search_step(a.j->search)) {
		double t = sc_clock_now();
		if (t - last >= 0.05) {
			wake(a.e);
			last = t;
		}
	}
	atomic_store(&a.j->done, true);
	wake(a.e);
	return NULL;
}

static void fail(job *j, const char *fmt, const char *what, int code)
{
	j->info.state = SC_JOB_FAILED;
	snprintf(j->info.message, sizeof j->info.message, fmt, what, code);
	j->info.version++;
}

static void start_search(sc_engine *e, job *j)
{
	thread_arg *a = malloc(sizeof *a);
	if (!a) {
		fail(j, "%s (%d)", "out of memory starting the search", 0);
		return;
	}
	a->e = e;
	a->j = j;
	int rc = pthread_create(&j->thread, NULL, search_main, a);
	if (rc != 0) {
		free(a);
		fail(j, "cannot start a thread: %s (%d)", strerror(rc), rc);
		return;
	}
	j->joined = false;
	j->info.state = SC_JOB_RUNNING;
	j->info.version++;
}

static void finish_search(job *j)
{
	if (!j->joined) {
		pthread_join(j->thread, NULL);
		j->joined = true;
	}
	sc_search_progress(j->search, &j->info.search);
	const sc_error *err = sc_search_error(j->search);
	if (err) {
		j->info.state = SC_JOB_FAILED;
		size_t n = strlen(err->msg);
		if (n >= sizeof j->info.message)
			n = sizeof j->info.message - 1;
		memcpy(j->info.message, err->msg, n);
		j->info.message[n] = '\0';
	} else {
		j->info.state = j->info.search.cancelled ? SC_JOB_CANCELLED : SC_JOB_DONE;
	}
	j->result = sc_search_result(j->search, NULL, &j->optimal);
	j->info.version++;
}

/* --- MIP children ---------------------------------------------------------- */

static void put(int fd, const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

static void putf(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#include <stdarg.h>
static void putf(int fd, const char *fmt, ...)
{
	char line[1200];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (n > 0)
		put(fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

static void child_progress(void *ud, double bound, double incumbent, long nodes, double seconds)
{
	putf(*(int *)ud, "P %.17g %.17g %ld %.6f\n", bound, incumbent, nodes, seconds);
}

static void child_main(job *j, int fd)
{
	/* CBC writes its own messages to stdout; nobody is reading them */
	int null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
	}
	signal(SIGPIPE, SIG_DFL);
	if (setpriority(PRIO_PROCESS, 0, WORKER_NICE) != 0) {
		/* as for the search threads */
	}
	/* the parent decides when a solve stops: a ^C at the terminal reaches
	 * the whole process group, but only the parent should act on it; and
	 * if the parent dies, so does the solve */
	signal(SIGINT, SIG_IGN);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		_exit(1);
	/* for the tests: a child that dies the way a CBC crash would */
	const char *crash = getenv("STAGECUT_TEST_CRASH");
	if (crash && *crash) {
		/* die of the signal itself, even under a sanitizer's handler */
		signal(SIGSEGV, SIG_DFL);
		raise(SIGSEGV);
	}
	sc_mip_result res;
	sc_error err;
	if (sc_mip_solve(j->g, &j->set, &j->mp, child_progress, &fd, &res, &err) != SC_OK) {
		for (char *c = err.msg; *c; c++)
			if (*c == '\n')
				*c = ' ';
		putf(fd, "E %s\n", err.msg);
		_exit(0);
	}
	putf(fd, "R %d %.17g %.17g %ld %.6f\n", (int)res.status, res.bound, res.incumbent,
	     res.nodes, res.seconds);
	if (res.stages) {
		putf(fd, "S %d", j->g->n);
		char chunk[4096];
		size_t len = 0;
		for (int v = 0; v < j->g->n; v++) {
			len += (size_t)snprintf(chunk + len, sizeof chunk - len, " %d", res.stages[v]);
			if (len > sizeof chunk - 32) {
				put(fd, chunk, len);
				len = 0;
			}
		}
		chunk[len++] = '\n';
		put(fd, chunk, len);
	}
	_exit(0);
}

static void start_mip(job *j)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0) {
		fail(j, "cannot make a pipe: %s (%d)", strerror(errno), errno);
		return;
	}
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		fail(j, "cannot start the solver process: %s (%d)", strerror(errno), errno);
		return;
	}
	if (pid == 0) {
		close(p[0]);
		child_main(j, p[1]);
	}
	close(p[1]);
	fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
	j->pid = pid;
	j->fd = p[0];
	j->info.state = SC_JOB_RUNNING;
	j->info.version++;
}

static void parse_line(job *j, char *line)
{
	char *s = line + 2;
	if (line[0] == 'P' && line[1] == ' ') {
		double b = strtod(s, &s), inc = strtod(s, &s);
		long nodes = strtol(s, &s, 10);
		if (b > j->info.bound)
			j->info.bound = b;
		if (inc < j->info.incumbent)
			j->info.incumbent = inc;
		if (nodes >= 0)
			j->info.nodes = nodes;
	} else if (line[0] == 'R' && line[1] == ' ') {
		int st = (int)strtol(s, &s, 10);
		double b = strtod(s, &s), inc = strtod(s, &s);
		long nodes = strtol(s, &s, 10);
		j->info.mip_status = (sc_mip_status)st;
		j->info.bound = b;
		j->info.incumbent = inc;
		j->info.nodes = nodes;
		j->result = inc;
		j->optimal = st == SC_MIP_OPTIMAL;
		j->got_result = true;
	} else if (line[0] == 'S' && line[1] == ' ') {
		int n = (int)strtol(s, &s, 10);
		if (n != j->g->n)
			return;
		free(j->stages);
		j->stages = malloc((size_t)n * sizeof *j->stages);
		if (!j->stages)
			return;
		for (int v = 0; v < n; v++)
			j->stages[v] = (int)strtol(s, &s, 10);
	} else if (line[0] == 'E' && line[1] == ' ') {
		j->info.state = SC_JOB_FAILED;
		snprintf(j->info.message, sizeof j->info.message, "%s", s);
	}
	j->info.version++;
}

static void finish_mip(job *j)
{
	close(j->fd);
	j->fd = -1;
	int status = 0;
	while (waitpid(j->pid, &status, 0) < 0 && errno == EINTR)
		;
	j->pid = -1;
	if (j->info.state == SC_JOB_FAILED) {
		/* the child said what went wrong */
	} else if (j->killed_cancel) {
		j->info.state = SC_JOB_CANCELLED;
	} else if (j->killed_time) {
		j->info.state = SC_JOB_STOPPED;
		j->info.mip_status = SC_MIP_TIME_LIMIT;
	} else if (j->got_result) {
		j->info.state =
		    j->info.mip_status == SC_MIP_TIME_LIMIT ? SC_JOB_STOPPED : SC_JOB_DONE;
	} else if (WIFSIGNALED(status)) {
		j->info.state = SC_JOB_FAILED;
		snprintf(j->info.message, sizeof j->info.message,
			 "the solver process crashed (signal %d, %s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	} else {
		j->info.state = SC_JOB_FAILED;
		snprintf(j->info.message, sizeof j->info.message,
			 "the solver process exited with status %d and no answer",
			 WEXITSTATUS(status));
	}
	j->info.version++;
}

/* Reads what the child wrote; true at end of file. */
static bool read_mip(job *j)
{
	for (;;) {
		if (j->cap - j->len < 4096) {
			size_t cap = j->cap ? 2 * j->cap : 8192;
			char *b = realloc(j->buf, cap);
			if (!b)
				return false;
			j->buf = b;
			j->cap = cap;
		}
		ssize_t r = read(j->fd, j->buf + j->len, j->cap - j->len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return false; /* EAGAIN: nothing more for now */
		if (r == 0)
			return true;
		j->len += (size_t)r;
		size_t used = 0;
		for (size_t i = 0; i < j->len; i++)
			if (j->buf[i] == '\n') {
				j->buf[i] = '\0';
				parse_line(j, j->buf + used);
				used = i + 1;
			}
		memmove(j->buf, j->buf + used, j->len - used);
		j->len -= used;
	}
}

/* The time after which a child that ignores its limit is killed. */
static double deadline(const job *j)
{
	double t = j->mp.time_limit;
	if (t <= 0)
		return INFINITY;
	return j->started + t + fmax(5, 0.25 * t);
}

/* --- the loop -------------------------------------------------------------- */

static int running(const sc_engine *e)
{
	int n = 0;
	for (int i = 0; i < e->njobs; i++)
		n += e->jobs[i]->info.state == SC_JOB_RUNNING;
	return n;
}

static void start_queued(sc_engine *e)
{
	int n = running(e);
	for (int i = 0; i < e->njobs && n < e->max_running; i++) {
		job *j = e->jobs[i];
		if (j->info.state != SC_JOB_QUEUED)
			continue;
		j->started = sc_clock_now();
		if (j->info.kind == SC_JOB_SEARCH)
			start_search(e, j);
		else
			start_mip(j);
		n += j->info.state == SC_JOB_RUNNING;
	}
}

int sc_engine_poll(sc_engine *e, int timeout_ms, int extra_fd, bool *extra_ready)
{
	unsigned before = 0;
	for (int i = 0; i < e->njobs; i++)
		before += e->jobs[i]->info.version;
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
		job *j = e->jobs[i];
		if (j->info.kind == SC_JOB_MIP && j->fd >= 0) {
			fds[nfds++] = (struct pollfd){.fd = j->fd, .events = POLLIN};
			next = fmin(next, deadline(j));
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
	if (extra_ready)
		*extra_ready = r > 0 && extra_fd >= 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR));
	char drain[256];
	while (read(e->wake[0], drain, sizeof drain) > 0)
		;
	if (fds != stack)
		free(fds);

	t = sc_clock_now();
	for (int i = 0; i < e->njobs; i++) {
		job *j = e->jobs[i];
		if (j->info.state != SC_JOB_RUNNING)
			continue;
		j->info.elapsed = t - j->started;
		if (j->info.kind == SC_JOB_SEARCH) {
			if (atomic_load(&j->done)) {
				finish_search(j);
			} else {
				sc_progress p;
				sc_search_progress(j->search, &p);
				if (p.evals != j->info.search.evals || p.best != j->info.search.best ||
				    strcmp(p.phase, j->info.search.phase) != 0)
					j->info.version++;
				j->info.search = p;
			}
		} else if (j->fd >= 0) {
			if (t >= deadline(j) && !j->killed_time) {
				j->killed_time = true;
				kill(j->pid, SIGKILL);
			}
			if (read_mip(j))
				finish_mip(j);
		}
	}
	start_queued(e);
	unsigned after = 0;
	for (int i = 0; i < e->njobs; i++)
		after += e->jobs[i]->info.version;
	return (int)(after - before);
}

bool sc_engine_info(const sc_engine *e, int id, sc_job_info *out)
{
	if (id < 0 || id >= e->njobs)
		return false;
	*out = e->jobs[id]->info;
	return true;
}

void sc_engine_cancel(sc_engine *e, int id)
{
	for (int i = 0; i < e->njobs; i++) {
		if (id >= 0 && i != id)
			continue;
		job *j = e->jobs[i];
		if (j->info.state == SC_JOB_QUEUED) {
			j->info.state = SC_JOB_CANCELLED;
			j->info.version++;
		} else if (j->info.state == SC_JOB_RUNNING) {
			if (j->info.kind == SC_JOB_SEARCH) {
				sc_search_cancel(j->search);
			} else if (j->pid > 0 && !j->killed_cancel) {
				j->killed_cancel = true;
				kill(j->pid, SIGKILL);
			}
		}
	}
}

static bool finished(const sc_engine *e, int id)
{
	for (int i = 0; i < e->njobs; i++)
		if ((id < 0 || i == id) && !sc_job_finished(e->jobs[i]->info.state))
			return false;
	return true;
}

void sc_engine_wait(sc_engine *e, int id)
{
	while (!finished(e, id))
		sc_engine_poll(e, 200, -1, NULL);
}

int sc_engine_slots(const sc_engine *e)
{
	return e->max_running;
}

int sc_engine_busy(const sc_engine *e)
{
	int n = 0;
	for (int i = 0; i < e->njobs; i++)
		n += !sc_job_finished(e->jobs[i]->info.state);
	return n;
}

double sc_engine_result(const sc_engine *e, int id, int *stage, bool *optimal)
{
	if (optimal)
		*optimal = false;
	if (id < 0 || id >= e->njobs)
		return INFINITY;
	job *j = e->jobs[id];
	if (!sc_job_finished(j->info.state))
		return INFINITY;
	if (j->info.kind == SC_JOB_SEARCH) {
		return sc_search_result(j->search, stage, optimal);
	}
	if (!j->stages)
		return INFINITY;
	if (stage)
		memcpy(stage, j->stages, (size_t)j->g->n * sizeof *stage);
	if (optimal)
		*optimal = j->optimal;
	return j->result;
}

void sc_engine_free(sc_engine *e)
{
	if (!e)
		return;
	sc_engine_cancel(e, -1);
	for (int i = 0; i < e->njobs; i++) {
		job *j = e->jobs[i];
		if (j->info.kind == SC_JOB_SEARCH && !j->joined)
			pthread_join(j->thread, NULL);
		if (j->fd >= 0)
			close(j->fd);
		if (j->pid > 0)
			while (waitpid(j->pid, NULL, 0) < 0 && errno == EINTR)
				;
		sc_search_free(j->search);
		free(j->start);
		free(j->buf);
		free(j->stages);
		free(j);
	}
	free(e->jobs);
	close(e->wake[0]);
	close(e->wake[1]);
	free(e);
}
