/*
 * render_report.c - render's printers.  See render_report.h.
 */
#include "render_report.h"

#include <math.h>
#include <stdio.h>

#include "core/parse.h"
#include "core/report.h"
#include "viz/full.h"
#include "viz/quotient.h"

/* render --json: one object; a paged picture, devices and a training
 * graph add their members (the others' output is as it was).  Takes
 * r->stages.  False when it could not be written. */
bool ui_render_print_json(const ui_render_report *r)
{
	const sc_graph *g = r->g;
	const ui_opts *o = r->o;
	json_t *root =
	        json_pack("{s:s, s:o, s:s, s:s}", "graph", g->name, "output",
	                  sc_json_text(o->output), "format", r->format, "picture", r->picture);
	json_object_set_new(root, "k", r->staged ? json_integer(r->set->k) : json_null());
	json_object_set_new(root, "partition", r->from ? sc_json_text(r->from) : json_null());
	json_object_set_new(root, "bottleneck", r->staged ? json_real(r->bottleneck) : json_null());
	json_object_set_new(root, "bottleneck_stage",
	                    r->staged ? json_integer(r->at + 1) : json_null());
	json_object_set_new(root, "lower_bound",
	                    isfinite(r->lower) ? json_real(r->lower) : json_null());
	json_object_set_new(root, "gap", isnan(r->gap) ? json_null() : json_real(r->gap));
	json_object_set_new(root, "scale", json_real(r->scale));
	if (r->device_names)
		json_object_set_new(root, "devices", json_incref(r->device_names));
	if (r->pages > 0) {
		json_t *files = json_array();
		char name[4096];
		for (int i = 1; i <= r->pages; i++) {
			sc_full_page_path(o->output, i, name, sizeof name);
			json_array_append_new(files, sc_json_text(name));
		}
		json_object_set_new(root, "pages", files);
		json_object_set_new(root, "overview_depth",
		                    r->overview_depth > 0 ? json_integer(r->overview_depth)
		                                          : json_null());
	}
	if (sc_graph_is_training(g)) {
		json_object_set_new(root, "training", json_true());
		json_object_set_new(root, "backward_ops", json_integer(g->backward_ops));
		json_object_set_new(root, "orphans", json_integer(g->orphans));
		json_object_set_new(root, "schedule",
		                    json_string(sc_schedule_name(r->set->schedule)));
		json_object_set_new(root, "objective",
		                    r->staged ? json_real(r->objective) : json_null());
		json_object_set_new(root, "stages",
		                    r->stages ? json_incref(r->stages) : json_null());
	}
	return ui_print_json(root);
}

/* render's lines: what was drawn, then the devices, the pages and a
 * training graph's schedule when there are any.  True. */
bool ui_render_print_text(const ui_render_report *r)
{
	const sc_graph *g = r->g;
	const ui_opts *o = r->o;
	const sc_settings *set = r->set;
	char b1[32], b2[32];
	if (r->staged)
		ui_print_line("%s: %s of %s, k %d (partition from %s), bottleneck %s in stage %d",
		              o->output, o->full ? "every op by stage" : "the stage graph", g->name,
		              set->k, r->from, ui_num(r->bottleneck, b1, sizeof b1), r->at + 1);
	else
		ui_print_line("%s: the graph %s, %d ops", o->output, g->name, g->n);
	if (r->devices && *r->devices)
		printf("devices: %s\n", r->devices);
	if (r->pages > 0) {
		char a[4096], z[4096];
		sc_full_page_path(o->output, 1, a, sizeof a);
		sc_full_page_path(o->output, r->pages, z, sizeof z);
		if (r->overview_depth > 0)
			ui_print_line("%d pages, %s to %s; %s is their overview, each module at "
			              "depth %d one box",
			              r->pages, a, z, o->output, r->overview_depth);
		else
			ui_print_line("%d pages, %s to %s; %s is their overview, the stage graph",
			              r->pages, a, z, o->output);
	}
	if (sc_graph_is_training(g)) {
		/* a second line, for training graphs only */
		if (r->staged && set->schedule == SC_SCHEDULE_GPIPE)
			ui_print_line(
			        "training graph, %d of %d ops backward, schedule %s: objective "
			        "%s",
			        g->backward_ops, g->n, sc_quotient_schedule_name(set->schedule),
			        ui_num(r->objective, b2, sizeof b2));
		else
			ui_print_line("training graph, %d of %d ops backward, schedule %s",
			              g->backward_ops, g->n,
			              sc_quotient_schedule_name(set->schedule));
	}
	return true; /* a failed write is told at exit (ui_main) */
}

/* A training graph's stages for --json: 1-based "stage", "cost" and its
 * parts by pass, "cost_fw" and "cost_bw"; NULL when out of memory. */
json_t *ui_render_training_stages(const sc_quotient *q)
{
	json_t *arr = json_array();
	for (int s = 0; arr && s < q->k; s++) {
		json_t *row =
		        json_pack("{s:i, s:f, s:f, s:f}", "stage", s + 1, "cost", q->st[s].cost,
		                  "cost_fw", q->st[s].cost_fw, "cost_bw", q->st[s].cost_bw);
		if (!row || json_array_append_new(arr, row) != 0) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

/* Each stage's device as the JSON array render reports, or NULL when the
 * partition names none. */
json_t *ui_render_device_names(const sc_quotient *q)
{
	json_t *names = q && q->devices ? json_array() : NULL;
	for (int s = 0; names && s < q->k; s++)
		json_array_append_new(names, json_string(q->kind_name[q->st[s].kind]));
	return names;
}
