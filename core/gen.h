/*
 * gen.h - synthetic graphs for tests and testbeds.
 *
 * The generator writes graphs, it does not search them, so it lives in core/
 * (formats/write_dot.c saves what it makes as DOT), with the random
 * generator it draws from (rng.h); `stagecut gen` (tui/cmd/cmd_gen.c) is
 * its front end.
 *
 * Four families:
 *
 * - REGAL-style graphs (000 App. C.2, after Paliwal et al. 2020): a classic
 *   random graph (Erdos-Renyi, Barabasi-Albert or Watts-Strogatz) on N nodes,
 *   made acyclic by a random topological order; each op's one output tensor
 *   has a size drawn from N(50, 10); an op's work is the sizes of its input
 *   and output tensors plus a fraction r ~ N(0, 0.1) of the sum of all tensor
 *   sizes, clipped at 0.  No parameters, bandwidth 1.
 *
 * - transformer: L pre-layernorm transformer layers (hidden size 1024,
 *   sequence 512, 16 heads, MLP 4096, fp16, batch 1) between a token
 *   embedding and a final layernorm.  Each layer is 14 ops: ln1, the Q, K, V
 *   projections, the scores matmul, softmax, the context matmul, the output
 *   projection, a residual add, ln2, fc1, gelu, fc2 and a residual add; so
 *   8 matmuls per layer and 14 L + 2 ops in all.
 *
 * - resnet: a ResNet-v1.5-like network of depth D = 3 B + 2 with B >= 4
 *   bottleneck blocks over four stages (64, 128, 256, 512 channels inside a
 *   block, 4x that outside; 56, 28, 14, 7 pixels), images 224 x 224, batch 8,
 *   fp16.  A block is conv 1x1, conv 3x3, conv 1x1, each with batchnorm (and
 *   relu for the first two), an add of the block's input (the skip edge) and
 *   a relu; each stage's first block downsamples (stride 2 in the 3x3 conv,
 *   except in stage 1) and takes its skip through a projection (conv 1x1 and
 *   batchnorm).  Stem: conv 7x7, batchnorm, relu, max pool; head: average
 *   pool and the fully connected layer.  10 B + 14 ops in all.  Depth 50
 *   gives ResNet-50's blocks (3, 4, 6, 3), 101 and 152 those of ResNet-101
 *   and -152.
 *
 * - inception: an InceptionV3-like network at layer granularity (the
 *   torchvision shape, 299 x 299 images, batch 8, fp16): the stem (five
 *   convolutions, two max pools), three InceptionA modules (four parallel
 *   branches of 1, 2, 3 and pool + 1 convolutions), InceptionB (a
 *   reduction of three branches), four InceptionC modules (branches of 1,
 *   3, 5 and pool + 1 convolutions, the 7-wide ones factorised as 1x7 and
 *   7x1), InceptionD (a reduction), two InceptionE modules (six branch
 *   ends: the 3 x 3 branches split into 1 x 3 and 3 x 1 halves) and the
 *   head (average pool, fully connected).  Every convolution is three ops,
 *   conv, batchnorm and relu; each module ends in a concat.  "Same"
 *   padding throughout, so sizes only shrink by strides (an approximation
 *   of the real network's valid convolutions).  A fixed shape: 308 ops.
 *
 * The layered families use real units: work in nanoseconds on an
 * accelerator of SC_GEN_FLOP_PER_NS and SC_GEN_MEM_BYTES_PER_NS (roofline:
 * the larger of the FLOPs over peak and the bytes read and written over
 * memory bandwidth, so elementwise ops are memory-bound), tensor and
 * parameter sizes in bytes, and the graph's bandwidth set to the
 * interconnect's SC_GEN_LINK_BYTES_PER_NS.  The seed multiplies each op's
 * work, param and out by its own factor in [0.9, 1.1] (work rounded to whole
 * nanoseconds, at least 1; bytes to whole bytes), so one shape gives a
 * testbed many instances.  Op names are "PLACE.KIND" where the last
 * dot-separated word is the kind of op (matmul, conv, batchnorm, relu, add,
 * layernorm, softmax, gelu, embedding, maxpool, avgpool).
 *
 * Everything here is deterministic for a given seed, never prints and is
 * thread-safe (no shared state).
 */
#ifndef SC_GEN_H
#define SC_GEN_H

#include <stdint.h>

#include "core/graph.h"

typedef enum sc_gen_model {
	SC_GEN_ANY = 0, /* one of the three REGAL models, chosen by the seed */
	SC_GEN_ER,
	SC_GEN_BA,
	SC_GEN_WS,
	SC_GEN_TRANSFORMER,
	SC_GEN_RESNET,
	SC_GEN_INCEPTION,
} sc_gen_model;

/* The accelerator and interconnect behind the layered families' numbers:
 * 100 TFLOP/s, 1.5 TB/s of memory bandwidth, 100 GB/s between stages. */
#define SC_GEN_FLOP_PER_NS 1e5
#define SC_GEN_MEM_BYTES_PER_NS 1500.0
#define SC_GEN_LINK_BYTES_PER_NS 100.0

/* The largest --layers: transformer layers, or resnet depth. */
#define SC_GEN_MAX_LAYERS 100000

/* Parses "any", "er", "ba", "ws", "transformer", "resnet" or "inception". */
bool sc_gen_model_parse(const char *text, sc_gen_model *out);
const char *sc_gen_model_name(sc_gen_model m);

/* True for the REGAL models (any, er, ba, ws). */
bool sc_gen_model_is_regal(sc_gen_model m);

/* What to generate. */
typedef struct sc_gen_spec {
	sc_gen_model model;
	int nodes;  /* REGAL: the number of ops (required); transformer and resnet:
	               about this many ops, or 0 to use layers */
	int layers; /* transformer: layers; resnet: depth (rounded to the nearest
	               3 B + 2); 0 to use nodes; must be 0 for REGAL */
	uint64_t seed;
	int k;         /* the graph attribute k, or 0 for none */
	bool training; /* a training graph of the model (sc_graph_training) */
} sc_gen_spec;

/* Fills s with: model any, no size, seed 1, no k. */
void sc_gen_spec_init(sc_gen_spec *s);

/* Returns a new graph as spec says, or NULL with err set (SC_ERR_INPUT for a
 * spec that names no size, both sizes, a size out of range or layers for a
 * REGAL model; SC_ERR_NOMEM).  Graph names: "regal-MODEL-N-SEED",
 * "transformer-L-SEED" and "resnet-D-SEED".  The caller frees the graph. */
sc_graph *sc_gen(const sc_gen_spec *spec, sc_error *err);

/* Returns a new REGAL-style graph of n >= 1 ops named "regal-<model>-<n>-<seed>",
 * with k set to k (0 for none), or NULL with err set.  model is a REGAL model. */
sc_graph *sc_gen_regal(int n, uint64_t seed, sc_gen_model model, int k, sc_error *err);

/* Returns a new transformer of 1 <= layers <= SC_GEN_MAX_LAYERS layers named
 * "transformer-<layers>-<seed>", or NULL with err set. */
sc_graph *sc_gen_transformer(int layers, uint64_t seed, int k, sc_error *err);

/* Returns a new resnet of depth 3 B + 2 nearest to depth (B >= 4 blocks,
 * depth <= SC_GEN_MAX_LAYERS) named "resnet-<3 B + 2>-<seed>", or NULL with
 * err set. */
sc_graph *sc_gen_resnet(int depth, uint64_t seed, int k, sc_error *err);

/* Returns a new InceptionV3-like graph named "inception-<seed>", or NULL
 * with err set. */
sc_graph *sc_gen_inception(uint64_t seed, int k, sc_error *err);

#endif
