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

#include "tui/ui.h"

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
int ui_cmd_export(const ui_opts *o);
int ui_cmd_calibrate(const ui_opts *o);

#endif
