/*
 * gen.h - synthetic graphs for tests and testbeds.
 *
 * REGAL-style graphs (000 App. C.2, after Paliwal et al. 2020): a classic
 * random graph (Erdos-Renyi, Barabasi-Albert or Watts-Strogatz) on N nodes,
 * made acyclic by a random topological order; each op's one output tensor
 * has a size drawn from N(50, 10); an op's work is the sizes of its input and
 * output tensors plus a fraction r ~ N(0, 0.1) of the sum of all tensor
 * sizes, clipped at 0.  No parameters, bandwidth 1.
 */
#ifndef SC_GEN_H
#define SC_GEN_H

#include <stdint.h>

#include "core/graph.h"

typedef enum sc_gen_model {
	SC_GEN_ANY = 0, /* one of the three, chosen by the seed */
	SC_GEN_ER,
	SC_GEN_BA,
	SC_GEN_WS,
} sc_gen_model;

/* Parses "any", "er", "ba" or "ws". */
bool sc_gen_model_parse(const char *text, sc_gen_model *out);
const char *sc_gen_model_name(sc_gen_model m);

/* Returns a new REGAL-style graph of n >= 1 ops named "regal-<model>-<n>-<seed>",
 * with k set to k (0 for none), or NULL with err set. */
sc_graph *sc_gen_regal(int n, uint64_t seed, sc_gen_model model, int k, sc_error *err);

#endif
