/*
 * solve_cpu.h - `stagecut solve --cpus L`: any method with CPU stages
 * beside the k accelerators (solvers/search.h; issue 29).  See
 * solve_cpu.c.
 */
#ifndef UI_SOLVE_CPU_H
#define UI_SOLVE_CPU_H

#include "core/graph.h"
#include "tui/ui.h"

/* Solves g (its settings: k >= 1, cpus >= 1) for the options o with the
 * method asked for (refinement from --partition, whose file may name CPU
 * stages) and prints the result as solve does (the stage table with a
 * device column, or JSON); writes -o with the devices.  Refuses (exit 2)
 * --pin and --proof, which do not take CPU stages yet.  deadline:
 * ui_deadline(o).  Returns the exit status.  g stays the caller's. */
int ui_solve_cpus(const ui_opts *o, const sc_graph *g, double deadline);

#endif
