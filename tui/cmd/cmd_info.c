/*
 * cmd_info.c - `stagecut info FILE`: sizes, totals, settings and the simple
 * lower bound for k = 2, 4, ..., 64 (and the file's own k).
 */
#include <math.h>
#include <stdlib.h>

#include "tui/ui.h"
#include "core/report.h"
#include "core/layers.h"
#include "core/modules.h"
#include "info_devices.h"
#include "info_onnx.h"
#include "core/parse.h"
#include "core/mem.h"
#include "core/formats/write_dot.h"
#include "solvers/contract_report.h"
#include "solvers/simple.h"

typedef struct info_stats {
	int sources, sinks, depth;
	int multi_groups, grouped_ops, largest_group;
	double work, param, out;
} info_stats;

static void gather(const sc_graph *g, info_stats *s, int *level)
{
	*s = (info_stats){0};
	for (int i = 0; i < g->n; i++) {
		int v = g->topo[i];
		level[v] = 1;
		for (int j = g->pred_off[v]; j < g->pred_off[v + 1]; j++)
			if (level[g->pred[j]] + 1 > level[v])
				level[v] = level[g->pred[j]] + 1;
		if (level[v] > s->depth)
			s->depth = level[v];
		s->sources += sc_graph_indeg(g, v) == 0;
		s->sinks += sc_graph_outdeg(g, v) == 0;
		s->work += g->work[v];
		s->param += g->param[v];
		s->out += g->out[v];
	}
	for (int i = 0; i < g->ngroups; i++) {
		int size = sc_graph_group_size(g, i);
		if (size > 1) {
			s->multi_groups++;
			s->grouped_ops += size;
			if (size > s->largest_group)
				s->largest_group = size;
		}
	}
}

/* ---- the exact DP's contraction (solvers/contract.h) --------------------- */

/* Ideals are counted up to this many, and on a large graph up to
 * INFO_IDEAL_WORK / ops (each ideal costs a pass over the ops: swin_t's 3517
 * took 15 s to reach a million); past it info says "more than". */
#define INFO_IDEAL_LIMIT 1000000L
#define INFO_IDEAL_WORK 2e8

static long ideal_limit(const sc_graph *g)
{
	double by_work = INFO_IDEAL_WORK / (g->n + 1);
	return by_work < INFO_IDEAL_LIMIT ? (long)by_work : INFO_IDEAL_LIMIT;
}

/* A training graph's totals by pass. */
typedef struct pass_totals {
	double work_fw, work_bw;
	int forward_edges; /* order arcs along forward edges */
} pass_totals;

static void pass_totals_of(const sc_graph *g, pass_totals *t)
{
	*t = (pass_totals){0};
	for (int v = 0; v < g->n; v++) {
		if (g->backward[v])
			t->work_bw += g->work[v];
		else
			t->work_fw += g->work[v];
		for (int i = g->succ_off[v]; i < g->succ_off[v + 1]; i++)
			t->forward_edges += sc_graph_edge_rule(g, v, g->succ[i]) == SC_RULE_FORWARD;
	}
}

static json_t *training_json(const sc_graph *g)
{
	pass_totals t;
	pass_totals_of(g, &t);
	return json_pack("{s:i, s:i, s:i, s:f, s:f, s:i, s:i}", "forward_ops",
	                 g->n - g->backward_ops, "backward_ops", g->backward_ops, "orphans",
	                 g->orphans, "work_forward", t.work_fw, "work_backward", t.work_bw,
	                 "order_arcs", g->m_order, "mirrored_arcs", g->m_order - t.forward_edges);
}

static json_t *contraction_json(const sc_contract_report *r, long limit)
{
	json_t *rules = json_object();
	for (int i = 0; i < SC_CONTRACT_NRULES; i++)
		json_object_set_new(rules, sc_contract_rule_name(i),
		                    json_integer(r->stats.by_rule[i]));
	return json_pack(
	        "{s:i, s:i, s:i, s:o, s:o, s:o}", "units_before", r->stats.units_before, "units",
	        r->stats.units_after, "rounds", r->stats.rounds, "rules", rules, "ideals_before",
	        r->ideals_before > limit ? json_null() : json_integer(r->ideals_before), "ideals",
	        r->ideals_after > limit ? json_null() : json_integer(r->ideals_after));
}

static void ideals_text(long count, long limit, char *buf, size_t size)
{
	if (count > limit)
		snprintf(buf, size, "more than %ld", limit);
	else
		snprintf(buf, size, "%ld", count);
}

static void contraction_print(const sc_graph *g, const sc_contract_report *r)
{
	char a[40], b[40];
	printf("contraction    %d ops -> %d units (groups, cycles) -> %d units (safe rules:",
	       r->ops, r->stats.units_before, r->stats.units_after);
	if (sc_graph_is_training(g) && g->settings.schedule == SC_SCHEDULE_GPIPE)
		printf(" not applied under the GPipe schedule");
	else
		for (int i = 0; i < SC_CONTRACT_NRULES; i++)
			printf("%s %s %d", i ? "," : "", sc_contract_rule_name(i),
			       r->stats.by_rule[i]);
	printf(")\n");
	ideals_text(r->ideals_after, ideal_limit(g), a, sizeof a);
	ideals_text(r->ideals_before, ideal_limit(g), b, sizeof b);
	printf("ideals         %s for the exact DP (%s without the rules)\n", a, b);
}

typedef struct cost_cover {
	int measured, modelled, from_file;
	double measured_work, work;
} cost_cover;

static void cover_of(const sc_graph *g, cost_cover *c)
{
	*c = (cost_cover){0};
	for (int v = 0; v < g->n; v++) {
		int src = g->work_source ? g->work_source[v] : SC_WORK_FILE;
		c->measured += src == SC_WORK_MEASURED;
		c->modelled += src == SC_WORK_MODEL;
		c->from_file += src == SC_WORK_FILE;
		c->work += g->work[v];
		if (src == SC_WORK_MEASURED)
			c->measured_work += g->work[v];
	}
}

static json_t *costs_json(const sc_graph *g, const sc_onnx_report *r)
{
	cost_cover c;
	cover_of(g, &c);
	return json_pack("{s:o, s:i, s:i, s:i, s:i, s:f}", "origin",
	                 sc_json_text(g->cost_origin ? g->cost_origin : "the file's numbers"),
	                 "ops_measured", c.measured, "ops_modelled", c.modelled, "ops_from_file",
	                 c.from_file, "ops_folded", r->filled ? r->nfolded : 0,
	                 "measured_work_share", c.work > 0 ? c.measured_work / c.work : 0.0);
}

/* when the work is modelled or measured (g->cost_origin set) */
static void costs_print(const sc_graph *g, const sc_onnx_report *r)
{
	cost_cover c;
	cover_of(g, &c);
	ui_print_line("costs          %s", g->cost_origin);
	printf("coverage       %d op%s measured, %d modelled, %d from the file, %d folded; "
	       "%.1f %% of the work measured\n",
	       c.measured, c.measured == 1 ? "" : "s", c.modelled, c.from_file,
	       r->filled ? r->nfolded : 0, c.work > 0 ? 100 * c.measured_work / c.work : 0.0);
}

/* ---- modules (core/modules.h) ---------------------------------------------- */

/* The text lists at most this many top-level modules; --json lists all. */
#define INFO_TOP_ROWS 16

typedef struct module_sums {
	double work, param;
	int children;
} module_sums;

static void module_sums_of(const sc_graph *g, const sc_modules *m, int i, module_sums *s)
{
	*s = (module_sums){0};
	for (int j = m->m[i].first; j < m->m[i].end; j++) {
		s->work += g->work[m->ops_sorted[j]];
		s->param += g->param[m->ops_sorted[j]];
	}
	for (int c = m->m[i].first_child; c >= 0; c = m->m[c].next_sibling)
		s->children++;
}

static json_t *modules_json(const sc_graph *g, const sc_modules *m, double total_work)
{
	json_t *top = json_array();
	for (int c = m->m[0].first_child; c >= 0; c = m->m[c].next_sibling) {
		module_sums s;
		module_sums_of(g, m, c, &s);
		json_array_append_new(top, json_pack("{s:o, s:i, s:f, s:f, s:f, s:i}", "name",
		                                     sc_json_text(m->m[c].name), "ops",
		                                     m->m[c].end - m->m[c].first, "work", s.work,
		                                     "work_share",
		                                     total_work > 0 ? s.work / total_work : 0.0,
		                                     "param", s.param, "children", s.children));
	}
	json_t *per_depth = json_array();
	for (int d = 1; d <= m->max_depth; d++) {
		int c = 0;
		for (int i = 1; i < m->n; i++)
			c += m->m[i].depth == d;
		json_array_append_new(per_depth, json_integer(c));
	}
	json_t *layers = json_array();
	for (int d = 1; d <= m->max_depth && m->n > 1; d++) {
		int c = sc_layers_count(g, m, d);
		json_array_append_new(layers, c >= 0 ? json_integer(c) : json_null());
	}
	return json_pack("{s:i, s:i, s:o, s:o, s:i, s:o}", "count", m->n - 1, "max_depth",
	                 m->max_depth, "per_depth", per_depth, "layers_per_depth", layers,
	                 "root_ops", sc_modules_own_ops(m, 0), "top", top);
}

static void modules_print(const sc_graph *g, const sc_modules *m, double total_work)
{
	char a[32];
	int ntop = 0;
	for (int c = m->m[0].first_child; c >= 0; c = m->m[c].next_sibling)
		ntop++;
	if (m->n == 1)
		return; /* no name has a module path: nothing to say */
	printf("modules        %d top-level, %d in all, depth %d, from the op names; %d op%s "
	       "in none\n",
	       ntop, m->n - 1, m->max_depth, sc_modules_own_ops(m, 0),
	       sc_modules_own_ops(m, 0) == 1 ? "" : "s");
	printf("               per depth:");
	for (int d = 1; d <= m->max_depth; d++) {
		int c = 0;
		for (int i = 1; i < m->n; i++)
			c += m->m[i].depth == d;
		printf(" %d at %d%s", c, d, d < m->max_depth ? "," : "");
	}
	printf("\n               layers (solve --align DEPTH):");
	for (int d = 1; d <= m->max_depth; d++) {
		int c = sc_layers_count(g, m, d);
		if (c >= 0)
			printf(" %d at %d%s", c, d, d < m->max_depth ? "," : "");
		else
			printf(" ? at %d%s", d, d < m->max_depth ? "," : "");
	}
	printf("\n");
	printf("  %-32s %7s %7s %12s %9s\n", "module", "ops", "work", "param bytes", "children");
	int row = 0;
	for (int c = m->m[0].first_child; c >= 0 && row < INFO_TOP_ROWS;
	     c = m->m[c].next_sibling, row++) {
		module_sums s;
		module_sums_of(g, m, c, &s);
		char name[SC_MSG_NAME_MAX + 40];
		sc_msg_name(name, sizeof name, m->m[c].name);
		snprintf(a, sizeof a, "%.4g", s.param);
		ui_print_line("  %-32s %7d %6.1f%% %12s %9d", name, m->m[c].end - m->m[c].first,
		              total_work > 0 ? 100 * s.work / total_work : 0.0, a, s.children);
	}
	if (ntop > INFO_TOP_ROWS)
		printf("  ... and %d more (--json lists them all)\n", ntop - INFO_TOP_ROWS);
}

/* A number, or null when not finite (inf, which a key says; NaN). */
static json_t *json_num_or_null(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

static const int ks[] = {2, 4, 8, 16, 32, 64};
#define NKS (int)(sizeof ks / sizeof ks[0])

/* What info found, for its printers (compute, then print). */
typedef struct info_report {
	const ui_opts *o;
	const sc_graph *g;
	const sc_onnx_report *rep;
	const info_stats *s;
	const sc_contract_report *contraction;
	const sc_modules *mods;
	const ui_mix_table *cpus;    /* filled when o->cpus != -1 */
	const ui_mix_table *devices; /* filled with --devices */
	int extra;                   /* the file's k when not among ks, else 0 */
	const sc_costs *whole;       /* every op in one stage, when g has activation sizes */
} info_report;

/* info --json: one object.  False when out of memory or it could not be
 * written. */
static bool print_json(const info_report *r)
{
	const sc_graph *g = r->g;
	const sc_settings *set = &g->settings;
	json_t *bounds = json_array();
	for (int i = 0; i <= NKS; i++) {
		int k = i < NKS ? ks[i] : r->extra;
		if (k <= 0)
			continue;
		json_t *row = json_pack("{s:i, s:f}", "k", k, "bound", sc_bound_simple(g, k));
		/* the bound with CPU stages (simple.h); if infinite, a key says */
		if (set->cpus > 0) {
			double v = ui_simple_cpus(g, k, set->cpus);
			json_object_set_new(row, "bound_cpus", json_num_or_null(v));
			json_object_set_new(row, "cpus_infeasible",
			                    isnan(v) ? json_null() : json_boolean(isinf(v)));
		}
		json_array_append_new(bounds, row);
	}
	/* the path as given may not be UTF-8, which JSON needs */
	char *source = sc_utf8_escape(g->source);
	json_t *root =
	        !source ? NULL
	                : json_pack("{s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, "
	                            "s:f, s:f, s:f,"
	                            " s:{s:o, s:f, s:o, s:b, s:s}, s:o}",
	                            "graph", g->name, "source", source, "ops", g->n, "edges", g->m,
	                            "sources", r->s->sources, "sinks", r->s->sinks, "depth",
	                            r->s->depth, "groups", r->s->multi_groups, "grouped_ops",
	                            r->s->grouped_ops, "largest_group", r->s->largest_group,
	                            "total_work", r->s->work, "total_param", r->s->param,
	                            "total_out", r->s->out, "settings", "k",
	                            set->k ? json_integer(set->k) : json_null(), "bandwidth",
	                            set->bandwidth, "memory",
	                            isinf(set->memory) ? json_null() : json_real(set->memory),
	                            "memory_unlimited", (int)isinf(set->memory), "memory_policy",
	                            sc_mem_policy_name(set->policy), "simple_bound", bounds);
	if (root && sc_graph_is_training(g))
		json_object_set_new(root, "training", training_json(g));
	if (root && r->whole)
		json_object_set_new(root, "memory", sc_report_memory(r->whole, 0));
	if (root)
		json_object_set_new(root, "contraction",
		                    contraction_json(r->contraction, ideal_limit(g)));
	if (root)
		json_object_set_new(root, "modules", modules_json(g, r->mods, r->s->work));
	if (root && r->rep->filled)
		json_object_set_new(root, "onnx", ui_info_onnx_json(r->rep));
	if (root && r->o->cpus != -1)
		json_object_set_new(root, "cpus", ui_info_cpus_json(g, r->cpus));
	if (root && r->o->devices)
		json_object_set_new(root, "devices", ui_info_devices_json(g, r->devices));
	if (root)
		json_object_set_new(root, "costs", costs_json(g, r->rep));
	bool ok = ui_print_json(root);
	free(source);
	return ok;
}

/* info's lines.  True (a failed write is told at exit, ui_main). */
static bool print_text(const info_report *r)
{
	const sc_graph *g = r->g;
	const sc_settings *set = &g->settings;
	char a[32], b[32], c[32];
	ui_print_line("graph          %s (%s)", g->name, g->source);
	printf("ops            %d (%d sources, %d sinks, longest path %d ops)\n", g->n,
	       r->s->sources, r->s->sinks, r->s->depth);
	printf("edges          %d\n", g->m);
	printf("groups         %d co-location groups of 2+ ops, %d ops in them, largest %d\n",
	       r->s->multi_groups, r->s->grouped_ops, r->s->largest_group);
	printf("total work     %s %s\n", ui_num(r->s->work, a, sizeof a),
	       g->time_unit ? g->time_unit : "time units");
	printf("total param    %s bytes\n", ui_num(r->s->param, a, sizeof a));
	if (r->whole)
		ui_print_model_memory(r->whole, stdout);
	printf("total out      %s bytes\n", ui_num(r->s->out, a, sizeof a));
	if (set->k)
		printf("settings       k %d, bandwidth %s bytes/time, memory %s bytes (%s)\n",
		       set->k, ui_num(set->bandwidth, b, sizeof b),
		       ui_num(set->memory, c, sizeof c), sc_mem_policy_name(set->policy));
	else
		printf("settings       k not set, bandwidth %s bytes/time, memory %s bytes (%s)\n",
		       ui_num(set->bandwidth, b, sizeof b), ui_num(set->memory, c, sizeof c),
		       sc_mem_policy_name(set->policy));
	if (sc_graph_is_training(g)) {
		pass_totals t;
		pass_totals_of(g, &t);
		printf("training       %d forward ops (work %s), %d backward (work %s), "
		       "%d orphan%s\n",
		       g->n - g->backward_ops, ui_num(t.work_fw, a, sizeof a), g->backward_ops,
		       ui_num(t.work_bw, b, sizeof b), g->orphans, g->orphans == 1 ? "" : "s");
		printf("               %d of the %d edges order the stages (%d forward, %d "
		       "mirrored at orphans)\n",
		       g->m_order, g->m, t.forward_edges, g->m_order - t.forward_edges);
	}
	contraction_print(g, r->contraction);
	modules_print(g, r->mods, r->s->work);
	if (r->o->cpus != -1)
		ui_info_cpus_print(g, r->cpus);
	if (r->o->devices)
		ui_info_devices_print(g, r->devices);
	if (g->cost_origin)
		costs_print(g, r->rep);
	if (r->rep->filled)
		ui_info_onnx_print(r->rep);
	printf("\nsimple lower bound on the bottleneck (time), max(largest op or group, "
	       "work/k):\n");
	if (set->cpus > 0)
		printf("  (with up to %d CPU stage%s: the fractional split of the work between "
		       "accelerators and CPUs, bounds --cpus's simple rung)\n",
		       set->cpus, set->cpus == 1 ? "" : "s");
	printf("  %6s  %14s", "k", "bound");
	if (set->cpus > 0)
		printf("  %14s", "with CPUs");
	printf("\n");
	for (int i = 0; i <= NKS; i++) {
		int k = i < NKS ? ks[i] : r->extra;
		if (k <= 0)
			continue;
		printf("  %6d  %14s", k, ui_num(sc_bound_simple(g, k), a, sizeof a));
		if (set->cpus > 0) {
			char cb[32];
			double v = ui_simple_cpus(g, k, set->cpus);
			printf("  %14s", isnan(v) ? "-" : ui_num(v, cb, sizeof cb));
		}
		printf("\n");
	}
	return true;
}

int ui_cmd_info(const ui_opts *o)
{
	int status = UI_EXIT_OK;
	sc_onnx_report rep = {0};
	sc_graph *g = ui_load_report(o->pos[0], o, &rep, &status);
	if (!g)
		return status;
	if (o->output) {
		/* the costed graph as DOT; loading it back gives the same costs */
		sc_error werr;
		sc_error_clear(&werr);
		if (sc_write_dot(g, NULL, o->output, &werr) != SC_OK) {
			ui_error("%s", werr.msg);
			sc_onnx_report_fini(&rep);
			sc_graph_free(g);
			return UI_EXIT_INPUT;
		}
	}
	int *level = sc_malloc_n((size_t)g->n, sizeof *level);
	if (!level) {
		ui_error("out of memory");
		sc_graph_free(g);
		return UI_EXIT_INPUT;
	}
	info_stats s;
	gather(g, &s, level);
	free(level);
	sc_contract_report contraction;
	sc_error cerr;
	if (sc_contract_report_of(g, ideal_limit(g), &contraction, &cerr) != SC_OK) {
		ui_error("%s", cerr.msg);
		sc_graph_free(g);
		return UI_EXIT_INPUT;
	}
	sc_modules *mods = sc_modules_new(g, &cerr);
	if (!mods) {
		ui_error("%s", cerr.msg);
		sc_graph_free(g);
		return UI_EXIT_INPUT;
	}
	const sc_settings *set = &g->settings;
	/* --cpus (any value, file too) adds the CPU section (001 section 3),
	 * --devices the kinds and the fleet's mixes */
	ui_mix_table cpus, devices;
	if (o->cpus != -1)
		ui_cpu_table_fill(g, &cpus);
	if (o->devices)
		ui_devices_table_fill(g, &devices);
	/* the file's k (or -k) joins the list when it is not already there */
	int extra = set->k;
	for (int i = 0; i < NKS; i++)
		if (ks[i] == extra)
			extra = 0;
	/* what the model holds in one stage (activations.h) */
	sc_costs *whole = g->acts ? ui_model_memory(g) : NULL;
	info_report r = {.o = o,
	                 .whole = whole,
	                 .g = g,
	                 .rep = &rep,
	                 .s = &s,
	                 .contraction = &contraction,
	                 .mods = mods,
	                 .cpus = &cpus,
	                 .devices = &devices,
	                 .extra = extra};
	if (!(o->json ? print_json(&r) : print_text(&r)))
		status = UI_EXIT_INPUT;
	sc_costs_free(whole);
	sc_modules_free(mods);
	sc_onnx_report_fini(&rep);
	sc_graph_free(g);
	return status;
}
