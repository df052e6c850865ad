package neural

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/bench"
	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/embedders/codeview"
	"github.com/cgraph/cgraph/fingerprint"
)

// e7HeadWantSHA256 pins the shipped head: refitting it (TestUpdateE7Head)
// must update this, e7head.txt and docs/MODELS.md together.
const e7HeadWantSHA256 = "402691ce37e21607d300da2d8482e03d1fc3bdd6896597cd72f4d35cef398495"

// TestE7HeadFile checks the shipped head decodes as a 384×384 map, matches
// its pinned checksum and the one its provenance file records, and is not
// the identity (a head that changes nothing would still change the producer).
func TestE7HeadFile(t *testing.T) {
	if got := fmt.Sprintf("%x", e7HeadSHA256); got != e7HeadWantSHA256 {
		t.Fatalf("e7head.bin sha256 %s, pinned %s: refit with TestUpdateE7Head and update the pin, e7head.txt and docs/MODELS.md together", got, e7HeadWantSHA256)
	}
	prov, err := os.ReadFile("e7head.txt")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(prov), "sha256: "+e7HeadWantSHA256) {
		t.Errorf("e7head.txt does not record sha256 %s:\n%s", e7HeadWantSHA256, prov)
	}
	h, err := loadE7Head(384)
	if err != nil {
		t.Fatal(err)
	}
	var off float64
	for j := range h.Out {
		for k := range h.In {
			w := float64(h.Components[j*h.In+k])
			if j == k {
				w--
			}
			off += w * w
		}
	}
	if off < 1e-3 {
		t.Errorf("e7head.bin is the identity (‖W − I‖² = %g)", off)
	}
	if _, err := loadE7Head(768); err == nil {
		t.Error("a 384-d head accepted a 768-d model")
	}
}

// TestE7QueryHead checks E7 maps queries and not documents, names the head
// in its representation but keeps raw MiniLM's producer (stored vectors
// are unchanged), and that on held-out pairs — documented functions of
// GOROOT/src, a tree the head was never fitted on — the mapped queries
// find their functions better (MRR@10) than raw MiniLM queries do.
func TestE7QueryHead(t *testing.T) {
	r := testRegistry(t)
	e := r.Get(fingerprint.E7)
	d, ok := e.(*denseEmbedder)
	if s, shared := e.(*e7Shared); shared {
		d, ok = s.denseEmbedder, true
	}
	if !ok || d.queryHead == nil {
		t.Fatalf("E7 is %T without a query head: %s", e, e.Status().Representation)
	}
	if !strings.Contains(e.Status().Representation, "e7head.bin") {
		t.Errorf("representation does not name the head: %s", e.Status().Representation)
	}
	if raw := d.lm.producer("E7 dense v1", d.docPrefix, d.queryPrefix, codeViewRecipe); d.status.Producer != raw {
		// The head maps queries only: the stored document vectors are
		// MiniLM's own over the code view, and a store built with another
		// fit of the head must stay valid.
		t.Errorf("E7 with the head has producer %v, want MiniLM's over the code view %v (documents are unchanged)", d.status.Producer, raw)
	}
	ctx := context.Background()
	ps := e7HeldOut(t)
	qs, cs := make([]string, len(ps)), make([]string, len(ps))
	for i, p := range ps {
		qs[i], cs[i] = p.Query, p.Code
	}
	docs, err := e.EmbedDocuments(ctx, inputs(cs...))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := d.lm.EmbedPrefixed(ctx, d.docPrefix, []string{codeview.View(cs[0])})
	if err != nil {
		t.Fatal(err)
	}
	if c := cosine(docs[0].Value.(fingerprint.Dense), raw[0].Vector); c < 0.9999 {
		t.Errorf("E7 documents are not MiniLM's own vectors of their code view (cosine %.5f): stored vectors would need a reembed", c)
	}
	dv, mapped, plain := make([][]float32, len(ps)), make([][]float32, len(ps)), make([][]float32, len(ps))
	rawQ, err := d.lm.EmbedPrefixed(ctx, d.queryPrefix, qs)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ps {
		dv[i] = docs[i].Value.(fingerprint.Dense)
		v, err := e.EmbedQuery(ctx, embedders.Query{Text: qs[i]})
		if err != nil {
			t.Fatal(err)
		}
		mapped[i], plain[i] = v.Value.(fingerprint.Dense), rawQ[i].Vector
	}
	if c := cosine(mapped[0], plain[0]); c > 0.999 {
		t.Errorf("the head leaves the query as it was (cosine %.4f)", c)
	}
	withHead, _ := e7Retrieval(mapped, dv)
	without, _ := e7Retrieval(plain, dv)
	t.Logf("GOROOT held out, %d pairs: raw MiniLM %s, with the head %s", len(ps), without, withHead)
	if withHead.MRR <= without.MRR {
		t.Errorf("the head does not help on held-out Go pairs: MRR@10 %.3f with, %.3f without", withHead.MRR, without.MRR)
	}
}

// e7HeldOut mines a seeded sample of documented functions from a few
// GOROOT/src packages (the head is fitted on the module cache, never on
// GOROOT).
func e7HeldOut(t testing.TB) []bench.Pair {
	t.Helper()
	root := runtime.GOROOT()
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		root = strings.TrimSpace(string(out))
	}
	ex, err := bench.ExtractorFor("go")
	if err != nil {
		t.Fatal(err)
	}
	var all []bench.Pair
	for _, pkg := range []string{"strings", "bytes", "strconv", "path/filepath", "bufio", "encoding/json", "net/url", "sort", "text/template"} {
		ps, _, err := bench.Collect(filepath.Join(root, "src", pkg), ex)
		if err != nil {
			t.Skipf("GOROOT sources not readable here: %v", err)
		}
		all = append(all, ps...)
	}
	return bench.Sample(all, 200, 1)
}
