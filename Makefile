# artemis-gitops: one non-recursive GNU Makefile (style.md 2.12).
#
#   make            release build: build/artemis-gitops
#   make check      sanitizer build (ASan+UBSan, -Werror) and every test:
#                   the runner's self-test (tests/run-selftest),
#                   unit (cmocka), golden, fuzz corpus replay, integration
#                   against real Artemis brokers (started by scripts/artemis)
#   make unit | golden | integration | corpus   one stage, sanitizer build
#   make compat     the broker-facing integration scripts again on older
#                   Artemis releases (AG_COMPAT_VERSIONS, default 2.28.0;
#                   part of make check; make soak adds 2.31.2 2.37.0 2.40.0)
#   make soak       the long proofs (tests/soak/*.sh, each printing TAP and
#                   counted like the other stages) against real brokers:
#                   the kill -9 loop of apply resumption (about 20 minutes)
#   make lint       cppcheck, clang-tidy, the layering check
#                   (scripts/check-layers over the release objects) and
#                   mandoc -Tlint over the man pages (man/)
#   make schema     regenerate schema/declarations.schema.json from the
#                   loader's tables (`artemis-gitops schema`; a test fails
#                   while the committed file differs)
#   make deb        the Debian package, ../artemis-gitops_VERSION-1_ARCH.deb
#                   (dpkg-buildpackage -us -uc -b; debian/)
#   make format     clang-format -i over the sources
#   make fuzz       libFuzzer binaries with clang (build/fuzz/)
#   make demo       the README's main job
#   make bench      benchmarks (bench/)

CC      ?= cc
PKGS     = yaml-0.1 libgit2 libcurl libcjson libxml-2.0 libsystemd \
           libmicrohttpd md4c-html libgvc gpgme
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# Graphviz's dot layout and core renderers, linked in (agent/web/graph-svg.c)
GV_PLUGINS := $(shell pkg-config --variable=libdir libgvc 2>/dev/null)/graphviz
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -pthread \
              -L$(GV_PLUGINS) -Wl,-rpath,$(GV_PLUGINS) -lgvplugin_dot_layout \
              -lgvplugin_core
CMOCKA_LIBS := $(shell pkg-config --libs cmocka 2>/dev/null)

WARN     = -Wall -Wextra -Wshadow -Wconversion -Wformat=2 -Wstrict-prototypes \
           -Wmissing-prototypes -Wold-style-definition -Wpointer-arith -Wcast-qual \
           -Wwrite-strings -Wvla -Wundef
BASE_CFLAGS = -std=gnu17 -D_GNU_SOURCE -pthread -g $(WARN) $(PKG_CFLAGS) -MMD -MP
REL_CFLAGS  = $(BASE_CFLAGS) -O2 -D_FORTIFY_SOURCE=2 -fstack-protector-strong
DBG_CFLAGS  = $(BASE_CFLAGS) -O0 -Werror -fsanitize=address,undefined \
              -fno-sanitize-recover=all -fno-omit-frame-pointer
DBG_LDFLAGS = -fsanitize=address,undefined

VERSION := $(shell cat VERSION 2>/dev/null || echo 0.0.0)
BASE_CFLAGS += -DAGENT_VERSION='"$(VERSION)"'

# Module sources. agent/main.c is the only file with a main().
LIB_SRC   := $(sort $(wildcard lib/*.c))
DECL_SRC  := $(sort $(wildcard declarations/*.c declarations/render/*.c))
RECON_SRC := $(sort $(wildcard reconcile/*.c reconcile/live/*.c \
               reconcile/plan/*.c reconcile/import/*.c reconcile/apply/*.c))
AGENT_SRC := $(filter-out agent/main.c,$(sort $(wildcard agent/*.c \
               agent/web/*.c agent/webhook/*.c agent/mcp/*.c agent/daemon/*.c)))
CORE_SRC  := $(LIB_SRC) $(DECL_SRC) $(RECON_SRC) $(AGENT_SRC)
UNIT_SRC  := $(sort $(wildcard tests/unit/test-*.c))
FUZZ_SRC  := $(sort $(wildcard tests/fuzz/fuzz-*.c))
FUZZ_NAMES := $(filter-out main,$(patsubst tests/fuzz/fuzz-%.c,%,$(FUZZ_SRC)))

REL = build/rel
DBG = build/asan

REL_OBJ := $(CORE_SRC:%.c=$(REL)/%.o)
DBG_OBJ := $(CORE_SRC:%.c=$(DBG)/%.o)

BIN      = build/artemis-gitops
DBG_BIN  = $(DBG)/artemis-gitops
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(DBG)/tests/%)
REPLAY_BIN := $(FUZZ_NAMES:%=$(DBG)/tests/replay-%)
TOOL_SRC  := $(sort $(wildcard tests/tools/*.c))
TOOL_BIN  := $(TOOL_SRC:tests/tools/%.c=$(DBG)/tools/%)

PREFIX  ?= /usr/local
DESTDIR ?=
# Where `make install` puts what is not under bin/ (the Debian package
# sets UNITDIR=/lib/systemd/system and ZSHCOMPDIR to Debian's
# vendor-completions; debian/rules).
UNITDIR     ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
TMPFILESDIR ?= $(PREFIX)/lib/tmpfiles.d
MANDIR      ?= $(PREFIX)/share/man
DOCDIR      ?= $(PREFIX)/share/doc/artemis-gitops
DATADIR     ?= $(PREFIX)/share/artemis-gitops
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/site-functions
# The program that writes the completion scripts (`completion bash|zsh`):
# the release binary; tests pass the sanitizer build's.
COMPLETION_BIN ?= $(BIN)
COMPLETIONS = build/completion/artemis-gitops.bash build/completion/_artemis-gitops
MAN_PAGES   = $(sort $(wildcard man/*.[1-8]))

.PHONY: test all check unit golden corpus integration compat soak lint format format-check \
        fuzz demo bench clean install install-systemd golden-update asan \
        install-bin install-doc install-man install-completion schema deb lint-man

all: $(BIN) $(COMPLETIONS)

$(BIN): $(REL_OBJ) $(REL)/agent/main.o
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

# Shell completion, generated from the command table by the binary itself.
build/completion/artemis-gitops.bash: $(COMPLETION_BIN)
	@mkdir -p $(dir $@)
	$(COMPLETION_BIN) completion bash >$@.tmp && mv $@.tmp $@

build/completion/_artemis-gitops: $(COMPLETION_BIN)
	@mkdir -p $(dir $@)
	$(COMPLETION_BIN) completion zsh >$@.tmp && mv $@.tmp $@

# The declarations' JSON Schema, generated from the loader's tables.
schema: $(BIN)
	$(BIN) schema >schema/declarations.schema.json.tmp
	mv schema/declarations.schema.json.tmp schema/declarations.schema.json

# The Debian package, built in a copy of the tree (the files git knows and
# the new ones it does not ignore) so this one stays clean; the .deb (and
# .buildinfo, .changes) land in DEB_DIR.
DEB_DIR ?= build/deb
deb:
	rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)/src
	git ls-files -z -co --exclude-standard | \
	  tar --null -T - --ignore-failed-read -cf - | tar -xf - -C $(DEB_DIR)/src
	cd $(DEB_DIR)/src && DEB_BUILD_OPTIONS="parallel=2 $${DEB_BUILD_OPTIONS:-}" \
	  dpkg-buildpackage -us -uc -b

$(REL)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(REL_CFLAGS) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(DBG)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(DBG_CFLAGS) $(CFLAGS) -c -o $@ $<

$(DBG_BIN): $(DBG_OBJ) $(DBG)/agent/main.o
	$(CC) $(DBG_LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

# Unit tests, corpus replays and test tools link the objects through an
# archive, so only the members they use are pulled in (agent/ objects call
# helpers that live in agent/main.c).
$(DBG)/libag.a: $(DBG_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(DBG)/tests/test-%: $(DBG)/tests/unit/test-%.o $(DBG)/libag.a
	@mkdir -p $(dir $@)
	$(CC) $(DBG_LDFLAGS) -o $@ $^ $(PKG_LIBS) $(CMOCKA_LIBS) -lm

$(DBG)/tests/replay-%: $(DBG)/tests/fuzz/fuzz-%.o $(DBG)/tests/fuzz/fuzz-main.o $(DBG)/libag.a
	@mkdir -p $(dir $@)
	$(CC) $(DBG_LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

# Test-only programs (tests/tools/*.c) linked with the objects.
$(DBG)/tools/%: $(DBG)/tests/tools/%.o $(DBG)/libag.a
	@mkdir -p $(dir $@)
	$(CC) $(DBG_LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

asan: $(DBG_BIN) $(UNIT_BIN) $(REPLAY_BIN) $(TOOL_BIN)
	@for t in $(DBG)/tests/test-*; do \
	  [ ! -e "$$t" ] || [ -f "tests/unit/$${t##*/}.c" ] || rm -f "$$t"; \
	done

# The README's test command on a fresh machine: packages, Artemis, the suite.
# The downloads (Artemis releases, npm packages: scripts/prefetch) run while
# the sanitizer build compiles; what they could not fetch, the tests fetch.
test:
	scripts/install-deps
	scripts/prefetch & pf=$$!; \
	$(MAKE) -j2 asan; rc=$$?; \
	wait $$pf || echo "make test: scripts/prefetch did not fetch everything (.cache/prefetch.log); the tests fetch it again"; \
	tail -n 1 .cache/prefetch.log; \
	exit $$rc
	$(MAKE) check

# The whole suite; its last line is `N passed, N failed`.
check: asan
	tests/run all

unit: asan
	tests/run unit

golden: asan
	tests/run golden

corpus: asan
	tests/run corpus

integration: asan
	tests/run integration

compat: asan
	tests/run compat

soak: asan
	tests/run soak

golden-update: asan
	tests/run golden-update

# libFuzzer binaries, one per tests/fuzz/fuzz-<target>.c except the replay
# driver: the sources compiled once with clang's coverage instrumentation
# and the sanitizers (a UBSan report is a crash, as in `make check`), each
# target linked with the fuzzer runtime (libclang-rt-14-dev).
FUZZ        = build/fuzz
FUZZ_SAN    = address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS = -std=gnu17 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer \
              $(PKG_CFLAGS) -DAGENT_VERSION='"$(VERSION)"' -MMD -MP
FUZZ_OBJ   := $(CORE_SRC:%.c=$(FUZZ)/obj/%.o)
FUZZ_BIN   := $(FUZZ_NAMES:%=$(FUZZ)/fuzz-%)

fuzz: $(FUZZ_BIN)

$(FUZZ)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,$(FUZZ_SAN) -c -o $@ $<

$(FUZZ)/libag.a: $(FUZZ_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(FUZZ)/fuzz-%: $(FUZZ)/obj/tests/fuzz/fuzz-%.o $(FUZZ)/libag.a
	clang -fsanitize=fuzzer,$(FUZZ_SAN) -o $@ $^ $(PKG_LIBS) -lm

# The layering check reads the release objects, so lint builds them first.
lint: $(REL_OBJ) $(REL)/agent/main.o
	cppcheck --quiet --error-exitcode=1 --enable=warning,style,portability \
	  --inline-suppr --suppress=missingIncludeSystem --suppress=variableScope --std=c11 \
	  -D_GNU_SOURCE lib declarations reconcile agent
	clang-tidy --quiet \
	  --checks='-*,clang-analyzer-*,bugprone-*,-bugprone-easily-swappable-parameters,-clang-analyzer-security.insecureAPI.DeprecatedOrUnsafeBufferHandling' \
	  --warnings-as-errors='*' $(CORE_SRC) agent/main.c -- \
	  -std=gnu17 -D_GNU_SOURCE $(PKG_CFLAGS) -DAGENT_VERSION='"$(VERSION)"'
	scripts/check-layers $(REL)
	$(MAKE) -s lint-man

# The man pages (mdoc): mandoc's lint, style messages included, must be
# silent; but for the two that depend on the machine's manual database
# (pages it lacks, such as these before they are installed).
lint-man:
	@out=$$(mandoc -Tlint $(MAN_PAGES) 2>&1 | \
	  grep -v -e 'outdated mandoc.db' -e 'referenced manual not found'); \
	if [ -n "$$out" ]; then echo "$$out"; exit 1; fi; \
	echo "mandoc -Tlint: $(words $(MAN_PAGES)) man pages clean"

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

format-check:
	clang-format --dry-run --Werror $$(git ls-files '*.c' '*.h')

# scripts/demo installs the packages first, then builds: no $(BIN) prerequisite.
demo:
	scripts/demo $(DEMO_ARGS)

bench: $(BIN)
	bench/run

install: install-bin install-systemd install-man install-completion install-doc

install-bin: $(BIN)
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/artemis-gitops

# README, docs, the examples, and the declarations' JSON Schema.
install-doc:
	install -d $(DESTDIR)$(DOCDIR) $(DESTDIR)$(DATADIR)/schema
	install -m 0644 README.md $(DESTDIR)$(DOCDIR)/
	if [ -d docs ]; then install -m 0644 docs/*.md $(DESTDIR)$(DOCDIR)/; fi
	if [ -d examples ]; then cp -R examples $(DESTDIR)$(DOCDIR)/ && \
	  find $(DESTDIR)$(DOCDIR)/examples -type d -exec chmod 0755 {} + && \
	  find $(DESTDIR)$(DOCDIR)/examples -type f -exec chmod 0644 {} +; fi
	install -m 0644 schema/declarations.schema.json $(DESTDIR)$(DATADIR)/schema/

install-man:
	install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5
	for f in $(MAN_PAGES); do \
	  install -m 0644 $$f $(DESTDIR)$(MANDIR)/man$${f##*.}/ || exit 1; \
	done

install-completion: $(COMPLETIONS)
	install -d $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	install -m 0644 build/completion/artemis-gitops.bash $(DESTDIR)$(BASHCOMPDIR)/artemis-gitops
	install -m 0644 build/completion/_artemis-gitops $(DESTDIR)$(ZSHCOMPDIR)/_artemis-gitops

# The unit (with @BINDIR@ set to PREFIX/bin), sysusers.d and tmpfiles.d.
install-systemd:
	if [ -d systemd ] && ls systemd/*.service >/dev/null 2>&1; then \
	  install -d $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(TMPFILESDIR); \
	  for f in systemd/*.service; do \
	    sed 's|@BINDIR@|$(PREFIX)/bin|g' $$f >$(DESTDIR)$(UNITDIR)/$${f#systemd/} && \
	    chmod 0644 $(DESTDIR)$(UNITDIR)/$${f#systemd/} || exit 1; \
	  done; \
	  for f in systemd/*.sysusers; do [ -e "$$f" ] && install -m 0644 $$f $(DESTDIR)$(SYSUSERSDIR)/artemis-gitops.conf; done; \
	  for f in systemd/*.tmpfiles; do [ -e "$$f" ] && install -m 0644 $$f $(DESTDIR)$(TMPFILESDIR)/artemis-gitops.conf; done; \
	fi

clean:
	rm -rf build

.SECONDARY:

-include $(shell find build -name '*.d' -type f -not -path 'build/deb/*' 2>/dev/null)
