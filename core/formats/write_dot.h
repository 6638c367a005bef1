/*
 * write_dot.h - writing a graph (and optionally a partition) as DOT, through
 * cgraph, so that `stagecut` reads back exactly what it wrote.
 */
#ifndef SC_WRITE_DOT_H
#define SC_WRITE_DOT_H

#include "core/graph.h"

/* Writes g as a DOT digraph to path atomically: graph attributes k,
 * bandwidth, memory, memory_policy (those that differ from the defaults),
 * node attributes work, param, out, group, and stage (1-based) when stage is
 * not NULL.  Numbers are written with 17 significant digits.  Fails
 * (SC_ERR_INPUT, nothing written) for a name DOT cannot hold: an odd run
 * of backslashes before a quote, a line break or the name's end (one from
 * JSON or ONNX; a name read from DOT never has one). */
sc_status sc_write_dot(const sc_graph *g, const int *stage, const char *path, sc_error *err);

/* sc_write_dot of a partition: stage (0-based, not NULL) in k stages, the
 * graph attribute k being the partition's k rather than g's own, so that
 * the file reads back as the partition (partition_file.h). */
sc_status sc_write_dot_partition(const sc_graph *g, const int *stage, int k, const char *path,
                                 sc_error *err);

#endif
