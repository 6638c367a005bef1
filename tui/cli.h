/*
 * cli.h - the command-line front end: commands, their options and help.
 *
 * Every command is a row of one table (cli.c) with its synopsis, a one-line
 * summary, its help text and its run function; `stagecut --help`,
 * `stagecut COMMAND --help` and the man page's synopsis come from it.
 * Options are parsed into a ui_opts that is passed to the command; nothing
 * lives in globals.  Exit statuses: 0 success, 1 no feasible or valid
 * partition, 2 bad input or usage.
 */
#ifndef UI_CLI_H
#define UI_CLI_H

#include <stdbool.h>

#include "core/graph.h"

enum { UI_EXIT_OK = 0, UI_EXIT_INFEASIBLE = 1, UI_EXIT_INPUT = 2 };

typedef struct ui_opts {
	int k;            /* 0 = not given */
	double bandwidth; /* 0 = not given */
	double memory;    /* < 0 = not given; INFINITY = unlimited */
	int policy;       /* -1 = not given, else an sc_mem_policy */
	bool json;
	const char *output; /* -o */
	/* solve and gen */
	const char *method;
	unsigned long long seed;
	double time_limit;  /* 0 = none */
	long evals;         /* 0 = the method's default */
	int population, generations;
	double elite, mutants, bias; /* < 0 = default */
	long ideal_limit;   /* 0 = default */
	bool no_refine;
	const char *partition; /* --partition: a starting partition */
	int nodes;          /* gen: 0 = not given */
	int layers;         /* gen: 0 = not given */
	const char *model;
	const char *rungs; /* bounds: --rungs */
	/* render */
	const char *format; /* -T */
	bool full;
	int max_ops;        /* 0 = default */
	const char *bounds; /* --bounds FILE */
	/* bench */
	const char *klist;   /* -k as given: "2,4,8" */
	const char *methods; /* --methods */
	int jobs;
	int part_i, part_n; /* --part I/N; 0 = all */
	bool merge;
	int npos;
	char **pos; /* positional arguments (borrowed from argv) */
} ui_opts;

/* Applies the options that override settings (-k, -B, -M, --memory-policy)
 * to s. */
void ui_opts_apply(const ui_opts *o, sc_settings *s);

/* Prints "stagecut: MESSAGE" on stderr. */
void ui_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Runs the program; returns the exit status. */
int ui_main(int argc, char **argv);

/* The commands (cmd_*.c); argv[0] is the command name. */
int ui_cmd_info(const ui_opts *o);
int ui_cmd_eval(const ui_opts *o);
int ui_cmd_solve(const ui_opts *o);
int ui_cmd_gen(const ui_opts *o);
int ui_cmd_bounds(const ui_opts *o);
int ui_cmd_render(const ui_opts *o);
int ui_cmd_bench(const ui_opts *o);
int ui_workbench(const ui_opts *o);

/* The path of the bundled sample opened when no FILE is given, in buf. */
const char *ui_default_sample(char *buf, size_t size);

#endif
