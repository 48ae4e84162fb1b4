# Makefile — builds libwheelmatrix and the wheelmatrix tool into build/ (GNU make; Linux, macOS).
#
#   make                      build build/wheelmatrix
#   make check                build, then run tests/run.sh (installs the tests' Debian packages,
#                             npm validators, pinned test tools, validators and test data first,
#                             under ~/.cache/wheelmatrix, and says what is there and its size)
#   make check-fast           build, then run the unit tests, the golden cases and the scripts that
#                             build no wheels and run no slow tool (tests/run.sh --fast: what is
#                             heavy says so, tests/README.md), with what make check installed
#   make clean-cache          remove ~/.cache/wheelmatrix (${XDG_CACHE_HOME}/wheelmatrix), which
#                             `make clean` keeps: the next `make check` installs it all again
#   make check-e2e            only the end-to-end tests (tests/t-e2e-*.sh): the fixture projects
#                             built with real maturin, auditwheel, pip and uv (make check runs them too)
#   make validators           install the pinned workflow validators (tests/tools/install-validators.sh)
#   make testdata             install the pinned test data: the toml-test suite and the real-project
#                             corpus (tests/tools/install-testdata.sh), PyO3's crates (install-crates.sh)
#   make DEVELOPER=1          warnings are errors, and more of them
#   make SANITIZE=address,undefined
#                             AddressSanitizer and UBSan; arena allocations become real mallocs
#   make V=1                  show the commands
#   make LINKED=1             libcurl and libgit2 linked, not loaded when first needed (the wheel's
#                             build: pyproject.toml, docs/install.md; the default on macOS)
#   make install PREFIX=/usr/local DESTDIR=
#                             the binary, the manual page, the docs and the bash, zsh and fish completions
#                             (and the schema under DATADIR); the build is not changed by PREFIX
#                             (SCHEMA_URL= alone is built in: what `init` names, docs/init.md)
#   make schema               write docs/wheelmatrix.schema.json from the loader's tables and catalogs
#   make demo                 install the build dependencies if needed, build, list matrices/llm-rs.yaml
#                             and generate its CI (GitHub Actions, GitLab CI) into build/demo/
#   make fuzz FUZZ_TIME=60    install clang if needed, build the libFuzzer targets of tests/fuzz/
#                             (ASan and UBSan) into build/fuzz/ and run each for FUZZ_TIME seconds
#                             (FUZZ_TARGETS=name... picks some); fails when one finds a crash

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share
DOCDIR ?= $(DATADIR)/doc/wheelmatrix
# The schema `init` names in the matrix's first line (docs/init.md): empty, the versioned URL of the
# JSON Schema Store (lib/init/init.c, docs/schemastore/); a package that publishes the schema
# elsewhere sets its URL (no spaces or quotes).  Nothing of PREFIX or DATADIR is built into the
# program, so that `make install PREFIX=...` installs the build as it is, never rebuilds it.
SCHEMA_URL ?=
PKG_CONFIG ?= pkg-config
HOSTCC ?= cc
CFLAGS ?= -O2 -g
LDFLAGS ?=
INSTALL ?= install

PKGS = yaml-0.1 jansson libgit2 libcurl
# The Debian packages that `demo` (through `deps`) makes sure of.
DEB_PKGS = gcc make pkg-config libyaml-dev libjansson-dev libgit2-dev libcurl4-openssl-dev python3
# The Debian packages the tests use, which `check` (through `test-deps`) makes sure of:
# git; PyYAML; shellcheck; groff (the manual page); plan's tests: nginx serving a static index
# over http and https (a CA made with openssl) and Chromium rendering the report; the meta
# package's wheel: Debian's pip, setuptools and wheel; the end-to-end tests: a venv of Debian's
# python3 for the pinned PyPI tools (flock from util-linux), build-essential's linker for the Rust
# builds and python3-dev; gitlab-ci-local copies each job's checkout with rsync; Node.js runs the
# npm validators (Debian's, unless the machine has its own); zsh and fish load the completion scripts;
# strace counts the writes of a diagnostic.
TEST_DEB_PKGS = build-essential git python3-yaml shellcheck groff-base util-linux nginx openssl chromium zsh fish strace \
	python3-venv python3-pip python3-setuptools python3-wheel python3-dev ca-certificates rsync \
	$(if $(shell command -v node && command -v npm),,nodejs npm)

B = build
WM_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Ilib
ifdef DEVELOPER
WM_CFLAGS += -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wpointer-arith \
	-Wvla -Wformat=2 -Wundef -Wold-style-definition
endif
ifdef SANITIZE
WM_CFLAGS += -fsanitize=$(SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer -DWM_ARENA_MALLOC
WM_LDFLAGS += -fsanitize=$(SANITIZE)
endif

# pkg-config runs once per make, and only when a rule needs its answer (not for `clean`).
PKG_CFLAGS = $(eval PKG_CFLAGS := $$(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null))$(PKG_CFLAGS)
# libcurl and libgit2 are not linked: lib/index/net.c loads libcurl with dlopen when `plan` needs
# it, lib/repo/repo.c libgit2 when a command needs the repository (only their headers are used
# at build time), so no command pays for loading them and the 30 libraries they need unless it
# uses them.  libgit2's soname changes with each minor version: it is read from the library
# pkg-config names, the one the headers came with.
DLOPEN_PKGS = libcurl libgit2
# LINKED=1 links them instead (-DWM_LINKED, no soname read): the build of the wheel (pyproject.toml,
# docs/install.md), whose repair bundles only the libraries the program names as needed; and the
# default on macOS, where a library has an install name, not a soname objdump would print.
ifeq ($(shell uname -s),Darwin)
LINKED ?= 1
endif
ifeq ($(LINKED),1)
DLOPEN_PKGS =
endif
PKG_LIBS = $(eval PKG_LIBS := $$(shell $(PKG_CONFIG) --libs $(filter-out $(DLOPEN_PKGS),$(PKGS)) 2>/dev/null))$(PKG_LIBS)
LIBGIT2_SONAME = $(eval LIBGIT2_SONAME := $$(shell objdump -p "$$$$($(PKG_CONFIG) --variable=libdir libgit2 2>/dev/null)/libgit2.so" \
	2>/dev/null | awk '$$$$1 == "SONAME" { print $$$$2 }'))$(LIBGIT2_SONAME)
.DEFAULT_GOAL := all

# What the sources are built with in every build, the fuzzing one too.
WM_DEFINES = $(if $(filter 1,$(LINKED)),-DWM_LINKED,-DWM_LIBGIT2_SONAME='"$(LIBGIT2_SONAME)"') $(if $(SCHEMA_URL),-DWM_SCHEMA_URL='"$(SCHEMA_URL)"')
ALL_CFLAGS = $(WM_CFLAGS) $(WM_DEFINES) $(PKG_CFLAGS) $(CPPFLAGS) $(CFLAGS)
ALL_LDFLAGS = $(WM_LDFLAGS) $(LDFLAGS)

ifeq ($(V),1)
Q =
quiet = @:
else
Q = @
quiet = @printf '  %-5s %s\n'
endif

LIB_SRCS = $(sort $(wildcard lib/*/*.c)) $(B)/templates.c $(B)/templates-tree.c
CMD_SRCS = $(sort $(wildcard cmd/*.c))
UNIT_SRCS = $(sort $(wildcard tests/unit/*.c))
# Every file under templates/ except the tools that embed them (and hidden files or editor backups).
TEMPLATES = $(sort $(filter-out templates/embed.c templates/yamltree.c %~,$(shell find templates -type f ! -name '.*' 2>/dev/null)))
YAML_TEMPLATES = $(filter %.yaml,$(TEMPLATES))
# What templates/yamltree.c links: the library's YAML reader and what it stands on.
YAMLTREE_OBJS = $(call obj,templates/yamltree.c lib/formats/yaml.c $(wildcard lib/util/*.c))

obj = $(patsubst %.c,$(B)/obj/%.o,$(1))
LIB_OBJS = $(call obj,$(LIB_SRCS))
CMD_OBJS = $(call obj,$(CMD_SRCS))
UNIT_BINS = $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRCS))
# Programs the test scripts run: the toml-test decoder, the variant patch driver, the index dump.
TEST_BINS = $(B)/tests/toml-decode $(B)/tests/patch-apply $(B)/tests/index-dump $(B)/tests/schema-write \
	$(B)/tests/refs-fetch
LIB = $(B)/libwheelmatrix.a
TOOL = $(B)/wheelmatrix
# The shell completion scripts, each written by the tool (`wheelmatrix completion SHELL`, the
# shell being the name of its directory) from its command and option tables.
COMPLETIONS = $(B)/completions/bash/wheelmatrix $(B)/completions/zsh/_wheelmatrix $(B)/completions/fish/wheelmatrix.fish

.PHONY: all schema check check-only check-fast check-e2e tools validators testdata install clean clean-cache demo deps test-deps fuzz fuzz-build fuzz-deps FORCE
.DELETE_ON_ERROR:
# The unit tests' objects are made by a chain of pattern rules: keep them, and their .d files.
.SECONDARY: $(call obj,$(UNIT_SRCS))

all: $(TOOL) $(COMPLETIONS)

# Rebuild everything when the compiler or its flags change: build/flags changes only then.
FLAGS_TEXT = $(CC) $(ALL_CFLAGS) | $(ALL_LDFLAGS) $(PKG_LIBS)
$(B)/flags: FORCE
	@if ! $(PKG_CONFIG) --exists $(PKGS) 2>/dev/null; then \
		echo "Makefile: pkg-config does not find $(PKGS); 'make deps' installs the build dependencies" >&2; \
		exit 1; \
	fi
	@if [ -z '$(if $(filter 1,$(LINKED)),linked,$(LIBGIT2_SONAME))' ]; then \
		echo "Makefile: cannot read the soname of $$($(PKG_CONFIG) --variable=libdir libgit2)/libgit2.so with objdump (binutils)" >&2; \
		exit 1; \
	fi
	@mkdir -p $(B)
	@printf '%s\n' '$(FLAGS_TEXT)' | cmp -s - $@ || printf '%s\n' '$(FLAGS_TEXT)' > $@

# The same for the list of templates, so that removing one regenerates templates.c.
$(B)/templates.list: FORCE
	@mkdir -p $(B)
	@printf '%s\n' $(TEMPLATES) | cmp -s - $@ || printf '%s\n' $(TEMPLATES) > $@

$(B)/embed: templates/embed.c
	$(quiet) HOSTCC $@
	@mkdir -p $(B)
	$(Q)$(HOSTCC) -std=c11 -O2 -Wall -Wextra -o $@ $<

$(B)/templates.c: $(B)/embed $(B)/templates.list $(TEMPLATES)
	$(quiet) GEN $@
	$(Q)$(B)/embed templates $(patsubst templates/%,%,$(TEMPLATES)) > $@+
	$(Q)mv $@+ $@

# The YAML templates parsed at build time by the library's own reader, as static trees, so that
# no command parses them again at start (model/catalog.c, wm_catalog_template_parse).
$(B)/yamltree: $(YAMLTREE_OBJS)
	$(quiet) LINK $@
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS)

$(B)/templates-tree.c: $(B)/yamltree $(B)/templates.list $(YAML_TEMPLATES)
	$(quiet) GEN $@
	$(Q)$(B)/yamltree templates $(patsubst templates/%,%,$(YAML_TEMPLATES)) > $@+
	$(Q)mv $@+ $@

$(B)/obj/%.o: %.c $(B)/flags
	$(quiet) CC $<
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(LIB): $(LIB_OBJS)
	$(quiet) AR $@
	$(Q)rm -f $@
	$(Q)$(AR) rcs $@ $^

$(TOOL): $(CMD_OBJS) $(LIB)
	$(quiet) LINK $@
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $(CMD_OBJS) $(LIB) $(PKG_LIBS)

$(COMPLETIONS): $(TOOL)
	$(quiet) GEN $@
	@mkdir -p $(@D)
	$(Q)$(TOOL) completion $(notdir $(@D)) > $@+
	$(Q)mv $@+ $@

# Unit tests may include the modules' headers (lib/*/*.h); each is one program linked against the library.
$(B)/tests/%: $(B)/obj/tests/unit/%.o $(LIB)
	$(quiet) LINK $@
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(LIB) $(PKG_LIBS)

# The toml-test decoder (tests/t-toml-test.sh) reads TOML and writes the suite's JSON with Jansson.
$(B)/tests/toml-decode: $(B)/obj/tests/progs/toml-decode.o $(LIB)
	$(quiet) LINK $@
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(LIB) $(PKG_LIBS)

# The index dump (tests/t-git-index.sh) prints what repo/gitindex.c reads, or (linked with
# libgit2) what libgit2 reads.
$(B)/tests/index-dump: $(B)/obj/tests/progs/index-dump.o $(LIB)
	$(quiet) LINK $@
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(LIB) $(PKG_LIBS) $(shell $(PKG_CONFIG) --libs libgit2)

# The JSON Schema of wheelmatrix.yaml (lib/model/jsonschema.c): `make schema` writes
# docs/wheelmatrix.schema.json with it, tests/t-schema.sh checks the file is what it writes.
$(B)/tests/schema-write: $(B)/obj/tests/progs/schema-write.o $(LIB)
	$(quiet) LINK $@
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(LIB) $(PKG_LIBS)

schema: $(B)/tests/schema-write
	$(quiet) GEN docs/wheelmatrix.schema.json
	$(Q)$(B)/tests/schema-write > docs/wheelmatrix.schema.json+
	$(Q)mv docs/wheelmatrix.schema.json+ docs/wheelmatrix.schema.json

# The variant patch driver (tests/t-patches.sh) applies a spec file to a pyproject.toml.
$(B)/tests/patch-apply: $(B)/obj/tests/progs/patch-apply.o $(LIB)
	$(quiet) LINK $@
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(LIB) $(PKG_LIBS)

# The ref advertisement driver (tests/t-refs-forge.sh) asks a forge for repositories' tags through index/refs.c.
$(B)/tests/refs-fetch: $(B)/obj/tests/progs/refs-fetch.o $(LIB)
	$(quiet) LINK $@
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(LIB) $(PKG_LIBS)

# The build a check needs is a nested make that prints what it builds: -s, unless V=1, so that each
# target it finds up to date is not a line of its own.
CHECK_SILENT = $(if $(filter 1,$(V)),,-s)

check: test-deps validators testdata
	@$(MAKE) --no-print-directory $(CHECK_SILENT) $(TOOL) $(COMPLETIONS) $(UNIT_BINS) $(TEST_BINS) tools
	@tests/tools/cache-summary.sh
	@tests/run.sh

check-only: $(TOOL) $(COMPLETIONS) $(UNIT_BINS) $(TEST_BINS) tools validators testdata
	@tests/run.sh

# The quick part of check, on what check installed: no installer runs (a missing tool fails its test
# with the command that installs it).
check-fast:
	@$(MAKE) --no-print-directory $(CHECK_SILENT) $(TOOL) $(COMPLETIONS) $(UNIT_BINS) $(TEST_BINS)
	@tests/run.sh --fast

check-e2e: deps
	@$(MAKE) --no-print-directory $(CHECK_SILENT) $(TOOL) tools
	@tests/run.sh t-e2e-

# The end-to-end tests' tools (maturin, auditwheel, uv: tests/tools/requirements.txt, pinned by
# hash) in a virtual environment under ~/.cache/wheelmatrix, which `make clean` keeps; made once.
# Then the CUDA runtime the CUDA import test links (tests/tools/cuda-requirements.txt), the build
# requirements of wheelmatrix's own wheel (tests/tools/wheel-requirements.txt) for its offline builds,
# the wheelhouse of pytest the replayed test steps install from (tests/tools/pytest-requirements.txt),
# that of the publishing jobs' build and twine (tests/tools/publish-requirements.txt), the wheels
# of the GitLab publish job's hashed lock (templates/publish-lock.txt); then Zig and the two sdists
# t-takeover-build builds (tests/tools/install-takeover-build.sh).
tools:
	@tests/tools/install.sh
	@tests/tools/install-cuda.sh
	@tests/tools/install-wheelhouse.sh
	@tests/tools/install-pytest.sh
	@tests/tools/install-publish.sh
	@tests/tools/install-publish-job.sh
	@tests/tools/install-takeover-build.sh

install: $(TOOL) $(COMPLETIONS)
	$(INSTALL) -d '$(DESTDIR)$(BINDIR)'
	$(INSTALL) -m 755 $(TOOL) '$(DESTDIR)$(BINDIR)/wheelmatrix'
	$(INSTALL) -d '$(DESTDIR)$(DATADIR)/bash-completion/completions' '$(DESTDIR)$(DATADIR)/zsh/site-functions' \
		'$(DESTDIR)$(DATADIR)/fish/vendor_completions.d'
	$(INSTALL) -m 644 $(B)/completions/bash/wheelmatrix '$(DESTDIR)$(DATADIR)/bash-completion/completions/wheelmatrix'
	$(INSTALL) -m 644 $(B)/completions/zsh/_wheelmatrix '$(DESTDIR)$(DATADIR)/zsh/site-functions/_wheelmatrix'
	$(INSTALL) -m 644 $(B)/completions/fish/wheelmatrix.fish \
		'$(DESTDIR)$(DATADIR)/fish/vendor_completions.d/wheelmatrix.fish'
ifneq ($(wildcard docs/wheelmatrix.1),)
	$(INSTALL) -d '$(DESTDIR)$(MANDIR)/man1'
	$(INSTALL) -m 644 docs/wheelmatrix.1 '$(DESTDIR)$(MANDIR)/man1/wheelmatrix.1'
endif
	$(INSTALL) -d '$(DESTDIR)$(DOCDIR)'
	$(INSTALL) -m 644 docs/*.md '$(DESTDIR)$(DOCDIR)/'
	$(INSTALL) -d '$(DESTDIR)$(DATADIR)/wheelmatrix'
	$(INSTALL) -m 644 docs/wheelmatrix.schema.json '$(DESTDIR)$(DATADIR)/wheelmatrix/wheelmatrix.schema.json'


clean:
	rm -rf $(B)

# What `make check` installed outside build/ (tests/tools/cache-summary.sh lists it): `make clean`
# keeps it, so that the next check does not download it all again; this removes it.
clean-cache:
	rm -rf "$${XDG_CACHE_HOME:-$$HOME/.cache}/wheelmatrix"

# Installs the Debian packages $(1) that are missing: with apt-get as root (tests/tools/apt-install.sh,
# a line per package), otherwise it prints the command to run; a line says when all are there.
# Without dpkg it can only check the commands and libraries and tell.
define apt_install
	@missing=; \
	if command -v dpkg >/dev/null 2>&1; then \
		for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	else \
		for c in $(CC) make $(PKG_CONFIG); do command -v $$c >/dev/null 2>&1 || missing="$$missing $$c"; done; \
		$(PKG_CONFIG) --exists $(PKGS) 2>/dev/null || missing="$$missing $(PKGS)"; \
		if [ -n "$$missing" ]; then echo "$@: missing:$$missing" >&2; exit 1; fi; \
	fi; \
	if [ -z "$$missing" ]; then echo "$@: $(words $(1)) Debian packages: installed already"; exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
		tests/tools/apt-install.sh $@ $$missing; \
	else \
		echo "$@: missing packages:$$missing; install them with:" >&2; \
		echo "  sudo apt-get install -y$$missing" >&2; \
		exit 1; \
	fi
endef

# The build dependencies.
deps:
	$(call apt_install,$(DEB_PKGS))

# The tests' Debian packages, the pinned npm validators (action-validator, gitlab-ci-local:
# exactly as tests/external/package-lock.json says, installed again when the lockfile changes),
# Rust (PyO3 0.29 needs Rust 1.83 or later, newer than Debian 12's, so rustup's is expected) and
# Go (1.21 or later for the validators and the test data: go.dev's, in /usr/local/go or on PATH).
# A line each says what is installed.
test-deps: deps
	$(call apt_install,$(TEST_DEB_PKGS))
	@if cmp -s tests/external/package-lock.json tests/external/node_modules/.wheelmatrix-lock; then \
		echo "test-deps: action-validator, gitlab-ci-local (tests/external/package-lock.json): installed already"; \
	else \
		echo "test-deps: npm ci --prefix tests/external (action-validator, gitlab-ci-local)"; \
		npm ci --prefix tests/external --no-audit --no-fund --loglevel=error && \
		cp tests/external/package-lock.json tests/external/node_modules/.wheelmatrix-lock; \
	fi
	@cargo=$$(command -v cargo || echo "$$HOME/.cargo/bin/cargo"); \
	if [ -x "$$cargo" ]; then echo "test-deps: $$("$$cargo" --version): installed already in $${cargo%/*}"; else \
		echo "test-deps: cargo is missing: install Rust 1.83 or later with rustup:" >&2; \
		echo "  curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y" >&2; exit 1; fi
	@go=$$(command -v go || echo /usr/local/go/bin/go); \
	if [ -x "$$go" ]; then echo "test-deps: $$("$$go" version): installed already in $${go%/*}"; else \
		echo "test-deps: Go is missing: actionlint and toml-test are built with Go 1.21 or newer" \
			"(Debian 12's golang-go is 1.19); install it from https://go.dev/doc/install into /usr/local/go" >&2; exit 1; fi

# The workflow validators the tests run (zizmor, actionlint), pinned in tests/tools/ and installed
# outside build/, under ${XDG_CACHE_HOME:-$HOME/.cache}/wheelmatrix/validators/; and the parser of
# the generated PowerShell (tree-sitter), under .../powershell-parser/.
validators: deps
	@tests/tools/install-validators.sh
	@tests/tools/install-powershell-parser.sh

# The test data (the toml-test suite from the Go module proxy, the corpus of real projects' sdists from
# PyPI), pinned in tests/tools/ and installed under ${XDG_CACHE_HOME:-$HOME/.cache}/wheelmatrix/testdata/;
# and PyO3's crates from crates.io (tests/tools/crates.txt), under .../wheelmatrix/crates/.
testdata: deps
	@tests/tools/install-testdata.sh
	@tests/tools/install-crates.sh

# The demo repository: the bundled example as build/demo/wheelmatrix.yaml, and what generate writes beside it.
demo: deps
	@$(MAKE) --no-print-directory all
	$(TOOL) -f matrices/llm-rs.yaml list
	@mkdir -p $(B)/demo
	@cp matrices/llm-rs.yaml $(B)/demo/wheelmatrix.yaml
	$(TOOL) -C $(B)/demo generate

# ---- fuzzing (tests/fuzz/): libFuzzer targets, ASan and UBSan, clang only -------------------
# The library is built again with clang into build/fuzz/, apart from the normal objects.
FUZZ_CC ?= clang
FUZZ_TIME ?= 60
FB = $(B)/fuzz
FUZZ_SRCS = $(sort $(wildcard tests/fuzz/*.c))
FUZZ_TARGETS ?= $(patsubst tests/fuzz/%.c,%,$(FUZZ_SRCS))
FUZZ_BINS = $(patsubst %,$(FB)/fuzz-%,$(FUZZ_TARGETS))
FUZZ_SAN = address,undefined
FUZZ_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Ilib -g -O1 -DWM_ARENA_MALLOC $(WM_DEFINES) \
	-fsanitize=fuzzer-no-link,$(FUZZ_SAN) -fno-sanitize-recover=all -fno-omit-frame-pointer $(PKG_CFLAGS)
fobj = $(patsubst %.c,$(FB)/obj/%.o,$(1))
FUZZ_LIB = $(FB)/libwheelmatrix.a
# The targets' objects come from a chain of pattern rules: keep them.
.SECONDARY: $(call fobj,$(FUZZ_SRCS))
# The Debian packages of clang 14 and its libFuzzer runtime.
FUZZ_DEB_PKGS = clang libclang-rt-14-dev

$(FB)/flags: FORCE
	@mkdir -p $(FB)
	@printf '%s\n' '$(FUZZ_CC) $(FUZZ_CFLAGS) $(PKG_LIBS)' | cmp -s - $@ || \
		printf '%s\n' '$(FUZZ_CC) $(FUZZ_CFLAGS) $(PKG_LIBS)' > $@

$(FB)/obj/%.o: %.c $(FB)/flags
	$(quiet) FUZZCC $<
	@mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c -o $@ $<

$(FUZZ_LIB): $(call fobj,$(LIB_SRCS))
	$(quiet) AR $@
	$(Q)rm -f $@
	$(Q)$(AR) rcs $@ $^

# Linked with libgit2 too: fuzz-patch keeps it started for the whole run (repo.c loads the same
# library by its soname, so both share its state).
$(FB)/fuzz-%: $(FB)/obj/tests/fuzz/%.o $(FUZZ_LIB)
	$(quiet) LINK $@
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer,$(FUZZ_SAN) -o $@ $< $(FUZZ_LIB) $(PKG_LIBS) \
		$(shell $(PKG_CONFIG) --libs libgit2)

# clang and libFuzzer: installed with apt-get as root, otherwise the command to run is printed.
fuzz-deps: deps
	$(call apt_install,$(FUZZ_DEB_PKGS))

fuzz-build: fuzz-deps
	@$(MAKE) --no-print-directory $(FUZZ_BINS)

fuzz: fuzz-build
	@tests/fuzz/run.sh $(FUZZ_TIME) $(FUZZ_TARGETS)

FORCE:

-include $(wildcard $(B)/obj/lib/*/*.d $(B)/obj/cmd/*.d $(B)/obj/tests/progs/*.d $(B)/obj/tests/unit/*.d $(B)/obj/$(B)/*.d)
-include $(wildcard $(FB)/obj/lib/*/*.d $(FB)/obj/tests/fuzz/*.d $(FB)/obj/$(B)/*.d)
