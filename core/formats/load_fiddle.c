/*
 * load_fiddle.c - the msr-fiddle JSON workloads of paper 001 (jansson).
 *
 * Mapping (../shared/data/msr-fiddle/README.md): work = fpgaLatency,
 * param = size, out = the cost of the op's out-edges (equal on every edge
 * leaving one op: it is the time to move the op's one output tensor at
 * bandwidth 1), group = colorClass, memory = maxSizePerFPGA under the hard
 * policy, k = maxFPGAs.  Edge sizes are not part of the model and are
 * ignored.  For CPU stages (001 section 3): cpuLatency is the
 * op's CPU time (an op without one never goes to a CPU stage),
 * supportedOnFpga false keeps an op off the accelerators
 * (sc_builder_set_devices; the commands refuse such a graph without
 * --cpus), maxCPUs is kept as the file's number of CPUs.  isBackwardNode
 * true marks an op of a training graph's backward pass
 * (sc_builder_set_backward).
 */
#define _POSIX_C_SOURCE 200809L
#include "load.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/mem.h"

static int probe_fiddle(const char *path, const char *head, size_t len)
{
	if (len > 0 && head[0] == '{')
		return SC_PROBE_CONTENT;
	return sc_has_extension(path, ".json") ? SC_PROBE_EXTENSION : SC_PROBE_NO;
}

typedef struct id_index {
	json_int_t id;
	int index;
} id_index;

static int cmp_id(const void *a, const void *b)
{
	json_int_t x = ((const id_index *)a)->id, y = ((const id_index *)b)->id;
	return (x > y) - (x < y);
}

static int find_id(const id_index *ids, int n, json_int_t id)
{
	id_index key = {id, -1};
	const id_index *hit = bsearch(&key, ids, (size_t)n, sizeof *ids, cmp_id);
	return hit ? hit->index : -1;
}

/* Reads member key of obj as a finite number >= 0 into *out; a missing
 * member gives def (or an error when def is NAN).  On failure writes what is
 * wrong ("missing", "a string, not a number", "-2 is negative") into why. */
static bool get_number(json_t *obj, const char *key, double def, double *out, char *why,
                       size_t size)
{
	json_t *v = json_object_get(obj, key);
	if (!v) {
		*out = def;
		if (isnan(def))
			snprintf(why, size, "missing");
		return !isnan(def);
	}
	if (!json_is_number(v)) {
		snprintf(why, size, "%s, not a number", sc_json_kind(v));
		return false;
	}
	double x = json_number_value(v);
	if (!isfinite(x) || x < 0) {
		snprintf(why, size, "%g is %s", x, x < 0 ? "negative" : "not finite");
		return false;
	}
	*out = x;
	return true;
}

/* An id or a color: a whole number, however written (sc_json_whole), that
 * is exactly the number written (at most 2^53 when read as a real). */
static bool whole(const json_t *v, json_int_t *out)
{
	bool exact;
	return sc_json_whole(v, out, &exact) && exact;
}

/* Reads member key of obj as a flag (a boolean, or a number: 0 is false)
 * into *out; a missing member gives def.  False for any other value. */
static bool get_flag(json_t *obj, const char *key, bool def, bool *out)
{
	json_t *v = json_object_get(obj, key);
	if (!v || json_is_null(v))
		*out = def;
	else if (json_is_boolean(v))
		*out = json_is_true(v);
	else if (json_is_number(v))
		*out = json_number_value(v) != 0;
	else
		return false;
	return true;
}

/* The top level: an object with a "nodes" and an "edges" array, put in
 * *nodes and *edges.  SC_OK, or an error saying what the top level lacks. */
static sc_status read_top(json_t *root, const char *path, json_t **nodes, json_t **edges,
                          sc_error *err)
{
	if (!json_is_object(root))
		return sc_error_set(
		        err, SC_ERR_INPUT,
		        "%s: not an msr-fiddle graph: the top level is %s, not an object "
		        "with \"nodes\" and \"edges\" arrays",
		        path, sc_json_kind(root));
	*nodes = json_object_get(root, "nodes");
	*edges = json_object_get(root, "edges");
	static const char *const part_name[2] = {"nodes", "edges"};
	json_t *part[2] = {*nodes, *edges};
	for (int i = 0; i < 2; i++)
		if (!json_is_array(part[i])) {
			if (part[i])
				return sc_error_set(
				        err, SC_ERR_INPUT,
				        "%s: not an msr-fiddle graph: \"%s\" is %s, not an array",
				        path, part_name[i], sc_json_kind(part[i]));
			return sc_error_set(err, SC_ERR_INPUT,
			                    "%s: not an msr-fiddle graph: no \"%s\" array", path,
			                    part_name[i]);
		}
	return SC_OK;
}

/* The graph's members: maxSizePerFPGA (the memory, under the hard policy)
 * and maxFPGAs (k) as b's settings, maxCPUs as its number of CPUs.  SC_OK,
 * or an error naming the member. */
static sc_status read_settings(json_t *root, const char *path, sc_builder *b, sc_error *err)
{
	sc_settings set;
	sc_settings_init(&set);
	char why[160];
	if (json_object_get(root, "maxSizePerFPGA")) {
		if (!get_number(root, "maxSizePerFPGA", NAN, &set.memory, why, sizeof why))
			return sc_error_set(
			        err, SC_ERR_INPUT,
			        "%s: \"maxSizePerFPGA\": %s (it must be a finite number >= 0)",
			        path, why);
		set.policy = SC_MEM_HARD;
	}
	json_t *kk = json_object_get(root, "maxFPGAs");
	if (kk) {
		if (!json_is_number(kk) || json_number_value(kk) < 1 ||
		    json_number_value(kk) > 1000000 ||
		    json_number_value(kk) != floor(json_number_value(kk)))
			return sc_error_set(err, SC_ERR_INPUT,
			                    "%s: \"maxFPGAs\" must be an integer from 1 to 1000000",
			                    path);
		set.k = (int)json_number_value(kk);
	}
	sc_builder_set_settings(b, &set);
	json_t *jc = json_object_get(root, "maxCPUs");
	if (jc) {
		if (!json_is_number(jc) || json_number_value(jc) < 0 ||
		    json_number_value(jc) > 1000 ||
		    json_number_value(jc) != floor(json_number_value(jc)))
			return sc_error_set(err, SC_ERR_INPUT,
			                    "%s: \"maxCPUs\" must be an integer from 0 to 1000",
			                    path);
		sc_builder_set_max_cpus(b, (int)json_number_value(jc));
	}
	return SC_OK;
}

/* nodes[i] (nd), added to b as an op with its CPU time, its place on the
 * accelerators and its pass (see the top of the file); *id gets its id.
 * Returns the op's index in b, or -1 with err set (naming the node). */
static int read_node(json_t *nd, int i, const char *path, sc_builder *b, json_int_t *id,
                     sc_error *err)
{
	if (!json_is_object(nd)) {
		sc_error_set(err, SC_ERR_INPUT, "%s: nodes[%d] is %s, not an object", path, i,
		             sc_json_kind(nd));
		return -1;
	}
	json_t *jid = json_object_get(nd, "id");
	if (json_is_number(jid) && !whole(jid, id)) {
		sc_error_set(err, SC_ERR_INPUT,
		             "%s: nodes[%d]: \"id\" %.17g is not an integer stagecut holds "
		             "exactly (ids must be)",
		             path, i, json_number_value(jid));
		return -1;
	}
	if (!whole(jid, id)) {
		sc_error_set(err, SC_ERR_INPUT, "%s: nodes[%d] has no integer \"id\"", path, i);
		return -1;
	}
	json_t *jname = json_object_get(nd, "name");
	char fallback[32];
	snprintf(fallback, sizeof fallback, "node%lld", (long long)*id);
	if (jname && !json_is_string(jname)) {
		sc_error_set(err, SC_ERR_INPUT, "%s: node %lld: \"name\" is %s, not a string", path,
		             (long long)*id, sc_json_kind(jname));
		return -1;
	}
	const char *name = jname ? json_string_value(jname) : fallback;
	double work, param;
	char why[160];
	if (!get_number(nd, "fpgaLatency", NAN, &work, why, sizeof why)) {
		sc_error_set(err, SC_ERR_INPUT,
		             "%s: node '%s' attribute 'fpgaLatency': %s (it must be a finite "
		             "number >= 0)",
		             path, name, why);
		return -1;
	}
	if (!get_number(nd, "size", 0, &param, why, sizeof why)) {
		sc_error_set(err, SC_ERR_INPUT,
		             "%s: node '%s' attribute 'size': %s (it must be a finite number >= 0)",
		             path, name, why);
		return -1;
	}
	bool supported;
	if (!get_flag(nd, "supportedOnFpga", true, &supported)) {
		sc_error_set(err, SC_ERR_INPUT,
		             "%s: node '%s' attribute 'supportedOnFpga': %s, not a boolean", path,
		             name, sc_json_kind(json_object_get(nd, "supportedOnFpga")));
		return -1;
	}
	double cpu;
	json_t *jcpu = json_object_get(nd, "cpuLatency");
	if (jcpu && !get_number(nd, "cpuLatency", NAN, &cpu, why, sizeof why)) {
		sc_error_set(err, SC_ERR_INPUT,
		             "%s: node '%s' attribute 'cpuLatency': %s (it must be a finite "
		             "number >= 0)",
		             path, name, why);
		return -1;
	}
	json_t *cc = json_object_get(nd, "colorClass");
	char group[40] = "";
	if (cc && !json_is_null(cc)) {
		json_int_t color;
		if (!whole(cc, &color)) {
			sc_error_set(err, SC_ERR_INPUT,
			             "%s: node '%s' attribute 'colorClass': not an integer (of at "
			             "most 2^53)",
			             path, name);
			return -1;
		}
		snprintf(group, sizeof group, "color%lld", (long long)color);
	}
	bool backward;
	if (!get_flag(nd, "isBackwardNode", false, &backward)) {
		sc_error_set(err, SC_ERR_INPUT,
		             "%s: node '%s' attribute 'isBackwardNode': %s, not a boolean", path,
		             name, sc_json_kind(json_object_get(nd, "isBackwardNode")));
		return -1;
	}
	int v = sc_builder_add_op(b, name, work, param, 0, group, err);
	if (v < 0 || (backward && sc_builder_set_backward(b, v, err) != SC_OK))
		return -1;
	if ((jcpu || !supported) &&
	    sc_builder_set_devices(b, v, jcpu ? cpu : 0, jcpu != NULL, supported, err) != SC_OK)
		return -1;
	return v;
}

/* Every node into b, then the check that no two share an id; ids (room for
 * one per node) gets each node's id and op index, sorted by id.  SC_OK, or
 * the first error. */
static sc_status read_nodes(json_t *nodes, const char *path, sc_builder *b, id_index *ids,
                            sc_error *err)
{
	int n = (int)json_array_size(nodes);
	for (int i = 0; i < n; i++) {
		json_int_t id;
		int v = read_node(json_array_get(nodes, (size_t)i), i, path, b, &id, err);
		if (v < 0)
			return err ? err->code : SC_ERR_INPUT;
		ids[i] = (id_index){id, v};
	}
	qsort(ids, (size_t)n, sizeof *ids, cmp_id);
	for (int i = 1; i < n; i++)
		if (ids[i].id == ids[i - 1].id)
			return sc_error_set(err, SC_ERR_INPUT, "%s: duplicate node id %lld", path,
			                    (long long)ids[i].id);
	return SC_OK;
}

/* Every edge into b, between the ops ids (n of them, sorted) names; the
 * cost of an edge is its source's out, put in out[s] (has_out[s]: known).
 * SC_OK, or an error naming the edge. */
static sc_status read_edges(json_t *edges, const char *path, const id_index *ids, int n,
                            sc_builder *b, double *out, bool *has_out, sc_error *err)
{
	size_t ne = json_array_size(edges);
	char why[160];
	for (size_t e = 0; e < ne; e++) {
		json_t *ed = json_array_get(edges, e);
		json_int_t s_id, d_id;
		if (!json_is_object(ed) || !whole(json_object_get(ed, "sourceId"), &s_id) ||
		    !whole(json_object_get(ed, "destId"), &d_id))
			return sc_error_set(
			        err, SC_ERR_INPUT,
			        "%s: edges[%zu] needs integer \"sourceId\" and \"destId\"", path,
			        e);
		int s = find_id(ids, n, s_id), d = find_id(ids, n, d_id);
		if (s < 0 || d < 0)
			return sc_error_set(err, SC_ERR_INPUT,
			                    "%s: edges[%zu] %lld -> %lld: no node has id %lld",
			                    path, e, (long long)s_id, (long long)d_id,
			                    (long long)(s < 0 ? s_id : d_id));
		double cost;
		if (!get_number(ed, "cost", 0, &cost, why, sizeof why))
			return sc_error_set(
			        err, SC_ERR_INPUT,
			        "%s: edges[%zu] %lld -> %lld attribute 'cost': %s (it must "
			        "be a finite number >= 0)",
			        path, e, (long long)s_id, (long long)d_id, why);
		/* one output tensor per op: every edge leaving s carries the same cost */
		if (has_out[s] && out[s] != cost)
			return sc_error_set(
			        err, SC_ERR_INPUT,
			        "%s: edges leaving node %lld have different costs (%g and "
			        "%g); an op has one output tensor",
			        path, (long long)s_id, out[s], cost);
		out[s] = cost;
		has_out[s] = true;
		sc_status st = sc_builder_add_edge(b, s, d, err);
		if (st != SC_OK)
			return st;
	}
	return SC_OK;
}

/* Reads the settings, the nodes and the edges, in that order (a file with
 * several faults gets the message of the first), then finishes the graph
 * and puts the outs in. */
static sc_graph *load_fiddle(const char *path, const char *data, size_t len,
                             const sc_load_opts *opts, sc_error *err)
{
	(void)opts; /* jansson parses a whole file in a blink; the costs are in it */
	json_error_t jerr;
	/* a repeated key would silently keep one of its values */
	json_t *root = sc_json_loadb(data, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		sc_json_error(err, path, &jerr);
		return NULL;
	}
	sc_graph *g = NULL;
	sc_builder *b = sc_builder_new();
	id_index *ids = NULL;
	double *out = NULL;
	bool *has_out = NULL;
	json_t *nodes = NULL, *edges = NULL;
	if (!b) {
		sc_error_nomem(err, "the graph");
		goto done;
	}
	if (read_top(root, path, &nodes, &edges, err) != SC_OK ||
	    read_settings(root, path, b, err) != SC_OK)
		goto done;
	int n = (int)json_array_size(nodes);
	ids = sc_malloc_n((size_t)n, sizeof *ids);
	out = sc_calloc_n((size_t)n, sizeof *out);
	has_out = sc_calloc_n((size_t)n, sizeof *has_out);
	if (!ids || !out || !has_out) {
		sc_error_nomem(err, "the graph");
		goto done;
	}
	if (read_nodes(nodes, path, b, ids, err) != SC_OK ||
	    read_edges(edges, path, ids, n, b, out, has_out, err) != SC_OK)
		goto done;
	g = sc_builder_finish(b, path, NULL, err);
	if (g) {
		memcpy(g->out, out, (size_t)n * sizeof *out);
		/* finish checked the totals before the outs were known */
		if (sc_graph_check_totals(g, &g->settings, err) != SC_OK) {
			sc_graph_free(g);
			g = NULL;
		}
	}
done:
	free(ids);
	free(out);
	free(has_out);
	sc_builder_free(b);
	json_decref(root);
	return g;
}

const sc_loader sc_loader_fiddle = {
        .name = "fiddle-json",
        .text = true,
        .probe = probe_fiddle,
        .load = load_fiddle,
};
