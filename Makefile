# gcdbg — build, test, fixtures, benchmarks.
GO ?= go
PY ?= /usr/bin/python3
FUZZTIME ?= 60s

.PHONY: build test fixtures bench gobench fuzz vet explore conformance conformance-update stress bench-scale

build:
	$(GO) build -o bin/gcdbg ./cmd/gcdbg

# The test command CI runs (README.md names it). GCDBG_AUTOTUNE=0: no kernel
# choice by measurement (deterministic; the autotune tests turn it on themselves).
test:
	bash tools/test-deps.sh
	$(GO) vet ./...
	GCDBG_AUTOTUNE=0 $(GO) test -count=1 ./...

# Regenerate fixtures/*.json from fixtures/models/*.py with PyTorch (needs
# python3-torch for /usr/bin/python3), plus the op zoos the stage tests use.
fixtures:
	PY=$(PY) bash fixtures/regen.sh
	for m in zoo_modules zoo_functions; do \
	  $(PY) exporter/gcdbg_export.py stages/testdata/models/$$m.py -o stages/testdata/$$m.json --seed 0 --runs 0 || exit 1; \
	done

# Every OpInfo sample of the core ATen ops and torch.nn.functional through gcdbg, eager and
# compiled (docs/conformance.md; needs python3-torch), merged into the results store
# conformance/results.tsv, from which the table and passing.txt are remade. Fails when a
# sample of conformance/passing.txt stops passing or anything panics; conformance-update
# also accepts such samples (drops them from the list). DTYPES=float32 OPS=a,b narrows it.
conformance:
	PY=$(PY) GO=$(GO) bash conformance/run.sh --merge $(if $(DTYPES),--dtypes $(DTYPES)) $(if $(OPS),--ops $(OPS))

conformance-update:
	PY=$(PY) GO=$(GO) bash conformance/run.sh --merge --update $(if $(DTYPES),--dtypes $(DTYPES)) $(if $(OPS),--ops $(OPS))

# The realistic suite (bench/models, exported into bench/out) against PyTorch
# eager measured live: the table, gmean and roofline (docs/performance.md).
# BENCH="softmax_rows layer_norm" picks models; the Go micro-benchmarks are
# `make gobench`.
bench: build
	PY=$(PY) bash bench/run.sh $(BENCH) -- --runs $(or $(RUNS),10)

gobench:
	$(GO) test -run XXX -bench . -benchtime 20x ./...

# Each fuzz target for FUZZTIME (go test -fuzz takes one target at a time).
# FuzzReadLog's inputs are kilobytes of log: Go's default of 60 s minimizing
# each new input looked like a stall (0 execs/s for a minute at a time).
fuzz:
	$(GO) test ./trace -run XXX -fuzz '^FuzzParseTrace$$' -fuzztime $(FUZZTIME)
	$(GO) test ./trace -run XXX -fuzz '^FuzzParseSafetensors$$' -fuzztime $(FUZZTIME)
	$(GO) test ./graphtext -run XXX -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME)
	$(GO) test ./torchtrace -run XXX -fuzz '^FuzzReadLog$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./runner -run XXX -fuzz '^FuzzRun$$' -fuzztime $(FUZZTIME)
	$(GO) test ./termsafe -run XXX -fuzz '^FuzzString$$' -fuzztime $(FUZZTIME)

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l .)" || (gofmt -l .; exit 1)

# The long stress run: 1,000 random valid traces (stress.Random) through
# the generated C and the eager interpreter, all agreeing under the verdict
# (go test runs a short one; GCDBG_STRESS sets the count).
STRESS ?= 1000
stress:
	GCDBG_STRESS=$(STRESS) $(GO) test -count=1 -timeout 3h -run 'TestRandomTracesAgree' ./stress/

# Every stage's cost against graph size (1k, 10k, 100k nodes: chains, wide
# fan-out; a 24-layer transformer), without the C compiler.
bench-scale:
	GCDBG_BENCH_100K=1 $(GO) test -run XXX -bench 'Pipeline' -benchtime 1x -timeout 1h ./stress/
