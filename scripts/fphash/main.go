// Command fphash prints one sha256 per slot over the fingerprints the
// installed models give the functions of $GOROOT/src/strings/strings.go (61
// documents, each slot encoded alone). Run it at two commits: equal lines
// mean a change left every stored value bit for bit as it was.
//
//	go run ./scripts/fphash
package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/embedders/neural"
	"github.com/cgraph/cgraph/fingerprint"
)

func main() {
	ctx := context.Background()
	reg, closeFn, err := neural.Registry(ctx, neural.Config{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "fphash:", err)
		os.Exit(1)
	}
	defer closeFn()
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src/strings/strings.go"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "fphash:", err)
		os.Exit(1)
	}
	parts := strings.Split(string(src), "\nfunc ")
	var in []embedders.Input
	t0 := time.Unix(1790000000, 0)
	for i, p := range parts[1:] {
		in = append(in, embedders.Input{Text: "func " + p, Created: t0, Session: "s", Seq: uint64(i)})
	}
	fps, err := reg.EmbedDocuments(ctx, in)
	if err != nil {
		panic(err)
	}
	for _, s := range fingerprint.Slots() {
		h := sha256.New()
		for i := range fps {
			var one fingerprint.Fingerprint
			if err := one.Set(s, fps[i].Get(s)); err != nil {
				panic(err)
			}
			b, err := fingerprint.Encode(&one)
			if err != nil {
				panic(err)
			}
			h.Write(b)
		}
		fmt.Printf("%s %x\n", s, h.Sum(nil)[:8])
	}
}
