package engine

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/record"
)

// TestSecretsNeverStored: a token, a password and a connection string in a
// memory's content, source or metadata are redacted before anything is
// stored or indexed, on add and on update; KeepSecrets stores them as given.
func TestSecretsNeverStored(t *testing.T) {
	ctx := context.Background()
	token := "ghp_" + strings.Repeat("aB3", 12)
	s := openStore(t, filepath.Join(t.TempDir(), "s"), modelFreeRegistry(t))
	m, err := s.Add(ctx, record.NewMemory{Content: "CI failed until we set GITHUB_TOKEN=" + token + " in the runner",
		Source: "postgres://ci:Sup3rS3cretPw@db:5432/ci", Meta: map[string]string{"cmd": "mysql --password=hunter2secret"}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	all := got.Content + " " + got.Source + " " + got.Meta["cmd"]
	for _, secret := range []string{token, "Sup3rS3cretPw", "hunter2secret"} {
		if strings.Contains(all, secret) {
			t.Fatalf("secret %q stored: %s", secret, all)
		}
	}
	if !strings.Contains(got.Content, "[REDACTED:github_token]") || !strings.Contains(got.Source, "[REDACTED:url_password]") {
		t.Fatalf("redaction not marked: %s", all)
	}
	res, err := s.Search(ctx, SearchRequest{Query: token, TopK: 5, Mode: ModeMultiSpace})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Memories {
		if strings.Contains(h.Content, token) {
			t.Fatalf("a search returned the token")
		}
	}
	if _, err := s.Update(ctx, m.ID, record.Change{Content: ptr("rotated: new token " + token)}); err != nil {
		t.Fatal(err)
	}
	if got, _ = s.Get(ctx, m.ID); strings.Contains(got.Content, token) {
		t.Fatalf("update stored the token: %s", got.Content)
	}
	keep, err := Open(filepath.Join(t.TempDir(), "k"), Options{Create: true, Embedders: modelFreeRegistry(t), KeepSecrets: true})
	if err != nil {
		t.Fatal(err)
	}
	defer keep.Close()
	k, err := keep.Add(ctx, record.NewMemory{Content: "GITHUB_TOKEN=" + token})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(k.Content, token) {
		t.Fatalf("KeepSecrets redacted: %s", k.Content)
	}
}
