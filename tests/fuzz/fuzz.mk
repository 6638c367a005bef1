# tests/fuzz/fuzz.mk - fuzzing every input parser; included by the top-level
# Makefile (see tests/fuzz/README.md).
#
#   make fuzz           build the libFuzzer harnesses with clang (installed when
#                       missing) in build-fuzz/ and run each for FUZZ_TIME
#                       seconds; findings go to tests/fuzz/crashes/
#   make fuzz-regress   replay the seed corpora and tests/fuzz/regressions/
#                       through the same harnesses built with $(CC) and
#                       ASan/UBSan (no libFuzzer) in build-fuzz-regress/
#   make fuzz-clean     remove both build directories
#
# Every variable here starts with FUZZ_.  The library sources, packages and
# preprocessor flags come from the Makefile when it defined them before the
# include, with the same values as fallbacks.

# the including Makefile's default goal stays its own (restored at the end)
FUZZ_DEFAULT_GOAL := $(.DEFAULT_GOAL)

FUZZ_HARNESSES := fuzz_dot fuzz_json fuzz_onnx fuzz_partition fuzz_cli fuzz_times \
                  fuzz_devices
FUZZ_TIME      ?= 60
FUZZ_MAX_LEN   ?= 4096
FUZZ_TIMEOUT   ?= 10
# extra libFuzzer flags, e.g. FUZZ_FLAGS=-jobs=2
FUZZ_FLAGS     ?=
FUZZ_CLANG     ?= clang
FUZZ_SRCDIR    := tests/fuzz
FUZZ_BUILD     := build-fuzz
FUZZ_RBUILD    := build-fuzz-regress

FUZZ_LIB_SRC := $(if $(LIB_SRC),$(LIB_SRC),$(filter-out tui/main.c,\
                   $(wildcard core/*.c core/formats/*.c solvers/*.c viz/*.c tui/*.c tui/*/*.c)))
FUZZ_CPPFLAGS = $(if $(CPPFLAGS),$(CPPFLAGS),-I. -DSC_VERSION='"0.1.0"' \
                   -DSC_DATADIR='"/usr/local/share/stagecut"')
FUZZ_PKGS     = $(if $(PKGS),$(PKGS),libcgraph libgvc jansson cbc libprotobuf-c)
FUZZ_TUIPKGS  = $(if $(TUIPKGS),$(TUIPKGS),ncursesw)
FUZZ_PKGCFLAGS = $(shell pkg-config --cflags $(FUZZ_PKGS))
FUZZ_LIBS      = $(shell pkg-config --libs $(FUZZ_PKGS) $(FUZZ_TUIPKGS)) -lm

FUZZ_WARN    := -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes
FUZZ_CFLAGS  := -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined \
                -fno-sanitize-recover=all $(FUZZ_WARN)
FUZZ_RCFLAGS := -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
                -fno-sanitize-recover=all $(FUZZ_WARN)

# ONNX's schema compiled by protoc-c into each build directory (the
# Makefile's pattern rule %/gen/onnx/onnx.pb-c.c makes it)
FUZZ_PROTO    := /usr/include/onnx/onnx.proto
FUZZ_GEN      := gen/onnx/onnx.pb-c
FUZZ_LIB_OBJ  := $(FUZZ_LIB_SRC:%.c=$(FUZZ_BUILD)/%.o) $(FUZZ_BUILD)/$(FUZZ_GEN).o
FUZZ_RLIB_OBJ := $(FUZZ_LIB_SRC:%.c=$(FUZZ_RBUILD)/%.o) $(FUZZ_RBUILD)/$(FUZZ_GEN).o
FUZZ_BINS     := $(FUZZ_HARNESSES:%=$(FUZZ_BUILD)/%)
FUZZ_RBINS    := $(FUZZ_HARNESSES:%=$(FUZZ_RBUILD)/%)

# A finding stops the run (halt_on_error); leaks count (detect_leaks).
FUZZ_ENV := ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 \
            UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# While fuzzing, a smaller quarantine (default 256 MB) keeps the working set
# small: on a VM fresh pages can cost more than the inputs (2.5x the execs/s
# here), and a use after free within one input is still caught.  The
# harnesses write each input to a file under TMPDIR; tmpfs beats disk.
FUZZ_TMPDIR ?= $(shell [ -d /dev/shm ] && [ -w /dev/shm ] && echo /dev/shm || echo /tmp)
FUZZ_RUN_ENV := ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:quarantine_size_mb=32 \
                UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 TMPDIR=$(FUZZ_TMPDIR)

.PHONY: fuzz fuzz-build fuzz-regress fuzz-clean fuzz-clang

# ---- libFuzzer (clang) ----------------------------------------------------

# clang, with libFuzzer's runtime (Debian: libclang-rt-14-dev, which apt
# installs with clang as a recommended package)
fuzz-clang:
	@if ! printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n)\n{ (void)d; (void)n; return 0; }\n' | \
	     $(FUZZ_CLANG) -fsanitize=fuzzer -x c -o /dev/null - >/dev/null 2>&1; then \
		echo "fuzz: installing clang (with libFuzzer)" >&2; \
		if [ "$$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi; \
		export DEBIAN_FRONTEND=noninteractive; \
		$$sudo apt-get install -y clang || \
			{ $$sudo apt-get update && $$sudo apt-get install -y clang; } || exit 1; \
		printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n)\n{ (void)d; (void)n; return 0; }\n' | \
		     $(FUZZ_CLANG) -fsanitize=fuzzer -x c -o /dev/null - || \
			{ echo "fuzz: $(FUZZ_CLANG) cannot link libFuzzer" >&2; exit 1; }; \
	fi

$(FUZZ_BUILD)/%.o: %.c | fuzz-clang $(FUZZ_BUILD)/$(FUZZ_GEN).h
	@mkdir -p $(dir $@)
	@echo "  FUZZCC  $<"
	@$(FUZZ_CLANG) $(FUZZ_CPPFLAGS) -I$(FUZZ_BUILD)/gen $(FUZZ_PKGCFLAGS) $(FUZZ_CFLAGS) -MMD -MP -c -o $@ $<

$(FUZZ_BUILD)/libstagecut.a: $(FUZZ_LIB_OBJ)
	@rm -f $@
	@ar rcs $@ $^

$(FUZZ_BINS): $(FUZZ_BUILD)/%: $(FUZZ_BUILD)/$(FUZZ_SRCDIR)/%.o $(FUZZ_BUILD)/libstagecut.a
	@echo "  FUZZLD  $@"
	@$(FUZZ_CLANG) $(FUZZ_CFLAGS) -o $@ $^ $(FUZZ_LIBS)

fuzz-build: $(FUZZ_BINS)

$(FUZZ_BUILD)/$(FUZZ_GEN).o: $(FUZZ_BUILD)/$(FUZZ_GEN).c | fuzz-clang
	@$(FUZZ_CLANG) $(FUZZ_CPPFLAGS) -I$(FUZZ_BUILD)/gen $(FUZZ_PKGCFLAGS) $(FUZZ_CFLAGS) -c -o $@ $<

# Each harness runs for FUZZ_TIME seconds from its seed corpus
# (tests/fuzz/corpus/NAME, read only) and the inputs it found before
# (build-fuzz/corpus/NAME, where new ones go); a finding is written to
# tests/fuzz/crashes/NAME-crash-..., -leak-, -timeout- or -oom-, and the
# others still run.  Paths are absolute: fuzz_cli changes directory.
fuzz: fuzz-build
	@mkdir -p $(FUZZ_SRCDIR)/crashes
	@failed=""; \
	for h in $(FUZZ_HARNESSES); do \
		mkdir -p $(FUZZ_BUILD)/corpus/$$h; \
		dict=""; [ -f $(FUZZ_SRCDIR)/$$h.dict ] && dict="-dict=$(CURDIR)/$(FUZZ_SRCDIR)/$$h.dict"; \
		echo "fuzz: $$h for $(FUZZ_TIME) s"; \
		$(FUZZ_RUN_ENV) $(FUZZ_BUILD)/$$h -max_total_time=$(FUZZ_TIME) \
			-max_len=$(FUZZ_MAX_LEN) -timeout=$(FUZZ_TIMEOUT) -print_final_stats=1 \
			-artifact_prefix=$(CURDIR)/$(FUZZ_SRCDIR)/crashes/$$h- $$dict $(FUZZ_FLAGS) \
			$(CURDIR)/$(FUZZ_BUILD)/corpus/$$h $(CURDIR)/$(FUZZ_SRCDIR)/corpus/$$h \
			|| failed="$$failed $$h"; \
	done; \
	if [ -n "$$failed" ]; then \
		echo "fuzz: findings in$$failed (see $(FUZZ_SRCDIR)/crashes/)" >&2; exit 1; \
	fi

# ---- regression replay (gcc, no libFuzzer) -----------------------------------

$(FUZZ_RBUILD)/%.o: %.c | $(FUZZ_RBUILD)/$(FUZZ_GEN).h
	@mkdir -p $(dir $@)
	@echo "  CC      $< (fuzz-regress)"
	@$(CC) $(FUZZ_CPPFLAGS) -I$(FUZZ_RBUILD)/gen $(FUZZ_PKGCFLAGS) $(FUZZ_RCFLAGS) -MMD -MP -c -o $@ $<

# only the front end sees curses, as in the Makefile
$(FUZZ_BUILD)/tui/%.o $(FUZZ_RBUILD)/tui/%.o: FUZZ_PKGCFLAGS += \
	$(shell pkg-config --cflags $(FUZZ_TUIPKGS))

$(FUZZ_RBUILD)/$(FUZZ_GEN).o: $(FUZZ_RBUILD)/$(FUZZ_GEN).c
	@$(CC) $(FUZZ_CPPFLAGS) -I$(FUZZ_RBUILD)/gen $(FUZZ_PKGCFLAGS) $(FUZZ_RCFLAGS) -c -o $@ $<

$(FUZZ_RBUILD)/libstagecut.a: $(FUZZ_RLIB_OBJ)
	@rm -f $@
	@ar rcs $@ $^

# The library the replay links: its own build here, unless the including
# Makefile names one built with the same sanitizers (FUZZ_RLIB; the
# Makefile's is build-asan's, so make test compiles the library once for
# both).
FUZZ_RLIB ?= $(FUZZ_RBUILD)/libstagecut.a

$(FUZZ_RBINS): $(FUZZ_RBUILD)/%: $(FUZZ_RBUILD)/$(FUZZ_SRCDIR)/%.o \
		$(FUZZ_RBUILD)/$(FUZZ_SRCDIR)/driver.o $(FUZZ_RLIB)
	@$(CC) $(FUZZ_RCFLAGS) -o $@ $^ $(FUZZ_LIBS)

# Every harness over its seed corpus and its regression inputs; any
# sanitizer report, leak or failed check fails the target.
fuzz-regress: $(FUZZ_RBINS)
	@failed=""; \
	for h in $(FUZZ_HARNESSES); do \
		dirs="$(FUZZ_SRCDIR)/corpus/$$h"; \
		[ -d $(FUZZ_SRCDIR)/regressions/$$h ] && dirs="$$dirs $(FUZZ_SRCDIR)/regressions/$$h"; \
		$(FUZZ_ENV) $(FUZZ_RBUILD)/$$h $$dirs || failed="$$failed $$h"; \
	done; \
	if [ -n "$$failed" ]; then echo "fuzz-regress: failed:$$failed" >&2; exit 1; fi

fuzz-clean:
	rm -rf $(FUZZ_BUILD) $(FUZZ_RBUILD)

-include $(shell find $(FUZZ_BUILD) $(FUZZ_RBUILD) -name '*.d' 2>/dev/null)

.DEFAULT_GOAL := $(FUZZ_DEFAULT_GOAL)
