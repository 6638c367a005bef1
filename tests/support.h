/*
 * support.h - helpers shared by the unit and command-line tests: random
 * graphs, a brute-force optimum, running the built program, and (for
 * tests/cli/) a scratch directory, JSON accessors and an independent cost
 * model to check reports against.
 */
#ifndef SC_TEST_SUPPORT_H
#define SC_TEST_SUPPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/graph.h"
#include "core/fleet.h"
#include "core/partition.h"

/* A small deterministic PRNG (splitmix64) so tests are reproducible. */
typedef struct ts_rng {
	uint64_t s;
} ts_rng;
uint64_t ts_next(ts_rng *r);
double ts_uniform(ts_rng *r);   /* [0, 1) */
int ts_below(ts_rng *r, int n); /* 0 .. n-1 */

/* Options for ts_random_graph. */
typedef struct ts_graph_spec {
	int n;                /* ops */
	double edge_p;        /* probability of each forward edge i -> j, i < j */
	double group_p;       /* probability that an op joins a random group */
	int ngroups;          /* number of group names to draw from */
	bool integer_weights; /* small integers instead of reals (exact sums) */
	sc_settings settings;
} ts_graph_spec;

/* A random DAG (edges go from lower to higher index, so it is acyclic;
 * ops are added in a shuffled order so indices do not equal topological
 * positions).  Groups are only joined when that keeps the graph acyclic
 * under contraction is NOT guaranteed: tests that need a feasible grouped
 * graph use ts_brute_optimum's result, which is INFINITY when none exists. */
sc_graph *ts_random_graph(ts_rng *r, const ts_graph_spec *spec);

/* A random training graph of spec->n ops (DESIGN.md section 1, training
 * graphs): about half forward ops, a random DAG among them as
 * ts_random_graph draws it; the rest backward ops, most in the group of a
 * forward op (the one whose weights they update), some orphans (no group,
 * or a group of backward ops only); edges forward to forward, forward to
 * backward and backward to backward, never backward to forward.  Ops are
 * added in a shuffled order. */
sc_graph *ts_random_training_graph(ts_rng *r, const ts_graph_spec *spec);

/* Whether stage[] (0-based) is a valid partition into k stages by the
 * rules of DESIGN.md section 1, written here apart from the program's
 * order arcs: every stage in range, groups whole, an edge between forward
 * ops never goes to an earlier stage, an edge between backward ops one of
 * which is an orphan (its group, if any, holds no forward op) never to a
 * later one. */
bool ts_valid(const sc_graph *g, const int *stage, int k);

/* The optimum over every valid partition (ts_valid) into k stages (the
 * objective, INFINITY when the hard memory limit makes all infeasible), by
 * enumerating all k^n assignments.  n must be small (k^n <= ~2e6).  When
 * best is not NULL it receives an optimal assignment. */
double ts_brute_optimum(const sc_graph *g, int k, int *best);

/* The same under an explicit schedule (the objective: the bottleneck for
 * 1F1B, max forward cost + max backward cost for GPipe, both from
 * ts_costs). */
double ts_brute_optimum_sched(const sc_graph *g, int k, sc_schedule sched, int *best);

/* The same over the partitions that put every op v with pin[v] >= 0 in
 * stage pin[v] (pin NULL: none). */
double ts_brute_optimum_pinned(const sc_graph *g, int k, sc_schedule sched, const int *pin,
                               int *best);

/* CPU stages (001 section 3).  A copy of g whose ops get random
 * CPU times (integers 0..9 with integer_weights, else reals in [0, 10),
 * and 0 wherever the op's work is 0 half of the time, so that contraction
 * has zero-time units to join), with probability no_cpu_p no CPU time, and
 * with probability no_accel_p no accelerator (never both). */
sc_graph *ts_with_cpu_times(ts_rng *r, const sc_graph *g, bool integer_weights, double no_cpu_p,
                            double no_accel_p);

/* The optimum with up to L CPU stages beside k accelerator stages, by
 * enumeration apart from the solvers: for every order of k accelerator
 * and L CPU stages (each may stay empty) and every assignment of the ops
 * to those k + L stages that ts_valid accepts, a CPU stage costs the sum
 * of its ops' CPU times (no io, no memory limit) and must hold only ops
 * with one; an accelerator stage costs as ts_costs says (its io counts
 * tensors to and from CPU stages too) and holds only ops it supports,
 * within the hard memory limit.  The objective is the bottleneck (the
 * 1F1B schedule on a training graph).  (k + L)^n * C(k + L, L) must stay
 * small.  best and best_cpu (k + L flags) may be NULL. */
double ts_brute_optimum_cpus(const sc_graph *g, int k, int L, int *best, bool *best_cpu);

/* The bottleneck of stage[] (k + L stages, cpu[] the CPU ones) by the
 * model ts_brute_optimum_cpus uses, INFINITY when a stage breaks its
 * device or the hard memory limit; NAN when ts_valid rejects it. */
double ts_cpu_bottleneck(const sc_graph *g, const int *stage, const bool *cpu, int K);
/* ts_cpu_bottleneck for kinds as the solvers give them with CPU stages
 * (fleet.h: 0 an accelerator, 1 a CPU). */
double ts_kind_bottleneck(const sc_graph *g, const int *stage, const int *kind, int K);

/* The kinds of CPU flags cpu[0..n) as the solvers take them (fleet.h: 0
 * an accelerator, 1 a CPU), in a buffer of the caller's (n entries). */
int *ts_kinds_of(const bool *cpu, int n, int *kind);

/* Whether stage[] with the CPU stages cpu[] is valid for its devices
 * (sc_part_check_kinds on the fleet of the graph's device and CPUs). */
bool ts_part_check_cpus(const sc_graph *g, const int *stage, int K, const bool *cpu,
                        sc_violation *viol);

/* The optimum of g at k accelerator and L CPU stages by the exact DP with
 * CPU stages (sc_cpu_exact, without balancing): the oracle of the CPU
 * tests, itself checked against ts_brute_optimum_cpus in test_cpu_exact. */
double ts_cpu_optimum(const sc_graph *g, int k, int L);

/* Devices of several kinds (support_kinds.c).  The objective of stage[]
 * with kind[] (K stages, indices into f, a resolved fleet) by the model of
 * fleet.h written apart from cost.c: each stage its kind's op times, io
 * over its own link and overflow against its memory (a CPU: its times
 * alone); the bottleneck, or under sched GPipe on a training graph the
 * largest forward plus the largest backward cost; INFINITY when an op
 * sits on a kind that may not run it or a stage breaks the hard limit;
 * NAN when ts_valid rejects stage. */
double ts_kinds_objective(const sc_graph *g, const sc_fleet *f, const int *stage, const int *kind,
                          int K, sc_schedule sched);

/* The least ts_kinds_objective over every arrangement of f's kinds along
 * the pipeline and every assignment of the ops that ts_valid accepts and
 * that puts every op v with pin[v] >= 0 (pin may be NULL) in stage
 * pin[v].  K^n times the arrangements must stay small (K <= 16). */
double ts_brute_kinds(const sc_graph *g, const sc_fleet *f, const int *pin, sc_schedule sched);

/* The oracle of the MIP relaxations (support_mip.c): the three-block
 * model's optimum by enumeration over every assignment of the ops to
 * blocks 0, 1, 2 that ts_valid accepts as a 3-stage partition, the middle
 * doing at least L: guess 0 is the bottleneck model (000 section 3.2),
 * guess j in 1..k the guess model with the middle block as stage j of k
 * (section 3.3), the outer blocks' costs averaged over their stages.  On
 * an inference or a training graph alike. */
double ts_three_block_brute(const sc_graph *g, int k, int guess, double L);

/* The simple bound the MIPs use, on the contracted units (units.h): the
 * largest unit's work or the total over k, whichever is larger; *merged
 * (when not NULL) says whether the safe rules merged any unit. */
double ts_unit_bound(const sc_graph *g, int k, bool *merged);

/* How many trials a randomized test makes: n, or a tenth of it (at least
 * 1) when STAGECUT_TEST_SHORT is set, as in the sanitizer run of `make
 * test`, where each solver process costs many times more. */
int ts_trials(int n);

/* Is STAGECUT_TEST_SHORT set?  Tests over many reference instances check
 * a part of them there (the full run checks them all). */
bool ts_short(void);

/* Loads a file or fails the current test. */
sc_graph *ts_load(const char *path);

/* Runs `sh -c cmd`, capturing stdout and stderr into malloc'd strings (the
 * caller frees them; either pointer may be NULL to discard).  Returns the
 * exit status, or -1 if the command could not be run. */
int ts_run(const char *cmd, char **out, char **err);

/* Starts `sh -c cmd` in a child process and returns its pid (the test
 * fails when it cannot fork), for a test that signals a running command
 * and then waits for it; own_group puts the child in a process group of
 * its own (a ^C sent to the group, as a terminal sends it). */
pid_t ts_spawn(const char *cmd, bool own_group);

/* The program under test: $STAGECUT, else "./stagecut". */
const char *ts_program(void);

/* Runs "PROGRAM ARGS" with ARGS formatted printf-style, capturing as
 * ts_run does; returns the exit status or fails the test when the command
 * cannot be run. */
int ts_runf(char **out, char **err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The whole file, NUL-terminated (malloc'd; *len, when not NULL, gets its
 * size), or NULL when it cannot be read. */
char *ts_slurp(const char *path, size_t *len);

/* A new scratch directory /tmp/PREFIX-XXXXXX into dir (at least 64 bytes),
 * or fails the test; ts_remove_dir removes it and all it holds. */
void ts_make_dir(char *dir, const char *prefix);
void ts_remove_dir(const char *dir);

/* ---- for the command-line tests (tests/cli/) ----------------------------- */

#include <jansson.h>

#include "core/cost.h"

/* A scratch directory per test: a suite's .init (ts_scratch_init) makes
 * /tmp/sc-cmd-XXXXXX into ts_dir, its .fini (ts_scratch_fini) removes it.
 * Criterion runs each test in its own process, so one global serves all. */
extern char ts_dir[64];
void ts_scratch_init(void);
void ts_scratch_fini(void);

/* The path of name in ts_dir, into buf; returns buf. */
const char *ts_tpath(char *buf, size_t size, const char *name);

/* Writes text to path, or fails the test. */
void ts_write_text(const char *path, const char *text);

/* Runs "PROGRAM ARGS", expects one JSON object (and nothing else) on stdout
 * and an exit status in [lo, hi] (else fails the test); returns the object
 * (the caller decrefs it) and the status in *status. */
json_t *ts_json_of(int lo, int hi, int *status, const char *args);

/* As ts_json_of with ARGS formatted printf-style and exactly status want. */
json_t *ts_run_json(int want, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Member key of o (borrowed), or fails the test when it is missing or, for
 * the typed ones, of another type. */
json_t *ts_jget(json_t *o, const char *key);
double ts_jnum(json_t *o, const char *key);
long long ts_jint(json_t *o, const char *key);
bool ts_jbool(json_t *o, const char *key);
const char *ts_jstr(json_t *o, const char *key);

/* The keys of the man page's "CMD --json" list (.SS CMD \-\-json), in its
 * order, into keys[0..max); returns how many. */
/* support_json_keys.c: JSON documents against stagecut(1)'s key tables
 * (JSON OUTPUT, "Keys, types and null").  ts_json_keys_check asserts that
 * every key of root has a row in table doc with its type, and is null only
 * where the row allows (what names the run in messages);
 * ts_json_keys_doc gives the table of a command line's command (NULL for
 * none); ts_json_keys_unseen writes the rows no check has used in this
 * process into buf and returns how many there are. */
void ts_json_keys_check(const char *doc, json_t *root, const char *what);
const char *ts_json_keys_doc(const char *args);
int ts_json_keys_unseen(char *buf, size_t size);
/* ts_runf's check: when args (a command line) has --json and text (its
 * stdout, or NULL) is a JSON object, checks it against the table of args'
 * command; then hands text to *out, or frees it when out is NULL.  Every
 * JSON document a test makes the program print is so checked, read or
 * not. */
void ts_json_keys_check_output(const char *args, char *text, char **out);
/* Counts the row doc:key as used (a key no cheap run writes); false when the
 * tables have no such row. */
bool ts_json_keys_excuse(const char *doc, const char *key);

int ts_man_json_keys(const char *cmd, char keys[][40], int max);

/* Every key of o is in keys[0..n), in that order, and every key of the list
 * but those of optional (NULL-terminated) is in o; "costs" (JSON OUTPUT) may
 * end it. */
void ts_assert_man_order(json_t *o, char keys[][40], int n, const char *const *optional,
                         const char *what);

/* |a - b| <= rel * max(1, |a|, |b|). */
bool ts_close_rel(double a, double b, double rel);

/* One stage's costs by an implementation of the model independent of
 * core/cost.c (DESIGN.md section 1), to check the program's reports. */
typedef struct ts_cost {
	int ops;
	double work, param, in_bytes, out_bytes, io_in, io_out, overflow, cost;
	bool over;
	/* training: the backward ops' work, the time of the tensors backward
	 * ops produce (in and out), cost_bw their sum, cost_fw the rest */
	double work_bw, cost_fw, cost_bw;
	double io_in_bw, io_out_bw; /* the io part of cost_bw, in and out */
} ts_cost;

/* Per-stage costs of stage[] (0-based, k stages) into c[0..k): a tensor
 * counts once per stage that reads it from outside, and once in its
 * producer's io out however many other stages read it. */
void ts_costs(const sc_graph *g, const int *stage, const sc_settings *set, int k, ts_cost *c);

/* The bottleneck of c[0..k) and its lowest 0-based stage in *at. */
double ts_bottleneck(const ts_cost *c, int k, int *at);

/* max over stages of cost_fw + max over stages of cost_bw. */
double ts_gpipe(const ts_cost *c, int k);

/* Reads the partition file at path for g (asserting its format and k) into
 * stage[] (0-based), or fails the test. */
void ts_read_partition(const char *path, const sc_graph *g, int k, int *stage);

/* Fails the test unless stage[] is a valid partition into k stages (every
 * stage in range, no edge going back, groups whole). */
void ts_assert_valid(const sc_graph *g, const int *stage, int k, const char *what);

/* Fails the test unless a JSON "stages" array matches c[0..k) to 1e-9. */
void ts_assert_stages_match(json_t *stages, const ts_cost *c, int k, const char *what);

/* A stage's costs derived by hand (io in time units; bytes = io x bw). */
typedef struct ts_hand_stage {
	int ops;
	double work, io_in, io_out, overflow, param;
	bool over;
} ts_hand_stage;

/* Fails the test unless root's "stages", "bottleneck" and
 * "bottleneck_stage" equal the hand table h[0..k) at bandwidth bw exactly
 * (cost = io_in + work + io_out + overflow). */
void ts_assert_hand_stages(json_t *root, const ts_hand_stage *h, int k, double bw,
                           const char *what);

/* Partition files (their text) for samples/paper/figure2.dot: its own
 * partition (5 / 8 / 5) and four stages with the third empty; and for
 * samples/small/residual.dot, two stages. */
extern const char ts_fig2_own[], ts_fig2_p4[], ts_residual_two[];

#endif

/* Terminal tests drive the real program in a detached tmux session. */
typedef struct ts_tmux {
	char name[64];
} ts_tmux;

/* Starts `cmd` in a new tmux session of cols x rows; when it exits the pane
 * shows "EXIT=<status>".  env is a string of VAR=value assignments or "". */
void ts_tmux_start(ts_tmux *t, int cols, int rows, const char *env, const char *cmd);

/* Sends keys (tmux send-keys syntax, e.g. "q" or "Down"). */
void ts_tmux_keys(ts_tmux *t, const char *keys);

/* The screen's text, malloc'd. */
char *ts_tmux_screen(ts_tmux *t);

/* Waits up to seconds until the screen contains text; returns the screen
 * (malloc'd) or fails the test showing the last screen. */
char *ts_tmux_wait(ts_tmux *t, const char *text, double seconds);

/* Resizes the window. */
void ts_tmux_resize(ts_tmux *t, int cols, int rows);

/* Kills the session. */
void ts_tmux_stop(ts_tmux *t);

/* Waits for text as ts_tmux_wait does, then until two captures 100 ms
 * apart agree (at most 3 s), so that a screen caught half redrawn is not
 * read; returns the last capture (malloc'd). */
char *ts_tmux_settled(ts_tmux *t, const char *text, double seconds);

/* Waits up to seconds until the workbench's title row says "idle" (its
 * first search and ladder over, so no message of theirs can replace one
 * a key is about to bring); returns the screen (malloc'd). */
char *ts_tmux_idle(ts_tmux *t, double seconds);

/* Sends q and waits for the program to exit with status 0, then stops. */
void ts_tmux_quit(ts_tmux *t);

/* The first line of s with every run of spaces made one and no space at
 * either end, into out. */
void ts_squeeze(const char *s, char *out, size_t size);

/* The line of screen s holding text, squeezed, into out ("" when no line
 * holds it); returns out. */
char *ts_line_of(const char *s, const char *text, char *out, size_t size);

/* Whether some line of screen s squeezes to want. */
bool ts_has_line(const char *s, const char *want);

/* The solvers' unit tests (one file per module: test_search.c, test_brkga.c,
 * test_ideals.c, test_refine.c, test_jobs.c, test_ladder.c) share these. */

/* Runs method (NULL: the default) on g with k stages, seed and an evaluation
 * budget (0: the method's own) to the end, failing the test on an error;
 * returns the result and fills stage and *optimal (either may be NULL). */
double ts_search(const sc_graph *g, int k, const char *method, uint64_t seed, long evals,
                 int *stage, bool *optimal);

/* The objective of stage, a partition of g into k stages, by core's cost
 * model; fails the test when the partition is invalid. */
double ts_objective(const sc_graph *g, int k, const int *stage);

/* Runs ladder l on engine e to its end (sc_engine_run_until, turns at
 * most 100 ms apart for the ladder's own deadlines, which no job
 * reports). */
struct sc_ladder;
struct sc_engine;
void ts_run_ladder(struct sc_ladder *l, struct sc_engine *e);

/* Fails the test when a child of this process is left behind (a zombie or
 * still running): every solver process must have been reaped. */
void ts_assert_no_children(void);

/* The Graphviz layer's tests (test_viz.c, test_canvas.c) share these. */
struct sc_quotient;
struct sc_layout;

/* The quotient of g under stage with g's settings and k stages. */
struct sc_quotient *ts_quotient_of(const sc_graph *g, int k, const int *stage);

/* The quotient of the paper's Figure 2 under its own partition (k = 3). */
struct sc_quotient *ts_figure2_quotient(void);

/* A line of n ops (op i -> op i+1, out(i) = i + 1) cut into k stages of
 * consecutive ops; the stages are malloc'd into *stage. */
sc_graph *ts_chain_graph(int n, int k, int **stage);

/* The dot layout of q with title as its caption (NULL: none). */
struct sc_layout *ts_layout_of(const struct sc_quotient *q, const char *title);
