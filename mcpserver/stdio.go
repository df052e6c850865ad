package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// JSON-RPC 2.0 error codes for what never reaches the SDK.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// lineFilter sits between stdin and the SDK's stdio transport. The SDK ends
// the session on the first line it cannot decode; a client that sends one
// broken line would lose its server. lineFilter passes on only lines that
// decode as JSON-RPC messages (or batches of them) and answers every other
// line itself, as JSON-RPC 2.0 asks: -32700 for text that is not JSON,
// -32600 for JSON that is not a request, both with id null. Blank lines are
// dropped. It must not change a valid line.
type lineFilter struct {
	src     *bufio.Reader
	out     *syncWriter
	pending []byte // the rest of the current valid line, newline included
	err     error  // the source's error, returned once pending is drained
}

func newLineFilter(r io.Reader, out *syncWriter) *lineFilter {
	return &lineFilter{src: bufio.NewReaderSize(r, 64<<10), out: out}
}

func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		line, err := f.src.ReadBytes('\n')
		if err != nil {
			f.err = err
		}
		if msg := bytes.TrimSpace(line); len(msg) > 0 {
			if code, why := checkMessage(msg); code != 0 {
				if werr := f.out.writeError(code, why); werr != nil {
					return 0, werr
				}
				continue
			}
			f.pending = append(msg, '\n')
		}
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// checkMessage returns 0 for a line the SDK can take, else the JSON-RPC
// error code and message to answer it with.
func checkMessage(line []byte) (int, string) {
	if !json.Valid(line) {
		return codeParseError, "Parse error: the line is not JSON; send one JSON-RPC 2.0 message per line"
	}
	if line[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(line, &batch); err != nil || len(batch) == 0 {
			return codeInvalidRequest, "Invalid Request: an empty or malformed batch"
		}
		for _, m := range batch {
			if _, err := jsonrpc.DecodeMessage(m); err != nil {
				return codeInvalidRequest, "Invalid Request: a batch element is not a JSON-RPC 2.0 message: " + err.Error()
			}
		}
		return 0, ""
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		return codeInvalidRequest, "Invalid Request: not a JSON-RPC 2.0 message: " + err.Error()
	}
	return 0, ""
}

// syncWriter serialises whole-message writes of the SDK and of lineFilter
// onto one stream, so an error answer never lands inside another message.
// The SDK writes each message, newline included, in one Write call.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func (s *syncWriter) Close() error { return nil }

func (s *syncWriter) writeError(code int, msg string) error {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": msg}})
	if err != nil {
		return err
	}
	if _, err := s.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("mcpserver: answering a malformed line: %w", err)
	}
	return nil
}
