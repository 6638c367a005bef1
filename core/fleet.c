/*
 * fleet.c - the devices a pipeline runs on.  See fleet.h.
 */
#include "fleet.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sc_fleet_find(const sc_fleet *f, const char *name)
{
	for (int d = 0; d < f->n; d++)
		if (strcmp(f->kind[d].name, name) == 0)
			return d;
	return -1;
}

bool sc_kind_name_ok(const char *name, size_t len)
{
	bool ok = len > 0 && len < SC_KIND_NAME;
	for (size_t i = 0; i < len && ok; i++)
		ok = isalnum((unsigned char)name[i]) || name[i] == '_' || name[i] == '-' ||
		     name[i] == '.';
	return ok;
}

bool sc_fleet_parse(const char *spec, sc_fleet *out, sc_error *err)
{
	memset(out, 0, sizeof *out);
	const char *p = spec;
	if (!*p) {
		sc_error_set(err, SC_ERR_INPUT, "--devices: an empty list (want NAME:COUNT,...)");
		return false;
	}
	while (*p) {
		const char *colon = strchr(p, ':'), *comma = strchr(p, ',');
		if (!comma)
			comma = p + strlen(p);
		int len = (int)(comma - p);
		if (!colon || colon > comma) {
			sc_error_set(err, SC_ERR_INPUT,
			             "--devices: '%.*s' is not NAME:COUNT (e.g. h100:2,a100:2)",
			             len, p);
			return false;
		}
		int nlen = (int)(colon - p);
		if (!sc_kind_name_ok(p, (size_t)nlen)) {
			sc_error_set(err, SC_ERR_INPUT,
			             "--devices: '%.*s' is not a device name (letters, digits, _ - "
			             ". and "
			             "at most %d of them)",
			             nlen, p, SC_KIND_NAME - 1);
			return false;
		}
		char num[32];
		int clen = (int)(comma - colon - 1);
		char *end = NULL;
		long count = 0;
		if (clen > 0 && clen < (int)sizeof num) {
			memcpy(num, colon + 1, (size_t)clen);
			num[clen] = 0;
			errno = 0;
			count = isdigit((unsigned char)num[0]) ? strtol(num, &end, 10) : 0;
		}
		if (!end || *end || errno || count < 1 || count > 4096) {
			sc_error_set(err, SC_ERR_INPUT,
			             "--devices: the count in '%.*s' is not a whole number from 1 "
			             "to 4096",
			             len, p);
			return false;
		}
		if (out->n == SC_KINDS_MAX) {
			sc_error_set(err, SC_ERR_INPUT, "--devices: more than %d kinds of device",
			             SC_KINDS_MAX);
			return false;
		}
		sc_kind *d = &out->kind[out->n];
		memcpy(d->name, p, (size_t)nlen);
		d->name[nlen] = 0;
		if (sc_fleet_find(out, d->name) >= 0) {
			sc_error_set(err, SC_ERR_INPUT, "--devices: '%s' is named twice", d->name);
			return false;
		}
		d->count = (int)count;
		d->cpu = strcmp(d->name, "cpu") == 0;
		out->n++;
		p = *comma ? comma + 1 : comma;
		if (*comma && !*p) {
			sc_error_set(err, SC_ERR_INPUT, "--devices: '%s' ends with a comma", spec);
			return false;
		}
	}
	return true;
}

/* The names of g's kinds, for a message. */
static void kind_names(const sc_graph *g, char *buf, size_t size)
{
	int w = snprintf(buf, size, "'%s'%s", sc_graph_work_kind(g), g->cpu_work ? ", 'cpu'" : "");
	for (int i = 0; i < g->nkinds && w >= 0 && (size_t)w < size; i++)
		w += snprintf(buf + w, size - (size_t)w, ", '%s'", g->kind_name[i]);
}

bool sc_fleet_resolve(const sc_graph *g, const sc_settings *set, sc_fleet *out, sc_error *err)
{
	if (!set->fleet) {
		memset(out, 0, sizeof *out);
		snprintf(out->kind[0].name, SC_KIND_NAME, "%s", sc_graph_work_kind(g));
		out->kind[0].count = set->k;
		out->n = 1;
		if (set->cpus > 0) {
			snprintf(out->kind[1].name, SC_KIND_NAME, "cpu");
			out->kind[1].count = set->cpus;
			out->kind[1].cpu = true;
			out->n = 2;
		}
	} else {
		*out = *set->fleet;
	}
	for (int d = 0; d < out->n; d++) {
		sc_kind *kd = &out->kind[d];
		kd->bandwidth = set->bandwidth;
		kd->memory = set->memory;
		kd->work = NULL;
		kd->cpu = strcmp(kd->name, "cpu") == 0;
		if (kd->cpu) {
			/* (a graph without CPU times: no op may go there, and its
			 * stages stay empty) */
			kd->memory = INFINITY;
			continue;
		}
		if (strcmp(kd->name, sc_graph_work_kind(g)) == 0)
			continue;
		int t = sc_graph_find_kind(g, kd->name);
		if (t < 0) {
			char names[256];
			kind_names(g, names, sizeof names);
			sc_error_set(err, SC_ERR_INPUT,
			             "%s: no op times for the device '%s' (this graph has %s)",
			             g->source && *g->source ? g->source : g->name, kd->name,
			             names);
			return false;
		}
		kd->work = g->kind_work[t];
		if (g->kind_memory[t] == g->kind_memory[t])
			kd->memory = g->kind_memory[t];
		if (g->kind_bandwidth[t] == g->kind_bandwidth[t])
			kd->bandwidth = g->kind_bandwidth[t];
	}
	/* a devices file's own memory and link stand over the graph's and
	 * the options' */
	for (int d = 0; d < out->n; d++) {
		sc_kind *kd = &out->kind[d];
		if (kd->own_memory > 0 && !kd->cpu)
			kd->memory = kd->own_memory;
		if (kd->own_bandwidth > 0 && !kd->cpu)
			kd->bandwidth = kd->own_bandwidth;
	}
	return true;
}

int sc_settings_stages(const sc_settings *set)
{
	if (set->fleet)
		return sc_fleet_stages(set->fleet);
	long K = (long)set->k + (set->cpus > 0 ? set->cpus : 0);
	return K > INT_MAX ? INT_MAX : (int)K;
}

int sc_fleet_neighbours(const sc_fleet *f, sc_fleet *out)
{
	int n = 0;
	out[n++] = *f;
	for (int d = 0; d < f->n; d++)
		for (int step = -1; step <= 1; step += 2) {
			sc_fleet m = *f;
			m.kind[d].count += step;
			if (m.kind[d].count < 0 || sc_fleet_stages(&m) < 1)
				continue;
			out[n++] = m;
		}
	return n;
}

int sc_fleet_stages(const sc_fleet *f)
{
	long s = 0;
	for (int d = 0; d < f->n; d++)
		s += f->kind[d].count;
	return s > INT_MAX ? INT_MAX : (int)s;
}

bool sc_fleet_plain(const sc_fleet *f)
{
	return f->n == 1 && !f->kind[0].cpu && !f->kind[0].work;
}

double sc_kind_time(const sc_kind *d, const sc_graph *g, const int *ops, int n)
{
	double t = d->count > 0 ? 0 : NAN;
	for (int i = 0; i < n && t == t; i++)
		t = sc_kind_ok(d, g, ops[i]) ? t + sc_kind_work(d, g, ops[i]) : NAN;
	return t;
}

double sc_fleet_least_time(const sc_fleet *f, const sc_graph *g, const int *ops, int n)
{
	double best = INFINITY;
	for (int e = 0; e < f->n; e++) {
		double t = sc_kind_time(&f->kind[e], g, ops, n);
		if (t == t)
			best = fmin(best, t);
	}
	return best;
}

int sc_fleet_kind_in_order(const sc_fleet *f, int s)
{
	int e = 0;
	while (e < f->n - 1 && s >= f->kind[e].count)
		s -= f->kind[e++].count;
	return e;
}

bool sc_fleet_cpus_form(const sc_graph *g, const sc_fleet *f)
{
	return (f->n == 1 || (f->n == 2 && strcmp(f->kind[1].name, "cpu") == 0)) &&
	       strcmp(f->kind[0].name, sc_graph_work_kind(g)) == 0;
}

bool sc_fleet_one_link(const sc_fleet *f)
{
	double B = NAN;
	for (int d = 0; d < f->n; d++) {
		if (f->kind[d].cpu)
			continue;
		if (B == B && f->kind[d].bandwidth != B)
			return false;
		B = f->kind[d].bandwidth;
	}
	return true;
}

void sc_fleet_format(const sc_fleet *f, char *buf, size_t size)
{
	size_t w = 0;
	if (size)
		buf[0] = 0;
	for (int d = 0; d < f->n && w < size; d++) {
		int r = snprintf(buf + w, size - w, "%s%s:%d", d ? "," : "", f->kind[d].name,
		                 f->kind[d].count);
		if (r < 0)
			break;
		w += (size_t)r;
	}
}
