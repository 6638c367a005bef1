/*
 * render_caption.c - what render's caption says beyond the picture: the
 * model's device and dims (from an ONNX model's report) and, with
 * --bounds, the lower bound of a `bounds --json` file, which must be about
 * the same graph and settings.  See render_caption.h.
 */
#include "render_caption.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/parse.h"

/* A number in a bounds file: absent or null is NAN; anything else not a
 * number is refused. */
static bool json_number_or_null(json_t *root, const char *key, double *out)
{
	json_t *v = json_object_get(root, key);
	*out = NAN;
	if (!v || json_is_null(v))
		return true;
	if (!json_is_number(v))
		return false;
	*out = json_number_value(v);
	return true;
}

/* Reads the lower bound of a `stagecut bounds --json` file into cap, after
 * checking it is about g at set.  by is cap->lower_by's storage. */
static bool read_bounds(const char *path, const sc_graph *g, const sc_settings *set,
                        sc_caption *cap, char *by, size_t size)
{
	json_error_t je;
	json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
	if (!root) {
		if (je.line > 0)
			ui_error("%s:%d: not a bounds file: %s", path, je.line, je.text);
		else
			ui_error("%s: %s", path, je.text);
		return false;
	}
	bool ok = false;
	json_t *k = json_object_get(root, "k");
	json_t *graph = json_object_get(root, "graph");
	json_t *lb_by = json_object_get(root, "lower_bound_by");
	json_t *policy = json_object_get(root, "memory_policy");
	double lower, bandwidth, memory;
	if (!json_is_object(root) || !json_is_integer(k) || !json_object_get(root, "lower_bound")) {
		ui_error("%s: not the output of `stagecut bounds --json` (no \"k\" or "
		         "\"lower_bound\")",
		         path);
	} else if (!json_number_or_null(root, "lower_bound", &lower) ||
	           (json_is_number(json_object_get(root, "lower_bound")) && !(lower >= 0))) {
		ui_error("%s: \"lower_bound\" is not a number >= 0 or null", path);
	} else if (json_integer_value(k) != set->k) {
		ui_error("%s: the bounds are for k = %lld, but the partition has k = %d", path,
		         (long long)json_integer_value(k), set->k);
	} else if (json_is_string(graph) && strcmp(json_string_value(graph), g->name) != 0) {
		ui_error("%s: the bounds are for the graph %s, not %s", path,
		         json_string_value(graph), g->name);
	} else if (!json_number_or_null(root, "bandwidth", &bandwidth) ||
	           !json_number_or_null(root, "memory", &memory)) {
		ui_error("%s: \"bandwidth\" or \"memory\" is not a number", path);
	} else if (!isnan(bandwidth) && bandwidth != set->bandwidth) {
		ui_error("%s: the bounds are for bandwidth %g, not %g", path, bandwidth,
		         set->bandwidth);
	} else if (json_object_get(root, "memory") &&
	           (isnan(memory) ? !isinf(set->memory) : memory != set->memory)) {
		ui_error("%s: the bounds are for another fast-memory size than %g bytes", path,
		         set->memory);
	} else if (json_is_string(policy) &&
	           strcmp(json_string_value(policy), sc_mem_policy_name(set->policy)) != 0) {
		ui_error("%s: the bounds are for memory policy %s, not %s", path,
		         json_string_value(policy), sc_mem_policy_name(set->policy));
	} else {
		cap->lower = lower;
		snprintf(by, size, "%s", json_is_string(lb_by) ? json_string_value(lb_by) : "");
		/* "ladder": name the rung that gave the bound */
		json_t *rungs = json_object_get(root, "rungs"), *r;
		size_t i;
		if (strcmp(by, "ladder") == 0 && json_is_array(rungs))
			json_array_foreach(rungs, i, r)
			{
				json_t *val = json_object_get(r, "value"),
				       *name = json_object_get(r, "name");
				if (json_is_number(val) && json_is_string(name) &&
				    json_number_value(val) == lower) {
					snprintf(by, size, "%s", json_string_value(name));
					break;
				}
			}
		cap->lower_by = *by ? by : NULL;
		ok = true;
	}
	json_decref(root);
	return ok;
}

/* An ONNX model's device and precision ("h100 at fp16") and symbolic
 * dims ("N=32, S=1 (default)"; "none" for static shapes) for the
 * caption. */
void ui_render_caption_device(const sc_onnx_report *r, char *device, size_t dsize, char *dims,
                              size_t size)
{
	snprintf(device, dsize, "%s at %s", r->device.name, sc_precision_name(r->precision));
	size_t at = 0;
	dims[0] = '\0';
	for (int i = 0; i < r->ndims && at < size; i++)
		at += (size_t)snprintf(dims + at, size - at, "%s%s=%lld%s", i ? ", " : "",
		                       r->dim_name[i], r->dim_value[i],
		                       r->dim_given[i]  ? ""
		                       : r->dim_from[i] ? " (derived)"
		                                        : " (default)");
	if (r->ndims == 0)
		snprintf(dims, size, "none (static shapes)");
}

/* --bounds: the caption's lower bound from the file, which must not
 * exceed the partition's objective (the bottleneck, or GPipe's).  False
 * after a message. */
bool ui_render_caption_bounds(const ui_opts *o, const sc_graph *g, const sc_settings *set,
                              sc_caption *cap, char *by, size_t size, double objective,
                              double bottleneck)
{
	if (!read_bounds(o->bounds, g, set, cap, by, size))
		return false;
	if (cap->lower > objective * (1 + 1e-9)) {
		char b1[32], b2[32];
		ui_error(
		        "%s: the lower bound %s exceeds this partition's %s %s, so it was computed "
		        "for another graph or settings",
		        o->bounds, ui_num(cap->lower, b1, sizeof b1),
		        objective == bottleneck ? "bottleneck" : "GPipe objective",
		        ui_num(objective, b2, sizeof b2));
		return false;
	}
	return true;
}
