/*
 * cli.c - command table, option parsing and help.  See cli.h.
 *
 * Options and commands are data: one table of options (with their help
 * lines) and one of commands (each with the set of options it takes).  The
 * getopt_long arrays and every help screen are generated from them, and a
 * test checks that each option also appears in the man page.
 *
 * An option is an id (ui_option_id, an index, not a bit) and a command
 * lists the ids it takes in an array ending with OPT_NONE: bit flags in an
 * int ran out at 1 << 30, and a 64-bit mask would only move the wall, while
 * a list has no limit, reads the same as the old "A | B" in the table, and
 * costs a scan of a few dozen ids per lookup, which option parsing can
 * afford.  getopt_long reports a long option as OPT_VAL + id, above every
 * byte, so an id never collides with a short option's letter.
 *
 * Neighbours: the commands live in cmd_*.c (declared in cli.h), what they
 * share with the workbench in tui/ui.c; this file calls both and
 * ui_workbench (tui/wb/workbench.h), and nothing calls back into it.
 *
 * Longer than 600 lines: over a third is the two tables, every option's help
 * line and every command's help paragraph, which are data that the parser
 * and the help screens below read; split apart, each half would need the
 * other's internals (the option ids, the table's layout).
 */
#define _GNU_SOURCE
#include "tui/cmd/cli.h"
#include "tui/cmd/outputs.h"

#include "tui/wb/workbench.h"
#include "core/clock.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/formats/load.h"
#include "core/gen.h"
#include "core/training.h"
#include "solvers/mip.h"
#include "solvers/search.h"

#ifndef SC_VERSION
#define SC_VERSION "0.1.0"
#endif

/* Option ids: an index into the option table's order of declaration, not a
 * bit; a command lists the ids it takes (ui_command.takes). */
typedef enum ui_option_id {
	OPT_NONE = 0, /* ends a command's list */
	OPT_K,
	OPT_BANDWIDTH,
	OPT_MEMORY,
	OPT_POLICY,
	OPT_SCHEDULE,
	OPT_CPUS,
	OPT_DEVICES,
	OPT_TRAINING,
	OPT_JSON,
	OPT_OUTPUT,
	OPT_HELP,
	OPT_METHOD,
	OPT_SEED,
	OPT_TIME,
	OPT_SEARCH_TIME,
	OPT_RUNG_TIME,
	OPT_EVALS,
	OPT_POPULATION,
	OPT_GENERATIONS,
	OPT_ELITE,
	OPT_MUTANTS,
	OPT_BIAS,
	OPT_IDEAL_LIMIT,
	OPT_NO_REFINE,
	OPT_NO_PROOF,
	OPT_PROOF,
	OPT_PARTITION,
	OPT_PIN,
	OPT_NODES,
	OPT_MODEL,
	OPT_RUNGS,
	OPT_ALL_RUNGS,
	OPT_FORMAT,
	OPT_FULL,
	OPT_MAX_OPS,
	OPT_DEPTH,
	OPT_PAGE_OPS,
	OPT_BOUNDS,
	OPT_LAYERS,
	OPT_METHODS,
	OPT_JOBS,
	OPT_PART,
	OPT_MERGE,
	OPT_DIM,
	OPT_DEVICE,
	OPT_PRECISION,
	OPT_TIMES,
	OPT_TIMELINE,
	OPT_BATCHES,
	OPT_MICROBATCHES,
	OPT_OPTIMIZER,
	OPT_RESERVE,
	OPT_ALIGN,
	OPT_COUNT
} ui_option_id;

/* getopt_long returns a long option's val, a short option's letter or
 * '?' and ':': long options return OPT_VAL + id, above every byte, so an id
 * is never mistaken for a character. */
#define OPT_VAL 0x100

/* How an option's value goes into ui_opts: a flag sets a
 * bool, a text keeps the argument (borrowed from argv), a count is an
 * integer within [lo, hi] (an int or a long field), a fraction a number
 * from 0 to below 1, seconds a number above 0; the rest (OK_CUSTOM) are read case by case in
 * read_setting and read_run_value. */
typedef enum ui_option_kind {
	OK_CUSTOM,
	OK_FLAG,
	OK_TEXT,
	OK_INT,
	OK_LONG,
	OK_FRACTION,
	OK_SECONDS
} ui_option_kind;

typedef struct ui_option {
	int id;
	const char *name; /* long name */
	char short_name;  /* or 0 */
	const char *arg;  /* argument name, or NULL for a flag */
	const char *help;
	ui_option_kind kind;
	size_t field; /* offsetof(ui_opts, ...), but for OK_CUSTOM */
	long lo, hi;  /* a count's bounds */
} ui_option;

#define CUSTOM .kind = OK_CUSTOM
#define FLAG(f) .kind = OK_FLAG, .field = offsetof(ui_opts, f)
#define TEXT(f) .kind = OK_TEXT, .field = offsetof(ui_opts, f)
#define INT(f, l, h) .kind = OK_INT, .field = offsetof(ui_opts, f), .lo = (l), .hi = (h)
#define LONG(f, l, h) .kind = OK_LONG, .field = offsetof(ui_opts, f), .lo = (l), .hi = (h)
#define FRACTION(f) .kind = OK_FRACTION, .field = offsetof(ui_opts, f)
#define SECONDS(f) .kind = OK_SECONDS, .field = offsetof(ui_opts, f)

static const ui_option options[] = {
        {OPT_K, "k", 'k', "K",
         "number of pipeline stages (default: the file's k; bench: a list, 2,4,8,16)", CUSTOM},
        {OPT_BANDWIDTH, "bandwidth", 'B', "B",
         "bandwidth in bytes per time unit (default: the file's, else 1)", CUSTOM},
        {OPT_MEMORY, "memory", 'M', "BYTES",
         "fast memory per stage in bytes, or 'inf' (default: the file's, else inf)", CUSTOM},
        {OPT_POLICY, "memory-policy", 0, "P",
         "'overflow' (pay for spilled bytes) or 'hard' (forbid)", CUSTOM},
        {OPT_SCHEDULE, "schedule", 0, "S",
         "training graphs: '1f1b' (PipeDream, the default: max stage cost) or 'gpipe' (max "
         "forward + max backward cost)",
         CUSTOM},
        {OPT_CPUS, "cpus", 0, "L|file",
         "CPU stages beside the k accelerator stages, up to L ('file': the file's maxCPUs; "
         "default 0); info, eval, render, bounds, bench, solve (every method) and the "
         "workbench take them",
         CUSTOM},
        {OPT_DEVICES, "devices", 0, "SPEC|FILE",
         "solve, eval, bounds, render, export, bench, info and the workbench: the devices of the "
         "pipeline, "
         "NAME:COUNT,... "
         "(h100:2,a100:2; cpu is paper "
         "001's CPU): each kind's op times from the file (DOT work_NAME) or, for an ONNX "
         "model, its device profile, or measured (--times KIND=FILE); K is the sum of the "
         "counts.  A FILE (a path: an existing file, a '/' or .json) is a devices file: "
         "each kind's count, profile, times, memory, bandwidth and the ops it refuses "
         "(see stagecut(1))",
         CUSTOM},
        {OPT_DEVICE, "device", 0, "NAME|FILE",
         "ONNX: the device costs are computed for (a100, h100, v100, jetson-orin, "
         "coral-edgetpu, or a profile file; default a100)",
         TEXT(device)},
        {OPT_PRECISION, "precision", 0, "P",
         "ONNX: fp32, tf32, fp16, bf16, fp8 or int8: element size and peak (default: the "
         "model's fp16/bf16 inputs, else the device's: fp16 on GPUs, int8 on edge devices)",
         TEXT(precision)},
        {OPT_TIMES, "times", 0, "FILE",
         "measured op times in place of the modelled work: an ONNX Runtime profile (JSON) or "
         "a CSV of name,microseconds; KIND=FILE (repeatable): the times of that kind of "
         "--devices",
         CUSTOM},
        {OPT_DIM, "dim", 0, "NAME=N",
         "ONNX: the value of a symbolic dimension (repeatable; default 1)", CUSTOM},
        {OPT_METHOD, "method", 'm', "M", "search method (listed above; default best)",
         TEXT(method)},
        {OPT_SEED, "seed", 's', "S", "random seed; the same seed gives the same result (default 1)",
         CUSTOM},
        {OPT_TIME, "time", 't', "SECONDS", "time limit; the best partition so far is kept",
         SECONDS(time_limit)},
        {OPT_SEARCH_TIME, "search-time", 0, "SECONDS",
         "bounds: the upper bound's search (default: a quarter of --time)", SECONDS(search_time)},
        {OPT_RUNG_TIME, "rung-time", 0, "SECONDS",
         "bounds: each MIP rung as a whole (default: --time)", SECONDS(rung_time)},
        {OPT_EVALS, "evals", 'e', "N", "evaluation budget (brkga: 10000 = population 100 x 100)",
         LONG(evals, 1, 1000000000L)},
        {OPT_POPULATION, "population", 0, "P", "BRKGA population (default sqrt of the budget)",
         INT(population, 2, 100000)},
        {OPT_GENERATIONS, "generations", 0, "G", "BRKGA generations (default budget / population)",
         INT(generations, 1, 100000000)},
        {OPT_ELITE, "elite", 0, "F", "BRKGA elite fraction (default 0.2)", FRACTION(elite)},
        {OPT_MUTANTS, "mutants", 0, "F", "BRKGA mutant fraction (default 0.1)", FRACTION(mutants)},
        {OPT_BIAS, "bias", 0, "F", "BRKGA crossover bias towards the elite parent (default 0.7)",
         FRACTION(bias)},
        {OPT_IDEAL_LIMIT, "ideal-limit", 0, "N",
         "exact: refuse graphs with more ideals; best: exact up to N (default: memory, 1/ms of "
         "-t)",
         LONG(ideal_limit, 1, 100000000L)},
        {OPT_NO_REFINE, "no-refine", 0, NULL,
         "do not refine nor balance the search's result with local moves", FLAG(no_refine)},
        {OPT_NO_PROOF, "no-proof", 0, NULL,
         "solve: skip the exact MIP that certifies best's result when it is unproven",
         FLAG(no_proof)},
        {OPT_PROOF, "proof", 0, NULL,
         "solve: run that exact MIP after any method (by default after best only)", FLAG(proof)},
        {OPT_PIN, "pin", 0, "OP=STAGE",
         "keep op OP in stage STAGE (1..K; with --cpus or --devices a stage of all of them "
         "in pipeline order) in every partition the search considers (repeatable)",
         CUSTOM},
        {OPT_ALIGN, "align", 0, "DEPTH",
         "solve: stage boundaries only between the layers at DEPTH (1: the top-level "
         "modules; stagecut(1), MODULES, Layers); also solves without and reports the gap; "
         "export: the depth of the split points (default: the smallest that works)",
         INT(align, 1, 100000)},
        {OPT_PARTITION, "partition", 'p', "FILE",
         "solve: start from this partition (method refine); bounds: report on it", TEXT(partition)},
        {OPT_RUNGS, "rungs", 'r', "LIST",
         "bounds, bench: comma-separated rungs (listed above; default all)", TEXT(rungs)},
        {OPT_ALL_RUNGS, "all-rungs", 0, NULL,
         "bounds: run every rung even once the upper bound is proven optimal", FLAG(all_rungs)},
        {OPT_FORMAT, "format", 'T', "FORMAT",
         "render: png, svg, pdf, dot or any Graphviz format (default: OUT's extension); "
         "export: pytorch or deepspeed",
         TEXT(format)},
        {OPT_FULL, "full", 0, NULL,
         "render: every op, clustered by stage (default: the stage graph)", FLAG(full)},
        {OPT_MAX_OPS, "max-ops", 0, "N", "render: refuse full pictures of more ops (default 2000)",
         INT(max_ops, 1, 10000000)},
        {OPT_DEPTH, "depth", 0, "N",
         "render --full: draw each module at depth N as one box (modules from op names)",
         INT(depth, 1, 1000)},
        {OPT_PAGE_OPS, "page-ops", 0, "N",
         "render --full: at most N boxes a page; more go on pages OUT-1, OUT-2, ... and OUT "
         "is their overview (default 80; 0: one page)",
         INT(page_ops, 0, 10000000)},
        {OPT_TIMELINE, "timeline", 0, NULL,
         "eval, render: the pipeline schedule over time (lanes of receive, compute, send)",
         FLAG(timeline)},
        {OPT_MICROBATCHES, "microbatches", 0, "M",
         "training: the micro-batches of a pipeline round (a stage's stash is held for "
         "min(k - s + 1, M) of them under 1F1B, M under GPipe; default k), and the "
         "--timeline's (default 2k)",
         INT(batches, 1, 1000000)},
        {OPT_BATCHES, "batches", 0, "M", "the older name of --microbatches",
         INT(batches, 1, 1000000)},
        {OPT_OPTIMIZER, "optimizer", 0, "O",
         "--training: 'adam' (the default: 16 bytes a parameter with its gradient), "
         "'momentum' (12) or 'sgd' (8): the state a stage holds per parameter",
         CUSTOM},
        {OPT_RESERVE, "memory-reserve", 0, "BYTES",
         "bytes of each device's memory the runtime takes (CUDA context, workspace): "
         "a stage's memory limit is the device's less this",
         CUSTOM},
        {OPT_BOUNDS, "bounds", 0, "FILE",
         "render: caption the lower bound and gap from `stagecut bounds --json` output",
         TEXT(bounds)},
        {OPT_METHODS, "methods", 0, "LIST",
         "bench: comma-separated methods, NAME or NAME-EVALS (default: the paper's eight)",
         TEXT(methods)},
        {OPT_JOBS, "jobs", 'j', "N", "bench: run N instances at a time (default 1)",
         INT(jobs, 1, 256)},
        {OPT_PART, "part", 0, "I/N", "bench: run only every Nth instance, from the Ith", CUSTOM},
        {OPT_MERGE, "merge", 0, NULL, "bench: print the tables of results files (the arguments)",
         FLAG(merge)},
        {OPT_NODES, "nodes", 'n', "N", "number of ops to generate (transformer, resnet: about N)",
         INT(nodes, 1, 10000000)},
        {OPT_LAYERS, "layers", 0, "L", "transformer: L layers; resnet: depth L (50, 101, 152...)",
         INT(layers, 1, SC_GEN_MAX_LAYERS)},
        {OPT_TRAINING, "training", 0, NULL,
         "the training graph of a forward graph (an ONNX export, DOT): each op's "
         "backward op in its stage, gradient edges, a loss orphan; the memory of "
         "gradients, optimizer state and stashed activations (gen: writes it)",
         FLAG(training)},
        {OPT_MODEL, "model", 0, "M",
         "er, ba, ws, any (REGAL, the default), transformer, resnet or inception", CUSTOM},
        {OPT_OUTPUT, "output", 'o', "FILE",
         "write the result to FILE (atomically; bounds: the best partition found; bench "
         "appends records)",
         TEXT(output)},
        {OPT_JSON, "json", 0, NULL, "print one JSON object on stdout (schema in stagecut(1))",
         FLAG(json)},
        {OPT_HELP, "help", 'h', NULL, "show this help and exit", CUSTOM},
};
#define NOPTIONS (int)(sizeof options / sizeof options[0])

typedef struct ui_command {
	const char *name;
	const char *synopsis;
	const char *summary;
	const char *help;          /* paragraph after the synopsis */
	const ui_option_id *takes; /* the options it takes, ending with OPT_NONE */
	int min_pos, max_pos;
	/* its engines take CPU stages under the GPipe schedule (ui_opts) */
	bool gpipe_cpus;
	int (*run)(const ui_opts *o);
} ui_command;

/* A command's list of option ids: OPTIONS(OPT_JSON, OPT_HELP). */
#define OPTIONS(...) ((const ui_option_id[]){__VA_ARGS__, OPT_NONE})
#define SETTINGS                                                                                   \
	OPT_K, OPT_BANDWIDTH, OPT_MEMORY, OPT_POLICY, OPT_SCHEDULE, OPT_CPUS, OPT_DEVICE,          \
	        OPT_PRECISION, OPT_TIMES, OPT_DIM, OPT_TRAINING, OPT_OPTIMIZER, OPT_RESERVE,       \
	        OPT_MICROBATCHES

static const ui_command commands[] = {
        {
                .name = "info",
                .synopsis = "info FILE [--json] [-o GRAPH.dot] [--device D] [--dim N=V]",
                .summary = "sizes, totals and the simple lower bound per k",
                .help = "Prints the graph's ops, edges, groups, totals and settings, and the "
                        "simple\n"
                        "lower bound max(largest op or group work, total work / k) for k = 2, 4, "
                        "8,\n"
                        "16, 32, 64 (and the file's k).  For an ONNX model also ops by type, "
                        "FLOPs,\n"
                        "initializer bytes, the device, the dims and the ops of unknown cost; "
                        "-o writes\n"
                        "the costed graph as DOT (times in microseconds).  Lists the top-level "
                        "modules\n"
                        "read from the op names (ops, work share, parameters; stagecut(1), "
                        "MODULES).",
                .takes = OPTIONS(SETTINGS, OPT_OUTPUT, OPT_JSON, OPT_HELP, OPT_DEVICES),
                .min_pos = 1,
                .max_pos = 1,
                .run = ui_cmd_info,
        },
        {
                .name = "eval",
                .synopsis = "eval FILE PARTITION [--json] [--timeline [--batches M]]",
                .summary = "stage costs, bottleneck and validity of a partition",
                .help = "Evaluates the partition file PARTITION on the graph FILE: per stage its "
                        "ops,\n"
                        "work, io in, io out, overflow and cost, and the bottleneck.  Exits 1 when "
                        "the\n"
                        "partition is invalid (naming the first offending edge or group) or breaks "
                        "a\n"
                        "hard memory limit.  --timeline adds the pipeline schedule of M "
                        "micro-batches\n"
                        "(default 2k): throughput, latency, fill, drain, makespan and each "
                        "stage's\n"
                        "idle fraction; with --json every segment's start and end.  A "
                        "partition file\n"
                        "naming CPU stages (solve --cpus) adds a device column; a CPU stage "
                        "costs its\n"
                        "ops' CPU times and its timeline lane computes only.  --cpus below "
                        "the file's\n"
                        "CPU stages, or GPipe with them, exits 2.  PARTITION is JSON or a DOT "
                        "graph\n"
                        "with a stage on each node (stagecut(1), PARTITION FILES).",
                .takes = OPTIONS(OPT_BANDWIDTH, OPT_MEMORY, OPT_POLICY, OPT_SCHEDULE, OPT_CPUS,
                                 OPT_DEVICE, OPT_PRECISION, OPT_TIMES, OPT_DIM, OPT_TIMELINE,
                                 OPT_BATCHES, OPT_MICROBATCHES, OPT_TRAINING, OPT_OPTIMIZER,
                                 OPT_RESERVE, OPT_JSON, OPT_HELP, OPT_DEVICES),
                .min_pos = 2,
                .max_pos = 2,
                .run = ui_cmd_eval,
        },
        {
                .name = "solve",
                .synopsis = "solve FILE -k K [--method M] [--align DEPTH] [-o OUT]",
                .summary = "find a partition with a search (default: exact or brkga)",
                .help = "Searches for a partition of FILE into K stages minimising the bottleneck "
                        "and\n"
                        "prints its stage table; -o writes the partition file that `eval` reads.\n"
                        "Progress goes to stderr when it is a terminal.  Exits 1 when no "
                        "partition\n"
                        "satisfies a hard memory limit.  --align DEPTH keeps every layer at "
                        "that\n"
                        "depth (stagecut(1), MODULES, Layers) in one stage, so the partition "
                        "exports as\n"
                        "split points (`export`), and reports the gap to the best partition "
                        "without.\n"
                        "--cpus L adds up to L CPU stages beside the K accelerators; every "
                        "method\n"
                        "places them (a heuristic's result is then reported unproven).  "
                        "--devices h100:2,a100:2\n"
                        "runs on devices of several kinds, each stage's kind chosen with the "
                        "split.  -o writes\n"
                        "DOT (the graph with its stages) to a name ending in .dot or .gv, else "
                        "JSON.\n"
                        "Methods:",
                .takes =
                        OPTIONS(SETTINGS, OPT_METHOD, OPT_SEED, OPT_TIME, OPT_EVALS, OPT_POPULATION,
                                OPT_GENERATIONS, OPT_ELITE, OPT_MUTANTS, OPT_BIAS, OPT_IDEAL_LIMIT,
                                OPT_NO_REFINE, OPT_NO_PROOF, OPT_PROOF, OPT_PARTITION, OPT_PIN,
                                OPT_ALIGN, OPT_OUTPUT, OPT_JSON, OPT_HELP, OPT_DEVICES),
                .min_pos = 1,
                .max_pos = 1,
                .gpipe_cpus = true,
                .run = ui_cmd_solve,
        },
        {
                .name = "bounds",
                .synopsis = "bounds FILE [-k K] [--cpus L | --devices SPEC] [--rungs LIST] "
                            "[--all-rungs] "
                            "[--time T] [--search-time S] [--rung-time R] [--partition P] [-o OUT]",
                .summary = "the ladder of lower bounds: how far from optimal is the best split?",
                .help = "Finds an upper bound with the default search, or takes your partition "
                        "file P,\n"
                        "then computes the requested rungs of the lower-bound ladder (listed "
                        "below), the\n"
                        "MIPs each in a child process, at most one per core.  With -p (k from P "
                        "when -k\n"
                        "is absent) the report is about P: its bottleneck and its certified gap (P "
                        "/ best\n"
                        "lower bound - 1).  With -p and -m best (the default) or exact the exact "
                        "DP over\n"
                        "ideals runs first, within the search's budget, and when it finishes "
                        "proves the\n"
                        "optimum: P is then proven optimal, or its gap is exact; any other -m runs "
                        "no\n"
                        "search.  A better partition found (by the DP or the exact MIP) is "
                        "reported\n"
                        "apart.  -o writes the best partition found, as solve -o does.  --time T "
                        "bounds\n"
                        "the whole run (the search a quarter of it at most, no rung started after "
                        "it,\n"
                        "what runs stopped a second later) and each MIP rung as a whole (guess's k "
                        "solves\n"
                        "share it); a rung stopped by it still gives a valid bound.  --search-time "
                        "S and\n"
                        "--rung-time R give the search and each MIP rung budgets of their own "
                        "(within\n"
                        "--time when it is given).  Once the upper bound is proven optimal (by a "
                        "rung or\n"
                        "the exact DP) the rungs still running or waiting stop (status "
                        "stopped_at_proof);\n"
                        "the exact MIP starts first so that proof can come early.  --all-rungs "
                        "runs every\n"
                        "rung anyway.  CBC proves its bounds only up to its floating point, so the "
                        "exact\n"
                        "MIP proves optimality within 1e-6 relative, and the report says so.  With "
                        "--cpus\n"
                        "L the bounds are on the optimum with up to L CPU stages: the upper bound "
                        "from\n"
                        "the exact DP with CPU stages (-m best or exact), simple a fractional "
                        "split of\n"
                        "the work between accelerators and CPUs, bottleneck and guess around the\n"
                        "accelerator stage of most work, exact with a device per stage; cover has "
                        "no CPU\n"
                        "version and is shown skipped.  With --devices SPEC the bounds are on the\n"
                        "optimum on those devices: simple each op at its least time on a kind "
                        "that may\n"
                        "run it, exact with a kind per stage; bottleneck, guess and cover model "
                        "CPUs\n"
                        "beside the graph's own device only and are shown skipped for other "
                        "kinds.\n"
                        "Live progress goes to stderr when it is a terminal.",
                .takes = OPTIONS(SETTINGS, OPT_RUNGS, OPT_ALL_RUNGS, OPT_TIME, OPT_SEARCH_TIME,
                                 OPT_RUNG_TIME, OPT_PARTITION, OPT_OUTPUT, OPT_METHOD, OPT_SEED,
                                 OPT_EVALS, OPT_JSON, OPT_HELP, OPT_DEVICES),
                .min_pos = 1,
                .max_pos = 1,
                .gpipe_cpus = true,
                .run = ui_cmd_bounds,
        },
        {
                .name = "export",
                .synopsis = "export FILE PARTITION --format pytorch|deepspeed [--align DEPTH] "
                            "[-o OUT]",
                .summary = "a partition as PyTorch split points or DeepSpeed layer boundaries",
                .help = "Writes the partition file PARTITION of FILE as the split points a "
                        "framework\n"
                        "takes: pytorch, the split_spec of torch.distributed.pipelining "
                        "(each stage\n"
                        "from the second begins at a module, SplitPoint.BEGINNING); "
                        "deepspeed, the\n"
                        "layers in order as PipelineModule layers (module names, and the "
                        "own ops of a\n"
                        "module cut into its children as {\"own ops of\": ...}) and the "
                        "parts that cut\n"
                        "them.  The partition must keep every layer at the depth (--align, "
                        "or the\n"
                        "smallest that works; stagecut(1), MODULES, Layers) in one stage and "
                        "follow\n"
                        "the op order; otherwise export names the stage and the op or module "
                        "that\n"
                        "breaks it and exits 1 (solve --align DEPTH gives a partition that "
                        "exports).\n"
                        "Empty stages are left out, and a layer torch.onnx folded a module "
                        "into is\n"
                        "marked 'folded'; both with a warning.  A partition on devices "
                        "(solve\n"
                        "--cpus or --devices) adds the list of each stage's kind of device.  "
                        "Writes to\n"
                        "stdout, or to OUT with -o.",
                .takes = OPTIONS(OPT_FORMAT, OPT_ALIGN, OPT_DEVICE, OPT_PRECISION, OPT_TIMES,
                                 OPT_DIM, OPT_TRAINING, OPT_OUTPUT, OPT_HELP, OPT_DEVICES),
                .min_pos = 2,
                .max_pos = 2,
                .run = ui_cmd_export,
        },
        {
                .name = "render",
                .synopsis = "render FILE [PARTITION] -o OUT [-T FORMAT] [--full [--depth N]] "
                            "[--timeline] "
                            "[--bounds B.json]",
                .summary = "a picture of a partition (or of the graph) through Graphviz",
                .help = "Draws the partition PARTITION of FILE (else the file's own stages, else "
                        "with\n"
                        "-k K the default search's partition, bounded by --time) and writes it to "
                        "OUT\n"
                        "atomically, in the format -T or OUT's extension names.  The default "
                        "picture is\n"
                        "the stage graph: a box per stage with its ops, work, io in, io out, "
                        "overflow\n"
                        "and cost, the bottleneck marked in colour and in words, and edges "
                        "labelled with\n"
                        "the tensor bytes between stages.  --full draws every op instead, one "
                        "cluster\n"
                        "per stage, with edges crossing stages dark and labelled, ops boxed by "
                        "module\n"
                        "(--depth N: each module at depth N one box), folded top to bottom into "
                        "columns\n"
                        "read left to right (neither side over 2.5 times the other).  A picture "
                        "of more\n"
                        "than --page-ops boxes (80) is drawn on pages OUT-1, OUT-2, ... (e.g. "
                        "f-1.png),\n"
                        "and OUT holds their overview: the modules at the deepest depth that "
                        "fits a page,\n"
                        "else the stage graph.  Graphs of more than --max-ops ops are refused "
                        "(draw the\n"
                        "stage graph).  Without a partition "
                        "it\n"
                        "draws the graph itself.  --bounds puts the best lower bound and the gap "
                        "in the\n"
                        "caption.  --timeline draws the pipeline schedule (eval --timeline) "
                        "instead.  A\n"
                        "partition file naming CPU stages (solve --cpus) draws them apart: a "
                        "rounded,\n"
                        "dashed, grey box headed 'CPU' with its CPU time (--full: a square grey "
                        "cluster;\n"
                        "--timeline: a lane 'stage N (CPU)' that only computes); -k may give "
                        "its k or\n"
                        "its accelerator stages.  A partition on devices of several kinds "
                        "(solve\n"
                        "--devices) heads each stage with its kind; --devices SPEC costs them "
                        "(an ONNX\n"
                        "model has times for its --device only).  Exits 1 for an invalid "
                        "partition.",
                .takes = OPTIONS(SETTINGS, OPT_FORMAT, OPT_FULL, OPT_MAX_OPS, OPT_DEPTH,
                                 OPT_PAGE_OPS, OPT_BOUNDS, OPT_METHOD, OPT_SEED, OPT_TIME,
                                 OPT_TIMELINE, OPT_BATCHES, OPT_OUTPUT, OPT_JSON, OPT_HELP,
                                 OPT_DEVICES),
                .min_pos = 1,
                .max_pos = 2,
                .run = ui_cmd_render,
        },
        {
                .name = "bench",
                .synopsis = "bench GRAPH|DIR... [-k LIST] [--methods LIST] [--rungs LIST] [-t T] "
                            "[-j N]",
                .summary = "testbed tables: lower bounds and methods over many graphs (000 Tables "
                           "1, 2)",
                .help = "Runs every graph (directories give their .dot, .gv and .json files) at "
                        "every k\n"
                        "of -k (default 2,4,8,16): each method of --methods without refinement, "
                        "then\n"
                        "the rungs of the ladder against the best partition found.  -t SECONDS "
                        "(default\n"
                        "60) bounds each instance as a whole: the methods share its first half, "
                        "the MIP\n"
                        "rungs the rest (stagecut(1) says how).  Records are appended to -o "
                        "(default\n"
                        "stagecut-bench.jsonl) as instances finish; a rerun skips what is "
                        "recorded\n"
                        "there.  Prints Table 1 (each rung / best partition), Table 2 (each method "
                        "/\n"
                        "simple bound), median seconds and the instances proven optimal.  --part "
                        "I/N\n"
                        "runs a share of the instances; --merge FILE... prints the tables of "
                        "results\n"
                        "files.  ^C or SIGTERM stops every worker within a second, prints the "
                        "tables\n"
                        "of what finished and exits 130 (143 after SIGTERM).",
                .takes = OPTIONS(OPT_K, OPT_BANDWIDTH, OPT_MEMORY, OPT_POLICY, OPT_SCHEDULE,
                                 OPT_CPUS, OPT_METHODS, OPT_RUNGS, OPT_TIME, OPT_SEED, OPT_JOBS,
                                 OPT_PART, OPT_MERGE, OPT_OUTPUT, OPT_JSON, OPT_HELP, OPT_DEVICES),
                .min_pos = 0,
                .max_pos = 100000,
                .gpipe_cpus = true,
                .run = ui_cmd_bench,
        },
        {
                .name = "calibrate",
                .synopsis = "calibrate [--device BASE] [--precision P] -o OUT.profile "
                            "RUN...",
                .summary = "fit a device profile to op times measured on your device",
                .help = "Each RUN is MODEL.onnx,TIMES[,DIM=VALUE...]: an ONNX model, the op "
                        "times\n"
                        "measured on the device (a CSV of name,microseconds or an ONNX Runtime "
                        "profile,\n"
                        "as --times reads them) and its symbolic dims for that run (e.g.\n"
                        "densenet121.onnx,times.csv,N=32).  Fits the overheads, efficiencies, "
                        "GEMM\n"
                        "halves, strided_eff and cache of the device profile BASE (default a100; "
                        "it\n"
                        "also gives the peaks, bandwidths and memory) to every measured op of "
                        "the runs,\n"
                        "all at precision P (default BASE's), each kind to its own ops "
                        "(stagecut(1),\n"
                        "CALIBRATION); a kind with no measured op keeps BASE's numbers.  Prints "
                        "per\n"
                        "kind the ops used and the median and worst ratio predicted / measured "
                        "before\n"
                        "and after, and writes OUT atomically, a profile for --device OUT at "
                        "precision P.",
                .takes = OPTIONS(OPT_DEVICE, OPT_PRECISION, OPT_OUTPUT, OPT_JSON, OPT_HELP),
                .min_pos = 1,
                .max_pos = 100000,
                .run = ui_cmd_calibrate,
        },
        {
                .name = "gen",
                .synopsis = "gen --nodes N|--layers L [--model M] [--training] [--seed S] [-o "
                            "FILE.dot]",
                .summary = "write a synthetic graph (REGAL-style, transformer or resnet) as DOT",
                .help = "Generates a graph of the family --model names, deterministic per seed:\n"
                        "  er, ba, ws, any  a random graph in the style of REGAL (paper 000, App. "
                        "C.2):\n"
                        "      an Erdos-Renyi, Barabasi-Albert or Watts-Strogatz graph of --nodes "
                        "ops\n"
                        "      (any: one of them, by the seed) made acyclic by a random order; "
                        "tensor\n"
                        "      sizes N(50, 10); an op's work is its input and output tensor sizes "
                        "plus\n"
                        "      a fraction r ~ N(0, 0.1) of all tensor sizes, clipped at 0.  Named\n"
                        "      regal-MODEL-N-SEED.\n"
                        "  transformer  --layers L pre-layernorm layers (hidden 1024, sequence "
                        "512,\n"
                        "      16 heads, fp16) of 14 ops: layernorm, Q, K, V projections, scores\n"
                        "      matmul, softmax, context matmul, output projection, residual add,\n"
                        "      layernorm, MLP matmul, gelu, matmul, residual add; with the "
                        "embedding\n"
                        "      and a final layernorm, 14 L + 2 ops.  Named transformer-L-SEED.\n"
                        "  resnet  a bottleneck ResNet of depth --layers D = 3 B + 2 (B >= 4 "
                        "blocks;\n"
                        "      50, 101 and 152 as the originals; other depths are rounded): conv\n"
                        "      1x1, 3x3, 1x1 with batchnorm and relu, a skip add per block, each\n"
                        "      stage's first block downsampling through a projection; batch 8 of\n"
                        "      224x224 images, fp16; 10 B + 14 ops.  Named resnet-D-SEED.\n"
                        "  inception  an InceptionV3-like network (fixed shape, no size): stem,\n"
                        "      3 InceptionA, B, 4 InceptionC, D, 2 InceptionE modules of parallel\n"
                        "      branches joined by a concat, each convolution conv + batchnorm +\n"
                        "      relu; batch 8 of 299x299 images, fp16; 308 ops.  Named "
                        "inception-SEED.\n"
                        "For transformer and resnet, --nodes N picks the size nearest N ops "
                        "instead\n"
                        "of --layers.  Their work is in nanoseconds on a 100 TFLOP/s, 1.5 TB/s\n"
                        "accelerator (each op compute- or memory-bound), param and out in bytes, "
                        "and\n"
                        "the graph's bandwidth is 100 bytes/ns (100 GB/s); the seed scales each "
                        "op's\n"
                        "work, param and out by its own factor in [0.9, 1.1].  Op names end in "
                        "their\n"
                        "kind (.matmul, .conv, .add, ...).  --training makes it a training graph:\n"
                        "each op v gets a backward op v.grad (twice the work, in v's group), each\n"
                        "edge u -> v a gradient edge v.grad -> u.grad and an activation edge\n"
                        "u -> v.grad, and an orphan loss.grad joins the forward sinks to their\n"
                        "backward ops.  Writes DOT to FILE (atomically) or to stdout.",
                .takes = OPTIONS(OPT_NODES, OPT_LAYERS, OPT_SEED, OPT_MODEL, OPT_TRAINING, OPT_K,
                                 OPT_OUTPUT, OPT_HELP),
                .min_pos = 0,
                .max_pos = 0,
                .run = ui_cmd_gen,
        },
};
#define NCOMMANDS (int)(sizeof commands / sizeof commands[0])

/* The length of the valid UTF-8 sequence at s (1 to 4), or 0 when the bytes
 * there are not one. */
/* Whether the list takes (ending with OPT_NONE) holds id. */
static bool takes_option(const ui_option_id *takes, ui_option_id id)
{
	for (; *takes != OPT_NONE; takes++)
		if (*takes == id)
			return true;
	return false;
}

static void print_options(FILE *f, const ui_option_id *takes)
{
	for (int i = 0; i < NOPTIONS; i++) {
		const ui_option *op = &options[i];
		if (!takes_option(takes, op->id))
			continue;
		char left[64];
		if (op->short_name)
			snprintf(left, sizeof left, "-%c, --%s%s%s", op->short_name, op->name,
			         op->arg ? " " : "", op->arg ? op->arg : "");
		else
			snprintf(left, sizeof left, "    --%s%s%s", op->name, op->arg ? " " : "",
			         op->arg ? op->arg : "");
		fprintf(f, "  %-26s %s\n", left, op->help);
	}
}

static void usage_main(FILE *f)
{
	fprintf(f, "Usage: stagecut [FILE] [-k K] [-B B] [-M BYTES] [--memory-policy P] [-p "
	           "PARTITION]\n"
	           "                [--cpus L | --devices SPEC]\n"
	           "           open the workbench on FILE (a bundled sample without FILE)\n");
	for (int i = 0; i < NCOMMANDS; i++)
		fprintf(f, "       stagecut %s\n           %s\n", commands[i].synopsis,
		        commands[i].summary);
	fprintf(f,
	        "       stagecut COMMAND --help\n"
	        "       stagecut --version\n\n"
	        "Splits a model's computation graph (DOT, msr-fiddle JSON or ONNX; the format\n"
	        "is told by the content) into k pipeline stages so that the slowest stage is\n"
	        "as fast as possible.\n"
	        "Exit status: 0 success, 1 no valid or feasible partition, 2 bad input or usage,\n"
	        "3 nothing decided: solve found no partition that fits and none is proven\n"
	        "impossible, or -t ran out while loading.\n"
	        "See stagecut(1).\n");
}

static void usage_command(FILE *f, const ui_command *c)
{
	fprintf(f, "Usage: stagecut %s\n\n%s\n", c->synopsis, c->help);
	if (takes_option(c->takes, OPT_RUNGS)) {
		fprintf(f, "\nRungs (--rungs; default all):\n");
		for (int r = 0; r < SC_RUNG_COUNT; r++)
			fprintf(f, "  %-12s %s\n", sc_rung_name((sc_rung)r),
			        sc_rung_help((sc_rung)r));
		if (takes_option(c->takes, OPT_METHOD))
			fprintf(f, "\nMethods (--method):\n");
	}
	if (takes_option(c->takes, OPT_METHOD)) {
		int n;
		const sc_method_info *m = sc_search_methods(&n);
		for (int i = 0; i < n; i++)
			fprintf(f, "  %-14s %s\n", m[i].name, m[i].help);
	}
	fprintf(f, "\nOptions:\n");
	print_options(f, c->takes);
}

static bool parse_fraction(const char *pre, const char *name, const char *a, double *out)
{
	if (!sc_parse_weight(a, out) || *out >= 1) {
		ui_error("%s--%s: '%s' is not a number from 0 to below 1", pre, name, a);
		return false;
	}
	return true;
}

static bool parse_seconds(const char *pre, const char *name, const char *a, double *out)
{
	if (!sc_parse_weight(a, out) || *out <= 0) {
		ui_error("%s--%s: '%s' is not a number of seconds > 0", pre, name, a);
		return false;
	}
	return true;
}

static bool parse_count(const char *pre, const char *name, const char *a, long lo, long hi,
                        long *out)
{
	char *end;
	errno = 0;
	long x = strtol(a, &end, 10);
	if (*a == '\0' || *end || errno || x < lo || x > hi) {
		ui_error("%s--%s: '%s' is not an integer from %ld to %ld", pre, name, a, lo, hi);
		return false;
	}
	*out = x;
	return true;
}

/* Reads the value a of option op (not OK_CUSTOM) into o; false after a
 * message (pre: the command's "info: "). */
static bool read_value(const ui_option *op, const char *a, ui_opts *o, const char *pre)
{
	char *at = (char *)o + op->field;
	long x;
	switch (op->kind) {
	case OK_FLAG: *(bool *)at = true; return true;
	case OK_TEXT: *(const char **)at = a; return true;
	case OK_FRACTION: return parse_fraction(pre, op->name, a, (double *)at);
	case OK_SECONDS: return parse_seconds(pre, op->name, a, (double *)at);
	case OK_INT:
		if (!parse_count(pre, op->name, a, op->lo, op->hi, &x))
			return false;
		*(int *)at = (int)x;
		return true;
	case OK_LONG: return parse_count(pre, op->name, a, op->lo, op->hi, (long *)at);
	case OK_CUSTOM: break;
	}
	return false;
}

/* The option getopt_long just complained about, as the user wrote it, into
 * buf.  opt is optopt: 0 for an unknown long option (then it is the last
 * argument taken, without any "=value"), a short option's letter, or the id
 * of a long option that lacks or has an unwanted value.  Short options may
 * sit in a cluster such as "-xq", so the argument itself can mislead. */
static const char *option_text(char **argv, int opt, char *buf, size_t size)
{
	if (opt == 0) {
		const char *arg = argv[optind - 1];
		snprintf(buf, size, "%.*s", (int)strcspn(arg, "="), arg);
		return buf;
	}
	for (int i = 0; i < NOPTIONS; i++)
		if (options[i].short_name && options[i].short_name == opt) {
			snprintf(buf, size, "-%c", opt);
			return buf;
		}
	for (int i = 0; i < NOPTIONS; i++)
		if (OPT_VAL + (int)options[i].id == opt &&
		    strncmp(argv[optind - 1], "--", 2) == 0) {
			snprintf(buf, size, "--%s", options[i].name);
			return buf;
		}
	if (opt > 0x20 && opt < 0x7f)
		snprintf(buf, size, "-%c", opt);
	else
		snprintf(buf, size, "-\\x%02x", (unsigned)opt & 0xff);
	return buf;
}

/* True when opt (optopt after '?') is a flag of takes given a value, as in
 * "--json=1", rather than an unknown short option such as "-@" (whose
 * character code may equal a flag's id). */
static bool is_flag_with_value(char **argv, int opt, const ui_option_id *takes)
{
	const char *arg = argv[optind - 1];
	if (strncmp(arg, "--", 2) != 0 || !strchr(arg, '='))
		return false;
	for (int i = 0; i < NOPTIONS; i++)
		if (options[i].short_name && options[i].short_name == opt)
			return false;
	for (int i = 0; i < NOPTIONS; i++)
		if (OPT_VAL + (int)options[i].id == opt && takes_option(takes, options[i].id) &&
		    !options[i].arg)
			return true;
	return false;
}

/* When opt (optopt after '?') is 0 and the argument is "--NAME" (perhaps with
 * "=value") where NAME abbreviates two or more of the options in takes, writes
 * them as "--a, --b or --c" into buf and returns true: getopt_long refuses an
 * ambiguous abbreviation the same way as an unknown option. */
static bool ambiguous_option(char **argv, int opt, const ui_option_id *takes, char *buf,
                             size_t size)
{
	const char *arg = argv[optind - 1];
	if (opt != 0 || strncmp(arg, "--", 2) != 0)
		return false;
	size_t len = strcspn(arg + 2, "=");
	int n = 0, last = -1;
	for (int i = 0; i < NOPTIONS; i++)
		if (takes_option(takes, options[i].id) &&
		    strncmp(options[i].name, arg + 2, len) == 0) {
			n++;
			last = i;
		}
	if (n < 2 || len == 0)
		return false;
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0, k = 0; i < NOPTIONS && used < size; i++)
		if (takes_option(takes, options[i].id) &&
		    strncmp(options[i].name, arg + 2, len) == 0) {
			int w = snprintf(buf + used, size - used, "%s--%s",
			                 k == 0      ? ""
			                 : i == last ? " or "
			                             : ", ",
			                 options[i].name);
			used += w > 0 ? (size_t)w : 0;
			k++;
		}
	return true;
}

/* The getopt_long arrays for the options in takes: longs (room for
 * NOPTIONS + 1) and shorts (room for 3 * NOPTIONS + 2), each ended as
 * getopt_long needs, a long option reported as OPT_VAL + its id. */
static void getopt_tables(const ui_option_id *takes, struct option *longs, char *shorts)
{
	int nl = 0, ns = 0;
	shorts[ns++] = ':'; /* report a missing value as ':' */
	for (int i = 0; i < NOPTIONS; i++) {
		if (!takes_option(takes, options[i].id))
			continue;
		longs[nl++] = (struct option){options[i].name,
		                              options[i].arg ? required_argument : no_argument,
		                              NULL, OPT_VAL + (int)options[i].id};
		if (options[i].short_name) {
			shorts[ns++] = options[i].short_name;
			if (options[i].arg)
				shorts[ns++] = ':';
		}
	}
	shorts[ns] = '\0';
	longs[nl] = (struct option){0, 0, 0, 0};
}

/* o with every option at its default (-1 where "not given" must differ
 * from any value) and room for argc positional arguments; false after a
 * message when that room cannot be had. */
static bool opts_init(ui_opts *o, int argc)
{
	memset(o, 0, sizeof *o);
	o->started = sc_clock_now();
	o->memory = -1;
	o->policy = -1;
	o->schedule = -1;
	o->optimizer = -1;
	o->cpus = -1;
	o->page_ops = -1;
	o->seed = 1;
	o->elite = o->mutants = o->bias = -1;
	o->pos = calloc((size_t)argc + 1, sizeof *o->pos);
	if (!o->pos) {
		ui_error("out of memory");
		return false;
	}
	return true;
}

/* Reads the value a of option id into o when id is one of the problem's
 * settings that read_value cannot read (-k, --bandwidth, --memory,
 * --memory-policy, --schedule, --devices, --cpus); true for any other id.
 * False after a message (pre: the command's "info: "; cmd: its name). */
static bool read_setting(ui_option_id id, const char *a, ui_opts *o, const char *pre,
                         const char *cmd)
{
	char *end;
	long x;
	switch (id) {
	case OPT_K:
		o->klist = a;
		if (strcmp(cmd, "bench") == 0)
			break; /* a list, parsed by the command */
		x = strtol(a, &end, 10);
		if (*a == '\0' || *end || x < 1 || x > 1000000) {
			ui_error("%s-k: '%s' is not an integer from 1 to 1000000", pre, a);
			return false;
		}
		o->k = (int)x;
		break;
	case OPT_BANDWIDTH:
		if (!sc_parse_weight(a, &o->bandwidth) || o->bandwidth <= 0) {
			ui_error("%s--bandwidth: '%s' is not a finite number > 0", pre, a);
			return false;
		}
		break;
	case OPT_MEMORY:
		if (strcmp(a, "inf") == 0 || strcmp(a, "unlimited") == 0)
			o->memory = INFINITY;
		else if (!sc_parse_weight(a, &o->memory)) {
			ui_error("%s--memory: '%s' is not a number >= 0 or 'inf'", pre, a);
			return false;
		}
		break;
	case OPT_RESERVE:
		if (!sc_parse_weight(a, &o->reserve)) {
			ui_error("%s--memory-reserve: '%s' is not a number >= 0", pre, a);
			return false;
		}
		break;
	case OPT_OPTIMIZER: {
		sc_optimizer opt;
		if (!sc_optimizer_parse(a, &opt)) {
			ui_error("%s--optimizer: '%s' is not 'adam', 'momentum' or 'sgd'", pre, a);
			return false;
		}
		o->optimizer = (int)opt;
		break;
	}
	case OPT_POLICY: {
		sc_mem_policy p;
		if (!sc_mem_policy_parse(a, &p)) {
			ui_error("%s--memory-policy: '%s' is not 'overflow' or 'hard'", pre, a);
			return false;
		}
		o->policy = (int)p;
		break;
	}
	case OPT_SCHEDULE: {
		sc_schedule sch;
		if (!sc_schedule_parse(a, &sch)) {
			ui_error("%s--schedule: '%s' is not '1f1b' or 'gpipe'", pre, a);
			return false;
		}
		o->schedule = (int)sch;
		break;
	}
	case OPT_DEVICES: {
		sc_error ferr;
		memset(&o->devfile, 0, sizeof o->devfile);
		o->devices_file = sc_devices_is_file(a);
		if (o->devices_file ? sc_devices_read(a, &o->fleet, &o->devfile, &ferr) != SC_OK
		                    : !sc_fleet_parse(a, &o->fleet, &ferr)) {
			ui_error("%s%s", pre, ferr.msg);
			return false;
		}
		o->devices = a;
		break;
	}
	case OPT_CPUS:
		if (strcmp(a, "file") == 0) {
			o->cpus = UI_CPUS_FILE;
			break;
		}
		x = strtol(a, &end, 10);
		if (*a == '\0' || *end || x < 0 || x > 1000) {
			ui_error("%s--cpus: '%s' is not an integer from 0 to 1000 or 'file'", pre,
			         a);
			return false;
		}
		o->cpus = (int)x;
		break;
	default: break;
	}
	return true;
}

/* Reads the value a of option id into o when id is one of the run's
 * values that read_value cannot read (--seed, --pin, --model, --part,
 * --dim); true for any other id.  False after a message (pre as above). */
static bool read_run_value(ui_option_id id, const char *a, ui_opts *o, const char *pre)
{
	char *end;
	switch (id) {
	case OPT_SEED: {
		errno = 0;
		unsigned long long sd = strtoull(a, &end, 10);
		/* up to 2^63 - 1: --json prints the seed as a JSON (signed 64-bit)
		 * integer */
		if (*a == '\0' || *end || errno || *a == '-' || sd > LLONG_MAX) {
			ui_error("%s--seed: '%s' is not a non-negative integer up to %lld", pre, a,
			         LLONG_MAX);
			return false;
		}
		o->seed = sd;
		break;
	}
	case OPT_PIN:
		if (!strchr(a, '=')) {
			ui_error("%s--pin '%s': expected OP=STAGE", pre, a);
			return false;
		}
		if (o->npins == UI_MAX_PINS) {
			ui_error("%s--pin: at most %d pins", pre, UI_MAX_PINS);
			return false;
		}
		o->pins[o->npins++] = a;
		break;
	case OPT_MODEL: {
		sc_gen_model m;
		if (!sc_gen_model_parse(a, &m)) {
			ui_error("%s--model: '%s' is not er, ba, ws, any, transformer, resnet or "
			         "inception",
			         pre, a);
			return false;
		}
		o->model = a;
		break;
	}
	case OPT_PART: {
		int pi, pn;
		char extra;
		if (sscanf(a, "%d/%d%c", &pi, &pn, &extra) != 2 || pn < 1 || pi < 1 || pi > pn) {
			ui_error("%s--part: '%s' is not I/N with 1 <= I <= N", pre, a);
			return false;
		}
		o->part_i = pi;
		o->part_n = pn;
		break;
	}
	case OPT_TIMES: {
		/* KIND=FILE: a kind's name, then '=' (a file of that name is a
		 * FILE still) */
		const char *eq = strchr(a, '=');
		if (!eq || !sc_kind_name_ok(a, (size_t)(eq - a)) || !eq[1] ||
		    access(a, F_OK) == 0) {
			o->times = a;
			break;
		}
		if (o->ntimes_kind == SC_KINDS_MAX) {
			ui_error("%s--times KIND=FILE: at most %d of them", pre, SC_KINDS_MAX);
			return false;
		}
		o->times_kind[o->ntimes_kind++] = a;
		break;
	}
	case OPT_DIM: {
		const char *eq = strchr(a, '=');
		long long v = 0;
		if (eq && eq != a) {
			errno = 0;
			v = strtoll(eq + 1, &end, 10);
		}
		if (!eq || eq == a || errno || end == eq + 1 || *end || v <= 0) {
			ui_error("%s--dim '%s': expected NAME=N with N a positive integer", pre, a);
			return false;
		}
		if (o->ndims == UI_MAX_DIMS) {
			ui_error("%s--dim: at most %d dims", pre, UI_MAX_DIMS);
			return false;
		}
		size_t len = (size_t)(eq - a);
		if (len >= sizeof o->dim_name[0]) {
			ui_error("%s--dim '%s': the name is too long", pre, a);
			return false;
		}
		memcpy(o->dim_name[o->ndims], a, len);
		o->dim_name[o->ndims][len] = '\0';
		o->dim_value[o->ndims++] = v;
		break;
	}
	default: break;
	}
	return true;
}

/* Each --times KIND=FILE to its kind of --devices (o->kind_times), else the
 * devices file's times of that kind: KIND must be one of them, each named
 * once.  False after a message (pre as for parse_options). */
static bool kind_times(ui_opts *o, const char *pre)
{
	for (int d = 0; d < SC_KINDS_MAX; d++)
		o->kind_times[d] =
		        o->devices && o->devfile.times[d][0] ? o->devfile.times[d] : NULL;
	bool given[SC_KINDS_MAX] = {false};
	for (int i = 0; i < o->ntimes_kind; i++) {
		const char *a = o->times_kind[i], *eq = strchr(a, '=');
		char name[SC_KIND_NAME];
		snprintf(name, sizeof name, "%.*s", (int)(eq - a), a);
		int d = o->devices ? sc_fleet_find(&o->fleet, name) : -1;
		if (d < 0) {
			ui_error("%s--times %s: '%s' is not a kind of device of --devices%s", pre,
			         a, name, o->devices ? "" : " (give --devices)");
			return false;
		}
		if (given[d]) {
			ui_error("%s--times: two files for the device '%s'", pre, name);
			return false;
		}
		if (o->fleet.kind[d].cpu) {
			ui_error("%s--times %s: the CPU's op times are the graph file's (cpu_work, "
			         "cpuLatency)",
			         pre, a);
			return false;
		}
		given[d] = true;
		o->kind_times[d] = eq + 1; /* over the devices file's */
	}
	return true;
}

/* The message for the argument getopt_long just refused ('?', optopt): a
 * flag given a value, an ambiguous abbreviation or an unknown option of
 * cmd (takes, pre as for parse_options). */
static void refuse_option(char **argv, const ui_option_id *takes, const char *pre, const char *cmd)
{
	char text[64], alts[256];
	if (is_flag_with_value(argv, optopt, takes))
		ui_error("%soption '%s' takes no value", pre,
		         option_text(argv, optopt, text, sizeof text));
	else if (ambiguous_option(argv, optopt, takes, alts, sizeof alts))
		ui_error("%soption '%s' is ambiguous: %s", pre,
		         option_text(argv, optopt, text, sizeof text), alts);
	else if (*pre)
		ui_error("%sunknown option '%s' (see 'stagecut %s --help')", pre,
		         option_text(argv, optopt, text, sizeof text), cmd);
	else
		ui_error("unknown option '%s' (see 'stagecut --help')",
		         option_text(argv, optopt, text, sizeof text));
}

/* Reads argv (argc of them; argv[0] is the command's name) with the
 * options in takes into o, the rest into o->pos, one option at a time in
 * the order given: read_value for the kinds the table types,
 * read_setting and read_run_value for the rest.  Stops at -h with true.
 * False after a message naming cmd (o->pos then still to free). */
static bool parse_options(int argc, char **argv, const ui_option_id *takes, ui_opts *o,
                          const char *cmd)
{
	struct option longs[NOPTIONS + 1];
	char shorts[3 * NOPTIONS + 2];
	getopt_tables(takes, longs, shorts);
	/* messages start "info: "; the program's own options need no prefix */
	char pre[32], text[64];
	snprintf(pre, sizeof pre, "%s%s", strcmp(cmd, "stagecut") == 0 ? "" : cmd,
	         strcmp(cmd, "stagecut") == 0 ? "" : ": ");
	if (!opts_init(o, argc))
		return false;
	optind = 0; /* 0, not 1: also resets glibc's state inside a flag cluster */
	opterr = 0;
	for (;;) {
		int idx = -1;
		int c = getopt_long(argc, argv, shorts, longs, &idx);
		if (c == -1)
			break;
		if (c == ':') {
			ui_error("%soption '%s' needs a value", pre,
			         option_text(argv, optopt, text, sizeof text));
			return false;
		}
		/* '?' and anything else unknown stay OPT_NONE */
		ui_option_id id = c >= OPT_VAL && c < OPT_VAL + OPT_COUNT
		                          ? (ui_option_id)(c - OPT_VAL)
		                          : OPT_NONE;
		for (int i = 0; i < NOPTIONS; i++)
			if (options[i].short_name && c == options[i].short_name)
				id = options[i].id;
		const ui_option *op = NULL;
		for (int i = 0; i < NOPTIONS && !op; i++)
			if (options[i].id == (int)id)
				op = &options[i];
		if (op && op->kind != OK_CUSTOM) {
			if (!read_value(op, optarg, o, pre))
				return false;
			continue;
		}
		if (id == OPT_HELP)
			return true;
		if (id == OPT_NONE || id == OPT_COUNT) {
			refuse_option(argv, takes, pre, cmd);
			return false;
		}
		if (!read_setting(id, optarg, o, pre, cmd) || !read_run_value(id, optarg, o, pre))
			return false;
	}
	for (int i = optind; i < argc; i++)
		o->pos[o->npos++] = argv[i];
	/* --memory-reserve comes out of a devices file's memory too (the
	 * settings' and the graph's kinds lose it when loaded: ui.c) */
	for (int d = 0; o->devices && d < o->fleet.n; d++)
		if (o->fleet.kind[d].own_memory > 0)
			o->fleet.kind[d].own_memory =
			        fmax(1, o->fleet.kind[d].own_memory - o->reserve);
	return kind_times(o, pre);
}

static bool wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return false;
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return true;
	}
	return false;
}

static int run_main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
		printf("stagecut %s\n", SC_VERSION);
		return UI_EXIT_OK;
	}
	const ui_command *cmd = NULL;
	if (argc >= 2)
		for (int i = 0; i < NCOMMANDS; i++)
			if (strcmp(argv[1], commands[i].name) == 0)
				cmd = &commands[i];
	ui_opts o;
	int status;
	if (!cmd) {
		if (wants_help(argc, argv)) {
			usage_main(stdout);
			return UI_EXIT_OK;
		}
		if (!parse_options(argc, argv, OPTIONS(SETTINGS, OPT_PARTITION, OPT_DEVICES), &o,
		                   "stagecut")) {
			free(o.pos);
			return UI_EXIT_INPUT;
		}
		if (o.npos > 1) {
			ui_error("unknown command '%s' (see 'stagecut --help')", o.pos[0]);
			free(o.pos);
			return UI_EXIT_INPUT;
		}
		status = ui_workbench(&o);
		free(o.pos);
		return status;
	}
	if (wants_help(argc - 1, argv + 1)) {
		usage_command(stdout, cmd);
		return UI_EXIT_OK;
	}
	if (!parse_options(argc - 1, argv + 1, cmd->takes, &o, cmd->name)) {
		free(o.pos);
		return UI_EXIT_INPUT;
	}
	if (o.npos < cmd->min_pos || o.npos > cmd->max_pos) {
		ui_error("%s: expected %s (see 'stagecut %s --help')", cmd->name,
		         cmd->max_pos == 0   ? "no FILE"
		         : cmd->max_pos > 2  ? "one or more arguments"
		         : cmd->min_pos == 1 ? "one FILE"
		                             : "FILE and PARTITION",
		         cmd->name);
		free(o.pos);
		return UI_EXIT_INPUT;
	}
	/* -o (and render's pages) naming a file the command reads would
	 * replace its input with its output: refused before anything runs */
	if (!ui_outputs_check(&o, cmd->name)) {
		free(o.pos);
		return UI_EXIT_INPUT;
	}
	/* CPU stages (001 section 3): the commands that do not place them yet say
	 * so rather than ignore them */
	if ((o.cpus > 0 || o.cpus == UI_CPUS_FILE) && strcmp(cmd->name, "info") != 0 &&
	    strcmp(cmd->name, "eval") != 0 && strcmp(cmd->name, "solve") != 0 &&
	    strcmp(cmd->name, "render") != 0 && strcmp(cmd->name, "bounds") != 0 &&
	    strcmp(cmd->name, "bench") != 0) {
		ui_error("%s: --cpus: CPU stages are not supported by %s yet (info, eval, render, "
		         "bounds, bench, solve, with every method, and the workbench take them)",
		         cmd->name, cmd->name);
		free(o.pos);
		return UI_EXIT_INPUT;
	}
	/* --devices names every stage's kind: -k may only repeat their sum,
	 * and --cpus L is a fleet's short form, not a second count */
	if (o.devices && ((o.k > 0 && o.k != sc_fleet_stages(&o.fleet)) || o.cpus != -1)) {
		ui_error("%s: --devices %s gives %d stages: %s", cmd->name, o.devices,
		         sc_fleet_stages(&o.fleet),
		         o.cpus != -1 ? "name the CPUs in it (cpu:L), not with --cpus"
		                      : "-k must be that sum or not given");
		free(o.pos);
		return UI_EXIT_INPUT;
	}
	o.gpipe_cpus = cmd->gpipe_cpus;
	status = cmd->run(&o);
	free(o.pos);
	return status;
}

int ui_main(int argc, char **argv)
{
	/* a reader that closes early (| head, a FIFO) must not kill the
	 * program with SIGPIPE (exit 141): the write fails with EPIPE and the
	 * program says so, exit 2, as for a full disk */
	signal(SIGPIPE, SIG_IGN);
	int status = run_main(argc, argv);
	/* a report that could not be written (a full disk, a closed pipe) is
	 * not a success: scripts would take a lost result for a good one */
	errno = 0;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		ui_error("standard output: cannot write: %s",
		         errno ? strerror(errno) : "write error");
		return UI_EXIT_INPUT;
	}
	return status;
}
