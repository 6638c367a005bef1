/*
 * cli_test.h - what the CLI tests share: the headers they use and the
 * sample files they name.  Include it first (it sets _XOPEN_SOURCE for
 * realpath and the POSIX 2008 calls).
 */
#ifndef SC_CLI_TEST_H
#define SC_CLI_TEST_H

#define _XOPEN_SOURCE 700 /* POSIX 2008 and realpath */
#include <criterion/criterion.h>
#include <ctype.h>
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/graph.h"
#include "tests/support.h"

#define FIGURE2 "samples/paper/figure2.dot"
#define RESIDUAL "samples/small/residual.dot"
#define LEMMA_B2 "samples/paper/lemma_b2.dot"
#define FIDDLE "samples/msr-fiddle/"
#define RESNET_OP FIDDLE "operator/resnet50_inference.json"
#define BERT3_OP FIDDLE "operator/bert_l-3_inference.json"
#define MAN_PAGE "man/stagecut.1"

#endif
