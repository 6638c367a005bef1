/*
 * cmd_export.c - `stagecut export FILE PARTITION --format pytorch|deepspeed
 * [--align DEPTH] [-o OUT]`: a partition as the split points a framework
 * takes (issue 28, item 4).
 *
 * Both frameworks cut the model's program order at module boundaries:
 * PyTorch's pipelining splits the traced program before each module named
 * with SplitPoint.BEGINNING in split_spec, DeepSpeed's PipelineModule cuts
 * its list of layers at the indices in its parts.  So a partition exports
 * when, at the depth asked (or the smallest depth that works),
 *  1. every module at that depth (core/modules.h, sc_modules_align_unit)
 *     lies in one stage,
 *  2. along the program order (sc_graph_program_order: the file's order
 *     when every edge runs forward in it, as in an exporter's output, else
 *     the topological order nearest it) the forward ops' stages never go
 *     back, and
 *  3. every stage begins (its first forward op in that order) where a
 *     module begins; the outermost such module is its split point.
 * Otherwise export refuses, naming the file, the stage and the op or
 * module that breaks the rule, with exit status 1 (a partition that is
 * well formed but not exportable, as eval's invalid partitions).  The
 * backward ops of a training graph follow their forward ops and are not
 * looked at.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/ui.h"
#include "core/fileio.h"
#include "core/formats/partition_file.h"
#include "core/modules.h"
#include "core/partition.h"

typedef enum export_format { EXPORT_PYTORCH, EXPORT_DEEPSPEED } export_format;

/* What a check found: the split point module per stage (-1 for stage 1),
 * or a reason in why. */
typedef struct export_plan {
	int depth;
	int *begin;       /* stage -> the module it begins at; begin[0] = -1 */
	const int *order; /* the program order (sc_graph_program_order) */
	bool file_order;  /* it is the file's */
} export_plan;

static bool is_forward(const sc_graph *g, int v)
{
	return !g->backward || !g->backward[v];
}

/* Rule 1 at depth d: false with why naming the module split. */
static bool units_whole(const sc_graph *g, const sc_modules *m, const int *stage, int d,
                        int *unit_stage, int *unit_op, char *why, size_t size)
{
	for (int i = 0; i < m->n; i++)
		unit_stage[i] = -1;
	for (int v = 0; v < g->n; v++) {
		if (!is_forward(g, v))
			continue;
		int u = sc_modules_align_unit(m, g, v, d);
		if (u < 0)
			continue;
		if (unit_stage[u] < 0) {
			unit_stage[u] = stage[v];
			unit_op[u] = v;
		} else if (unit_stage[u] != stage[v]) {
			sc_msg_format(
			        why, size,
			        "module '%s' (depth %d) is split: op '%s' in stage %d, op '%s' in "
			        "stage %d",
			        m->m[u].name, m->m[u].depth, g->op_name[unit_op[u]],
			        unit_stage[u] + 1, g->op_name[v], stage[v] + 1);
			return false;
		}
	}
	return true;
}

/* Rules 2 and 3 at depth d: the split point module of each stage into
 * plan->begin, or false with why. */
static bool split_points(const sc_graph *g, const sc_modules *m, const int *stage, int k, int d,
                         const int *first_op, export_plan *plan, char *why, size_t size)
{
	int cur = -1, prev_op = -1;
	for (int s = 0; s < k; s++)
		plan->begin[s] = -1;
	for (int t = 0; t < g->n; t++) {
		int v = plan->order[t];
		if (!is_forward(g, v))
			continue;
		if (stage[v] < cur) {
			sc_msg_format(why, size,
			              "op '%s' of stage %d comes after op '%s' of stage %d in the "
			              "program "
			              "order (%s), which the frameworks cut",
			              g->op_name[v], stage[v] + 1, g->op_name[prev_op], cur + 1,
			              plan->file_order ? "the file's"
			                               : "a topological order nearest the file's");
			return false;
		}
		if (stage[v] > cur) {
			if (cur >= 0 || stage[v] > 0) {
				/* the outermost module (no deeper than d) that begins at v */
				int best = -1;
				for (int i = sc_modules_at_depth(m, v, d); i > 0;
				     i = m->m[i].parent)
					if (first_op[i] == v)
						best = i;
				if (best < 0) {
					int in = sc_modules_at_depth(m, v, d);
					if (in == 0)
						sc_msg_format(
						        why, size,
						        "stage %d begins at op '%s', which belongs "
						        "to no module",
						        stage[v] + 1, g->op_name[v]);
					else
						sc_msg_format(
						        why, size,
						        "stage %d begins at op '%s', inside module "
						        "'%s' (which begins at op '%s')",
						        stage[v] + 1, g->op_name[v], m->m[in].name,
						        g->op_name[first_op[in]]);
					return false;
				}
				plan->begin[stage[v]] = best;
			}
			for (int s = cur + 1; s < stage[v]; s++) {
				sc_msg_format(why, size, "stage %d holds no forward op", s + 1);
				return false;
			}
			cur = stage[v];
		}
		prev_op = v;
	}
	if (cur < k - 1) {
		sc_msg_format(why, size, "stage %d holds no forward op", cur + 2);
		return false;
	}
	return true;
}

/* Appends text to the growing buffer *buf (length *len, capacity *cap);
 * false when out of memory. */
static bool put(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
static bool put(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int w = vsnprintf(*buf ? *buf + *len : NULL, *buf ? *cap - *len : 0, fmt, ap);
		va_end(ap);
		if (w < 0)
			return false;
		if (*buf && *len + (size_t)w < *cap) {
			*len += (size_t)w;
			return true;
		}
		size_t nc = 2 * (*cap + (size_t)w) + 256;
		char *nb = realloc(*buf, nc);
		if (!nb)
			return false;
		*buf = nb;
		*cap = nc;
	}
}

/* A module name as a Python string literal: the names hold no quote or
 * backslash in any exporter's output, but a DOT name may. */
static const char *py_str(const char *s, char *buf, size_t size)
{
	size_t j = 0;
	for (; *s && j + 5 < size; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			j += (size_t)snprintf(buf + j, size - j, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			j += (size_t)snprintf(buf + j, size - j, "\\x%02x", c);
		else
			buf[j++] = (char)c;
	}
	buf[j] = '\0';
	return buf;
}

/* A header line when the program order is not the file's. */
static const char *order_note(const export_plan *plan)
{
	return plan->file_order ? ""
	                        : "# Program order: an edge of the file runs back, so the ops were "
	                          "taken\n# in the topological order nearest the file's.\n";
}

static bool write_pytorch(const sc_graph *g, const sc_modules *m, const export_plan *plan, int k,
                          const char *part, char **buf, size_t *len, size_t *cap)
{
	char q[4 * SC_MSG_NAME_MAX];
	bool ok = put(buf, len, cap,
	              "# stagecut export: %s, partition %s, %d stages at module depth %d\n"
	              "# PyTorch pipelining: each stage from the second begins at the module\n"
	              "# named here (torch.distributed.pipelining.SplitPoint.BEGINNING).\n"
	              "%s"
	              "from torch.distributed.pipelining import SplitPoint, pipeline\n\n"
	              "split_spec = {\n",
	              g->name, part, k, plan->depth, order_note(plan));
	for (int s = 1; s < k && ok; s++)
		ok = put(buf, len, cap, "    \"%s\": SplitPoint.BEGINNING,  # stage %d\n",
		         py_str(m->m[plan->begin[s]].name, q, sizeof q), s + 1);
	return ok && put(buf, len, cap,
	                 "}\n\n# pipe = pipeline(model, mb_args=(example_input,), "
	                 "split_spec=split_spec)\n");
}

/* DeepSpeed: the modules at the depth (and the innermost shallower ones)
 * in the order of their first op are the layers; parts[s] the index of
 * stage s's first layer. */
static bool write_deepspeed(const sc_graph *g, const sc_modules *m, const export_plan *plan,
                            const int *stage, int k, const char *part, char **buf, size_t *len,
                            size_t *cap)
{
	char q[4 * SC_MSG_NAME_MAX];
	char *seen = calloc((size_t)m->n, 1);
	int *parts = calloc((size_t)k + 1, sizeof *parts);
	bool ok = seen && parts;
	ok = ok && put(buf, len, cap,
	               "# stagecut export: %s, partition %s, %d stages at module depth %d\n"
	               "# DeepSpeed PipelineModule: give it these layers in this order and\n"
	               "# cut them at parts (the index of each stage's first layer, the\n"
	               "# last entry the number of layers), as PipelineModule.parts holds.\n"
	               "%s"
	               "layers = [\n",
	               g->name, part, k, plan->depth, order_note(plan));
	int nl = 0, cur = -1, loose = 0;
	for (int t = 0; t < g->n && ok; t++) {
		int v = plan->order[t];
		if (!is_forward(g, v))
			continue;
		int u = sc_modules_align_unit(m, g, v, plan->depth);
		if (u < 0) {
			loose++;
			continue;
		}
		if (seen[u])
			continue;
		seen[u] = 1;
		while (cur < stage[v])
			parts[++cur] = nl;
		ok = put(buf, len, cap, "    \"%s\",  # %d: stage %d\n",
		         py_str(m->m[u].name, q, sizeof q), nl, stage[v] + 1);
		nl++;
	}
	while (cur < k - 1)
		parts[++cur] = nl;
	parts[k] = nl;
	ok = ok && put(buf, len, cap, "]\nparts = [");
	for (int s = 0; s <= k && ok; s++)
		ok = put(buf, len, cap, "%s%d", s ? ", " : "", parts[s]);
	ok = ok && put(buf, len, cap, "]\n");
	if (ok && loose)
		ok = put(buf, len, cap,
		         "# %d op%s in no module run in the stage of the layer before them\n",
		         loose, loose == 1 ? "" : "s");
	free(seen);
	free(parts);
	return ok;
}

int ui_cmd_export(const ui_opts *o)
{
	export_format fmt;
	if (!o->format) {
		ui_error("export: give --format pytorch or --format deepspeed");
		return UI_EXIT_INPUT;
	}
	if (strcmp(o->format, "pytorch") == 0)
		fmt = EXPORT_PYTORCH;
	else if (strcmp(o->format, "deepspeed") == 0)
		fmt = EXPORT_DEEPSPEED;
	else {
		ui_error("export: --format '%s' is not pytorch or deepspeed", o->format);
		return UI_EXIT_INPUT;
	}
	int status = UI_EXIT_OK;
	sc_graph *g = ui_load(o->pos[0], o, &status);
	if (!g)
		return status;
	sc_error err;
	sc_error_clear(&err);
	sc_modules *m = NULL;
	int *stage = sc_part_new(g), k = 0;
	int *unit_stage = NULL, *unit_op = NULL, *first_op = NULL, *order = NULL;
	export_plan plan = {0};
	char *buf = NULL;
	size_t len = 0, cap = 0;
	if (!stage) {
		ui_error("out of memory");
		status = UI_EXIT_INPUT;
		goto out;
	}
	sc_status st = sc_part_load(o->pos[1], g, 0, &k, stage, NULL, &err);
	if (st != SC_OK) {
		ui_error("%s", err.msg);
		status = ui_exit_status(st);
		goto out;
	}
	m = sc_modules_new(g, &err);
	if (!m) {
		ui_error("%s", err.msg);
		status = UI_EXIT_INPUT;
		goto out;
	}
	if (m->n == 1) {
		ui_error("export: %s: no op name carries a module path (stagecut(1), MODULES), so "
		         "there are no split points to name",
		         g->source);
		status = UI_EXIT_INPUT;
		goto out;
	}
	unit_stage = malloc((size_t)m->n * sizeof *unit_stage);
	unit_op = malloc((size_t)m->n * sizeof *unit_op);
	first_op = malloc((size_t)m->n * sizeof *first_op);
	plan.begin = malloc((size_t)k * sizeof *plan.begin);
	order = malloc((size_t)g->n * sizeof *order);
	if (!unit_stage || !unit_op || !first_op || !plan.begin || !order) {
		ui_error("out of memory");
		status = UI_EXIT_INPUT;
		goto out;
	}
	/* the program order, and each module's first forward op in it */
	bool nomem = false;
	plan.file_order = sc_graph_program_order(g, order, &nomem);
	plan.order = order;
	if (nomem) {
		ui_error("out of memory");
		status = UI_EXIT_INPUT;
		goto out;
	}
	for (int i = 0; i < m->n; i++)
		first_op[i] = g->n;
	for (int t = g->n - 1; t >= 0; t--) {
		int v = order[t];
		for (int i = m->of_op[v]; is_forward(g, v) && i >= 0; i = m->m[i].parent)
			first_op[i] = v;
	}
	/* the depth asked, or the smallest that works (the coarsest layers) */
	char why[SC_MSG_NAME_MAX * 3 + 200] = "";
	int lo = o->align ? o->align : 1, hi = o->align ? o->align : m->max_depth;
	bool found = false;
	for (int d = lo; d <= hi && !found; d++) {
		char w[sizeof why];
		bool ok = units_whole(g, m, stage, d, unit_stage, unit_op, w, sizeof w) &&
		          split_points(g, m, stage, k, d, first_op, &plan, w, sizeof w);
		if (ok) {
			plan.depth = d;
			found = true;
		} else if (d == lo || o->align)
			snprintf(why, sizeof why, "%s", w); /* the coarsest depth's reason */
	}
	if (!found) {
		char depth[64];
		if (o->align)
			snprintf(depth, sizeof depth, "at depth %d", o->align);
		else
			snprintf(depth, sizeof depth, "at any depth from 1 to %d (at 1",
			         m->max_depth);
		ui_error(
		        "export: %s: the partition is not aligned with the modules %s: %s%s; solve "
		        "--align DEPTH gives one that is",
		        o->pos[1], depth, why, o->align ? "" : ")");
		status = UI_EXIT_INFEASIBLE;
		goto out;
	}
	bool ok = fmt == EXPORT_PYTORCH
	                  ? write_pytorch(g, m, &plan, k, o->pos[1], &buf, &len, &cap)
	                  : write_deepspeed(g, m, &plan, stage, k, o->pos[1], &buf, &len, &cap);
	if (!ok) {
		ui_error("out of memory");
		status = UI_EXIT_INPUT;
		goto out;
	}
	if (o->output) {
		if (sc_file_write_atomic(o->output, buf, len, &err) != SC_OK) {
			ui_error("%s", err.msg);
			status = UI_EXIT_INPUT;
		}
	} else
		fwrite(buf, 1, len, stdout);
out:
	free(buf);
	free(plan.begin);
	free(unit_stage);
	free(unit_op);
	free(first_op);
	free(order);
	free(stage);
	sc_modules_free(m);
	sc_graph_free(g);
	return status;
}
