package mcpserver

import "testing"

// TestBridgeEndpoint: the relayed session's endpoint pins its project and
// asks for the core tool set only when told to.
func TestBridgeEndpoint(t *testing.T) {
	for _, c := range []struct {
		o    BridgeOptions
		want string
	}{
		{BridgeOptions{URL: "http://127.0.0.1:7411"}, "http://127.0.0.1:7411/mcp"},
		{BridgeOptions{URL: "http://127.0.0.1:7411/", Tools: ToolsFull}, "http://127.0.0.1:7411/mcp"},
		{BridgeOptions{URL: "http://h:1", Project: "web app", Tools: ToolsCore}, "http://h:1/mcp?project=web+app&tools=core"},
	} {
		if got := bridgeEndpoint(c.o); got != c.want {
			t.Errorf("%+v: %s, want %s", c.o, got, c.want)
		}
	}
	for msg, want := range map[string]string{
		`{"method":"initialize","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}}`: "2025-11-25",
		`{"method":"tools/list","params":{}}`: "",
		`not json`:                            "",
	} {
		if got := messageVersion([]byte(msg)); got != want {
			t.Errorf("messageVersion(%s) = %q, want %q", msg, got, want)
		}
	}
}
