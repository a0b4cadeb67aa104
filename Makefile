# The two commands of the README: `make run` and `make test`.
.PHONY: run sample test test-quick lint fuzz bench build clean install install-build uninstall dist deb

SAMPLE := .build/sample.pcap

# Installs what is missing, builds, and runs the agent with its built-in defaults plus a demo
# call on loopback: the dashboard on stdout, /metrics and the API on 127.0.0.1:9470. Capturing
# needs root (or CAP_NET_RAW and CAP_NET_ADMIN). Ctrl-C stops it.
run:
	@scripts/bootstrap.sh
	swift build -c release --product netquality
	.build/release/netquality run --demo --dashboard -

# Generates a capture with impairments and analyses it offline (no root needed).
sample:
	@scripts/bootstrap.sh
	swift build -c release --product netquality
	.build/release/netquality generate -o $(SAMPLE) --streams 6 --packets 9000 \
		--loss 2 --duplicate 0.5 --reorder 1 --jitter 8 --seed 7
	.build/release/netquality analyze $(SAMPLE) --local 10.10.0.0/16

# Everything CI runs: unit tests, formatting, the no-allocation check, end to end on real RTP
# between network namespaces (as root; skipped otherwise) and a bounded fuzzing run, each stage
# with a deadline and its duration printed (scripts/test.sh; `scripts/test.sh lint` runs one).
test:
	@scripts/test.sh

# The developer's loop: the debug build, the unit tests and lint (about 10 minutes on 2 cores;
# root not needed). `scripts/test.sh STAGE...` runs any other selection; `make test` stays the
# whole suite.
test-quick:
	@scripts/test.sh bootstrap build unit-tests lint

# Formatting, the module graph of docs/architecture.md (every edge between our modules),
# every relative link and anchor of README.md and docs/*.md, and every e2e/ path the tree names
# (and every e2e stage script a stage of scripts/test.sh).
lint:
	swift format lint --strict -r Sources Tests Fuzz/Sources Plugins Package.swift
	python3 scripts/check-module-graph.py
	python3 scripts/check-doc-links.py
	python3 scripts/check-e2e-paths.py

fuzz:
	scripts/fuzz.sh $${FUZZ_SECONDS:-300}

bench:
	scripts/bench.sh

build:
	swift build

clean:
	rm -rf .build .build-fuzz .build-install bench-out dist

# Installation (docs/install.md): PREFIX and DESTDIR as usual; CONFIGURATION=debug installs a
# debug build.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share/netquality
SYSCONFDIR ?= /etc
UNITDIR ?= /etc/systemd/system
CONFIGURATION ?= release
# A build directory of its own: objects built for a static Swift runtime cannot be linked
# against the shared one, so sharing .build would break the next `swift build`.
INSTALL_BUILD := .build-install
CONFIG_FILE := $(SYSCONFDIR)/netquality/netquality.yaml
RULES := $(filter-out %-test.yml,$(wildcard config/rules/*.yml))
# The runbook's address in the installed rules' runbook_url and the configuration's
# alerts.runbook_url: by default each agent's own page (GET /runbook, docs/runbook.md built in,
# at the alert's instance), unless you publish it where your on-call reads it
# (RUNBOOK_URL=https://wiki.example.net/netquality/runbook).
RUNBOOK_URL ?=
SHIPPED_RUNBOOK_URL := http://{{ $$labels.instance }}/runbook
with_runbook = $(if $(RUNBOOK_URL),sed -e 's|$(SHIPPED_RUNBOOK_URL)|$(RUNBOOK_URL)|g' \
	-e 's|^  runbook_url: ""|  runbook_url: "$(RUNBOOK_URL)"|',cat) '$(1)' >'$(2)' && chmod 0644 '$(2)'

DASHBOARDS := $(wildcard dashboards/*.json dashboards/README.md)
DOCS := $(wildcard docs/*.md)

# Builds (the Swift runtime linked in statically, so the installed binary needs only libpcap,
# libsqlite3, zlib and libstdc++ from the system, not the toolchain), then installs the binary,
# the unit (its paths set to BINDIR and SYSCONFDIR), the
# example configuration (never over an existing one: the new one goes beside it as .new), and
# the Prometheus rules, Grafana dashboards and docs under DATADIR (the rules' and the
# configuration's runbook address set to RUNBOOK_URL).
install: install-build
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SYSCONFDIR)/netquality $(DESTDIR)$(UNITDIR) \
		$(DESTDIR)$(DATADIR)/docs
	install -m 0755 $(INSTALL_BUILD)/$(CONFIGURATION)/netquality $(DESTDIR)$(BINDIR)/netquality
	@if [ -e $(DESTDIR)$(CONFIG_FILE) ]; then \
		$(call with_runbook,config/netquality.yaml,$(DESTDIR)$(CONFIG_FILE).new); \
		echo "kept $(DESTDIR)$(CONFIG_FILE); the shipped example is $(DESTDIR)$(CONFIG_FILE).new"; \
	else \
		$(call with_runbook,config/netquality.yaml,$(DESTDIR)$(CONFIG_FILE)); \
	fi
	sed -e 's|/usr/local/bin/netquality|$(BINDIR)/netquality|' \
		-e 's|/etc/netquality/|$(SYSCONFDIR)/netquality/|' \
		-e 's|/usr/local/share/netquality/|$(DATADIR)/|' \
		config/netquality.service >$(DESTDIR)$(UNITDIR)/netquality.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/netquality.service
	install -m 0644 $(DOCS) $(DESTDIR)$(DATADIR)/docs/
	$(if $(RULES),install -d $(DESTDIR)$(DATADIR)/rules)
	$(foreach rule,$(RULES),$(call with_runbook,$(rule),$(DESTDIR)$(DATADIR)/rules/$(notdir $(rule))) &&) true
	$(if $(wildcard config/prometheus.yml),install -m 0644 config/prometheus.yml $(DESTDIR)$(DATADIR)/)
	install -m 0644 config/alertmanager.yml config/netquality.socket $(DESTDIR)$(DATADIR)/
	$(if $(DASHBOARDS),install -d $(DESTDIR)$(DATADIR)/dashboards && install -m 0644 $(DASHBOARDS) $(DESTDIR)$(DATADIR)/dashboards/)
	@echo "installed; as root: systemctl daemon-reload && systemctl enable --now netquality"

# The binary `install` puts in place, built on its own (scripts/test.sh starts it early, in the
# background, while the end-to-end stages wait on their clients).
# PRODUCT: scripts/check-allocations.sh builds its benchmark here too, on the same modules.
PRODUCT ?= netquality
install-build:
	@scripts/bootstrap.sh
	swift build -c $(CONFIGURATION) --product $(PRODUCT) --static-swift-stdlib \
		--scratch-path $(INSTALL_BUILD)

# Removes what install put in place except the configuration (and the history in
# /var/lib/netquality): remove those by hand if you want them gone.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/netquality $(DESTDIR)$(UNITDIR)/netquality.service \
		$(DESTDIR)$(CONFIG_FILE).new
	rm -rf $(DESTDIR)$(DATADIR)
	@echo "kept $(DESTDIR)$(CONFIG_FILE) and the agent's state in /var/lib/netquality"

# Release artefacts (docs/install.md), from install-build's binary and laid out by `install`
# itself (scripts/dist.sh): in DIST_DIR, the archive netquality-VERSION-linux-ARCH.tar.gz,
# the Debian package netquality_DEB_VERSION_ARCH.deb (dpkg-deb; Depends from dpkg-shlibdeps;
# the maintainer scripts of packaging/deb) and SHA256SUMS. `make deb`: the package alone.
# VERSION is the agent's own (BuildInfo.version); DEB_REVISION counts packagings of it.
VERSION := $(shell sed -n 's/.*static let version = "\(.*\)"/\1/p' Sources/NetQualityAgent/BuildInfo.swift)
DEB_REVISION ?= 1
DEB_VERSION ?= $(VERSION)-$(DEB_REVISION)
DIST_DIR ?= dist
dist_env = VERSION='$(VERSION)' DEB_VERSION='$(DEB_VERSION)' DIST_DIR='$(DIST_DIR)'
dist: install-build
	$(dist_env) scripts/dist.sh archive deb
deb: install-build
	$(dist_env) scripts/dist.sh deb
