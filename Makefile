# kiln - top-level build.  `make` builds everything into build/, `make test`
# runs the unit and end-to-end tests, `make test-asan` the same under ASan and
# UBSan (build-asan/), `make demo` installs missing Debian packages, builds
# and runs examples/demo.yaml, `make install PREFIX=...` installs.
#
# Sources are found by wildcard, so a new file needs no Makefile edit:
#   src/*.c                 the kiln command (src/kiln.c has main)
#   lib/*.c                 libkiln
#   plugins/*/plugin.c      a built-in plugin's table entry (+ plugins/*/parse*.c)
#   plugins/c/runner.c      the C iteration runner (kiln-runner-c)
#   benchmarks/*/c/bench.c  C benchmarks, built to bench.so beside the source
#   tests/unit/test_*.c     cmocka unit tests, each linked with all of src/
#   tests/e2e/*.sh          end-to-end tests, run in order

PREFIX   ?= /usr/local
CC       ?= cc
O        ?= build
SANITIZE ?=
OPT      ?= -O2

PKGS     := libfyaml jansson sqlite3 gsl libzstd capstone libmd zlib yajl
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# linked statically: the libraries' relocations would otherwise cost kiln
# ~5 MB of resident memory while a benchmark runs (bench/pexec measures it)
PKG_LIBS   := -Wl,-Bstatic -lfyaml -ljansson -lsqlite3 -lgsl -lgslcblas -lzstd -lcapstone -llowdown -lbsd -lmd -lbz2 -lz \
	-lyajl_s \
	-Wl,-Bdynamic -lm -ldl -lpthread

WARN     := -Wall -Wextra -Wshadow -Wno-unused-parameter -Werror=incompatible-pointer-types -Werror=implicit-function-declaration -Werror=int-conversion
CFLAGS   ?= $(OPT) -g
ifneq ($(SANITIZE),)
CFLAGS   += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined -DKILN_SANITIZE
LDFLAGS  += -fsanitize=address,undefined
endif
ALL_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) -Iinclude -Isrc $(PKG_CFLAGS) \
	-DKILN_PREFIX='"$(PREFIX)"' -ffunction-sections
# libkiln as shipped (libkiln.a, libkiln.so) is never sanitized: VMs and
# runners link it without a sanitizer runtime
LIBKILN_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) $(OPT) -g -Iinclude

SRC      := $(wildcard src/*.c)
LIB_SRC  := $(wildcard lib/*.c)
PLUG_SRC := $(wildcard plugins/*/plugin.c plugins/*/parse*.c)
CORE_OBJ := $(patsubst %.c,$(O)/obj/%.o,$(filter-out src/kiln.c,$(SRC)) $(PLUG_SRC))
LIB_OBJ  := $(patsubst %.c,$(O)/obj/%.o,$(LIB_SRC))
LIB_PIC  := $(patsubst %.c,$(O)/pic/%.o,$(LIB_SRC))
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(patsubst tests/unit/%.c,$(O)/tests/%,$(UNIT_SRC))
BENCH_C  := $(wildcard benchmarks/*/c/bench.c)
BENCH_SO := $(BENCH_C:.c=.so)
JAVA_SRC := $(wildcard plugins/java/*.java benchmarks/*/java/*.java)
HELPERS  := $(patsubst tests/helpers/%.c,$(O)/tests/helpers/%,$(wildcard tests/helpers/*.c))
BENCH_BIN:= $(patsubst bench/%.c,$(O)/bench/%,$(wildcard bench/*.c))

# the Lua 5.4 runner's clock module, when liblua5.4-dev is there (defined
# before `all`, whose prerequisites are expanded where the rule is read)
LUA_CFLAGS := $(shell pkg-config --cflags lua5.4 2>/dev/null)
LUA_CLOCK  := $(if $(shell pkg-config --exists lua5.4 2>/dev/null && echo y),plugins/lua/kilnclock.so)

KILN     := $(O)/kiln
RUNNER_C := $(O)/kiln-runner-c

.PHONY: all bench-all test test-all test-unit test-e2e test-asan test-valgrind demo install uninstall clean fuzz bench deps java
all: $(KILN) $(O)/libkiln.a $(O)/libkiln.so $(RUNNER_C) $(BENCH_SO) $(LUA_CLOCK) $(HELPERS) $(O)/man/kiln.1 java

$(O)/obj/%.o: %.c $(wildcard src/*.h include/*.h plugins/*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(O)/pic/%.o: %.c include/kiln.h
	@mkdir -p $(dir $@)
	$(CC) $(LIBKILN_CFLAGS) -fPIC -fvisibility=default -c -o $@ $<

$(O)/libkilncore.a: $(CORE_OBJ) $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

# not PIE: the statically linked libraries' pointer tables (capstone, sqlite)
# then need no relocation at start, so their pages stay clean and shared
# instead of becoming ~2 MB of kiln's private memory; -z now binds libc's
# functions at start, so the pexec loop never runs the dynamic linker's
# lazy-binding code (which would stay mapped in kiln while benchmarks run);
# src/kiln-loop.ld puts the functions of the pexec loop side by side, so the
# few pages of code the loop faults back in come from few 64 KiB windows
# (scripts/loop-functions.sh makes the list)
$(KILN): $(O)/obj/src/kiln.o $(O)/libkilncore.a src/kiln-loop.ld
	$(CC) $(LDFLAGS) -no-pie -Wl,-z,now -Wl,-T,src/kiln-loop.ld -o $@ $(O)/obj/src/kiln.o $(O)/libkilncore.a $(PKG_LIBS) -ldl

# man pages, made by kiln from the usage and help text that --help prints
$(O)/man/kiln.1: $(KILN)
	$(KILN) --man-pages $(O)/man

$(O)/libkiln.a: $(LIB_PIC)
	@rm -f $@
	ar rcs $@ $^

$(O)/libkiln.so: $(LIB_PIC)
	$(CC) -shared -Wl,-soname,libkiln.so.1 -o $@ $^

$(RUNNER_C): plugins/c/runner.c $(O)/libkiln.a
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(O)/libkiln.a -ldl -lpthread

# C benchmarks: never sanitized (they are what is measured)
benchmarks/%/c/bench.so: benchmarks/%/c/bench.c
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -shared -fPIC -o $@ $< -lm

# the Lua 5.4 runner's clock module (liblua5.4-dev), built beside its source
plugins/lua/kilnclock.so: plugins/lua/kilnclock.c
	$(CC) -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -shared -fPIC $(LUA_CFLAGS) -o $@ $<

java: $(if $(JAVA_SRC),$(O)/java.stamp)
$(O)/java.stamp: $(JAVA_SRC)
	@mkdir -p $(O)
	@if command -v javac >/dev/null; then \
	  for f in $(JAVA_SRC); do javac -nowarn -d $$(dirname $$f) -cp plugins/java $$f || exit 1; done; \
	else echo "kiln: javac not found, Java runner not built"; fi
	@touch $@

$(O)/tests/helpers/%: tests/helpers/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $<

$(O)/tests/%: tests/unit/%.c $(O)/libkilncore.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(O)/libkilncore.a $(PKG_LIBS) -lcmocka -ldl

$(O)/bench/%: bench/%.c $(O)/libkilncore.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(O)/libkilncore.a $(PKG_LIBS) -ldl

deps:
	@scripts/deps.sh

# `make test` on a fresh machine: the test packages first (scripts/deps.sh
# --test, quiet when all is there), then a make that sees their pkg-config
# flags and headers
test:
	@scripts/deps.sh --test
	@$(MAKE) --no-print-directory test-all

test-all: all $(UNIT_BIN)
	@O=$(O) tests/run.sh

test-unit: all $(UNIT_BIN)
	@O=$(O) tests/run.sh unit

test-e2e: all
	@O=$(O) tests/run.sh e2e

test-asan:
	$(MAKE) O=build-asan SANITIZE=1 OPT=-O1 test

# kiln under valgrind memcheck in the end-to-end tests that exercise its core
VALGRIND_TESTS ?= 10-config 11-run 12-schedule 13b-retry 15-bad 17-sigint 18-command 19-store 40-report 70-sec
test-valgrind: all
	@for t in $(VALGRIND_TESTS); do O=$(O) KILN_VALGRIND=1 tests/run.sh e2e $$t || exit 1; done

demo: deps
	@$(MAKE) --no-print-directory all >/dev/null
	@$(KILN) demo

# `make bench` on a fresh machine: its packages first, as `make test` does
bench:
	@scripts/deps.sh --bench
	@$(MAKE) --no-print-directory bench-all

bench-all: all $(BENCH_BIN)
	@O=$(O) bench/run.sh

fuzz:
	@tests/fuzz/run.sh $${FUZZ_SECONDS:-60}

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	  $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/libexec/kiln \
	  $(DESTDIR)$(PREFIX)/share/kiln $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man5 \
	  $(DESTDIR)$(PREFIX)/share/man/man7
	install -m 755 $(KILN) $(DESTDIR)$(PREFIX)/bin/kiln
	install -m 755 $(RUNNER_C) $(DESTDIR)$(PREFIX)/libexec/kiln/kiln-runner-c
	install -m 644 $(O)/libkiln.a $(DESTDIR)$(PREFIX)/lib/libkiln.a
	install -m 755 $(O)/libkiln.so $(DESTDIR)$(PREFIX)/lib/libkiln.so.1
	ln -sf libkiln.so.1 $(DESTDIR)$(PREFIX)/lib/libkiln.so
	install -m 644 include/kiln.h $(DESTDIR)$(PREFIX)/include/kiln.h
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|'$$(sed -n 's/.*KILN_VERSION "\(.*\)"/\1/p' src/util.h)'|' \
	  kiln.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/kiln.pc
	rm -rf $(DESTDIR)$(PREFIX)/share/kiln/plugins $(DESTDIR)$(PREFIX)/share/kiln/benchmarks $(DESTDIR)$(PREFIX)/share/kiln/examples
	cp -r plugins benchmarks examples $(DESTDIR)$(PREFIX)/share/kiln/
	find $(DESTDIR)$(PREFIX)/share/kiln/plugins -name '*.c' -o -name '*.h' | xargs rm -f
	$(KILN) --man-pages $(O)/man-install $(PREFIX)/share/doc/kiln
	install -m 644 $(O)/man-install/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 $(O)/man-install/*.5 $(DESTDIR)$(PREFIX)/share/man/man5/
	install -m 644 $(O)/man-install/*.7 $(DESTDIR)$(PREFIX)/share/man/man7/
	rm -rf $(DESTDIR)$(PREFIX)/share/doc/kiln && install -d $(DESTDIR)$(PREFIX)/share/doc/kiln
	cp -r docs/* $(DESTDIR)$(PREFIX)/share/doc/kiln/
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/site-functions
	$(KILN) --completion bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/kiln
	$(KILN) --completion zsh > $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_kiln

uninstall:
	rm -rf $(DESTDIR)$(PREFIX)/bin/kiln $(DESTDIR)$(PREFIX)/libexec/kiln $(DESTDIR)$(PREFIX)/share/kiln \
	  $(DESTDIR)$(PREFIX)/lib/libkiln.* $(DESTDIR)$(PREFIX)/lib/pkgconfig/kiln.pc $(DESTDIR)$(PREFIX)/include/kiln.h \
	  $(DESTDIR)$(PREFIX)/share/man/man1/kiln.1 $(DESTDIR)$(PREFIX)/share/man/man1/kiln-*.1 $(DESTDIR)$(PREFIX)/share/doc/kiln \
	  $(DESTDIR)$(PREFIX)/share/man/man5/kiln-config.5 $(DESTDIR)$(PREFIX)/share/man/man7/kiln-environment.7 \
	  $(DESTDIR)$(PREFIX)/share/man/man7/kiln-exit-codes.7 \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions/kiln $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_kiln

clean:
	rm -rf build build-asan benchmarks/*/c/bench.so plugins/lua/kilnclock.so $(O)/java.stamp
	find benchmarks plugins -name '*.class' -delete
