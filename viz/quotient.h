/*
 * quotient.h - the stage graph of a partition (DESIGN.md section 7).
 *
 * Contracting every stage of a partition to one node gives the quotient
 * graph: node s carries stage s's costs (cost.h, 000 eq. 1-4) and an edge
 * s -> t carries the bytes of tensors produced in s and read in t.  A tensor
 * read by several ops of stage t crosses once (the tensor cut property of
 * 000 Figure 2), and a tensor read in several other stages crosses once per
 * destination stage.  So the volumes entering t add up to t's in bytes,
 * while those leaving s add up to at least s's out bytes (which count a
 * tensor once however many stages read it).
 *
 * On a training graph (core/graph.h) each volume is also split by pass: the
 * bytes of tensors made by backward ops are volume_bw, the rest forward,
 * as the stage costs split them (cost.h: a tensor belongs to the pass of
 * the op that makes it).  The quotient also keeps the schedule and its
 * objective: the bottleneck under 1F1B, the largest forward cost of a stage
 * plus the largest backward cost under GPipe (sc_costs_gpipe).
 *
 * Devices (core/fleet.h): built with the stages' kinds, each stage's costs
 * are its kind's (cost.h: a CPU stage of 001 section 3 costs its ops' CPU
 * times, st[s].cpu says it is one, and pays no io; q->cpus counts them);
 * the edges carry the tensors crossing stages whatever the devices, which
 * the stages at their ends pay for over their links.
 *
 * An sc_quotient is a plain value: it owns copies of everything and does
 * not refer to the graph it came from.  The number formatters are the ones
 * every picture of the quotient uses (Graphviz labels, the terminal canvas),
 * so tests can look for the same strings.
 */
#ifndef SC_QUOTIENT_H
#define SC_QUOTIENT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/cost.h"
#include "core/fleet.h"

typedef struct sc_qedge {
	int from, to;     /* stages, 0-based */
	double volume;    /* bytes of tensors crossing from `from` to `to` */
	double volume_bw; /* the part made by backward ops (0 on inference) */
} sc_qedge;

typedef struct sc_quotient {
	int k;
	sc_stage_cost *st; /* k entries: a copy of the stage costs */
	int bottleneck;    /* the stage of largest cost (lowest index on ties) */
	double bottleneck_cost;
	int nedges;
	sc_qedge *edges; /* sorted by (from, to); no duplicates, no self-loops */
	/* Training graphs (false, 0 and the bottleneck on inference): */
	bool training;
	int ops, backward_ops, orphans; /* of the graph */
	sc_schedule schedule;
	double objective;             /* the bottleneck (1F1B) or the GPipe objective */
	double gpipe_fw, gpipe_bw;    /* the largest forward and backward stage costs */
	int gpipe_fw_at, gpipe_bw_at; /* their stages (lowest index on ties) */
	/* What each stage's parameter bytes (st[s].param) are held against: */
	double memory;        /* the memory limit M per stage, INFINITY for none */
	sc_mem_policy policy; /* under SC_MEM_HARD a stage over M is infeasible */
	int cpus;             /* CPU stages among the k (st[s].cpu), 0 without */
	/* Devices (core/fleet.h): whether the partition names its stages'
	 * devices (sc_costs_names_devices: a CPU stage, or a fleet of kinds
	 * given), and the names of the kinds st[s].kind indexes ("accel" and
	 * "cpu" without a fleet, as 001 names them) */
	bool devices;
	int nkinds;
	char kind_name[SC_KINDS_MAX][SC_KIND_NAME];
	double kind_memory[SC_KINDS_MAX]; /* each kind's limit, INFINITY: none (a CPU) */
} sc_quotient;

/* Builds the quotient of g under stage[0..n) (0-based stages below set->k,
 * set->k >= 1) with costs under set's bandwidth, memory and policy.  An
 * edge s -> t exists whenever some op edge goes from stage s to stage t,
 * even when the tensors crossing it are empty (volume 0).  The partition
 * need not be valid beyond the stage range: an edge going backwards simply
 * appears as an edge t -> s.  Returns a new quotient (free with
 * sc_quotient_free), or NULL with err set: SC_ERR_INPUT for k < 1 or a stage
 * out of range (naming the op), SC_ERR_NOMEM.  Thread-safe for distinct
 * outputs; g is only read. */
sc_quotient *sc_quotient_new(const sc_graph *g, const sc_settings *set, const int *stage,
                             sc_error *err);

/* sc_quotient_new with the stages' devices: kind[s] (k = set->k entries,
 * indices into set->fleet's kinds, or without a fleet 0 the graph's own
 * device and 1 a CPU; NULL: every stage kind 0, which is sc_quotient_new)
 * is stage s's kind, whose costs it has (cost.h). */
sc_quotient *sc_quotient_new_kinds(const sc_graph *g, const sc_settings *set, const int *stage,
                                   const int *kind, sc_error *err);

/* The device pictures name stage s by: its kind's name when q names
 * devices ("CPU" for a CPU, as 001 writes it), else NULL. */
const char *sc_quotient_device(const sc_quotient *q, int s);

/* The memory limit stage s's parameters are held against: its kind's
 * (INFINITY: none). */
double sc_quotient_memory(const sc_quotient *q, int s);

/* The memory limits of the stages into buf, for captions: "40 GB per
 * stage" when every limited stage has the same, else per kind ("per stage
 * h100 80 GB, a100 40 GB"); "" when no stage has one.  Returns buf. */
char *sc_quotient_memory_limits(const sc_quotient *q, char *buf, size_t size);

/* The stages per device into buf, for captions: "2 accelerator stages, 1
 * CPU stage" without a fleet, "2 h100 stages, 1 a100 stage" with one
 * (kinds with no stage left out); "" when q names no devices.  Returns
 * buf. */
char *sc_quotient_devices(const sc_quotient *q, char *buf, size_t size);

/* Writes the label of edge e (in bytes): on an inference quotient the
 * volume ("2 B"); on a training one each pass that moves bytes, forward
 * first, joined by sep ("fw 2 B" sep "bw 1 kB"), or "0 B" when neither
 * does.  Returns buf. */
char *sc_quotient_edge_label(const sc_quotient *q, const sc_qedge *e, const char *sep, char *buf,
                             size_t size);

/* How pictures and screens name a schedule: "1F1B" or "GPipe". */
const char *sc_quotient_schedule_name(sc_schedule s);

/* Whether stage s is at the bottleneck (the bottleneck stage, or tied
 * with it: sc_cost_at_bottleneck). */
bool sc_quotient_at_bottleneck(const sc_quotient *q, int s);

/* "stage 3", or with ties "stages 2, 4, 6" (the first eight, then "..."),
 * into buf; returns buf. */
char *sc_quotient_bottleneck_stages(const sc_quotient *q, char *buf, size_t size);

/* Empty stages (no ops) in q, and whether pictures leave them out: when
 * there are more than SC_QUOTIENT_EMPTY_SHOWN of them (k far above the
 * ops: a million stages would be a million boxes), the stage graph and the
 * full picture draw only the stages with ops, and their caption says how
 * many empty ones were left out. */
#define SC_QUOTIENT_EMPTY_SHOWN 16
int sc_quotient_empty(const sc_quotient *q);
bool sc_quotient_hides_empty(const sc_quotient *q);

/* Frees q.  sc_quotient_free(NULL) does nothing. */
void sc_quotient_free(sc_quotient *q);

/* Formats a time or count compactly for pictures: at most 4 significant
 * digits ("8", "12.35", "1234", "123457", "0.001234"), exponent form
 * beyond ("1.23e9", "4.5e-6"), "inf" for infinity.  Writes into buf
 * (truncating to size) and returns buf. */
char *sc_quotient_fmt(double x, char *buf, size_t size);

/* Formats a byte count with a decimal unit: "0 B", "2 B", "512 B", "1.5 kB",
 * "23.4 MB", "1.07 GB", ...  Returns buf. */
char *sc_quotient_fmt_bytes(double bytes, char *buf, size_t size);

#endif
