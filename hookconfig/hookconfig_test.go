package hookconfig

import "testing"

// TestCommandRecognition: which command lines are cgraph's entries
// (and so replaced or removed) and which are left alone.
func TestCommandRecognition(t *testing.T) {
	cases := []struct {
		line, host string
		ok         bool
		event      string
		want       Command
	}{
		{"/usr/local/bin/cgraph hook claude-code Stop", "claude-code", true, "Stop", Command{Binary: "/usr/local/bin/cgraph"}},
		{"'/home/a b/go/bin/cgraph' hook claude-code PostToolUse --db '/data/my store' --models-dir /m", "claude-code", true, "PostToolUse",
			Command{Binary: "/home/a b/go/bin/cgraph", DB: "/data/my store", ModelsDir: "/m"}},
		{"cgraph --db=/x hook cursor stop", "cursor", true, "stop", Command{Binary: "cgraph", DB: "/x"}},
		{"/opt/cgraph-dev hook claude-code Stop", "claude-code", true, "Stop", Command{Binary: "/opt/cgraph-dev"}},
		{"/usr/local/bin/cgraph hook cursor stop", "claude-code", false, "", Command{}},
		{"other-tool hook claude-code Stop", "claude-code", false, "", Command{}},
		{"/usr/local/bin/cgraph hook claude-code", "claude-code", false, "", Command{}},
		{"npx prettier --write src # cgraph hook claude-code Stop", "claude-code", false, "", Command{}},
	}
	for _, c := range cases {
		got, ev, ok := ParseCommand(c.line, c.host)
		if ok != c.ok || ev != c.event || (ok && got != c.want) {
			t.Errorf("ParseCommand(%q, %s) = %+v, %q, %v; want %+v, %q, %v", c.line, c.host, got, ev, ok, c.want, c.event, c.ok)
		}
	}
	// What install writes is recognised as written, whatever the paths hold.
	for _, p := range []string{"/plain/cgraph", "/with space/cgraph", "/it's/cgraph", `/dollar$HOME"/cgraph`} {
		hc := Command{Binary: p, DB: p + "-db"}
		got, ev, ok := ParseCommand(hc.Line("claude-code", "Stop"), "claude-code")
		if !ok || ev != "Stop" || got != hc {
			t.Errorf("%q: round trip gave %+v %q %v", p, got, ev, ok)
		}
	}
}

// TestJSONRoundTrip: files laid out the way the hosts write them come
// back byte for byte from the ordered decoder and encoder.
func TestJSONRoundTrip(t *testing.T) {
	cases := []string{
		"{\n  \"b\": 1,\n  \"a\": [\n    true,\n    null\n  ]\n}\n",
		"{\n    \"z\": {},\n    \"a\": [],\n    \"n\": 1.50\n}",
		"{\n\t\"x\": \"<&>é\",\n\t\"y\": {\n\t\t\"k\": \"\\\"q\\\"\\n\"\n\t}\n}\n",
		"{}\n",
	}
	for _, in := range cases {
		v, err := parseOrderedJSON([]byte(in))
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		out, err := encodeStyled(v, styleOf([]byte(in)))
		if err != nil || string(out) != in {
			t.Errorf("round trip of %q gave %q (err %v)", in, out, err)
		}
	}
}
