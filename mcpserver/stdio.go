package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cgraph/cgraph/record"
)

// JSON-RPC 2.0 error codes for what never reaches the SDK.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeInvalidParams  = -32602
)

// maxLine is the longest line lineFilter passes on (16 MiB, as the SDK's
// own default); a longer one is answered with an error and skipped. The
// SDK's transport is given a larger bound, so it never ends the session
// on a line lineFilter let through.
const maxLine = mcp.DefaultMaxLineLength

// lineFilter sits between stdin and the SDK's stdio transport. The SDK ends
// the session on the first line it cannot decode; a client that sends one
// broken line would lose its server. lineFilter passes on only lines that
// decode as JSON-RPC messages (or batches of them) and answers every other
// line itself, as JSON-RPC 2.0 asks: -32700 for text that is not JSON,
// -32600 for JSON that is not a request, both with id null. It answers
// too what the SDK would end the session on or silently change: a batch
// (MCP has none since 2025-06-18) gets -32600 for each of its requests, in
// an array as a batch's answer; a line over maxLine gets -32600 with id
// null; a message with bytes that are not UTF-8 or a lone surrogate escape
// (which encoding/json turns into U+FFFD) gets -32602 with its id and the
// refusal record.CheckRawJSON words. Blank lines are dropped. It must not
// change a valid line.
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
		line, tooLong, err := f.readLine()
		if err != nil {
			f.err = err
		}
		if tooLong {
			msg := fmt.Sprintf("Invalid Request: the line is over %d bytes (16 MiB), the most one message may take: store large content in several memories", maxLine)
			if werr := f.out.writeError(nil, codeInvalidRequest, msg); werr != nil {
				return 0, werr
			}
			continue
		}
		if msg := bytes.TrimSpace(line); len(msg) > 0 {
			if code, why := checkMessage(msg); code != 0 {
				if werr := f.out.writeError(nil, code, why); werr != nil {
					return 0, werr
				}
				continue
			}
			if msg[0] == '[' {
				if werr := f.out.refuseBatch(msg); werr != nil {
					return 0, werr
				}
				continue
			}
			if verr := record.CheckRawJSON(msg); verr != nil {
				var m struct {
					ID json.RawMessage `json:"id"`
				}
				_ = json.Unmarshal(msg, &m) // checkMessage decoded it: the id is there or absent
				if werr := f.out.writeError(m.ID, codeInvalidParams, "Invalid params: "+verr.Error()); werr != nil {
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

// readLine reads one line, newline included; a line over maxLine is read
// to its end and dropped (tooLong), so it never sits in memory whole.
func (f *lineFilter) readLine() (line []byte, tooLong bool, err error) {
	for {
		chunk, err := f.src.ReadSlice('\n')
		if !tooLong && len(line)+len(chunk) > maxLine {
			tooLong, line = true, nil
		}
		if !tooLong {
			line = append(line, chunk...)
		}
		if err != bufio.ErrBufferFull {
			return line, tooLong, err
		}
	}
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

// errorAnswer is a JSON-RPC 2.0 error answer to the request with id (null
// when id is empty).
func errorAnswer(id json.RawMessage, code int, msg string) map[string]any {
	var v any = id
	if len(id) == 0 {
		v = nil
	}
	return map[string]any{"jsonrpc": "2.0", "id": v, "error": map[string]any{"code": code, "message": msg}}
}

// refuseBatch answers a batch (checkMessage passed it): an array of
// -32600 errors, one per request (an element with an id), or one error
// with id null when it holds notifications only.
func (s *syncWriter) refuseBatch(line []byte) error {
	const msg = "Invalid Request: batching is not supported: send one JSON-RPC 2.0 message per line"
	var batch []struct {
		ID json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal(line, &batch) // checkMessage decoded every element
	var answers []any
	for _, m := range batch {
		if len(m.ID) > 0 && string(m.ID) != "null" {
			answers = append(answers, errorAnswer(m.ID, codeInvalidRequest, msg))
		}
	}
	if len(answers) == 0 {
		return s.writeError(nil, codeInvalidRequest, msg)
	}
	return s.writeJSON(answers)
}

func (s *syncWriter) writeError(id json.RawMessage, code int, msg string) error {
	return s.writeJSON(errorAnswer(id, code, msg))
}

func (s *syncWriter) writeJSON(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if _, err := s.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("mcpserver: answering a malformed line: %w", err)
	}
	return nil
}
