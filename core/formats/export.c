/*
 * export.c - split points of a partition, and the writers that spell them
 * for PyTorch and DeepSpeed (export.h has the rules).
 *
 * The plan tries the depths from the one asked (or 1) upwards and keeps the
 * first that meets the rules: the coarsest layers.  A refusal quotes the
 * reason found at the coarsest depth tried, since that is the depth a user
 * would align to first.  Each writer builds its whole text in a growing
 * buffer (put), so a caller can write it atomically or not at all; module
 * names go out as Python string literals (py_str).
 */
#include "core/formats/export.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The registry, in the order --help lists it. */
static const sc_export_writer *const writers[] = {&sc_export_pytorch, &sc_export_deepspeed};
#define NWRITERS ((int)(sizeof writers / sizeof writers[0]))

/* The longest reason a refusal quotes: three bounded names and the text. */
#define WHY_MAX (SC_MSG_NAME_MAX * 3 + 200)

static bool is_forward(const sc_graph *g, int v)
{
	return !g->backward || !g->backward[v];
}

/* Rule 1 at depth d: false with why naming the module split.  unit_stage
 * and unit_op are scratch of m->n entries. */
static bool units_whole(const sc_export_plan *p, int d, int *unit_stage, int *unit_op, char *why,
                        size_t size)
{
	const sc_graph *g = p->g;
	const sc_modules *m = p->m;
	for (int i = 0; i < m->n; i++)
		unit_stage[i] = -1;
	for (int v = 0; v < g->n; v++) {
		if (!is_forward(g, v))
			continue;
		int u = sc_modules_align_unit(m, g, v, d);
		if (u < 0)
			continue;
		if (unit_stage[u] < 0) {
			unit_stage[u] = p->stage[v];
			unit_op[u] = v;
		} else if (unit_stage[u] != p->stage[v]) {
			sc_msg_format(
			        why, size,
			        "module '%s' (depth %d) is split: op '%s' in stage %d, op '%s' in "
			        "stage %d",
			        m->m[u].name, m->m[u].depth, g->op_name[unit_op[u]],
			        unit_stage[u] + 1, g->op_name[v], p->stage[v] + 1);
			return false;
		}
	}
	return true;
}

/* Rules 2 and 3 at depth d: the split point module of each stage into
 * p->begin, or false with why.  first_op[i] is module i's first forward
 * op in the program order (g->n when none). */
static bool split_points(sc_export_plan *p, int d, const int *first_op, char *why, size_t size)
{
	const sc_graph *g = p->g;
	const sc_modules *m = p->m;
	const int *stage = p->stage;
	int cur = -1, prev_op = -1;
	for (int s = 0; s < p->k; s++)
		p->begin[s] = -1;
	for (int t = 0; t < g->n; t++) {
		int v = p->order[t];
		if (!is_forward(g, v))
			continue;
		if (stage[v] < cur) {
			sc_msg_format(why, size,
			              "op '%s' of stage %d comes after op '%s' of stage %d in the "
			              "program "
			              "order (%s), which the frameworks cut",
			              g->op_name[v], stage[v] + 1, g->op_name[prev_op], cur + 1,
			              p->file_order ? "the file's"
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
				p->begin[stage[v]] = best;
			}
			for (int s = cur + 1; s < stage[v]; s++) {
				sc_msg_format(why, size, "stage %d holds no forward op", s + 1);
				return false;
			}
			cur = stage[v];
		}
		prev_op = v;
	}
	if (cur < p->k - 1) {
		sc_msg_format(why, size, "stage %d holds no forward op", cur + 2);
		return false;
	}
	return true;
}

/* Tries the depths from lo to hi; true with p->depth set at the first that
 * works, else false with why holding the reason at lo. */
static bool find_depth(sc_export_plan *p, int lo, int hi, const int *first_op, int *unit_stage,
                       int *unit_op, char *why, size_t size)
{
	for (int d = lo; d <= hi; d++) {
		char w[WHY_MAX];
		if (units_whole(p, d, unit_stage, unit_op, w, sizeof w) &&
		    split_points(p, d, first_op, w, sizeof w)) {
			p->depth = d;
			return true;
		}
		if (d == lo)
			snprintf(why, size, "%s", w); /* the coarsest depth's reason */
	}
	return false;
}

sc_status sc_export_plan_init(sc_export_plan *plan, const sc_graph *g, const sc_modules *m,
                              const int *stage, int k, int align, const char *partition,
                              sc_error *err)
{
	*plan = (sc_export_plan){.g = g, .m = m, .stage = stage, .k = k, .partition = partition};
	if (m->n == 1)
		return sc_error_set(err, SC_ERR_INPUT,
		                    "%s: no op name carries a module path (stagecut(1), MODULES), "
		                    "so there are no split points to name",
		                    g->source);
	int *unit_stage = malloc((size_t)m->n * sizeof *unit_stage);
	int *unit_op = malloc((size_t)m->n * sizeof *unit_op);
	int *first_op = malloc((size_t)m->n * sizeof *first_op);
	plan->begin = malloc((size_t)k * sizeof *plan->begin);
	plan->order = malloc((size_t)g->n * sizeof *plan->order);
	bool nomem = !unit_stage || !unit_op || !first_op || !plan->begin || !plan->order;
	if (!nomem)
		plan->file_order = sc_graph_program_order(g, plan->order, &nomem);
	sc_status st = SC_OK;
	if (nomem) {
		st = sc_error_nomem(err, "the split points");
		goto out;
	}
	/* each module's first forward op in the program order */
	for (int i = 0; i < m->n; i++)
		first_op[i] = g->n;
	for (int t = g->n - 1; t >= 0; t--) {
		int v = plan->order[t];
		for (int i = m->of_op[v]; is_forward(g, v) && i >= 0; i = m->m[i].parent)
			first_op[i] = v;
	}
	char why[WHY_MAX] = "";
	int lo = align ? align : 1, hi = align ? align : m->max_depth;
	if (!find_depth(plan, lo, hi, first_op, unit_stage, unit_op, why, sizeof why)) {
		char depth[64];
		if (align)
			snprintf(depth, sizeof depth, "at depth %d", align);
		else
			snprintf(depth, sizeof depth, "at any depth from 1 to %d (at 1",
			         m->max_depth);
		st = sc_error_set(err, SC_ERR_INVALID,
		                  "%s: the partition is not aligned with the modules %s: %s%s; "
		                  "solve --align DEPTH gives one that is",
		                  partition, depth, why, align ? "" : ")");
	}
out:
	free(unit_stage);
	free(unit_op);
	free(first_op);
	if (st != SC_OK)
		sc_export_plan_fini(plan);
	return st;
}

void sc_export_plan_fini(sc_export_plan *plan)
{
	free(plan->begin);
	free(plan->order);
	plan->begin = NULL;
	plan->order = NULL;
}

/* ---- writers ------------------------------------------------------------ */

/* A growing text: the writers' output. */
typedef struct text_buf {
	char *buf;
	size_t len, cap;
} text_buf;

/* Appends fmt formatted (as printf does: names unbounded) to b; false when
 * out of memory. */
static bool put(text_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool put(text_buf *b, const char *fmt, ...)
{
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int w = vsnprintf(b->buf ? b->buf + b->len : NULL, b->buf ? b->cap - b->len : 0,
		                  fmt, ap);
		va_end(ap);
		if (w < 0)
			return false;
		if (b->buf && b->len + (size_t)w < b->cap) {
			b->len += (size_t)w;
			return true;
		}
		size_t nc = 2 * (b->cap + (size_t)w) + 256;
		char *nb = realloc(b->buf, nc);
		if (!nb)
			return false;
		b->buf = nb;
		b->cap = nc;
	}
}

/* Hands b's text to the caller on success, frees it otherwise. */
static sc_status finish(text_buf *b, bool ok, char **text, size_t *len, sc_error *err)
{
	if (!ok || !b->buf) {
		free(b->buf);
		*text = NULL;
		*len = 0;
		return sc_error_nomem(err, "the exported text");
	}
	*text = b->buf;
	*len = b->len;
	return SC_OK;
}

/* A module name as a Python string literal's inside, into buf (size bytes,
 * cut when longer): the names hold no quote or backslash in any
 * exporter's output, but a DOT name may. */
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
static const char *order_note(const sc_export_plan *p)
{
	return p->file_order ? ""
	                     : "# Program order: an edge of the file runs back, so the ops were "
	                       "taken\n# in the topological order nearest the file's.\n";
}

/* PyTorch: split_spec names the module each stage from the second begins
 * at. */
static sc_status write_pytorch(const sc_export_plan *p, char **text, size_t *len, sc_error *err)
{
	char q[4 * SC_MSG_NAME_MAX];
	text_buf b = {0};
	bool ok = put(&b,
	              "# stagecut export: %s, partition %s, %d stages at module depth %d\n"
	              "# PyTorch pipelining: each stage from the second begins at the module\n"
	              "# named here (torch.distributed.pipelining.SplitPoint.BEGINNING).\n"
	              "%s"
	              "from torch.distributed.pipelining import SplitPoint, pipeline\n\n"
	              "split_spec = {\n",
	              p->g->name, p->partition, p->k, p->depth, order_note(p));
	for (int s = 1; s < p->k && ok; s++)
		ok = put(&b, "    \"%s\": SplitPoint.BEGINNING,  # stage %d\n",
		         py_str(p->m->m[p->begin[s]].name, q, sizeof q), s + 1);
	ok = ok && put(&b, "}\n\n# pipe = pipeline(model, mb_args=(example_input,), "
	                   "split_spec=split_spec)\n");
	return finish(&b, ok, text, len, err);
}

/* DeepSpeed: the modules at the depth (and the innermost shallower ones)
 * in the order of their first op are the layers; parts[s] the index of
 * stage s's first layer. */
static sc_status write_deepspeed(const sc_export_plan *p, char **text, size_t *len, sc_error *err)
{
	const sc_graph *g = p->g;
	const sc_modules *m = p->m;
	char q[4 * SC_MSG_NAME_MAX];
	text_buf b = {0};
	char *seen = calloc((size_t)m->n, 1);
	int *parts = calloc((size_t)p->k + 1, sizeof *parts);
	bool ok = seen && parts;
	ok = ok && put(&b,
	               "# stagecut export: %s, partition %s, %d stages at module depth %d\n"
	               "# DeepSpeed PipelineModule: give it these layers in this order and\n"
	               "# cut them at parts (the index of each stage's first layer, the\n"
	               "# last entry the number of layers), as PipelineModule.parts holds.\n"
	               "%s"
	               "layers = [\n",
	               g->name, p->partition, p->k, p->depth, order_note(p));
	int nl = 0, cur = -1, loose = 0;
	for (int t = 0; t < g->n && ok; t++) {
		int v = p->order[t];
		if (!is_forward(g, v))
			continue;
		int u = sc_modules_align_unit(m, g, v, p->depth);
		if (u < 0) {
			loose++;
			continue;
		}
		if (seen[u])
			continue;
		seen[u] = 1;
		while (cur < p->stage[v])
			parts[++cur] = nl;
		ok = put(&b, "    \"%s\",  # %d: stage %d\n", py_str(m->m[u].name, q, sizeof q), nl,
		         p->stage[v] + 1);
		nl++;
	}
	if (ok) {
		while (cur < p->k - 1)
			parts[++cur] = nl;
		parts[p->k] = nl;
	}
	ok = ok && put(&b, "]\nparts = [");
	for (int s = 0; s <= p->k && ok; s++)
		ok = put(&b, "%s%d", s ? ", " : "", parts[s]);
	ok = ok && put(&b, "]\n");
	if (ok && loose)
		ok = put(&b, "# %d op%s in no module run in the stage of the layer before them\n",
		         loose, loose == 1 ? "" : "s");
	free(seen);
	free(parts);
	return finish(&b, ok, text, len, err);
}

const sc_export_writer sc_export_pytorch = {
        .name = "pytorch",
        .description = "the split_spec of torch.distributed.pipelining (each stage from the "
                       "second begins at a module, SplitPoint.BEGINNING)",
        .extension = ".py",
        .write = write_pytorch,
};

const sc_export_writer sc_export_deepspeed = {
        .name = "deepspeed",
        .description = "the modules in order as PipelineModule layers and the parts that cut "
                       "them",
        .extension = ".py",
        .write = write_deepspeed,
};

const sc_export_writer *const *sc_export_writers(int *n)
{
	*n = NWRITERS;
	return writers;
}

const sc_export_writer *sc_export_writer_find(const char *name)
{
	for (int i = 0; i < NWRITERS; i++)
		if (strcmp(writers[i]->name, name) == 0)
			return writers[i];
	return NULL;
}

const char *sc_export_writer_names(char *buf, size_t size, const char *prefix)
{
	size_t at = 0;
	if (size)
		buf[0] = '\0';
	for (int i = 0; i < NWRITERS && at < size; i++) {
		const char *sep = i == 0 ? "" : i == NWRITERS - 1 ? " or " : ", ";
		int w = snprintf(buf + at, size - at, "%s%s%s", sep, prefix, writers[i]->name);
		if (w < 0)
			break;
		at += (size_t)w;
	}
	return buf;
}
