/*
 * test_calibrate.c - the fit of a device profile to measured op times
 * (core/calibrate.h) and the profile file it is written as
 * (sc_device_format).  Times made by a known device (the h100 profile with
 * every kind's numbers moved, two kinds a lot) are fitted from the h100
 * profile: the fitted device predicts them within a few percent and its
 * numbers are the known ones where the ops pin them down; a kind with no
 * samples keeps the base's numbers; bad samples leave the device alone; a
 * formatted profile reads back to the same op times.
 */
#define _XOPEN_SOURCE 700
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/calibrate.h"
#include "tests/support.h"

TestSuite(calibrate, .timeout = 60);

/* the h100 with its numbers moved: what the synthetic times come from */
static sc_device truth(void)
{
	sc_device d;
	sc_error err;
	cr_assert_eq(sc_device_get("h100", &d, &err), SC_OK);
	d.overhead_us[SC_OPK_NORM] = 5.0; /* h100: 1.814 us */
	d.mem_eff[SC_OPK_NORM] = 0.3;     /* h100: 0.89 */
	d.overhead_us[SC_OPK_CONCAT] = 4.0;
	d.mem_eff[SC_OPK_CONCAT] = 0.6;
	d.overhead_us[SC_OPK_ELEMENTWISE] = 3.0;
	d.compute_eff[SC_OPK_CONV] = 0.3;
	d.overhead_us[SC_OPK_CONV] = 12.0;
	d.mem_eff[SC_OPK_POOL] = 0.5;
	return d;
}

/* n samples of kind k, sizes spread over several decades, timed by d */
static int make_samples(ts_rng *r, const sc_device *d, sc_op_kind k, int n, sc_calib_sample *s)
{
	for (int i = 0; i < n; i++) {
		double bytes = pow(10, 3 + 6 * ts_uniform(r));
		sc_op_size z = {.kind = k, .bytes = bytes, .flops = bytes * (0.5 + ts_uniform(r))};
		if (k == SC_OPK_CONV) {
			z.m = pow(2, 4 + 10 * ts_uniform(r));
			z.n = pow(2, 4 + 6 * ts_uniform(r));
			z.k = pow(2, 5 + 7 * ts_uniform(r));
			z.flops = 2 * z.m * z.n * z.k;
			z.bytes = 2 * (z.m * z.k + z.n * z.k + z.m * z.n);
		}
		s[i] = (sc_calib_sample){z, SC_PREC_FP16, sc_device_op_time(d, SC_PREC_FP16, &z)};
	}
	return n;
}

static sc_calib_sample *synthetic(const sc_device *d, int *n)
{
	static const sc_op_kind kinds[] = {SC_OPK_CONV, SC_OPK_ELEMENTWISE, SC_OPK_POOL,
	                                   SC_OPK_NORM, SC_OPK_CONCAT};
	sc_calib_sample *s = malloc(5 * 300 * sizeof *s);
	cr_assert(s);
	ts_rng r = {42};
	*n = 0;
	for (int i = 0; i < 5; i++)
		*n += make_samples(&r, d, kinds[i], 300, s + *n);
	return s;
}

Test(calibrate, recovers_the_device_that_made_the_times)
{
	sc_device t = truth(), d;
	sc_error err;
	cr_assert_eq(sc_device_get("h100", &d, &err), SC_OK);
	int n;
	sc_calib_sample *s = synthetic(&t, &n);
	sc_calib_result res;
	cr_assert_eq(sc_calibrate_fit(&d, s, n, NULL, &res, &err), SC_OK, "%s", err.msg);
	cr_assert_eq(res.ops, n);
	cr_assert_eq(res.kind_ops[SC_OPK_NORM], 300);
	/* the h100's numbers are far from the truth's for norm and concat ... */
	cr_assert_gt(res.loss_before, 0.2, "before: %g", res.loss_before);
	cr_assert(fabs(log(res.before[SC_OPK_NORM].worst)) > log(2));
	/* ... and the fit predicts every kind's ops within a few percent */
	cr_assert_lt(res.loss_after, 0.02, "after: %g", res.loss_after);
	for (int k = 0; k < SC_OPK_N; k++) {
		if (res.kind_ops[k] == 0)
			continue;
		cr_assert(fabs(log(res.after[k].median)) < 0.02, "%s: median %g",
		          sc_op_kind_name((sc_op_kind)k), res.after[k].median);
		cr_assert(fabs(log(res.after[k].worst)) < 0.15, "%s: worst %g",
		          sc_op_kind_name((sc_op_kind)k), res.after[k].worst);
	}
	/* the numbers the small and the large ops pin down are the truth's */
	cr_assert(ts_close_rel(d.overhead_us[SC_OPK_NORM], 5.0, 0.1), "%g",
	          d.overhead_us[SC_OPK_NORM]);
	cr_assert(ts_close_rel(d.mem_eff[SC_OPK_NORM], 0.3, 0.1), "%g", d.mem_eff[SC_OPK_NORM]);
	cr_assert(ts_close_rel(d.overhead_us[SC_OPK_CONCAT], 4.0, 0.1), "%g",
	          d.overhead_us[SC_OPK_CONCAT]);
	cr_assert(ts_close_rel(d.mem_eff[SC_OPK_CONCAT], 0.6, 0.1), "%g", d.mem_eff[SC_OPK_CONCAT]);
	/* the kinds with no samples keep the h100's numbers exactly */
	sc_device h;
	cr_assert_eq(sc_device_get("h100", &h, &err), SC_OK);
	for (int k = 0; k < SC_OPK_N; k++)
		if (res.kind_ops[k] == 0) {
			cr_assert_eq(d.overhead_us[k], h.overhead_us[k]);
			cr_assert_eq(d.compute_eff[k], h.compute_eff[k]);
			cr_assert_eq(d.mem_eff[k], h.mem_eff[k]);
			cr_assert_eq(d.half_m[k], h.half_m[k]);
		}
	free(s);
}

Test(calibrate, fits_a_pure_roofline_too)
{
	/* from a profile with no overheads, efficiencies 1 and no cache */
	sc_device t = truth(), d;
	sc_error err;
	cr_assert_eq(sc_device_get("h100", &d, &err), SC_OK);
	for (int k = 0; k < SC_OPK_N; k++) {
		d.overhead_us[k] = 0;
		d.compute_eff[k] = d.mem_eff[k] = 1;
		d.half_m[k] = d.half_n[k] = d.half_k[k] = 0;
	}
	d.cache = d.cache_bandwidth = 0;
	d.strided_eff = 0;
	int n;
	sc_calib_sample *s = synthetic(&t, &n);
	sc_calib_result res;
	cr_assert_eq(sc_calibrate_fit(&d, s, n, NULL, &res, &err), SC_OK, "%s", err.msg);
	cr_assert_gt(res.loss_before, 0.5, "before: %g", res.loss_before);
	cr_assert_lt(res.loss_after, 0.1, "after: %g", res.loss_after);
	cr_assert(ts_close_rel(d.overhead_us[SC_OPK_NORM], 5.0, 0.15), "%g",
	          d.overhead_us[SC_OPK_NORM]);
	free(s);
}

Test(calibrate, bad_samples_leave_the_device_alone)
{
	sc_device d, h;
	sc_error err;
	cr_assert_eq(sc_device_get("h100", &d, &err), SC_OK);
	h = d;
	sc_calib_sample s[2] = {
	        {{.kind = SC_OPK_NORM, .bytes = 1e6}, SC_PREC_FP16, 10},
	        {{.kind = SC_OPK_NORM, .bytes = 1e6}, SC_PREC_FP16, 0},
	};
	sc_calib_result res;
	cr_assert_eq(sc_calibrate_fit(&d, s, 2, NULL, &res, &err), SC_ERR_INPUT);
	cr_assert(strstr(err.msg, "op 2"), "%s", err.msg);
	cr_assert_eq(memcmp(&d, &h, sizeof d), 0);
	/* a precision the device has no rate for */
	cr_assert_eq(sc_device_get("v100", &d, &err), SC_OK);
	s[1].measured = 5;
	s[1].prec = SC_PREC_FP8;
	cr_assert_eq(sc_calibrate_fit(&d, s, 2, NULL, &res, &err), SC_ERR_INPUT);
	cr_assert(strstr(err.msg, "fp8"), "%s", err.msg);
}

Test(calibrate, a_formatted_profile_reads_back_to_the_same_times)
{
	sc_device t = truth(), d;
	sc_error err;
	cr_assert_eq(sc_device_get("h100", &d, &err), SC_OK);
	int n;
	sc_calib_sample *s = synthetic(&t, &n);
	sc_calib_result res;
	cr_assert_eq(sc_calibrate_fit(&d, s, n, NULL, &res, &err), SC_OK);
	snprintf(d.calibration, sizeof d.calibration, "a test's fit");
	char *text;
	size_t len;
	cr_assert_eq(sc_device_format(&d, SC_PREC_BF16, &text, &len, &err), SC_OK);
	char dir[64], path[128];
	ts_make_dir(dir, "sc-calib");
	snprintf(path, sizeof path, "%s/fit.profile", dir);
	FILE *f = fopen(path, "w");
	cr_assert(f);
	fwrite(text, 1, len, f);
	fclose(f);
	free(text);
	sc_device back;
	cr_assert_eq(sc_device_get(path, &back, &err), SC_OK, "%s", err.msg);
	ts_remove_dir(dir);
	cr_assert_eq(back.default_precision, SC_PREC_BF16);
	cr_assert_str_eq(back.calibration, "a test's fit");
	for (int p = 0; p < SC_PREC_N; p++)
		cr_assert_eq(back.peak[p], d.peak[p]);
	for (int i = 0; i < n; i++)
		cr_assert_eq(sc_device_op_time(&back, SC_PREC_FP16, &s[i].size),
		             sc_device_op_time(&d, SC_PREC_FP16, &s[i].size), "op %d", i);
	free(s);
}
