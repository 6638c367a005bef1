/*
 * contract_report.c - the contraction report for `info`.  See
 * contract_report.h.  It builds the units twice (with and without the
 * rules) and counts the ideals of each with the exact DP's enumeration.
 */
#include "contract_report.h"

#include "search_impl.h"
#include "units.h"

sc_status sc_contract_report_of(const sc_graph *g, long limit, sc_contract_report *r, sc_error *err)
{
	*r = (sc_contract_report){.ops = g->n};
	sc_units *plain = sc_units_new(g, false, &g->settings, err);
	if (!plain)
		return SC_ERR_NOMEM;
	sc_units *u = sc_units_new(g, true, &g->settings, err);
	if (!u) {
		sc_units_free(plain);
		return SC_ERR_NOMEM;
	}
	r->stats = u->contraction;
	r->ideals_before = sc_ideals_count(plain, limit);
	r->ideals_after = sc_ideals_count(u, limit);
	sc_units_free(plain);
	sc_units_free(u);
	if (r->ideals_before < 0 || r->ideals_after < 0)
		return sc_error_nomem(err, "counting the ideals");
	return SC_OK;
}
