/*
 * test_export_torch.c - the exports run right in torch: scripts/
 * check_export_torch.py builds the stages of `export --format deepspeed`
 * over the torchvision models the ONNX samples were exported from
 * (resnet50 and inception_v3 at every depth, random seeded weights and
 * BatchNorm statistics, eval mode) and compares their output with the
 * model's, and checks that every name either format writes is a module.
 * Skipped, saying why, when /usr/bin/python3 cannot import torch and
 * torchvision (Debian's python3-torch and python3-torchvision).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support.h"

Test(export_torch, deepspeed_stages_compute_the_model, .timeout = 300)
{
	char *out = NULL, *err = NULL;
	if (ts_run("/usr/bin/python3 -c 'import torch, torchvision' 2>&1", &out, &err) != 0) {
		free(out);
		free(err);
		cr_skip_test("/usr/bin/python3 cannot import torch and torchvision "
		             "(apt-get install python3-torch python3-torchvision)");
	}
	free(out);
	free(err);
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "/usr/bin/python3 scripts/check_export_torch.py %s",
	         ts_program());
	int st = ts_run(cmd, &out, &err);
	cr_assert_eq(st, 0, "check_export_torch.py exits %d:\n%s%s", st, out, err);
	/* it checked every case it lists */
	int cases = 0;
	for (const char *p = out; (p = strstr(p, "; max difference ")); p++)
		cases++;
	cr_assert_eq(cases, 7, "%s", out);
	free(out);
	free(err);
}
