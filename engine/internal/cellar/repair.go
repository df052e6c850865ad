package cellar

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cgraph/cgraph/internal/atomicfile"
	"github.com/cgraph/cgraph/record"
)

// RepairReport says what Repair found and did.
type RepairReport struct {
	Dir string
	// Healthy is true when the store opened as it was: nothing was changed.
	Healthy bool
	// Manifest is the manifest CURRENT names after Repair.
	Manifest string
	// Tried lists each manifest refused before Manifest, with the reason.
	Tried []string
	// LostLogs are the write-ahead logs the store needed that are gone or
	// truncated (one line each); Repair accepted their loss, so the store
	// opens with what is left (RepairRecords then rebuilds its indexes).
	LostLogs []string
}

// Repair brings back a store whose CURRENT file is missing or names a
// manifest that does not describe the store (the damage record.DamagedStoreError
// reports): it points CURRENT at the newest manifest that RocksDB reads and
// that records cgraph metadata, trying each from the newest down. It only
// ever rewrites CURRENT, and restores it when no manifest serves. It takes
// the writer lock, so no writer may run beside it. A healthy store is left
// untouched.
//
// What Repair cannot bring back: writes recorded only in a manifest newer
// than the one it picks (none, when the newer manifests hold no metadata,
// which is the case a failed re-creation leaves).
//
// Once a manifest serves, Repair opens the store once accepting the loss of
// write-ahead logs its ledger needs and that are gone (walledger.go), and
// reports them in LostLogs; what those logs held cannot be brought back, and
// RepairRecords then rebuilds the counters and record indexes from the
// records that remain.
func Repair(dir string) (RepairReport, error) {
	rep := RepairReport{Dir: dir}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return rep, fmt.Errorf("%w %s: give the directory of a store", record.ErrNoStore, dir)
	}
	lock, err := acquireWriterLock(dir)
	if err != nil {
		return rep, err
	}
	defer func() { _ = lock.release() }() // released on return; the result is what matters
	d, err := readStoreDir(dir)
	if err != nil {
		return rep, err
	}
	if len(d.manifests) == 0 {
		if d.holdsData() {
			return rep, fmt.Errorf("store %s has no manifest left, so Repair cannot rebuild it: restore it from a backup", dir)
		}
		return rep, fmt.Errorf("%w %s: nothing to repair", record.ErrNoStore, dir)
	}
	current := filepath.Join(dir, "CURRENT")
	old, err := os.ReadFile(current)
	hadCurrent := err == nil
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return rep, fmt.Errorf("read CURRENT: %w", err)
	}
	if hadCurrent {
		err := inspect(dir, d)
		if err == nil {
			rep.Healthy, rep.Manifest = true, trimLine(old)
			return acceptLostLogs(rep)
		}
		if errors.Is(err, errTableDamaged) {
			// The manifest is fine: a table file it names is gone or cut
			// short, and no other manifest brings its data back.
			return rep, fmt.Errorf("repair cannot help store %s, nothing was changed: %w", dir, err)
		}
	}
	for _, m := range slices.Backward(d.manifests) {
		if err := atomicfile.WriteFileSynced(current, []byte(m+"\n"), 0o644); err != nil {
			return rep, fmt.Errorf("point CURRENT at %s: %w", m, err)
		}
		err := inspect(dir, d)
		if err == nil {
			rep.Manifest = m
			return acceptLostLogs(rep)
		}
		rep.Tried = append(rep.Tried, fmt.Sprintf("%s: %v", m, err))
		if errors.Is(err, errTableDamaged) {
			break // the manifest read; a table file it names is damaged
		}
	}
	var restore error
	if hadCurrent {
		restore = atomicfile.WriteFileSynced(current, old, 0o644)
	} else {
		restore = os.Remove(current)
	}
	if last := len(rep.Tried) - 1; last >= 0 && strings.Contains(rep.Tried[last], "table file") {
		return rep, errors.Join(fmt.Errorf("repair cannot help store %s; CURRENT was restored: %s", dir, rep.Tried[last]), restore)
	}
	return rep, errors.Join(fmt.Errorf("no manifest of store %s opens with cgraph metadata (tried %d); CURRENT was restored; restore the store from a backup", dir, len(d.manifests)), restore)
}

// acceptLostLogs opens the store of rep (whose manifest serves) read-write
// once, accepting logs that its ledger names and that are gone: the store
// then records the logs it has, and opens with what is left. What was lost
// goes into rep.LostLogs. REQUIRES: the writer lock.
func acceptLostLogs(rep RepairReport) (RepairReport, error) {
	s, lost, err := openRocksReport(rep.Dir, rocksWrite, true)
	if err != nil {
		return rep, fmt.Errorf("open store %s to check its write-ahead logs: %w", rep.Dir, diagnose(rep.Dir, err))
	}
	if err := s.close(); err != nil {
		return rep, err
	}
	if lost != nil {
		rep.Healthy, rep.LostLogs = false, lost.Logs
	}
	return rep, nil
}

func trimLine(b []byte) string {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return string(b)
}
