/*
 * fuzz_devices.c - libFuzzer harness for devices files (sc_devices_read in
 * core/formats/devices_file.c, jansson).  The input is a file named .json
 * beside a file "t.csv" (so that a "times" naming it reads).  A file that
 * reads makes a fleet a --devices SPEC could make: 1 to SC_KINDS_MAX
 * kinds, each named once with a name a SPEC takes, counts 1 to 4096, own
 * memory and link 0 or finite > 0; every path and refusal list ends within
 * its buffer.  A file that does not read leaves a one-line message.
 */
#define _GNU_SOURCE
#include "tests/fuzz/fuzz_common.h"

#include "core/formats/devices_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[PATH_MAX];
	if (!path[0]) {
		char csv[PATH_MAX];
		fuzz_path("t.csv", csv, sizeof csv);
		fuzz_write(csv, "name,us\na,1\n", 12);
		fuzz_path("input.json", path, sizeof path);
	}
	fuzz_write(path, data, size);
	static sc_fleet f;
	static sc_devices_file files;
	sc_error err;
	sc_error_clear(&err);
	if (sc_devices_read(path, &f, &files, &err) != SC_OK) {
		FUZZ_CHECK(err.msg[0] != '\0' && strchr(err.msg, '\n') == NULL);
		return 0;
	}
	FUZZ_CHECK(f.n >= 1 && f.n <= SC_KINDS_MAX);
	for (int d = 0; d < f.n; d++) {
		const sc_kind *k = &f.kind[d];
		FUZZ_CHECK(sc_kind_name_ok(k->name, strlen(k->name)));
		FUZZ_CHECK(sc_fleet_find(&f, k->name) == d);
		FUZZ_CHECK(k->count >= 1 && k->count <= 4096);
		FUZZ_CHECK(k->own_memory == 0 || (isfinite(k->own_memory) && k->own_memory > 0));
		FUZZ_CHECK(k->own_bandwidth == 0 ||
		           (isfinite(k->own_bandwidth) && k->own_bandwidth > 0));
		FUZZ_CHECK(memchr(files.profile[d], 0, SC_DEVICES_PATH) != NULL);
		FUZZ_CHECK(memchr(files.times[d], 0, SC_DEVICES_PATH) != NULL);
		size_t at = 0;
		while (at < SC_DEVICES_REFUSE && files.refuse[d][at])
			at += strnlen(files.refuse[d] + at, SC_DEVICES_REFUSE - at) + 1;
		FUZZ_CHECK(at < SC_DEVICES_REFUSE);
		FUZZ_CHECK(!k->cpu || (!files.profile[d][0] && !files.times[d][0]));
	}
	return 0;
}
