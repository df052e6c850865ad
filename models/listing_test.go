package models

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestListings: every manifest model is listed once, in order, not
// installed in an empty directory, with its files and a non-null slots
// list; a pull result's report has [] lists and the error's text; a
// verify finding's JSON names its fields as `models verify --json` does.
func TestListings(t *testing.T) {
	mf, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ls := mf.Listings(dir)
	if len(ls) != len(mf.Models) {
		t.Fatalf("%d listings for %d models", len(ls), len(mf.Models))
	}
	for i, l := range ls {
		m := mf.Models[i]
		if l.ID != string(m.ID) || l.Installed || l.Slots == nil || len(l.Files) != len(m.Files) || !strings.HasPrefix(l.Path, dir) {
			t.Errorf("listing %d: %+v", i, l)
		}
	}
	raw, err := json.Marshal(OutcomeOf(Result{Model: "m", Err: errors.New("no source delivered model.onnx")}))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"id":"m","ok":false,"installed":[],"present":[],"sources":null,"error":"no source delivered model.onnx"}`; string(raw) != want {
		t.Errorf("outcome JSON %s, want %s", raw, want)
	}
	raw, err = json.Marshal([]FileCheck{{Model: "m", File: "model.onnx", Status: StatusOK, Want: "ab", Got: "ab", Size: 3}, {Model: "m", File: "t.json", Status: StatusMissing, Want: "cd"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `[{"model":"m","file":"model.onnx","status":"ok","want_sha256":"ab","sha256":"ab","size":3},{"model":"m","file":"t.json","status":"missing","want_sha256":"cd","size":0}]`; string(raw) != want {
		t.Errorf("verify JSON %s, want %s", raw, want)
	}
}
