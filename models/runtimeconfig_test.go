package models

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/models/runtime"
)

func TestRuntimeConfig(t *testing.T) {
	mf, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	dir := "/models"
	tests := []struct {
		id        ModelID
		task      runtime.Task
		pooling   runtime.Pooling
		normalize bool
		query     string
		passage   string
	}{
		{"e5-small-v2", runtime.TaskEncoder, runtime.PoolMean, true, "query: ", "passage: "},
		{"bge-small-en-v1.5", runtime.TaskEncoder, runtime.PoolCLS, true, "Represent this sentence for searching relevant passages: ", ""},
		{"all-minilm-l6-v2", runtime.TaskEncoder, runtime.PoolMean, true, "", ""},
		{"splade-pp-en-v1", runtime.TaskMaskedLM, 0, false, "", ""},
		{"colbertv2.0", runtime.TaskEncoder, runtime.PoolMean, true, "[Q] ", "[D] "},
	}
	for _, tc := range tests {
		t.Run(string(tc.id), func(t *testing.T) {
			m, err := mf.Model(tc.id)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := m.RuntimeConfig(dir)
			if err != nil {
				t.Fatal(err)
			}
			onnx, _ := m.File(RoleONNX)
			tok, _ := m.File(RoleTokenizer)
			if want := filepath.Join(dir, string(tc.id), onnx.Name); cfg.ONNXPath != want {
				t.Errorf("ONNXPath = %q, want %q", cfg.ONNXPath, want)
			}
			if want := filepath.Join(dir, string(tc.id), tok.Name); cfg.TokenizerPath != want {
				t.Errorf("TokenizerPath = %q, want %q", cfg.TokenizerPath, want)
			}
			if cfg.ID != string(tc.id) || cfg.Task != tc.task || cfg.Pooling != tc.pooling {
				t.Errorf("id/task/pooling = %s/%v/%v, want %s/%v/%v", cfg.ID, cfg.Task, cfg.Pooling, tc.id, tc.task, tc.pooling)
			}
			if cfg.Normalize != tc.normalize || cfg.QueryPrefix != tc.query || cfg.PassagePrefix != tc.passage {
				t.Errorf("normalize/prefixes = %v/%q/%q, want %v/%q/%q", cfg.Normalize, cfg.QueryPrefix, cfg.PassagePrefix, tc.normalize, tc.query, tc.passage)
			}
			if cfg.Dims != m.Dims || cfg.MaxLength != m.MaxLength || cfg.Output != m.Output {
				t.Errorf("dims/maxlen/output = %d/%d/%q, want %d/%d/%q", cfg.Dims, cfg.MaxLength, cfg.Output, m.Dims, m.MaxLength, m.Output)
			}
		})
	}
}

func TestRuntimeConfigRefuses(t *testing.T) {
	tests := []struct {
		name string
		m    Model
		want string
	}{
		{"cross-encoder", Model{ID: "ce", Task: CrossEncoder, Pooling: PoolNone, Files: []File{{Name: "m.onnx", Role: RoleONNX}, {Name: "t.json", Role: RoleTokenizer}}}, "cross-encoders"},
		{"no tokenizer", Model{ID: "x", Task: DenseEncoder, Pooling: PoolMean, Files: []File{{Name: "m.onnx", Role: RoleONNX}}}, "no tokenizer file"},
		{"bad pooling", Model{ID: "x", Task: DenseEncoder, Pooling: PoolSPLADEMax, Files: []File{{Name: "m.onnx", Role: RoleONNX}, {Name: "t.json", Role: RoleTokenizer}}}, "unknown pooling"},
		{"mlm without splade", Model{ID: "x", Task: MaskedLM, Pooling: PoolMean, Files: []File{{Name: "m.onnx", Role: RoleONNX}, {Name: "t.json", Role: RoleTokenizer}}}, "splade_max"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.m.RuntimeConfig("/models")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}
