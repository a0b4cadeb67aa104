# The two commands of the README: `make run` and `make test`.
.PHONY: run sample test lint fuzz bench build clean

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

lint:
	swift format lint --strict -r Sources Tests Fuzz/Sources Package.swift

fuzz:
	scripts/fuzz.sh $${FUZZ_SECONDS:-300}

bench:
	scripts/bench.sh

build:
	swift build

clean:
	rm -rf .build .build-fuzz bench-out
