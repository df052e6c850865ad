package cellar

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/cgraph/cgraph/record"
)

// lockFileName is the writer lock beside RocksDB's own LOCK. RocksDB's LOCK
// uses fcntl locks, which do not name the holder; this file holds a flock
// and the writer's pid, so a second writer can say who is in the way.
const lockFileName = "cgraph.lock"

// writerLock is a held flock on the store's lock file. The kernel drops it
// when the process dies, so a crashed writer never leaves a stale lock.
type writerLock struct {
	f *os.File
}

// acquireWriterLock takes the lock of the store in dir without waiting. If
// another process (or another Store in this process) holds it, it returns a
// *record.StoreInUseError with the holder's pid.
func acquireWriterLock(dir string) (*writerLock, error) {
	path := filepath.Join(dir, lockFileName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		pid := readLockPID(f)
		cerr := f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errors.Join(&record.StoreInUseError{Dir: dir, PID: pid}, cerr)
		}
		return nil, errors.Join(fmt.Errorf("lock %s: %w", path, err), cerr)
	}
	if err := writePID(f); err != nil {
		return nil, errors.Join(fmt.Errorf("write pid to %s: %w", path, err), f.Close())
	}
	return &writerLock{f: f}, nil
}

func writePID(f *os.File) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return err
}

// readLockPID returns the pid written in the lock file, or 0.
func readLockPID(f *os.File) int {
	buf := make([]byte, 32)
	n, _ := f.ReadAt(buf, 0) // a short or failed read leaves the holder unknown
	pid, err := strconv.Atoi(string(bytes.TrimSpace(buf[:n])))
	if err != nil {
		return 0
	}
	return pid
}

// release empties the pid and drops the lock.
func (l *writerLock) release() error {
	terr := l.f.Truncate(0)
	uerr := syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	return errors.Join(terr, uerr, l.f.Close())
}
