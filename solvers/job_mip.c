/*
 * job_mip.c - a MIP solve as a job of the engine: sc_engine_add_mip and the
 * MIP kind's ops.  See jobs.h and jobs_impl.h.
 *
 * sc_mip_solve runs in a child process, because CBC is neither thread-safe
 * nor interruptible.  The child writes lines on a pipe:
 *   P bound incumbent nodes seconds     progress
 *   R status bound incumbent nodes seconds
 *   S n s0 s1 ... s(n-1)                the exact rung's partition
 *   D K d0 d1 ... d(K-1)                its stages' kinds (fleet.h), on devices
 *   E message                           sc_mip_solve failed
 * and exits; end of file without an R or E line means it died, and the job
 * fails naming the signal or exit status.  A cancel kills the child; so does
 * a time limit overrun by a margin (CBC may not stop when told).  The engine
 * polls the pipe (watch) and reads it (update).  The neighbours: the engine
 * in jobs.c, the other kind (a search on a thread) in job_search.c.
 */
#define _GNU_SOURCE /* pipe2 */
#include "jobs_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/fleet.h"
#include "core/partition.h"

typedef struct mip_job {
	sc_job base;
	sc_mip_params mp;
	int *start;      /* copy of the start partition, or NULL */
	int *start_kind; /* copy of its kinds (devices), or NULL */
	pid_t pid;       /* the child, -1 when none */
	int fd;          /* its pipe, -1 when closed */
	char *buf;       /* what it wrote that is not yet a whole line */
	size_t len, cap;
	bool got_result, killed_cancel, killed_time;
	int *stages; /* the exact rung's partition, or NULL */
	int *kinds;  /* its stages' kinds (devices), or NULL */
	int nkinds;
	double result;
	bool optimal;
} mip_job;

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

static void child_main(const mip_job *j, int fd)
{
	/* CBC writes its own messages to stdout; nobody is reading them */
	int null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
	}
	signal(SIGPIPE, SIG_DFL);
	if (setpriority(PRIO_PROCESS, 0, SC_JOB_WORKER_NICE) != 0) {
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
	if (sc_mip_solve(j->base.g, &j->base.set, &j->mp, child_progress, &fd, &res, &err) !=
	    SC_OK) {
		for (char *c = err.msg; *c; c++)
			if (*c == '\n')
				*c = ' ';
		putf(fd, "E %s\n", err.msg);
		_exit(0);
	}
	putf(fd, "R %d %.17g %.17g %ld %.6f\n", (int)res.status, res.bound, res.incumbent,
	     res.nodes, res.seconds);
	if (res.stages) {
		putf(fd, "S %d", j->base.g->n);
		char chunk[4096];
		size_t len = 0;
		for (int v = 0; v < j->base.g->n; v++) {
			len += (size_t)snprintf(chunk + len, sizeof chunk - len, " %d",
			                        res.stages[v]);
			if (len > sizeof chunk - 32) {
				put(fd, chunk, len);
				len = 0;
			}
		}
		chunk[len++] = '\n';
		put(fd, chunk, len);
	}
	if (res.stages && res.stage_kind) {
		putf(fd, "D %d", res.kstages);
		for (int b = 0; b < res.kstages; b++)
			putf(fd, " %d", res.stage_kind[b]);
		putf(fd, "\n");
	}
	_exit(0);
}

static void mip_start(sc_engine *e, sc_job *base)
{
	mip_job *j = (mip_job *)base;
	(void)e;
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0) {
		sc_job_fail(base, "cannot make a pipe: %s (%d)", strerror(errno), errno);
		return;
	}
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		sc_job_fail(base, "cannot start the solver process: %s (%d)", strerror(errno),
		            errno);
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
	base->info.state = SC_JOB_RUNNING;
	base->info.version++;
}

static void parse_line(mip_job *j, char *line)
{
	sc_job_info *info = &j->base.info;
	char *s = line + 2;
	if (line[0] == 'P' && line[1] == ' ') {
		double b = strtod(s, &s), inc = strtod(s, &s);
		long nodes = strtol(s, &s, 10);
		if (b > info->bound)
			info->bound = b;
		if (inc < info->incumbent)
			info->incumbent = inc;
		if (nodes >= 0)
			info->nodes = nodes;
	} else if (line[0] == 'R' && line[1] == ' ') {
		int st = (int)strtol(s, &s, 10);
		double b = strtod(s, &s), inc = strtod(s, &s);
		long nodes = strtol(s, &s, 10);
		info->mip_status = (sc_mip_status)st;
		info->bound = b;
		info->incumbent = inc;
		info->nodes = nodes;
		j->result = inc;
		j->optimal = st == SC_MIP_OPTIMAL;
		j->got_result = true;
	} else if (line[0] == 'S' && line[1] == ' ') {
		int n = (int)strtol(s, &s, 10);
		if (n != j->base.g->n)
			return;
		free(j->stages);
		j->stages = sc_part_new(j->base.g);
		if (!j->stages)
			return;
		for (int v = 0; v < n; v++)
			j->stages[v] = (int)strtol(s, &s, 10);
	} else if (line[0] == 'D' && line[1] == ' ') {
		int K = (int)strtol(s, &s, 10);
		if (K < 1 || K > 1000000)
			return;
		free(j->kinds);
		j->kinds = malloc((size_t)K * sizeof *j->kinds);
		if (!j->kinds)
			return;
		j->nkinds = K;
		for (int b = 0; b < K; b++)
			j->kinds[b] = (int)strtol(s, &s, 10);
	} else if (line[0] == 'E' && line[1] == ' ') {
		info->state = SC_JOB_FAILED;
		snprintf(info->message, sizeof info->message, "%s", s);
	}
	info->version++;
}

static void finish(mip_job *j)
{
	sc_job_info *info = &j->base.info;
	close(j->fd);
	j->fd = -1;
	int status = 0;
	while (waitpid(j->pid, &status, 0) < 0 && errno == EINTR)
		;
	j->pid = -1;
	if (info->state == SC_JOB_FAILED) {
		/* the child said what went wrong */
	} else if (j->killed_cancel) {
		info->state = SC_JOB_CANCELLED;
	} else if (j->killed_time) {
		info->state = SC_JOB_STOPPED;
		info->mip_status = SC_MIP_TIME_LIMIT;
	} else if (j->got_result) {
		info->state = info->mip_status == SC_MIP_TIME_LIMIT ? SC_JOB_STOPPED : SC_JOB_DONE;
	} else if (WIFSIGNALED(status)) {
		info->state = SC_JOB_FAILED;
		snprintf(info->message, sizeof info->message,
		         "the solver process crashed (signal %d, %s)", WTERMSIG(status),
		         strsignal(WTERMSIG(status)));
	} else {
		info->state = SC_JOB_FAILED;
		snprintf(info->message, sizeof info->message,
		         "the solver process exited with status %d and no answer",
		         WEXITSTATUS(status));
	}
	info->version++;
}

/* Reads what the child wrote; true at end of file. */
static bool read_reports(mip_job *j)
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
static double deadline(const mip_job *j)
{
	double t = j->mp.time_limit;
	if (t <= 0)
		return INFINITY;
	return j->base.started + t + fmax(5, 0.25 * t);
}

static int mip_watch(const sc_job *base, double *deadline_out)
{
	const mip_job *j = (const mip_job *)base;
	*deadline_out = j->fd >= 0 ? deadline(j) : INFINITY;
	return j->fd;
}

static void mip_update(sc_job *base, double now)
{
	mip_job *j = (mip_job *)base;
	if (j->fd < 0)
		return;
	if (now >= deadline(j) && !j->killed_time) {
		j->killed_time = true;
		kill(j->pid, SIGKILL);
	}
	if (read_reports(j))
		finish(j);
}

static void mip_cancel(sc_job *base)
{
	mip_job *j = (mip_job *)base;
	if (j->pid > 0 && !j->killed_cancel) {
		j->killed_cancel = true;
		kill(j->pid, SIGKILL);
	}
}

/* SIGSTOP and SIGCONT: the child keeps its whole state (jobs.h). */
static void mip_pause(sc_job *base, bool pause)
{
	mip_job *j = (mip_job *)base;
	if (j->pid > 0)
		kill(j->pid, pause ? SIGSTOP : SIGCONT);
}

static double mip_result(const sc_job *base, int *stage, bool *optimal)
{
	const mip_job *j = (const mip_job *)base;
	if (!j->stages)
		return INFINITY;
	if (stage)
		memcpy(stage, j->stages, (size_t)base->g->n * sizeof *stage);
	if (optimal)
		*optimal = j->optimal;
	return j->result;
}

static bool mip_kinds(const sc_job *base, int *kind)
{
	const mip_job *j = (const mip_job *)base;
	if (!j->stages || !j->kinds)
		return false;
	memcpy(kind, j->kinds, (size_t)j->nkinds * sizeof *kind);
	return true;
}

static void mip_free(sc_job *base)
{
	mip_job *j = (mip_job *)base;
	if (j->fd >= 0)
		close(j->fd);
	if (j->pid > 0)
		while (waitpid(j->pid, NULL, 0) < 0 && errno == EINTR)
			;
	free(j->start);
	free(j->start_kind);
	free(j->buf);
	free(j->stages);
	free(j->kinds);
	free(j);
}

static const sc_job_ops mip_ops = {
        .start = mip_start,
        .watch = mip_watch,
        .update = mip_update,
        .cancel = mip_cancel,
        .pause = mip_pause,
        .result = mip_result,
        .kinds = mip_kinds,
        .free = mip_free,
};

int sc_engine_add_mip(sc_engine *e, const sc_graph *g, const sc_settings *set,
                      const sc_mip_params *p, sc_error *err)
{
	if (p->rung != SC_RUNG_BOTTLENECK && p->rung != SC_RUNG_GUESS && p->rung != SC_RUNG_EXACT &&
	    p->rung != SC_RUNG_COVER)
		return sc_error_set(err, SC_ERR_INPUT, "rung %s is not a MIP",
		                    sc_rung_name(p->rung)),
		       -1;
	mip_job *j = calloc(1, sizeof *j);
	if (!j)
		return sc_error_nomem(err, "a MIP job"), -1;
	j->base.ops = &mip_ops;
	j->base.info.kind = SC_JOB_MIP;
	j->base.g = g;
	j->base.set = *set;
	j->mp = *p;
	j->fd = -1;
	j->pid = -1;
	j->result = INFINITY;
	if (p->start) {
		j->start = sc_part_new(g);
		if (!j->start) {
			free(j);
			return sc_error_nomem(err, "a MIP job"), -1;
		}
		memcpy(j->start, p->start, (size_t)g->n * sizeof *j->start);
		j->mp.start = j->start;
	}
	if (p->start && p->start_kind && (set->cpus > 0 || set->fleet)) {
		size_t K = set->fleet ? (size_t)sc_fleet_stages(set->fleet)
		                      : (size_t)p->k + (size_t)set->cpus;
		j->start_kind = malloc(K * sizeof *j->start_kind);
		if (!j->start_kind) {
			mip_free(&j->base);
			return sc_error_nomem(err, "a MIP job"), -1;
		}
		memcpy(j->start_kind, p->start_kind, K * sizeof *j->start_kind);
	}
	j->mp.start_kind = j->start_kind;
	j->base.info.bound = p->lower > 0 ? p->lower : 0;
	int id = sc_job_add(e, &j->base, err);
	if (id < 0)
		mip_free(&j->base);
	return id;
}
