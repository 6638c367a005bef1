# stagecut - build, test, install.  See README.md.
#
#   make run      install missing packages, build, open the workbench on a sample
#   make test     install missing packages, build, run every test
#   make bench    benchmarks in perf/ (figures quoted in the issues); make perf is the same
#   make coverage line coverage of the unit and CLI tests (lcov)
#   make fuzz     fuzz every input parser for FUZZ_TIME seconds each (60)
#   make install  PREFIX=/usr/local DESTDIR=

VERSION  := 0.1.0
PREFIX   ?= /usr/local
DESTDIR  ?=
BINDIR   := $(PREFIX)/bin
MANDIR   := $(PREFIX)/share/man/man1
DATADIR  := $(PREFIX)/share/stagecut

CC       ?= cc
PKGS     := libcgraph libgvc jansson cbc libprotobuf-c cairo
TUIPKGS  := ncursesw
CFLAGS   ?= -O2 -g
CFLAGS   += -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes
# a sanitizer build sets SANITIZE (see asan-test); empty otherwise
SANITIZE ?=
CFLAGS   += $(SANITIZE)
CPPFLAGS += -I. -DSC_VERSION='"$(VERSION)"' -DSC_DATADIR='"$(DATADIR)"'
PKGCFLAGS = $(shell pkg-config --cflags $(PKGS))
PKGLIBS   = $(shell pkg-config --libs $(PKGS) $(TUIPKGS)) -lm
TESTLIBS  = $(shell pkg-config --libs criterion)

BUILD    := build
CORE_SRC    := $(wildcard core/*.c core/formats/*.c)
SOLVERS_SRC := $(wildcard solvers/*.c)
VIZ_SRC     := $(wildcard viz/*.c)
TUI_SRC     := $(filter-out tui/main.c,$(wildcard tui/*.c tui/*/*.c))
LIB_SRC     := $(CORE_SRC) $(SOLVERS_SRC) $(VIZ_SRC) $(TUI_SRC)
# ONNX's schema, compiled with protoc-c at build time into $(BUILD)/gen
# (Debian's libonnx-dev ships the .proto; nothing generated is in the repo)
ONNX_PROTO  := /usr/include/onnx/onnx.proto
ONNX_GEN    := gen/onnx/onnx.pb-c
LIB_OBJ     := $(LIB_SRC:%.c=$(BUILD)/%.o) $(BUILD)/$(ONNX_GEN).o
UNIT_SRC    := $(wildcard tests/unit/*.c)
UNIT_OBJ    := $(UNIT_SRC:%.c=$(BUILD)/%.o)
CLI_SRC     := $(wildcard tests/cli/*.c)
CLI_OBJ     := $(CLI_SRC:%.c=$(BUILD)/%.o)
TUI_TEST_SRC := $(wildcard tests/tui/*.c)
TUI_TEST_OBJ := $(TUI_TEST_SRC:%.c=$(BUILD)/%.o)
SUPPORT_OBJ  := $(BUILD)/tests/support.o $(BUILD)/tests/support_cli.o $(BUILD)/tests/support_mip.o \
                $(BUILD)/tests/support_tmux.o $(BUILD)/tests/support_cpus.o $(BUILD)/tests/support_kinds.o \
                $(BUILD)/tests/support_json_keys.o

.PHONY: all deps run test unit-test cli-test tui-test asan-build asan-test valgrind-test coverage bench perf install \
        uninstall clean format format-check house-test

all: stagecut

deps:
	@./scripts/deps.sh

stagecut: $(BUILD)/tui/main.o $(BUILD)/libstagecut.a
	$(CC) $(CFLAGS) -o $@ $^ $(PKGLIBS)

# the program as built in $(BUILD): under the sanitizers, build-asan/stagecut
$(BUILD)/stagecut: $(BUILD)/tui/main.o $(BUILD)/libstagecut.a
	$(CC) $(CFLAGS) -o $@ $^ $(PKGLIBS)

$(BUILD)/libstagecut.a: $(LIB_OBJ)
	@rm -f $@
	@echo "  AR      $@"
	@ar rcs $@ $^

# one rule for every build directory (build, build-asan, the fuzz builds);
# the generated files are kept (make would delete them as intermediates)
.PRECIOUS: %/$(ONNX_GEN).c %/$(ONNX_GEN).h
%/$(ONNX_GEN).c %/$(ONNX_GEN).h: $(ONNX_PROTO)
	@mkdir -p $*/gen
	@echo "  PROTOC  $(ONNX_PROTO) -> $*/gen"
	@protoc-c --proto_path=/usr/include --c_out=$*/gen $(ONNX_PROTO)

$(BUILD)/$(ONNX_GEN).o: $(BUILD)/$(ONNX_GEN).c
	@echo "  CC      $<"
	@$(CC) $(CPPFLAGS) -I$(BUILD)/gen $(PKGCFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/%.o: %.c | $(BUILD)/$(ONNX_GEN).h
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CPPFLAGS) -I$(BUILD)/gen $(PKGCFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

# only the front end sees curses (core/, solvers/ and viz/ never include it)
$(BUILD)/tui/%.o: PKGCFLAGS += $(shell pkg-config --cflags $(TUIPKGS))

# Criterion's headers need POSIX and GNU extensions the library code does not.
$(BUILD)/tests/%.o: tests/%.c | $(BUILD)/$(ONNX_GEN).h
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CPPFLAGS) -I$(BUILD)/gen $(PKGCFLAGS) $(shell pkg-config --cflags criterion) $(CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/unit-tests: $(UNIT_OBJ) $(SUPPORT_OBJ) $(BUILD)/libstagecut.a
	$(CC) $(CFLAGS) -o $@ $^ $(PKGLIBS) $(TESTLIBS)

$(BUILD)/cli-tests: $(CLI_OBJ) $(SUPPORT_OBJ) $(BUILD)/libstagecut.a
	$(CC) $(CFLAGS) -o $@ $^ $(PKGLIBS) $(TESTLIBS)

$(BUILD)/tui-tests: $(TUI_TEST_OBJ) $(SUPPORT_OBJ) $(BUILD)/libstagecut.a
	$(CC) $(CFLAGS) -o $@ $^ $(PKGLIBS) $(TESTLIBS)

run: deps
	@$(MAKE) --no-print-directory stagecut
	./stagecut

# the builds on both cores first, then the tests one after another
test: deps
	@$(MAKE) --no-print-directory -j2 stagecut $(BUILD)/unit-tests $(BUILD)/cli-tests \
		$(BUILD)/tui-tests
	@$(MAKE) --no-print-directory -j2 asan-build $(FUZZ_RBINS)
	@VALGRIND_QUICK=1 $(MAKE) --no-print-directory house-test format-check unit-test cli-test \
		tui-test asan-test valgrind-test fuzz-regress

unit-test: $(BUILD)/unit-tests
	$(BUILD)/unit-tests --jobs 2

cli-test: $(BUILD)/cli-tests stagecut
	STAGECUT=./stagecut $(BUILD)/cli-tests --jobs 2

# terminal tests run two at a time: each owns its tmux session (named by
# the test's process) and its scratch and state directories
tui-test: $(BUILD)/tui-tests stagecut
	STAGECUT=./stagecut $(BUILD)/tui-tests --jobs 2

# The unit tests again under AddressSanitizer and UndefinedBehaviorSanitizer,
# built in their own directory; any report fails the run.  Randomized tests
# make a tenth of their trials there (STAGECUT_TEST_SHORT, tests/support.h).  Leaks inside
# Graphviz's plugins and CBC are suppressed by name (tests/lsan.supp).
ASAN_BUILD := build-asan
# (and the debug checks: SC_DEBUG asserts invariants only tests hold
# otherwise, e.g. the editor's incremental costs against a whole evaluation)
SANFLAGS   := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all \
              -DSC_DEBUG
asan-build:
	@$(MAKE) --no-print-directory BUILD=$(ASAN_BUILD) SANITIZE="$(SANFLAGS)" \
		$(ASAN_BUILD)/unit-tests $(ASAN_BUILD)/stagecut

asan-test: asan-build
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=86 \
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 STAGECUT_TEST_SHORT=1 \
		$(ASAN_BUILD)/unit-tests --jobs 2
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=86 \
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 STAGECUT=$(ASAN_BUILD)/stagecut \
		$(BUILD)/cli-tests --filter 'bad_input/every_case_fails_cleanly'

# make coverage: the unit tests (a tenth of the random trials, as under the
# sanitizers) and the CLI tests on a build with gcov's counters (build-cov,
# -O1), then lcov's line and function coverage of core/, solvers/, viz/ and
# tui/: the summary printed (quoted in README.md), the report in
# build-cov/html/index.html (a failing test is reported and the coverage
# still measured: `make test` is the test).  The terminal tests are not run (tmux drives
# them one at a time, twice as long again).
COV_BUILD := build-cov
coverage: deps
	@$(MAKE) --no-print-directory BUILD=$(COV_BUILD) SANITIZE="--coverage -O1 -Wno-error" \
		$(COV_BUILD)/unit-tests $(COV_BUILD)/cli-tests $(COV_BUILD)/stagecut
	@lcov --quiet --zerocounters --directory $(COV_BUILD)
	-STAGECUT_TEST_SHORT=1 $(COV_BUILD)/unit-tests --jobs 2
	-STAGECUT=$(COV_BUILD)/stagecut $(COV_BUILD)/cli-tests --jobs 2
	@lcov --quiet --capture --directory $(COV_BUILD) --output-file $(COV_BUILD)/all.info
	@lcov --quiet --extract $(COV_BUILD)/all.info '$(CURDIR)/core/*' '$(CURDIR)/solvers/*' \
		'$(CURDIR)/viz/*' '$(CURDIR)/tui/*' --output-file $(COV_BUILD)/coverage.info
	@genhtml --quiet --output-directory $(COV_BUILD)/html $(COV_BUILD)/coverage.info
	@lcov --summary $(COV_BUILD)/coverage.info

# The program under valgrind (memcheck) on the bad-input corpus and a round
# of good runs of every command; any memory error or definite leak fails.
# `make test` runs an eighth of the corpus (VALGRIND_QUICK=1, every eighth
# case, to keep the whole run under 10 minutes); `make valgrind-test` all.
valgrind-test: stagecut
	tests/valgrind/run.sh

# the performance benchmarks (perf/); `make perf` is `make bench`
$(BUILD)/perf-core: $(BUILD)/perf/perf_core.o $(BUILD)/libstagecut.a
	$(CC) $(CFLAGS) -o $@ $^ $(PKGLIBS)

$(BUILD)/perf-search: $(BUILD)/perf/perf_search.o $(BUILD)/libstagecut.a
	$(CC) $(CFLAGS) -o $@ $^ $(PKGLIBS)

$(BUILD)/perf-bounds: $(BUILD)/perf/perf_bounds.o $(BUILD)/libstagecut.a
	$(CC) $(CFLAGS) -o $@ $^ $(PKGLIBS)

$(BUILD)/perf-cost: $(BUILD)/perf/perf_cost.o $(BUILD)/libstagecut.a
	$(CC) $(CFLAGS) -o $@ $^ $(PKGLIBS)

$(BUILD)/perf-cpus: $(BUILD)/perf/perf_cpus.o $(BUILD)/libstagecut.a
	$(CC) $(CFLAGS) -o $@ $^ $(PKGLIBS)

bench perf: deps
	@./scripts/deps.sh bench
	@$(MAKE) --no-print-directory stagecut $(BUILD)/perf-core $(BUILD)/perf-search $(BUILD)/perf-bounds \
		$(BUILD)/perf-cost $(BUILD)/perf-cpus
	./perf/run.sh

install: stagecut
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(DATADIR)
	install -m 755 stagecut $(DESTDIR)$(BINDIR)/stagecut
	install -m 644 man/stagecut.1 $(DESTDIR)$(MANDIR)/stagecut.1
	cp -R samples $(DESTDIR)$(DATADIR)/
	chmod -R a+rX,go-w $(DESTDIR)$(DATADIR)/samples

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/stagecut $(DESTDIR)$(MANDIR)/stagecut.1
	rm -rf $(DESTDIR)$(DATADIR)

# every C file of the project (the fuzzing corpus holds no .c or .h)
FORMAT_SRC = $(shell find core solvers viz tui tests perf -name '*.[ch]' 2>/dev/null | sort)

format:
	clang-format -i $(FORMAT_SRC)

# make format must leave no diff
format-check:
	@clang-format --dry-run --Werror $(FORMAT_SRC) && echo "format-check: $(words $(FORMAT_SRC)) files as clang-format writes them"

# the layout rules: includes and calls point one way, no circle of calls in a
# folder, no file over 600 lines without a reason (scripts/check_house.sh)
house-test: stagecut
	scripts/check_house.sh $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(COV_BUILD) build-fuzz build-fuzz-regress stagecut

# make fuzz (libFuzzer, clang) and make fuzz-regress (the saved inputs under
# ASan and UBSan, run by make test): tests/fuzz/README.md.  The replay links
# build-asan's library (the same sanitizers, -O1), made by asan-build.
FUZZ_RLIB := $(ASAN_BUILD)/libstagecut.a
ifneq ($(BUILD),$(ASAN_BUILD))
$(ASAN_BUILD)/libstagecut.a: asan-build ;
endif
include tests/fuzz/fuzz.mk

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
