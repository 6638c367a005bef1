/*
 * contract_report.h - how far contract.h's rules shrink a graph, for
 * `info`: units and the exact DP's ideals before and after.
 */
#ifndef SC_CONTRACT_REPORT_H
#define SC_CONTRACT_REPORT_H

#include "contract.h"
#include "core/graph.h"

/* What `info` reports: the graph's units before and after the rules, and
 * the ideals the exact DP would enumerate on each (counted up to limit; a
 * count of limit + 1 means more). */
typedef struct sc_contract_report {
	int ops;
	sc_contract_stats stats;
	long ideals_before, ideals_after;
} sc_contract_report;

/* Fills r for g under g's own memory setting.  SC_OK, or SC_ERR_NOMEM with
 * err set.  Thread-safe. */
sc_status sc_contract_report_of(const sc_graph *g, long limit, sc_contract_report *r,
                                sc_error *err);

#endif
