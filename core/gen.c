/*
 * gen.c - synthetic graphs: REGAL-style random graphs and layered
 * transformer, resnet and inception graphs.  See gen.h.
 *
 * Longer than 600 lines: the layered families share the "net" helper and
 * its roofline, which would otherwise have to be exposed between files.
 *
 * The layered families are written op by op through a small "net" helper
 * that knows each op's nominal FLOPs, bytes moved, parameter and output
 * bytes, turns them into work with the roofline of gen.h, applies the seed's
 * perturbation and remembers the first error, so that the network code reads
 * like the model it describes.
 */
#include "gen.h"
#include "training.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "rng.h"

/* gen.h's nominal accelerator as a device (device.h): its FLOP/s and
 * memory bandwidth, no launch overhead, efficiencies 1 (a pure roofline,
 * so that the seeded testbed files stay what they were) */
static const sc_device gen_device = {
        .name = "gen-nominal",
        .peak = {SC_GEN_FLOP_PER_NS * 1e9, SC_GEN_FLOP_PER_NS * 1e9, SC_GEN_FLOP_PER_NS * 1e9,
                 SC_GEN_FLOP_PER_NS * 1e9, SC_GEN_FLOP_PER_NS * 1e9, SC_GEN_FLOP_PER_NS * 1e9},
        .mem_bandwidth = SC_GEN_MEM_BYTES_PER_NS * 1e9,
        .link_bandwidth = SC_GEN_LINK_BYTES_PER_NS * 1e9,
        .default_precision = SC_PREC_FP16,
        .compute_eff = {1, 1, 1, 1, 1, 1, 1},
        .mem_eff = {1, 1, 1, 1, 1, 1, 1},
};

static const char *const model_names[] = {
        [SC_GEN_ANY] = "any",
        [SC_GEN_ER] = "er",
        [SC_GEN_BA] = "ba",
        [SC_GEN_WS] = "ws",
        [SC_GEN_TRANSFORMER] = "transformer",
        [SC_GEN_RESNET] = "resnet",
        [SC_GEN_INCEPTION] = "inception",
};
#define NMODELS (int)(sizeof model_names / sizeof model_names[0])

bool sc_gen_model_parse(const char *text, sc_gen_model *out)
{
	for (int i = 0; i < NMODELS; i++)
		if (strcmp(text, model_names[i]) == 0) {
			*out = (sc_gen_model)i;
			return true;
		}
	return false;
}

const char *sc_gen_model_name(sc_gen_model m)
{
	return (int)m >= 0 && (int)m < NMODELS ? model_names[m] : "?";
}

bool sc_gen_model_is_regal(sc_gen_model m)
{
	return m == SC_GEN_ANY || m == SC_GEN_ER || m == SC_GEN_BA || m == SC_GEN_WS;
}

void sc_gen_spec_init(sc_gen_spec *s)
{
	memset(s, 0, sizeof *s);
	s->model = SC_GEN_ANY;
	s->seed = 1;
}

/* Box-Muller: one draw from N(mean, sd). */
static double normal(sc_rng *r, double mean, double sd)
{
	double u = sc_rng_uniform(r), v = sc_rng_uniform(r);
	if (u < 1e-300)
		u = 1e-300;
	return mean + sd * sqrt(-2 * log(u)) * cos(2 * 3.14159265358979323846 * v);
}

typedef struct edge_list {
	int n, cap;
	int *a, *b;
} edge_list;

static bool add_edge(edge_list *e, int a, int b)
{
	if (a == b)
		return true;
	if (e->n == e->cap) {
		int cap = e->cap ? 2 * e->cap : 256;
		int *na = realloc(e->a, (size_t)cap * sizeof *na);
		if (!na)
			return false;
		e->a = na;
		int *nb = realloc(e->b, (size_t)cap * sizeof *nb);
		if (!nb)
			return false;
		e->b = nb;
		e->cap = cap;
	}
	e->a[e->n] = a;
	e->b[e->n] = b;
	e->n++;
	return true;
}

/* The largest Erdos-Renyi graph drawn pair by pair (base_graph). */
#define ER_PAIRWISE 4096

/* Undirected base graphs; duplicates are merged by the builder. */
static bool base_graph(sc_rng *r, int n, sc_gen_model m, edge_list *e)
{
	bool ok = true;
	if (m == SC_GEN_ER) {
		/* average degree about 3, connected along a random spanning path */
		double p = n > 1 ? 3.0 / (n - 1) : 0;
		for (int i = 1; i < n && ok; i++)
			ok = add_edge(e, sc_rng_below(r, i), i);
		/* each pair i < j with probability p.  Up to ER_PAIRWISE ops a
		 * draw per pair (0.1 s), so that the graphs of a seed written so
		 * far (samples/testbed) stay the same; above, geometric skips
		 * over the pairs in order (v, then w < v): the same distribution
		 * in time linear in the edges, not n^2 (Batagelj and Brandes,
		 * Efficient generation of large random networks, Phys. Rev. E 71,
		 * 2005, algorithm G(n, p)) */
		for (int i = 0; n <= ER_PAIRWISE && i < n && ok; i++)
			for (int j = i + 1; j < n && ok; j++)
				if (sc_rng_uniform(r) < p)
					ok = add_edge(e, i, j);
		double lq = p < 1 ? log1p(-p) : 0;
		long v = 1, w = -1;
		while (n > ER_PAIRWISE && v < n && ok) {
			double u = sc_rng_uniform(r); /* in [0, 1) */
			w += 1 + (p < 1 ? (long)floor(log1p(-u) / lq) : 0);
			while (w >= v && v < n) {
				w -= v;
				v++;
			}
			if (v < n)
				ok = add_edge(e, (int)w, (int)v);
		}
	} else if (m == SC_GEN_BA) {
		/* preferential attachment, 2 edges per new node: pick an endpoint of
		 * a random existing edge (proportional to degree) */
		for (int i = 1; i < n && ok; i++) {
			int links = i < 2 ? 1 : 2;
			for (int l = 0; l < links && ok; l++) {
				int t = e->n ? (sc_rng_uniform(r) < 0.5
				                        ? e->a
				                        : e->b)[sc_rng_below(r, e->n)]
				             : 0;
				ok = add_edge(e, t < i ? t : sc_rng_below(r, i), i);
			}
		}
	} else {
		/* ring lattice of degree 4, each edge rewired with probability 0.1 */
		for (int i = 0; i < n && ok; i++)
			for (int d = 1; d <= 2 && ok; d++) {
				int j = (i + d) % n;
				if (sc_rng_uniform(r) < 0.1)
					j = sc_rng_below(r, n);
				ok = add_edge(e, i, j);
			}
	}
	return ok;
}

sc_graph *sc_gen_regal(int n, uint64_t seed, sc_gen_model model, int k, sc_error *err)
{
	if (n < 1 || n > 10000000) {
		sc_error_set(err, SC_ERR_INPUT, "--nodes must be from 1 to 10000000 (got %d)", n);
		return NULL;
	}
	if (!sc_gen_model_is_regal(model)) {
		sc_error_set(err, SC_ERR_INPUT, "%s is not a REGAL model",
		             sc_gen_model_name(model));
		return NULL;
	}
	sc_rng r;
	sc_rng_seed(&r, seed);
	if (model == SC_GEN_ANY)
		model = (sc_gen_model)(1 + sc_rng_below(&r, 3));
	edge_list e = {0};
	int *rank = malloc((size_t)n * sizeof *rank);
	double *size = malloc((size_t)n * sizeof *size), *work = calloc((size_t)n, sizeof *work);
	sc_builder *b = sc_builder_new();
	sc_graph *g = NULL;
	if (!rank || !size || !work || !b || !base_graph(&r, n, model, &e)) {
		sc_error_nomem(err, "the generated graph");
		goto out;
	}
	/* a random topological order: orient each edge from lower to higher rank */
	for (int i = 0; i < n; i++)
		rank[i] = i;
	for (int i = n - 1; i > 0; i--) {
		int j = sc_rng_below(&r, i + 1), t = rank[i];
		rank[i] = rank[j];
		rank[j] = t;
	}
	double total = 0;
	for (int i = 0; i < n; i++) {
		size[i] = fmax(0, normal(&r, 50, 10));
		total += size[i];
	}
	/* each tensor counts once per consumer op: deduplicate pairs first */
	for (int i = 0; i < e.n; i++)
		if (rank[e.a[i]] > rank[e.b[i]]) {
			int t = e.a[i];
			e.a[i] = e.b[i];
			e.b[i] = t;
		}
	char name[64];
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof name, "op%d", i);
		if (sc_builder_add_op(b, name, 0, 0, size[i], NULL, err) < 0)
			goto out;
	}
	for (int i = 0; i < e.n; i++)
		if (sc_builder_add_edge(b, e.a[i], e.b[i], err) != SC_OK)
			goto out;
	sc_settings set;
	sc_settings_init(&set);
	set.k = k;
	sc_builder_set_settings(b, &set);
	snprintf(name, sizeof name, "regal-%s-%d-%llu", sc_gen_model_name(model), n,
	         (unsigned long long)seed);
	g = sc_builder_finish(b, name, name, err);
	if (!g)
		goto out;
	/* work: input tensors (distinct producers) + own output + r * total */
	for (int v = 0; v < n; v++) {
		double w = g->out[v];
		for (int i = g->pred_off[v]; i < g->pred_off[v + 1]; i++)
			w += g->out[g->pred[i]];
		w += normal(&r, 0, 0.1) * total;
		g->work[v] = fmax(0, w);
	}
out:
	free(e.a);
	free(e.b);
	free(rank);
	free(size);
	free(work);
	sc_builder_free(b);
	return g;
}

/* ---- layered families: transformer and resnet ---------------------------- */

#define FP16 2.0   /* bytes per value */
#define INPUT (-1) /* "no producer": the model's input, outside the graph */

typedef struct net {
	sc_builder *b;
	sc_rng r;
	sc_error *err;
	bool failed; /* err holds the first error */
} net;

static bool net_init(net *t, uint64_t seed, sc_error *err)
{
	t->b = sc_builder_new();
	sc_rng_seed(&t->r, seed);
	t->err = err;
	t->failed = false;
	if (!t->b) {
		sc_error_nomem(err, "the generated graph");
		return false;
	}
	return true;
}

/* The seed's perturbation of one quantity: a factor in [0.9, 1.1]. */
static double jitter(sc_rng *r)
{
	return 0.9 + 0.2 * sc_rng_uniform(r);
}

/* Adds the op named by fmt with its nominal FLOPs, bytes moved through
 * memory (inputs read, parameters read, output written), parameter bytes and
 * output bytes, and an edge from each of the npred ops in pred (INPUT ones
 * are skipped).  Returns its index, or -1 once anything has failed (then
 * every later call does nothing). */
static int net_op(net *t, double flops, double moved, double param, double out, int npred,
                  const int *pred, const char *fmt, ...) __attribute__((format(printf, 8, 9)));
static int net_op(net *t, double flops, double moved, double param, double out, int npred,
                  const int *pred, const char *fmt, ...)
{
	if (t->failed)
		return -1;
	char name[128];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(name, sizeof name, fmt, ap);
	va_end(ap);
	/* the device model every modelled time comes from (device.h), on the
	 * nominal accelerator of gen.h: a pure roofline, microseconds to ns */
	sc_op_size size = {.kind = SC_OPK_ELEMENTWISE, .flops = flops, .bytes = moved};
	double work = sc_device_op_time(&gen_device, SC_PREC_FP16, &size) * 1e3;
	/* always three draws, so each op's factors depend only on its position */
	double fw = jitter(&t->r), fp = jitter(&t->r), fo = jitter(&t->r);
	work = fmax(1, round(work * fw));
	param = round(param * fp);
	out = round(out * fo);
	int v = sc_builder_add_op(t->b, name, work, param, out, NULL, t->err);
	if (v < 0) {
		t->failed = true;
		return -1;
	}
	for (int i = 0; i < npred; i++)
		if (pred[i] != INPUT && sc_builder_add_edge(t->b, pred[i], v, t->err) != SC_OK) {
			t->failed = true;
			return -1;
		}
	return v;
}

/* Finishes t into a graph called name with k and the interconnect's
 * bandwidth, or returns NULL with the error; frees the builder either way. */
static sc_graph *net_finish(net *t, const char *name, int k)
{
	sc_graph *g = NULL;
	if (!t->failed) {
		sc_settings set;
		sc_settings_init(&set);
		set.k = k;
		set.bandwidth = SC_GEN_LINK_BYTES_PER_NS;
		sc_builder_set_settings(t->b, &set);
		g = sc_builder_finish(t->b, name, name, t->err);
	}
	sc_builder_free(t->b);
	t->b = NULL;
	return g;
}

sc_graph *sc_gen_transformer(int layers, uint64_t seed, int k, sc_error *err)
{
	if (layers < 1 || layers > SC_GEN_MAX_LAYERS) {
		sc_error_set(err, SC_ERR_INPUT,
		             "transformer: --layers must be from 1 to %d (got %d)",
		             SC_GEN_MAX_LAYERS, layers);
		return NULL;
	}
	/* BERT-large-like shapes: hidden d, sequence s, h heads, MLP width ff */
	const double d = 1024, s = 512, h = 16, ff = 4 * d, vocab = 32000;
	const double act = s * d * FP16;     /* one activation, s x d */
	const double wide = s * ff * FP16;   /* the MLP's inner activation */
	const double att = h * s * s * FP16; /* attention scores, h x s x s */
	const double proj = (d * d + d) * FP16, up = (d * ff + ff) * FP16,
	             down = (ff * d + d) * FP16, norm = 2 * d * FP16;
	net t;
	if (!net_init(&t, seed, err))
		return NULL;
	/* token and position rows read, their sum written */
	int x = net_op(&t, 0, 3 * act, (vocab + s) * d * FP16, act, 0, NULL, "embed.embedding");
	for (int l = 0; l < layers; l++) {
		int ln1 = net_op(&t, 0, 2 * act + norm, norm, act, 1, (int[]){x},
		                 "l%d.ln1.layernorm", l);
		int q = net_op(&t, 2 * s * d * d, 2 * act + proj, proj, act, 1, (int[]){ln1},
		               "l%d.attn.q.matmul", l);
		int kk = net_op(&t, 2 * s * d * d, 2 * act + proj, proj, act, 1, (int[]){ln1},
		                "l%d.attn.k.matmul", l);
		int v = net_op(&t, 2 * s * d * d, 2 * act + proj, proj, act, 1, (int[]){ln1},
		               "l%d.attn.v.matmul", l);
		/* Q K^T per head: s x s x (d / h) multiply-adds, h times */
		int sc = net_op(&t, 2 * s * s * d, 2 * act + att, 0, att, 2, (int[]){q, kk},
		                "l%d.attn.scores.matmul", l);
		int sm = net_op(&t, 0, 2 * att, 0, att, 1, (int[]){sc}, "l%d.attn.softmax", l);
		int ctx = net_op(&t, 2 * s * s * d, att + 2 * act, 0, act, 2, (int[]){sm, v},
		                 "l%d.attn.context.matmul", l);
		int o = net_op(&t, 2 * s * d * d, 2 * act + proj, proj, act, 1, (int[]){ctx},
		               "l%d.attn.out.matmul", l);
		int r1 = net_op(&t, 0, 3 * act, 0, act, 2, (int[]){x, o}, "l%d.attn.add", l);
		int ln2 = net_op(&t, 0, 2 * act + norm, norm, act, 1, (int[]){r1},
		                 "l%d.ln2.layernorm", l);
		int fc1 = net_op(&t, 2 * s * d * ff, act + up + wide, up, wide, 1, (int[]){ln2},
		                 "l%d.mlp.fc1.matmul", l);
		int gelu = net_op(&t, 0, 2 * wide, 0, wide, 1, (int[]){fc1}, "l%d.mlp.gelu", l);
		int fc2 = net_op(&t, 2 * s * ff * d, wide + down + act, down, act, 1, (int[]){gelu},
		                 "l%d.mlp.fc2.matmul", l);
		x = net_op(&t, 0, 3 * act, 0, act, 2, (int[]){r1, fc2}, "l%d.mlp.add", l);
	}
	net_op(&t, 0, 2 * act + norm, norm, act, 1, (int[]){x}, "final.layernorm");
	char name[64];
	snprintf(name, sizeof name, "transformer-%d-%llu", layers, (unsigned long long)seed);
	return net_finish(&t, name, k);
}

#define RESNET_BATCH 8.0

/* A feature map: the op that outputs it, its channels and its side. */
typedef struct fmap {
	int op;
	double c, hw;
} fmap;

static double fmap_bytes(fmap f)
{
	return RESNET_BATCH * f.hw * f.hw * f.c * FP16;
}

/* A ksz x ksz convolution (no bias) of in to cout channels, place.conv. */
static fmap conv(net *t, fmap in, double cout, int ksz, int stride, const char *place)
{
	fmap o = {0, cout, in.hw / stride};
	double flops = 2 * RESNET_BATCH * o.hw * o.hw * cout * ksz * ksz * in.c;
	double param = ksz * ksz * in.c * cout * FP16;
	o.op = net_op(t, flops, fmap_bytes(in) + param + fmap_bytes(o), param, fmap_bytes(o), 1,
	              (int[]){in.op}, "%s.conv", place);
	return o;
}

/* An op that keeps the shape: batchnorm (scale, shift, mean and variance
 * per channel), relu or add (of in and, if other is not NULL, other). */
static fmap same(net *t, fmap in, const fmap *other, double param, const char *place,
                 const char *kind)
{
	fmap o = in;
	double moved = (other ? 3 : 2) * fmap_bytes(in) + param;
	o.op = net_op(t, 0, moved, param, fmap_bytes(in), other ? 2 : 1,
	              (int[]){in.op, other ? other->op : INPUT}, "%s%s%s", place, *place ? "." : "",
	              kind);
	return o;
}

static fmap bn(net *t, fmap in, const char *place)
{
	return same(t, in, NULL, 4 * in.c * FP16, place, "batchnorm");
}

static fmap relu(net *t, fmap in, const char *place)
{
	return same(t, in, NULL, 0, place, "relu");
}

/* Blocks per stage for a resnet of blocks >= 4 bottleneck blocks. */
static void resnet_stages(int blocks, int n[4])
{
	static const int r50[4] = {3, 4, 6, 3};
	if (blocks <= 16) {
		/* ResNet-50's proportions, each stage at least one block */
		for (int i = 0; i < 4; i++)
			n[i] = 1;
		for (int left = blocks - 4; left > 0; left--) {
			int best = 0;
			double most = -INFINITY;
			for (int i = 0; i < 4; i++) {
				double deficit = r50[i] * blocks / 16.0 - n[i];
				if (deficit > most) {
					most = deficit;
					best = i;
				}
			}
			n[best]++;
		}
	} else {
		/* deeper nets grow stages 2 and 3 as ResNet-101 (3, 4, 23, 3) and
		 * ResNet-152 (3, 8, 36, 3) do */
		n[0] = 3;
		n[3] = 3;
		n[1] = blocks <= 33 ? 4 : 4 + (int)lround((blocks - 33) * 4.0 / 17);
		n[2] = blocks - 6 - n[1];
	}
}

sc_graph *sc_gen_resnet(int depth, uint64_t seed, int k, sc_error *err)
{
	/* the depth counts the convolutions on the main path and the fc layer:
	 * 3 per block + the stem's + the head's; round to the nearest */
	int blocks = depth >= 1 ? (depth - 1) / 3 : 0;
	if (blocks < 4 || depth > SC_GEN_MAX_LAYERS) {
		sc_error_set(err, SC_ERR_INPUT,
		             "resnet: --layers (the depth) must be from 14 to %d (got %d)",
		             SC_GEN_MAX_LAYERS, depth);
		return NULL;
	}
	int per_stage[4];
	resnet_stages(blocks, per_stage);
	net t;
	if (!net_init(&t, seed, err))
		return NULL;
	fmap x = {INPUT, 3, 224};
	x = conv(&t, x, 64, 7, 2, "stem");
	x = bn(&t, x, "stem");
	x = relu(&t, x, "stem");
	{
		fmap o = {0, x.c, x.hw / 2};
		o.op = net_op(&t, 0, fmap_bytes(x) + fmap_bytes(o), 0, fmap_bytes(o), 1,
		              (int[]){x.op}, "stem.maxpool");
		x = o;
	}
	char place[64];
	for (int st = 0; st < 4; st++) {
		double mid = 64 << st, wide = 4 * mid;
		for (int bl = 0; bl < per_stage[st]; bl++) {
			/* ResNet v1.5: a stage's first block strides in its 3x3 conv */
			int stride = bl == 0 && st > 0 ? 2 : 1;
			fmap in = x, y = x, skip = x;
			snprintf(place, sizeof place, "s%d.b%d.c1", st + 1, bl);
			y = relu(&t, bn(&t, conv(&t, y, mid, 1, 1, place), place), place);
			snprintf(place, sizeof place, "s%d.b%d.c2", st + 1, bl);
			y = relu(&t, bn(&t, conv(&t, y, mid, 3, stride, place), place), place);
			snprintf(place, sizeof place, "s%d.b%d.c3", st + 1, bl);
			y = bn(&t, conv(&t, y, wide, 1, 1, place), place);
			if (bl == 0) {
				/* the projection shortcut matches channels and size */
				snprintf(place, sizeof place, "s%d.b%d.proj", st + 1, bl);
				skip = bn(&t, conv(&t, in, wide, 1, stride, place), place);
			}
			snprintf(place, sizeof place, "s%d.b%d", st + 1, bl);
			y = same(&t, y, &skip, 0, place, "add");
			x = relu(&t, y, place);
		}
	}
	{
		fmap pooled = {0, x.c, 1};
		pooled.op = net_op(&t, 0, fmap_bytes(x) + fmap_bytes(pooled), 0, fmap_bytes(pooled),
		                   1, (int[]){x.op}, "head.avgpool");
		double classes = 1000, param = (pooled.c * classes + classes) * FP16;
		double out = RESNET_BATCH * classes * FP16;
		net_op(&t, 2 * RESNET_BATCH * pooled.c * classes, fmap_bytes(pooled) + param + out,
		       param, out, 1, (int[]){pooled.op}, "head.fc.matmul");
	}
	char name[64];
	snprintf(name, sizeof name, "resnet-%d-%llu", 3 * blocks + 2, (unsigned long long)seed);
	return net_finish(&t, name, k);
}

/* ---- inception ----------------------------------------------------------- */

/* A kh x kw convolution (no bias) of in to cout channels with batchnorm and
 * relu after it, three ops place.conv, place.batchnorm, place.relu (the
 * BasicConv2d of InceptionV3); "same" padding, so the size only shrinks by
 * the stride. */
static fmap conv_bn_relu(net *t, fmap in, double cout, int kh, int kw, int stride,
                         const char *place)
{
	fmap o = {0, cout, ceil(in.hw / stride)};
	double flops = 2 * RESNET_BATCH * o.hw * o.hw * cout * kh * kw * in.c;
	double param = kh * kw * in.c * cout * FP16;
	o.op = net_op(t, flops, fmap_bytes(in) + param + fmap_bytes(o), param, fmap_bytes(o), 1,
	              (int[]){in.op}, "%s.conv", place);
	return relu(t, bn(t, o, place), place);
}

/* A pool (kind "maxpool" or "avgpool") of in with stride. */
static fmap pool(net *t, fmap in, int stride, const char *place, const char *kind)
{
	fmap o = {0, in.c, ceil(in.hw / stride)};
	o.op = net_op(t, 0, fmap_bytes(in) + fmap_bytes(o), 0, fmap_bytes(o), 1, (int[]){in.op},
	              "%s.%s", place, kind);
	return o;
}

/* The channel concatenation of the n branches in b. */
static fmap concat(net *t, const fmap *b, int n, const char *place)
{
	fmap o = {0, 0, b[0].hw};
	int pred[8];
	double in = 0;
	for (int i = 0; i < n; i++) {
		o.c += b[i].c;
		in += fmap_bytes(b[i]);
		pred[i] = b[i].op;
	}
	o.op = net_op(t, 0, in + fmap_bytes(o), 0, fmap_bytes(o), n, pred, "%s.concat", place);
	return o;
}

/* Convolutions of a branch: each {cout, kh, kw, stride}. */
typedef struct conv_spec {
	double cout;
	int kh, kw, stride;
} conv_spec;

static fmap branch(net *t, fmap x, const conv_spec *c, int n, const char *place)
{
	char p[100];
	for (int i = 0; i < n; i++) {
		snprintf(p, sizeof p, "%.80s.%d", place, i + 1);
		x = conv_bn_relu(t, x, c[i].cout, c[i].kh, c[i].kw, c[i].stride, p);
	}
	return x;
}

sc_graph *sc_gen_inception(uint64_t seed, int k, sc_error *err)
{
	net t;
	if (!net_init(&t, seed, err))
		return NULL;
	char place[64], p[80];
	fmap x = {INPUT, 3, 299};
	x = conv_bn_relu(&t, x, 32, 3, 3, 2, "stem.1a");
	x = conv_bn_relu(&t, x, 32, 3, 3, 1, "stem.2a");
	x = conv_bn_relu(&t, x, 64, 3, 3, 1, "stem.2b");
	x = pool(&t, x, 2, "stem", "maxpool");
	x = conv_bn_relu(&t, x, 80, 1, 1, 1, "stem.3b");
	x = conv_bn_relu(&t, x, 192, 3, 3, 1, "stem.4a");
	x = pool(&t, x, 2, "stem.4", "maxpool");
	/* three InceptionA modules at 35 x 35 */
	for (int m = 0; m < 3; m++) {
		snprintf(place, sizeof place, "a%d", m + 1);
		fmap b[4];
		snprintf(p, sizeof p, "%s.b1", place);
		b[0] = branch(&t, x, (conv_spec[]){{64, 1, 1, 1}}, 1, p);
		snprintf(p, sizeof p, "%s.b5", place);
		b[1] = branch(&t, x, (conv_spec[]){{48, 1, 1, 1}, {64, 5, 5, 1}}, 2, p);
		snprintf(p, sizeof p, "%s.b3", place);
		b[2] = branch(&t, x, (conv_spec[]){{64, 1, 1, 1}, {96, 3, 3, 1}, {96, 3, 3, 1}}, 3,
		              p);
		snprintf(p, sizeof p, "%s.bp", place);
		b[3] = pool(&t, x, 1, p, "avgpool");
		b[3] = branch(&t, b[3], (conv_spec[]){{m == 0 ? 32 : 64, 1, 1, 1}}, 1, p);
		x = concat(&t, b, 4, place);
	}
	{ /* InceptionB: to 17 x 17 */
		fmap b[3];
		b[0] = branch(&t, x, (conv_spec[]){{384, 3, 3, 2}}, 1, "b.b3");
		b[1] = branch(&t, x, (conv_spec[]){{64, 1, 1, 1}, {96, 3, 3, 1}, {96, 3, 3, 2}}, 3,
		              "b.b3dbl");
		b[2] = pool(&t, x, 2, "b.bp", "maxpool");
		x = concat(&t, b, 3, "b");
	}
	/* four InceptionC modules with 7-wide factorised convolutions */
	static const double c7s[4] = {128, 160, 160, 192};
	for (int m = 0; m < 4; m++) {
		double c7 = c7s[m];
		snprintf(place, sizeof place, "c%d", m + 1);
		fmap b[4];
		snprintf(p, sizeof p, "%s.b1", place);
		b[0] = branch(&t, x, (conv_spec[]){{192, 1, 1, 1}}, 1, p);
		snprintf(p, sizeof p, "%s.b7", place);
		b[1] = branch(&t, x, (conv_spec[]){{c7, 1, 1, 1}, {c7, 1, 7, 1}, {192, 7, 1, 1}}, 3,
		              p);
		snprintf(p, sizeof p, "%s.b7dbl", place);
		b[2] = branch(&t, x,
		              (conv_spec[]){{c7, 1, 1, 1},
		                            {c7, 7, 1, 1},
		                            {c7, 1, 7, 1},
		                            {c7, 7, 1, 1},
		                            {192, 1, 7, 1}},
		              5, p);
		snprintf(p, sizeof p, "%s.bp", place);
		b[3] = pool(&t, x, 1, p, "avgpool");
		b[3] = branch(&t, b[3], (conv_spec[]){{192, 1, 1, 1}}, 1, p);
		x = concat(&t, b, 4, place);
	}
	{ /* InceptionD: to 8 x 8 */
		fmap b[3];
		b[0] = branch(&t, x, (conv_spec[]){{192, 1, 1, 1}, {320, 3, 3, 2}}, 2, "d.b3");
		b[1] = branch(
		        &t, x,
		        (conv_spec[]){
		                {192, 1, 1, 1}, {192, 1, 7, 1}, {192, 7, 1, 1}, {192, 3, 3, 2}},
		        4, "d.b7x3");
		b[2] = pool(&t, x, 2, "d.bp", "maxpool");
		x = concat(&t, b, 3, "d");
	}
	/* two InceptionE modules, whose 3 x 3 branches split into 1 x 3 and
	 * 3 x 1 halves */
	for (int m = 0; m < 2; m++) {
		snprintf(place, sizeof place, "e%d", m + 1);
		fmap b[6];
		snprintf(p, sizeof p, "%s.b1", place);
		b[0] = branch(&t, x, (conv_spec[]){{320, 1, 1, 1}}, 1, p);
		snprintf(p, sizeof p, "%s.b3", place);
		fmap s = branch(&t, x, (conv_spec[]){{384, 1, 1, 1}}, 1, p);
		snprintf(p, sizeof p, "%s.b3.a", place);
		b[1] = branch(&t, s, (conv_spec[]){{384, 1, 3, 1}}, 1, p);
		snprintf(p, sizeof p, "%s.b3.b", place);
		b[2] = branch(&t, s, (conv_spec[]){{384, 3, 1, 1}}, 1, p);
		snprintf(p, sizeof p, "%s.b3dbl", place);
		s = branch(&t, x, (conv_spec[]){{448, 1, 1, 1}, {384, 3, 3, 1}}, 2, p);
		snprintf(p, sizeof p, "%s.b3dbl.a", place);
		b[3] = branch(&t, s, (conv_spec[]){{384, 1, 3, 1}}, 1, p);
		snprintf(p, sizeof p, "%s.b3dbl.b", place);
		b[4] = branch(&t, s, (conv_spec[]){{384, 3, 1, 1}}, 1, p);
		snprintf(p, sizeof p, "%s.bp", place);
		b[5] = pool(&t, x, 1, p, "avgpool");
		b[5] = branch(&t, b[5], (conv_spec[]){{192, 1, 1, 1}}, 1, p);
		x = concat(&t, b, 6, place);
	}
	{
		fmap pooled = {0, x.c, 1};
		pooled.op = net_op(&t, 0, fmap_bytes(x) + fmap_bytes(pooled), 0, fmap_bytes(pooled),
		                   1, (int[]){x.op}, "head.avgpool");
		double classes = 1000, param = (pooled.c * classes + classes) * FP16;
		double out = RESNET_BATCH * classes * FP16;
		net_op(&t, 2 * RESNET_BATCH * pooled.c * classes, fmap_bytes(pooled) + param + out,
		       param, out, 1, (int[]){pooled.op}, "head.fc.matmul");
	}
	char name[64];
	snprintf(name, sizeof name, "inception-%llu", (unsigned long long)seed);
	return net_finish(&t, name, k);
}

/* ---- one entry point --------------------------------------------------- */

static sc_graph *gen_inference(const sc_gen_spec *spec, sc_error *err)
{
	if (sc_gen_model_is_regal(spec->model)) {
		if (spec->layers != 0) {
			sc_error_set(err, SC_ERR_INPUT,
			             "--layers is for the transformer and resnet models; "
			             "REGAL graphs take --nodes");
			return NULL;
		}
		if (spec->nodes < 1) {
			sc_error_set(err, SC_ERR_INPUT, "give the number of ops with --nodes N");
			return NULL;
		}
		return sc_gen_regal(spec->nodes, spec->seed, spec->model, spec->k, err);
	}
	const char *m = sc_gen_model_name(spec->model);
	if (spec->model == SC_GEN_INCEPTION) {
		if (spec->nodes > 0 || spec->layers > 0) {
			sc_error_set(
			        err, SC_ERR_INPUT,
			        "inception has a fixed shape: give neither --nodes nor --layers");
			return NULL;
		}
		return sc_gen_inception(spec->seed, spec->k, err);
	}
	if (spec->nodes > 0 && spec->layers > 0) {
		sc_error_set(err, SC_ERR_INPUT, "%s: give --nodes or --layers, not both", m);
		return NULL;
	}
	if (spec->nodes < 1 && spec->layers < 1) {
		sc_error_set(err, SC_ERR_INPUT,
		             "%s: give the size with --layers L or --nodes N (about N ops)", m);
		return NULL;
	}
	int layers = spec->layers;
	if (spec->model == SC_GEN_TRANSFORMER) {
		/* 14 ops per layer, the embedding and the final layernorm */
		if (layers == 0) {
			long fit = lround((spec->nodes - 2) / 14.0);
			if (fit > SC_GEN_MAX_LAYERS) {
				sc_error_set(
				        err, SC_ERR_INPUT,
				        "transformer: --nodes %d would need more than %d layers",
				        spec->nodes, SC_GEN_MAX_LAYERS);
				return NULL;
			}
			layers = fit < 1 ? 1 : (int)fit;
		}
		return sc_gen_transformer(layers, spec->seed, spec->k, err);
	}
	/* resnet: 10 ops per block, 2 more for each of the 4 projections, 4 in
	 * the stem and 2 in the head */
	if (layers == 0) {
		long blocks = lround((spec->nodes - 14) / 10.0);
		if (blocks < 4)
			blocks = 4;
		if (3 * blocks + 2 > SC_GEN_MAX_LAYERS) {
			sc_error_set(err, SC_ERR_INPUT,
			             "resnet: --nodes %d would need a depth over %d", spec->nodes,
			             SC_GEN_MAX_LAYERS);
			return NULL;
		}
		layers = (int)(3 * blocks + 2);
	}
	return sc_gen_resnet(layers, spec->seed, spec->k, err);
}

sc_graph *sc_gen(const sc_gen_spec *spec, sc_error *err)
{
	sc_graph *g = gen_inference(spec, err);
	if (!g || !spec->training)
		return g;
	sc_graph *t = sc_graph_training(g, NULL, err);
	sc_graph_free(g);
	return t;
}
