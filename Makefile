# progmux — build, test, run.
#
#   make            build build/progmux and build/progmux-reaper
#   make test       install what is missing, build, run every test
#   make test-long  the longer loops: the front killed at 100 random moments
#                   per mode, the stripper against tmux for 5 minutes, a
#                   host's link, far progmux or hub killed at 100 moments
#   make macos-gate both binaries and the tests cross-compiled and linked
#                   for arm64 and x86_64 macOS 13 (zig cc; scripts/ci/macos-gate.sh)
#   make test-tmux  the integration suites on tmux 3.3a, 3.5a and 3.8
#   make test-clients  progmux through the pinned real agent clients (npm)
#   make test-conformance  the official MCP conformance suite, both eras
#   make test-secrets  ask_user_secret through chromium and the SDK clients
#   make test-view  the view (MCP Apps) in chromium, in the SDK's host
#   make npm        the npm packages (static binaries for linux-x64 and
#                   linux-arm64) in build/npm
#   make npm-test   those packages installed and tested as users run them
#   make mcpb       the MCP Bundles (.mcpb, binary) of those static builds
#   make mcpb-test  those bundles unpacked, checked and run
#   make dist       the release tarball and the Homebrew tap for it (build/dist)
#   make brew-test  the Homebrew formula's install and test blocks, run here
#   make deb        build/progmux_VERSION-1_ARCH.deb (dpkg-deb), lintian-checked
#   make deb-test   that package installed with apt-get, the SDK e2e run
#                   against /usr/bin/progmux, then purged (needs root)
#   make run        install what is missing, build, start the server on stdio
#   make SAN=1 ...  the same with AddressSanitizer and UndefinedBehaviorSanitizer
#
#   make OSDEP=posix test   the same suite on the POSIX-only port (build/posix)
#
# Every common/*.c (what both binaries use) goes into build/libcommon.a,
# of the ports (common/osdep-*.c) only the one OSDEP names; every
# server/*.c and reaper/*.c into its binary, of the input-wait checks
# (server/ttywait-*.c) only the port's. The pure parts the tests,
# fuzzers and benchmarks also use go into two archives as well:
# build/libfront.a (JSON, schemas, text pages, and the input-wait check
# for its test) and build/libreaper.a (stripper, markers, FIFO records,
# the state table). Every
# tests/unit/test_*.c becomes its own cmocka test binary linked with the
# three (test_server_*.c also with the server's objects, all but
# server/main.c; test_server_tmux with server/tmux_parse.c alone), so
# unit tests reach any module.

CC      ?= cc
# The port (common/osdep-$(OSDEP).c, see common/osdep.h): linux, darwin,
# or posix (POSIX and ps(1) alone, with the compat.h fallbacks: how the
# code above the port runs without Linux's facilities, tested here).
HOST_OSDEP := $(if $(filter Darwin,$(shell uname -s)),darwin,linux)
OSDEP   ?= $(HOST_OSDEP)
ifeq ($(filter linux darwin posix,$(OSDEP)),)
$(error OSDEP=$(OSDEP): say linux, darwin or posix)
endif
# The input-wait check (server/ttywait-*.c): /proc on Linux, none elsewhere.
TTYWAIT  = $(if $(filter linux,$(OSDEP)),linux,none)
LOOPBE   = $(if $(filter linux,$(OSDEP)),epoll,poll)
# msgpack-c names itself msgpack-c from version 6 on (Homebrew's).
MSGPACK_PC := $(shell pkg-config --exists msgpack-c 2>/dev/null && echo msgpack-c || echo msgpack)
PKGS     = $(MSGPACK_PC) cmocka libpcre2-8
CSTD     = -std=gnu11
WARN     = -Wall -Wextra -Werror -Wshadow -Wmissing-prototypes -Wstrict-prototypes
OPT     ?= -O2 -g
CPPFLAGS = -Icommon -D_GNU_SOURCE -DJSMN_STRICT -DJSMN_PARENT_LINKS
ifeq ($(OSDEP),posix)
CPPFLAGS += -DCOMPAT_FALLBACK
endif
PKG_CFLAGS := $(foreach p,$(PKGS),$(shell pkg-config --cflags $(p) 2>/dev/null))
PKG_LIBS   := $(shell pkg-config --libs $(MSGPACK_PC) 2>/dev/null || echo -lmsgpackc)
CMOCKA_LIBS := $(shell pkg-config --libs cmocka 2>/dev/null || echo -lcmocka)
# PCRE2, the front's regular expressions (server/pattern.c): the front,
# the tests and fuzzers linking it; not the reaper.
PCRE_LIBS := $(shell pkg-config --libs libpcre2-8 2>/dev/null || echo -lpcre2-8)

# Another port than the system's builds apart: build/posix, build/san-posix.
BSUFFIX  = $(if $(filter $(HOST_OSDEP),$(OSDEP)),,$(if $(filter 1,$(SAN)),-,/)$(OSDEP))
ifeq ($(SAN),1)
OPT     = -O1 -g -fno-omit-frame-pointer
SANFLAGS = -fsanitize=address,undefined -fno-sanitize-recover=undefined
B       ?= build/san$(BSUFFIX)
else
B       ?= build$(BSUFFIX)
endif

CFLAGS  += $(CSTD) $(WARN) $(OPT) $(SANFLAGS) $(PKG_CFLAGS)
LDFLAGS += $(SANFLAGS)

VERSION := $(shell cat VERSION 2>/dev/null || echo 0.0.0)
CPPFLAGS += -DPROGMUX_VERSION='"$(VERSION)"'
# What the build is for, as --version and --check say it: the compiler's
# target triplet, unless the build names it (make npm's static builds).
ifeq ($(origin BUILD_TARGET),undefined)
BUILD_TARGET := $(shell $(CC) -dumpmachine 2>/dev/null || echo unknown)
endif
CPPFLAGS += -DPROGMUX_TARGET='"$(BUILD_TARGET)"'

COMMON_SRC = $(filter-out common/osdep-%.c,$(wildcard common/*.c)) \
	common/osdep-$(OSDEP).c \
	$(if $(filter linux,$(OSDEP)),,common/osdep-shared.c)
# ask_user_secret's page (server/secret_page.c, over server/page_http.c:
# HTTP of its own on 127.0.0.1, no library) is built on Linux and the POSIX-only port, not
# on macOS, where it has not been tried (SECRET_PAGE=1 builds it there
# too). Without it (SECRET_PAGE=) neither the page nor the tool is built,
# and the tool is not listed.
SECRET_PAGE ?= $(if $(filter darwin,$(OSDEP)),,1)
# The tests are told whether it is built: the C tests by
# -DPROGMUX_SECRET_PAGE, the others by PMX_SECRET_PAGE (1 or 0).
export PMX_SECRET_PAGE := $(if $(SECRET_PAGE),1,0)
SECRET_SRC = server/secret_page.c server/page_http.c server/tool_secret.c \
	server/secret_ask.c
SERVER_SRC = $(filter-out server/ttywait-%.c server/loop-%.c \
	$(if $(SECRET_PAGE),,$(SECRET_SRC)),\
	$(wildcard server/*.c)) server/ttywait-$(TTYWAIT).c server/loop-$(LOOPBE).c
ifneq ($(SECRET_PAGE),)
CPPFLAGS  += -DPROGMUX_SECRET_PAGE
endif
REAPER_SRC = $(wildcard reaper/*.c)
# test_ttywait builds its panes with Linux's epoll: not for macOS.
UNIT_SRC   = $(filter-out $(if $(filter darwin,$(OSDEP)),tests/unit/test_ttywait.c),\
	$(wildcard tests/unit/test_*.c))
SCHEMAS    = $(sort $(wildcard schemas/*.json))
# The view (server/view/): the page, its style, its scripts in order.
VIEW_SRC   = server/view/view.html server/view/view.css server/view/term.js \
	server/view/view.js

COMMON_OBJ = $(COMMON_SRC:%.c=$(B)/obj/%.o)
FRONT_PURE_SRC = server/json.c server/jschema.c server/pattern.c server/spool_read.c \
	server/spool_text.c \
	server/textbuf.c server/ttywait-$(TTYWAIT).c
REAPER_PURE_SRC = reaper/strip.c reaper/marker.c reaper/record.c reaper/fsm.c \
	reaper/spool_write.c
PURE_SRC   = $(FRONT_PURE_SRC) $(REAPER_PURE_SRC)
LIBS_TEST  = $(B)/libfront.a $(B)/libreaper.a $(B)/libcommon.a
SERVER_OBJ = $(SERVER_SRC:%.c=$(B)/obj/%.o) $(B)/obj/gen/schemas.o \
	$(B)/obj/gen/view.o
SERVER_LIB_OBJ = $(filter-out $(B)/obj/server/main.o,$(SERVER_OBJ))
# The server modules that hold test hooks (#ifdef PROGMUX_TESTING, see
# server.h) are built a second time with them for the unit tests; the
# binaries link the objects without.
HOOK_SRC   = server/loop.c server/mcp_session.c server/pane.c server/program.c \
	server/tools.c
HOOK_OBJ   = $(HOOK_SRC:%.c=$(B)/obj/%.hooks.o)
SERVER_TEST_OBJ = $(filter-out $(HOOK_SRC:%.c=$(B)/obj/%.o),$(SERVER_LIB_OBJ)) \
	$(HOOK_OBJ)
REAPER_OBJ = $(REAPER_SRC:%.c=$(B)/obj/%.o)
UNIT_BIN   = $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
ITEST_SRC  = $(wildcard tests/integration/test_*.c)
ITEST_BIN  = $(ITEST_SRC:tests/integration/%.c=$(B)/itests/%)
FUZZ_SRC   = $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN   = $(FUZZ_SRC:tests/fuzz/%.c=build/fuzz/%)
BENCH_SRC  = $(wildcard tests/bench/bench_*.c)
BENCH_BIN  = $(BENCH_SRC:tests/bench/%.c=$(B)/bench/%)

all: $(B)/progmux $(B)/progmux-reaper

$(B)/libcommon.a: $(COMMON_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^

$(B)/libfront.a: $(FRONT_PURE_SRC:%.c=$(B)/obj/%.o)
	rm -f $@ && $(AR) rcs $@ $^

$(B)/libreaper.a: $(REAPER_PURE_SRC:%.c=$(B)/obj/%.o)
	rm -f $@ && $(AR) rcs $@ $^

$(B)/progmux: $(SERVER_OBJ) $(B)/libcommon.a
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(PCRE_LIBS)

# The reaper is linked statically (outside sanitizer builds): one runs per
# program, and a static binary maps far less of libc (about 0.7 MiB
# resident instead of 1.6). macOS links nothing statically.
REAPER_STATIC =
ifneq ($(SAN),1)
ifneq ($(OSDEP),darwin)
REAPER_STATIC = -static
endif
endif
$(B)/progmux-reaper: $(REAPER_OBJ) $(B)/libcommon.a
	$(CC) $(LDFLAGS) $(REAPER_STATIC) -o $@ $^ $(PKG_LIBS)

# Each compile writes the headers it read to a .d file beside its output
# (-MMD; -MP: a removed header is no error), read back below: a changed
# header rebuilds what includes it (scripts/check/header-deps.sh).
DEPFLAGS = -MMD -MP

$(B)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(HOOK_OBJ): $(B)/obj/%.hooks.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -DPROGMUX_TESTING $(CFLAGS) $(DEPFLAGS) -c -o $@ $<

# Schemas are embedded byte for byte: tools/list serves what schemas/ holds.
$(B)/gen/schemas.c: $(SCHEMAS) scripts/build/embed-schemas.sh
	@mkdir -p $(B)/gen
	sh scripts/build/embed-schemas.sh $(B)/gen $(SCHEMAS)

$(B)/obj/gen/schemas.o: $(B)/gen/schemas.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Iserver $(CFLAGS) $(DEPFLAGS) -c -o $@ $<

# The view is embedded whole, as one page (resource.c serves it).
$(B)/gen/view.c: $(VIEW_SRC) scripts/build/embed-view.sh
	@mkdir -p $(B)/gen
	sh scripts/build/embed-view.sh $(B)/gen $(VIEW_SRC)

$(B)/obj/gen/view.o: $(B)/gen/view.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Iserver $(CFLAGS) $(DEPFLAGS) -c -o $@ $<

# Unit tests: tests/unit/test_server_*.c also link the server's modules.
$(B)/tests/test_server_%: tests/unit/test_server_%.c $(SERVER_TEST_OBJ) $(LIBS_TEST)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -DPROGMUX_TESTING -Iserver -Ireaper -Itests $(CFLAGS) $(DEPFLAGS) $(LDFLAGS) -o $@ $< $(SERVER_TEST_OBJ) $(LIBS_TEST) $(PKG_LIBS) $(PCRE_LIBS) $(CMOCKA_LIBS) -lm

# tests/unit/test_server_tmux.c links the control-mode parser and the
# quoting (server/tmux_parse.c, pure) and common/, nothing more.
# tests/unit/test_server_program.c links program.c alone: it defines the
# panes, reapers, input-wait checks, loop and clock program.c calls.
$(B)/tests/test_server_program: tests/unit/test_server_program.c $(B)/obj/server/program.o $(LIBS_TEST)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Iserver -Ireaper -Itests $(CFLAGS) $(DEPFLAGS) $(LDFLAGS) -o $@ $< $(B)/obj/server/program.o $(LIBS_TEST) $(PKG_LIBS) $(PCRE_LIBS) $(CMOCKA_LIBS)

$(B)/tests/test_server_tmux: tests/unit/test_server_tmux.c $(B)/obj/server/tmux_parse.o $(B)/libcommon.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Iserver -Itests $(CFLAGS) $(DEPFLAGS) $(LDFLAGS) -o $@ $< $(B)/obj/server/tmux_parse.o $(B)/libcommon.a $(CMOCKA_LIBS)

# test_jschema checks schemas/ with tests/schema_check.c.
$(B)/tests/test_jschema: tests/unit/test_jschema.c $(B)/obj/tests/schema_check.o $(LIBS_TEST)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Iserver -Itests $(CFLAGS) $(DEPFLAGS) $(LDFLAGS) -o $@ $< $(B)/obj/tests/schema_check.o $(LIBS_TEST) $(PKG_LIBS) $(PCRE_LIBS) $(CMOCKA_LIBS) -lm

$(B)/tests/%: tests/unit/%.c $(LIBS_TEST)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Iserver -Ireaper -Itests $(CFLAGS) $(DEPFLAGS) $(LDFLAGS) -o $@ $< $(LIBS_TEST) $(PKG_LIBS) $(PCRE_LIBS) $(CMOCKA_LIBS) -lm

# Programs the integration tests run in panes (tests/fixtures/*.c), in
# $(B)/fixtures beside the binaries they test.
FIXTURE_BIN = $(B)/fixtures/getpass $(B)/fixtures/pageflood
$(B)/fixtures/%: tests/fixtures/%.c
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(OPT) $(SANFLAGS) $(DEPFLAGS) $(LDFLAGS) -o $@ $<

# Test programs: `make unit` builds the unit tests (tests/unit), `make
# integration` the suites that drive build/progmux (tests/integration)
# and the programs they run.
unit: $(UNIT_BIN)

integration: $(ITEST_BIN) $(FIXTURE_BIN)

# Integration tests drive build/progmux through tests/client.c (the
# client), tests/procs.c (the processes they look at, through the port)
# and tests/harness.c (the checks and set-ups the suites share), with
# tests/sshd.c (an sshd of a test's own, the benchmarks' too), each
# compiled once (tests/schema_check.c too, for test_jschema), and tmux's
# quoting (server/tmux_parse.c): how a logged tmux command would hold a
# secret, which test_secret_page looks for.
HARNESS_OBJ = $(B)/obj/tests/client.o $(B)/obj/tests/procs.o \
	$(B)/obj/tests/harness.o $(B)/obj/tests/sshd.o \
	$(B)/obj/server/tmux_parse.o

$(B)/obj/tests/%.o: tests/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Iserver -Ireaper -Itests $(CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(B)/itests/%: tests/integration/%.c $(HARNESS_OBJ) $(LIBS_TEST)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Iserver -Ireaper -Itests $(CFLAGS) $(DEPFLAGS) $(LDFLAGS) -o $@ $< $(HARNESS_OBJ) $(LIBS_TEST) $(PKG_LIBS) $(PCRE_LIBS) $(CMOCKA_LIBS) -lm

# Fuzz targets (libFuzzer, clang): tests/fuzz/fuzz_NAME.c defines
# LLVMFuzzerTestOneInput over common/. `make fuzz` runs each briefly on
# its corpus tests/fuzz/NAME/ (FUZZ_SECONDS each, default 10).
FUZZ_SECONDS ?= 10
build/fuzz/%: tests/fuzz/%.c $(COMMON_SRC) $(PURE_SRC) tests/schema_check.c $(wildcard common/*.h server/*.h reaper/*.h tests/*.h)
	@mkdir -p $(@D)
	clang $(CPPFLAGS) -Iserver -Ireaper -Itests -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -o $@ $< $(COMMON_SRC) $(PURE_SRC) tests/schema_check.c $(PKG_LIBS) $(PCRE_LIBS)

fuzz: $(FUZZ_BIN)
	sh scripts/ci/fuzz.sh $(FUZZ_SECONDS) $(FUZZ_BIN)

# Benchmarks print figures; they never fail on a slow machine. Each
# tests/bench/bench_NAME.c is one; bench_progmux is tests/bench/progmux/,
# a file per group of figures.
BENCH_PMX_SRC = $(wildcard tests/bench/progmux/*.c)
BENCH_BIN += $(B)/bench/bench_progmux

BENCH_CLIENT_OBJ = $(B)/obj/tests/client.o $(B)/obj/tests/procs.o
$(B)/bench/%: tests/bench/%.c $(BENCH_CLIENT_OBJ) $(LIBS_TEST)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Iserver -Ireaper -Itests $(CFLAGS) $(DEPFLAGS) $(LDFLAGS) -o $@ $< $(BENCH_CLIENT_OBJ) $(LIBS_TEST) $(PKG_LIBS) $(PCRE_LIBS) -lm

$(B)/bench/bench_progmux: $(BENCH_PMX_SRC:%.c=$(B)/obj/%.o) $(BENCH_CLIENT_OBJ) \
	    $(B)/obj/tests/sshd.o $(LIBS_TEST)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(PCRE_LIBS) -lm

$(B)/obj/tests/bench/progmux/%.o: tests/bench/progmux/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Iserver -Ireaper -Itests $(CFLAGS) $(DEPFLAGS) -c -o $@ $<

bench: all $(BENCH_BIN) bench-no-page
	sh scripts/test/bench.sh $(B)

bench-smoke: all $(BENCH_BIN) bench-no-page
	BENCH_SMOKE=1 sh scripts/test/bench.sh $(B)

# The build without ask_user_secret's page, in $(B)/no-page: figure 7b
# holds a cold start against it.
bench-no-page:
	$(MAKE) B=$(B)/no-page SECRET_PAGE= all

# Installs missing Debian packages, builds, runs every test.
test:
	sh scripts/build/install-packages.sh
	$(MAKE) all unit integration
	SAN=$(SAN) sh scripts/test/test.sh $(B)

# Does it build for macOS? Cross-compiled and linked, not run (a Mac runs
# it: .github/workflows/macos.yml).
macos-gate:
	sh scripts/ci/macos-gate.sh

# The longer loops (a few minutes): test_death's kills of the front at
# random moments, DEATH_TRIALS of them in each mode (make test runs 5),
# test_strip_tmux for STRIP_TMUX_SECONDS (make test runs 10), and
# test_hosts' kills of a link, a far progmux or the hub, HOSTS_TRIALS of
# them (make test runs 3).
DEATH_TRIALS ?= 100
STRIP_TMUX_SECONDS ?= 300
HOSTS_TRIALS ?= 100
test-long: all unit integration
	PMX_DEATH_TRIALS=$(DEATH_TRIALS) \
	    PMX_STRIP_TMUX_SECONDS=$(STRIP_TMUX_SECONDS) \
	    PMX_HOSTS_TRIALS=$(HOSTS_TRIALS) \
	    TESTS="test_death test_strip_tmux test_hosts" SKIP_E2E=1 \
	    SKIP_NEWCOMER=1 sh scripts/test/test.sh $(B)

# The integration suites and the end-to-end test on each tmux version:
# 3.3a (the system's), 3.5a and 3.8 (private roots under $(B)/tmux, set
# up by scripts/test/tmux-versions.sh; nothing is installed system-wide).
test-tmux:
	sh scripts/build/install-packages.sh
	$(MAKE) all unit integration
	sh scripts/test/test-tmux.sh $(B)

# TEST_TMUX=PATH makes the tests drive that tmux binary instead of the
# tmux on PATH (the harness's PROGMUX_TEST_TMUX; progmux gets it too).
ifneq ($(TEST_TMUX),)
export PROGMUX_TEST_TMUX := $(TEST_TMUX)
endif

# progmux through the real agent clients (Claude Code, Gemini CLI, Codex,
# opencode, Kilo, Qwen Code, GitHub Copilot CLI, Cline, the MCP Inspector)
# pinned in tests/clients/package.json, installed into
# build/clients and kept there; a scripted model on 127.0.0.1 drives them.
test-clients: all
	sh scripts/clients/test-clients.sh $(B)

# ask_user_secret end to end (scripts/test/test-secrets.sh): chromium fills
# the page, the SDK clients answer the elicitation in both eras, a getpass
# program and ssh (to an sshd of the test's own) take the secret, which is
# then looked for everywhere; chromium and the npm packages are installed
# when missing. The page as rendered: build/secrets/page.png.
test-secrets: all unit integration
	sh scripts/test/test-secrets.sh $(B)

# The view (ui://progmux/view) end to end (scripts/test/test-view.sh):
# chromium renders it inside the MCP Apps SDK's AppBridge, whose MCP client
# drives progmux in both eras; a program's output must reach the page,
# Ctrl-C and Stop must work, and the page may have no error. chromium and
# the npm packages (tests/view) are installed when missing. The page as
# rendered: build/view/view-ERA.png.
test-view: all
	sh scripts/test/test-view.sh $(B)

# The official MCP conformance suite (pinned in tests/conformance, npm),
# its 2026-07-28 and its 2025 scenarios, through a stdio-to-HTTP bridge.
test-conformance: all
	sh scripts/clients/conformance.sh $(B)

# The Debian package: the binaries built again in build/deb-bin with
# Debian's hardening flags (dpkg-buildflags, hardening=+all), then
# packaged by scripts/package/deb.sh; lintian runs when it is installed.
DEB_B = build/deb-bin
deb:
	@export DEB_BUILD_MAINT_OPTIONS=hardening=+all; \
	$(MAKE) B=$(DEB_B) SAN= \
	    OPT="$$(dpkg-buildflags --get CFLAGS) $$(dpkg-buildflags --get CPPFLAGS)" \
	    LDFLAGS="$$(dpkg-buildflags --get LDFLAGS)" all
	sh scripts/package/deb.sh $(DEB_B) build
	@if command -v lintian >/dev/null 2>&1; then \
	    mkdir -p build/deb/tmp && TMPDIR=$(CURDIR)/build/deb/tmp \
	    lintian --fail-on error,warning build/progmux_$(VERSION)-1_*.deb; \
	else echo "make deb: lintian not installed; make deb-test installs it" >&2; fi

# Installs the package, runs the SDK e2e against /usr/bin/progmux and
# purges it, leaving the machine as it was (scripts/package/deb-test.sh).
deb-test: deb
	sh scripts/package/deb-test.sh build/progmux_$(VERSION)-1_$$(dpkg --print-architecture).deb

# The integration suites with progmux under valgrind (slow; not in CI).
test-valgrind: all unit integration
	for t in $(ITEST_BIN); do \
	  PROGMUX_BIN=$(CURDIR)/scripts/test/valgrind-progmux.sh $$t || exit 1; done

# The npm packages in build/npm (scripts/package/npm.sh): progmux and
# progmux-reaper built static for linux-x64 and linux-arm64 (musl and the
# libraries from the pinned sources of scripts/package/sources.lock, by
# scripts/package/static.sh), the platform packages @progmux/linux-x64 and
# @progmux/linux-arm64, the main package progmux, each packed (npm pack).
npm:
	sh scripts/build/install-packages.sh
	sh scripts/package/install-cross-tools.sh
	sh scripts/package/static.sh linux-x64
	sh scripts/package/static.sh linux-arm64
	sh scripts/package/npm.sh

# The MCP Bundles (scripts/package/mcpb.sh): build/progmux-VERSION-linux-
# x64.mcpb and -linux-arm64.mcpb, of type binary, holding make npm's static
# builds (made first if they are not there) and a manifest whose user
# configuration is server.json's settings, checked against the MCPB
# manifest schema and packed by the official mcpb tool (tests/package/mcpb).
mcpb:
	@[ -x build/npm/linux-x64/bin/progmux ] && \
	    [ -x build/npm/linux-arm64/bin/progmux ] || $(MAKE) npm
	sh scripts/package/mcpb.sh

# The bundles as a host gets them (scripts/package/mcpb-test.sh): unpacked,
# their manifests valid, this machine's started as its manifest says and
# driven on a private tmux server.
mcpb-test: mcpb
	sh scripts/package/mcpb-test.sh

# The release tarball of HEAD and the Homebrew tap's formula for it, in
# build/dist (scripts/package/dist.sh).
dist:
	sh scripts/package/dist.sh

# The Homebrew formula (packaging/homebrew-progmux) run here without
# Homebrew (scripts/package/brew-test.sh): its install block builds make
# dist's tarball into a prefix, its test block pipes initialize and
# run_program into that progmux.
brew-test:
	sh scripts/package/brew-test.sh

# The packages as a user gets them (scripts/package/npm-test.sh): the
# unit tests of both targets (arm64 under qemu-user), then per
# architecture the tarballs installed by npm into an empty prefix,
# npx progmux --check, the SDK e2e, the no-leftover tests and Claude Code
# (npx -y progmux), x86_64 natively and arm64 under qemu.
npm-test: npm
	sh scripts/package/install-cross-tools.sh qemu
	sh scripts/package/npm-test.sh

# stdout is the protocol: everything else goes to stderr.
run:
	@sh scripts/build/install-packages.sh >&2
	@$(MAKE) -s all >&2
	@exec ./$(B)/progmux

clean:
	rm -rf build

.PHONY: macos-gate npm npm-test mcpb mcpb-test dist brew-test deb deb-test all unit integration test test-long test-tmux test-clients test-conformance test-secrets test-view test-valgrind run clean fuzz bench bench-smoke bench-no-page install uninstall demo
.SECONDARY:

# Install both binaries into one directory (progmux finds progmux-reaper
# beside its own executable) and the man page. PREFIX and DESTDIR as usual.
PREFIX ?= /usr/local
BINDIR  = $(PREFIX)/bin
MAN1DIR = $(PREFIX)/share/man/man1

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MAN1DIR)
	install -m 0755 $(B)/progmux $(B)/progmux-reaper $(DESTDIR)$(BINDIR)/
	install -m 0644 progmux.1 $(DESTDIR)$(MAN1DIR)/progmux.1

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/progmux $(DESTDIR)$(BINDIR)/progmux-reaper
	rm -f $(DESTDIR)$(MAN1DIR)/progmux.1

# A short scripted session to watch (DEMO_FAST=1: no pauses).
demo: all
	PROGMUX_BIN=$(B)/progmux node scripts/demo/demo.mjs

# The control-mode line parser (server/tmux_parse.c): pure, so it links
# with common/'s buffer and allocator alone.
FUZZ_TMUX_PARSE_SRC = server/tmux_parse.c common/buf.c common/xmalloc.c
build/fuzz/fuzz_tmux_parse: tests/fuzz/fuzz_tmux_parse.c $(FUZZ_TMUX_PARSE_SRC) \
    $(wildcard common/*.h server/*.h)
	@mkdir -p $(@D)
	clang $(CPPFLAGS) -Iserver -std=gnu11 -g -O1 \
	    -fsanitize=fuzzer,address,undefined -o $@ $< $(FUZZ_TMUX_PARSE_SRC)

# The front's JSON-RPC input path (mcp.c, tools.c, the tools) under
# libFuzzer: every server module but main.c, the embedded schemas and
# common/. fork() and posix_spawn() are wrapped so no child can ever be
# made (see the harness).
FUZZ_MCP_SRC = $(filter-out server/main.c,$(SERVER_SRC)) $(B)/gen/schemas.c \
	$(B)/gen/view.c $(COMMON_SRC)
build/fuzz/fuzz_mcp: tests/fuzz/fuzz_mcp.c $(FUZZ_MCP_SRC) \
    $(wildcard common/*.h server/*.h)
	@mkdir -p $(@D)
	clang $(CPPFLAGS) -DPROGMUX_TESTING -Iserver -std=gnu11 -g -O1 \
	    -fsanitize=fuzzer,address,undefined \
	    -Wl,--wrap=fork,--wrap=posix_spawn -o $@ \
	    $< $(FUZZ_MCP_SRC) $(PKG_LIBS) $(PCRE_LIBS)

# ask_user_secret's page (server/secret_page.c and its HTTP,
# server/page_http.c) under libFuzzer, over real loopback connections:
# the same objects as fuzz_mcp's, nothing wrapped (the harness starts no
# tmux and no program).
build/fuzz/fuzz_page: tests/fuzz/fuzz_page.c $(FUZZ_MCP_SRC) \
    $(wildcard common/*.h server/*.h)
	@mkdir -p $(@D)
	clang $(CPPFLAGS) -DPROGMUX_TESTING -Iserver -std=gnu11 -g -O1 \
	    -fsanitize=fuzzer,address,undefined -o $@ \
	    $< $(FUZZ_MCP_SRC) $(PKG_LIBS) $(PCRE_LIBS)

# The headers each object and test program was built from (DEPFLAGS).
-include $(wildcard $(B)/obj/*/*.d $(B)/obj/tests/bench/progmux/*.d \
	$(B)/fixtures/*.d $(B)/tests/*.d $(B)/itests/*.d $(B)/bench/*.d)
