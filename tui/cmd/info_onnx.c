/*
 * info_onnx.c - what `stagecut info` says of an ONNX model: ops by type,
 * FLOPs, symbolic dims, the device and precision, the op model.  See
 * info_onnx.h.
 */
#include "info_onnx.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tui/ui.h"
#include "core/parse.h"

json_t *ui_info_onnx_json(const sc_onnx_report *r)
{
	json_t *types = json_object(), *unknown = json_array(), *dims = json_object();
	json_t *kinds = json_object(), *overhead = json_object(), *ceff = json_object(),
	       *meff = json_object();
	for (int i = 0; i < r->ntypes; i++)
		json_object_set_new(types, r->type_name[i], json_integer(r->type_count[i]));
	for (int i = 0; i < r->nunknown; i++)
		json_array_append_new(unknown, json_string(r->unknown[i]));
	for (int i = 0; i < r->ndims; i++)
		json_object_set_new(dims, r->dim_name[i], json_integer(r->dim_value[i]));
	json_t *underived = json_array();
	for (int i = 0; i < r->nunresolved; i++)
		json_array_append_new(underived,
		                      json_pack("{s:s, s:s}", "dim", r->unresolved_dim[i], "op",
		                                r->unresolved_op[i]));
	const sc_device *d = &r->device;
	for (int k = 0; k < SC_OPK_N; k++) {
		const char *kn = sc_op_kind_name((sc_op_kind)k);
		json_object_set_new(kinds, kn,
		                    json_integer(sc_onnx_report_kind_count(r, (sc_op_kind)k)));
		json_object_set_new(overhead, kn, json_real(d->overhead_us[k]));
		json_object_set_new(ceff, kn, json_real(d->compute_eff[k]));
		json_object_set_new(meff, kn, json_real(d->mem_eff[k]));
	}
	/* a profile's name and texts, and a model's input quoted in
	 * precision_why, may not be UTF-8: sc_json_text */
	return json_pack("{s:o, s:f, s:f, s:i, s:o, s:i, s:o, s:o, s:o, s:o, s:i, s:s, s:s, s:o, "
	                 "s:{s:f, s:f, s:f, s:f, s:o, s:o, s:o, s:o}}",
	                 "ops_by_type", types, "flops", r->flops, "param_bytes", r->param_bytes,
	                 "unknown_ops", r->nunknown, "unknown", unknown, "folded_ops", r->nfolded,
	                 "ops_by_kind", kinds, "device", sc_json_text(d->name), "dims", dims,
	                 "underived_dims", underived, "opset", r->opset, "time_unit",
	                 "microseconds", "precision", sc_precision_name(r->precision),
	                 "precision_why", sc_json_text(r->precision_why), "device_profile",
	                 "flops_per_s", d->peak[r->precision], "mem_bandwidth_bytes_per_s",
	                 d->mem_bandwidth, "memory_bytes", d->memory, "link_bandwidth_bytes_per_s",
	                 d->link_bandwidth, "overhead_us", overhead, "compute_eff", ceff, "mem_eff",
	                 meff, "calibration", sc_json_text(d->calibration));
}

void ui_info_onnx_print(const sc_onnx_report *r)
{
	char a[32], b[32];
	const sc_device *d = &r->device;
	ui_print_line("onnx           opset %d; time unit: microseconds", r->opset);
	ui_print_line("device         %s (%s)", d->name, d->description);
	char c[32], e[32];
	printf("               %s FLOP/s at %s, memory %s B/s, %s bytes, link %s B/s\n",
	       ui_num(d->peak[r->precision], a, sizeof a), sc_precision_name(r->precision),
	       ui_num(d->mem_bandwidth, b, sizeof b), ui_num(d->memory, c, sizeof c),
	       ui_num(d->link_bandwidth, e, sizeof e));
	ui_print_line("precision      %s, %d-byte floats (%s)", sc_precision_name(r->precision),
	              sc_precision_bytes(r->precision), r->precision_why);
	printf("op model       kind          overhead  of peak  of bandwidth  (%d ops)\n", r->nops);
	for (int k = 0; k < SC_OPK_N; k++)
		printf("               %-12s %6.2f us  %7.3f  %12.3f  (%d)\n",
		       sc_op_kind_name((sc_op_kind)k), d->overhead_us[k], d->compute_eff[k],
		       d->mem_eff[k], sc_onnx_report_kind_count(r, (sc_op_kind)k));
	if (d->strided_eff > 0 && d->strided_eff < 1)
		printf("               strided convolutions reach %.3f of their compute "
		       "efficiency\n",
		       d->strided_eff);
	if (d->cache > 0 && d->cache_bandwidth > 0)
		printf("               ops of at most %s bytes move them at %s B/s (the cache)\n",
		       ui_num(d->cache, a, sizeof a), ui_num(d->cache_bandwidth, b, sizeof b));
	ui_print_line("               %s", d->calibration);
	printf("flops          %s (2 per multiply-accumulate)\n", ui_num(r->flops, a, sizeof a));
	printf("initializers   %s bytes\n", ui_num(r->param_bytes, a, sizeof a));
	printf("dims          ");
	if (r->ndims == 0)
		printf(" none symbolic");
	for (int i = 0; i < r->ndims; i++) {
		printf(" %s=%lld", r->dim_name[i], r->dim_value[i]);
		if (r->dim_from && r->dim_from[i])
			printf(" (derived at %s)", r->dim_from[i]);
		else if (!r->dim_given[i])
			printf(" (default)");
	}
	printf("\n");
	if (r->nonce > 0) {
		printf("loops once    ");
		for (int i = 0; i < r->nonce; i++)
			printf(" %s%s", r->once[i], i + 1 < r->nonce ? "," : "");
		printf(" (trip count not a constant: one iteration costed)\n");
	}
	if (r->nunresolved > 0) {
		printf("underived dims");
		for (int i = 0; i < r->nunresolved; i++)
			printf(" %s (the output of %s)%s", r->unresolved_dim[i],
			       r->unresolved_op[i], i + 1 < r->nunresolved ? "," : "");
		printf("\n");
	}
	printf("ops by type   ");
	for (int i = 0; i < r->ntypes; i++)
		printf(" %s %d%s", r->type_name[i], r->type_count[i], i + 1 < r->ntypes ? "," : "");
	printf("\n");
	printf("folded         %d node%s computed once at load time (constants, identities of "
	       "weights, static shape arithmetic): not ops\n",
	       r->nfolded, r->nfolded == 1 ? "" : "s");
	printf("unknown cost   %d op%s%s", r->nunknown, r->nunknown == 1 ? "" : "s",
	       r->nunknown ? ":" : "");
	for (int i = 0; i < r->nunknown && i < 20; i++)
		printf(" %s", r->unknown[i]);
	printf("%s\n", r->nunknown > 20 ? " ..." : "");
}

/* ---- where the costs came from --------------------------------------------- */
