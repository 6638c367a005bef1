/*
 * partition_dot.c - the DOT partition file: a DOT graph whose nodes carry
 * 1-based `stage` attributes.  See partition_file.h.
 *
 * It is read with the DOT graph loader (load_dot.c), which already takes
 * stages as a graph's initial partition, so the file is checked as any DOT
 * graph is (syntax, weights, cycles) and its stages as the loader checks
 * them (integers from 1 to the graph attribute k, every node or none); its
 * ops are then matched to the graph's by name, with the JSON format's
 * messages.  It is written by sc_write_dot_partition: `stagecut FILE` opens
 * it as a graph with its stages.  DOT names no devices, so a partition
 * with a CPU stage is refused rather than written without them.
 */
#define _POSIX_C_SOURCE 200809L
#include "partition_file.h"

#include <stdlib.h>

#include "write_dot.h"

/* What the DOT loader takes for DOT: a keyword or a comment first, else the
 * extension .dot or .gv. */
static int probe_dot(const char *path, const char *head, size_t len)
{
	return sc_loader_dot.probe(path, head, len);
}

/* The reader of sc_part_format_dot. */
static sc_status read_dot(const char *path, const char *data, size_t len, const sc_graph *g,
                          int *k_out, int *stage, char ***names_out, sc_error *err)
{
	*names_out = NULL;
	sc_error mine;
	sc_error *e = err ? err : &mine;
	sc_graph *h = sc_loader_dot.load(path, data, len, NULL, e);
	if (!h)
		return e->code;
	sc_status st = SC_OK;
	if (!h->init_stage) {
		st = sc_error_set(err, SC_ERR_INPUT,
		                  "%s: no node has a 'stage' attribute, so the DOT graph is not a "
		                  "partition",
		                  path);
		goto out;
	}
	for (int v = 0; v < g->n; v++)
		stage[v] = -1; /* no stage yet: the loader's stages are 0 or more */
	for (int i = 0; i < h->n; i++) {
		int v = sc_graph_find(g, h->op_name[i]);
		if (v < 0) {
			st = sc_error_set(err, SC_ERR_INPUT, "%s: unknown op '%s' (not in %s)",
			                  path, h->op_name[i], g->source);
			goto out;
		}
		stage[v] = h->init_stage[i];
	}
	sc_part_fill_backward(g, stage, -1);
	for (int v = 0; v < g->n; v++)
		if (stage[v] < 0) {
			st = sc_error_set(err, SC_ERR_INPUT, "%s: op '%s' of %s has no stage", path,
			                  g->op_name[v], g->source);
			goto out;
		}
	/* the graph attribute k, or the largest stage without one */
	*k_out = h->settings.k;
out:
	sc_graph_free(h);
	return st;
}

/* The writer of sc_part_format_dot: costs are for readers of JSON only. */
static sc_status write_dot(const char *path, const sc_graph *g, const int *stage, int k,
                           const sc_costs *costs, bool (*stop)(void *), void *ctx, sc_error *err)
{
	if (sc_costs_names_devices(costs, k))
		return sc_error_set(err, SC_ERR_INPUT,
		                    "%s: the partition has %s, which a DOT partition file cannot "
		                    "name; nothing written (a name not ending in .dot or .gv "
		                    "writes a JSON partition file, which can)",
		                    path, sc_costs_has_cpu(costs) ? "CPU stages" : "device kinds");
	(void)stop, (void)ctx; /* (the ops, not the stages: as long as the graph) */
	return sc_write_dot_partition(g, stage, k, path, err);
}

const sc_part_format sc_part_format_dot = {
        .name = "dot",
        .probe = probe_dot,
        .read = read_dot,
        .write = write_dot,
};
