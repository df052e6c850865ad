package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// decode unmarshals an answer's data into v.
func decode(t *testing.T, env envelope, v any) {
	t.Helper()
	if err := json.Unmarshal(env.Data, v); err != nil {
		t.Fatalf("data %s: %v", env.Data, err)
	}
}

type memoryData struct {
	ID       string            `json:"id"`
	Content  string            `json:"content"`
	Tags     []string          `json:"tags"`
	Project  string            `json:"project"`
	Meta     map[string]string `json:"meta"`
	Revision int               `json:"revision"`
	History  []struct {
		Revision int    `json:"revision"`
		Content  string `json:"content"`
	} `json:"history"`
	Changed    bool `json:"changed"`
	Reembedded bool `json:"reembedded"`
}

// TestUpdateAndHistory: PATCH changes a memory in place (the id from the
// path, a prefix too), GET …/history lists its earlier revisions, and a
// store takes project and meta.
func TestUpdateAndHistory(t *testing.T) {
	hs, _ := server(t, "", "")
	code, env := do(t, hs, "POST", "/v1/memories", "", `{"content": "the nightly job runs at 02:00", "tags": ["ops"], "project": "infra", "meta": {"ticket": "OPS-1"}}`)
	var m memoryData
	decode(t, env, &m)
	if code != http.StatusCreated || m.Project != "infra" || m.Meta["ticket"] != "OPS-1" || m.Revision != 1 {
		t.Fatalf("store: %d %s", code, env.Data)
	}
	code, env = do(t, hs, "PATCH", "/v1/memories/"+m.ID[:28], "", `{"content": "the nightly job runs at 03:00", "add_tags": ["cron"], "meta": {"status": "moved"}}`)
	var up memoryData
	decode(t, env, &up)
	if code != http.StatusOK || up.ID != m.ID || !up.Changed || !up.Reembedded || up.Revision != 2 || len(up.Tags) != 2 || up.Meta["status"] != "moved" || up.Meta["ticket"] != "OPS-1" {
		t.Fatalf("patch: %d %s", code, env.Data)
	}
	code, env = do(t, hs, "GET", "/v1/memories/"+m.ID+"/history", "", "")
	var h memoryData
	decode(t, env, &h)
	if code != http.StatusOK || h.Content != "the nightly job runs at 03:00" || len(h.History) != 1 || h.History[0].Revision != 1 || h.History[0].Content != "the nightly job runs at 02:00" {
		t.Fatalf("history: %d %s", code, env.Data)
	}
	for _, c := range []struct {
		name, method, path, body string
		status                   int
		says                     string
	}{
		{"another id in the body", "PATCH", "/v1/memories/" + m.ID, `{"id": "0191e0a2-7c3b-7d4e-9f00-1234567890ab", "content": "x"}`, 400, `"id"`},
		{"nothing to change", "PATCH", "/v1/memories/" + m.ID, `{}`, 400, "nothing to change"},
		{"importance 2", "PATCH", "/v1/memories/" + m.ID, `{"importance": 2}`, 400, "importance"},
		{"bad meta key", "PATCH", "/v1/memories/" + m.ID, `{"meta": {"a b": "c"}}`, 400, "meta"},
		{"not an object", "PATCH", "/v1/memories/" + m.ID, `["content"]`, 400, "JSON object"},
		{"absent memory", "PATCH", "/v1/memories/0191e0a2-7c3b-7d4e-9f00-1234567890ab", `{"content": "x"}`, 404, "not found"},
		{"history of an absent memory", "GET", "/v1/memories/0191e0a2-7c3b-7d4e-9f00-1234567890ab/history", "", 404, "not found"},
		{"bad store meta", "POST", "/v1/memories", `{"content": "y", "meta": {"": "v"}}`, 400, "meta"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, env := do(t, hs, c.method, c.path, "", c.body)
			if code != c.status || env.Error == nil || !strings.Contains(env.Error.Message, c.says) {
				t.Fatalf("%d %+v, want %d mentioning %q", code, env.Error, c.status, c.says)
			}
		})
	}
}

type relatedData struct {
	Related []struct {
		Memory struct {
			ID string `json:"id"`
		} `json:"memory"`
		Relation  string `json:"relation"`
		Direction string `json:"direction"`
		Depth     int    `json:"depth"`
		Via       string `json:"via"`
	} `json:"related"`
}

// TestRelationsAndRelated: POST /v1/relations links (201), GET
// /v1/related/{id} follows links by type and depth, DELETE /v1/relations
// unlinks by body or query, and search and context take filter and expand.
func TestRelationsAndRelated(t *testing.T) {
	hs, _ := server(t, "", "")
	id := func(body string) string {
		t.Helper()
		code, env := do(t, hs, "POST", "/v1/memories", "", body)
		var m memoryData
		decode(t, env, &m)
		if code != http.StatusCreated {
			t.Fatalf("store: %d %s", code, env.Data)
		}
		return m.ID
	}
	errID := id(`{"content": "Error: wombat deploys fail with exit status 137", "type": "error"}`)
	fixID := id(`{"content": "Fix: raise the wombat container memory limit to 2 GiB", "type": "pattern"}`)
	causeID := id(`{"content": "The wombat container limit was cut to 512 MiB in March", "type": "fact"}`)

	code, env := do(t, hs, "POST", "/v1/relations", "", `{"from": "`+fixID+`", "to": "`+errID+`", "type": "fixes", "weight": 0.9}`)
	var l struct {
		Linked bool    `json:"linked"`
		Weight float64 `json:"weight"`
	}
	decode(t, env, &l)
	if code != http.StatusCreated || !l.Linked || l.Weight != 0.9 {
		t.Fatalf("link: %d %s", code, env.Data)
	}
	if code, env := do(t, hs, "POST", "/v1/relations", "", `{"from": "`+causeID+`", "to": "`+errID+`", "type": "causes"}`); code != http.StatusCreated {
		t.Fatalf("link: %d %s", code, env.Data)
	}

	code, env = do(t, hs, "GET", "/v1/related/"+fixID+"?depth=2", "", "")
	var rel relatedData
	decode(t, env, &rel)
	if code != 200 || len(rel.Related) != 2 || rel.Related[0].Memory.ID != errID || rel.Related[0].Direction != "out" ||
		rel.Related[1].Memory.ID != causeID || rel.Related[1].Depth != 2 || rel.Related[1].Via != errID || rel.Related[1].Direction != "in" {
		t.Fatalf("related depth 2: %d %s", code, env.Data)
	}
	code, env = do(t, hs, "GET", "/v1/related/"+errID+"?type=causes,supersedes&limit=5", "", "")
	rel = relatedData{}
	decode(t, env, &rel)
	if code != 200 || len(rel.Related) != 1 || rel.Related[0].Relation != "causes" {
		t.Fatalf("related type=causes: %d %s", code, env.Data)
	}

	code, env = do(t, hs, "POST", "/v1/search", "", `{"query": "wombat deploys fail", "top_k": 1, "profile": "fact_checking", "expand": ["fixes"], "filter": {"created_after": "2020-01-01T00:00:00Z"}}`)
	var sr struct {
		Results []struct {
			ID string `json:"id"`
		} `json:"results"`
		Expanded []struct {
			Memory struct {
				ID string `json:"id"`
			} `json:"memory"`
			From     string `json:"from"`
			Relation string `json:"relation"`
		} `json:"expanded"`
	}
	decode(t, env, &sr)
	if code != 200 || len(sr.Results) != 1 || sr.Results[0].ID != errID || len(sr.Expanded) != 1 || sr.Expanded[0].Memory.ID != fixID || sr.Expanded[0].From != errID {
		t.Fatalf("search with filter and expand: %d %s", code, env.Data)
	}
	code, env = do(t, hs, "POST", "/v1/context", "", `{"query": "wombat deploys fail", "budget": 300, "candidates": 1, "profile": "fact_checking", "expand": ["fixes"], "filter": {"created_after": "2020-01-01T00:00:00Z"}}`)
	var cx struct {
		Tokens   int    `json:"tokens"`
		Markdown string `json:"markdown"`
	}
	decode(t, env, &cx)
	if code != 200 || cx.Tokens > 300 || !strings.Contains(cx.Markdown, fixID+" · fixes [1]") {
		t.Fatalf("context with filter and expand: %d %s", code, env.Data)
	}

	// Unlink by body (the link's weight may come along) and by query.
	code, env = do(t, hs, "DELETE", "/v1/relations", "", `{"from": "`+fixID+`", "to": "`+errID+`", "type": "fixes", "weight": 0.9}`)
	var un struct {
		Removed *bool `json:"removed"`
	}
	decode(t, env, &un)
	if code != 200 || un.Removed == nil || !*un.Removed {
		t.Fatalf("unlink by body: %d %s", code, env.Data)
	}
	code, env = do(t, hs, "DELETE", "/v1/relations?from="+causeID+"&to="+errID+"&type=causes", "", "")
	un.Removed = nil
	decode(t, env, &un)
	if code != 200 || un.Removed == nil || !*un.Removed {
		t.Fatalf("unlink by query: %d %s", code, env.Data)
	}
	code, env = do(t, hs, "DELETE", "/v1/relations?from="+causeID+"&to="+errID+"&type=causes", "", "")
	decode(t, env, &un)
	if code != 200 || *un.Removed {
		t.Fatalf("unlink again: %d %s", code, env.Data)
	}

	for _, c := range []struct {
		name, method, path, body string
		status                   int
		says                     string
	}{
		{"unknown relation type", "POST", "/v1/relations", `{"from": "` + fixID + `", "to": "` + errID + `", "type": "blames"}`, 400, "fixes"},
		{"self link", "POST", "/v1/relations", `{"from": "` + fixID + `", "to": "` + fixID + `", "type": "fixes"}`, 400, "two different memories"},
		{"weight 0", "POST", "/v1/relations", `{"from": "` + fixID + `", "to": "` + errID + `", "type": "fixes", "weight": 0}`, 400, "weight"},
		{"absent end", "POST", "/v1/relations", `{"from": "` + fixID + `", "to": "0191e0a2-7c3b-7d4e-9f00-1234567890ab", "type": "fixes"}`, 404, "not found"},
		{"unlink with a bad parameter", "DELETE", "/v1/relations?from=a&colour=red", "", 400, "colour"},
		{"depth 4", "GET", "/v1/related/" + fixID + "?depth=4", "", 400, "depth"},
		{"depth not a number", "GET", "/v1/related/" + fixID + "?depth=deep", "", 400, "whole number"},
		{"unknown related type", "GET", "/v1/related/" + fixID + "?type=blames", "", 400, "causes"},
		{"unknown related parameter", "GET", "/v1/related/" + fixID + "?sort=new", "", 400, "sort"},
		{"related of an absent memory", "GET", "/v1/related/0191e0a2-7c3b-7d4e-9f00-1234567890ab", "", 404, "not found"},
		{"bad filter field", "POST", "/v1/search", `{"query": "x", "filter": {"colour": "red"}}`, 400, "colour"},
		{"bad filter superseded", "POST", "/v1/search", `{"query": "x", "filter": {"superseded": "hide"}}`, 400, "filter.superseded"},
		{"bad filter time", "POST", "/v1/context", `{"query": "x", "filter": {"created_after": "last week"}}`, 400, "filter.created_after"},
		{"bad expand", "POST", "/v1/search", `{"query": "x", "expand": ["because"]}`, 400, "expand"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, env := do(t, hs, c.method, c.path, "", c.body)
			if code != c.status || env.Error == nil || !strings.Contains(env.Error.Message, c.says) {
				t.Fatalf("%d %+v, want %d mentioning %q", code, env.Error, c.status, c.says)
			}
		})
	}
}
