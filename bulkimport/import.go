// Package bulkimport stores the memories and relations of a JSONL stream
// (add --jsonl, import of an export): one JSON object a line, parsed and
// validated line by line, stored in batches through the store's AddBatch,
// relations linked at the end. A bad line is reported by its number and
// skipped; a store error stops the import with the line to resume from.
//
// With engine.Engine, whose AddBatch comes in two halves, up to
// Options.InFlight batches are fingerprinted side by side and the next
// while the last one is written; batches are written one at a time, in
// line order, so the outcome is the same as one batch at a time. A line
// without a created_at is stamped when its batch leaves the reader, so
// creation times follow line order even though batches prepared side by
// side reach the engine in any order (and a memory written one at a time
// after its batch refused a line keeps its batch's time).
//
// It sees the store only through its small Adder interface, draws nothing
// (progress goes through Options.Progress) and never opens or closes a
// store.
package bulkimport

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/trace"
	"slices"
	"time"

	"github.com/cgraph/cgraph/record"
)

// BatchSize is how many valid lines go into one engine AddBatch: big enough
// to amortise the write and fill the models' batches, small enough that the
// progress bar moves every few seconds and an interrupt loses little work.
const BatchSize = 64

// GPUBatchSize is BatchSize where the models run on a GPU (--device cuda):
// one AddBatch feeds each model four runs of 64 texts
// (runtime.CUDABatchSize), and the import fingerprints the next batch
// while the last is written (see PrepareBatch in package engine).
const GPUBatchSize = 256

// GPUInFlight is Options.InFlight where the models run on a GPU: three
// batches on their way keep the GPU fed while one is written (issue 33, run
// 12 on an H100: 1,110 docs/s against 1,100 with two, 767 with one, and
// the registry's own 1,271).
const GPUInFlight = 3

// Adder is what a bulk add needs from a store: engine.Engine (every memory
// gets its fingerprint).
type Adder interface {
	Add(ctx context.Context, m record.NewMemory) (record.Memory, error)
	AddBatch(ctx context.Context, ms []record.NewMemory) ([]record.Memory, error)
	Link(ctx context.Context, r record.Relation) (record.Relation, error)
}

// preparer is an Adder whose AddBatch comes in two halves
// (engine.Engine.PrepareBatch): the fingerprints, then store, the write.
// Import fingerprints batches while the one before is written, so a GPU's
// model runs and the write's CPU work overlap. Batches are still written
// one at a time, in line order.
type preparer interface {
	PrepareBatch(ctx context.Context, ms []record.NewMemory) (store func(context.Context) ([]record.Memory, error), err error)
}

// Result is the summary of an import (and add --jsonl --json).
type Result struct {
	Added int `json:"added"`
	// Duplicates are lines whose content the store already held (or an
	// earlier line of this run): nothing stored, the earlier memory named.
	Duplicates []DuplicateLine `json:"duplicates"`
	Failed     int             `json:"failed"`
	Errors     []LineError     `json:"errors"`
	// Linked counts the relation lines stored (after every memory line).
	Linked int `json:"linked"`
	// relations are the valid relation lines, linked at the end.
	relations []pendingRelation
}

type pendingRelation struct {
	line int
	rel  record.Relation
}

// DuplicateLine is one line that was already stored.
type DuplicateLine struct {
	Line        int       `json:"line"`
	DuplicateOf record.ID `json:"duplicate_of"`
}

// LineError is one refused line.
type LineError struct {
	Line  int    `json:"line"`
	Error string `json:"error"`
}

// Options are the settings of one import.
type Options struct {
	// MaxContent is the largest content, in bytes, a memory may have
	// (record.DefaultMaxContentBytes when 0).
	MaxContent int
	// Project is given to the memories whose line names none.
	Project string
	// AllowDuplicate stores a line whose content the store already holds.
	AllowDuplicate bool
	// SkipLines are the first lines, stored by an earlier run, to skip.
	SkipLines int
	// BatchSize is how many valid lines go into one AddBatch (0:
	// BatchSize). On a GPU larger batches fill the models' runs.
	BatchSize int
	// InFlight is how many batches may be on their way at once (started,
	// not yet taken into the result) with a store whose AddBatch comes in
	// two halves (0: 2). Batches on their way are fingerprinted side by
	// side, and each is written once the one before it is: writes stay one
	// at a time, in line order. 1 is one batch at a time.
	InFlight int
	// Progress counts lines done (nil: none): a stored line when its batch
	// is stored, any other line when it is read.
	Progress func(lines int)
	// AfterFlush, when set (by a test), runs after each batch is stored.
	AfterFlush func()
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

// readResult is one line from the reading goroutine of Import.
type readResult struct {
	line    []byte
	tooLong bool
	err     error
}

// importer is one run of Import: the store, the settings, the lines read
// and not yet stored, and the result so far.
type importer struct {
	ctx     context.Context
	e       Adder
	o       Options
	maxLine int
	res     Result
	pending []record.NewMemory
	lines   []int // pending[i] is line lines[i]
	// prep is e's two halves of AddBatch (nil: AddBatch, one batch at a
	// time); stages are the batches on their way, oldest first.
	prep   preparer
	stages []*stage
}

// stage is one batch on its way through a preparer: fingerprinted on its
// own goroutine, written once the batch before it is written (so writes
// keep line order), its outcome kept in res until Import takes it in.
type stage struct {
	ns    []record.NewMemory
	lines []int
	done  chan struct{}
	// Set before done closes: what these lines did (res), the memories
	// added up to and including this batch (through, for the messages of
	// the next), and an error that stops the import (errNotStored when an
	// earlier batch's did).
	res     Result
	through int
	err     error
}

// errNotStored marks a batch left unwritten because one before it failed.
var errNotStored = errors.New("not stored: an earlier batch failed")

// Import reads JSONL from r and stores every valid line; a bad line is
// recorded with its number and skipped. Blank lines are skipped silently.
// Valid lines are stored BatchSize at a time, and whenever the input
// pauses for idleFlush; relation lines are linked at the end, when both
// ends are stored. It stops on the first store error, or when ctx is
// cancelled: then the lines already read are stored and the error names
// the last one (and how to resume). Reading runs in a goroutine so a
// cancel is seen while r blocks; that goroutine ends at r's next line or
// EOF. Cost: one AddBatch per BatchSize valid lines.
func Import(ctx context.Context, e Adder, r io.Reader, o Options) (Result, error) {
	if o.MaxContent <= 0 {
		o.MaxContent = record.DefaultMaxContentBytes
	}
	if o.BatchSize <= 0 {
		o.BatchSize = BatchSize
	}
	if o.InFlight <= 0 {
		o.InFlight = 2
	}
	im := &importer{ctx: ctx, e: e, o: o, maxLine: 6*o.MaxContent + 64<<10, // JSON escaping can grow text up to 6×
		res: Result{Errors: []LineError{}, Duplicates: []DuplicateLine{}}}
	im.prep, _ = e.(preparer)
	lineCh, done := make(chan readResult), make(chan struct{})
	defer close(done)
	go readLines(r, im.maxLine, lineCh, done)
	err := im.consume(lineCh)
	if err == nil {
		err = im.drain()
	}
	if err != nil {
		return im.res, errors.Join(err, im.wait()) // a store still running finishes, and is counted, before Import returns
	}
	return im.res, im.link()
}

// readLines sends r's lines until EOF, a read error, or done.
func readLines(r io.Reader, maxLine int, lineCh chan<- readResult, done <-chan struct{}) {
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
}

// consume takes the lines as they come, storing a batch when it is full
// or the input pauses, until EOF, a read or store error, or a cancel.
func (im *importer) consume(lineCh <-chan readResult) error {
	idle := time.NewTimer(idleFlush)
	defer idle.Stop()
	for lineNo := 0; ; {
		var rr readResult
		select {
		case rr = <-lineCh:
			lineNo++
		case <-idle.C:
			if err := im.drain(); err != nil {
				return err
			}
			continue
		case <-im.ctx.Done():
			if err := im.drain(); err != nil {
				return err
			}
			return fmt.Errorf("interrupted after line %d (%d memories stored, every line up to it): resume with --skip-lines %d%s: %w",
				lineNo, im.res.Added, lineNo, rerunNote, im.ctx.Err())
		}
		if rr.err != nil && !errors.Is(rr.err, io.EOF) {
			return errors.Join(fmt.Errorf("read line %d: %w: every line before it is stored: resume with --skip-lines %d%s", lineNo, rr.err, lineNo-1, rerunNote), im.drain())
		}
		if err := im.take(rr, lineNo); err != nil {
			return err
		}
		if errors.Is(rr.err, io.EOF) {
			return nil
		}
		idle.Reset(idleFlush)
	}
}

// take handles line lineNo: skipped when an earlier run stored it, else
// parsed into pending (or the errors), and the batch stored when full.
func (im *importer) take(rr readResult, lineNo int) error {
	countLine := func() { // a line that stores nothing; stored lines count at their flush
		if im.o.Progress != nil && (len(rr.line) > 0 || rr.err == nil) {
			im.o.Progress(1)
		}
	}
	if lineNo <= im.o.SkipLines { // resuming: an earlier run stored it
		countLine()
		return nil
	}
	if lineNo == 1 {
		rr.line = bytes.TrimPrefix(rr.line, []byte("\xef\xbb\xbf")) // a UTF-8 byte-order mark some editors write
	}
	before := len(im.pending)
	im.takeLine(rr, lineNo)
	if len(im.pending) == before {
		countLine()
	}
	if len(im.pending) >= im.o.BatchSize {
		return im.flush()
	}
	return nil
}

// flush stores the pending lines in one batch. Lines already read are
// stored whole even after a cancel. With a preparer the batch starts on its
// way (stage) once fewer than InFlight batches are; drain waits for all.
func (im *importer) flush() error {
	if len(im.pending) == 0 {
		return nil
	}
	ctx := context.WithoutCancel(im.ctx)
	ns, lines := slices.Clone(im.pending), slices.Clone(im.lines)
	im.pending, im.lines = im.pending[:0], im.lines[:0]
	now := time.Now().UTC()
	for i := range ns {
		if ns[i].CreatedAt.IsZero() {
			ns[i].CreatedAt = now // here, in line order: the engine would stamp it when its goroutine gets there
		}
	}
	if im.prep == nil {
		err := im.storeBatch(ctx, ns, lines)
		im.stored(len(ns))
		return err
	}
	for len(im.stages) >= im.o.InFlight {
		if err := im.takeOldest(); err != nil { // the earlier lines' outcome comes first; these are not stored
			return err
		}
	}
	s := &stage{ns: ns, lines: lines, done: make(chan struct{})}
	var prev *stage
	if k := len(im.stages); k > 0 {
		prev = im.stages[k-1]
	}
	base := im.res.Added // final for every batch taken in; prev carries the rest
	im.stages = append(im.stages, s)
	go im.run(ctx, s, prev, base)
	return nil
}

// run takes s on its way: its fingerprints at once (beside the batches
// before it), its write once prev's is done, and not at all when prev's
// failed. base is the memories added before prev's chain.
//
// Its three steps are execution-trace regions ("prepare", "wait for the
// batch before", "store"; go tool trace's user regions), so a trace of an
// import shows where its batches wait (scripts/gpucheck -import-trace).
func (im *importer) run(ctx context.Context, s, prev *stage, base int) {
	defer close(s.done)
	var store func(context.Context) ([]record.Memory, error)
	var err error
	trace.WithRegion(ctx, "prepare", func() { store, err = im.prep.PrepareBatch(ctx, s.ns) })
	before := base
	if prev != nil {
		trace.WithRegion(ctx, "wait for the batch before", func() { <-prev.done })
		if prev.err != nil {
			s.err = errNotStored
			return
		}
		before = prev.through
	}
	var ms []record.Memory
	if err == nil {
		trace.WithRegion(ctx, "store", func() { ms, err = store(ctx) })
	}
	s.res = Result{Added: before}
	s.err = outcome(ctx, im.e, &s.res, s.ns, s.lines, ms, err)
	s.through = s.res.Added
	s.res.Added -= before
}

// takeOldest waits for the oldest batch on its way and takes its outcome
// into the result.
func (im *importer) takeOldest() error {
	s := im.stages[0]
	im.stages = im.stages[1:]
	<-s.done
	if errors.Is(s.err, errNotStored) {
		return nil // the batch that failed said so
	}
	im.res.Added += s.res.Added
	im.res.Failed += s.res.Failed
	im.res.Duplicates = append(im.res.Duplicates, s.res.Duplicates...)
	im.res.Errors = append(im.res.Errors, s.res.Errors...)
	im.stored(len(s.ns))
	return s.err
}

// wait takes in every batch on its way, in order; the first error stops
// the import (the batches after it are not written).
func (im *importer) wait() error {
	var first error
	for len(im.stages) > 0 {
		if err := im.takeOldest(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// drain stores every line read so far: the pending ones and the batches
// on their way.
func (im *importer) drain() error {
	if err := im.flush(); err != nil {
		return errors.Join(err, im.wait())
	}
	return im.wait()
}

// stored reports n lines of one batch done.
func (im *importer) stored(n int) {
	if im.o.Progress != nil {
		im.o.Progress(n)
	}
	if im.o.AfterFlush != nil {
		im.o.AfterFlush()
	}
}

// link stores the relation lines, last: both ends are stored by now (or
// were before). A relation the store refuses fails its line only.
func (im *importer) link() error {
	for _, p := range im.res.relations {
		if _, err := im.e.Link(context.WithoutCancel(im.ctx), p.rel); err != nil {
			var ve *record.ValidationError
			if !errors.As(err, &ve) && !errors.Is(err, record.ErrNotFound) {
				return fmt.Errorf("link line %d: %w", p.line, err)
			}
			im.res.fail(p.line, err.Error())
			continue
		}
		im.res.Linked++
	}
	return nil
}

// takeLine parses and checks one line: a valid memory joins pending, a bad
// line is recorded in the result.
func (im *importer) takeLine(rr readResult, lineNo int) {
	switch {
	case rr.tooLong:
		im.res.fail(lineNo, fmt.Sprintf("line is longer than %d bytes: split the content into smaller memories", im.maxLine))
	case len(bytes.TrimSpace(rr.line)) > 0:
		n, rel, err := parseLine(rr.line)
		if err == nil && rel == nil {
			err = n.Validate(im.o.MaxContent)
		}
		if err != nil {
			im.res.fail(lineNo, err.Error())
			return
		}
		if rel != nil {
			im.res.relations = append(im.res.relations, pendingRelation{lineNo, *rel})
			return
		}
		if n.Project == "" {
			n.Project = im.o.Project
		}
		n.AllowDuplicate = im.o.AllowDuplicate
		im.pending, im.lines = append(im.pending, n), append(im.lines, lineNo)
	}
}

func (r *Result) fail(line int, msg string) {
	r.Failed++
	r.Errors = append(r.Errors, LineError{Line: line, Error: msg})
}

// storeBatch stores ns (from lines) in one AddBatch (see outcome).
func (im *importer) storeBatch(ctx context.Context, ns []record.NewMemory, lines []int) error {
	ms, err := im.e.AddBatch(ctx, ns)
	return outcome(ctx, im.e, &im.res, ns, lines, ms, err)
}

// outcome takes one batch's AddBatch result (ms, err) into res, whose
// Added counts the memories stored before the batch. If the engine refused
// one memory the batch is retried through e one memory at a time, so only
// that line fails. Other errors (the store) stop the bulk add.
func outcome(ctx context.Context, e Adder, res *Result, ns []record.NewMemory, lines []int, ms []record.Memory, err error) error {
	if err == nil {
		for i, m := range ms {
			if m.Duplicate {
				res.Duplicates = append(res.Duplicates, DuplicateLine{lines[i], m.ID})
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
			res.Duplicates = append(res.Duplicates, DuplicateLine{lines[i], m.ID})
			continue
		}
		res.Added++
	}
	return nil
}
