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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const sc_device builtins[] = {
        {.name = "a100",
         .description = "NVIDIA A100 SXM4 40GB: 312 TFLOP/s FP16 dense, 1555 GB/s HBM2, "
                        "40 GB, NVLink 600 GB/s",
         .flops = 312e12,
         .mem_bandwidth = 1555e9,
         .memory = 40e9,
         .link_bandwidth = 600e9},
        {.name = "h100",
         .description = "NVIDIA H100 SXM5 80GB: 989 TFLOP/s FP16 dense, 3350 GB/s HBM3, "
                        "80 GB, NVLink 900 GB/s",
         .flops = 989e12,
         .mem_bandwidth = 3350e9,
         .memory = 80e9,
         .link_bandwidth = 900e9},
        {.name = "v100",
         .description = "NVIDIA V100 SXM2 32GB: 125 TFLOP/s FP16 tensor, 900 GB/s HBM2, "
                        "32 GB, NVLink 300 GB/s",
         .flops = 125e12,
         .mem_bandwidth = 900e9,
         .memory = 32e9,
         .link_bandwidth = 300e9},
        {.name = "jetson-orin",
         .description = "NVIDIA Jetson AGX Orin 64GB: 275 TOPS INT8 sparse (137.5 dense), "
                        "204.8 GB/s LPDDR5, 64 GB, 10 GbE 1.25 GB/s",
         .flops = 137.5e12,
         .mem_bandwidth = 204.8e9,
         .memory = 64e9,
         .link_bandwidth = 1.25e9},
        {.name = "coral-edgetpu",
         .description = "Google Coral USB Edge TPU: 4 TOPS INT8, 8 MB on-chip SRAM (the "
                        "parameter cache), USB 3.0 5 Gb/s (0.625 GB/s) as memory and link",
         .flops = 4e12,
         .mem_bandwidth = 0.625e9,
         .memory = 8e6,
         .link_bandwidth = 0.625e9},
};
#define NBUILTINS (int)(sizeof builtins / sizeof builtins[0])

const sc_device *sc_device_builtins(int *n)
{
	*n = NBUILTINS;
	return builtins;
}

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

/* "312 TFLOP/s" -> 312e12; false when the number or unit is wrong */
static bool parse_quantity(const char *text, const unit *units, double *out)
{
	errno = 0;
	char *end;
	double x = strtod(text, &end);
	if (end == text || errno || !isfinite(x) || x <= 0)
		return false;
	while (isspace((unsigned char)*end))
		end++;
	for (const unit *u = units; u->name; u++)
		if (strcasecmp(end, u->name) == 0) {
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

static sc_status read_file(const char *path, sc_device *d, sc_error *err)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return sc_error_set(
		        err, SC_ERR_IO,
		        "--device %s: not a built-in device (a100, h100, v100, "
		        "jetson-orin, coral-edgetpu) and cannot open it as a profile: %s",
		        path, strerror(errno));
	memset(d, 0, sizeof *d);
	const char *base = strrchr(path, '/');
	snprintf(d->name, sizeof d->name, "%s", base ? base + 1 : path);
	snprintf(d->description, sizeof d->description, "profile %s", path);
	char line[512], ubuf[200];
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
		char *key = trim(s), *val = trim(eq + 1);
		const unit *units = NULL;
		double *slot = NULL;
		if (strcmp(key, "name") == 0) {
			snprintf(d->name, sizeof d->name, "%s", val);
			continue;
		} else if (strcmp(key, "flops") == 0) {
			units = rate_units, slot = &d->flops;
		} else if (strcmp(key, "mem_bandwidth") == 0) {
			units = bw_units, slot = &d->mem_bandwidth;
		} else if (strcmp(key, "memory") == 0) {
			units = size_units, slot = &d->memory;
		} else if (strcmp(key, "link_bandwidth") == 0) {
			units = bw_units, slot = &d->link_bandwidth;
		} else {
			st = sc_error_set(err, SC_ERR_INPUT,
			                  "%s: line %d: unknown key '%.40s' (expected name, flops, "
			                  "mem_bandwidth, memory, link_bandwidth)",
			                  path, lineno, key);
			break;
		}
		if (!parse_quantity(val, units, slot))
			st = sc_error_set(
			        err, SC_ERR_INPUT,
			        "%s: line %d: %s: '%.40s' is not a positive number with a "
			        "unit (%s)",
			        path, lineno, key, val, units_list(units, ubuf, sizeof ubuf));
	}
	fclose(f);
	if (st != SC_OK)
		return st;
	const char *missing = !d->flops            ? "flops"
	                      : !d->mem_bandwidth  ? "mem_bandwidth"
	                      : !d->memory         ? "memory"
	                      : !d->link_bandwidth ? "link_bandwidth"
	                                           : NULL;
	if (missing)
		return sc_error_set(err, SC_ERR_INPUT, "%s: the profile does not say %s", path,
		                    missing);
	return SC_OK;
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
