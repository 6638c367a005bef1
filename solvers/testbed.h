/*
 * testbed.h - running a testbed (paper 000, Tables 1 and 2) as a library:
 * instances, their records, resuming, and the tables.
 *
 * An instance is one graph at one k.  Running it (sc_testbed_run) tries
 * every method of the configuration without refinement, as the paper
 * compares them, then the ladder's rungs against the best partition found,
 * and returns its record: one JSON object (graph, k, config key, name, ops,
 * simple, methods, rungs, upper, lower, proven_optimal, or error).  Records
 * are appended as single lines to a JSON-lines results file; a rerun skips
 * the instances recorded there under the same configuration key, so an
 * interrupted testbed resumes (sc_testbed_plan).  The tables are computed
 * from records into a struct (sc_testbed_tables) that the caller prints.
 *
 * The time budget: the time limit T holds for an instance as a whole,
 * loading, methods and rungs together (the record's "seconds" says what it
 * took).  When MIP rungs are asked for, the methods get the first half of
 * T and the rungs the rest; else the methods get all of it.  The methods
 * run one after the other, each with an even share of its phase's time
 * left (so time a quick method leaves goes to the ones after it); the MIP
 * rungs (bottleneck, guess, exact, cover) each get an even share of the
 * time left when the ladder starts, less SC_TESTBED_RUNG_OVERRUN, as the
 * ladder's per-rung limit (which its guess solves share, ladder.h), and a
 * rung's solves are killed a second past that.  As a last resort the
 * ladder is cancelled
 * SC_TESTBED_GRACE seconds past T (its rungs then report "cancelled" with
 * the bounds proven so far).  So an instance ends within about T plus a
 * second or two.  The exact DP's memory is c->dp_memory when set, so that
 * workers running side by side share the machine (ideals.h).
 *
 * Nothing here prints, exits or reads the command line: the command
 * (tui/cmd/cmd_bench.c) keeps the worker processes, the progress line and
 * the printing, and passes a stop callback for ^C.  Errors are sc_error
 * values whose text has no "bench: " prefix.  Neighbours: the searches
 * (search.h), the ladder on the job engine (ladder.h, jobs.h).
 */
#ifndef SC_TESTBED_H
#define SC_TESTBED_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/error.h"
#include "core/fleet.h"
#include "solvers/jobs.h"
#include "solvers/ladder.h"

#define SC_TESTBED_METHODS "random-1,random-100,brkga-100,brkga-10000,mla,mla-weighted,dpl,exact"
#define SC_TESTBED_KS "2,4,8,16"
#define SC_TESTBED_MAX_METHODS 16
#define SC_TESTBED_MAX_KS 32

/* The time budget (see above): the methods' part of it when MIP rungs
 * follow, the least a method or a rung is given, and how long past the
 * budget the ladder is cancelled. */
#define SC_TESTBED_METHODS_SHARE 0.5
#define SC_TESTBED_MIN_SHARE 0.05
#define SC_TESTBED_GRACE 2.0
/* What a MIP rung takes past its time limit to stop, about (measured on
 * samples/testbed: 0 to 1 s); each rung's share is that much shorter (a
 * quarter shorter at most). */
#define SC_TESTBED_RUNG_OVERRUN 0.5

/* Called about every 100 ms while work runs; returns true to stop it.
 * ctx is the caller's (the same type as sc_stop_fn of ladder.h). */
typedef sc_stop_fn sc_testbed_stop_fn;

/* Called as an instance's run enters a phase: "loading", a method's name
 * as given ("brkga-100"), "rungs", then the MIP rungs running ("rung
 * bottleneck", "rung guess 2/8"); phase is the callee's only during the
 * call.  Called on the thread that runs the instance. */
typedef void sc_testbed_phase_fn(void *ctx, const char *phase);

typedef struct sc_testbed_method {
	char name[32]; /* as given: "brkga-100" */
	char base[24]; /* the search method: "brkga" */
	long evals;    /* 0: the method's default */
} sc_testbed_method;

/* What a testbed runs.  Fill it with sc_testbed_config_init, the parsers
 * and the fields, then sc_testbed_config_key. */
#define SC_TESTBED_CPUS_FILE (-1)

typedef struct sc_testbed_config {
	sc_testbed_method m[SC_TESTBED_MAX_METHODS];
	int nm;
	int k[SC_TESTBED_MAX_KS];
	int nk;
	unsigned rungs;    /* 1u << sc_rung */
	double time_limit; /* seconds per instance, all of it (see above) */
	double dp_memory;  /* bytes the exact DP may take (0: ideals.h's budget) */
	uint64_t seed;
	/* overrides of every graph's settings, as -B, -M and --memory-policy */
	double bandwidth; /* > 0 overrides */
	double memory;    /* >= 0 overrides (INFINITY: unlimited) */
	int policy;       /* >= 0 overrides: an sc_mem_policy */
	int schedule;     /* >= 0 overrides: an sc_schedule (training graphs) */
	/* CPU stages beside the accelerators (001 section 3): 0 none, > 0 that
	 * many, SC_TESTBED_CPUS_FILE each graph's maxCPUs (0 without) */
	int cpus;
	/* the devices (core/fleet.h: names and counts, bound to each graph's
	 * op times as it is run), every instance's k their sum; fleet.n 0:
	 * none (the graph's own device, and cpus) */
	sc_fleet fleet;
	char key[512]; /* what a record must match to count as done */
} sc_testbed_config;

/* The defaults: no methods or ks yet, every rung, 60 s per instance, seed
 * 1, no overrides, the DP's default memory. */
void sc_testbed_config_init(sc_testbed_config *c);

/* Parses "name" or "name-EVALS" for every name of the comma-separated list
 * into c->m.  SC_ERR_INPUT ("--methods: ...") for an unknown method, refine
 * or best, a bad count, more than SC_TESTBED_MAX_METHODS or none. */
sc_status sc_testbed_parse_methods(const char *list, sc_testbed_config *c, sc_error *err);

/* Parses the comma-separated list of ks into c->k.  SC_ERR_INPUT ("-k: ...")
 * for a bad number or too many; SC_ERR_INPUT with an empty message for a
 * list without numbers (such as ","). */
sc_status sc_testbed_parse_ks(const char *list, sc_testbed_config *c, sc_error *err);

/* Sets c->key from the methods and rungs as given (the texts of --methods
 * and --rungs, or NULL for the defaults), c->time_limit and c->seed. */
void sc_testbed_config_key(sc_testbed_config *c, const char *methods, const char *rungs);

/* ---- instances ---------------------------------------------------------- */

/* A list of graph files; fini frees the paths. */
typedef struct sc_testbed_files {
	char **path;
	int n, cap;
} sc_testbed_files;

/* Adds path, or the .dot, .gv and .json files of the directory path (sorted
 * by name, hidden files skipped), to f; *added (may be NULL) gets how many
 * were added (0 for a directory without graph files, which is not an
 * error).  SC_ERR_IO ("PATH: strerror") when path cannot be read,
 * SC_ERR_NOMEM. */
sc_status sc_testbed_add_path(sc_testbed_files *f, const char *path, int *added, sc_error *err);
void sc_testbed_files_fini(sc_testbed_files *f);

typedef struct sc_testbed_instance {
	const char *path; /* borrowed */
	int k;
} sc_testbed_instance;

/* ---- records ------------------------------------------------------------- */

/* Records in file order; each holds a reference, which fini drops. */
typedef struct sc_testbed_records {
	json_t **r;
	int n, cap;
} sc_testbed_records;

/* Appends the records of the JSON-lines file path to rs.  A missing file is
 * empty unless must_exist; a last line without its newline (what an
 * interrupted write leaves) is ignored.  SC_ERR_INPUT ("PATH:LINE: not a
 * stagecut bench record...") for a line that is not a record, SC_ERR_IO,
 * SC_ERR_NOMEM; rs keeps the records read before the fault. */
sc_status sc_testbed_read(const char *path, bool must_exist, sc_testbed_records *rs, sc_error *err);

/* Appends rec to rs, taking over the caller's reference (also on failure,
 * when it is dropped).  SC_ERR_NOMEM. */
sc_status sc_testbed_push(sc_testbed_records *rs, json_t *rec, sc_error *err);

/* Drops every record's reference and frees the array; rs is then empty. */
void sc_testbed_records_fini(sc_testbed_records *rs);

/* Whether rs holds a record of inst (same graph path and k) under key. */
bool sc_testbed_recorded(const sc_testbed_records *rs, const sc_testbed_instance *inst,
                         const char *key);

/* The instances still to run: every file at every k of c, file by file,
 * keeping with part_n > 0 only every part_n-th (counting from part_i,
 * 1-based), and leaving out those done records under c->key.  todo must
 * hold files->n * c->nk instances (their paths borrowed from files);
 * returns how many it filled and sets *skipped to how many were done. */
int sc_testbed_plan(const sc_testbed_files *files, const sc_testbed_config *c, int part_i,
                    int part_n, const sc_testbed_records *done, sc_testbed_instance *todo,
                    int *skipped);

/* The records of all under key whose graph is one of files, into out (new
 * references, in all's order).  SC_ERR_NOMEM. */
sc_status sc_testbed_select(const sc_testbed_records *all, const char *key,
                            const sc_testbed_files *files, sc_testbed_records *out, sc_error *err);

/* Runs inst under c with at most mip_slots MIP solves at a time (0: one
 * per core) within c->time_limit (see above) and returns its record (the
 * caller owns the reference).  A graph that cannot be loaded or a ladder
 * that cannot start gives a record with "error".  stop (may be NULL) is
 * asked between methods, inside each search (also from its threads and
 * within a step of the exact DP) and while the ladder runs; once it
 * returns true the run stops, within a fraction of a second, and NULL is
 * returned.  phase (may be NULL) hears what the run is doing.  Both get
 * ctx.  Not thread-safe with other runs sharing ctx; each run uses its own
 * engine. */
json_t *sc_testbed_run(const sc_testbed_instance *inst, const sc_testbed_config *c, int mip_slots,
                       sc_testbed_stop_fn *stop, sc_testbed_phase_fn *phase, void *ctx);

/* Appends rec as one line to fd in a single write (with O_APPEND, lines of
 * several processes stay whole).  SC_ERR_IO, SC_ERR_NOMEM. */
sc_status sc_testbed_append(int fd, const json_t *rec, sc_error *err);

/* ---- tables -------------------------------------------------------------- */

#define SC_TESTBED_TABLE_KS 64
#define SC_TESTBED_TABLE_METHODS 64
#define SC_TESTBED_TABLE_RUNGS 8

/* One row: a method or a rung, its geometric mean ratio per k of the
 * tables (NAN where no instance gave one). */
typedef struct sc_testbed_row {
	const char *name; /* borrowed from the records */
	double ratio[SC_TESTBED_TABLE_KS];
	int instances;         /* how many ratios the row averaged over */
	double median_seconds; /* over every record; NAN when none */
} sc_testbed_row;

/* The tables of a set of records.  Names are borrowed from the records,
 * which must outlive the tables. */
typedef struct sc_testbed_tables {
	int records;
	int ks[SC_TESTBED_TABLE_KS]; /* distinct ks, ascending */
	int nk;
	/* Table 1: each rung's value / the record's upper bound */
	sc_testbed_row rungs[SC_TESTBED_TABLE_RUNGS];
	int nr;
	/* Table 2: each method's bottleneck / the simple bound */
	sc_testbed_row methods[SC_TESTBED_TABLE_METHODS];
	int nm;
	int usable; /* records with a simple bound and no error */
	int proven[SC_TESTBED_TABLE_KS], of[SC_TESTBED_TABLE_KS]; /* per k */
	int proven_all, of_all;
} sc_testbed_tables;

/* Computes the tables of rs (rows in the order names first appear;
 * geometric means count only positive finite ratios).  Never fails. */
void sc_testbed_tables_compute(const sc_testbed_records *rs, sc_testbed_tables *t);

/* The tables as the JSON object of `bench --json` (instances, table1,
 * table2, median_seconds, proven_optimal); NULL when out of memory. */
json_t *sc_testbed_tables_json(const sc_testbed_tables *t);

#endif
