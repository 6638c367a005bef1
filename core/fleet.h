/*
 * fleet.h - the devices a pipeline runs on (DESIGN.md section 1, Devices).
 *
 * A fleet is a few kinds of device, each with a count (the stages of that
 * kind a partition may use, any of them empty), its own op times, memory,
 * link bandwidth and the ops it may run.  A partition gives every stage a
 * kind: an index into the fleet, chosen by the optimizer.
 *
 * Three sources of op times make a kind:
 *   - the graph's own work (every format): the kind named g->work_kind
 *     ("accel" for DOT and msr-fiddle files, the device for an ONNX model);
 *   - "cpu": paper 001's CPU stages, the ops' CPU times (msr-fiddle
 *     cpuLatency, DOT cpu_work).  A CPU stage costs the sum of its ops'
 *     times: no io, no memory limit;
 *   - any other name: a table of the graph (g->kind_name, g->kind_work):
 *     DOT work_NAME attributes, an ONNX model costed on the device NAME,
 *     or measured times (--times NAME=FILE).
 *
 * A stage of kind d costs as in cost.h with d's work, d's memory M_d and,
 * for its io, the link of each transfer: a tensor between stages of kinds
 * d and e moves at min(B_d, B_e), the slower of the two links (a CPU's
 * link is the graph's bandwidth).  Without a fleet (sc_settings.fleet
 * NULL) a problem has the kind of the graph's work, k of them, and, when
 * sc_settings.cpus > 0, the kind "cpu" with that count.
 */
#ifndef SC_FLEET_H
#define SC_FLEET_H

#include <stdbool.h>

#include "error.h"
#include "graph.h"

#define SC_KINDS_MAX 8
#define SC_KIND_NAME 32

typedef struct sc_kind {
	char name[SC_KIND_NAME];
	int count;        /* stages of this kind at most */
	bool cpu;         /* paper 001's CPU: its ops' times, no io, no memory limit */
	double bandwidth; /* its link: bytes per time unit (> 0) */
	double memory;    /* bytes per stage; INFINITY: unlimited */
	/* a devices file's memory and link for this kind (> 0), which
	 * sc_fleet_resolve puts over the settings' and the graph's; 0: none */
	double own_memory, own_bandwidth;
	/* per op: its time on this kind, NAN where it may not run; NULL: the
	 * graph's work (and accel_ok says which ops may).  Borrowed from the
	 * graph. */
	const double *work;
} sc_kind;

typedef struct sc_fleet {
	int n; /* kinds, 1 .. SC_KINDS_MAX */
	sc_kind kind[SC_KINDS_MAX];
} sc_fleet;

/* True when name[0..len) may name a kind: letters, digits, _ - and .,
 * at most SC_KIND_NAME - 1 of them. */
bool sc_kind_name_ok(const char *name, size_t len);

/* Parses a --devices SPEC: "NAME:COUNT[,NAME:COUNT]..." (kinds in any
 * order, each named once, counts >= 1, at most SC_KINDS_MAX kinds).  Fills
 * names and counts; the rest waits for sc_fleet_resolve.  On failure the
 * message names the part of spec that is wrong. */
bool sc_fleet_parse(const char *spec, sc_fleet *out, sc_error *err);

/* The kinds of a problem on g: set->fleet's, each bound to its op times
 * in g (an unknown name fails, listing the names g has), or, without one,
 * g->work_kind with set->k and "cpu" with set->cpus when positive.  Every
 * kind's bandwidth and memory are set->bandwidth and set->memory (a CPU's
 * memory is unlimited), or its table's in g when given, or own_bandwidth
 * and own_memory when set (a devices file's). */
bool sc_fleet_resolve(const sc_graph *g, const sc_settings *set, sc_fleet *out, sc_error *err);

/* The stages a partition under set has: its fleet's, or without one its
 * k of the graph's own device and its CPUs (set->cpus when positive). */
int sc_settings_stages(const sc_settings *set);

/* The mixes around f, the practitioner's question "what does one more or
 * one fewer device buy": f itself, then for each kind f with one fewer of
 * it (when it has one and a stage is left) and one more, into out (at most
 * SC_FLEET_NEIGHBOURS); returns how many. */
#define SC_FLEET_NEIGHBOURS (2 * SC_KINDS_MAX + 1)
int sc_fleet_neighbours(const sc_fleet *f, sc_fleet *out);

/* The stages of f: the sum of its counts. */
int sc_fleet_stages(const sc_fleet *f);

/* The kind of stage s of a partition that names none: the fleet's kinds in
 * order, each for as many stages as its count (with CPU stages the
 * accelerators, then the CPUs). */
int sc_fleet_kind_in_order(const sc_fleet *f, int s);

/* The index of the kind named name in f, or -1. */
int sc_fleet_find(const sc_fleet *f, const char *name);

/* True when f is one kind of the graph's own work (the plain problem). */
bool sc_fleet_plain(const sc_fleet *f);

/* True when f is paper 001's short form for g: the graph's own device
 * first, then (when there are two kinds) "cpu": what k and --cpus say,
 * kind for kind.  Works on a parsed fleet as on a resolved one. */
bool sc_fleet_cpus_form(const sc_graph *g, const sc_fleet *f);

/* True when every kind that pays io has the same link bandwidth: then a
 * stage's io costs the same whatever kinds its neighbours are. */
bool sc_fleet_one_link(const sc_fleet *f);

/* Whether op v may run on kind d, and its time there. */
static inline bool sc_kind_ok(const sc_kind *d, const sc_graph *g, int v)
{
	if (d->work)
		return d->work[v] == d->work[v]; /* not NAN */
	return d->cpu ? sc_graph_cpu_ok(g, v) : sc_graph_accel_ok(g, v);
}

static inline double sc_kind_work(const sc_kind *d, const sc_graph *g, int v)
{
	if (d->work)
		return d->work[v] == d->work[v] ? d->work[v] : 0;
	return d->cpu ? sc_graph_cpu_work(g, v) : g->work[v];
}

/* The time ops[0..n) of g take together on kind d: NAN when d has no
 * stage (count 0) or may not run one of them. */
double sc_kind_time(const sc_kind *d, const sc_graph *g, const int *ops, int n);

/* The least of sc_kind_time over f's kinds; INFINITY when no kind may run
 * them all. */
double sc_fleet_least_time(const sc_fleet *f, const sc_graph *g, const int *ops, int n);

/* Writes "h100:2,a100:2" into buf. */
void sc_fleet_format(const sc_fleet *f, char *buf, size_t size);

#endif
