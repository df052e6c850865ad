package cellar

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// secondaryPrefix names a read-only instance's own folder in the system
// temp dir (RocksDB secondaries need one for their info log).
const secondaryPrefix = "cgraph-secondary-"

// ownerLockName is the file in a read-only instance's folder whose flock
// its process holds while the instance is open. The kernel drops a flock
// when its process ends, however it ends, so a folder whose owner lock can
// be taken belongs to no live reader: a process killed outright (SIGKILL,
// OOM) never ran close, and sweepSecondaryDirs removes what it left.
const ownerLockName = "owner.lock"

// makeSecondaryDir makes a read-only instance's folder and returns it with
// its owner lock held. The lock file is locked under a temporary name and
// renamed into place, so a sweep never sees an owner lock that is not yet
// held.
func makeSecondaryDir() (dir string, owner *os.File, err error) {
	dir, err = os.MkdirTemp("", secondaryPrefix)
	if err != nil {
		return "", nil, fmt.Errorf("make a directory for the read-only instance: %w", err)
	}
	fail := func(err error) (string, *os.File, error) {
		if owner != nil {
			err = errors.Join(err, owner.Close())
		}
		return "", nil, errors.Join(fmt.Errorf("lock the read-only instance's directory %s: %w", dir, err), os.RemoveAll(dir))
	}
	tmp := filepath.Join(dir, ownerLockName+".new")
	if owner, err = os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600); err != nil {
		return fail(err)
	}
	if err := syscall.Flock(int(owner.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, ownerLockName)); err != nil {
		return fail(err)
	}
	return dir, owner, nil
}

// sweepSecondaryDirs removes the folders of read-only instances whose
// process has ended without closing them: those whose owner lock it can
// take. A folder without an owner lock (made by a build before it) is left
// alone, since nothing says whether its reader still runs. The sweep is
// housekeeping for other processes' leftovers: a folder it cannot read,
// lock or remove (another user's, one removed under it) is skipped, never
// a reason to fail this open.
func sweepSecondaryDirs() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), secondaryPrefix+"*")) // only a malformed pattern errs
	for _, dir := range dirs {
		f, err := os.Open(filepath.Join(dir, ownerLockName))
		if err != nil {
			continue
		}
		// Removed while the lock is held: a second sweep that opened the
		// file meanwhile cannot take it, and finds no file afterwards.
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			_ = os.RemoveAll(dir) // best effort, as above
		}
		_ = f.Close() // read-only, and the lock goes with it
	}
}
