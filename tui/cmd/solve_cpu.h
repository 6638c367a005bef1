/*
 * solve_cpu.h - `stagecut solve --cpus L`: the exact optimum with CPU
 * stages beside the k accelerators (solvers/cpu_exact.h; issue 29).  See
 * solve_cpu.c.
 */
#ifndef UI_SOLVE_CPU_H
#define UI_SOLVE_CPU_H

#include "core/graph.h"
#include "tui/ui.h"

/* Solves g (its settings: k >= 1, cpus >= 1) for the options o and
 * prints the result as solve does (the stage table with a device column,
 * or JSON); writes -o.  Refuses (exit 2) the methods, --partition, --pin
 * and --proof that do not take CPU stages yet.  deadline: ui_deadline(o).
 * Returns the exit status.  g stays the caller's. */
int ui_solve_cpus(const ui_opts *o, const sc_graph *g, double deadline);

#endif
