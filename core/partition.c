/*
 * partition.c - validity, legal ranges and partition files.  See partition.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "partition.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "fileio.h"
#include "mem.h"
#include "parse.h"
#include "report.h"

#define SC_PART_FORMAT "stagecut-partition/1"

/* The 1-based stages a partition file's numbers are kept as: a number
 * beyond them is kept as the nearer end (it is outside 1..k all the same);
 * INT_MIN, one below, marks an op with no stage while reading. */
#define STAGE_MAX INT_MAX
#define STAGE_MIN (INT_MIN + 2)

bool sc_part_check(const sc_graph *g, const int *stage, int k, sc_violation *v)
{
	sc_violation none = {SC_VIOL_NONE, -1, -1};
	for (int u = 0; u < g->n; u++)
		if (stage[u] < 0 || stage[u] >= k) {
			if (v)
				*v = (sc_violation){SC_VIOL_RANGE, u, -1};
			return false;
		}
	for (int u = 0; u < g->n; u++) {
		for (int i = g->succ_off[u]; i < g->succ_off[u + 1]; i++) {
			int w = g->succ[i];
			sc_edge_rule r = sc_graph_edge_rule(g, u, w);
			if ((r == SC_RULE_FORWARD && stage[w] < stage[u]) ||
			    (r == SC_RULE_MIRROR && stage[w] > stage[u])) {
				if (v)
					*v = (sc_violation){r == SC_RULE_FORWARD ? SC_VIOL_EDGE
					                                         : SC_VIOL_MIRROR,
					                    u, w};
				return false;
			}
		}
		int gr = g->group[u];
		if (gr >= 0) {
			int first = g->group_ops[g->group_off[gr]];
			if (stage[first] != stage[u]) {
				if (v)
					*v = (sc_violation){SC_VIOL_GROUP, first, u};
				return false;
			}
		}
	}
	if (v)
		*v = none;
	return true;
}

void sc_part_describe(const sc_graph *g, const int *stage, const sc_violation *v, char *buf,
                      size_t size)
{
	switch (v->kind) {
	case SC_VIOL_NONE: snprintf(buf, size, "valid"); break;
	case SC_VIOL_RANGE:
		/* sc_part_read keeps stages beyond an int at its ends */
		sc_msg_format(buf, size, "op '%s' is in stage %d%s, outside 1..k", g->op_name[v->a],
		              stage[v->a] + 1,
		              stage[v->a] + 1 == STAGE_MAX   ? " or above"
		              : stage[v->a] + 1 == STAGE_MIN ? " or below"
		                                             : "");
		break;
	case SC_VIOL_EDGE:
		sc_msg_format(buf, size, "edge '%s' -> '%s' goes from stage %d back to stage %d",
		              g->op_name[v->a], g->op_name[v->b], stage[v->a] + 1, stage[v->b] + 1);
		break;
	case SC_VIOL_MIRROR:
		sc_msg_format(
		        buf, size,
		        "edge '%s' -> '%s' goes from stage %d on to stage %d, but an edge between "
		        "backward ops, one of them an orphan, never goes to a later stage",
		        g->op_name[v->a], g->op_name[v->b], stage[v->a] + 1, stage[v->b] + 1);
		break;
	case SC_VIOL_GROUP:
		sc_msg_format(buf, size,
		              "group '%s' is split: '%s' is in stage %d, '%s' in stage %d",
		              g->group_name[g->group[v->a]], g->op_name[v->a], stage[v->a] + 1,
		              g->op_name[v->b], stage[v->b] + 1);
		break;
	case SC_VIOL_DEVICE:
		if (sc_graph_accel_ok(g, v->a))
			sc_msg_format(buf, size,
			              "op '%s' is on stage %d, a CPU stage, but has no CPU time "
			              "(only an accelerator may hold it)",
			              g->op_name[v->a], v->b + 1);
		else
			sc_msg_format(
			        buf, size,
			        "op '%s' is on stage %d, an accelerator, but is not supported "
			        "on an accelerator (only a CPU stage may hold it)",
			        g->op_name[v->a], v->b + 1);
		break;
	}
}

/* Narrows [*lo, *hi] by the neighbours of op u along the order arcs that
 * are not in group gr. */
static void narrow(const sc_graph *g, const int *stage, int u, int gr, int *lo, int *hi)
{
	for (int i = g->ord_pred_off[u]; i < g->ord_pred_off[u + 1]; i++) {
		int p = g->ord_pred[i];
		if ((gr < 0 || g->group[p] != gr) && stage[p] > *lo)
			*lo = stage[p];
	}
	for (int i = g->ord_succ_off[u]; i < g->ord_succ_off[u + 1]; i++) {
		int s = g->ord_succ[i];
		if ((gr < 0 || g->group[s] != gr) && stage[s] < *hi)
			*hi = stage[s];
	}
}

void sc_part_legal_range(const sc_graph *g, const int *stage, int k, int v, int *lo, int *hi)
{
	*lo = 0;
	*hi = k - 1;
	int gr = g->group[v];
	if (gr < 0) {
		narrow(g, stage, v, -1, lo, hi);
		return;
	}
	for (int i = g->group_off[gr]; i < g->group_off[gr + 1]; i++)
		narrow(g, stage, g->group_ops[i], gr, lo, hi);
}

bool sc_part_check_devices(const sc_graph *g, const int *stage, int k, const bool *cpu,
                           sc_violation *v)
{
	if (!sc_part_check(g, stage, k, v))
		return false;
	for (int u = 0; u < g->n; u++) {
		bool on_cpu = cpu && cpu[stage[u]];
		if (on_cpu ? !sc_graph_cpu_ok(g, u) : !sc_graph_accel_ok(g, u)) {
			if (v)
				*v = (sc_violation){SC_VIOL_DEVICE, u, stage[u]};
			return false;
		}
	}
	return true;
}

sc_status sc_part_read(const char *path, const sc_graph *g, int *k_out, int *stage, sc_error *err)
{
	bool *cpu = NULL;
	sc_status st = sc_part_read_devices(path, g, k_out, stage, &cpu, err);
	if (st == SC_OK && cpu) {
		free(cpu);
		return sc_error_set(err, SC_ERR_INPUT,
		                    "%s: the partition has CPU stages, which this command does "
		                    "not take yet (eval and solve do)",
		                    path);
	}
	return st;
}

/* Reads the optional "devices" array of k entries into *cpu_out (NULL when
 * absent or all "accel"). */
static sc_status read_devices(json_t *root, const char *path, int k, bool **cpu_out, sc_error *err)
{
	*cpu_out = NULL;
	json_t *dev = json_object_get(root, "devices");
	if (!dev)
		return SC_OK;
	if (!json_is_array(dev) || json_array_size(dev) != (size_t)k)
		return sc_error_set(err, SC_ERR_INPUT,
		                    "%s: \"devices\" must be an array of k = %d entries, each "
		                    "\"accel\" or \"cpu\"",
		                    path, k);
	bool *cpu = sc_calloc_n((size_t)k, sizeof *cpu);
	if (!cpu)
		return sc_error_nomem(err, "the partition's devices");
	bool any = false;
	for (int s = 0; s < k; s++) {
		const char *d = json_string_value(json_array_get(dev, (size_t)s));
		if (!d || (strcmp(d, "cpu") != 0 && strcmp(d, "accel") != 0)) {
			free(cpu);
			return sc_error_set(err, SC_ERR_INPUT,
			                    "%s: \"devices\"[%d] must be \"accel\" or \"cpu\"",
			                    path, s);
		}
		cpu[s] = strcmp(d, "cpu") == 0;
		any |= cpu[s];
	}
	if (any)
		*cpu_out = cpu;
	else
		free(cpu);
	return SC_OK;
}

sc_status sc_part_read_devices(const char *path, const sc_graph *g, int *k_out, int *stage,
                               bool **cpu_out, sc_error *err)
{
	*cpu_out = NULL;
	/* read it here rather than in jansson, for the same messages as graph
	 * files (and a directory is not "malformed JSON") */
	size_t len;
	char *text = sc_file_read_all(path, "a partition file", &len, err);
	if (!text)
		return err ? err->code : SC_ERR_IO;
	if (len == 0) {
		free(text);
		return sc_error_set(err, SC_ERR_INPUT, "%s: the file is empty", path);
	}
	json_error_t jerr;
	/* a repeated op name would silently keep one of its stages */
	json_t *root = sc_json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	free(text);
	if (!root)
		return sc_json_error(err, path, &jerr);
	sc_status st = SC_OK;
	json_t *fmt = json_object_get(root, "format");
	json_t *jk = json_object_get(root, "k");
	json_t *stages = json_object_get(root, "stages");
	if (!json_is_object(root)) {
		st = sc_error_set(err, SC_ERR_INPUT,
		                  "%s: not a partition file (expected a JSON object)", path);
		goto out;
	}
	if (!json_is_string(fmt) || strcmp(json_string_value(fmt), SC_PART_FORMAT) != 0) {
		st = sc_error_set(err, SC_ERR_INPUT,
		                  "%s: not a partition file (\"format\" must be \"%s\")", path,
		                  SC_PART_FORMAT);
		goto out;
	}
	json_int_t k64;
	if (!sc_json_whole(jk, &k64, NULL) || k64 < 1 || k64 > 1000000) {
		st = sc_error_set(err, SC_ERR_INPUT,
		                  "%s: \"k\" must be an integer from 1 to 1000000", path);
		goto out;
	}
	if (!json_is_object(stages)) {
		st = sc_error_set(err, SC_ERR_INPUT,
		                  "%s: \"stages\" must be an object mapping op names to stages",
		                  path);
		goto out;
	}
	int k = (int)k64;
	for (int v = 0; v < g->n; v++)
		stage[v] = INT_MIN;
	const char *name;
	json_t *val;
	json_object_foreach(stages, name, val)
	{
		int v = sc_graph_find(g, name);
		if (v < 0) {
			st = sc_error_set(err, SC_ERR_INPUT, "%s: unknown op '%s' (not in %s)",
			                  path, name, g->source);
			goto out;
		}
		/* any integer (a whole number, however written): one outside 1..k
		 * is an invalid partition, found by sc_part_check, however far
		 * outside */
		json_int_t s;
		if (!sc_json_whole(val, &s, NULL)) {
			char what[40];
			if (json_is_number(val))
				snprintf(what, sizeof what, "%.17g", json_number_value(val));
			st = sc_error_set(err, SC_ERR_INPUT,
			                  "%s: the stage of op '%s' must be an integer, not %s",
			                  path, name,
			                  json_is_number(val) ? what : sc_json_kind(val));
			goto out;
		}
		stage[v] = (int)(s > STAGE_MAX ? STAGE_MAX : s < STAGE_MIN ? STAGE_MIN : s) - 1;
	}
	for (int v = 0; v < g->n; v++)
		if (stage[v] == INT_MIN) {
			st = sc_error_set(err, SC_ERR_INPUT, "%s: op '%s' of %s has no stage", path,
			                  g->op_name[v], g->source);
			goto out;
		}
	st = read_devices(root, path, k, cpu_out, err);
	if (st != SC_OK)
		goto out;
	*k_out = k;
out:
	json_decref(root);
	return st;
}

sc_status sc_part_write(const char *path, const sc_graph *g, const int *stage, int k,
                        const sc_costs *costs, sc_error *err)
{
	return sc_part_write_devices(path, g, stage, k, NULL, costs, err);
}

sc_status sc_part_write_devices(const char *path, const sc_graph *g, const int *stage, int k,
                                const bool *cpu, const sc_costs *costs, sc_error *err)
{
	/* the loaders refuse names JSON cannot hold; say so, should one come
	 * another way, rather than take jansson's refusal for out of memory */
	for (int v = 0; v < g->n; v++)
		if (!sc_utf8_valid(g->op_name[v], NULL))
			return sc_error_set(err, SC_ERR_INPUT,
			                    "%s: op '%s': the name is not valid UTF-8, which a "
			                    "partition file cannot hold",
			                    path, g->op_name[v]);
	json_t *root = json_object();
	json_t *map = json_object();
	if (!root || !map)
		goto nomem;
	json_object_set_new(root, "format", json_string(SC_PART_FORMAT));
	json_object_set_new(root, "graph", sc_json_text(g->name));
	json_object_set_new(root, "k", json_integer(k));
	bool any_cpu = false;
	for (int s = 0; cpu && s < k; s++)
		any_cpu |= cpu[s];
	if (any_cpu) {
		json_t *dev = sc_report_devices(cpu, k);
		if (!dev)
			goto nomem;
		json_object_set_new(root, "devices", dev);
	}
	if (costs) {
		int at;
		double b = sc_costs_bottleneck(costs, &at);
		json_object_set_new(root, "bottleneck", json_real(b));
		json_object_set_new(root, "bottleneck_stage", json_integer(at + 1));
		json_t *arr = sc_report_stages(costs);
		if (!arr)
			goto nomem;
		json_object_set_new(root, "stage_costs", arr);
		json_t *obj = sc_report_objective(costs);
		if (obj)
			json_object_set_new(root, "training", obj);
	}
	/* a training graph's backward ops, named, so that a reader of the file
	 * alone can tell the passes apart */
	if (g->backward) {
		json_t *bw = json_array();
		if (!bw)
			goto nomem;
		for (int v = 0; v < g->n; v++)
			if (g->backward[v])
				json_array_append_new(bw, json_string(g->op_name[v]));
		json_object_set_new(root, "backward_ops", bw);
	}
	for (int v = 0; v < g->n; v++)
		if (json_object_set_new(map, g->op_name[v], json_integer(stage[v] + 1)) != 0)
			goto nomem;
	json_object_set_new(root, "stages", map);
	map = NULL;
	char *text = sc_json_dumps(root, SC_JSON_FLAGS);
	json_decref(root);
	if (!text)
		return sc_error_nomem(err, "the partition file");
	size_t len = strlen(text);
	text[len] = '\0';
	/* end with a newline, as text files should */
	char *full = malloc(len + 2);
	if (!full) {
		free(text);
		return sc_error_nomem(err, "the partition file");
	}
	memcpy(full, text, len);
	full[len] = '\n';
	free(text);
	sc_status st = sc_file_write_atomic(path, full, len + 1, err);
	free(full);
	return st;
nomem:
	json_decref(root);
	json_decref(map);
	return sc_error_nomem(err, "the partition file");
}

int *sc_part_new(const sc_graph *g)
{
	return sc_calloc_n((size_t)g->n, sizeof(int));
}

/* The checks sc_part_load and sc_part_load_devices share, on a file read. */
static sc_status check_loaded(const char *path, const sc_graph *g, int want_k, int k,
                              const int *stage, const bool *cpu, sc_violation *viol, sc_error *err)
{
	sc_violation v;
	if (want_k > 0 && k != want_k)
		return sc_error_set(err, SC_ERR_INPUT,
		                    "%s: the partition has k = %d, but k = %d is asked for", path,
		                    k, want_k);
	if (!sc_part_check_devices(g, stage, k, cpu, &v)) {
		char why[SC_PART_WHY_SIZE];
		sc_part_describe(g, stage, &v, why, sizeof why);
		if (viol)
			*viol = v;
		return sc_error_set(err, SC_ERR_INVALID, "%s: the partition is invalid: %s", path,
		                    why);
	}
	return SC_OK;
}

sc_status sc_part_load(const char *path, const sc_graph *g, int want_k, int *k_out, int *stage,
                       sc_violation *viol, sc_error *err)
{
	sc_violation none = {SC_VIOL_NONE, -1, -1};
	if (viol)
		*viol = none;
	*k_out = 0;
	int k;
	sc_status st = sc_part_read(path, g, &k, stage, err);
	if (st != SC_OK)
		return st;
	*k_out = k;
	return check_loaded(path, g, want_k, k, stage, NULL, viol, err);
}

sc_status sc_part_load_devices(const char *path, const sc_graph *g, int want_k, int *k_out,
                               int *stage, bool **cpu_out, sc_violation *viol, sc_error *err)
{
	sc_violation none = {SC_VIOL_NONE, -1, -1};
	if (viol)
		*viol = none;
	*k_out = 0;
	int k;
	sc_status st = sc_part_read_devices(path, g, &k, stage, cpu_out, err);
	if (st != SC_OK)
		return st;
	*k_out = k;
	return check_loaded(path, g, want_k, k, stage, *cpu_out, viol, err);
}
