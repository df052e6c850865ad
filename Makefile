# The README's two commands are `make demo` (set-up + the main job) and `make test`.
GO ?= go
export CGO_ENABLED = 1

.PHONY: setup build test bench lint demo fuzz soak

setup:
	bash scripts/setup.sh

build:
	$(GO) build -o bin/cgraph ./cmd/cgraph

test: setup lint
	$(GO) test -count=1 ./...

lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...

bench: setup
	$(GO) test -run '^$$' -bench . -benchmem -count 5 ./...

demo: setup
	bash scripts/demo.sh
