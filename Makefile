# The README's two commands are `make demo` (set-up + the main job) and `make test`.
GO ?= go
export CGO_ENABLED = 1

.PHONY: setup setup-cuda setup-cuda-fp16 gpu-check build test bench lint demo fuzz soak

setup:
	bash scripts/setup.sh

# The CUDA build of ONNX Runtime for --device cuda (onnxruntime-gpu 1.31.1
# from PyPI, 255 MB, sha256-pinned), and a check of the CUDA 13 libraries it
# needs. Not part of setup or test: CI has no GPU.
setup-cuda:
	bash scripts/setup_cuda.sh

# The weights of --precision fp16 (cuda only): the three default models fused
# and converted to fp16, with their own pooled outputs, into
# <models dir>/cuda-fp16 (scripts/fp16/cuda.sh; python3 and PyPI packages,
# every file sha256-checked). Optional: fp32 stays cuda's default.
setup-cuda-fp16:
	GO=$(GO) bash scripts/fp16/cuda.sh

# On a machine with a GPU: install check, CPU/GPU parity, ingest and query
# figures on both devices, GPU utilisation (under five minutes).
gpu-check:
	bash scripts/gpu_check.sh

# The version names the commit (git rev-parse) even where Go cannot stamp it
# (a git worktree, -buildvcs=false).
build:
	$(GO) build -ldflags "-X github.com/cgraph/cgraph/engine.Version=cgraph-dev+$$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)" -o bin/cgraph ./cmd/cgraph

test: setup lint
	$(GO) test -count=1 ./...
	$(GO) test -race -count=1 ./engine ./pipeline

lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...

bench: setup
	$(GO) test -run '^$$' -bench . -benchmem -count 5 ./...

demo: setup
	bash scripts/demo.sh

# The long reliability runs: 100 SIGKILLs of a writing server, and 60 s of
# eight readers beside a writer under the race detector.
soak: setup
	bash scripts/soak.sh
	CGRAPH_RW_SECONDS=60 $(GO) test -race -count=1 -run TestReadersBesideAWriter -v ./engine

# Every fuzz target for FUZZTIME (default 10s) each.
fuzz: setup
	bash scripts/fuzz.sh
