/*
 * ui.h - what both rooms of tui/ share: the parsed options (ui_opts), exit
 * statuses, printing errors, loading the graph with the command line's
 * settings applied, search parameters from the options, rung lists, the
 * stage table, and the ^C flag.  Nothing here calls into tui/cmd/ or
 * tui/wb/.
 *
 * tui/ holds everything that talks to a person, in two rooms: tui/cmd/ (the
 * command table, option parsing and the batch commands) and tui/wb/ (the
 * ncurses workbench).  Both include this file; it includes neither, and
 * tui/wb/ never includes tui/cmd/ (tui/cmd/cli.c starts the workbench).
 */
#ifndef UI_UI_H
#define UI_UI_H

#include <stdbool.h>
#include <stdio.h>

#include "core/fleet.h"
#include "core/formats/devices_file.h"
#include "core/partition.h"
#include "core/graph.h"
#include "core/formats/onnx.h"
#include "solvers/search.h"

/* 3: a search found no partition that fits, and none is proven impossible
 * (solve; 1 is for a proof that none fits) */
enum { UI_EXIT_OK = 0, UI_EXIT_INFEASIBLE = 1, UI_EXIT_INPUT = 2, UI_EXIT_UNDECIDED = 3 };

#define UI_MAX_DIMS 32
#define UI_CPUS_FILE (-2) /* --cpus file */
#define UI_MAX_PINS 1024

typedef struct ui_opts {
	int k;               /* 0 = not given */
	double bandwidth;    /* 0 = not given */
	double memory;       /* < 0 = not given; INFINITY = unlimited */
	int policy;          /* -1 = not given, else an sc_mem_policy */
	int schedule;        /* -1 = not given, else an sc_schedule */
	int cpus;            /* --cpus: -1 = not given, UI_CPUS_FILE = the file's maxCPUs */
	const char *devices; /* --devices SPEC or FILE as given, or NULL */
	/* the command takes CPU stages under the GPipe schedule (solve and
	 * bounds: the searches, the exact DP and the ladder do); the others
	 * refuse them (ui_cpus_settings) */
	bool gpipe_cpus;
	sc_fleet fleet; /* --devices parsed (names and counts) */
	/* --devices FILE: what it says of each kind beyond its name, count,
	 * memory and link (fleet.kind[d]'s profile and times; "" none) */
	sc_devices_file devfile;
	bool devices_file; /* --devices named a devices file */
	/* --times KIND=FILE as given (borrowed from argv), in order; then, once
	 * the options are read, kind_times[d] the FILE of fleet.kind[d] or NULL */
	int ntimes_kind;
	const char *times_kind[SC_KINDS_MAX];
	const char *kind_times[SC_KINDS_MAX];
	bool training;  /* --training: the training graph of a forward graph */
	int optimizer;  /* --optimizer: -1 = not given, else an sc_optimizer */
	double reserve; /* --memory-reserve: bytes; 0 = none */
	bool json;
	const char *output; /* -o */
	/* solve and gen */
	const char *method;
	unsigned long long seed;
	double time_limit;  /* 0 = none */
	double search_time; /* bounds: --search-time; 0 = from --time (ui_budget_of) */
	double rung_time;   /* bounds: --rung-time; 0 = from --time (ui_budget_of) */
	long evals;         /* 0 = the method's default */
	int population, generations;
	double elite, mutants, bias; /* < 0 = default */
	long ideal_limit;            /* 0 = default */
	bool no_refine;
	bool no_proof;         /* solve: --no-proof (no exact MIP after the search) */
	bool proof;            /* solve: --proof (the exact MIP after any method) */
	const char *partition; /* --partition: a starting partition */
	int npins;             /* solve: --pin OP=STAGE, borrowed from argv */
	const char *pins[UI_MAX_PINS];
	int align;  /* solve: --align DEPTH; 0 = none */
	int nodes;  /* gen: 0 = not given */
	int layers; /* gen: 0 = not given */
	const char *model;
	const char *rungs; /* bounds: --rungs */
	bool all_rungs;    /* bounds: --all-rungs (no stop at proof) */
	/* render */
	const char *format; /* -T */
	bool full;
	int max_ops;        /* 0 = default */
	int depth;          /* --depth N: modules deeper than N collapsed (0 = none) */
	int page_ops;       /* --page-ops N: boxes a page (-1 = default, 0 = one page) */
	const char *bounds; /* --bounds FILE */
	bool timeline;      /* eval, render: --timeline */
	int batches;        /* --microbatches (--batches): 0 = default (memory: k; timeline: 2k) */
	/* bench */
	const char *klist;   /* -k as given: "2,4,8" */
	const char *methods; /* --methods */
	int jobs;
	int part_i, part_n; /* --part I/N; 0 = all */
	bool merge;
	/* ONNX models: --device and --dim NAME=N */
	const char *device;
	const char *precision; /* --precision */
	const char *times;     /* --times FILE (every format; KIND=FILE: times_kind) */
	int ndims;
	long long dim_value[UI_MAX_DIMS];
	char dim_name[UI_MAX_DIMS][128]; /* copies: ui_opts may be copied */
	int npos;
	char **pos;     /* positional arguments (borrowed from argv) */
	double started; /* sc_clock_now() when the options were read: -t counts from it */
} ui_opts;

/* Applies the options that override settings (-k, -B, -M, --memory-policy,
 * --schedule, --cpus L but not --cpus file, which ui_load resolves) to s. */
void ui_opts_apply(const ui_opts *o, sc_settings *s);

/* When -t runs out (sc_clock_now() time: o->started plus --time), or 0
 * without --time.  -t bounds a command's whole run, loading included. */
double ui_deadline(const ui_opts *o);

/* The time budgets of a command that searches, then climbs the ladder
 * (bounds), each a field of its own, so that no command copies
 * --time into one and takes it back. */
typedef struct ui_budget {
	double deadline; /* ui_deadline: the whole run, loading included; 0 = none */
	double search;   /* the search's limit: --search-time, else a quarter of
	                  * --time; 0 = none */
	double rung;     /* each MIP rung's limit: --rung-time, else --time;
	                  * 0 = none */
} ui_budget;

/* o's budgets (above), at the clock of o->started. */
ui_budget ui_budget_of(const ui_opts *o);

/* The time limit to give a search starting now under b: b->search, cut
 * to what the deadline leaves (at least 0.1 s, so a search always makes
 * a partition); 0 (none) when b has neither. */
double ui_budget_search_now(const ui_budget *b);

/* Fills p with the search defaults (sc_search_params_init) overridden by
 * o's search options: --method, --seed, --evals, the BRKGA parameters,
 * --ideal-limit and --no-refine.  An option a command does not take is
 * unset in o and leaves the default.  Not --time: it bounds the whole
 * command (ui_deadline), and each command gives its search the share it
 * decides (solve what loading left, bounds a quarter at most). */
void ui_search_params(const ui_opts *o, sc_search_params *p);

/* The exit status for a failed library call: UI_EXIT_INFEASIBLE for
 * SC_ERR_INVALID (a partition that breaks the stage order, a group or a
 * hard memory limit), UI_EXIT_INPUT for everything else. */
int ui_exit_status(sc_status st);

/* Prints "stagecut: MESSAGE" on stderr, then a newline; MESSAGE is fmt
 * formatted (quoted names bounded: sc_msg_vformat) with newlines, control
 * characters (ESC, TAB; the C1 controls U+0080-U+009F as the bytes of
 * their UTF-8, \xc2\xHH) and bytes that are not UTF-8 escaped as \n, \t,
 * \xHH, so it is one line of plain text whatever names from the input it
 * quotes. */
void ui_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints one line of a report on stdout, escaped as ui_error escapes (fmt
 * holds no newline; one is added): for every line that quotes an op, group,
 * graph or file name, so that a graph file cannot send terminal escapes. */
void ui_print_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Loads path (an inference or a training graph) and applies o's setting
 * overrides.  On failure prints the error and returns NULL; *status is
 * then the exit status to use. */
sc_graph *ui_load(const char *path, const ui_opts *o, int *status);

/* Loads path with o's --device, --dim, --times and the kinds of --devices
 * with their profiles and measured times (sc_load_with) and fills report
 * (onnx.h) for an ONNX model; the caller finis it.  Warns on stderr about ops
 * of unknown cost and --dim names the model does not use; returns NULL with
 * err set on failure, printing nothing else. */
sc_graph *ui_load_file(const char *path, const ui_opts *o, sc_onnx_report *report, sc_error *err);

/* ui_load_file, then o's settings as ui_load applies them, printing any error */
sc_graph *ui_load_report(const char *path, const ui_opts *o, sc_onnx_report *report, int *status);

/* --cpus on a loaded graph whose settings o applied to (CPU stages): --cpus
 * file sets settings.cpus to the file's maxCPUs, refused when it gives
 * none; CPU stages under the GPipe schedule of a training graph are
 * refused unless o->gpipe_cpus.  False after a message.  (ui_load and ui_load_report do this,
 * and refuse a graph with ops no accelerator may hold without --cpus.) */
bool ui_cpus_settings(sc_graph *g, const ui_opts *o);

/* The devices on a loaded graph whose settings o applied to: --cpus
 * (ui_cpus_settings), and --devices, each kind's op times (loaded with the
 * graph by ui_load_file: an ONNX model's from its device profile, measured
 * ones from --times KIND=FILE or the devices file) checked against the
 * graph.  False after a message. */
bool ui_graph_devices(sc_graph *g, const ui_opts *o);

/* The devices of a partition file, as sc_part_load_kinds read them from
 * path (f the fleet, kind[0..k) each stage's kind, NULL: all kind 0).
 * Without --cpus the file's devices stand (eval's rule); a --cpus L (or
 * file) below the file's number of CPU stages is refused, and so are CPU
 * stages under the GPipe schedule of a training graph.  Messages begin
 * "cmd: path: ".  Returns false after a message (exit status 2). */
bool ui_check_part_kinds(const char *cmd, const char *path, const sc_graph *g, const sc_fleet *f,
                         const int *kind, int k, const ui_opts *o);

/* A partition file with its devices as a command reads it: the fleet of
 * --devices when given (o), else the file's own (sc_part_load_kinds; its
 * results and statuses).  A --devices the graph cannot resolve is
 * SC_ERR_INPUT, its message beginning "cmd: ". */
sc_status ui_part_load_devices(const char *cmd, const ui_opts *o, const sc_graph *g,
                               const char *path, int *k, int *stage, sc_fleet *fleet, int **kind,
                               sc_violation *viol, sc_error *err);

/* A partition file as the workbench takes it (sc_part_load_kinds with
 * the file's own devices): the graph's device and CPU stages, their kinds
 * into *kind (malloc'd, k of them: 0 the graph's device, 1 a CPU), or
 * NULL when none is a CPU; the fleet they index into *fleet (may be
 * NULL).  A file naming other kinds of device is SC_ERR_INPUT: the
 * workbench does not take them yet (eval and render do). */
sc_status ui_part_load_cpus(const char *path, const sc_graph *g, int want_k, int *k_out, int *stage,
                            int **kind, sc_fleet *fleet, sc_error *err);

/* Settles set (no --devices: set->fleet NULL) on the fleet a partition
 * file gave (sc_part_load_kinds): the graph's device and CPUs stay the
 * plain settings, CPUs counted in set->cpus (so reports name them "accel"
 * and "cpu" as 001 does); any other kind makes f set's fleet (borrowed:
 * f must outlive set's use). */
void ui_settings_fleet(sc_settings *set, const sc_graph *g, const sc_fleet *f);

/* Prints a JSON value to stdout with the shared flags, then a newline, and
 * frees it.  Returns false (after printing an error) when out of memory. */
#include <jansson.h>
bool ui_print_json(json_t *v);

/* Where g's work came from, for every report: "costs: ORIGIN" as one line
 * on stdout (ui_print_costs) or a "costs" key of root (ui_json_costs), when
 * the work is modelled or measured (g->cost_origin); nothing when every
 * op's work is the file's own number. */
void ui_print_costs(const sc_graph *g);
void ui_json_costs(json_t *root, const sc_graph *g);

/* The extension of path's file name without the dot ("png" for
 * "out/a.b/pic.png"), or NULL when it has none. */
const char *ui_file_extension(const char *path);

/* Formats x with a width-independent "%.6g"-like precision into buf. */
const char *ui_num(double x, char *buf, size_t size);

#include <signal.h>

#include "solvers/ladder.h"

/* Between ui_catch_interrupts and ui_release_interrupts, ^C (SIGINT) and
 * SIGTERM only raise a flag, ui_interrupted(), so that a batch command can
 * stop its work, report what it has and exit 130.  ui_interrupt() raises
 * the flag by hand. */
typedef struct ui_interrupts {
	struct sigaction old_int, old_term;
} ui_interrupts;
void ui_catch_interrupts(ui_interrupts *saved);
void ui_release_interrupts(const ui_interrupts *saved);
bool ui_interrupted(void);
void ui_interrupt(void);
/* The signal that raised the flag (SIGINT or SIGTERM), 0 when it was
 * raised by hand or not at all. */
int ui_interrupt_signal(void);
/* The exit status of a command the flag stopped: 143 (128 + SIGTERM) after
 * SIGTERM, else 130 (^C, or raised by hand). */
int ui_interrupt_status(void);

/* Parses a comma-separated list of rung names into bits (1u << sc_rung);
 * prints the error and returns false on an unknown name. */
bool ui_parse_rungs(const char *list, unsigned *out);

/* How reports name a rung's state: optimal, time_limit, cancelled, error
 * (sc_rung_report_name, so that records and `bounds --json` agree). */
const char *ui_rung_status_name(sc_rung_state s);

#include "core/cost.h"

/* On a training graph, one line naming the objective under the schedule:
 * the GPipe objective and its parts followed by suffix (", proven
 * optimal" or ""), or, under 1F1B, that the bottleneck is the objective
 * (and what GPipe would give).  Nothing on inference. */
void ui_print_objective(const sc_costs *c, const char *suffix, FILE *f);

/* With CPU stages (001 section 3): one line counting c's stages by device
 * and their CPU time, "devices: 2 accelerator stages, 1 CPU stage (CPU
 * time 91.5000 of 120.0000)". */
void ui_print_devices(const sc_costs *c, FILE *f);

/* Prints the stage table of c (ops, work, io in, io out, overflow, cost and
 * the parameter bytes held per stage, the bottleneck starred, "over memory"
 * under a hard limit; then the memory limit when there is one) to f: the
 * table of eval and solve. */
void ui_print_stage_table(const sc_costs *c, FILE *f);

/* The costs of g with every op in one stage (what the model holds there,
 * activations.h), or NULL when out of memory. */
sc_costs *ui_model_memory(const sc_graph *g);

/* info's line of what the model holds in one stage (whole from
 * ui_model_memory). */
void ui_print_model_memory(const sc_costs *whole, FILE *f);

/* The one live progress line on standard error (solve, bounds, bench,
 * render, the proof): ui_progress starts it anew with fmt (printf-like:
 * back to the start of the terminal's line, which is erased), what else is
 * written to stderr before the next call continues it, and
 * ui_progress_done clears it.  Callers write it only to a terminal. */
void ui_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ui_progress_done(void);

/* Appends the exact DP's progress (ideals enumerated and filled, layers
 * done) to a progress line on stderr when p comes from the DP (p->layers >
 * 0); prints nothing otherwise.  For solve's and bounds' live lines. */
void ui_print_dp_progress(const sc_progress *p);

/* solve's live line for search s on stderr when tty: its phase,
 * evaluations, best and time (and the DP's progress), at most every 0.1 s
 * (*last: the elapsed time last shown) and once more when it is done. */
void ui_search_progress(sc_search *s, bool tty, double *last);

#endif
