package cellar

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/linxGnu/grocksdb"
)

// How a store keeps its file count bounded (FORMAT.md, "Files and their
// lifecycle").
//
// cgraph is often used one process per write: a CLI add, a hook, an MCP
// session per conversation. RocksDB's defaults suit a long-lived process and
// fail this one in two ways. A close flushes every column family (one table
// file each, ~16 per add), and because memory ids and doc numbers only grow,
// each flushed file is disjoint from the older ones, so levelled compaction
// moves it down a level untouched (a "trivial move") instead of merging it:
// the table-file count grows by ~16 per process until every open fails with
// "Too many open files".
//
// So a store (1) keeps small writes in its write-ahead log across processes
// (no flush at close or on recovery; the log is what makes a write durable
// anyway), (2) flushes every family when its logs pass walBudget — at open,
// or in a long-lived process through max_total_wal_size — (3) uses
// universal compaction, which merges sorted runs by size and never moves a
// file down untouched, (4) waits at close for a compaction already running,
// so that a short process lets it finish, and (5) keeps at most half of the
// process's open-file limit in table files (tableFileBudget).

// walBudget bounds the logs a writer replays at open (~2 ms per MB here)
// before it flushes instead: every writer open starts a new log file. A
// variable so that tests can make flushes frequent.
var walBudget = struct {
	bytes int64
	files int
}{bytes: 16 << 20, files: 64}

// compactionWaitAtClose bounds how long Close lets a running compaction
// finish; past it the compaction is abandoned and redone by a later open.
const compactionWaitAtClose = 10 * time.Second

// rocksOptions are the options every store is opened with. Debian's RocksDB
// is built with assertions on and logs at DEBUG by default: log errors only.
func rocksOptions() (*grocksdb.Options, error) {
	base := grocksdb.NewDefaultOptions()
	defer base.Destroy()
	// grocksdb v1.7.15 has no setters for these two DB options.
	o, err := grocksdb.GetOptionsFromString(base, "avoid_flush_during_shutdown=true;avoid_flush_during_recovery=true")
	if err != nil {
		return nil, fmt.Errorf("rocksdb options: %w", err)
	}
	o.SetInfoLogLevel(grocksdb.ErrorInfoLogLevel)
	o.SetKeepLogFileNum(2)
	o.SetMaxLogFileSize(1 << 20)
	o.SetCompactionStyle(grocksdb.UniversalCompactionStyle)
	o.SetMaxTotalWalSize(uint64(walBudget.bytes))
	o.SetMaxOpenFiles(tableFileBudget())
	return o, nil
}

// tableFileBudget is how many table files a writer keeps open: half of the
// process's open-file limit (the rest is for logs, models and sockets),
// between 32 and 4096. Tables beyond it are opened on demand through
// RocksDB's table cache.
func tableFileBudget() int {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 256
	}
	return int(min(max(lim.Cur/2, 32), 4096))
}

// walState sums the store's write-ahead logs on disk.
func walState(dir string) (bytes int64, files int, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, 0, fmt.Errorf("read store directory: %w", err)
	}
	for _, en := range entries {
		if !strings.HasSuffix(en.Name(), ".log") {
			continue
		}
		fi, err := en.Info()
		if err != nil {
			return 0, 0, fmt.Errorf("stat %s: %w", en.Name(), err)
		}
		bytes += fi.Size()
		files++
	}
	return bytes, files, nil
}

// flushIfOverBudget flushes every family of a writer whose recovered logs
// exceed the budget, so that the next open replays little; the flushed
// logs are then deleted by RocksDB. Writer only.
func (s *rocksStore) flushIfOverBudget() error {
	n, files, err := walState(s.dir)
	if err != nil {
		return err
	}
	if n <= walBudget.bytes && files <= walBudget.files {
		return nil
	}
	fo := grocksdb.NewDefaultFlushOptions()
	defer fo.Destroy()
	fo.SetWait(true)
	for _, h := range s.handles {
		if h == nil {
			continue
		}
		if err := s.db.FlushCF(h, fo); err != nil {
			return fmt.Errorf("flush column family %s (%d log files, %d bytes to replay): %w", h.Name(), files, n, err)
		}
	}
	return nil
}

// waitForCompactions waits, up to compactionWaitAtClose, while a
// compaction is running in any family. Writer only.
func (s *rocksStore) waitForCompactions() {
	deadline := time.Now().Add(compactionWaitAtClose)
	for time.Now().Before(deadline) && s.runningCompactions() > 0 {
		time.Sleep(5 * time.Millisecond)
	}
}

func (s *rocksStore) runningCompactions() int {
	// The property is DB-wide; any open family's handle answers it.
	n, _ := strconv.Atoi(s.db.GetPropertyCF("rocksdb.num-running-compactions", s.handles[FamDefault]))
	return n
}
