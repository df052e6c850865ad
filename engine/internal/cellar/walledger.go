package cellar

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cgraph/cgraph/internal/atomicfile"
	"github.com/cgraph/cgraph/record"
)

// The log ledger (FORMAT.md, "The log ledger"): which write-ahead logs a
// store needs, so that a store that lost one is refused instead of
// answering from what is left.
//
// A store keeps its recent writes only in its logs across processes
// (rocks_files.go), and RocksDB replays whatever logs it finds: a missing
// log is not an error to it. Deleting the newest log silently drops the
// newest memories (the counters in the older logs agree with what is
// left, so even Check passes); deleting an older one drops a slice from
// the middle of the history. RocksDB 7.8's track_and_verify_wals_in_manifest
// does not cover this store: it records only logs that were synced and
// closed by a flush within one process, and a store that flushes rarely
// (most do) replays logs that were never recorded (TestLostLogRefused runs
// with and without it). So the writer records the logs itself:
//
//   - after it opens, every log on disk (the new live log without a size),
//   - after it closes, every log on disk with its final size,
//
// and every open — writer or reader — checks, after RocksDB opened the
// store and before anything is written, that each recorded log RocksDB
// still needs (its number is not below rocksdb.min-log-number-to-keep:
// older logs were flushed and may be deleted by RocksDB at any time) is
// on disk and not shorter than recorded. A log recorded empty may be gone.
//
// What it does not see: a log a long-lived writer started after its open
// (a flush switches logs) and lost after the writer was killed before its
// close recorded it.

// walLedgerFileName is the ledger's file in the store directory.
const walLedgerFileName = "CGRAPH_WALS"

const walLedgerHeader = "cgraph write-ahead logs, version 1; see engine/FORMAT.md. Never delete a *.log file of this store."

// walLive marks a ledger entry whose size was not final when recorded.
const walLive = -1

// walEntry is one log of the ledger: its file number and size (walLive
// when it was still being written).
type walEntry struct {
	num  uint64
	size int64
}

func (w walEntry) name() string { return fmt.Sprintf("%06d.log", w.num) }

// logNumber parses the number of a log file name ("000060.log").
func logNumber(name string) (uint64, bool) {
	base, ok := strings.CutSuffix(name, ".log")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(base, 10, 64)
	return n, err == nil
}

// logsOnDisk lists the store's log files with their sizes, by number.
func logsOnDisk(dir string) (map[uint64]int64, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read store directory: %w", err)
	}
	out := map[uint64]int64{}
	for _, en := range entries {
		n, ok := logNumber(en.Name())
		if !ok {
			continue
		}
		fi, err := en.Info()
		if errors.Is(err, os.ErrNotExist) {
			continue // deleted by RocksDB while listing
		}
		if err != nil {
			return nil, fmt.Errorf("stat %s: %w", en.Name(), err)
		}
		out[n] = fi.Size()
	}
	return out, nil
}

// readWALLedger reads the ledger; ok is false when the store has none (a
// store no writer of this build has opened yet).
func readWALLedger(dir string) (ws []walEntry, ok bool, err error) {
	path := filepath.Join(dir, walLedgerFileName)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read the store's log ledger: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	line := 0
	for sc.Scan() {
		line++
		if line == 1 {
			if !strings.HasPrefix(sc.Text(), "cgraph write-ahead logs, version 1") {
				return nil, false, fmt.Errorf("%s line 1 is %q, not a cgraph log ledger of version 1: %w", path, sc.Text(), record.ErrCorrupt)
			}
			continue
		}
		name, size, found := strings.Cut(sc.Text(), " ")
		n, okName := logNumber(name)
		var w walEntry
		w.num, w.size = n, walLive
		if size != "live" {
			w.size, err = strconv.ParseInt(size, 10, 64)
		}
		if !found || !okName || err != nil || w.size < walLive {
			return nil, false, fmt.Errorf("%s line %d is %q, want \"NNNNNN.log SIZE\" or \"NNNNNN.log live\": %w", path, line, sc.Text(), record.ErrCorrupt)
		}
		ws = append(ws, w)
	}
	if line == 0 {
		return nil, false, fmt.Errorf("%s is empty: %w", path, record.ErrCorrupt)
	}
	return ws, true, nil
}

// writeWALLedger records the logs on disk numbered minLog or above; the
// newest is recorded live (without a size) unless final is set (the
// writer closed). Fsynced, by rename.
func writeWALLedger(dir string, minLog uint64, final bool) error {
	logs, err := logsOnDisk(dir)
	if err != nil {
		return err
	}
	nums := slices.Sorted(func(yield func(uint64) bool) {
		for n := range logs {
			if n >= minLog && !yield(n) {
				return
			}
		}
	})
	var b strings.Builder
	b.WriteString(walLedgerHeader + "\n")
	for i, n := range nums {
		if !final && i == len(nums)-1 {
			fmt.Fprintf(&b, "%s live\n", walEntry{num: n}.name())
			continue
		}
		fmt.Fprintf(&b, "%s %d\n", walEntry{num: n}.name(), logs[n])
	}
	if err := atomicfile.WriteFileSynced(filepath.Join(dir, walLedgerFileName), []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("record the store's write-ahead logs: %w", err)
	}
	return nil
}

// lostLogs compares the ledger with the logs that were on disk before
// RocksDB opened the store (before, from logsOnDisk) and returns one line
// per log the store still needs (number ≥ minLog) that is gone or shorter
// than recorded.
func lostLogs(ledger []walEntry, before map[uint64]int64, minLog uint64) []string {
	var lost []string
	for _, w := range ledger {
		if w.num < minLog {
			continue // flushed: RocksDB may have deleted it
		}
		size, ok := before[w.num]
		switch {
		case !ok && w.size == 0:
		case !ok && w.size == walLive:
			lost = append(lost, fmt.Sprintf("%s (the log a writer was writing to) is missing", w.name()))
		case !ok:
			lost = append(lost, fmt.Sprintf("%s (%d bytes) is missing", w.name(), w.size))
		case size < w.size:
			lost = append(lost, fmt.Sprintf("%s is %d bytes, %d were recorded: it was truncated", w.name(), size, w.size))
		}
	}
	return lost
}

// LostLogError is a store refused because write-ahead logs it needs are
// gone: the writes in them are in no other file. errors.Is(err,
// record.ErrDamaged) holds.
type LostLogError struct {
	Dir  string
	Logs []string // one line per log: its name and what is wrong
}

func (e *LostLogError) Error() string {
	return fmt.Sprintf("store %s lost write-ahead log files it needs: %s; the memories written only to them are gone from this store, "+
		"and it would answer from what is left, so nothing was opened or changed. "+
		"Restore the store from a backup (cgraph backup) or put the log files back; "+
		"or keep what is left: `cgraph check --repair --db %s` accepts the loss and rebuilds the counters and indexes from the memories that remain "+
		"(copy the directory with `cp -a` first), after which `cgraph export` and `cgraph import` can move them into a fresh store",
		e.Dir, strings.Join(e.Logs, "; "), e.Dir)
}

func (e *LostLogError) Is(target error) bool { return target == record.ErrDamaged }
