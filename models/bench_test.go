package models

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkHashFile measures sha256 throughput, the cost of Verify per byte
// installed (e5-small-v2 is 134 MB).
func BenchmarkHashFile(b *testing.B) {
	path := filepath.Join(b.TempDir(), "blob")
	if err := os.WriteFile(path, testContent(16<<20, 1), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(16 << 20)
	for b.Loop() {
		if _, _, err := hashFile(path); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPullAlreadyInstalled measures the idempotent Pull of an installed
// model: stat and record lookup, no hashing, no network.
func BenchmarkPullAlreadyInstalled(b *testing.B) {
	onnx, tok := testContent(8<<20, 2), testContent(4096, 3)
	m := manifestFor(b, true, map[string][]byte{"model.onnx": onnx, "tokenizer.json": tok}, hubOnly)
	dir := b.TempDir()
	md := filepath.Join(dir, "tiny")
	if err := os.MkdirAll(md, 0o755); err != nil {
		b.Fatal(err)
	}
	for name, body := range map[string][]byte{"model.onnx": onnx, "tokenizer.json": tok} {
		if err := os.WriteFile(filepath.Join(md, name), body, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	in := &Installer{Manifest: m, Dir: dir, HubEndpoint: "http://127.0.0.1:1"}
	if _, err := in.Pull(context.Background(), []ModelID{"tiny"}); err != nil { // hashes once, records
		b.Fatal(err)
	}
	for b.Loop() {
		res, err := in.Pull(context.Background(), []ModelID{"tiny"})
		if err != nil || len(res[0].Present) != 2 {
			b.Fatalf("%+v %v", res, err)
		}
	}
}
