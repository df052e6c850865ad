package ops

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cgraph/cgraph/capture"
	"github.com/cgraph/cgraph/capture/claudecode"
	"github.com/cgraph/cgraph/capture/extract"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/record"
	"github.com/cgraph/cgraph/redact"
)

// Transcript ingestion (Ingest) stores an agent's session transcript as
// conversation memories, one per turn, and the typed memories extraction
// proposes from them (errors linked by "fixes" to their fix, decisions,
// preferences, facts), incrementally: each call reads what was appended
// since the last one.
//
// Idempotence. Every memory's id is derived from its idempotence key
// (capture.Turn.Key, capture.Candidate.Key), the host and the project
// (IngestID), so reading the same line again yields the same id. Before a
// batch is written its ids are looked up (Peek) and the stored ones are
// skipped; a batch refused because another writer stored one of its ids
// meanwhile is retried without them. Re-ingesting a file, a crash
// between a commit and the cursor's save, and two ingests of one file at
// once therefore store nothing twice. A turn whose content the project
// already holds word for word ("user: yes") is the engine's exact copy: it
// is not stored again and is counted in IngestReport.Duplicates.
//
// Resumption. Where the last read stopped is kept in a small JSON file per
// transcript and project under the store directory,
// <store>/capture/cursors/<sha256(path, project)[:16]>.json, written
// atomically (temporary file, rename) after each chunk's memories and links
// are committed. It is kept beside the store rather than in it because the
// engine has no family for an operation's state (adding one is a format
// change), and because it is only an optimisation: ids make a re-read
// harmless, so a lost or stale cursor costs a re-read, never a copy. The
// file records the id of the last turn it covers and a hash of the bytes
// before its offset; a cursor whose turn is not stored (a machine crash
// that lost unsynced writes) or whose file was rewritten or truncated is
// dropped and the transcript read from its start.
//
// Chunks. The transcript is read in chunks of about IngestChunkBytes
// (whole lines), written in batches of IngestBatch memories. Extraction
// runs over the chunk and the one before it (the cursor file remembers the
// previous chunk's start across calls), so an error and its fix in
// neighbouring reads are linked; candidates already stored are skipped by
// id.

// Ingest bounds.
const (
	// IngestBatch is how many memories one AddBatch writes.
	IngestBatch = 64
	// IngestChunkBytes is about how many transcript bytes one chunk reads.
	IngestChunkBytes = 1 << 20
	// MaxTurnContent caps a turn's stored content (head and tail kept).
	MaxTurnContent = 16 << 10
	// TurnImportance is the importance of a conversation turn: below the
	// default 0.5 of what a person stores and below extracted memories
	// (0.3–0.8), so raw turns never outrank them by default.
	TurnImportance = 0.2
)

// HostClaudeCode is the host whose transcripts Ingest reads.
const HostClaudeCode = "claude-code"

// IngestRequest asks Ingest to read a transcript.
type IngestRequest struct {
	// Host is the agent that wrote the transcript; HostClaudeCode (also
	// when empty) is the one known.
	Host string `json:"host"`
	// Path is the transcript file. Required; the faces that take it from
	// another machine (HTTP) require it absolute.
	Path string `json:"path"`
	// Project is the project the memories are stored in ("" the default).
	Project string `json:"project"`
	// Final says the session has ended (SessionEnd): a last line without
	// its newline is read and tool calls still waiting for a result are
	// stored without one.
	Final bool `json:"final"`
	// Redactor removes secrets from the turns before anything is stored
	// (the engine redacts again on write); nil means redact.Default().
	Redactor *redact.Redactor `json:"-"`
	// MinConfidence drops extracted memories below it (0 keeps all).
	MinConfidence float64 `json:"min_confidence,omitempty"`
}

// IngestReport says what one Ingest did.
type IngestReport struct {
	Host    string `json:"host"`
	Path    string `json:"path"`
	Project string `json:"project"`
	Session string `json:"session"`
	// From and To are the cursors the read started at and reached (a byte
	// offset at a line start, and the lines before it).
	From claudecode.Cursor `json:"from"`
	To   claudecode.Cursor `json:"to"`
	// Turns are the turns read past From; Stored the memories written (turns
	// and extracted ones); Skipped those already stored (by id);
	// Duplicates those whose content the project already held (the engine
	// kept the earlier memory).
	Turns      int `json:"turns"`
	Stored     int `json:"stored"`
	Skipped    int `json:"skipped"`
	Duplicates int `json:"duplicates"`
	// Typed counts the extracted memories stored, by kind (error, fix,
	// decision, preference, fact); Links the relations written.
	Typed map[capture.Kind]int `json:"typed"`
	Links int                  `json:"links"`
	// Problems are the lines skipped ("line N (byte B): why") and the
	// turns refused by validation.
	Problems []string `json:"problems,omitempty"`
	// Notes say what the read decided (a cursor dropped, …).
	Notes []string `json:"notes,omitempty"`
}

// IngestTotal is what an ingest of several transcripts answers (cgraph
// ingest): each file's report and their sums. Make it with NewIngestTotal
// and Add each report.
type IngestTotal struct {
	Files      []IngestReport `json:"files"`
	Turns      int            `json:"turns"`
	Stored     int            `json:"stored"`
	Skipped    int            `json:"skipped"`
	Duplicates int            `json:"duplicates"`
	Links      int            `json:"links"`
	Typed      map[string]int `json:"typed"`
	Problems   int            `json:"problems"`
	Served     bool           `json:"served"` // a cgraph serve did the work
	Seconds    float64        `json:"seconds"`
}

// NewIngestTotal is an empty total.
func NewIngestTotal() IngestTotal { return IngestTotal{Typed: map[string]int{}} }

// Add counts one file's report in t.
func (t *IngestTotal) Add(r IngestReport) {
	t.Files = append(t.Files, r)
	t.Turns += r.Turns
	t.Stored += r.Stored
	t.Skipped += r.Skipped
	t.Duplicates += r.Duplicates
	t.Links += r.Links
	t.Problems += len(r.Problems)
	for k, n := range r.Typed {
		t.Typed[string(k)] += n
	}
}

// IngestStore is what Ingest needs of a store; *engine.Engine is one. Dir
// is where the cursors are kept.
type IngestStore interface {
	AddBatch(ctx context.Context, ns []record.NewMemory) ([]record.Memory, error)
	Peek(ctx context.Context, ids []record.ID) ([]record.Memory, []bool, error)
	Link(ctx context.Context, r record.Relation) (record.Relation, error)
	Relations(ctx context.Context, id record.ID) ([]record.Relation, error)
	Dir() string
}

var _ IngestStore = (*engine.Engine)(nil)

var defaultRedactor = sync.OnceValue(redact.Default)

// chunkBytes is IngestChunkBytes; tests make it small to cross chunks.
var chunkBytes int64 = IngestChunkBytes

// check validates r and fills its defaults; it returns the transcript's
// absolute path and size.
func (r *IngestRequest) check() (string, int64, error) {
	switch r.Host {
	case "", HostClaudeCode:
		r.Host = HostClaudeCode
	default:
		return "", 0, &record.ValidationError{Field: "host", Problem: fmt.Sprintf("%q is not a host cgraph reads", r.Host), Fix: `give "claude-code"`}
	}
	if strings.TrimSpace(r.Path) == "" {
		return "", 0, &record.ValidationError{Field: "path", Problem: "is empty", Fix: "give the transcript file, e.g. ~/.claude/projects/<project>/<session>.jsonl"}
	}
	abs, err := filepath.Abs(r.Path)
	if err != nil {
		return "", 0, &record.ValidationError{Field: "path", Problem: fmt.Sprintf("%q: %v", r.Path, err), Fix: "give an absolute path"}
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", 0, &record.ValidationError{Field: "path", Problem: fmt.Sprintf("%s: %v", abs, err), Fix: "give an existing transcript file (.jsonl)"}
	}
	if !fi.Mode().IsRegular() {
		return "", 0, &record.ValidationError{Field: "path", Problem: fmt.Sprintf("%s is not a regular file", abs), Fix: "give one transcript file (.jsonl); the CLI takes a directory and ingests each file in it"}
	}
	if r.MinConfidence < 0 || r.MinConfidence > 1 {
		return "", 0, &record.ValidationError{Field: "min_confidence", Problem: fmt.Sprintf("%g is out of range", r.MinConfidence), Fix: "give a number from 0 to 1"}
	}
	if r.Redactor == nil {
		r.Redactor = defaultRedactor()
	}
	return abs, fi.Size(), nil
}

// Ingest reads the transcript r.Path from where the last Ingest of it (into
// the same project) stopped and stores its new turns and the memories
// extracted from them; see the comment at the top of this file for how it
// stays idempotent and resumable. It is safe to run beside another Ingest
// of the same file (each turn is stored once). On an error the chunks
// committed before it stay stored and the cursor covers them; the report
// says how far it got. Cost: one pass over the new bytes (plus the previous
// chunk, for extraction), one Peek and one AddBatch per IngestBatch
// memories, one Link per relation.
func Ingest(ctx context.Context, s IngestStore, r IngestRequest) (IngestReport, error) {
	path, size, err := r.check()
	if err != nil {
		return IngestReport{}, err
	}
	in := &ingest{s: s, r: r, path: path, rep: IngestReport{Host: r.Host, Path: path, Project: r.Project, Typed: map[capture.Kind]int{}}}
	in.session = strings.TrimSuffix(filepath.Base(path), ".jsonl")
	in.rep.Session = in.session
	f, err := os.Open(path)
	if err != nil {
		return in.rep, fmt.Errorf("open transcript: %w", err)
	}
	defer f.Close() // read-only: a close error loses nothing
	st, err := in.loadCursor(ctx, f, size)
	if err != nil {
		return in.rep, err
	}
	in.rep.From, in.rep.To = st.Cursor, st.Cursor
	err = in.run(ctx, f, size, st)
	return in.rep, err
}

// ingest is one Ingest call's state.
type ingest struct {
	s       IngestStore
	r       IngestRequest
	path    string
	session string
	rep     IngestReport
}

func (in *ingest) run(ctx context.Context, f *os.File, size int64, st cursorState) error {
	pos := st.Lookback // read the previous chunk again, for extraction only
	var prev []capture.Turn
	limit := chunkBytes
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		last := pos.Offset+limit >= size
		var rd io.Reader = f
		if !last {
			rd = io.LimitReader(f, limit)
		}
		if _, err := f.Seek(pos.Offset, io.SeekStart); err != nil {
			return fmt.Errorf("seek transcript %s to %d: %w", in.path, pos.Offset, err)
		}
		res, err := claudecode.ReadFrom(rd, pos, claudecode.Options{Path: in.path, Final: last && in.r.Final, Redactor: in.r.Redactor, Session: in.session})
		if err != nil {
			return fmt.Errorf("read transcript %s: %w", in.path, err)
		}
		if res.Next == pos {
			if last {
				return nil
			}
			limit *= 2 // one line (or a call and its result) longer than a chunk
			continue
		}
		limit = chunkBytes
		if res.Session != "" {
			in.rep.Session = res.Session
		}
		for _, p := range res.Problems {
			if p.Offset >= st.Cursor.Offset { // lines before the cursor were reported by an earlier call
				in.rep.Problems = append(in.rep.Problems, p.String())
			}
		}
		lastID, err := in.chunk(ctx, prev, res.Turns, st.Cursor)
		if err != nil {
			return err
		}
		if !lastID.IsZero() {
			st.LastID = lastID
		}
		st.Lookback, st.Cursor = pos, res.Next
		if err := in.saveCursor(f, st); err != nil {
			return err
		}
		in.rep.To = res.Next
		prev, pos = res.Turns, res.Next
		if last {
			return nil
		}
	}
}

// chunk stores the turns of one read past done (the turns before it were
// stored by an earlier call) and what extraction finds in prev and turns.
// It returns the id of the last turn stored or found.
func (in *ingest) chunk(ctx context.Context, prev, turns []capture.Turn, done claudecode.Cursor) (record.ID, error) {
	var fresh []capture.Turn
	for _, t := range turns {
		if t.Seq > uint64(done.Line) {
			fresh = append(fresh, t)
		}
	}
	in.rep.Turns += len(fresh)
	ns := make([]record.NewMemory, 0, len(fresh))
	for _, t := range fresh {
		ns = append(ns, in.turnMemory(t))
	}
	turnIDs, err := in.store(ctx, ns, nil)
	if err != nil {
		return record.ID{}, err
	}
	var lastID record.ID
	for i := len(turnIDs) - 1; i >= 0; i-- {
		if !turnIDs[i].IsZero() {
			lastID = turnIDs[i]
			break
		}
	}
	window := append(append([]capture.Turn(nil), prev...), turns...)
	plan := extract.Session(window, extract.Options{MinConfidence: in.r.MinConfidence})
	if len(plan.Memories) == 0 {
		return lastID, nil
	}
	cs := make([]record.NewMemory, len(plan.Memories))
	seen := map[string]int{}
	for i, c := range plan.Memories {
		// Candidate.Key is kind, session and first line: one command's
		// output can give several facts. The n-th candidate of a key is
		// told apart by n, which is the same on every read of its line.
		k := in.candidateKey(c)
		if seen[k]++; seen[k] > 1 {
			k += "#" + strconv.Itoa(seen[k])
		}
		cs[i] = c.NewMemory(in.r.Project)
		cs[i].ID = IngestID(in.r.Project, k, c.Time)
		cs[i].Meta["capture_key"] = capTo(k, record.MaxMetaValueBytes)
	}
	kinds := make([]capture.Kind, len(cs))
	for i, c := range plan.Memories {
		kinds[i] = c.Kind
	}
	created := make([]bool, len(cs))
	candIDs, err := in.store(ctx, cs, func(i int) { in.rep.Typed[kinds[i]]++; created[i] = true })
	if err != nil {
		return lastID, err
	}
	return lastID, in.link(ctx, plan, candIDs, created, window)
}

// store writes ns (their ids set) in batches of IngestBatch: ids already
// stored are skipped, a batch another writer raced is retried without them. It
// returns the id each memory has in the store (the earlier memory for an
// exact copy; zero for one refused by validation) and calls stored(i) for
// each memory written now.
func (in *ingest) store(ctx context.Context, ns []record.NewMemory, stored func(i int)) ([]record.ID, error) {
	out := make([]record.ID, len(ns))
	for lo := 0; lo < len(ns); lo += IngestBatch {
		hi := min(lo+IngestBatch, len(ns))
		if err := in.storeBatch(ctx, ns[lo:hi], out[lo:hi], func(i int) {
			if stored != nil {
				stored(lo + i)
			}
		}); err != nil {
			return out, err
		}
	}
	return out, nil
}

func (in *ingest) storeBatch(ctx context.Context, ns []record.NewMemory, out []record.ID, stored func(i int)) error {
	valid := make([]bool, len(ns))
	ids := make([]record.ID, len(ns))
	for i := range ns {
		ids[i] = ns[i].ID
		if err := ns[i].Validate(0); err != nil {
			in.rep.Problems = append(in.rep.Problems, fmt.Sprintf("%s: not stored: %v", ns[i].Source, err))
			continue
		}
		valid[i] = true
	}
	for attempt := 0; ; attempt++ {
		_, found, err := in.s.Peek(ctx, ids)
		if err != nil {
			return fmt.Errorf("look up %d memories of %s: %w", len(ids), in.path, err)
		}
		var todo []record.NewMemory
		var at []int
		for i := range ns {
			switch {
			case found[i]:
				out[i] = ids[i]
				in.rep.Skipped++
			case valid[i]:
				todo = append(todo, ns[i])
				at = append(at, i)
			}
		}
		if len(todo) == 0 {
			return nil
		}
		ms, err := in.s.AddBatch(ctx, todo)
		var ve *record.ValidationError
		if err != nil && attempt < len(ns) && errors.As(err, &ve) && ve.Field == "id" {
			// Another writer stored some of these ids meanwhile: count
			// again, without them. Each retry has fewer to store, so this
			// ends.
			for i := range ns {
				if found[i] {
					in.rep.Skipped--
				}
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("store %d memories of %s: %w", len(todo), in.path, err)
		}
		for k, m := range ms {
			i := at[k]
			out[i] = m.ID
			if m.Duplicate || m.ID != ids[i] {
				in.rep.Duplicates++
				continue
			}
			in.rep.Stored++
			stored(i)
		}
		return nil
	}
}

// link writes the plan's relations (a fix fixes its error) and ties each
// extracted memory to the turn it came from: the turn "informs" it (the
// memory is a reading of what was said or run there; get_related on the
// memory shows the evidence). A relation between two memories that were
// both stored before this call is written only when the store lacks it (a
// crash after the memories' commit left it out); Link itself is
// idempotent, but each costs a commit.
func (in *ingest) link(ctx context.Context, plan capture.Plan, ids []record.ID, created []bool, window []capture.Turn) error {
	have := map[record.ID][]record.Relation{}
	exists := func(r record.Relation) (bool, error) {
		rels, ok := have[r.From]
		if !ok {
			var err error
			if rels, err = in.s.Relations(ctx, r.From); err != nil {
				return false, fmt.Errorf("relations of %s: %w", r.From, err)
			}
			have[r.From] = rels
		}
		for _, got := range rels {
			if got.From == r.From && got.To == r.To && got.Type == r.Type {
				return true, nil
			}
		}
		return false, nil
	}
	put := func(r record.Relation, fresh bool) error {
		if r.From.IsZero() || r.To.IsZero() || r.From == r.To {
			return nil
		}
		if !fresh {
			ok, err := exists(r)
			if err != nil || ok {
				return err
			}
		}
		if _, err := in.s.Link(ctx, r); err != nil {
			return fmt.Errorf("link %s %s %s: %w", r.From, r.Type, r.To, err)
		}
		in.rep.Links++
		return nil
	}
	for _, l := range plan.Links {
		if err := put(record.Relation{From: ids[l.From], To: ids[l.To], Type: l.Type}, created[l.From] || created[l.To]); err != nil {
			return err
		}
	}
	turnIDs, err := in.turnIDs(ctx, window)
	if err != nil {
		return err
	}
	for i, c := range plan.Memories {
		t, ok := sourceTurn(c, window)
		if !ok {
			continue
		}
		if err := put(record.Relation{From: turnIDs[t], To: ids[i], Type: record.RelInforms}, created[i]); err != nil {
			return err
		}
	}
	return nil
}

// turnIDs are the stored ids of the window's turns (zero for a turn not
// stored under its own id: an exact copy of another memory).
func (in *ingest) turnIDs(ctx context.Context, window []capture.Turn) ([]record.ID, error) {
	ids := make([]record.ID, len(window))
	for i, t := range window {
		ids[i] = IngestID(in.r.Project, in.turnKey(t), t.Time)
	}
	_, found, err := in.s.Peek(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("look up the turns of %s: %w", in.path, err)
	}
	for i := range ids {
		if !found[i] {
			ids[i] = record.ID{}
		}
	}
	return ids, nil
}

// sourceTurn is the index of the turn a candidate was read from: the turn
// whose first line is the candidate's first, a text turn for what was said
// (decisions, preferences), a tool turn for what was run.
func sourceTurn(c capture.Candidate, window []capture.Turn) (int, bool) {
	if len(c.UUIDs) == 0 {
		return 0, false
	}
	wantTool := c.Kind == capture.KindError || c.Kind == capture.KindFix || c.Kind == capture.KindFact
	best := -1
	for i, t := range window {
		if len(t.UUIDs) == 0 || t.UUIDs[0] != c.UUIDs[0] || t.Session != c.Session {
			continue
		}
		if (t.Kind == capture.KindTool) == wantTool {
			return i, true
		}
		if best < 0 {
			best = i
		}
	}
	return best, best >= 0
}

// turnKey is a turn's idempotence key: Turn.Key, or its line and block
// when its line had no uuid (line numbers are stable in an append-only
// file).
func (in *ingest) turnKey(t capture.Turn) string {
	k := t.Key()
	if k == "" {
		k = t.Session + "/line-" + strconv.FormatUint(t.Seq, 10) + "#" + strconv.Itoa(t.Block)
	}
	return "turn/" + in.r.Host + "/" + k
}

// candidateKey is a candidate's idempotence key (Candidate.Key, made unique
// by its line and content when it has no line uuid).
func (in *ingest) candidateKey(c capture.Candidate) string {
	k := c.Key()
	if len(c.UUIDs) == 0 {
		h := sha256.Sum256([]byte(c.Content))
		k += fmt.Sprintf("line-%d/%x", c.Seq, h[:8])
	}
	return "memory/" + in.r.Host + "/" + k
}

// turnMemory is a turn as a conversation memory.
func (in *ingest) turnMemory(t capture.Turn) record.NewMemory {
	meta := map[string]string{
		"host":        in.r.Host,
		"turn":        t.Kind.String(),
		"line":        strconv.FormatUint(t.Seq, 10),
		"capture_key": capTo(t.Key(), record.MaxMetaValueBytes),
	}
	if len(t.UUIDs) > 0 {
		meta["line_uuids"] = joinCapped(t.UUIDs, record.MaxMetaValueBytes)
	}
	if t.CWD != "" {
		meta["cwd"] = capTo(t.CWD, record.MaxMetaValueBytes)
	}
	if t.Branch != "" {
		meta["branch"] = capTo(t.Branch, record.MaxMetaValueBytes)
	}
	if len(t.Files) > 0 {
		meta["files"] = joinCapped(t.Files, record.MaxMetaValueBytes)
	}
	if t.Sidechain {
		meta["sidechain"] = "true"
	}
	if t.Tool != nil {
		meta["tool"] = capTo(t.Tool.Name, record.MaxMetaValueBytes)
		if t.Tool.IsError {
			meta["tool_error"] = "true"
		}
	}
	return record.NewMemory{
		ID:         IngestID(in.r.Project, in.turnKey(t), t.Time),
		Content:    TurnContent(t),
		Type:       record.TypeConversation,
		Tags:       []string{"capture", "turn", t.Kind.String()},
		Source:     capTo(t.Source, record.MaxSourceBytes),
		Session:    capTo(t.Session, record.MaxSessionBytes),
		CreatedAt:  t.Time,
		Importance: TurnImportance,
		Project:    in.r.Project,
		Meta:       meta,
	}
}

// TurnContent is what a turn is stored as: "user: …", "assistant: …",
// "summary: …", or "tool NAME: <what it was given>\n→ <its output>"
// (marked "[error]" when the host flagged the result, "[no result]" when
// the session ended first), cut to MaxTurnContent bytes.
func TurnContent(t capture.Turn) string {
	if t.Kind != capture.KindTool || t.Tool == nil {
		return cutMiddle(t.Kind.String()+": "+t.Text, MaxTurnContent)
	}
	c := t.Tool
	var b strings.Builder
	b.WriteString("tool " + c.Name + ": " + toolInput(c))
	switch {
	case !c.HasResult:
		b.WriteString("\n→ [no result]")
	case c.IsError:
		b.WriteString("\n→ [error] " + c.Output)
	default:
		b.WriteString("\n→ " + c.Output)
	}
	return cutMiddle(b.String(), MaxTurnContent)
}

// toolInput is the part of a call's input worth reading: the command, the
// file and the text written, the pattern; else the input as JSON.
func toolInput(c *capture.ToolCall) string {
	var parts []string
	for _, k := range []string{"command", "file_path", "notebook_path", "path", "pattern", "url", "query", "description"} {
		if v := c.Str(k); v != "" {
			parts = append(parts, v)
		}
	}
	for _, k := range []string{"old_string", "new_string", "content"} {
		if v := c.Str(k); v != "" {
			parts = append(parts, k+": "+cutMiddle(v, 2048))
		}
	}
	if len(parts) > 0 {
		return strings.Join(parts, "\n")
	}
	if len(c.Input) == 0 {
		return ""
	}
	b, err := json.Marshal(c.Input)
	if err != nil {
		return ""
	}
	return cutMiddle(string(b), 2048)
}

// IngestID is the id of a captured memory: a UUIDv7 whose time is the
// turn's (ms since the epoch, 0 when the transcript gave none) and whose 74
// other bits are the sha256 of the project and the memory's idempotence
// key. Ids stay time-ordered like the store's own, and the same line always
// maps to the same id, in every process.
func IngestID(project, key string, at time.Time) record.ID {
	h := sha256.Sum256([]byte("cgraph/capture/v1\x00" + project + "\x00" + key))
	var id record.ID
	ms := uint64(0)
	if !at.IsZero() && at.UnixMilli() > 0 {
		ms = uint64(at.UnixMilli()) & (1<<48 - 1)
	}
	var ts [8]byte
	binary.BigEndian.PutUint64(ts[:], ms)
	copy(id[:6], ts[2:])
	copy(id[6:], h[:10])
	id[6] = 0x70 | id[6]&0x0f // version 7
	id[8] = 0x80 | id[8]&0x3f // RFC 9562 variant
	return id
}

// cutMiddle keeps the head and tail of s within n bytes, on rune
// boundaries, marking the cut.
func cutMiddle(s string, n int) string {
	if len(s) <= n {
		return s
	}
	mark := fmt.Sprintf("\n[… %d bytes cut …]\n", len(s)-n)
	keep := max(0, n-len(mark))
	head := keep / 2
	for head > 0 && !isRuneStart(s[head]) {
		head--
	}
	tail := len(s) - (keep - keep/2)
	for tail < len(s) && !isRuneStart(s[tail]) {
		tail++
	}
	return s[:head] + mark + s[tail:]
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// capTo cuts s to n bytes on a rune boundary.
func capTo(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// joinCapped joins names with "," up to limit bytes, dropping the names
// that do not fit whole.
func joinCapped(names []string, limit int) string {
	var b strings.Builder
	for _, n := range names {
		if b.Len()+len(n)+1 > limit {
			break
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(n)
	}
	return b.String()
}
