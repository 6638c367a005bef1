/*
 * report.c - shared JSON output.  See report.h.
 */
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_t *sc_report_stages(const sc_costs *c)
{
	bool stopped;
	return sc_report_stages_until(c, NULL, NULL, &stopped);
}

static json_t *real_or_null(double x);

json_t *sc_report_memory(const sc_costs *c, int s)
{
	sc_mem_parts p = sc_costs_memory_parts(c, s);
	return json_pack("{s:f, s:f, s:f, s:f, s:i, s:f, s:f, s:o, s:s}", "params", p.params,
	                 "grads", p.grads, "optimizer", p.optimizer, "stash_per_microbatch",
	                 p.stash, "in_flight", p.in_flight, "working_peak", p.working_peak, "total",
	                 p.total, "limit", real_or_null(sc_costs_stage_memory(c, s)), "largest",
	                 sc_mem_parts_largest(&p));
}

json_t *sc_report_stages_until(const sc_costs *c, bool (*stop)(void *), void *ctx, bool *stopped)
{
	*stopped = false;
	json_t *arr = json_array();
	if (!arr)
		return NULL;
	/* asked once: each question reads every stage, so asking it per stage
	 * made the report quadratic in k */
	bool named = sc_costs_has_kinds(c) || c->set.fleet;
	bool cpu_work = sc_costs_has_cpu(c);
	int cpu = cpu_work ? sc_fleet_find(&c->fleet, "cpu") : -1;
	for (int s = 0; s < c->k; s++) {
		if (stop && s % 4096 == 4095 && stop(ctx)) {
			*stopped = true;
			json_decref(arr);
			return NULL;
		}
		const sc_stage_cost *st = &c->st[s];
		json_t *o =
		        json_pack("{s:i, s:i, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:b}",
		                  "stage", s + 1, "ops", st->ops, "work", st->work, "io_in",
		                  st->io_in, "io_out", st->io_out, "overflow", st->overflow, "cost",
		                  st->cost, "param", st->param, "in_bytes", st->in_bytes,
		                  "out_bytes", st->out_bytes, "over_memory", (int)st->over_memory);
		/* a training graph's split by pass (cost_fw + cost_bw = cost) */
		if (o && sc_graph_is_training(c->g)) {
			json_object_set_new(o, "cost_fw", json_real(st->cost_fw));
			json_object_set_new(o, "cost_bw", json_real(st->cost_bw));
			json_object_set_new(o, "work_bw", json_real(st->work_bw));
		}
		/* devices: each stage's kind when the partition has a stage of
		 * another kind than the first, and with CPU stages each stage's
		 * CPU time */
		if (o && named)
			json_object_set_new(o, "device", json_string(sc_costs_device_name(c, s)));
		if (o && cpu_work)
			json_object_set_new(o, "cpu_work",
			                    json_real(sc_costs_kind_work(c, s, cpu)));
		if (o)
			json_object_set_new(o, "memory", sc_report_memory(c, s));
		if (!o || json_array_append_new(arr, o) != 0) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

json_t *sc_report_kinds(const sc_costs *c)
{
	json_t *dev = json_array();
	for (int s = 0; dev && s < c->k; s++) {
		if (json_array_append_new(dev, json_string(sc_costs_device_name(c, s))) != 0) {
			json_decref(dev);
			return NULL;
		}
	}
	return dev;
}

json_t *sc_report_objective(const sc_costs *c)
{
	if (!sc_graph_is_training(c->g))
		return NULL;
	int fa, ba;
	double gp = sc_costs_gpipe(c, &fa, &ba);
	return json_pack("{s:s, s:f, s:f, s:i, s:f, s:i}", "schedule",
	                 sc_schedule_name(c->set.schedule), "gpipe", gp, "max_cost_fw",
	                 c->st[fa].cost_fw, "max_cost_fw_stage", fa + 1, "max_cost_bw",
	                 c->st[ba].cost_bw, "max_cost_bw_stage", ba + 1);
}

/* Time order; ties (zero-length segments) by pass, batch and kind. */
static int seg_order(const void *a, const void *b)
{
	const sc_segment *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	if (x->backward != y->backward)
		return x->backward ? 1 : -1;
	if (x->batch != y->batch)
		return x->batch < y->batch ? -1 : 1;
	return (x->kind > y->kind) - (x->kind < y->kind);
}

static json_t *real_or_null(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

json_t *sc_report_timeline(const sc_timeline *t, const char *unit)
{
	int per = t->nseg / t->k;
	sc_segment *lseg = malloc((size_t)per * sizeof *lseg);
	json_t *root = json_object();
	json_t *lanes = json_array();
	if (!lseg || !root || !lanes)
		goto fail;
	const char *sched = !t->training ? "inference" : sc_schedule_name(t->schedule);
	json_object_set_new(root, "batches", json_integer(t->m));
	json_object_set_new(root, "schedule", json_string(sched));
	json_object_set_new(root, "time_unit", json_string(unit ? unit : "time units"));
	json_object_set_new(root, "makespan", json_real(t->makespan));
	json_object_set_new(root, "period", json_real(t->period));
	json_object_set_new(root, "throughput", real_or_null(t->throughput));
	json_object_set_new(root, "latency", json_real(t->latency));
	json_object_set_new(root, "fill", json_real(t->fill));
	json_object_set_new(root, "drain", json_real(t->drain));
	json_object_set_new(root, "bottleneck", json_real(t->bottleneck));
	json_object_set_new(root, "bottleneck_stage", json_integer(t->bottleneck_at + 1));
	if (t->cpus > 0)
		json_object_set_new(root, "cpus", json_integer(t->cpus));
	for (int s = 0; s < t->k; s++) {
		for (int i = 0; i < per; i++)
			lseg[i] = t->seg[s * per + i];
		qsort(lseg, (size_t)per, sizeof *lseg, seg_order);
		json_t *segs = json_array();
		json_t *lane = json_pack("{s:i, s:f, s:f}", "stage", s + 1, "busy", t->busy[s],
		                         "idle", t->idle[s]);
		if (!segs || !lane) {
			json_decref(segs);
			json_decref(lane);
			goto fail;
		}
		if (t->cpus > 0 || t->device) {
			char label[48];
			json_object_set_new(lane, "device",
			                    json_string(t->cpu[s]   ? "cpu"
			                                : t->device ? t->device[s]
			                                            : "accel"));
			json_object_set_new(
			        lane, "label",
			        json_string(sc_timeline_lane_name(t, s, label, sizeof label)));
		}
		for (int i = 0; i < per; i++) {
			const sc_segment *g = &lseg[i];
			json_array_append_new(segs, json_pack("{s:i, s:s, s:s, s:f, s:f}", "batch",
			                                      g->batch + 1, "pass",
			                                      g->backward ? "backward" : "forward",
			                                      "kind", sc_seg_kind_name(g->kind),
			                                      "start", g->start, "end", g->end));
		}
		json_object_set_new(lane, "segments", segs);
		json_array_append_new(lanes, lane);
	}
	json_object_set_new(root, "lanes", lanes);
	lanes = NULL;
	free(lseg);
	return root;
fail:
	free(lseg);
	json_decref(lanes);
	json_decref(root);
	return NULL;
}

/* A C1 character is 0xC2 0x80..0x9F in UTF-8; outside strings JSON text is
 * ASCII, so each such pair (and each DEL) is inside a string. */
static size_t controls_at(const char *t, size_t i)
{
	const unsigned char *u = (const unsigned char *)t + i;
	if (u[0] == 0x7f)
		return 1;
	return u[0] == 0xc2 && u[1] >= 0x80 && u[1] <= 0x9f ? 2 : 0;
}

/* The text json_dump_callback gives, in a growing buffer, with the stop
 * asked every megabyte. */
typedef struct dump_buf {
	char *text;
	size_t len, cap, asked;
	bool (*stop)(void *);
	void *ctx;
	bool stopped;
} dump_buf;

static int dump_more(const char *buffer, size_t size, void *data)
{
	dump_buf *d = data;
	if (d->stop && d->len >= d->asked + (1u << 20)) {
		d->asked = d->len;
		if (d->stop(d->ctx)) {
			d->stopped = true;
			return -1;
		}
	}
	if (d->len + size + 1 > d->cap) {
		size_t cap = d->cap ? d->cap : 4096;
		while (cap < d->len + size + 1)
			cap *= 2;
		char *t = realloc(d->text, cap);
		if (!t)
			return -1;
		d->text = t;
		d->cap = cap;
	}
	memcpy(d->text + d->len, buffer, size);
	d->len += size;
	d->text[d->len] = '\0';
	return 0;
}

char *sc_json_dumps(const json_t *v, size_t flags)
{
	bool stopped;
	return sc_json_dumps_until(v, flags, NULL, NULL, &stopped);
}

char *sc_json_dumps_until(const json_t *v, size_t flags, bool (*stop)(void *), void *ctx,
                          bool *stopped)
{
	dump_buf d = {.stop = stop, .ctx = ctx};
	int rc = json_dump_callback(v, dump_more, &d, flags);
	*stopped = d.stopped;
	if (rc != 0 || !d.text) {
		free(d.text);
		return NULL;
	}
	char *text = d.text;
	size_t len = strlen(text), extra = 0;
	for (size_t i = 0; i < len; i++)
		if (controls_at(text, i))
			extra += 6;
	if (!extra)
		return text;
	char *out = malloc(len + extra + 1);
	if (out) {
		size_t o = 0;
		for (size_t i = 0; i < len; i++) {
			size_t n = controls_at(text, i);
			if (!n) {
				out[o++] = text[i];
				continue;
			}
			unsigned code = n == 1 ? 0x7f : (unsigned char)text[i + 1];
			o += (size_t)snprintf(out + o, 7, "\\u%04x", code);
			i += n - 1;
		}
		out[o] = '\0';
	}
	free(text);
	return out;
}
