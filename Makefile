# wasmdbg: one entry point. `make` builds build/wasmdbg; `make test` runs every test;
# `make run` runs the main job on the bundled example; `make spec`, `make bench`.
# BUILD selects a variant: release (default), debug, asan, tsan (threads: the profiler's
# writers, decode), switch (no computed goto), fuzz (clang's libFuzzer: `make fuzz`).

BUILD ?= release
CC ?= cc
O := build/$(BUILD)

WARN := -Wall -Wextra -Werror -Wshadow -Wundef -Wwrite-strings -Wstrict-prototypes \
        -Wmissing-prototypes -Wvla
CFLAGS_release := -O2 -g -DNDEBUG
CFLAGS_debug   := -O0 -g
CFLAGS_asan    := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
CFLAGS_tsan    := -O1 -g -fsanitize=thread -fno-omit-frame-pointer
CFLAGS_switch  := -O2 -g -DNDEBUG -DWD_USE_GOTO=0
# The fuzz targets' build (tests/fuzz; clang only): coverage for libFuzzer, ASan, UBSan.
CFLAGS_fuzz    := -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer \
                  -fno-sanitize-recover=all
# GCC 12.2 miscompiles a store through a returned pointer to a caller's struct at -O2
# (ipa-modref; reproduced on a 40-line program): keep that pass off under gcc.
CC_IS_GCC := $(shell $(CC) --version 2>/dev/null | grep -q 'Free Software Foundation' && echo 1)
GCC_FIXES := $(if $(CC_IS_GCC),-fno-ipa-modref)
BASE_CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -I. $(WARN) $(CFLAGS_$(BUILD)) $(GCC_FIXES)
LDFLAGS_asan := -fsanitize=address,undefined
LDFLAGS_tsan := -fsanitize=thread
LDFLAGS_fuzz := -fsanitize=fuzzer,address,undefined
# The libraries are linked statically when their archives are installed (Debian's -dev
# packages ship them; libedit needs tinfo, bsd and md): without their dynamic symbol
# lookups a process starts 0.4-0.6 ms sooner, as soon as wasm3 does, which is a fifth of a
# small kernel's `run`. Otherwise they are linked dynamically.
DEP_LIBS := jansson sodium iberty edit tinfo bsd md
DEP_ARCHIVES := $(foreach l,$(DEP_LIBS),$(shell $(CC) -print-file-name=lib$(l).a 2>/dev/null))
ifeq ($(words $(filter /%,$(DEP_ARCHIVES))),$(words $(DEP_LIBS)))
LDLIBS := -Wl,-Bstatic $(DEP_LIBS:%=-l%) -Wl,-Bdynamic -lm
else
LDLIBS := -ljansson -lsodium -liberty -ledit -lm
endif

# The core (base, decode, link, eval) depends on libc only; -Wconversion in base/ and decode/.
CORE_DIRS := base decode link eval
LIB_DIRS := $(CORE_DIRS) vm profiler
LIB_SRCS := $(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.c))
CLI_SRCS := $(wildcard cli/*.c)
UNIT_SRCS := $(wildcard tests/unit/*.c)
SPEC_SRCS := $(wildcard tests/spec/*.c)
# tests/fuzz: one file per target; fuzz.c is what they share, replay.c a main without libFuzzer.
FUZZ_TARGETS := $(filter-out fuzz replay,$(basename $(notdir $(wildcard tests/fuzz/*.c))))

LIB_OBJS := $(LIB_SRCS:%.c=$(O)/%.o)
CLI_OBJS := $(CLI_SRCS:%.c=$(O)/%.o)
UNIT_OBJS := $(UNIT_SRCS:%.c=$(O)/%.o)
SPEC_OBJS := $(SPEC_SRCS:%.c=$(O)/%.o)
CLI_LIB_OBJS := $(filter-out $(O)/cli/main.o,$(CLI_OBJS))

.PHONY: all test unit spec bench run clean deps golden-update fuzz fuzz-build fuzz-replay \
        difftest
all: build/wasmdbg

build/wasmdbg: $(O)/wasmdbg
	@mkdir -p build
	cp $< $@

$(O)/libwd.a: $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(O)/wasmdbg: $(CLI_OBJS) $(O)/libwd.a
	$(CC) $(LDFLAGS_$(BUILD)) -o $@ $^ $(LDLIBS)

$(O)/unit_tests: $(UNIT_OBJS) $(O)/libwd.a
	$(CC) $(LDFLAGS_$(BUILD)) -o $@ $^ $(LDLIBS)

$(O)/spec_runner: $(SPEC_OBJS) $(O)/libwd.a
	$(CC) $(LDFLAGS_$(BUILD)) -o $@ $^ $(LDLIBS)

# The commands' code without main(), for the fuzz targets that drive one (the REPL's).
$(O)/libwdcli.a: $(CLI_LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

# tests/octez/phases.sh: wasmdbg's decode and init step counts, to compare with the model's.
$(O)/pvmsteps: $(O)/tests/octez/pvmsteps.o $(O)/libwd.a
	$(CC) $(LDFLAGS_$(BUILD)) -o $@ $^ $(LDLIBS)

$(O)/base/%.o: base/%.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) -Wconversion -MMD -MP -c -o $@ $<
$(O)/decode/%.o: decode/%.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) -Wconversion -MMD -MP -c -o $@ $<
# The REPL's fuzz target reads the example kernel from the source tree.
$(O)/tests/fuzz/%.o: tests/fuzz/%.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) -DWD_SOURCE_ROOT='"$(CURDIR)"' -MMD -MP -c -o $@ $<
$(O)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) -MMD -MP -c -o $@ $<

-include $(shell find build -name '*.d' 2>/dev/null)

# Installs what the build and tests need on a fresh Debian 12 (wabt, jansson).
deps:
	@sh tests/deps.sh

unit: deps $(O)/unit_tests
	$(O)/unit_tests

spec: deps $(O)/spec_runner
	sh tests/spec/run.sh $(O)/spec_runner

test: deps
	bash tests/run.sh

# Fuzzing (tests/fuzz/README.md): `make fuzz FUZZ_SECONDS=N` builds the libFuzzer targets
# (BUILD=fuzz CC=clang: build/fuzz/fuzz-NAME) and runs each for N seconds, one after the
# other, from its corpus in build/fuzz/corpus/NAME; crash inputs go to build/fuzz/crashes/NAME.
# fuzz-replay builds, in any other variant, each target with a plain main that runs it once on
# the files given (build/BUILD/replay-NAME): `make test` replays tests/regress through them.
FUZZ_SECONDS ?= 10
fuzz: deps
	bash tests/fuzz/run.sh --seconds $(FUZZ_SECONDS)

fuzz-build: $(FUZZ_TARGETS:%=$(O)/fuzz-%)
fuzz-replay: $(FUZZ_TARGETS:%=$(O)/replay-%)
.SECONDARY: $(patsubst %,$(O)/tests/fuzz/%.o,$(FUZZ_TARGETS) fuzz replay)

$(O)/fuzz-%: $(O)/tests/fuzz/%.o $(O)/tests/fuzz/fuzz.o $(O)/libwdcli.a $(O)/libwd.a
	$(CC) $(LDFLAGS_$(BUILD)) -o $@ $^ $(LDLIBS)
$(O)/replay-%: $(O)/tests/fuzz/%.o $(O)/tests/fuzz/fuzz.o $(O)/tests/fuzz/replay.o \
               $(O)/libwdcli.a $(O)/libwd.a
	$(CC) $(LDFLAGS_$(BUILD)) -o $@ $^ $(LDLIBS)

# Differential testing (tests/difftest/README.md): DIFF_COUNT random modules from binaryen
# on wasmdbg, wasm-interp and node, and DIFF_KERNELS random kernels against the Octez tick
# model; a summary, and every mismatch kept under build/difftest/mismatch/. DIFF_SEED
# reruns a seed, DIFF_JOBS sets the parallel jobs.
DIFF_COUNT ?= 200
DIFF_KERNELS ?= $(shell echo $$(( $(DIFF_COUNT) / 4 )))
difftest: deps
	$(MAKE) --no-print-directory BUILD=release build/release/wasmdbg
	bash tests/difftest/run.sh build/release/wasmdbg $(DIFF_COUNT) $(DIFF_KERNELS)

# The bundled example: the counter kernel (kernels/counter) over its inboxes (README, Quick start).
run: deps build/wasmdbg
	build/wasmdbg run kernels/counter/counter.wasm --inputs kernels/counter/counter.inputs.json

# Rewrites the expected outputs of tests/golden after a deliberate change (review the diff).
golden-update: build/wasmdbg
	bash tests/golden/run.sh build/wasmdbg --update

# Benchmarks (README, "Benchmarks"). `make bench` times the workloads of
# bench/workloads.list on the release build and on every peer found: wasm-interp and node
# on PATH, wasm3 and WAMR's iwasm when WASM3=PATH and IWASM=PATH name them; then the load
# phases in process. `make bench-callgrind` counts wasmdbg's instructions per workload.
# Results in build/bench/. The workloads' .wasm are committed (rebuild: make -C bench wasm).
BENCH_O := build/bench
BENCH_CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -I. $(WARN) -O2 -g $(GCC_FIXES)
BENCH_MODULES := $(BENCH_O)/big.wasm $(BENCH_O)/data1m.wasm
BENCH_KERNELS := $(wildcard ../shared/kernels/tx-kernel-no-verif.wasm) kernels/counter/counter.wasm
# Inputs files of the two shapes that were quadratic to parse: one inbox of 100,000
# messages, and 100,000 inboxes of one message (externals of 16 bytes).
BENCH_INPUTS := $(BENCH_O)/inbox-100k.json $(BENCH_O)/inboxes-100k.json
.PHONY: bench-callgrind bench-prepare

bench: bench-prepare
	$(BENCH_O)/runner --wasmdbg build/release/wasmdbg --out $(BENCH_O)
	$(BENCH_O)/loadtime --header $(BENCH_MODULES) --pvm $(BENCH_KERNELS) \
	    --inputs $(BENCH_INPUTS) >$(BENCH_O)/load.md
	@cat $(BENCH_O)/load.md

bench-callgrind: bench-prepare
	sh bench/callgrind.sh build/release/wasmdbg bench/workloads.list $(BENCH_O)/callgrind

bench-prepare: deps
	$(MAKE) BUILD=release build/release/wasmdbg build/release/libwd.a
	$(MAKE) $(BENCH_O)/runner $(BENCH_O)/loadtime $(BENCH_MODULES) $(BENCH_INPUTS)

$(BENCH_O)/runner: bench/runner.c
	@mkdir -p $(BENCH_O)
	$(CC) $(BENCH_CFLAGS) -o $@ $<
$(BENCH_O)/genmod: bench/genmod.c
	@mkdir -p $(BENCH_O)
	$(CC) $(BENCH_CFLAGS) -Wconversion -o $@ $<
$(BENCH_O)/loadtime: bench/loadtime.c build/release/libwd.a
	@mkdir -p $(BENCH_O)
	$(CC) $(BENCH_CFLAGS) -o $@ $< build/release/libwd.a $(LDLIBS)
$(BENCH_O)/big.wasm: $(BENCH_O)/genmod
	$(BENCH_O)/genmod big $@
$(BENCH_O)/data1m.wasm: $(BENCH_O)/genmod
	$(BENCH_O)/genmod data $@
$(BENCH_O)/inbox-100k.json:
	@mkdir -p $(BENCH_O)
	awk 'BEGIN { printf "[["; for (i = 0; i < 100000; i++) \
	    printf "%s{\"external\": \"%032x\"}", i ? ",\n  " : "", i * 2654435761 % 4294967296; \
	    print "]]" }' >$@
$(BENCH_O)/inboxes-100k.json:
	@mkdir -p $(BENCH_O)
	awk 'BEGIN { printf "["; for (i = 0; i < 100000; i++) \
	    printf "%s[{\"external\": \"%032x\"}]", i ? ",\n " : "", i * 2654435761 % 4294967296; \
	    print "]" }' >$@

# Installs the release binary, the man page and the bash and zsh completions under
# $(DESTDIR)$(PREFIX), as packagers expect (`make install DESTDIR=$pkgdir PREFIX=/usr`);
# `make uninstall` removes exactly those files. tests/install/run.sh checks both.
PREFIX ?= /usr/local
DESTDIR ?=
INSTALL ?= install
BINDIR ?= $(PREFIX)/bin
MAN1DIR ?= $(PREFIX)/share/man/man1
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
MAN_PAGES := $(wildcard man/*.1)
.PHONY: install uninstall

# The release binary is built first, whatever BUILD says (as bench-prepare builds it).
install:
	$(MAKE) --no-print-directory BUILD=release build/release/wasmdbg
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MAN1DIR) $(DESTDIR)$(BASHCOMPDIR) \
	           $(DESTDIR)$(ZSHCOMPDIR)
	$(INSTALL) -m 755 build/release/wasmdbg $(DESTDIR)$(BINDIR)/wasmdbg
	$(INSTALL) -m 644 $(MAN_PAGES) $(DESTDIR)$(MAN1DIR)/
	$(INSTALL) -m 644 completions/wasmdbg.bash $(DESTDIR)$(BASHCOMPDIR)/wasmdbg
	$(INSTALL) -m 644 completions/_wasmdbg $(DESTDIR)$(ZSHCOMPDIR)/_wasmdbg

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/wasmdbg $(MAN_PAGES:man/%=$(DESTDIR)$(MAN1DIR)/%) \
	      $(DESTDIR)$(BASHCOMPDIR)/wasmdbg $(DESTDIR)$(ZSHCOMPDIR)/_wasmdbg

clean:
	rm -rf build
