package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// BridgeOptions say where Bridge relays a session and as whom.
type BridgeOptions struct {
	// URL is the base URL of the running server (its /mcp endpoint is
	// used); Project pins the session to a project and Tools picks the
	// tool set (ToolsCore, else the server's default).
	URL, Project, Tools string
	// Token is the bearer token to send with each request (read each time,
	// so a rotated token file is followed); nil or false: none.
	Token func() (string, bool)
}

// Bridge relays the MCP session on in/out to the streamable HTTP endpoint
// of a running `cgraph serve`, one JSON-RPC message per line each way, so
// that every agent's stdio `cgraph mcp` shares the server's one writer and
// warm models instead of opening the store read-only. A message is POSTed
// as it arrives; the answer (JSON, or an event stream whose events are each
// one message) is written back line by line. The session id and protocol
// version the server assigns are sent with every later request; at the end
// of in the session is deleted. It holds no store and serves no tool.
func Bridge(ctx context.Context, in io.Reader, out io.Writer, o BridgeOptions) error {
	b := &bridge{o: o, endpoint: bridgeEndpoint(o), client: &http.Client{}} // no timeout: a tool call may take as long as it takes
	defer b.closeSession(ctx)
	r, w := bufio.NewReader(in), bufio.NewWriter(out)
	for {
		line, err := r.ReadBytes('\n')
		if msg := bytes.TrimSpace(line); len(msg) > 0 {
			if err := b.relayMessage(ctx, msg, w); err != nil {
				return err
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("mcp: read stdin: %w", err)
		}
	}
}

// bridge is one relayed session: the endpoint, and the session id and
// protocol version the server assigned.
type bridge struct {
	o                BridgeOptions
	endpoint         string
	client           *http.Client
	session, version string
}

// bridgeEndpoint is the server's /mcp with the session's project (the
// server pins the session to it, ?project=P) and tool set (?tools=core).
func bridgeEndpoint(o BridgeOptions) string {
	q := url.Values{}
	if o.Project != "" {
		q.Set("project", o.Project)
	}
	if o.Tools == ToolsCore {
		q.Set("tools", o.Tools)
	}
	endpoint := strings.TrimSuffix(o.URL, "/") + "/mcp"
	if len(q) > 0 {
		endpoint += "?" + q.Encode()
	}
	return endpoint
}

// authorize sets the bearer token, when there is one.
func (b *bridge) authorize(req *http.Request) {
	if b.o.Token == nil {
		return
	}
	if token, ok := b.o.Token(); ok {
		req.Header.Set("Authorization", "Bearer "+token)
	}
}

// relayMessage POSTs one message and writes the answer's messages to w.
func (b *bridge) relayMessage(ctx context.Context, msg []byte, w *bufio.Writer) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.endpoint, bytes.NewReader(msg))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	b.authorize(req)
	if b.session != "" {
		req.Header.Set("Mcp-Session-Id", b.session)
	}
	if v := messageVersion(msg); v != "" {
		req.Header.Set("Mcp-Protocol-Version", v) // a client of the newer protocol names it per request
	} else if b.version != "" {
		req.Header.Set("Mcp-Protocol-Version", b.version)
	}
	resp, err := b.client.Do(req)
	if err != nil {
		return fmt.Errorf("mcp: the cgraph serve at %s stopped answering (%w): restart the MCP session", b.o.URL, err)
	}
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		b.session = id
	}
	werr := relay(resp, w, &b.version)
	resp.Body.Close()
	if werr != nil {
		return werr
	}
	return w.Flush()
}

// closeSession deletes the server's session, if one was opened; the
// session is over either way, so a failure is not reported.
func (b *bridge) closeSession(ctx context.Context) {
	if b.session == "" {
		return
	}
	req, err := http.NewRequestWithContext(context.WithoutCancel(ctx), http.MethodDelete, b.endpoint, nil)
	if err != nil {
		return
	}
	req.Header.Set("Mcp-Session-Id", b.session)
	b.authorize(req)
	if resp, err := b.client.Do(req); err == nil {
		resp.Body.Close()
	}
}

// messageVersion is the protocol version a message names for itself: the
// "io.modelcontextprotocol/protocolVersion" of its params' _meta (newer
// clients), else "".
func messageVersion(msg []byte) string {
	var m struct {
		Params struct {
			Meta map[string]any `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(msg, &m) != nil {
		return ""
	}
	v, _ := m.Params.Meta["io.modelcontextprotocol/protocolVersion"].(string)
	return v
}

// relay writes the messages of one HTTP answer to out, one per line, and
// notes the protocol version an initialize result names.
func relay(resp *http.Response, out *bufio.Writer, version *string) error {
	write := func(msg []byte) error {
		msg = bytes.TrimSpace(msg)
		if len(msg) == 0 {
			return nil
		}
		var init struct {
			Result struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"result"`
		}
		if json.Unmarshal(msg, &init) == nil && init.Result.ProtocolVersion != "" {
			*version = init.Result.ProtocolVersion
		}
		if _, err := out.Write(append(msg, '\n')); err != nil {
			return err
		}
		return nil
	}
	switch ct := resp.Header.Get("Content-Type"); {
	case resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent:
		return nil // a notification or a response: nothing to relay
	case strings.HasPrefix(ct, "text/event-stream"):
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 64<<20)
		var data bytes.Buffer
		for sc.Scan() {
			l := sc.Bytes()
			switch {
			case bytes.HasPrefix(l, []byte("data:")):
				data.Write(bytes.TrimPrefix(bytes.TrimPrefix(l, []byte("data:")), []byte(" ")))
			case len(l) == 0: // the end of one event
				if err := write(data.Bytes()); err != nil {
					return err
				}
				data.Reset()
			}
		}
		if err := write(data.Bytes()); err != nil {
			return err
		}
		return sc.Err()
	default:
		body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
		if err != nil {
			return err
		}
		var rpc struct {
			JSONRPC string `json:"jsonrpc"`
		}
		if resp.StatusCode >= 300 && (json.Unmarshal(body, &rpc) != nil || rpc.JSONRPC == "") {
			return fmt.Errorf("mcp: the cgraph serve refused a message: %s %s", resp.Status, strings.TrimSpace(string(body)))
		}
		return write(body) // a result, or the server's JSON-RPC error for the client
	}
}
