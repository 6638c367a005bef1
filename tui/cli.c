/*
 * cli.c - command table, option parsing and help.  See cli.h.
 *
 * Options and commands are data: one table of options (with their help
 * lines) and one of commands (each with the set of options it takes).  The
 * getopt_long arrays and every help screen are generated from them, and a
 * test checks that each option also appears in the man page.
 */
#define _GNU_SOURCE
#include "cli.h"

#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/load.h"

#ifndef SC_VERSION
#define SC_VERSION "0.1.0"
#endif

enum {
	OPT_K = 1 << 0,
	OPT_BANDWIDTH = 1 << 1,
	OPT_MEMORY = 1 << 2,
	OPT_POLICY = 1 << 3,
	OPT_JSON = 1 << 4,
	OPT_OUTPUT = 1 << 5,
	OPT_HELP = 1 << 6,
};

typedef struct ui_option {
	int id;
	const char *name; /* long name */
	char short_name;  /* or 0 */
	const char *arg;  /* argument name, or NULL for a flag */
	const char *help;
} ui_option;

static const ui_option options[] = {
        {OPT_K, "k", 'k', "K", "number of pipeline stages (default: the file's k)"},
        {OPT_BANDWIDTH, "bandwidth", 'B', "B",
         "bandwidth in bytes per time unit (default: the file's, else 1)"},
        {OPT_MEMORY, "memory", 'M', "BYTES",
         "fast memory per stage in bytes, or 'inf' (default: the file's, else inf)"},
        {OPT_POLICY, "memory-policy", 0, "P",
         "'overflow' (pay for spilled bytes) or 'hard' (forbid)"},
        {OPT_OUTPUT, "output", 'o', "FILE", "write the result to FILE (atomically)"},
        {OPT_JSON, "json", 0, NULL, "print one JSON object on stdout (schema in stagecut(1))"},
        {OPT_HELP, "help", 'h', NULL, "show this help and exit"},
};
#define NOPTIONS (int)(sizeof options / sizeof options[0])

typedef struct ui_command {
	const char *name;
	const char *synopsis;
	const char *summary;
	const char *help; /* paragraph after the synopsis */
	int takes;        /* OPT_* bits */
	int min_pos, max_pos;
	int (*run)(const ui_opts *o);
} ui_command;

#define SETTINGS (OPT_K | OPT_BANDWIDTH | OPT_MEMORY | OPT_POLICY)

static const ui_command commands[] = {
        {
                .name = "info",
                .synopsis = "info FILE [--json]",
                .summary = "sizes, totals and the simple lower bound per k",
                .help = "Prints the graph's ops, edges, groups, totals and settings, and the "
                        "simple\n"
                        "lower bound max(largest op or group work, total work / k) for k = 2, 4, "
                        "8,\n"
                        "16, 32, 64 (and the file's k).",
                .takes = SETTINGS | OPT_JSON | OPT_HELP,
                .min_pos = 1,
                .max_pos = 1,
                .run = ui_cmd_info,
        },
        {
                .name = "eval",
                .synopsis = "eval FILE PARTITION [--json]",
                .summary = "stage costs, bottleneck and validity of a partition",
                .help = "Evaluates the partition file PARTITION on the graph FILE: per stage its "
                        "ops,\n"
                        "work, io in, io out, overflow and cost, and the bottleneck.  Exits 1 when "
                        "the\n"
                        "partition is invalid (naming the first offending edge or group) or breaks "
                        "a\n"
                        "hard memory limit.",
                .takes = OPT_BANDWIDTH | OPT_MEMORY | OPT_POLICY | OPT_JSON | OPT_HELP,
                .min_pos = 2,
                .max_pos = 2,
                .run = ui_cmd_eval,
        },
};
#define NCOMMANDS (int)(sizeof commands / sizeof commands[0])

void ui_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("stagecut: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

void ui_opts_apply(const ui_opts *o, sc_settings *s)
{
	if (o->k > 0)
		s->k = o->k;
	if (o->bandwidth > 0)
		s->bandwidth = o->bandwidth;
	if (o->memory >= 0)
		s->memory = o->memory;
	if (o->policy >= 0)
		s->policy = (sc_mem_policy)o->policy;
}

static void print_options(FILE *f, int takes)
{
	for (int i = 0; i < NOPTIONS; i++) {
		const ui_option *op = &options[i];
		if (!(takes & op->id))
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
	fprintf(f, "Usage: stagecut [FILE] [-k K]          open the workbench (a bundled sample "
	           "without FILE)\n");
	for (int i = 0; i < NCOMMANDS; i++)
		fprintf(f, "       stagecut %-29s %s\n", commands[i].synopsis, commands[i].summary);
	fprintf(f,
	        "       stagecut COMMAND --help\n"
	        "       stagecut --version\n\n"
	        "Splits a model's computation graph (DOT or msr-fiddle JSON) into k pipeline\n"
	        "stages so that the slowest stage is as fast as possible.\n"
	        "Exit status: 0 success, 1 no valid or feasible partition, 2 bad input or usage.\n"
	        "See stagecut(1).\n");
}

static void usage_command(FILE *f, const ui_command *c)
{
	fprintf(f, "Usage: stagecut %s\n\n%s\n\nOptions:\n", c->synopsis, c->help);
	print_options(f, c->takes);
}

static bool parse_options(int argc, char **argv, int takes, ui_opts *o, const char *cmd)
{
	struct option longs[NOPTIONS + 1];
	char shorts[3 * NOPTIONS + 2];
	int nl = 0, ns = 0;
	shorts[ns++] = ':'; /* report a missing value as ':' */
	for (int i = 0; i < NOPTIONS; i++) {
		if (!(takes & options[i].id))
			continue;
		longs[nl++] = (struct option){options[i].name,
		                              options[i].arg ? required_argument : no_argument,
		                              NULL, options[i].id};
		if (options[i].short_name) {
			shorts[ns++] = options[i].short_name;
			if (options[i].arg)
				shorts[ns++] = ':';
		}
	}
	shorts[ns] = '\0';
	longs[nl] = (struct option){0, 0, 0, 0};
	memset(o, 0, sizeof *o);
	o->memory = -1;
	o->policy = -1;
	o->pos = calloc((size_t)argc + 1, sizeof *o->pos);
	if (!o->pos) {
		ui_error("out of memory");
		return false;
	}
	optind = 1;
	opterr = 0;
	for (;;) {
		int idx = -1;
		int c = getopt_long(argc, argv, shorts, longs, &idx);
		if (c == -1)
			break;
		int id = c;
		for (int i = 0; i < NOPTIONS; i++)
			if (options[i].short_name && c == options[i].short_name)
				id = options[i].id;
		const char *a = optarg;
		char *end;
		switch (id) {
		case OPT_K: {
			long k = strtol(a, &end, 10);
			if (*a == '\0' || *end || k < 1 || k > 1000000) {
				ui_error("%s: -k: '%s' is not an integer from 1 to 1000000", cmd,
				         a);
				return false;
			}
			o->k = (int)k;
			break;
		}
		case OPT_BANDWIDTH:
			if (!sc_parse_weight(a, &o->bandwidth) || o->bandwidth <= 0) {
				ui_error("%s: --bandwidth: '%s' is not a finite number > 0", cmd,
				         a);
				return false;
			}
			break;
		case OPT_MEMORY:
			if (strcmp(a, "inf") == 0 || strcmp(a, "unlimited") == 0)
				o->memory = INFINITY;
			else if (!sc_parse_weight(a, &o->memory)) {
				ui_error("%s: --memory: '%s' is not a number >= 0 or 'inf'", cmd,
				         a);
				return false;
			}
			break;
		case OPT_POLICY: {
			sc_mem_policy p;
			if (!sc_mem_policy_parse(a, &p)) {
				ui_error("%s: --memory-policy: '%s' is not 'overflow' or 'hard'",
				         cmd, a);
				return false;
			}
			o->policy = (int)p;
			break;
		}
		case OPT_JSON: o->json = true; break;
		case OPT_OUTPUT: o->output = a; break;
		case OPT_HELP: return true;
		case ':':
			ui_error("%s: option '%s' needs a value", cmd, argv[optind - 1]);
			return false;
		default:
			ui_error("%s: unknown option '%s' (see 'stagecut %s%s--help')", cmd,
			         argv[optind - 1], strcmp(cmd, "stagecut") ? cmd : "",
			         strcmp(cmd, "stagecut") ? " " : "");
			return false;
		}
	}
	for (int i = optind; i < argc; i++)
		o->pos[o->npos++] = argv[i];
	return true;
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

int ui_main(int argc, char **argv)
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
		if (!parse_options(argc, argv, OPT_K | SETTINGS, &o, "stagecut")) {
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
		         cmd->min_pos == 1 ? "one FILE" : "FILE and PARTITION", cmd->name);
		free(o.pos);
		return UI_EXIT_INPUT;
	}
	status = cmd->run(&o);
	free(o.pos);
	return status;
}
