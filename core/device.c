/*
 * device.c - built-in device profiles and the profile file format.
 *
 * The numbers are the vendors' public datasheet figures (stagecut(1) quotes
 * them); FLOP/s are the dense 16-bit tensor figures (INT8 for the edge
 * devices, which have no FP16 figure), bytes are decimal (1 GB = 1e9 bytes).
 */
#define _POSIX_C_SOURCE 200809L
#include "device.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <strings.h>

#include "parse.h"

/* The calibration of the NVIDIA profiles (stagecut(1), DEVICE PROFILES):
 * fitted by `make bench` (perf/perf_cost.c --fit) on the H100 op times in
 * samples/h100/measured.json; the other GPUs take the same overheads and
 * efficiencies (fractions of their own peaks), measured on none of them. */
/* The kinds norm and concat came after that fit, and no run of the data
 * has a standalone normalization: norm takes elementwise's numbers and
 * concat copy's (the kinds they were part of), so the built-in profiles
 * predict every op as they did before them; `stagecut calibrate` fits
 * them to a device's own times. */
/* clang-format off */
#define GPU_OVERHEAD {7.55, 10.62, 6.452, 1.814, 2.658, 2.264, 0.676, 1.814, 2.264}
#define GPU_COMPUTE_EFF {0.426, 0.3237, 0.8226, 1, 1, 1, 1, 1, 1}
#define GPU_MEM_EFF {1, 0.2375, 0.8826, 0.89, 0.2675, 0.2938, 1, 0.89, 0.2938}
#define GPU_HALF_M {976, 0, 271.6, 0, 0, 0, 0, 0, 0}
#define GPU_HALF_N {34.5, 38.42, 172.8, 0, 0, 0, 0, 0, 0}
#define GPU_HALF_K {430, 10.65, 156.6, 0, 0, 0, 0, 0, 0}
/* clang-format on */
/* the fitted fields of a GPU profile, as designated initialisers */
#define GPU_FITTED                                                                                 \
	.overhead_us = GPU_OVERHEAD, .compute_eff = GPU_COMPUTE_EFF, .mem_eff = GPU_MEM_EFF,       \
	.half_m = GPU_HALF_M, .half_n = GPU_HALF_N, .half_k = GPU_HALF_K,                          \
	.strided_eff = GPU_STRIDED_EFF
#define GPU_STRIDED_EFF 0.594
/* the cache of a GPU with L2 bytes of L2 and memory bandwidth BW, by the
 * H100's fit (18.89 MB of its 50 MB at 5.456 TB/s, 1.629 times its 3.35
 * TB/s) */
#define GPU_CACHE(L2, BW) .cache = 0.3778 * (L2), .cache_bandwidth = 1.629 * (BW)
#define GPU_CALIBRATION                                                                            \
	"overheads and efficiencies fitted on 42 runs of op times measured on an H100 "            \
	"(samples/h100)"
#define GPU_WHY "tensor-core GPUs serve models in half precision (TensorRT, torch.autocast)"

static const sc_device builtins[] = {
        {.name = "a100",
         .description = "NVIDIA A100 SXM4 40GB: 19.5/156/312/312/-/624 TFLOP/s "
                        "FP32/TF32/FP16/BF16/FP8/INT8 dense, 1555 GB/s HBM2, 40 GB, 40 MB L2, "
                        "NVLink 600 GB/s",
         .calibration = GPU_CALIBRATION " (A100: the H100's efficiencies)",
         .peak = {19.5e12, 156e12, 312e12, 312e12, 0, 624e12},
         .mem_bandwidth = 1555e9,
         GPU_CACHE(40e6, 1555e9),
         .memory = 40e9,
         .link_bandwidth = 600e9,
         .default_precision = SC_PREC_FP16,
         .precision_why = GPU_WHY,
         GPU_FITTED},
        {.name = "h100",
         .description = "NVIDIA H100 SXM5 80GB: 67/495/989/989/1979/1979 TFLOP/s "
                        "FP32/TF32/FP16/BF16/FP8/INT8 dense, 3350 GB/s HBM3, 80 GB, 50 MB L2, "
                        "NVLink 900 GB/s",
         .calibration = GPU_CALIBRATION,
         .peak = {67e12, 494.7e12, 989.4e12, 989.4e12, 1978.9e12, 1978.9e12},
         .mem_bandwidth = 3350e9,
         GPU_CACHE(50e6, 3350e9),
         .memory = 80e9,
         .link_bandwidth = 900e9,
         .default_precision = SC_PREC_FP16,
         .precision_why = GPU_WHY,
         GPU_FITTED},
        {.name = "v100",
         .description = "NVIDIA V100 SXM2 32GB: 15.7 TFLOP/s FP32, 125 TFLOP/s FP16 "
                        "tensor (no TF32, BF16, FP8 or INT8 tensor rate), 900 GB/s HBM2, "
                        "32 GB, 6 MB L2, NVLink 300 GB/s",
         .calibration = GPU_CALIBRATION " (V100: the H100's efficiencies)",
         .peak = {15.7e12, 0, 125e12, 0, 0, 0},
         .mem_bandwidth = 900e9,
         GPU_CACHE(6e6, 900e9),
         .memory = 32e9,
         .link_bandwidth = 300e9,
         .default_precision = SC_PREC_FP16,
         .precision_why = GPU_WHY,
         GPU_FITTED},
        {.name = "jetson-orin",
         .description = "NVIDIA Jetson AGX Orin 64GB: 5.3 TFLOP/s FP32, 68.75 FP16/BF16 "
                        "(half the INT8 rate), 137.5 TOPS INT8 dense (275 sparse), "
                        "204.8 GB/s LPDDR5, 64 GB, 4 MB L2, 10 GbE 1.25 GB/s",
         .calibration = GPU_CALIBRATION " (Orin: the H100's efficiencies)",
         .peak = {5.3e12, 0, 68.75e12, 68.75e12, 0, 137.5e12},
         .mem_bandwidth = 204.8e9,
         GPU_CACHE(4e6, 204.8e9),
         .memory = 64e9,
         .link_bandwidth = 1.25e9,
         .default_precision = SC_PREC_INT8,
         .precision_why = "edge deployments on Orin run INT8 TensorRT engines, its "
                          "headline rate",
         GPU_FITTED},
        {.name = "coral-edgetpu",
         .description = "Google Coral USB Edge TPU: 4 TOPS INT8, 8 MB on-chip SRAM (the "
                        "parameter cache), USB 3.0 5 Gb/s (0.625 GB/s) as memory and link",
         .calibration = "a pure roofline (no measured times for it)",
         .peak = {0, 0, 0, 0, 0, 4e12},
         .mem_bandwidth = 0.625e9,
         .memory = 8e6,
         .link_bandwidth = 0.625e9,
         .default_precision = SC_PREC_INT8,
         .precision_why = "the Edge TPU runs INT8 models only",
         .overhead_us = {0, 0, 0, 0, 0, 0, 0, 0, 0},
         .compute_eff = {1, 1, 1, 1, 1, 1, 1, 1, 1},
         .mem_eff = {1, 1, 1, 1, 1, 1, 1, 1, 1}},
};
#define NBUILTINS (int)(sizeof builtins / sizeof builtins[0])

typedef struct unit {
	const char *name;
	double scale;
} unit;

static const unit rate_units[] = {
        {"FLOP/s", 1},     {"KFLOP/s", 1e3}, {"MFLOP/s", 1e6}, {"GFLOP/s", 1e9}, {"TFLOP/s", 1e12},
        {"PFLOP/s", 1e15}, {"OP/s", 1},      {"GOPS", 1e9},    {"TOPS", 1e12},   {NULL, 0},
};
static const unit bw_units[] = {
        {"B/s", 1},           {"KB/s", 1e3},           {"MB/s", 1e6},
        {"GB/s", 1e9},        {"TB/s", 1e12},          {"KiB/s", 1024.0},
        {"MiB/s", 1048576.0}, {"GiB/s", 1073741824.0}, {NULL, 0},
};
static const unit size_units[] = {
        {"B", 1},        {"KB", 1e3},        {"MB", 1e6},           {"GB", 1e9}, {"TB", 1e12},
        {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {NULL, 0},
};

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* "312 TFLOP/s" -> 312e12; false when the number or unit is wrong or the
 * number is not > 0 (>= 0 with zero_ok) */
static bool parse_quantity(const char *text, const unit *units, bool zero_ok, double *out)
{
	errno = 0;
	char *end;
	double x = strtod(text, &end);
	if (end == text || errno || !isfinite(x) || x < 0 || (x == 0 && !zero_ok))
		return false;
	/* decimal only: strtod also reads hexadecimal (0x10 would be 16) */
	for (const char *c = text; c < end; c++)
		if (*c == 'x' || *c == 'X')
			return false;
	while (isspace((unsigned char)*end))
		end++;
	for (const unit *u = units; u->name; u++)
		if (strcasecmp(end, u->name) == 0) {
			/* any case, but a byte is B: Gb/s is gigabits, not gigabytes */
			for (size_t i = 0; u->name[i]; i++)
				if (u->name[i] == 'B' && end[i] != 'B')
					return false;
			*out = x * u->scale;
			return isfinite(*out);
		}
	return false;
}

static const char *units_list(const unit *units, char *buf, size_t size)
{
	size_t at = 0;
	buf[0] = '\0';
	for (const unit *u = units; u->name && at < size; u++)
		at += (size_t)snprintf(buf + at, size - at, "%s%s", u == units ? "" : ", ",
		                       u->name);
	return buf;
}

static const unit time_units[] = {
        {"us", 1}, {"µs", 1}, {"ns", 1e-3}, {"ms", 1e3}, {"s", 1e6}, {NULL, 0},
};

static const char *const prec_names[SC_PREC_N] = {"fp32", "tf32", "fp16", "bf16", "fp8", "int8"};
static const int prec_bytes[SC_PREC_N] = {4, 4, 2, 2, 1, 1};
static const char *const kind_names[SC_OPK_N] = {"conv", "dwconv", "matmul", "elementwise", "pool",
                                                 "copy", "view",   "norm",   "concat"};

const char *sc_precision_name(sc_precision p)
{
	return (int)p >= 0 && p < SC_PREC_N ? prec_names[p] : "?";
}

bool sc_precision_parse(const char *text, sc_precision *out)
{
	for (int i = 0; i < SC_PREC_N; i++)
		if (strcasecmp(text, prec_names[i]) == 0) {
			*out = (sc_precision)i;
			return true;
		}
	return false;
}

int sc_precision_bytes(sc_precision p)
{
	return (int)p >= 0 && p < SC_PREC_N ? prec_bytes[p] : 4;
}

const char *sc_op_kind_name(sc_op_kind k)
{
	return (int)k >= 0 && k < SC_OPK_N ? kind_names[k] : "?";
}

/* a plain number in (0, 1] */
static bool parse_fraction(const char *text, double *out)
{
	double x;
	if (!sc_parse_weight(text, &x) || x <= 0 || x > 1)
		return false;
	*out = x;
	return true;
}

/* x into arr[kind], or into every kind's entry when kind < 0 */
static void set_kinds(double *arr, int kind, double x)
{
	for (int i = 0; i < SC_OPK_N; i++)
		if (kind < 0 || kind == i)
			arr[i] = x;
}

/* "overhead.conv" -> kind conv; "overhead" -> -1 (every kind); false when
 * the key is not base or base.KIND */
static bool kind_key(const char *key, const char *base, int *kind)
{
	size_t n = strlen(base);
	if (strncmp(key, base, n) != 0)
		return false;
	if (key[n] == '\0') {
		*kind = -1;
		return true;
	}
	if (key[n] != '.')
		return false;
	for (int i = 0; i < SC_OPK_N; i++)
		if (strcmp(key + n + 1, kind_names[i]) == 0) {
			*kind = i;
			return true;
		}
	return false;
}

#define KEYS_TEXT                                                                                  \
	"name, flops, flops.PRECISION, precision, mem_bandwidth, memory, link_bandwidth, "         \
	"overhead[.KIND], compute_eff[.KIND], mem_eff[.KIND], half_m|half_n|half_k[.KIND], "       \
	"strided_eff, cache, cache_bandwidth, calibration; "                                       \
	"PRECISION one of fp32, tf32, fp16, bf16, fp8, int8; KIND one of conv, dwconv, matmul, "   \
	"elementwise, pool, copy, view, norm, concat"

/* one "key = value" line into d; *all_flops collects the plain flops key */
static sc_status read_key(sc_device *d, const char *path, int lineno, const char *key,
                          const char *val, double *all_flops, sc_error *err)
{
	char ubuf[200];
	const unit *units = NULL;
	double *slot = NULL, x;
	int kind;
	if (strcmp(key, "name") == 0) {
		snprintf(d->name, sizeof d->name, "%s", val);
		return SC_OK;
	}
	if (strcmp(key, "calibration") == 0) {
		snprintf(d->calibration, sizeof d->calibration, "%s", val);
		return SC_OK;
	}
	if (strcmp(key, "precision") == 0) {
		sc_precision p;
		if (!sc_precision_parse(val, &p))
			return sc_error_set(err, SC_ERR_INPUT,
			                    "%s: line %d: precision: '%.40s' is not one of fp32, "
			                    "tf32, fp16, bf16, fp8, int8",
			                    path, lineno, val);
		d->default_precision = p;
		snprintf(d->precision_why, sizeof d->precision_why, "the profile says so");
		return SC_OK;
	}
	if (strcmp(key, "strided_eff") == 0) {
		if (!parse_fraction(val, &d->strided_eff))
			return sc_error_set(err, SC_ERR_INPUT,
			                    "%s: line %d: %s: '%.40s' is not a fraction in (0, 1]",
			                    path, lineno, key, val);
		return SC_OK;
	}
	if (kind_key(key, "compute_eff", &kind) || kind_key(key, "mem_eff", &kind)) {
		if (!parse_fraction(val, &x))
			return sc_error_set(err, SC_ERR_INPUT,
			                    "%s: line %d: %s: '%.40s' is not a fraction in (0, 1]",
			                    path, lineno, key, val);
		set_kinds(key[0] == 'c' ? d->compute_eff : d->mem_eff, kind, x);
		return SC_OK;
	}
	if (kind_key(key, "half_m", &kind) || kind_key(key, "half_n", &kind) ||
	    kind_key(key, "half_k", &kind)) {
		if (!sc_parse_weight(val, &x))
			return sc_error_set(err, SC_ERR_INPUT,
			                    "%s: line %d: %s: '%.40s' is not a number >= 0", path,
			                    lineno, key, val);
		set_kinds(key[5] == 'm'   ? d->half_m
		          : key[5] == 'n' ? d->half_n
		                          : d->half_k,
		          kind, x);
		return SC_OK;
	}
	if (kind_key(key, "overhead", &kind)) {
		if (!parse_quantity(val, time_units, true, &x))
			return sc_error_set(
			        err, SC_ERR_INPUT,
			        "%s: line %d: %s: '%.40s' is not a number >= 0 with a unit (%s)",
			        path, lineno, key, val, units_list(time_units, ubuf, sizeof ubuf));
		set_kinds(d->overhead_us, kind, x);
		return SC_OK;
	}
	if (strcmp(key, "flops") == 0) {
		units = rate_units, slot = all_flops;
	} else if (strncmp(key, "flops.", 6) == 0) {
		sc_precision p;
		if (!sc_precision_parse(key + 6, &p))
			return sc_error_set(err, SC_ERR_INPUT,
			                    "%s: line %d: unknown key '%.40s' (expected " KEYS_TEXT
			                    ")",
			                    path, lineno, key);
		units = rate_units, slot = &d->peak[p];
	} else if (strcmp(key, "mem_bandwidth") == 0) {
		units = bw_units, slot = &d->mem_bandwidth;
	} else if (strcmp(key, "memory") == 0) {
		units = size_units, slot = &d->memory;
	} else if (strcmp(key, "cache") == 0) {
		units = size_units, slot = &d->cache;
	} else if (strcmp(key, "cache_bandwidth") == 0) {
		units = bw_units, slot = &d->cache_bandwidth;
	} else if (strcmp(key, "link_bandwidth") == 0) {
		units = bw_units, slot = &d->link_bandwidth;
	} else {
		return sc_error_set(err, SC_ERR_INPUT,
		                    "%s: line %d: unknown key '%.40s' (expected " KEYS_TEXT ")",
		                    path, lineno, key);
	}
	if (!parse_quantity(val, units, false, slot))
		return sc_error_set(err, SC_ERR_INPUT,
		                    "%s: line %d: %s: '%.40s' is not a positive number with a "
		                    "unit (%s)",
		                    path, lineno, key, val, units_list(units, ubuf, sizeof ubuf));
	return SC_OK;
}

/* A profile file: a pure roofline (overhead 0, efficiencies 1) at fp32
 * unless it says otherwise; the plain `flops` key is the peak of every
 * precision the file gives no flops.PRECISION for. */
static sc_status read_file(const char *path, sc_device *d, sc_error *err)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return sc_error_set(
		        err, SC_ERR_IO,
		        "--device %s: not a built-in device (a100, h100, v100, "
		        "jetson-orin, coral-edgetpu) and cannot open it as a profile: %s",
		        path, strerror(errno));
	/* a profile is a short text file: a device, FIFO or huge file (read
	 * line by line, /dev/zero never ended) is refused */
	struct stat sb;
	if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size > (1 << 20)) {
		fclose(f);
		return sc_error_set(err, SC_ERR_INPUT,
		                    "--device %s: not a device profile (a regular text file of at "
		                    "most 1 MiB)",
		                    path);
	}
	memset(d, 0, sizeof *d);
	const char *base = strrchr(path, '/');
	snprintf(d->name, sizeof d->name, "%s", base ? base + 1 : path);
	snprintf(d->description, sizeof d->description, "profile %s", path);
	snprintf(d->calibration, sizeof d->calibration, "as the profile says");
	d->default_precision = SC_PREC_FP32;
	snprintf(d->precision_why, sizeof d->precision_why,
	         "a profile file's default: the element sizes of the model file");
	for (int i = 0; i < SC_OPK_N; i++)
		d->compute_eff[i] = d->mem_eff[i] = 1;
	double all_flops = 0;
	char line[512];
	int lineno = 0;
	sc_status st = SC_OK;
	while (st == SC_OK && fgets(line, sizeof line, f)) {
		lineno++;
		char *s = trim(line);
		if (!*s || *s == '#')
			continue;
		char *eq = strchr(s, '=');
		if (!eq) {
			st = sc_error_set(err, SC_ERR_INPUT,
			                  "%s: line %d: expected 'key = value', got '%.60s'", path,
			                  lineno, s);
			break;
		}
		*eq = '\0';
		st = read_key(d, path, lineno, trim(s), trim(eq + 1), &all_flops, err);
	}
	fclose(f);
	if (st != SC_OK)
		return st;
	bool any_peak = all_flops > 0;
	for (int i = 0; i < SC_PREC_N; i++) {
		if (d->peak[i] == 0)
			d->peak[i] = all_flops;
		any_peak |= d->peak[i] > 0;
	}
	const char *missing = !any_peak            ? "flops"
	                      : !d->mem_bandwidth  ? "mem_bandwidth"
	                      : !d->memory         ? "memory"
	                      : !d->link_bandwidth ? "link_bandwidth"
	                                           : NULL;
	if (missing)
		return sc_error_set(err, SC_ERR_INPUT, "%s: the profile does not say %s", path,
		                    missing);
	if (d->peak[d->default_precision] <= 0)
		return sc_error_set(
		        err, SC_ERR_INPUT, "%s: the profile's precision %s has no flops.%s", path,
		        prec_names[d->default_precision], prec_names[d->default_precision]);
	return SC_OK;
}

sc_status sc_device_precision(const sc_device *d, const char *asked, sc_precision *out,
                              sc_error *err)
{
	sc_precision p = d->default_precision;
	if (asked && !sc_precision_parse(asked, &p))
		return sc_error_set(err, SC_ERR_INPUT,
		                    "--precision '%.40s': expected fp32, tf32, fp16, bf16, fp8 or "
		                    "int8",
		                    asked);
	if (d->peak[p] <= 0) {
		char have[80];
		size_t at = 0;
		have[0] = '\0';
		for (int i = 0; i < SC_PREC_N; i++)
			if (d->peak[i] > 0)
				at += (size_t)snprintf(have + at, sizeof have - at, "%s%s",
				                       at ? ", " : "", prec_names[i]);
		return sc_error_set(err, SC_ERR_INPUT,
		                    "--precision %s: device %s has no %s rate (it has %s)",
		                    prec_names[p], d->name, prec_names[p], have);
	}
	*out = p;
	return SC_OK;
}

static double size_factor(double x, double half)
{
	return x > 0 && half > 0 ? x / (x + half) : 1;
}

double sc_device_op_time(const sc_device *d, sc_precision p, const sc_op_size *s)
{
	sc_op_kind k = s->kind;
	double eff = d->compute_eff[k] * size_factor(s->m, d->half_m[k]) *
	             size_factor(s->n, d->half_n[k]) * size_factor(s->k, d->half_k[k]);
	if (s->strided && d->strided_eff > 0)
		eff *= d->strided_eff;
	double compute = s->flops > 0 ? s->flops / (d->peak[p] * eff) : 0;
	double bw = s->bytes <= d->cache && d->cache_bandwidth > 0 ? d->cache_bandwidth
	                                                           : d->mem_bandwidth;
	double memory = s->bytes > 0 ? s->bytes / (bw * d->mem_eff[k]) : 0;
	return d->overhead_us[k] + fmax(compute, memory) * 1e6;
}

bool sc_device_builtin(const char *name)
{
	for (int i = 0; i < NBUILTINS; i++)
		if (strcasecmp(builtins[i].name, name) == 0)
			return true;
	return false;
}

sc_status sc_device_get(const char *name, sc_device *d, sc_error *err)
{
	if (!name)
		name = SC_DEVICE_DEFAULT;
	for (int i = 0; i < NBUILTINS; i++)
		if (strcasecmp(builtins[i].name, name) == 0) {
			*d = builtins[i];
			return SC_OK;
		}
	return read_file(name, d, err);
}

/* appends fmt's text to *buf at *at, growing it; false when out of memory */
static bool append(char **buf, size_t *at, size_t *cap, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

static bool append(char **buf, size_t *at, size_t *cap, const char *fmt, ...)
{
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(*buf ? *buf + *at : NULL, *buf ? *cap - *at : 0, fmt, ap);
		va_end(ap);
		if (n < 0)
			return false;
		if (*buf && *at + (size_t)n < *cap) {
			*at += (size_t)n;
			return true;
		}
		size_t cap2 = 2 * (*cap + (size_t)n + 256);
		char *b = realloc(*buf, cap2);
		if (!b)
			return false;
		*buf = b;
		*cap = cap2;
	}
}

sc_status sc_device_format(const sc_device *d, sc_precision p, char **text, size_t *len,
                           sc_error *err)
{
	char *b = NULL;
	size_t at = 0, cap = 0;
	/* a name or calibration holding a newline would end its line early */
	char name[sizeof d->name], cal[sizeof d->calibration];
	snprintf(name, sizeof name, "%s", d->name);
	snprintf(cal, sizeof cal, "%s", d->calibration);
	name[strcspn(name, "\r\n")] = cal[strcspn(cal, "\r\n")] = '\0';
	bool ok = append(&b, &at, &cap,
	                 "# a stagecut device profile (stagecut(1), DEVICE PROFILES)\n"
	                 "name = %s\ncalibration = %s\nprecision = %s\n",
	                 name, cal, prec_names[p]);
	for (int i = 0; ok && i < SC_PREC_N; i++)
		if (d->peak[i] > 0)
			ok = append(&b, &at, &cap, "flops.%s = %.17g FLOP/s\n", prec_names[i],
			            d->peak[i]);
	ok = ok && append(&b, &at, &cap,
	                  "mem_bandwidth = %.17g B/s\nmemory = %.17g B\nlink_bandwidth = %.17g "
	                  "B/s\n",
	                  d->mem_bandwidth, d->memory, d->link_bandwidth);
	if (ok && d->strided_eff > 0)
		ok = append(&b, &at, &cap, "strided_eff = %.17g\n", d->strided_eff);
	if (ok && d->cache > 0 && d->cache_bandwidth > 0)
		ok = append(&b, &at, &cap, "cache = %.17g B\ncache_bandwidth = %.17g B/s\n",
		            d->cache, d->cache_bandwidth);
	for (int k = 0; ok && k < SC_OPK_N; k++) {
		const char *kn = kind_names[k];
		ok = append(&b, &at, &cap,
		            "overhead.%s = %.17g us\ncompute_eff.%s = %.17g\nmem_eff.%s = %.17g\n"
		            "half_m.%s = %.17g\nhalf_n.%s = %.17g\nhalf_k.%s = %.17g\n",
		            kn, d->overhead_us[k], kn, d->compute_eff[k], kn, d->mem_eff[k], kn,
		            d->half_m[k], kn, d->half_n[k], kn, d->half_k[k]);
	}
	if (!ok) {
		free(b);
		return sc_error_set(err, SC_ERR_NOMEM, "out of memory");
	}
	*text = b;
	*len = at;
	return SC_OK;
}
