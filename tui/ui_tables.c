/*
 * ui_tables.c - the stage tables solve, eval and bounds print (ui.h):
 * each stage's costs and device, the devices' line, a training graph's
 * objective.
 */
#include "ui.h"

#include <math.h>
#include <stdio.h>

#include "core/mem.h"
#include "core/cost.h"

void ui_print_devices(const sc_costs *c, FILE *f)
{
	if (c->set.fleet) {
		/* a fleet: each kind's stages and what they compute */
		fprintf(f, "devices:");
		int said = 0;
		for (int e = 0; e < c->fleet.n; e++) {
			int n = 0, used = 0;
			double work = 0;
			for (int s = 0; s < c->k; s++)
				if (c->st[s].kind == e) {
					n++;
					used += c->st[s].ops > 0;
					work += c->st[s].work;
				}
			/* (a kind no stage has: a file's own devices leave it out) */
			char a[32];
			if (n > 0)
				fprintf(f, "%s %d %s (%d used, work %s)", said++ ? "," : "", n,
				        c->fleet.kind[e].name, used, ui_num(work, a, sizeof a));
		}
		fputc('\n', f);
		return;
	}
	int ncpu = 0;
	double on_cpu = 0, total = 0;
	for (int s = 0; s < c->k; s++) {
		ncpu += c->st[s].cpu;
		if (c->st[s].cpu)
			on_cpu += c->st[s].work;
	}
	for (int v = 0; v < c->g->n; v++)
		total += sc_graph_cpu_work(c->g, v);
	char a[32], b[32];
	fprintf(f, "devices: %d accelerator stage%s, %d CPU stage%s (CPU time %s of %s)\n",
	        c->k - ncpu, c->k - ncpu == 1 ? "" : "s", ncpu, ncpu == 1 ? "" : "s",
	        ui_num(on_cpu, a, sizeof a), ui_num(total, b, sizeof b));
}

/* What each stage holds (activations.h), part by part, and the stages
 * that do not fit with their largest part. */
static void print_memory_table(const sc_costs *c, FILE *f)
{
	bool training = sc_graph_is_training(c->g);
	if (training)
		fprintf(f,
		        "memory per stage, bytes: params + grads + optimizer (%s) + stash per "
		        "micro-batch x micro-batches in flight + working peak = total\n",
		        c->g->acts->optimizer_name[0] ? c->g->acts->optimizer_name : "none");
	else
		fprintf(f, "memory per stage, bytes: params + working peak = total\n");
	fprintf(f, "  %5s %12s", "stage", "params");
	if (training)
		fprintf(f, " %12s %12s %12s %9s", "grads", "optimizer", "stash", "in flight");
	fprintf(f, " %12s %12s %12s\n", "peak", "total", "limit");
	for (int s = 0; s < c->k; s++) {
		if (c->st[s].ops == 0)
			continue;
		sc_mem_parts p = sc_costs_memory_parts(c, s);
		double lim = sc_costs_stage_memory(c, s);
		char a[32], b[32], d[32], e[32];
		fprintf(f, "%c %5d %12s", p.total > lim ? '!' : ' ', s + 1,
		        ui_num(p.params, a, sizeof a));
		if (training)
			fprintf(f, " %12s %12s %12s %9d", ui_num(p.grads, a, sizeof a),
			        ui_num(p.optimizer, b, sizeof b), ui_num(p.stash, d, sizeof d),
			        p.in_flight);
		fprintf(f, " %12s %12s %12s\n", ui_num(p.working_peak, a, sizeof a),
		        ui_num(p.total, b, sizeof b),
		        isfinite(lim) ? ui_num(lim, e, sizeof e) : "none");
	}
	for (int s = 0; s < c->k; s++) {
		sc_mem_parts p = sc_costs_memory_parts(c, s);
		double lim = sc_costs_stage_memory(c, s);
		char a[32], b[32];
		if (c->st[s].ops > 0 && p.total > lim)
			fprintf(f,
			        "stage %d does not fit: %s bytes over a limit of %s; its largest "
			        "part "
			        "is %s\n",
			        s + 1, ui_num(p.total, a, sizeof a), ui_num(lim, b, sizeof b),
			        sc_mem_parts_largest(&p));
	}
}

void ui_print_stage_table(const sc_costs *c, FILE *f)
{
	int at;
	double bn = sc_costs_bottleneck(c, &at);
	/* a training graph adds each stage's cost by pass (fw + bw = cost) */
	bool training = sc_graph_is_training(c->g);
	/* CPU stages (001 section 3): a device column, and a CPU stage's work is
	 * its CPU time */
	bool devices = sc_costs_has_cpu(c) || c->set.fleet;
	fprintf(f, "  %5s %7s", "stage", "ops");
	if (devices)
		fprintf(f, " %6s", "device");
	fprintf(f, " %12s %12s %12s %12s", "work", "io in", "io out", "overflow");
	if (training)
		fprintf(f, " %12s %12s", "fw", "bw");
	/* with activation sizes the last column is the stage's whole memory
	 * (the table below gives its parts) */
	fprintf(f, " %12s %12s\n", "cost", c->g->acts ? "memory" : "param");
	for (int s = 0; s < c->k; s++) {
		const sc_stage_cost *st = &c->st[s];
		/* a run of empty stages (k far above the ops, up to 1 000 000) is
		 * one line: an empty stage holds nothing and costs 0 */
		int run = 0;
		while (s + run < c->k && c->st[s + run].ops == 0)
			run++;
		if (run >= 4 && !devices) {
			fprintf(f, "  %5d..%d  empty (%d stages, each costing 0)\n", s + 1, s + run,
			        run);
			s += run - 1;
			continue;
		}
		char w[32], i[32], o[32], v[32], t[32];
		/* every stage tied with the bottleneck is marked */
		bool mark = s == at || sc_cost_at_bottleneck(st->cost, bn);
		fprintf(f, "%c %5d %7d", mark ? '*' : ' ', s + 1, st->ops);
		if (devices)
			fprintf(f, " %6.6s", sc_costs_device_name(c, s));
		fprintf(f, " %12s %12s %12s %12s", ui_num(st->work, w, sizeof w),
		        ui_num(st->io_in, i, sizeof i), ui_num(st->io_out, o, sizeof o),
		        ui_num(st->overflow, v, sizeof v));
		if (training)
			fprintf(f, " %12s %12s", ui_num(st->cost_fw, w, sizeof w),
			        ui_num(st->cost_bw, i, sizeof i));
		fprintf(f, " %12s %12s%s\n", ui_num(st->cost, t, sizeof t),
		        ui_num(st->need, v, sizeof v),
		        st->over_memory && c->set.policy == SC_MEM_HARD ? "  over memory" : "");
	}
	/* what the param column is held against: with a fleet, each kind's
	 * memory */
	if (c->set.fleet) {
		bool any = false;
		for (int e = 0; e < c->fleet.n; e++)
			any |= isfinite(c->fleet.kind[e].memory);
		if (any) {
			fprintf(f,
			        "memory limit per stage (%s):", sc_mem_policy_name(c->set.policy));
			for (int e = 0, first = 1; e < c->fleet.n; e++) {
				char m[32];
				if (!isfinite(c->fleet.kind[e].memory))
					continue;
				fprintf(f, "%s %s %s bytes", first ? "" : ",",
				        c->fleet.kind[e].name,
				        ui_num(c->fleet.kind[e].memory, m, sizeof m));
				first = 0;
			}
			fputc('\n', f);
		}
	} else if (isfinite(c->set.memory)) {
		char m[32];
		fprintf(f, "memory limit %s bytes of %s per stage (%s)\n",
		        ui_num(c->set.memory, m, sizeof m), c->g->acts ? "memory" : "parameters",
		        sc_mem_policy_name(c->set.policy));
	}
	if (c->g->acts)
		print_memory_table(c, f);
}

void ui_print_objective(const sc_costs *c, const char *suffix, FILE *f)
{
	if (!sc_graph_is_training(c->g))
		return;
	char a[32], b[32], t[32];
	int fa, ba;
	double gp = sc_costs_gpipe(c, &fa, &ba);
	if (c->set.schedule == SC_SCHEDULE_GPIPE)
		fprintf(f,
		        "GPipe objective %s = forward %s (stage %d) + backward %s (stage %d)%s   "
		        "[--schedule gpipe]\n",
		        ui_num(gp, t, sizeof t), ui_num(c->st[fa].cost_fw, a, sizeof a), fa + 1,
		        ui_num(c->st[ba].cost_bw, b, sizeof b), ba + 1, suffix);
	else
		fprintf(f,
		        "training graph, 1F1B schedule: the objective is the bottleneck (GPipe "
		        "would give %s)\n",
		        ui_num(gp, t, sizeof t));
}

sc_costs *ui_model_memory(const sc_graph *g)
{
	sc_settings one = g->settings;
	one.k = 1;
	one.fleet = NULL;
	one.cpus = 0;
	int *zero = sc_calloc_n((size_t)g->n, sizeof *zero);
	sc_error err;
	sc_costs *c = zero ? sc_costs_new(g, &one, &err) : NULL;
	if (c)
		sc_costs_eval(c, zero);
	free(zero);
	return c;
}

void ui_print_model_memory(const sc_costs *whole, FILE *f)
{
	const sc_graph *g = whole->g;
	sc_mem_parts p = sc_costs_memory_parts(whole, 0);
	char a[32], b[32], c[32], d[32], e[32];
	if (sc_graph_is_training(g))
		fprintf(f,
		        "memory         %s bytes in one stage: params %s, grads and optimizer (%s) "
		        "%s, stash %s per micro-batch, working peak %s\n",
		        ui_num(p.total, a, sizeof a), ui_num(p.params, b, sizeof b),
		        g->acts->optimizer_name, ui_num(p.grads + p.optimizer, c, sizeof c),
		        ui_num(p.stash, d, sizeof d), ui_num(p.working_peak, e, sizeof e));
	else
		fprintf(f, "memory         %s bytes in one stage: params %s, working peak %s\n",
		        ui_num(p.total, a, sizeof a), ui_num(p.params, b, sizeof b),
		        ui_num(p.working_peak, c, sizeof c));
}
