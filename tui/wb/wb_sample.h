/*
 * wb_sample.h - the first partition at start-up (wb_sample.c).
 */
#ifndef UI_WB_SAMPLE_H
#define UI_WB_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/cost.h"
#include "core/graph.h"

/* A first partition at once into stage: DPL and refinement for graphs up to
 * 20 000 ops, else the greedy equal-work split; where it came from in
 * origin. */
void wb_first_partition(const sc_graph *g, const sc_settings *set, int *stage, char *origin,
                        size_t size);
/* With CPU stages: a fast search (dpl, half a second) under set (k
 * accelerator and set->cpus CPU stages) into stage and its kinds into
 * kind (k + cpus of them, 1 a CPU); false when it finds no partition that
 * fits. */
bool wb_first_partition_cpus(const sc_graph *g, const sc_settings *set, int *stage, int *kind,
                             char *origin, size_t size);

#endif
