package cli

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

	"github.com/cgraph/cgraph/mcpserver"
)

// bridgeMCP relays the MCP session on stdin/stdout to the streamable HTTP
// endpoint of a running `cgraph serve` (base URL), one JSON-RPC message per
// line each way, so that every agent's `cgraph mcp` shares the server's one
// writer and warm models instead of opening the store read-only. A message
// is POSTed as it arrives; the answer (JSON, or an event stream whose events
// are each one message) is written back line by line. The session id and
// protocol version the server assigns are sent with every later request;
// at the end of stdin the session is deleted. With --project the session
// is opened pinned to that project.
func (a *App) bridgeMCP(ctx context.Context, base, tools string) error {
	q := url.Values{}
	if a.Project != "" { // the server pins this session to the project (mcpserver, ?project=P)
		q.Set("project", a.Project)
	}
	if tools == mcpserver.ToolsCore { // the server serves this session the core set (?tools=core)
		q.Set("tools", tools)
	}
	endpoint := strings.TrimSuffix(base, "/") + "/mcp"
	if len(q) > 0 {
		endpoint += "?" + q.Encode()
	}
	client := &http.Client{} // no timeout: a tool call may take as long as it takes
	var session, version string
	in := bufio.NewReader(a.Stdin)
	out := bufio.NewWriter(a.Stdout)
	defer func() {
		if session != "" {
			req, err := http.NewRequestWithContext(context.WithoutCancel(ctx), http.MethodDelete, endpoint, nil)
			if err == nil {
				req.Header.Set("Mcp-Session-Id", session)
				if token, ok := clientToken(); ok {
					req.Header.Set("Authorization", "Bearer "+token)
				}
				if resp, err := client.Do(req); err == nil {
					resp.Body.Close()
				}
			}
		}
	}()
	for {
		line, err := in.ReadBytes('\n')
		if msg := bytes.TrimSpace(line); len(msg) > 0 {
			req, rerr := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(msg))
			if rerr != nil {
				return rerr
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if token, ok := clientToken(); ok {
				req.Header.Set("Authorization", "Bearer "+token)
			}
			if session != "" {
				req.Header.Set("Mcp-Session-Id", session)
			}
			if v := messageVersion(msg); v != "" {
				req.Header.Set("Mcp-Protocol-Version", v) // a client of the newer protocol names it per request
			} else if version != "" {
				req.Header.Set("Mcp-Protocol-Version", version)
			}
			resp, rerr := client.Do(req)
			if rerr != nil {
				return fmt.Errorf("mcp: the cgraph serve at %s stopped answering (%w): restart the MCP session", base, rerr)
			}
			if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
				session = id
			}
			werr := relay(resp, out, &version)
			resp.Body.Close()
			if werr != nil {
				return werr
			}
			if ferr := out.Flush(); ferr != nil {
				return ferr
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

func hasClientToken() bool {
	_, ok := clientToken()
	return ok
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
