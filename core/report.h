/*
 * report.h - the JSON pieces every command shares (one schema, see the man
 * page): the per-stage array and a partition's summary.
 */
#ifndef SC_REPORT_H
#define SC_REPORT_H

#include <jansson.h>

#include "cost.h"
#include "timeline.h"

/* Returns a new JSON array with one object per stage (1-based "stage",
 * "ops", "work", "io_in", "io_out", "overflow", "cost", "param",
 * "in_bytes", "out_bytes", "over_memory"; on a training graph also
 * "cost_fw", "cost_bw" and "work_bw"), or NULL when out of memory. */
json_t *sc_report_stages(const sc_costs *c);

/* sc_report_stages that stop(ctx) (may be NULL), asked every few
 * thousand stages, may end: NULL then too (*stopped set). */
json_t *sc_report_stages_until(const sc_costs *c, bool (*stop)(void *), void *ctx, bool *stopped);

/* Stage s's memory by part (activations.h: params, grads, optimizer,
 * stash_per_microbatch, in_flight, working_peak, total), its limit (null:
 * none) and the name of its largest part. */
json_t *sc_report_memory(const sc_costs *c, int s);

/* The kinds of c's stages as a JSON array of names: "accel" and "cpu"
 * without a fleet (001 section 3), the fleet's names with one. */
json_t *sc_report_kinds(const sc_costs *c);

/* For a training graph, an object {"schedule": "1f1b"|"gpipe", "gpipe": the
 * GPipe objective, "max_cost_fw", "max_cost_fw_stage", "max_cost_bw",
 * "max_cost_bw_stage"}; NULL for an inference graph. */
json_t *sc_report_objective(const sc_costs *c);

/* The schedule t as JSON: {"batches", "schedule" ("inference", "1f1b" or
 * "gpipe"), "time_unit" (unit, or "time units" when NULL), "makespan",
 * "period", "throughput" (null when the period is 0), "latency", "fill",
 * "drain", "bottleneck", "bottleneck_stage" (1-based), "lanes": one per
 * stage {"stage", "busy", "idle", "segments": in time order, each {"batch"
 * (1-based), "pass" ("forward" or "backward"), "kind" ("receive",
 * "compute" or "send"), "start", "end"}}}; NULL when out of memory.  With
 * CPU stages (t->cpus > 0) also "cpus" (how many) and, in each lane,
 * "device" ("accel" or "cpu") and "label" ("stage 2 (CPU)", as the
 * picture names the lane). */
json_t *sc_report_timeline(const sc_timeline *t, const char *unit);

/* Flags for json_dumps: exact doubles (17 digits), keys in insertion order. */
#define SC_JSON_FLAGS (JSON_REAL_PRECISION(17) | JSON_INDENT(2))

/* json_dumps(v, flags), with the C1 control characters (U+0080..U+009F)
 * and DEL escaped as \u0080.. and \u007f as well: JSON allows them raw,
 * but a terminal showing the file acts on them (U+009B starts a control
 * sequence).  Other text is left as jansson writes it.  A new string for
 * free(), or NULL when out of memory. */
char *sc_json_dumps(const json_t *v, size_t flags);

/* sc_json_dumps that stop(ctx) (may be NULL), asked every megabyte of
 * text, may end: NULL then too (*stopped set). */
char *sc_json_dumps_until(const json_t *v, size_t flags, bool (*stop)(void *), void *ctx,
                          bool *stopped);

#endif
