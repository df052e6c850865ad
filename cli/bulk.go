package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/record"
)

// bulkBatch is how many valid lines go into one engine AddBatch: big enough
// to amortise the write and fill the models' batches, small enough that the
// progress bar moves every few seconds and an interrupt loses little work.
const bulkBatch = 64

// adder is what a bulk add needs from a store: engine.Engine (every memory
// gets its fingerprint).
type adder interface {
	Add(ctx context.Context, m record.NewMemory) (record.Memory, error)
	AddBatch(ctx context.Context, ms []record.NewMemory) ([]record.Memory, error)
	Link(ctx context.Context, r record.Relation) (record.Relation, error)
}

// jsonlMemory is one line of add --jsonl. Fields not listed here are
// refused, so a misspelt field is not silently dropped.
type jsonlMemory struct {
	ID         string            `json:"id"`       // an export's id, kept on import
	Sequence   uint64            `json:"sequence"` // an export's position in its session
	Content    *string           `json:"content"`
	Type       string            `json:"type"`
	Tags       []string          `json:"tags"`
	Session    string            `json:"session"`
	Source     string            `json:"source"`
	CreatedAt  string            `json:"created_at"`
	Importance *float64          `json:"importance"`
	Project    string            `json:"project"`
	Meta       map[string]string `json:"meta"`
	// Relation makes the line a relation between two memories of the
	// file or the store (export writes them after every memory).
	Relation *relationLine `json:"relation"`
}

// relationLine is the "relation" object of a JSONL line.
type relationLine struct {
	From      string              `json:"from"`
	To        string              `json:"to"`
	Type      record.RelationType `json:"type"`
	Weight    float64             `json:"weight"`
	CreatedAt string              `json:"created_at"`
}

const jsonlFields = "content, type, tags, session, source, created_at, importance, project, meta (and id, sequence, relation as export writes them)"

// bulkResult is the summary of a bulk add, and its --json form.
type bulkResult struct {
	Added int `json:"added"`
	// Duplicates are lines whose content the store already held (or an
	// earlier line of this run): nothing stored, the earlier memory named.
	Duplicates []duplicateLine `json:"duplicates"`
	Failed     int             `json:"failed"`
	Errors     []lineError     `json:"errors"`
	// Linked counts the relation lines stored (after every memory line).
	Linked int `json:"linked"`
	// relations are the valid relation lines, linked at the end.
	relations []pendingRelation
}

type pendingRelation struct {
	line int
	rel  record.Relation
}

// duplicateLine is one line that was already stored.
type duplicateLine struct {
	Line        int       `json:"line"`
	DuplicateOf record.ID `json:"duplicate_of"`
}

// lineError is one refused line.
type lineError struct {
	Line  int    `json:"line"`
	Error string `json:"error"`
}

// runAddJSONL stores the memories of a JSONL file or stdin.
func (a *App) runAddJSONL(cmd *cobra.Command, f addFlags, args []string) (err error) {
	if len(args) > 0 || f.file != "" {
		return usagef("give either --jsonl or TEXT/--file, not both", "add --jsonl takes no TEXT or --file")
	}
	for _, name := range []string{"type", "tag", "source", "session", "importance", "created-at"} {
		if cmd.Flags().Changed(name) {
			return usagef("put the field in each JSONL line instead", "--%s does not apply to add --jsonl", name)
		}
	}
	if a.MaxContentBytes <= 0 {
		return usagef("give a positive number of bytes", "--max-content-bytes %d is not positive", a.MaxContentBytes)
	}
	if f.skipLines < 0 {
		return usagef("give 0 or the number of lines already stored", "--skip-lines %d is negative", f.skipLines)
	}
	a.skipLines, a.allowDuplicate = f.skipLines, f.allowDuplicate
	in, size := a.Stdin, int64(-1)
	if f.jsonl == "-" {
		a.stdinHint()
	} else {
		fh, err := os.Open(f.jsonl)
		if err != nil {
			return &UsageError{Problem: fmt.Sprintf("--jsonl: %v", err), Fix: "give a readable JSONL file, or - for stdin"}
		}
		defer fh.Close() // read-only: a close error loses nothing
		if err := notDir(fh, "--jsonl"); err != nil {
			return err
		}
		if a.isTerminal != nil && a.isTerminal(a.Stderr) && !a.JSON { // the bar's total: one pass to count the lines
			if n, err := countLines(fh); err == nil {
				size = n
			}
			if _, err := fh.Seek(0, io.SeekStart); err != nil {
				return fmt.Errorf("--jsonl %s: %w", f.jsonl, err)
			}
		}
		in = fh
	}
	s, err := a.openStore(storeOpen{write: true, deferSlots: f.deferSlots, manualFill: true})
	if err != nil {
		return err
	}
	defer a.closeStore(s, &err)
	start := time.Now()
	res, err := a.addJSONL(s, in, size)
	if err != nil || !f.deferSlots {
		return a.reportBulk(res, err)
	}
	stored := time.Since(start)
	a.Warnf("%d memories searchable (E1, keywords and the model-free slots) in %.1f s (%.1f/s); filling the other model slots", res.Added, stored.Seconds(), rate(res.Added, stored))
	if ferr := a.fillPending(s); ferr != nil {
		return errors.Join(a.reportBulk(res, nil), ferr)
	}
	all := time.Since(start)
	a.Warnf("every slot filled in %.1f s (%.1f memories/s overall)", all.Seconds(), rate(res.Added, all))
	return a.reportBulk(res, nil)
}

func rate(n int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// fillPending computes every pending deferred slot of the store, batch by
// batch. An interrupt leaves the rest pending, persisted, for `cgraph fill`
// or a cgraph serve.
func (a *App) fillPending(s *engine.Engine) error {
	for {
		n, err := s.FillPending(a.Context(), 64)
		if err != nil {
			left, _ := s.Pending(context.WithoutCancel(a.Context()))
			if ctxErr := a.Context().Err(); ctxErr != nil {
				err = ctxErr // the interrupt, not each slot's report of it
			}
			return fmt.Errorf("fill the deferred slots: %d memories still wait for them, stored and searchable; `cgraph fill` (or a running cgraph serve) completes them: %w", left, err)
		}
		if n == 0 {
			return nil
		}
	}
}

// reportBulk prints a bulk summary and turns refused lines into exit code 1.
func (a *App) reportBulk(res bulkResult, runErr error) error {
	if a.JSON {
		if err := a.PrintJSON(res); err != nil {
			return errors.Join(runErr, err)
		}
	} else {
		for _, le := range res.Errors {
			a.Warnf("line %d: %s", le.Line, le.Error)
		}
		a.Printf("added %d, already stored %d, failed %d", res.Added, len(res.Duplicates), res.Failed)
		if res.Linked > 0 {
			a.Printf(", relations %d", res.Linked)
		}
		a.Printf("\n")
	}
	if runErr != nil {
		return runErr
	}
	if res.Failed > 0 {
		return &exitError{code: ExitError, msg: fmt.Sprintf("%d of %d lines were not stored (see the errors by line): fix those lines and add only them again",
			res.Failed, res.Failed+res.Added)}
	}
	return nil
}

// rerunNote follows every "resume with --skip-lines N": after a crash or
// kill, when nothing could say where the import stopped, the whole file
// can be run again, because a line whose content is stored already is a
// duplicate (found by the store's content hash) and stores nothing.
const rerunNote = " (or run the whole file again: lines already stored are found as duplicates and store nothing)"

// idleFlush is how long add --jsonl waits for the next line before it
// stores the valid lines it holds, so a slow stream (tail -f | cgraph add
// --jsonl -) is stored as it comes instead of 256 lines at a time.
const idleFlush = 200 * time.Millisecond

// readResult is one line from the reading goroutine of addJSONL.
type readResult struct {
	line    []byte
	tooLong bool
	err     error
}

// addJSONL reads JSONL from r and stores every valid line; a bad line is
// recorded with its number and skipped. size is r's number of lines for the
// progress bar (-1 if unknown: a spinner with the count and rate). Blank lines are skipped silently. Valid lines are
// stored bulkBatch at a time, and whenever the input pauses for idleFlush.
// It stops on the first store error, or when the run's context is cancelled:
// then the lines already read are stored and the error names the last one.
// Reading runs in a goroutine so a cancel is seen while r blocks; that
// goroutine ends at r's next line or EOF. Cost: one AddBatch per bulkBatch
// valid lines.
func (a *App) addJSONL(e adder, r io.Reader, size int64) (bulkResult, error) {
	ctx := a.Context()
	res := bulkResult{Errors: []lineError{}, Duplicates: []duplicateLine{}}
	bar := a.progress(size)
	maxLine := 6*a.maxContent() + 64<<10 // JSON escaping can grow text up to 6×
	lineCh, done := make(chan readResult), make(chan struct{})
	defer close(done)
	go func() {
		br := bufio.NewReaderSize(r, 64<<10)
		for {
			l, tooLong, err := readLine(br, maxLine)
			select {
			case lineCh <- readResult{l, tooLong, err}:
			case <-done:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	var pending []record.NewMemory
	var lines []int
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		// Lines already read are stored whole even after a cancel.
		err := a.storeBatch(context.WithoutCancel(ctx), e, pending, lines, &res)
		if bar != nil {
			_ = bar.Add(len(pending)) // only draws on the terminal
		}
		pending, lines = pending[:0], lines[:0]
		if a.afterFlush != nil {
			a.afterFlush()
		}
		return err
	}
	idle := time.NewTimer(idleFlush)
	defer idle.Stop()
	for lineNo := 0; ; {
		var rr readResult
		select {
		case rr = <-lineCh:
			lineNo++
		case <-idle.C:
			if err := flush(); err != nil {
				return res, err
			}
			continue
		case <-ctx.Done():
			return res, errors.Join(fmt.Errorf("interrupted after line %d (%d memories stored, every line up to it): resume with --skip-lines %d%s: %w",
				lineNo, res.Added+len(pending), lineNo, rerunNote, ctx.Err()), flush())
		}
		if rr.err != nil && !errors.Is(rr.err, io.EOF) {
			return res, errors.Join(fmt.Errorf("read line %d: %w: every line before it is stored: resume with --skip-lines %d%s", lineNo, rr.err, lineNo-1, rerunNote), flush())
		}
		countLine := func() { // a line that stores nothing; stored lines count at their flush
			if bar != nil && (len(rr.line) > 0 || rr.err == nil) {
				_ = bar.Add(1) // only draws on the terminal
			}
		}
		if lineNo <= a.skipLines { // resuming: an earlier run stored it
			countLine()
			if errors.Is(rr.err, io.EOF) {
				break
			}
			idle.Reset(idleFlush)
			continue
		}
		if lineNo == 1 {
			rr.line = bytes.TrimPrefix(rr.line, []byte("\xef\xbb\xbf")) // a UTF-8 byte-order mark some editors write
		}
		before := len(pending)
		a.takeLine(rr, lineNo, maxLine, &res, &pending, &lines)
		if len(pending) == before {
			countLine()
		}
		if len(pending) >= bulkBatch {
			if err := flush(); err != nil {
				return res, err
			}
		}
		if errors.Is(rr.err, io.EOF) {
			break
		}
		idle.Reset(idleFlush)
	}
	if err := flush(); err != nil {
		return res, err
	}
	// Relations last: both ends are stored by now (or were before).
	for _, p := range res.relations {
		if _, err := e.Link(context.WithoutCancel(ctx), p.rel); err != nil {
			var ve *record.ValidationError
			if !errors.As(err, &ve) && !errors.Is(err, record.ErrNotFound) {
				return res, fmt.Errorf("link line %d: %w", p.line, err)
			}
			res.fail(p.line, err.Error())
			continue
		}
		res.Linked++
	}
	if bar != nil {
		_ = bar.Finish() // only draws on the terminal
	}
	return res, nil
}

// takeLine parses and checks one line: a valid memory joins pending, a bad
// line is recorded in res.
func (a *App) takeLine(rr readResult, lineNo, maxLine int, res *bulkResult, pending *[]record.NewMemory, lines *[]int) {
	switch {
	case rr.tooLong:
		res.fail(lineNo, fmt.Sprintf("line is longer than %d bytes: split the content into smaller memories", maxLine))
	case len(bytes.TrimSpace(rr.line)) > 0:
		n, rel, err := parseLine(rr.line)
		if err == nil && rel == nil {
			err = n.Validate(a.maxContent())
		}
		if err != nil {
			res.fail(lineNo, err.Error())
			return
		}
		if rel != nil {
			res.relations = append(res.relations, pendingRelation{lineNo, *rel})
			return
		}
		if n.Project == "" {
			n.Project = a.Project
		}
		n.AllowDuplicate = a.allowDuplicate
		*pending, *lines = append(*pending, n), append(*lines, lineNo)
	}
}

func (r *bulkResult) fail(line int, msg string) {
	r.Failed++
	r.Errors = append(r.Errors, lineError{Line: line, Error: msg})
}

func (a *App) maxContent() int {
	if a.MaxContentBytes <= 0 {
		return record.DefaultMaxContentBytes
	}
	return a.MaxContentBytes
}

// storeBatch stores ns (from lines) in one AddBatch. If the engine refuses
// one memory the batch is retried one memory at a time, so only that line
// fails. Other errors (the store) stop the bulk add.
func (a *App) storeBatch(ctx context.Context, e adder, ns []record.NewMemory, lines []int, res *bulkResult) error {
	ms, err := e.AddBatch(ctx, ns)
	if err == nil {
		for i, m := range ms {
			if m.Duplicate {
				res.Duplicates = append(res.Duplicates, duplicateLine{lines[i], m.ID})
			} else {
				res.Added++
			}
		}
		return nil
	}
	var ve *record.ValidationError
	if !errors.As(err, &ve) {
		return fmt.Errorf("store lines %d-%d (%d memories stored before them; none of these): %w: resume with --skip-lines %d%s",
			lines[0], lines[len(lines)-1], res.Added, err, lines[0]-1, rerunNote)
	}
	for i, n := range ns {
		m, err := e.Add(ctx, n)
		if err != nil {
			if !errors.As(err, &ve) {
				return fmt.Errorf("store line %d (%d memories stored before it): %w: resume with --skip-lines %d%s", lines[i], res.Added, err, lines[i]-1, rerunNote)
			}
			res.fail(lines[i], err.Error())
			continue
		}
		if m.Duplicate {
			res.Duplicates = append(res.Duplicates, duplicateLine{lines[i], m.ID})
			continue
		}
		res.Added++
	}
	return nil
}

// countLines counts the lines of r as readLine splits them (a last line
// without a newline counts).
func countLines(r io.Reader) (int64, error) {
	buf := make([]byte, 256<<10)
	var n int64
	last := byte('\n')
	for {
		k, err := r.Read(buf)
		if k > 0 {
			n += int64(bytes.Count(buf[:k], []byte{'\n'}))
			last = buf[k-1]
		}
		if err == io.EOF {
			if last != '\n' {
				n++
			}
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// progress returns a progress bar on stderr when stderr is a terminal, else
// nil: lines done of lines (-1: a spinner), the rate and the time left. A
// stored line counts when its batch is stored, any other line when read.
func (a *App) progress(lines int64) *progressbar.ProgressBar {
	if a.JSON || a.isTerminal == nil || !a.isTerminal(a.Stderr) {
		return nil
	}
	return progressbar.NewOptions64(lines,
		progressbar.OptionSetWriter(a.Stderr),
		progressbar.OptionSetDescription("adding"),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("lines"),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetRenderBlankState(true), // shown from the start, before the first batch is stored
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)
}

// readLine reads one line without its ending ("\n" or "\r\n"). A line
// longer than max bytes (ending excluded) is consumed and reported as
// tooLong, holding at most max+2 bytes of it in memory. err is io.EOF after
// the last line.
func readLine(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong && len(line)+len(chunk) <= max+2 {
			line = append(line, chunk...)
		} else {
			tooLong, line = true, nil
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) > max {
			tooLong, line = true, nil
		}
		return line, tooLong, err
	}
}

// parseJSONLine decodes one JSONL memory line; errors name the field and
// say how to fix the line. A relation line is refused.
func parseJSONLine(line []byte) (record.NewMemory, error) {
	n, rel, err := parseLine(line)
	if err == nil && rel != nil {
		return n, errors.New("a relation line where a memory was expected")
	}
	return n, err
}

// parseLine decodes one JSONL line: a memory, or (with "relation") a
// relation between two memories.
func parseLine(line []byte) (record.NewMemory, *record.Relation, error) {
	if !utf8.Valid(line) {
		// encoding/json would silently turn bad bytes into U+FFFD.
		return record.NewMemory{}, nil, errors.New("the line is not valid UTF-8: convert the file to UTF-8 (e.g. iconv -t UTF-8)")
	}
	if err := record.CheckRawJSON(line); err != nil { // a lone surrogate escape: U+FFFD once decoded
		return record.NewMemory{}, nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	var j jsonlMemory
	if err := dec.Decode(&j); err != nil {
		return record.NewMemory{}, nil, jsonLineError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return record.NewMemory{}, nil, errors.New("text after the JSON object: put one object per line")
	}
	if j.Relation != nil {
		if j.Content != nil {
			return record.NewMemory{}, nil, errors.New(`a line is a memory ("content") or a relation ("relation"), not both`)
		}
		r, err := j.Relation.parse()
		return record.NewMemory{}, &r, err
	}
	n, err := j.memory()
	return n, nil, err
}

func (l relationLine) parse() (record.Relation, error) {
	r := record.Relation{Type: l.Type, Weight: l.Weight}
	var err error
	if r.From, err = record.ParseID(l.From); err != nil {
		return r, fmt.Errorf("relation.from: %w", err)
	}
	if r.To, err = record.ParseID(l.To); err != nil {
		return r, fmt.Errorf("relation.to: %w", err)
	}
	if !r.Type.Known() {
		return r, &record.ValidationError{Field: "relation.type", Problem: "is missing", Fix: "use one of " + record.RelationTypeNames()}
	}
	if r.Weight == 0 {
		r.Weight = record.DefaultRelationWeight
	}
	if err := record.CheckWeight(r.Weight); err != nil {
		return r, err
	}
	if l.CreatedAt != "" {
		if r.CreatedAt, err = record.ParseCreatedAt(l.CreatedAt); err != nil {
			return r, fmt.Errorf("relation.created_at: %w", err)
		}
	}
	return r, nil
}

// memory is the memory a JSONL memory line describes.
func (j jsonlMemory) memory() (record.NewMemory, error) {
	if j.Content == nil {
		return record.NewMemory{}, &record.ValidationError{Field: "content", Problem: "is missing", Fix: `every line needs a "content" field`}
	}
	n := record.NewMemory{Content: *j.Content, Tags: j.Tags, Session: j.Session, Source: j.Source, Sequence: j.Sequence, Project: j.Project, Meta: j.Meta}
	if j.ID != "" {
		id, err := record.ParseID(j.ID)
		if err != nil {
			return n, err
		}
		n.ID = id
	}
	if j.Type != "" {
		t, err := record.ParseType(j.Type)
		if err != nil {
			return n, err
		}
		n.Type = t
	}
	t, err := record.ParseCreatedAt(j.CreatedAt)
	if err != nil {
		return n, err
	}
	n.CreatedAt = t
	if j.Importance != nil {
		if *j.Importance == 0 {
			return n, &record.ValidationError{Field: "importance", Problem: "0 cannot be stored (it means the default 0.5)", Fix: "give a small positive number such as 0.01, or leave it out"}
		}
		n.Importance = *j.Importance
	}
	return n, nil
}

// jsonLineError rewrites encoding/json's errors for a JSONL line.
func jsonLineError(err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("not valid JSON (%v at byte %d): write one JSON object per line", se, se.Offset)
	case errors.As(err, &te) && te.Field == "":
		return fmt.Errorf("a JSON %s, not an object: write one object per line, like {\"content\": \"...\"}", te.Value)
	case errors.As(err, &te):
		return fmt.Errorf("field %q is a JSON %s, want %s: fix its value", te.Field, te.Value, jsonKind(te.Type.Kind().String()))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("the JSON object is cut off: finish it on the same line")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return fmt.Errorf("%s: use only %s", strings.TrimPrefix(err.Error(), "json: "), jsonlFields)
	}
	return fmt.Errorf("not valid JSON (%v): write one JSON object per line", err)
}

func jsonKind(k string) string {
	switch k {
	case "slice":
		return "an array of strings"
	case "float64":
		return "a number"
	case "ptr":
		return "a string"
	}
	return "a " + k
}
