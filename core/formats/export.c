/*
 * export.c - split points of a partition, and the writers that spell them
 * for PyTorch and DeepSpeed (export.h has the rules).
 *
 * The plan builds the layers (core/layers.h) at each depth from the one
 * asked (or 1) upwards and keeps the first that meets the rules: the
 * coarsest layers.  A refusal quotes the
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
#define WHY_MAX (SC_MSG_NAME_MAX * 6 + 400)

static bool is_forward(const sc_graph *g, int v)
{
	return !g->backward || !g->backward[v];
}

/* Why layer module i (not the root) of l runs whole into buf: "" for a
 * module at depth d or without children, else a clause. */
static const char *whole_reason(const sc_export_plan *p, const sc_layers *l, int i, char *buf,
                                size_t size)
{
	const sc_module *q = &p->m->m[i];
	buf[0] = '\0';
	if (q->depth < l->depth && q->first_child >= 0)
		snprintf(buf, size,
		         ", a module that runs whole: its children and own ops do not run one "
		         "after another (stagecut(1), MODULES)");
	return buf;
}

/* Rule 1 at depth d: false with why naming the layer split.  lay_stage and
 * lay_op are scratch of m->n entries. */
static bool layers_whole(const sc_export_plan *p, const sc_layers *l, int *lay_stage, int *lay_op,
                         char *why, size_t size)
{
	const sc_graph *g = p->g;
	const sc_modules *m = p->m;
	for (int i = 0; i < l->n; i++)
		lay_stage[i] = -1;
	for (int v = 0; v < g->n; v++) {
		int u = l->of_op[v];
		if (!is_forward(g, v) || u < 0)
			continue;
		if (lay_stage[u] < 0) {
			lay_stage[u] = p->stage[v];
			lay_op[u] = v;
		} else if (lay_stage[u] != p->stage[v]) {
			int mod = l->module[u];
			char whole[1200];
			if (mod == 0)
				sc_msg_format(why, size,
				              "the model runs as one layer (its parts do not run "
				              "one after "
				              "another: %s), and op '%s' is in stage %d, op '%s' "
				              "in stage %d",
				              l->why_whole, g->op_name[lay_op[u]], lay_stage[u] + 1,
				              g->op_name[v], p->stage[v] + 1);
			else
				sc_msg_format(why, size,
				              "module '%s' (depth %d) is split: op '%s' in stage "
				              "%d, op '%s' "
				              "in stage %d%s",
				              m->m[mod].name, m->m[mod].depth,
				              g->op_name[lay_op[u]], lay_stage[u] + 1,
				              g->op_name[v], p->stage[v] + 1,
				              whole_reason(p, l, mod, whole, sizeof whole));
			return false;
		}
	}
	return true;
}

/* Rule 2 along l's order, and the split point module of each stage into
 * p->begin, or false with why.  first_op[i] is module i's first forward op
 * in the program order (g->n when none). */
static bool split_points(sc_export_plan *p, const sc_layers *l, const int *first_op, char *why,
                         size_t size)
{
	const sc_graph *g = p->g;
	const sc_modules *m = p->m;
	const int *stage = p->stage;
	int cur = -1, prev_op = -1;
	p->used = 0;
	for (int s = 0; s < p->k; s++)
		p->begin[s] = -1;
	for (int t = 0; t < g->n; t++) {
		int v = l->order[t];
		if (!is_forward(g, v))
			continue;
		if (stage[v] < cur) {
			sc_msg_format(why, size,
			              "op '%s' of stage %d comes after op '%s' of stage %d in the "
			              "program order (%s), which the frameworks cut",
			              g->op_name[v], stage[v] + 1, g->op_name[prev_op], cur + 1,
			              l->file_order ? "the file's"
			                            : "a topological order nearest the file's");
			return false;
		}
		if (stage[v] > cur) {
			int lay = l->of_op[v];
			if (cur >= 0) {
				/* the outermost module that begins at v, v beginning its layer */
				int best = -1;
				for (int i = lay >= 0 && l->first[lay] == v ? l->module[lay] : -1;
				     i > 0; i = m->m[i].parent)
					if (first_op[i] == v)
						best = i;
				if (best < 0) {
					int in = lay >= 0 ? l->module[lay] : 0;
					sc_msg_format(
					        why, size,
					        "stage %d begins at op '%s', inside the layer of "
					        "module '%s' (which begins at op '%s')",
					        stage[v] + 1, g->op_name[v],
					        in ? m->m[in].name : "(the model)",
					        g->op_name[lay >= 0 ? l->first[lay] : v]);
					return false;
				}
				p->begin[stage[v]] = best;
			}
			if (p->used++ == 0)
				p->first_stage = stage[v];
			cur = stage[v];
		}
		prev_op = v;
	}
	return true;
}

/* Tries the depths from lo to hi; true with p->depth and p->layers set at
 * the first that works, else false with why holding the reason at lo (or
 * the error of an allocation that failed: *nomem set). */
static bool find_depth(sc_export_plan *p, int lo, int hi, const int *first_op, int *lay_stage,
                       int *lay_op, char *why, size_t size, bool *nomem, sc_error *err)
{
	for (int d = lo; d <= hi; d++) {
		sc_layers *l = sc_layers_new(p->g, p->m, d, err);
		if (!l) {
			*nomem = true;
			return false;
		}
		char w[WHY_MAX];
		if (layers_whole(p, l, lay_stage, lay_op, w, sizeof w) &&
		    split_points(p, l, first_op, w, sizeof w)) {
			p->depth = d;
			p->layers = l;
			p->order = l->order;
			p->file_order = l->file_order;
			return true;
		}
		sc_layers_free(l);
		if (d == lo)
			snprintf(why, size, "%s", w); /* the coarsest depth's reason */
	}
	return false;
}

/* plan->folded and nfolded; false when out of memory. */
static bool mark_folded(sc_export_plan *p)
{
	const sc_layers *l = p->layers;
	p->folded = calloc((size_t)l->n + 1, sizeof *p->folded);
	if (!p->folded)
		return false;
	for (int v = 0; v < p->g->n; v++) {
		int lay = l->of_op[v];
		if (lay >= 0 && p->g->made_weight[v] && p->m->of_op[v] == l->module[lay] &&
		    !p->folded[lay]) {
			p->folded[lay] = true;
			p->nfolded++;
		}
	}
	return true;
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
	int *lay_stage = malloc((size_t)m->n * sizeof *lay_stage);
	int *lay_op = malloc((size_t)m->n * sizeof *lay_op);
	int *first_op = malloc((size_t)m->n * sizeof *first_op);
	int *order = malloc(((size_t)g->n + 1) * sizeof *order);
	plan->begin = malloc((size_t)k * sizeof *plan->begin);
	bool nomem = !lay_stage || !lay_op || !first_op || !order || !plan->begin;
	if (!nomem)
		sc_graph_program_order(g, order, &nomem);
	sc_status st = SC_OK;
	if (nomem) {
		st = sc_error_nomem(err, "the split points");
		goto out;
	}
	/* each module's first forward op in the program order */
	for (int i = 0; i < m->n; i++)
		first_op[i] = g->n;
	for (int t = g->n - 1; t >= 0; t--) {
		int v = order[t];
		for (int i = m->of_op[v]; is_forward(g, v) && i >= 0; i = m->m[i].parent)
			first_op[i] = v;
	}
	char why[WHY_MAX] = "";
	int lo = align ? align : 1, hi = align ? align : m->max_depth;
	if (!find_depth(plan, lo, hi, first_op, lay_stage, lay_op, why, sizeof why, &nomem, err)) {
		if (nomem) {
			st = SC_ERR_NOMEM;
			goto out;
		}
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
	} else if (g->made_weight && !mark_folded(plan))
		st = sc_error_nomem(err, "the split points");
out:
	free(lay_stage);
	free(lay_op);
	free(first_op);
	free(order);
	if (st != SC_OK)
		sc_export_plan_fini(plan);
	return st;
}

void sc_export_plan_fini(sc_export_plan *plan)
{
	free(plan->begin);
	free(plan->folded);
	plan->folded = NULL;
	plan->nfolded = 0;
	sc_layers_free(plan->layers);
	plan->begin = NULL;
	plan->layers = NULL;
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

/* The header's lines on the partition's stages that hold no op. */
static bool put_empty(text_buf *b, const sc_export_plan *p)
{
	if (p->used == p->k)
		return true;
	bool ok = put(b, "# Stage%s", p->k - p->used == 1 ? "" : "s");
	int said = 0;
	for (int s = 0; s < p->k && ok; s++) {
		if (p->begin[s] >= 0 || s == p->first_stage)
			continue;
		ok = put(b, "%s %d", said++ ? "," : "", s + 1);
	}
	return ok && put(b,
	                 " of the partition hold%s no op: the frameworks take no empty\n"
	                 "# stage, so %d stage%s.\n",
	                 p->k - p->used == 1 ? "s" : "", p->used, p->used == 1 ? " runs" : "s run");
}

/* The devices the used stages run on, when the partition names them: a
 * Python list in stage order. */
static bool put_devices(text_buf *b, const sc_export_plan *p)
{
	if (!p->device)
		return true;
	char q[4 * SC_MSG_NAME_MAX];
	bool ok = put(b, "\n# The kind of device each stage runs on, as the partition places "
	                 "it\n# (in stage order): map each to a torch.device of yours (\"cpu\" "
	                 "is the CPU).\ndevices = [");
	int said = 0;
	for (int s = 0; s < p->k && ok; s++)
		if (p->begin[s] >= 0 || s == p->first_stage)
			ok = put(b, "%s\"%s\"", said++ ? ", " : "",
			         py_str(p->device[s], q, sizeof q));
	return ok && put(b, "]\n");
}

/* The name a module has in the model: its first call's (sc_modules_called). */
static const char *torch_name(const sc_export_plan *p, int i, char *buf, size_t size)
{
	return py_str(p->m->m[sc_modules_called(p->m, i)].name, buf, size);
}

/* PyTorch: split_spec names the module each stage from the second begins
 * at. */
static sc_status write_pytorch(const sc_export_plan *p, char **text, size_t *len, sc_error *err)
{
	char q[4 * SC_MSG_NAME_MAX];
	text_buf b = {0};
	bool ok = put(&b,
	              "# stagecut export: %s, partition %s, %d stage%s at module depth %d\n"
	              "# PyTorch pipelining: each stage from the second begins at the module\n"
	              "# named here (torch.distributed.pipelining.SplitPoint.BEGINNING).\n"
	              "%s",
	              p->g->name, p->partition, p->used, p->used == 1 ? "" : "s", p->depth,
	              order_note(p));
	ok = ok && put_empty(&b, p) &&
	     put(&b, "from torch.distributed.pipelining import SplitPoint, pipeline\n\n"
	             "split_spec = {\n");
	for (int s = 1; s < p->k && ok; s++)
		if (p->begin[s] >= 0)
			ok = put(&b, "    \"%s\": SplitPoint.BEGINNING,  # stage %d\n",
			         torch_name(p, p->begin[s], q, sizeof q), s + 1);
	ok = ok && put(&b, "}\n\n# pipe = pipeline(model, mb_args=(example_input,), "
	                   "split_spec=split_spec)\n");
	ok = ok && put_devices(&b, p);
	return finish(&b, ok, text, len, err);
}

/* DeepSpeed: the pieces of the layers in program order, each a module's
 * name (a module called twice is listed at each call) or, for the own ops
 * of an opened module, {"own ops of": MODULE, "ops": [OPS]}; parts[s] the
 * index of the s-th used stage's first entry. */
static sc_status write_deepspeed(const sc_export_plan *p, char **text, size_t *len, sc_error *err)
{
	const sc_graph *g = p->g;
	const sc_modules *m = p->m;
	const sc_layers *l = p->layers;
	char q[4 * SC_MSG_NAME_MAX];
	text_buf b = {0};
	int *parts = calloc((size_t)p->k + 1, sizeof *parts);
	bool ok = parts != NULL;
	ok = ok &&
	     put(&b,
	         "# stagecut export: %s, partition %s, %d stage%s at module depth %d\n"
	         "# DeepSpeed PipelineModule: give it these layers in this order and\n"
	         "# cut them at parts (the index of each stage's first layer, the\n"
	         "# last entry the number of layers), as PipelineModule.parts holds.\n"
	         "# A string names a module (model.get_submodule(NAME)); an entry\n"
	         "# {\"own ops of\": MODULE, \"ops\": OPS} stands for ops that MODULE's\n"
	         "# forward (\"\": the model's) runs itself, outside every listed\n"
	         "# module, named as in the file: write them as one layer (a function).\n"
	         "%s",
	         g->name, p->partition, p->used, p->used == 1 ? "" : "s", p->depth, order_note(p));
	if (ok && p->nfolded)
		ok = put(&b,
		         "# Folded: torch.onnx folded a module (a BatchNorm) into each layer\n"
		         "# marked 'folded' (its convolution reads a weight named onnx::Conv_N),\n"
		         "# so the file does not name it: add it after that layer.\n");
	ok = ok && put_empty(&b, p) && put(&b, "layers = [\n");
	/* own: the open entry's module, in stage own_stage; piece: the last
	 * module entry's */
	int ne = 0, used = 0, cur = -1, own = -1, own_stage = 0, last = -1;
	for (int t = 0; t < g->n && ok; t++) {
		int v = p->order[t], lay = l->of_op[v];
		if (!is_forward(g, v) || lay < 0)
			continue;
		int piece = sc_layers_piece(l, m, v);
		if (own >= 0 && (piece >= 0 || m->of_op[v] != own)) {
			ok = put(&b, "]},  # %d: stage %d\n", ne++, own_stage + 1);
			own = -1;
		}
		if (p->stage[v] > cur) {
			parts[used++] = ne;
			cur = p->stage[v];
		}
		if (!ok || (piece >= 0 && piece == last))
			continue;
		if (piece >= 0) {
			last = piece;
			ok = put(&b, "    \"%s\",  # %d: stage %d%s\n",
			         torch_name(p, piece, q, sizeof q), ne++, p->stage[v] + 1,
			         p->folded && piece == l->module[lay] && p->folded[lay] ? ", folded"
			                                                                : "");
		} else {
			last = -1;
			if (own < 0)
				ok = put(&b, "    {\"own ops of\": \"%s\", \"ops\": [",
				         torch_name(p, m->of_op[v], q, sizeof q));
			else
				ok = put(&b, ", ");
			ok = ok && put(&b, "\"%s\"", py_str(g->op_name[v], q, sizeof q));
			own = m->of_op[v];
			own_stage = p->stage[v];
		}
	}
	if (ok && own >= 0)
		ok = put(&b, "]},  # %d: stage %d\n", ne++, own_stage + 1);
	parts[used] = ne;
	ok = ok && put(&b, "]\nparts = [");
	for (int s = 0; s <= used && ok; s++)
		ok = put(&b, "%s%d", s ? ", " : "", parts[s]);
	ok = ok && put(&b, "]\n") && put_devices(&b, p);
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
