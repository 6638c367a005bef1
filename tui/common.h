/*
 * common.h - what the commands share: loading the graph with the command
 * line's settings applied, and printing errors.
 */
#ifndef UI_COMMON_H
#define UI_COMMON_H

#include <stdio.h>

#include "cli.h"
#include "core/graph.h"

/* Loads path and applies o's setting overrides.  On failure prints the
 * error and returns NULL; *status is then the exit status to use. */
sc_graph *ui_load(const char *path, const ui_opts *o, int *status);

/* Prints a JSON value to stdout with the shared flags, then a newline, and
 * frees it.  Returns false (after printing an error) when out of memory. */
#include <jansson.h>
bool ui_print_json(json_t *v);

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

/* Parses a comma-separated list of rung names into bits (1u << sc_rung);
 * prints the error and returns false on an unknown name. */
bool ui_parse_rungs(const char *list, unsigned *out);

/* How reports name a rung's state: optimal, time_limit, cancelled, error. */
const char *ui_rung_status_name(sc_rung_state s);

#endif
