/*
 * render_report.h - what `stagecut render` says once it has drawn: a report
 * of the picture, printed as lines or as one JSON object (the
 * command computes, then prints).  See render_report.c.
 */
#ifndef UI_RENDER_REPORT_H
#define UI_RENDER_REPORT_H

#include <jansson.h>
#include <stdbool.h>

#include "tui/ui.h"

/* What render drew, for its printers (compute, then print). */
typedef struct ui_render_report {
	const sc_graph *g;
	const sc_settings *set;
	const ui_opts *o;
	const char *format, *picture;
	bool staged;
	const char *from; /* where the partition came from, or NULL */
	const char
	        *devices; /* the stages per device (sc_quotient_devices), "" or NULL: none named */
	json_t *device_names; /* each stage's device (borrowed), or NULL: none named */
	double bottleneck, objective, lower, gap, scale;
	int at;             /* the bottleneck stage, 0-based */
	int pages;          /* 0: one picture */
	int overview_depth; /* the paged picture's overview (0: the stage graph) */
	json_t *stages;     /* a training graph's costs by stage and pass, or NULL */
} ui_render_report;

/* render --json: one object; a paged picture, devices and a training
 * graph add their members (the others' output is as it was).  False when
 * it could not be written. */
bool ui_render_print_json(const ui_render_report *r);

/* render's lines: what was drawn, then the devices, the pages and a
 * training graph's schedule when there are any.  True. */
bool ui_render_print_text(const ui_render_report *r);

/* A training graph's stages for --json: 1-based "stage", "cost" and its
 * parts by pass, "cost_fw" and "cost_bw"; NULL when out of memory. */
struct sc_quotient;
json_t *ui_render_training_stages(const struct sc_quotient *q);

/* Each stage's device as the JSON array render reports, or NULL when the
 * partition names none. */
json_t *ui_render_device_names(const struct sc_quotient *q);

#endif
