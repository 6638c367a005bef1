/*
 * report.c - shared JSON output.  See report.h.
 */
#include "report.h"

json_t *sc_report_stages(const sc_costs *c)
{
	json_t *arr = json_array();
	if (!arr)
		return NULL;
	for (int s = 0; s < c->k; s++) {
		const sc_stage_cost *st = &c->st[s];
		json_t *o =
		        json_pack("{s:i, s:i, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:b}",
		                  "stage", s + 1, "ops", st->ops, "work", st->work, "io_in",
		                  st->io_in, "io_out", st->io_out, "overflow", st->overflow, "cost",
		                  st->cost, "param", st->param, "in_bytes", st->in_bytes,
		                  "out_bytes", st->out_bytes, "over_memory", (int)st->over_memory);
		if (!o || json_array_append_new(arr, o) != 0) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}
