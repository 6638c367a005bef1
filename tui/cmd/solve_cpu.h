/*
 * solve_cpu.h - `stagecut solve --cpus L`: any method with CPU stages
 * beside the k accelerators (solvers/search.h; 001 section 3).  See
 * solve_cpu.c.
 */
#ifndef UI_SOLVE_CPU_H
#define UI_SOLVE_CPU_H

#include "tui/cmd/solve_report.h"
#include "tui/ui.h"

/* Solves r->g (r from ui_solve_report_init; its settings: k >= 1, cpus >=
 * 1) for the options o with the method asked for (refinement from
 * --partition, whose file may name CPU stages) into r, a partition with a
 * device per stage, proven by the exact DP, the simple bound with CPU
 * stages or (--proof) the exact MIP; writes -o with the devices; keeps
 * r->set.pin (--pin, stages of the K in pipeline order).  deadline:
 * ui_deadline(o).  Returns UI_EXIT_OK when r is to be printed
 * (ui_solve_print), else the exit status after a message. */
int ui_solve_cpus(const ui_opts *o, double deadline, ui_solve_report *r);

#endif
