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
		/* a training graph's split by pass (cost_fw + cost_bw = cost) */
		if (o && sc_graph_is_training(c->g)) {
			json_object_set_new(o, "cost_fw", json_real(st->cost_fw));
			json_object_set_new(o, "cost_bw", json_real(st->cost_bw));
			json_object_set_new(o, "work_bw", json_real(st->work_bw));
		}
		if (!o || json_array_append_new(arr, o) != 0) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

json_t *sc_report_objective(const sc_costs *c)
{
	if (!sc_graph_is_training(c->g))
		return NULL;
	int fa, ba;
	double gp = sc_costs_gpipe(c, &fa, &ba);
	return json_pack("{s:s, s:f, s:f, s:i, s:f, s:i}", "schedule",
	                 sc_schedule_name(c->set.schedule), "gpipe", gp, "max_cost_fw",
	                 c->st[fa].cost_fw, "max_cost_fw_stage", fa + 1, "max_cost_bw",
	                 c->st[ba].cost_bw, "max_cost_bw_stage", ba + 1);
}
