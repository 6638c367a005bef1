/*
 * modules.c - the module tree of a graph's op names.  See modules.h.
 *
 * One pass over the forward ops in index order reads each name into a
 * chain of modules, found or made in an open-addressing hash table keyed by
 * (parent, label): a module is made when the first op in it or below it is
 * read, so ancestors always precede their descendants in the order of
 * making.  Keying by the parent rather than by the qualified name keeps
 * the tree a tree even for names no exporter writes ("/a.b/x" beside
 * "/a/b/y" make two modules called "a.b", never an empty "a").  Backward
 * ops then join the module of their forward op.  Last, the siblings are
 * sorted by their first op, the modules renumbered in preorder with an
 * explicit stack (a chain of 10^5 nested modules must not overflow the C
 * stack), and the ops laid out by a counting sort.
 */
#define _POSIX_C_SOURCE 200809L
#include "core/modules.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A module while the tree is being read: ids in the order of making. */
typedef struct raw_module {
	char *name, *label;
	int parent, depth;
} raw_module;

typedef struct reader {
	raw_module *mod;
	int n, cap;
	int *slot; /* hash table of module ids, -1 when empty */
	int nslots;
	char *fqn; /* scratch: the qualified name being built */
} reader;

static uint64_t hash_key(int parent, const char *label, size_t len)
{
	uint64_t h = 1469598103934665603ULL ^ (uint64_t)(unsigned)parent * 0x9E3779B97F4A7C15ULL;
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)label[i];
		h *= 1099511628211ULL;
	}
	return h ^ (h >> 29);
}

static bool grow_table(reader *r)
{
	int ns = r->nslots ? 2 * r->nslots : 64;
	int *slot = malloc((size_t)ns * sizeof *slot);
	if (!slot)
		return false;
	for (int i = 0; i < ns; i++)
		slot[i] = -1;
	for (int id = 1; id < r->n; id++) {
		const raw_module *q = &r->mod[id];
		size_t h = (size_t)hash_key(q->parent, q->label, strlen(q->label));
		size_t mask = (size_t)ns - 1, i = h & mask;
		while (slot[i] >= 0)
			i = (i + 1) & mask;
		slot[i] = id;
	}
	free(r->slot);
	r->slot = slot;
	r->nslots = ns;
	return true;
}

static char *dup_bytes(const char *s, size_t len)
{
	char *d = malloc(len + 1);
	if (d) {
		memcpy(d, s, len);
		d[len] = '\0';
	}
	return d;
}

/* The child of parent spelt label[0 .. len) whose qualified name is
 * r->fqn[0 .. flen): found, or made.  Returns its id, or -1 when out of
 * memory. */
static int child(reader *r, int parent, const char *label, size_t len, size_t flen)
{
	if (2 * (r->n + 1) > r->nslots && !grow_table(r))
		return -1;
	size_t mask = (size_t)r->nslots - 1;
	size_t i = (size_t)hash_key(parent, label, len) & mask;
	for (; r->slot[i] >= 0; i = (i + 1) & mask) {
		const raw_module *q = &r->mod[r->slot[i]];
		if (q->parent == parent && strlen(q->label) == len &&
		    memcmp(q->label, label, len) == 0)
			return r->slot[i];
	}
	if (r->n == r->cap) {
		int cap = 2 * r->cap;
		raw_module *mod = realloc(r->mod, (size_t)cap * sizeof *mod);
		if (!mod)
			return -1;
		r->mod = mod;
		r->cap = cap;
	}
	raw_module *q = &r->mod[r->n];
	q->label = dup_bytes(label, len);
	q->name = dup_bytes(r->fqn, flen);
	if (!q->label || !q->name) {
		free(q->label);
		free(q->name);
		return -1;
	}
	q->parent = parent;
	q->depth = r->mod[parent].depth + 1;
	r->slot[i] = r->n;
	return r->n++;
}

/* Reads a torch.onnx name ("/a/a.0/b/Op"): the innermost module, or -1
 * when out of memory. */
static int read_slashes(reader *r, const char *name)
{
	const char *last = strrchr(name, '/');
	int cur = 0;
	size_t flen = 0;
	const char *prev = NULL;
	size_t plen = 0;
	for (const char *s = name + 1; s < last;) {
		size_t len = strcspn(s, "/");
		if (len > 0) {
			const char *add = s;
			size_t alen = len;
			if (prev && len > plen + 1 && memcmp(s, prev, plen) == 0 &&
			    s[plen] == '.') {
				add = s + plen; /* "mlp.1" under "mlp": ".1" */
				alen = len - plen;
			} else if (flen > 0)
				r->fqn[flen++] = '.';
			memcpy(r->fqn + flen, add, alen);
			flen += alen;
			cur = child(r, cur, s, len, flen);
			if (cur < 0)
				return -1;
			prev = s;
			plen = len;
		}
		s += len + 1;
	}
	return cur;
}

/* Reads a dotted name ("bert.encoder.layer.3.attention.self.query.weight"),
 * known to have no empty part: the innermost module, or -1. */
static int read_dots(reader *r, const char *name)
{
	const char *last = strrchr(name, '.');
	int cur = 0;
	for (const char *s = name; s < last;) {
		size_t len = strcspn(s, ".");
		size_t flen = (size_t)(s + len - name);
		memcpy(r->fqn, name, flen);
		cur = child(r, cur, s, len, flen);
		if (cur < 0)
			return -1;
		s += len + 1;
	}
	return cur;
}

/* Whether name is dotted with no empty part and no slash. */
static bool is_dotted(const char *name)
{
	if (!strchr(name, '.') || strchr(name, '/'))
		return false;
	size_t len = strlen(name);
	return name[0] != '.' && name[len - 1] != '.' && !strstr(name, "..");
}

/* The forward op a backward op's name names ("X_Grad/...", "X.grad",
 * "X_grad"), or -1.  buf holds strlen(name) + 1 bytes. */
static int named_forward(const sc_graph *g, const char *name, char *buf)
{
	size_t len = strlen(name), cut = 0;
	const char *grad = strstr(name, "_Grad/");
	if (grad)
		cut = (size_t)(grad - name);
	else if (len > 5 &&
	         (strcmp(name + len - 5, ".grad") == 0 || strcmp(name + len - 5, "_grad") == 0))
		cut = len - 5;
	if (cut == 0)
		return -1;
	memcpy(buf, name, cut);
	buf[cut] = '\0';
	int u = sc_graph_find(g, buf);
	return u >= 0 && !g->backward[u] ? u : -1;
}

/* Reads every op's innermost module into of (raw ids).  Returns false
 * when out of memory. */
static bool read_names(reader *r, const sc_graph *g, int *of)
{
	for (int v = 0; v < g->n; v++) {
		if (g->backward && g->backward[v])
			continue;
		const char *name = g->op_name[v];
		if (name[0] == '/')
			of[v] = read_slashes(r, name);
		else if (is_dotted(name))
			of[v] = read_dots(r, name);
		else
			of[v] = 0;
		if (of[v] < 0)
			return false;
	}
	if (!g->backward)
		return true;
	int *fw = malloc(((size_t)g->ngroups + 1) * sizeof *fw); /* group -> first forward op */
	if (!fw)
		return false;
	for (int i = 0; i < g->ngroups; i++)
		fw[i] = -1;
	for (int v = 0; v < g->n; v++)
		if (!g->backward[v] && g->group[v] >= 0 && fw[g->group[v]] < 0)
			fw[g->group[v]] = v;
	for (int v = 0; v < g->n; v++) {
		if (!g->backward[v])
			continue;
		int u = g->group[v] >= 0 ? fw[g->group[v]] : -1;
		if (u < 0)
			u = named_forward(g, g->op_name[v], r->fqn);
		of[v] = u >= 0 ? of[u] : 0;
	}
	free(fw);
	return true;
}

typedef struct sibling {
	int parent, first_op, id;
} sibling;

static int cmp_sibling(const void *a, const void *b)
{
	const sibling *x = a, *y = b;
	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	return (x->first_op > y->first_op) - (x->first_op < y->first_op);
}

/* Numbers r's modules in preorder into out (of the raw of[]); returns false
 * when out of memory. */
static bool build_tree(reader *r, const sc_graph *g, const int *raw_of, sc_modules *out)
{
	int n = r->n;
	int *first_op = malloc((size_t)n * sizeof *first_op);
	int *own = calloc((size_t)n, sizeof *own);
	int *sub = calloc((size_t)n, sizeof *sub);
	int *new_id = malloc((size_t)n * sizeof *new_id);
	int *stack = malloc((size_t)n * sizeof *stack);
	int *kid = malloc((size_t)n * sizeof *kid);   /* raw first child */
	int *next = malloc((size_t)n * sizeof *next); /* raw next sibling */
	sibling *sib = malloc((size_t)n * sizeof *sib);
	bool ok = first_op && own && sub && new_id && stack && kid && next && sib;
	if (ok) {
		for (int i = 0; i < n; i++)
			first_op[i] = g->n, kid[i] = next[i] = -1;
		for (int v = g->n - 1; v >= 0; v--) {
			own[raw_of[v]]++;
			first_op[raw_of[v]] = v;
		}
		/* children are made after their parents: fold upwards */
		for (int i = n - 1; i > 0; i--) {
			sub[i] += own[i];
			sub[r->mod[i].parent] += sub[i];
			if (first_op[i] < first_op[r->mod[i].parent])
				first_op[r->mod[i].parent] = first_op[i];
		}
		sub[0] += own[0];
		for (int i = 1; i < n; i++)
			sib[i - 1] = (sibling){r->mod[i].parent, first_op[i], i};
		qsort(sib, (size_t)(n - 1), sizeof *sib, cmp_sibling);
		for (int j = n - 2; j >= 0; j--) {
			next[sib[j].id] = kid[sib[j].parent];
			kid[sib[j].parent] = sib[j].id;
		}
		/* preorder: a module's number, then its children's subtrees */
		int top = 0, count = 0;
		stack[top++] = 0;
		while (top > 0) {
			int i = stack[--top];
			new_id[i] = count++;
			/* push the children last first, so the first pops first */
			int nk = 0;
			for (int c = kid[i]; c >= 0; c = next[c])
				nk++;
			int at = top + nk;
			for (int c = kid[i]; c >= 0; c = next[c])
				stack[--at] = c;
			top += nk;
		}
		int max_depth = 0, cursor = 0;
		/* new_id is a permutation: walk the modules in their new order */
		for (int i = 0; i < n; i++)
			stack[new_id[i]] = i;
		for (int j = 0; j < n; j++) {
			int i = stack[j];
			sc_module *q = &out->m[j];
			q->name = r->mod[i].name;
			q->label = r->mod[i].label;
			r->mod[i].name = r->mod[i].label = NULL;
			q->parent = i == 0 ? -1 : new_id[r->mod[i].parent];
			q->depth = r->mod[i].depth;
			q->first_child = kid[i] >= 0 ? new_id[kid[i]] : -1;
			q->next_sibling = next[i] >= 0 ? new_id[next[i]] : -1;
			q->first = cursor;
			q->end = cursor + sub[i];
			cursor += own[i];
			if (q->depth > max_depth)
				max_depth = q->depth;
		}
		out->n = n;
		out->max_depth = max_depth;
		for (int j = 0; j < n; j++)
			own[j] = out->m[j].first;
		for (int v = 0; v < g->n; v++) {
			out->of_op[v] = new_id[raw_of[v]];
			out->ops_sorted[own[out->of_op[v]]++] = v;
		}
	}
	free(first_op);
	free(own);
	free(sub);
	free(new_id);
	free(stack);
	free(kid);
	free(next);
	free(sib);
	return ok;
}

/* A module keyed by its parent and label, for find_calls. */
typedef struct keyed {
	int parent;
	const char *label;
	int id;
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
	const keyed *x = a, *y = b;
	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	return strcmp(x->label, y->label);
}

/* The module of k (n, sorted) under parent labelled label[0 .. len), or
 * -1. */
static int lookup(const keyed *k, int n, int parent, const char *label, size_t len)
{
	int lo = 0, hi = n;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2, c = k[mid].parent - parent;
		if (c == 0) {
			c = strncmp(k[mid].label, label, len);
			if (c == 0 && k[mid].label[len])
				c = 1;
		}
		if (c == 0)
			return k[mid].id;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* out->called (modules.h, sc_modules_called), the parents first (preorder);
 * false when out of memory. */
static bool find_calls(sc_modules *out)
{
	int n = out->n;
	keyed *k = malloc((size_t)n * sizeof *k);
	if (!k)
		return false;
	for (int i = 1; i < n; i++)
		k[i - 1] = (keyed){out->m[i].parent, out->m[i].label, i};
	qsort(k, (size_t)(n - 1), sizeof *k, cmp_keyed);
	out->called[0] = 0;
	for (int i = 1; i < n; i++) {
		const char *label = out->m[i].label;
		int p = out->m[i].parent, cp = out->called[p], c = i;
		size_t len = strlen(label), base = len;
		if (cp != p && (c = lookup(k, n - 1, cp, label, len)) < 0)
			c = i, cp = p; /* the call holds what the module does not */
		while (base > 0 && label[base - 1] >= '0' && label[base - 1] <= '9')
			base--;
		/* label is L_N beside a sibling L */
		int s = base < len && base > 1 && label[base - 1] == '_'
		                ? lookup(k, n - 1, cp, label, base - 1)
		                : -1;
		out->called[i] = s >= 0 ? s : c;
	}
	free(k);
	return true;
}

sc_modules *sc_modules_new(const sc_graph *g, sc_error *err)
{
	size_t longest = 0;
	for (int v = 0; v < g->n; v++) {
		size_t len = strlen(g->op_name[v]);
		if (len > longest)
			longest = len;
	}
	reader r = {.cap = 16};
	r.mod = malloc((size_t)r.cap * sizeof *r.mod);
	r.fqn = malloc(longest + 2);
	int *raw_of = malloc(((size_t)g->n + 1) * sizeof *raw_of);
	sc_modules *out = calloc(1, sizeof *out);
	bool ok = r.mod && r.fqn && raw_of && out;
	if (ok) {
		r.mod[0] = (raw_module){.name = dup_bytes("", 0),
		                        .label = dup_bytes("", 0),
		                        .parent = -1,
		                        .depth = 0};
		r.n = 1;
		ok = r.mod[0].name && r.mod[0].label && grow_table(&r) && read_names(&r, g, raw_of);
	}
	if (ok) {
		out->m = calloc((size_t)r.n, sizeof *out->m);
		out->of_op = malloc(((size_t)g->n + 1) * sizeof *out->of_op);
		out->ops_sorted = malloc(((size_t)g->n + 1) * sizeof *out->ops_sorted);
		ok = out->m && out->of_op && out->ops_sorted && build_tree(&r, g, raw_of, out);
		out->called = ok ? malloc((size_t)out->n * sizeof *out->called) : NULL;
		ok = ok && out->called && find_calls(out);
	}
	for (int i = 0; r.mod && i < r.n; i++) {
		free(r.mod[i].name);
		free(r.mod[i].label);
	}
	free(r.mod);
	free(r.slot);
	free(r.fqn);
	free(raw_of);
	if (!ok) {
		sc_modules_free(out);
		sc_error_nomem(err, "the module tree");
		return NULL;
	}
	return out;
}

void sc_modules_free(sc_modules *m)
{
	if (!m)
		return;
	for (int i = 0; m->m && i < m->n; i++) {
		free(m->m[i].name);
		free(m->m[i].label);
	}
	free(m->m);
	free(m->of_op);
	free(m->ops_sorted);
	free(m->called);
	free(m);
}

int sc_modules_at_depth(const sc_modules *m, int op, int depth)
{
	int i = m->of_op[op];
	while (m->m[i].depth > depth)
		i = m->m[i].parent;
	return i;
}

int sc_modules_find(const sc_modules *m, const char *name)
{
	for (int i = 0; i < m->n; i++)
		if (strcmp(m->m[i].name, name) == 0)
			return i;
	return -1;
}

int sc_modules_own_ops(const sc_modules *m, int i)
{
	int c = m->m[i].first_child;
	return (c >= 0 ? m->m[c].first : m->m[i].end) - m->m[i].first;
}

int sc_modules_called(const sc_modules *m, int i)
{
	return m->called[i];
}
