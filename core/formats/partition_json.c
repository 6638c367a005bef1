/*
 * partition_json.c - the JSON partition file, "stagecut-partition/1"
 * (jansson): k, the stage of each op by name, the devices of CPU stages,
 * and the costs beside them for readers.  See partition_file.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "partition_file.h"

#include "core/fleet.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/fileio.h"
#include "core/mem.h"
#include "core/parse.h"
#include "core/report.h"

#define SC_PART_FORMAT "stagecut-partition/1"

/* A JSON value begins with '{' (a partition file is an object) or '['. */
static int probe_json(const char *path, const char *head, size_t len)
{
	if (len > 0 && (head[0] == '{' || head[0] == '['))
		return SC_PROBE_CONTENT;
	return sc_has_extension(path, ".json") ? SC_PROBE_EXTENSION : SC_PROBE_NO;
}

/* Frees names[0..k) and the array (sc_part_names_free's work, here so that
 * the reader calls nothing of partition_file.c, which calls it). */
static void names_free(char **names, int k)
{
	for (int s = 0; names && s < k; s++)
		free(names[s]);
	free(names);
}

/* Reads the optional "devices" array of k names into *names_out (NULL when
 * absent): the caller maps them (partition_file.c). */
static sc_status read_devices(json_t *root, const char *path, int k, char ***names_out,
                              sc_error *err)
{
	*names_out = NULL;
	json_t *dev = json_object_get(root, "devices");
	if (!dev)
		return SC_OK;
	if (!json_is_array(dev) || json_array_size(dev) != (size_t)k)
		return sc_error_set(err, SC_ERR_INPUT,
		                    "%s: \"devices\" must be an array of k = %d entries, each "
		                    "a device's name (\"accel\", \"cpu\" or a --devices kind)",
		                    path, k);
	char **names = sc_calloc_n((size_t)k, sizeof *names);
	if (!names)
		return sc_error_nomem(err, "the partition's devices");
	for (int s = 0; s < k; s++) {
		const char *d = json_string_value(json_array_get(dev, (size_t)s));
		if (!d || !*d || strlen(d) >= SC_KIND_NAME) {
			names_free(names, k);
			return sc_error_set(
			        err, SC_ERR_INPUT,
			        "%s: \"devices\"[%d] must be a device's name (\"accel\", "
			        "\"cpu\" or a --devices kind)",
			        path, s);
		}
		names[s] = strdup(d);
		if (!names[s]) {
			names_free(names, k);
			return sc_error_nomem(err, "the partition's devices");
		}
	}
	*names_out = names;
	return SC_OK;
}

/* The reader of sc_part_format_json. */
static sc_status read_json(const char *path, const char *data, size_t len, const sc_graph *g,
                           int *k_out, int *stage, char ***names_out, sc_error *err)
{
	*names_out = NULL;
	json_error_t jerr;
	/* a repeated op name would silently keep one of its stages */
	json_t *root = sc_json_loadb(data, len, JSON_REJECT_DUPLICATES, &jerr);
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
	/* INT_MIN, one below SC_PART_STAGE_MIN, marks an op with no stage yet */
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
		stage[v] = (int)(s > SC_PART_STAGE_MAX   ? SC_PART_STAGE_MAX
		                 : s < SC_PART_STAGE_MIN ? SC_PART_STAGE_MIN
		                                         : s) -
		           1;
	}
	sc_part_fill_backward(g, stage, INT_MIN);
	for (int v = 0; v < g->n; v++)
		if (stage[v] == INT_MIN) {
			st = sc_error_set(err, SC_ERR_INPUT, "%s: op '%s' of %s has no stage", path,
			                  g->op_name[v], g->source);
			goto out;
		}
	st = read_devices(root, path, k, names_out, err);
	if (st != SC_OK)
		goto out;
	*k_out = k;
out:
	json_decref(root);
	return st;
}

/* The writer of sc_part_format_json. */
static sc_status write_json(const char *path, const sc_graph *g, const int *stage, int k,
                            const sc_costs *costs, bool (*stop)(void *), void *ctx, sc_error *err)
{
	bool stopped = false;
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
	if (sc_costs_names_devices(costs, k)) {
		/* each stage's kind by name (fleet.h) */
		json_t *dev = sc_report_kinds(costs);
		if (!dev)
			goto nomem;
		json_object_set_new(root, "devices", dev);
	}
	if (costs) {
		int at;
		double b = sc_costs_bottleneck(costs, &at);
		json_object_set_new(root, "bottleneck", json_real(b));
		json_object_set_new(root, "bottleneck_stage", json_integer(at + 1));
		json_t *arr = sc_report_stages_until(costs, stop, ctx, &stopped);
		if (!arr && stopped)
			goto stopped;
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
	char *text = sc_json_dumps_until(root, SC_JSON_FLAGS, stop, ctx, &stopped);
	json_decref(root);
	if (!text && stopped)
		return sc_error_set(err, SC_ERR_LIMIT, "%s: not written: stopped", path);
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
stopped:
	json_decref(root);
	json_decref(map);
	return sc_error_set(err, SC_ERR_LIMIT, "%s: not written: stopped", path);
}

const sc_part_format sc_part_format_json = {
        .name = "json",
        .probe = probe_json,
        .read = read_json,
        .write = write_json,
};
