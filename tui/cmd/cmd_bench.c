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
 * processes, the progress line and the printing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tui/ui.h"
#include "core/clock.h"
#include "solvers/testbed.h"

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

/* ---- printing the tables ------------------------------------------------- */

static void print_ratio_table(const sc_testbed_tables *t, const sc_testbed_row *rows, int n,
                              const char *title, const char *label)
{
	char b[32];
	printf("%s\n%-14s", title, label);
	for (int j = 0; j < t->nk; j++)
		printf(" %9s", (snprintf(b, sizeof b, "k=%d", t->ks[j]), b));
	for (int i = 0; i < n; i++) {
		printf("\n%-14s", rows[i].name);
		for (int j = 0; j < t->nk; j++) {
			double g = rows[i].ratio[j];
			printf(" %9s", isnan(g) ? "-" : (snprintf(b, sizeof b, "%.4f", g), b));
		}
	}
}

static void print_medians(const sc_testbed_row *rows, int n, const char *what)
{
	char b[32];
	for (int i = 0; i < n; i++) {
		double m = rows[i].median_seconds;
		printf("  %-6s %-14s %10s\n", what, rows[i].name,
		       isnan(m) ? "-" : (snprintf(b, sizeof b, "%.3f", m), b));
	}
}

static void print_tables(const sc_testbed_tables *t)
{
	print_ratio_table(t, t->rungs, t->nr,
	                  "\nTable 1: lower bound / best partition (geometric mean over instances; "
	                  "1 = proven optimal)",
	                  "rung");
	print_ratio_table(t, t->methods, t->nm,
	                  "\n\nTable 2: bottleneck / simple lower bound (geometric mean over "
	                  "instances; lower is better)",
	                  "method");
	/* a method that refused some instances is averaged over fewer: say so */
	for (int i = 0; i < t->nm; i++)
		if (t->methods[i].instances < t->usable)
			printf("\n  (%s: over the %d of %d instances it ran on; it refused the "
			       "others)",
			       t->methods[i].name, t->methods[i].instances, t->usable);
	printf("\n\nmedian seconds per instance\n");
	print_medians(t->methods, t->nm, "method");
	print_medians(t->rungs, t->nr, "rung");
	printf("\nproven optimal:");
	for (int j = 0; j < t->nk; j++)
		printf(" k=%d %d/%d%s", t->ks[j], t->proven[j], t->of[j], j + 1 < t->nk ? "," : "");
	printf("; %d of %d instances\n", t->proven_all, t->of_all);
}

/* Prints the tables of rs, as text or as JSON; false when the JSON could
 * not be written. */
static bool report(const sc_testbed_records *rs, bool json)
{
	sc_testbed_tables t;
	sc_testbed_tables_compute(rs, &t);
	if (!json) {
		print_tables(&t);
		return true;
	}
	return ui_print_json(sc_testbed_tables_json(&t));
}

static int count_newlines(const char *buf, size_t len)
{
	int n = 0;
	for (const char *p = buf; (p = memchr(p, '\n', len - (size_t)(p - buf))) != NULL; p++)
		n++;
	return n;
}

/* ---- the command ------------------------------------------------------------ */

/* The workers' loop: worker w of n takes todo[w], todo[w + n], ... */
static void worker(const sc_testbed_instance *todo, int ntodo, int w, int n,
                   const sc_testbed_config *c, int fd, int mip_slots)
{
	for (int i = w; i < ntodo && !ui_interrupted(); i += n) {
		json_t *rec = sc_testbed_run(&todo[i], c, mip_slots, stop_on_interrupt, NULL);
		sc_error err;
		if (rec && sc_testbed_append(fd, rec, &err) != SC_OK)
			_exit(3);
		json_decref(rec);
	}
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
	sc_testbed_config_key(c, o->methods, o->rungs);
	return true;
}

/* Forks the workers and waits for them, showing progress from the results
 * file's growth when stderr is a terminal.  Returns how many failed. */
static int run_workers(const sc_testbed_instance *todo, int ntodo, const sc_testbed_config *c,
                       int jobs, int fd, const char *results)
{
	bool tty = isatty(STDERR_FILENO);
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int slots = (int)(cores > jobs ? cores / jobs : 1);
	pid_t pids[256];
	int npids = 0;
	fflush(NULL);
	for (int w = 0; w < jobs && w < 256 && ntodo; w++) {
		pid_t pid = fork();
		if (pid == 0) {
			worker(todo, ntodo, w, jobs, c, fd, slots);
			_exit(ui_interrupted() ? 130 : 0);
		}
		if (pid < 0) {
			ui_error("bench: cannot start a worker: %s", strerror(errno));
			ui_interrupt();
			break;
		}
		pids[npids++] = pid;
	}
	int rfd = tty ? open(results, O_RDONLY | O_CLOEXEC) : -1, done = 0;
	off_t seen = rfd >= 0 ? lseek(rfd, 0, SEEK_END) : 0;
	int alive = npids, failed = 0;
	double t0 = sc_clock_now(), last = -1;
	bool forwarded = false;
	while (alive) {
		int st;
		pid_t p = waitpid(-1, &st, WNOHANG);
		if (p > 0) {
			alive--;
			if (!(WIFEXITED(st) && (WEXITSTATUS(st) == 0 || WEXITSTATUS(st) == 130)))
				failed++;
			continue;
		}
		if (ui_interrupted() && !forwarded) {
			/* a signal sent to this process alone reaches the workers too */
			for (int i = 0; i < npids; i++)
				kill(pids[i], SIGTERM);
			forwarded = true;
		}
		if (tty && sc_clock_now() - last > 0.5) {
			/* each finished instance is one more line after where the
			 * file ended when the run began: count the new bytes' lines */
			char buf[4096];
			ssize_t got;
			while (rfd >= 0 && (got = pread(rfd, buf, sizeof buf, seen)) > 0) {
				seen += got;
				done += count_newlines(buf, (size_t)got);
			}
			fprintf(stderr, "\r\033[K[%d/%d] %.0f s", done, ntodo, sc_clock_now() - t0);
			last = sc_clock_now();
		}
		usleep(100000);
	}
	if (tty)
		fputs("\r\033[K", stderr);
	if (rfd >= 0)
		close(rfd);
	return failed;
}

static int merge(const ui_opts *o)
{
	sc_testbed_records rs = {0};
	sc_error err;
	int status = UI_EXIT_OK;
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
	if (!report(&rs, o->json))
		status = UI_EXIT_INPUT;
out:
	sc_testbed_records_fini(&rs);
	return status;
}

int ui_cmd_bench(const ui_opts *o)
{
	sc_testbed_config c;
	sc_testbed_records rs = {0}, all = {0};
	sc_testbed_files files = {0};
	sc_testbed_instance *todo = NULL;
	sc_error err;
	int ntodo = 0, status = UI_EXIT_OK;
	const char *results = o->output ? o->output : DEFAULT_RESULTS;
	if (o->merge)
		return merge(o);
	if (!o->npos) {
		ui_error("bench: give graph files or directories (or --merge RESULTS...)");
		return UI_EXIT_INPUT;
	}
	if (!configure(o, &c))
		return UI_EXIT_INPUT;
	for (int i = 0; i < o->npos; i++) {
		int added;
		if (sc_testbed_add_path(&files, o->pos[i], &added, &err) != SC_OK) {
			bench_error(&err);
			status = UI_EXIT_INPUT;
			goto out;
		}
		if (!added)
			ui_error("bench: %s: no graph files (.dot, .gv, .json) in the directory; "
			         "going on with the others",
			         o->pos[i]);
	}
	if (!files.n) {
		ui_error("bench: no graph files to run");
		status = UI_EXIT_INPUT;
		goto out;
	}
	if (sc_testbed_read(results, false, &rs, &err) != SC_OK) {
		bench_error(&err);
		status = UI_EXIT_INPUT;
		goto out;
	}
	int ninst = files.n * c.nk, skipped = 0;
	todo = malloc((size_t)ninst * sizeof *todo);
	if (!todo) {
		ui_error("out of memory");
		status = UI_EXIT_INPUT;
		goto out;
	}
	ntodo = sc_testbed_plan(&files, &c, o->part_i, o->part_n, &rs, todo, &skipped);
	sc_testbed_records_fini(&rs);
	int fd = open(results, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0) {
		ui_error("bench: %s: %s", results, strerror(errno));
		status = UI_EXIT_INPUT;
		goto out;
	}
	fprintf(stderr,
	        "stagecut: bench: %d graph%s x %d k = %d instances%s, %d already in %s, %d to "
	        "run\n",
	        files.n, files.n == 1 ? "" : "s", c.nk, ninst,
	        o->part_n > 0 ? " (before --part)" : "", skipped, results, ntodo);
	ui_interrupts saved;
	ui_catch_interrupts(&saved);
	int jobs = o->jobs > 0 ? o->jobs : 1;
	if (jobs > ntodo)
		jobs = ntodo ? ntodo : 1;
	int failed = run_workers(todo, ntodo, &c, jobs, fd, results);
	close(fd);
	ui_release_interrupts(&saved);
	if (failed) {
		ui_error("bench: %d worker%s failed (could not write %s?)", failed,
		         failed == 1 ? "" : "s", results);
		status = UI_EXIT_INPUT;
	}
	/* the tables of everything recorded for this configuration */
	sc_testbed_read(results, false, &all, &err);
	sc_testbed_select(&all, c.key, &files, &rs, &err);
	for (int i = 0; i < rs.n; i++)
		if (json_object_get(rs.r[i], "error")) {
			ui_error("bench: %s", json_string_value(json_object_get(rs.r[i], "error")));
			status = UI_EXIT_INPUT;
		}
	report(&rs, o->json); /* as before: a failed JSON write does not change the status */
	if (ui_interrupted()) {
		ui_error("bench: interrupted; %d instance%s recorded in %s, a rerun goes on from "
		         "there",
		         rs.n, rs.n == 1 ? "" : "s", results);
		status = 130;
	}
out:
	sc_testbed_records_fini(&all);
	sc_testbed_records_fini(&rs);
	sc_testbed_files_fini(&files);
	free(todo);
	return status;
}
