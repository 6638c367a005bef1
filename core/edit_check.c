/*
 * edit_check.c - the editor's invariants, checked by debug builds after
 * every edit (edit.h, sc_editor_check).
 */
#include <assert.h>
#include <math.h>

#include "edit.h"
#include "fleet.h"
#include "partition.h"

void sc_editor_check(const sc_editor *ed)
{
	const sc_costs *c = sc_editor_costs(ed);
	const int *stage = sc_editor_stages(ed), *kind = sc_editor_kinds(ed);
	sc_violation v;
	assert(sc_part_check_kinds(c->g, stage, c->k, &c->fleet, kind, &v));
	(void)v;
	sc_costs *fresh = sc_costs_new(c->g, &c->set, NULL);
	if (!fresh)
		return; /* out of memory: nothing to compare with */
	sc_costs_set_kinds(fresh, kind);
	sc_costs_eval(fresh, stage);
	for (int s = 0; s < c->k; s++) {
		double a = c->st[s].cost, b = fresh->st[s].cost;
		assert(a == b || fabs(a - b) <= 1e-9 * fmax(1, fmax(fabs(a), fabs(b))));
		assert(c->st[s].ops == fresh->st[s].ops);
		(void)a, (void)b;
	}
	sc_costs_free(fresh);
}
