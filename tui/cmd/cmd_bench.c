/*
 * cmd_bench.c - `stagecut bench GRAPH... -k LIST`: a testbed run and its
 * tables (paper 000, Tables 1 and 2).
 *
 * An instance is one graph at one k.  Each runs every method of --methods
 * (without refinement, as the paper compares them) and then the ladder's
 * rungs against the best partition found, and its record, one JSON object,
 * is appended to the results file (-o, default stagecut-bench.jsonl) in a
 * single write as soon as it finishes.  A rerun with the same file skips
 * the instances recorded there with the same methods, rungs and time limit,
 * so an interrupted testbed resumes.  --jobs N forks N workers that take
 * instances in turn; --part I/N keeps every Nth instance (from the I-th) so
 * several machines can share a testbed, and --merge reads results files
 * (from all the parts) and prints the tables without running anything.
 *
 * ^C (or SIGTERM) stops the workers, which drop the instance they were on
 * (the engine kills its solver children), and the tables of what finished
 * are printed before exiting 130.
 *
 * The testbed itself (running an instance, records, resuming, the tables)
 * is the library module solvers/testbed.c; this file keeps the worker
 * processes and the progress line, in steps (plan, open the results file,
 * run, report), and bench_report.h prints what they leave (compute,
 * then print).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tui/ui.h"
#include "core/clock.h"
#include "solvers/ideals.h"
#include "solvers/testbed.h"
#include "tui/cmd/bench_report.h"
#include "tui/cmd/outputs.h"

#define DEFAULT_RESULTS "stagecut-bench.jsonl"

/* Prints a testbed error: out of memory as it is, the rest after "bench: ". */
static void bench_error(const sc_error *err)
{
	if (err->code == SC_ERR_NOMEM)
		ui_error("%s", err->msg);
	else
		ui_error("bench: %s", err->msg);
}

static bool stop_on_interrupt(void *ctx)
{
	(void)ctx;
	return ui_interrupted();
}

static int count_newlines(const char *buf, size_t len)
{
	int n = 0;
	for (const char *p = buf; (p = memchr(p, '\n', len - (size_t)(p - buf))) != NULL; p++)
		n++;
	return n;
}

/* ---- the workers ------------------------------------------------------------ */

/* What a worker is doing, in memory shared with the parent: the worker
 * writes text between two increments of seq (odd while it writes), the
 * parent copies it and keeps the copy only when seq was even and did not
 * move. */
typedef struct worker_status {
	atomic_uint seq;
	char text[112];
	/* the instance the worker is on (-1 between two), and the first of
	 * its share not done: where a worker started in place of one that
	 * died goes on (past the instance it died on, which may kill again) */
	atomic_int at, next;
} worker_status;

typedef struct worker_ctx {
	worker_status *status;
	const sc_testbed_instance *inst;
} worker_ctx;

static void worker_say(worker_ctx *w, const char *phase)
{
	const char *path = w->inst->path, *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	int len = (int)strcspn(base, ".");
	atomic_fetch_add(&w->status->seq, 1);
	snprintf(w->status->text, sizeof w->status->text, "%.*s k=%d %s", len, base, w->inst->k,
	         phase);
	atomic_fetch_add(&w->status->seq, 1);
}

static void on_phase(void *ctx, const char *phase)
{
	worker_say(ctx, phase);
}

/* The workers' loop: worker w of n takes todo[w], todo[w + n], ...
 * Returns the worker's exit status: 0, 130 when interrupted, 3 (after
 * saying why) when a record cannot be written. */
static int worker(const sc_testbed_instance *todo, int ntodo, int first, int n,
                  const sc_testbed_config *c, int fd, const char *results, int mip_slots,
                  worker_status *status)
{
	for (int i = first; i < ntodo && !ui_interrupted(); i += n) {
		atomic_store(&status->at, i);
		worker_ctx wc = {status, &todo[i]};
		json_t *rec =
		        sc_testbed_run(&todo[i], c, mip_slots, stop_on_interrupt, on_phase, &wc);
		sc_error err;
		int saved = 0;
		if (rec && sc_testbed_append(fd, rec, &err) != SC_OK) {
			saved = errno;
			ui_error("bench: %s: %s%s%s", results, err.msg, saved ? ": " : "",
			         saved ? strerror(saved) : "");
			json_decref(rec);
			return 3;
		}
		json_decref(rec);
		if (!ui_interrupted())
			atomic_store(&status->next, i + n);
		atomic_store(&status->at, -1);
	}
	return ui_interrupted() ? 130 : 0;
}

/* The configuration from the options; false after printing an error. */
static bool configure(const ui_opts *o, sc_testbed_config *c)
{
	sc_error err;
	sc_testbed_config_init(c);
	if (sc_testbed_parse_methods(o->methods ? o->methods : SC_TESTBED_METHODS, c, &err) !=
	            SC_OK ||
	    sc_testbed_parse_ks(o->klist ? o->klist : SC_TESTBED_KS, c, &err) != SC_OK) {
		bench_error(&err);
		return false;
	}
	if (o->rungs && !ui_parse_rungs(o->rungs, &c->rungs))
		return false;
	if (o->time_limit > 0)
		c->time_limit = o->time_limit;
	c->seed = o->seed;
	c->bandwidth = o->bandwidth;
	c->memory = o->memory;
	c->policy = o->policy;
	c->schedule = o->schedule;
	c->cpus = o->cpus == UI_CPUS_FILE ? SC_TESTBED_CPUS_FILE : o->cpus > 0 ? o->cpus : 0;
	if (o->devices) {
		/* every instance on the devices: k is their sum */
		int K = sc_fleet_stages(&o->fleet);
		if (o->klist && (c->nk != 1 || c->k[0] != K)) {
			ui_error("bench: --devices %s gives %d stages: -k may only repeat that",
			         o->devices, K);
			return false;
		}
		/* instances load their graph alone (sc_testbed_run): a devices
		 * file's times, profiles and refusals are refused, not dropped */
		for (int d = 0; d < o->fleet.n; d++)
			if (o->devfile.profile[d][0] || o->devfile.times[d][0] ||
			    o->devfile.refuse[d][0]) {
				ui_error("bench: --devices %s: the device '%s' has a profile, "
				         "times or "
				         "refusals, which bench does not take yet (its counts, "
				         "memory "
				         "and bandwidth it does)",
				         o->devices, o->fleet.kind[d].name);
				return false;
			}
		c->fleet = o->fleet;
		c->nk = 1;
		c->k[0] = K;
	}
	sc_testbed_config_key(c, o->methods, o->rungs);
	return true;
}

/* The progress line: how many instances are done, the time, and what each
 * worker is on, cut to the terminal's width. */
static void show_progress(worker_status *status, char (*last)[112], int nw, int done, int ntodo,
                          double seconds)
{
	struct winsize ws;
	int cols = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20 ? ws.ws_col : 80;
	char line[1024];
	int len = snprintf(line, sizeof line, "[%d/%d] %.0f s", done, ntodo, seconds);
	for (int w = 0; w < nw; w++) {
		char copy[112];
		unsigned before = atomic_load(&status[w].seq);
		memcpy(copy, status[w].text, sizeof copy);
		copy[sizeof copy - 1] = '\0';
		if (!(before & 1u) && atomic_load(&status[w].seq) == before)
			memcpy(last[w], copy, sizeof copy);
		if (last[w][0] && len < (int)sizeof line)
			len += snprintf(line + len, sizeof line - (size_t)len, " | %s", last[w]);
	}
	if (len >= cols)
		line[cols - 1] = '\0';
	ui_progress("%s", line);
}

/* How the run of the workers ended. */
typedef struct run_result {
	int write_failed; /* workers that could not write a record (they said so) */
	int other_failed; /* workers that ended otherwise, not asked to */
} run_result;

/* Forks the workers and waits for them, showing progress (the results
 * file's growth and each worker's phase) when stderr is a terminal.  On
 * ^C or SIGTERM each worker is told (SIGTERM) and stops within a fraction
 * of a second, dropping its instance; one still running
 * KILL_AFTER seconds later is killed, with its solvers. */
#define KILL_AFTER 0.8
static run_result run_workers(const sc_testbed_instance *todo, int ntodo,
                              const sc_testbed_config *c, int jobs, int fd, const char *results)
{
	run_result rr = {0};
	bool tty = isatty(STDERR_FILENO);
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int slots = (int)(cores > jobs ? cores / jobs : 1);
	pid_t pids[256];
	bool alive_w[256];
	int npids = 0;
	if (jobs > 256)
		jobs = 256;
	worker_status *status = mmap(NULL, (size_t)jobs * sizeof *status, PROT_READ | PROT_WRITE,
	                             MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (status == MAP_FAILED) {
		ui_error("bench: cannot share the workers' progress: %s", strerror(errno));
		rr.other_failed = 1;
		return rr;
	}
	memset(status, 0, (size_t)jobs * sizeof *status);
	fflush(NULL);
	for (int w = 0; w < jobs && ntodo; w++) {
		atomic_store(&status[w].at, -1);
		atomic_store(&status[w].next, w);
		pid_t pid = fork();
		if (pid == 0)
			_exit(worker(todo, ntodo, w, jobs, c, fd, results, slots, &status[w]));
		if (pid < 0) {
			ui_error("bench: cannot start a worker: %s", strerror(errno));
			ui_interrupt();
			break;
		}
		alive_w[npids] = true;
		pids[npids++] = pid;
	}
	char(*last)[112] = calloc((size_t)jobs, sizeof *last);
	int rfd = tty ? open(results, O_RDONLY | O_CLOEXEC) : -1, done = 0;
	off_t seen = rfd >= 0 ? lseek(rfd, 0, SEEK_END) : 0;
	int alive = npids;
	double t0 = sc_clock_now(), last_shown = -1, told = -1;
	while (alive) {
		int st;
		pid_t p = waitpid(-1, &st, WNOHANG);
		if (p > 0) {
			int slot = -1;
			for (int i = 0; i < npids; i++)
				if (pids[i] == p && alive_w[i]) {
					alive_w[i] = false;
					alive--;
					slot = i;
				}
			int code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
			if (code == 3)
				rr.write_failed++;
			else if (code != 0 && code != 130 && told < 0)
				rr.other_failed++;
			/* a worker killed (or stopped alone) while the run goes on:
			 * another takes the rest of its share, past the instance a
			 * crash ended (reported above, retried by a rerun) and from
			 * the one a stop dropped */
			if (slot >= 0 && code != 0 && code != 3 && told < 0 && !ui_interrupted()) {
				int at = atomic_load(&status[slot].at);
				int from = at < 0        ? atomic_load(&status[slot].next)
				           : code == 130 ? at
				                         : at + jobs;
				atomic_store(&status[slot].at, -1);
				atomic_store(&status[slot].next, from);
				pid_t again = from < ntodo ? fork() : -1;
				if (again == 0)
					_exit(worker(todo, ntodo, from, jobs, c, fd, results, slots,
					             &status[slot]));
				if (again > 0) {
					pids[slot] = again;
					alive_w[slot] = true;
					alive++;
				}
			}
			continue;
		}
		if (ui_interrupted() && told < 0) {
			/* a signal sent to this process alone reaches the workers too */
			for (int i = 0; i < npids; i++)
				if (alive_w[i])
					kill(pids[i], SIGTERM);
			told = sc_clock_now();
		}
		if (told >= 0 && sc_clock_now() - told > KILL_AFTER) {
			/* a worker stuck past the stop: its solvers die with it
			 * (PR_SET_PDEATHSIG, job_mip.c) */
			for (int i = 0; i < npids; i++)
				if (alive_w[i])
					kill(pids[i], SIGKILL);
			told = INFINITY;
		}
		if (tty && sc_clock_now() - last_shown > 0.5) {
			/* each finished instance is one more line after where the
			 * file ended when the run began: count the new bytes' lines */
			char buf[4096];
			ssize_t got;
			while (rfd >= 0 && (got = pread(rfd, buf, sizeof buf, seen)) > 0) {
				seen += got;
				done += count_newlines(buf, (size_t)got);
			}
			if (last)
				show_progress(status, last, npids, done, ntodo,
				              sc_clock_now() - t0);
			last_shown = sc_clock_now();
		}
		usleep(50000);
	}
	if (tty)
		ui_progress_done();
	if (rfd >= 0)
		close(rfd);
	free(last);
	munmap(status, (size_t)jobs * sizeof *status);
	return rr;
}

/* ---- the command ------------------------------------------------------------ */

/* Whether o's results files are distinct files: the same file named twice
 * (by any path or link to it: the same device and inode) would count its
 * records twice.  Prints the error when not.  A file that cannot be
 * stat'ed is left to the reader to report. */
static bool distinct_files(const ui_opts *o)
{
	struct stat si, sj;
	for (int i = 1; i < o->npos; i++) {
		if (stat(o->pos[i], &si) != 0)
			continue;
		for (int j = 0; j < i; j++)
			if (stat(o->pos[j], &sj) == 0 && si.st_dev == sj.st_dev &&
			    si.st_ino == sj.st_ino) {
				ui_error("bench: --merge: %s and %s are the same file; give each "
				         "results file once (its records would count twice)",
				         o->pos[j], o->pos[i]);
				return false;
			}
	}
	return true;
}

static int merge(const ui_opts *o)
{
	sc_testbed_records rs = {0};
	sc_error err;
	int status = UI_EXIT_OK;
	if (!distinct_files(o))
		return UI_EXIT_INPUT;
	for (int i = 0; i < o->npos; i++)
		if (sc_testbed_read(o->pos[i], true, &rs, &err) != SC_OK) {
			bench_error(&err);
			status = UI_EXIT_INPUT;
			goto out;
		}
	if (!rs.n) {
		ui_error("bench: --merge: no records in the files given");
		status = UI_EXIT_INPUT;
		goto out;
	}
	ui_bench_report r;
	ui_bench_report_of(&rs, &r);
	if (!ui_bench_print(&r, o->json))
		status = UI_EXIT_INPUT;
out:
	sc_testbed_records_fini(&rs);
	return status;
}

/* A results file whose last record is unfinished (a full disk, a kill
 * mid-write) would get the next record appended onto it, making the file
 * unreadable: the unfinished line is cut off, as the reader
 * skips it.  Regular files only; false (errno set) when it cannot be. */
static bool cut_partial_record(int fd)
{
	struct stat sb;
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size == 0 ||
	    (fcntl(fd, F_GETFL) & O_ACCMODE) == O_WRONLY)
		return true;
	off_t end = sb.st_size, keep = end;
	char buf[4096];
	while (keep > 0) {
		off_t from = keep > (off_t)sizeof buf ? keep - (off_t)sizeof buf : 0;
		ssize_t n = pread(fd, buf, (size_t)(keep - from), from);
		if (n <= 0)
			return false;
		ssize_t i = n - 1;
		while (i >= 0 && buf[i] != '\n')
			i--;
		if (i >= 0) {
			keep = from + i + 1;
			break;
		}
		keep = from;
	}
	return keep == end || ftruncate(fd, keep) == 0;
}

/* A run's plan: the graph files, and the instances to run (those of this
 * --part that the results file does not hold yet) of ninst. */
typedef struct bench_plan {
	sc_testbed_files files;
	sc_testbed_instance *todo;
	int ntodo, ninst, skipped;
} bench_plan;

static void bench_plan_fini(bench_plan *pl)
{
	sc_testbed_files_fini(&pl->files);
	free(pl->todo);
}

/* The plan of the graphs o names under c, against the records in results.
 * Returns UI_EXIT_OK, or an exit status after a message. */
static int make_plan(const ui_opts *o, const sc_testbed_config *c, const char *results,
                     bench_plan *pl)
{
	sc_testbed_records rs = {0};
	sc_error err;
	for (int i = 0; i < o->npos; i++) {
		int added;
		if (ui_same_file(o->pos[i], results)) {
			ui_error("bench: %s is the results file (-o), not a graph", o->pos[i]);
			return UI_EXIT_INPUT;
		}
		if (sc_testbed_add_path(&pl->files, o->pos[i], &added, &err) != SC_OK) {
			bench_error(&err);
			return UI_EXIT_INPUT;
		}
		if (!added)
			ui_error("bench: %s: no graph files (.dot, .gv, .json) in the directory; "
			         "going on with the others",
			         o->pos[i]);
	}
	/* the results file is no graph (a directory holding it would list it
	 * as .json), and a graph named twice would run and count twice */
	int kept = 0;
	for (int i = 0; i < pl->files.n; i++) {
		if (ui_same_file(pl->files.path[i], results)) {
			free(pl->files.path[i]);
			continue;
		}
		for (int j = 0; j < kept; j++)
			if (ui_same_file(pl->files.path[i], pl->files.path[j])) {
				ui_error(
				        "bench: %s and %s are the same graph file; give each graph "
				        "once (its instances would run and count twice)",
				        pl->files.path[j], pl->files.path[i]);
				for (int m = i; m < pl->files.n; m++)
					free(pl->files.path[m]);
				pl->files.n = kept;
				return UI_EXIT_INPUT;
			}
		pl->files.path[kept++] = pl->files.path[i];
	}
	pl->files.n = kept;
	if (!pl->files.n) {
		ui_error("bench: no graph files to run");
		return UI_EXIT_INPUT;
	}
	if (sc_testbed_read(results, false, &rs, &err) != SC_OK) {
		bench_error(&err);
		sc_testbed_records_fini(&rs);
		return UI_EXIT_INPUT;
	}
	pl->ninst = pl->files.n * c->nk;
	pl->todo = malloc((size_t)pl->ninst * sizeof *pl->todo);
	if (!pl->todo) {
		ui_error("out of memory");
		sc_testbed_records_fini(&rs);
		return UI_EXIT_INPUT;
	}
	pl->ntodo =
	        sc_testbed_plan(&pl->files, c, o->part_i, o->part_n, &rs, pl->todo, &pl->skipped);
	sc_testbed_records_fini(&rs);
	return UI_EXIT_OK;
}

/* Opens the results file to append to, into *fd, its unfinished last
 * record cut off.  Returns UI_EXIT_OK, or UI_EXIT_INPUT after a message. */
static int open_results(const char *results, int *fd)
{
	/* read too (an unfinished last record is cut off below); a file that
	 * may only be written is appended to as it is */
	*fd = open(results, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (*fd < 0 && (errno == EACCES || errno == EPERM))
		*fd = open(results, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (*fd < 0) {
		ui_error("bench: %s: %s", results, strerror(errno));
		return UI_EXIT_INPUT;
	}
	if (!cut_partial_record(*fd)) {
		ui_error("bench: %s: cannot cut its unfinished last record: %s", results,
		         strerror(errno));
		close(*fd);
		return UI_EXIT_INPUT;
	}
	return UI_EXIT_OK;
}

/* Runs the plan's instances with o->jobs workers, appending their records
 * to fd (results, closed here), ^C and SIGTERM stopping them.  Returns
 * UI_EXIT_OK, or UI_EXIT_INPUT when a worker failed (said). */
static int run_plan(const ui_opts *o, sc_testbed_config *c, const bench_plan *pl, int fd,
                    const char *results)
{
	fprintf(stderr,
	        "stagecut: bench: %d graph%s x %d k = %d instances%s, %d already in %s, %d to "
	        "run\n",
	        pl->files.n, pl->files.n == 1 ? "" : "s", c->nk, pl->ninst,
	        o->part_n > 0 ? " (before --part)" : "", pl->skipped, results, pl->ntodo);
	int jobs = o->jobs > 0 ? o->jobs : 1;
	if (jobs > pl->ntodo)
		jobs = pl->ntodo ? pl->ntodo : 1;
	/* the workers share the exact DP's memory budget (ideals.h) */
	c->dp_memory = sc_dp_memory_budget() / jobs;
	ui_interrupts saved;
	ui_catch_interrupts(&saved);
	run_result rr = run_workers(pl->todo, pl->ntodo, c, jobs, fd, results);
	close(fd);
	ui_release_interrupts(&saved);
	if (rr.other_failed)
		ui_error("bench: %d worker%s ended abnormally (another took the rest of each one's "
		         "share; the instance it was on is not recorded); a rerun goes on from the "
		         "records in %s",
		         rr.other_failed, rr.other_failed == 1 ? "" : "s", results);
	return rr.write_failed || rr.other_failed ? UI_EXIT_INPUT : UI_EXIT_OK;
}

/* After a run: the report of every record in results for c's
 * configuration and the plan's graphs (what ran now and before).  Returns
 * the exit status: status (the run's) unless an instance failed or the run
 * was stopped. */
static int report_run(const ui_opts *o, const sc_testbed_config *c, const bench_plan *pl,
                      const char *results, int status)
{
	sc_testbed_records all = {0}, rs = {0};
	sc_error err;
	sc_testbed_read(results, false, &all, &err);
	sc_testbed_select(&all, c->key, &pl->files, &rs, &err);
	ui_bench_report r;
	ui_bench_report_of(&rs, &r);
	r.results = results;
	r.stopped = ui_interrupted();
	r.signal = r.stopped ? ui_interrupt_signal() : 0;
	if (r.failed)
		status = UI_EXIT_INPUT;
	ui_bench_print(&r, o->json); /* as before: a failed JSON write does not change the status */
	if (r.stopped)
		status = r.signal == SIGTERM ? 128 + SIGTERM : 130;
	sc_testbed_records_fini(&all);
	sc_testbed_records_fini(&rs);
	return status;
}

int ui_cmd_bench(const ui_opts *o)
{
	if (o->merge)
		return merge(o);
	if (!o->npos) {
		ui_error("bench: give graph files or directories (or --merge RESULTS...)");
		return UI_EXIT_INPUT;
	}
	sc_testbed_config c;
	if (!configure(o, &c))
		return UI_EXIT_INPUT;
	const char *results = o->output ? o->output : DEFAULT_RESULTS;
	bench_plan pl = {.todo = NULL};
	int fd = -1;
	int status = make_plan(o, &c, results, &pl);
	if (status == UI_EXIT_OK)
		status = open_results(results, &fd);
	if (status == UI_EXIT_OK)
		status = report_run(o, &c, &pl, results, run_plan(o, &c, &pl, fd, results));
	bench_plan_fini(&pl);
	return status;
}
