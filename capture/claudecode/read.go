package claudecode

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cgraph/cgraph/capture"
	"github.com/cgraph/cgraph/redact"
)

// Defaults of Options.
const (
	DefaultMaxToolOutput = 2048
	DefaultMaxLineBytes  = 32 << 20
)

// Options tune a read. The zero value is ready to use.
type Options struct {
	// Path is the transcript's path, recorded in Turn.Source.
	Path string
	// Final says the session has ended: a tool call without a result is
	// returned as it is and a last line without a newline is read.
	Final bool
	// MaxToolOutput is the most bytes of a tool result a turn keeps
	// (DefaultMaxToolOutput when 0; negative keeps everything).
	MaxToolOutput int
	// MaxLineBytes is the longest line read (DefaultMaxLineBytes when 0);
	// longer lines are reported and skipped.
	MaxLineBytes int
	// Redactor removes secrets from all text (redact.Default when nil).
	Redactor *redact.Redactor
	// Session is the session id of turns whose lines name none ("summary"
	// lines); ReadFile defaults it to the file's name without ".jsonl",
	// which is how Claude Code names transcripts. Otherwise such turns take
	// the session of the other lines of the same read.
	Session string
}

// Cursor is a position in a transcript: a byte offset at the start of a
// line and the number of lines before it. The zero Cursor is the start.
type Cursor struct {
	Offset int64 `json:"offset"`
	Line   int   `json:"line"`
}

// Problem is a line that could not be read; it was skipped.
type Problem struct {
	Line   int
	Offset int64
	Err    string
}

func (p Problem) String() string {
	return fmt.Sprintf("line %d (byte %d): %s", p.Line, p.Offset, p.Err)
}

// Result is what one read found.
type Result struct {
	// Turns are the complete turns read, in line order.
	Turns []capture.Turn
	// Next is where the next read should start.
	Next Cursor
	// Problems are the lines skipped, in order.
	Problems []Problem
	// Session is the session id the lines named (the last one seen).
	Session string
}

// ReadFile reads the transcript at path from cursor from (ReadFrom).
// Options.Path defaults to path.
func ReadFile(path string, from Cursor, opt Options) (Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return Result{Next: from}, fmt.Errorf("open transcript: %w", err)
	}
	defer f.Close() // read-only: a close error loses nothing
	if _, err := f.Seek(from.Offset, io.SeekStart); err != nil {
		return Result{Next: from}, fmt.Errorf("seek transcript %s to %d: %w", path, from.Offset, err)
	}
	if opt.Path == "" {
		opt.Path = path
	}
	if opt.Session == "" {
		opt.Session = strings.TrimSuffix(filepath.Base(path), ".jsonl")
	}
	res, err := ReadFrom(f, from, opt)
	if err != nil {
		return res, fmt.Errorf("read transcript %s: %w", path, err)
	}
	return res, nil
}

// ReadFrom reads transcript lines from r, which must be positioned at
// from.Offset, and returns the complete turns, the cursor to resume from,
// and the lines it skipped. It fails only when r fails; the returned Next
// is then where it stopped, with the turns before it. It costs one pass
// over the bytes and holds one line at a time plus the turns.
func ReadFrom(r io.Reader, from Cursor, opt Options) (Result, error) {
	p := newParser(from, opt)
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, complete, tooLong, err := readLine(br, p.maxLine)
		if err != nil {
			return p.finish(), fmt.Errorf("line %d: %w", p.line+1, err)
		}
		if len(line) == 0 && !complete && !tooLong {
			break // EOF
		}
		if !complete && !opt.Final {
			break // being written: leave it for the next read
		}
		p.consume(line, complete, tooLong)
		if !complete {
			break
		}
	}
	return p.finish(), nil
}

// readLine reads up to and including '\n'. It returns the line without the
// newline, whether the newline was there, and whether the line was longer
// than max (then its bytes are discarded and line holds only its length's
// worth of nothing but the count, via n).
func readLine(br *bufio.Reader, max int) (line []byte, complete, tooLong bool, err error) {
	var buf []byte
	n := 0
	for {
		chunk, e := br.ReadSlice('\n')
		n += len(chunk)
		if !tooLong {
			if n > max {
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		switch {
		case e == nil:
			if tooLong {
				return make([]byte, n-1), true, true, nil
			}
			return buf[:len(buf)-1], true, false, nil
		case errors.Is(e, bufio.ErrBufferFull):
			continue
		case errors.Is(e, io.EOF):
			if tooLong {
				return make([]byte, n), false, true, nil
			}
			return buf, false, false, nil
		default:
			return nil, false, false, e
		}
	}
}

// rawLine is the part of a transcript line the reader uses.
type rawLine struct {
	Type             string      `json:"type"`
	UUID             string      `json:"uuid"`
	SessionID        string      `json:"sessionId"`
	Timestamp        string      `json:"timestamp"`
	CWD              string      `json:"cwd"`
	GitBranch        string      `json:"gitBranch"`
	IsSidechain      bool        `json:"isSidechain"`
	IsMeta           bool        `json:"isMeta"`
	IsCompactSummary bool        `json:"isCompactSummary"`
	Message          *rawMessage `json:"message"`
	Summary          string      `json:"summary"`
	LeafUUID         string      `json:"leafUuid"`
}

type rawMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type rawBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// parser holds one read's state.
type parser struct {
	opt     Options
	red     *redact.Redactor
	maxLine int
	limit   int

	off  int64 // offset of the next line
	line int   // number of the last line consumed

	turns []capture.Turn
	// starts[i] is the cursor of turns[i]'s first line.
	starts   []Cursor
	pending  map[string]int // tool_use id → index in turns
	problems []Problem
	session  string
}

func newParser(from Cursor, opt Options) *parser {
	p := &parser{opt: opt, red: opt.Redactor, maxLine: opt.MaxLineBytes, limit: opt.MaxToolOutput,
		off: from.Offset, line: from.Line, pending: map[string]int{}}
	if p.red == nil {
		p.red = redact.Default()
	}
	if p.maxLine <= 0 {
		p.maxLine = DefaultMaxLineBytes
	}
	if p.limit == 0 {
		p.limit = DefaultMaxToolOutput
	}
	return p
}

// consume parses one line (without its newline) and advances the cursor.
func (p *parser) consume(line []byte, complete, tooLong bool) {
	at := Cursor{Offset: p.off, Line: p.line}
	p.line++
	p.off += int64(len(line))
	if complete {
		p.off++
	}
	if tooLong {
		p.problem(at, fmt.Sprintf("line of %d bytes is over the limit of %d; skipped", len(line), p.maxLine))
		return
	}
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	var l rawLine
	if err := json.Unmarshal(line, &l); err != nil {
		p.problem(at, "not a transcript line: "+err.Error())
		return
	}
	if l.SessionID != "" {
		p.session = l.SessionID
	}
	switch l.Type {
	case "user", "assistant":
		if l.IsMeta || l.Message == nil {
			return
		}
		if err := p.message(at, &l); err != nil {
			p.problem(at, err.Error())
		}
	case "summary":
		if s := strings.TrimSpace(l.Summary); s != "" {
			t := p.base(at, &l, capture.KindSummary)
			if len(t.UUIDs) == 0 && l.LeafUUID != "" {
				t.UUIDs = []string{"summary-" + l.LeafUUID}
				t.Source = p.opt.Path + "#" + t.UUIDs[0]
			}
			t.Text = p.redactText(s)
			p.add(at, t)
		}
	}
}

func (p *parser) problem(at Cursor, msg string) {
	p.problems = append(p.problems, Problem{Line: at.Line + 1, Offset: at.Offset, Err: msg})
}

// base is a turn with the line's common fields.
func (p *parser) base(at Cursor, l *rawLine, kind capture.TurnKind) capture.Turn {
	t := capture.Turn{Kind: kind, Session: l.SessionID, Seq: uint64(at.Line + 1), CWD: l.CWD, Branch: l.GitBranch, Sidechain: l.IsSidechain}
	if ts, err := time.Parse(time.RFC3339Nano, l.Timestamp); err == nil {
		t.Time = ts
	}
	if l.UUID != "" {
		t.UUIDs = []string{l.UUID}
		t.Source = p.opt.Path + "#" + l.UUID
	}
	return t
}

func (p *parser) add(at Cursor, t capture.Turn) int {
	p.turns = append(p.turns, t)
	p.starts = append(p.starts, at)
	return len(p.turns) - 1
}

// message reads a user or assistant line's content.
func (p *parser) message(at Cursor, l *rawLine) error {
	c := bytes.TrimSpace(l.Message.Content)
	if len(c) == 0 || c[0] == 'n' { // absent or null
		return nil
	}
	if c[0] == '"' {
		var s string
		if err := json.Unmarshal(c, &s); err != nil {
			return fmt.Errorf("message content: %w", err)
		}
		p.text(at, l, 0, s)
		return nil
	}
	var blocks []rawBlock
	if err := json.Unmarshal(c, &blocks); err != nil {
		return fmt.Errorf("message content: %w", err)
	}
	var text []string
	textBlock := -1
	for i, b := range blocks {
		switch b.Type {
		case "text":
			text = append(text, b.Text)
			if textBlock < 0 {
				textBlock = i
			}
		case "tool_use":
			p.toolUse(at, l, i, b)
		case "tool_result":
			p.toolResult(at, l, b)
		}
	}
	if len(text) > 0 {
		p.text(at, l, textBlock, strings.Join(text, "\n"))
	}
	return nil
}

// text adds a prompt, a reply or a compaction summary.
func (p *parser) text(at Cursor, l *rawLine, block int, s string) {
	s = strings.TrimSpace(stripHostNotes(s))
	if s == "" {
		return
	}
	kind := capture.KindAssistant
	if l.Type == "user" {
		kind = capture.KindUser
		if l.IsCompactSummary || strings.HasPrefix(s, "This session is being continued from a previous conversation") {
			kind = capture.KindSummary
		}
	}
	t := p.base(at, l, kind)
	t.Block = block
	t.Text = p.redactText(s)
	p.add(at, t)
}

// hostNotes are texts the host puts in the user's place.
var hostNotes = []string{"<command-name>", "<command-message>", "<command-args>", "<local-command-stdout>",
	"<local-command-stderr>", "Caveat: The messages below were generated", "[Request interrupted by user"}

// stripHostNotes drops <system-reminder> blocks and returns "" for a text
// that is only a host note.
func stripHostNotes(s string) string {
	for {
		i := strings.Index(s, "<system-reminder>")
		if i < 0 {
			break
		}
		j := strings.Index(s[i:], "</system-reminder>")
		if j < 0 {
			s = s[:i]
			break
		}
		s = s[:i] + s[i+j+len("</system-reminder>"):]
	}
	t := strings.TrimSpace(s)
	for _, n := range hostNotes {
		if strings.HasPrefix(t, n) {
			return ""
		}
	}
	return s
}

func (p *parser) redactText(s string) string {
	out, _ := p.red.Redact(s)
	return out
}

// toolUse opens a tool turn; its result comes on a later line.
func (p *parser) toolUse(at Cursor, l *rawLine, block int, b rawBlock) {
	t := p.base(at, l, capture.KindTool)
	t.Block = block
	call := &capture.ToolCall{ID: b.ID, Name: b.Name}
	if len(b.Input) > 0 {
		var in map[string]any
		if json.Unmarshal(b.Input, &in) == nil {
			call.Input = p.redactValue(in).(map[string]any)
		}
	}
	t.Tool = call
	t.Files = toolFiles(call, l.CWD)
	i := p.add(at, t)
	if b.ID != "" {
		p.pending[b.ID] = i
	}
}

// toolResult completes the pending turn of its call. A result whose call
// is not in this read (it was returned by an earlier read, which cannot
// happen given Next, or the file was edited) is dropped.
func (p *parser) toolResult(at Cursor, l *rawLine, b rawBlock) {
	i, ok := p.pending[b.ToolUseID]
	if !ok {
		return
	}
	delete(p.pending, b.ToolUseID)
	t := &p.turns[i]
	raw := resultText(b.Content)
	t.Tool.OutputBytes = len(raw)
	t.Tool.Output, t.Tool.Truncated = cleanOutput(raw, p.limit, p.red)
	t.Tool.IsError = b.IsError
	t.Tool.HasResult = true
	if l.UUID != "" {
		t.UUIDs = append(t.UUIDs, l.UUID)
	}
}

// resultText is a tool result's content as text: a string, or the text
// blocks joined, an image block named.
func resultText(c json.RawMessage) string {
	c = bytes.TrimSpace(c)
	if len(c) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(c, &s) == nil {
		return s
	}
	var blocks []rawBlock
	if json.Unmarshal(c, &blocks) != nil {
		return ""
	}
	var parts []string
	for _, b := range blocks {
		switch b.Type {
		case "text":
			parts = append(parts, b.Text)
		case "image", "document":
			parts = append(parts, "["+b.Type+" omitted]")
		}
	}
	return strings.Join(parts, "\n")
}

// redactValue redacts every string in a decoded JSON value.
func (p *parser) redactValue(v any) any {
	switch x := v.(type) {
	case string:
		return p.redactText(x)
	case map[string]any:
		for k, e := range x {
			x[k] = p.redactValue(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = p.redactValue(e)
		}
		return x
	}
	return v
}

// toolFiles are the files a call names: its path inputs, relative to cwd
// when under it, and the obvious files of a shell command.
func toolFiles(c *capture.ToolCall, cwd string) []string {
	var out []string
	for _, k := range inputPathKeys {
		if s := c.Str(k); s != "" && s != "." && s != "/" {
			out = append(out, relTo(s, cwd))
		}
	}
	if cmd := c.Str("command"); cmd != "" {
		for _, f := range commandFiles(cmd) {
			out = append(out, relTo(f, cwd))
		}
	}
	return uniq(out)
}

func uniq(xs []string) []string {
	var out []string
	for _, x := range xs {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// finish applies the resume rule (a pending call and everything after it
// wait for the next read, unless Final) and fills the session of turns
// read before the line that named it.
func (p *parser) finish() Result {
	res := Result{Next: Cursor{Offset: p.off, Line: p.line}, Problems: p.problems, Session: p.session}
	n := len(p.turns)
	if !p.opt.Final && len(p.pending) > 0 {
		first := n
		for _, i := range p.pending {
			first = min(first, i)
		}
		// Turns of the pending call's line go with it: the next read starts
		// at that line and must not return one of them twice.
		for first > 0 && p.starts[first-1].Line == p.starts[first].Line {
			first--
		}
		n = first
		res.Next = p.starts[first]
		// Problems past Next will be reported again by the next read.
		res.Problems = slices.DeleteFunc(res.Problems, func(q Problem) bool { return q.Offset >= res.Next.Offset })
	}
	res.Turns = p.turns[:n:n]
	fill := p.opt.Session
	if fill == "" {
		fill = p.session
	}
	for i := range res.Turns {
		if res.Turns[i].Session == "" {
			res.Turns[i].Session = fill
		}
	}
	return res
}
