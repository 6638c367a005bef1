/*
 * test_devices_file.c - devices files (core/formats/devices_file.h): a good
 * file read into the fleet a --devices SPEC of the same names and counts
 * makes, with each kind's memory, link, profile and times (paths made
 * relative to the file's directory); sc_fleet_resolve putting a file's
 * memory and link over the settings'; what counts as a file rather than a
 * SPEC; and bad files, each refused with one message naming the file and
 * what is wrong.
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/formats/devices_file.h"
#include "core/formats/load.h"
#include "core/graph.h"
#include "tests/support.h"

static char dir[64];

static void make_scratch(void)
{
	ts_make_dir(dir, "sc-devfile");
}

static void remove_scratch(void)
{
	ts_remove_dir(dir);
}

TestSuite(devices_file, .init = make_scratch, .fini = remove_scratch);

/* the path of name in the scratch directory, holding text */
static const char *scratch(const char *name, const char *text)
{
	static char path[4][160];
	static int next;
	char *p = path[next++ % 4];
	snprintf(p, sizeof path[0], "%s/%s", dir, name);
	FILE *f = fopen(p, "wb");
	cr_assert_not_null(f, "cannot write %s", p);
	fputs(text, f);
	fclose(f);
	return p;
}

Test(devices_file, a_good_file_is_the_spec_and_more)
{
	scratch("prof.csv", "name,us\na,1\n");
	const char *path = scratch(
	        "dev.json", "{\"format\": \"stagecut-devices/1\", \"devices\": [\n"
	                    "  {\"name\": \"h100\", \"count\": 2, \"profile\": \"h100\", "
	                    "\"times\": \"prof.csv\",\n"
	                    "   \"memory\": 80e9, \"bandwidth\": 5e10},\n"
	                    "  {\"name\": \"mine\", \"count\": 1, \"profile\": \"prof.csv\",\n"
	                    "   \"refuse\": [\"Conv\", \"/fc/Gemm\"]},\n"
	                    "  {\"name\": \"cpu\", \"count\": 1.0}]}\n");
	sc_fleet f, spec;
	sc_devices_file files;
	sc_error err;
	cr_assert_eq(sc_devices_read(path, &f, &files, &err), SC_OK, "%s", err.msg);
	cr_assert(sc_fleet_parse("h100:2,mine:1,cpu:1", &spec, &err), "%s", err.msg);
	cr_assert_eq(f.n, spec.n);
	for (int d = 0; d < f.n; d++) {
		cr_assert_str_eq(f.kind[d].name, spec.kind[d].name);
		cr_assert_eq(f.kind[d].count, spec.kind[d].count);
		cr_assert_eq(f.kind[d].cpu, spec.kind[d].cpu);
	}
	cr_assert_eq(f.kind[0].own_memory, 80e9);
	cr_assert_eq(f.kind[0].own_bandwidth, 5e10);
	cr_assert_eq(f.kind[1].own_memory, 0);
	cr_assert_eq(f.kind[2].own_bandwidth, 0);
	/* a built-in device stays a name; files are beside the devices file */
	char want[256];
	cr_assert_str_eq(files.profile[0], "h100");
	snprintf(want, sizeof want, "%s/prof.csv", dir);
	cr_assert_str_eq(files.times[0], want);
	cr_assert_str_eq(files.profile[1], want);
	cr_assert_str_eq(files.times[1], "");
	cr_assert_str_eq(files.profile[2], "");
	/* the refused ops one after the other, an empty string at the end */
	cr_assert_eq(memcmp(files.refuse[1], "Conv\0/fc/Gemm\0\0", 16), 0);
	cr_assert_eq(files.refuse[0][0], '\0');
}

/* A file's memory and link stand over the settings' (and a CPU keeps its
 * unlimited memory); a kind the file says nothing of keeps the settings'. */
Test(devices_file, resolve_takes_the_files_memory_and_link)
{
	const char *path =
	        scratch("dev.json", "{\"format\": \"stagecut-devices/1\", \"devices\": [\n"
	                            "  {\"name\": \"accel\", \"count\": 1, \"memory\": 100, "
	                            "\"bandwidth\": 4},\n"
	                            "  {\"name\": \"b\", \"count\": 1}]}\n");
	sc_fleet f, r;
	sc_devices_file files;
	sc_error err;
	cr_assert_eq(sc_devices_read(path, &f, &files, &err), SC_OK, "%s", err.msg);
	const char *dot = scratch("g.dot", "digraph g { a [work=1, work_b=2]; }\n");
	sc_graph *g = sc_load(dot, &err);
	cr_assert_not_null(g, "%s", err.msg);
	sc_settings set = g->settings;
	set.bandwidth = 3;
	set.memory = 50;
	set.fleet = &f;
	cr_assert(sc_fleet_resolve(g, &set, &r, &err), "%s", err.msg);
	cr_assert_eq(r.kind[0].memory, 100);
	cr_assert_eq(r.kind[0].bandwidth, 4);
	cr_assert_eq(r.kind[1].memory, 50);
	cr_assert_eq(r.kind[1].bandwidth, 3);
	sc_graph_free(g);
}

Test(devices_file, a_file_or_a_spec)
{
	cr_assert_not(sc_devices_is_file("h100:2,a100:2"));
	cr_assert(sc_devices_is_file("fleet.json"));
	cr_assert(sc_devices_is_file("conf/fleet"));
	const char *path = scratch("fleet", "{}");
	cr_assert(sc_devices_is_file(path));
}

/* Each bad file: SC_ERR_INPUT, one line naming the file and the fault. */
Test(devices_file, bad_files_are_named)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
	        {"[1, 2]", "not a devices file"},
	        {"{\"format\": \"x\", \"devices\": []}", "not a devices file"},
	        {"{\"format\": \"stagecut-devices/1\"}", "\"devices\" must be a non-empty list"},
	        {"{\"format\": \"stagecut-devices/1\", \"devices\": [3]}",
	         "device 1 is not a JSON object"},
	        {"{\"format\": \"stagecut-devices/1\", \"devices\": [{\"name\": \"a b\", "
	         "\"count\": 1}]}",
	         "device 1: \"name\" must be a device name"},
	        {"{\"format\": \"stagecut-devices/1\", \"devices\": [{\"name\": \"a\", "
	         "\"count\": 4097}]}",
	         "device 'a': \"count\" must be a whole number from 1 to 4096"},
	        {"{\"format\": \"stagecut-devices/1\", \"devices\": [{\"name\": \"a\", "
	         "\"count\": 1, \"memory\": 0}]}",
	         "device 'a': \"memory\" must be a number > 0"},
	        {"{\"format\": \"stagecut-devices/1\", \"devices\": [{\"name\": \"a\", "
	         "\"count\": 1, \"times\": 3}]}",
	         "device 'a': \"times\" must be a non-empty string"},
	        {"{\"format\": \"stagecut-devices/1\", \"devices\": [{\"name\": \"a\", "
	         "\"count\": 1, \"profile\": \"gone.json\"}]}",
	         "device 'a': \"profile\": cannot read"},
	        {"{\"format\": \"stagecut-devices/1\", \"devices\": [{\"name\": \"cpu\", "
	         "\"count\": 1, \"profile\": \"h100\"}]}",
	         "device 'cpu': its op times are the graph file's"},
	        {"{\"format\": \"stagecut-devices/1\", \"devices\": [{\"name\": \"a\", "
	         "\"count\": 1, \"ops\": []}]}",
	         "device 1: unknown key \"ops\""},
	        {"{\"format\": \"stagecut-devices/1\", \"devices\": [{\"name\": \"a\", "
	         "\"count\": 1, \"refuse\": [\"x\", \"\"]}]}",
	         "device 'a': \"refuse\" entry 2 is not a non-empty string"},
	        {"{\"format\": \"stagecut-devices/1\", \"devices\": [{\"name\": \"a\", \"count\": "
	         "1}, {\"name\": \"b\", \"count\": 1}, {\"name\": \"c\", \"count\": 1}, {\"name\": "
	         "\"d\", \"count\": 1}, {\"name\": \"e\", \"count\": 1}, {\"name\": \"f\", "
	         "\"count\": 1}, {\"name\": \"g\", \"count\": 1}, {\"name\": \"h\", \"count\": "
	         "1}, {\"name\": \"i\", \"count\": 1}]}",
	         "more than 8 kinds of device"},
	        {"{\"format\": \"stagecut-devices/1\", \"devices\": [{\"name\": \"a\", "
	         "\"count\": 1}]",
	         "malformed JSON"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		const char *path = scratch("bad.json", bad[i].text);
		sc_fleet f;
		sc_devices_file files;
		sc_error err;
		sc_error_clear(&err);
		cr_assert_eq(sc_devices_read(path, &f, &files, &err), SC_ERR_INPUT, "%zu", i);
		cr_assert(strstr(err.msg, bad[i].want), "%zu: %s", i, err.msg);
		cr_assert(strstr(err.msg, path), "%zu: %s", i, err.msg);
		cr_assert_null(strchr(err.msg, '\n'), "%zu: %s", i, err.msg);
	}
	sc_fleet f;
	sc_devices_file files;
	sc_error err;
	char gone[128];
	snprintf(gone, sizeof gone, "%s/none.json", dir);
	cr_assert_eq(sc_devices_read(gone, &f, &files, &err), SC_ERR_IO);
	cr_assert(strstr(err.msg, gone), "%s", err.msg);
}
