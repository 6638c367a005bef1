/*
 * workbench.h - the ncurses workbench, the one entry point of tui/wb/.
 */
#ifndef UI_WORKBENCH_H
#define UI_WORKBENCH_H

#include <stddef.h>

#include "tui/ui.h"

/* Runs the workbench on o->pos[0] (the bundled sample when there is none)
 * until the engineer quits; returns the exit status. */
int ui_workbench(const ui_opts *o);

/* The path of the bundled sample opened when no FILE is given, in buf. */
const char *ui_default_sample(char *buf, size_t size);

#endif
