package ops

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/cgraph/cgraph/capture/claudecode"
	"github.com/cgraph/cgraph/internal/atomicfile"
	"github.com/cgraph/cgraph/record"
)

// cursorVersion is the version of the cursor file's JSON; a file of
// another version is ignored (the transcript is read from its start, which
// stores nothing twice).
const cursorVersion = 1

// tailBytes is how many bytes before the cursor its file hashes, to notice
// a transcript rewritten in place.
const tailBytes = 256

// cursorState is the cursor file: where the next read of one transcript
// into one project starts (Cursor), where the chunk before it started
// (Lookback: extraction reads it again), the last turn the cursor covers
// (LastID, which must be stored for the cursor to be trusted) and the hash
// of the tailBytes before Cursor.
type cursorState struct {
	Version  int               `json:"version"`
	Host     string            `json:"host"`
	Path     string            `json:"path"`
	Project  string            `json:"project"`
	Cursor   claudecode.Cursor `json:"cursor"`
	Lookback claudecode.Cursor `json:"lookback"`
	LastID   record.ID         `json:"last_id"`
	Tail     string            `json:"tail_sha256"`
	Updated  time.Time         `json:"updated"`
}

// CursorFile is where Ingest keeps its cursor for transcript path (absolute)
// and project in the store directory dir. Deleting it makes the next
// Ingest read the transcript from its start (storing nothing twice).
func CursorFile(dir, path, project string) string {
	h := sha256.Sum256([]byte(path + "\x00" + project))
	return filepath.Join(dir, "capture", "cursors", hex.EncodeToString(h[:8])+".json")
}

// loadCursor returns the saved cursor when it can be trusted, else the
// start of the file (with a note saying why).
func (in *ingest) loadCursor(ctx context.Context, f *os.File, size int64) (cursorState, error) {
	fresh := cursorState{Version: cursorVersion, Host: in.r.Host, Path: in.path, Project: in.r.Project}
	b, err := os.ReadFile(CursorFile(in.s.Dir(), in.path, in.r.Project))
	if errors.Is(err, os.ErrNotExist) {
		return fresh, nil
	}
	if err != nil {
		return fresh, fmt.Errorf("read the ingest cursor of %s: %w", in.path, err)
	}
	var st cursorState
	drop := func(why string) (cursorState, error) {
		in.rep.Notes = append(in.rep.Notes, "cursor dropped ("+why+"): read from the start; turns already stored are skipped")
		return fresh, nil
	}
	if json.Unmarshal(b, &st) != nil || st.Version != cursorVersion || st.Path != in.path || st.Project != in.r.Project {
		return drop("unreadable or of another version")
	}
	if st.Cursor.Offset > size || st.Lookback.Offset > st.Cursor.Offset || st.Cursor.Offset < 0 || st.Lookback.Offset < 0 {
		return drop(fmt.Sprintf("the transcript has %d bytes, the cursor is at %d", size, st.Cursor.Offset))
	}
	tail, err := tailHash(f, st.Cursor.Offset)
	if err != nil {
		return fresh, err
	}
	if tail != st.Tail {
		return drop("the transcript was rewritten before the cursor")
	}
	if !st.LastID.IsZero() {
		_, found, err := in.s.Peek(ctx, []record.ID{st.LastID})
		if err != nil {
			return fresh, fmt.Errorf("check the ingest cursor of %s: %w", in.path, err)
		}
		if !found[0] {
			return drop("its last turn is not in the store")
		}
	}
	return st, nil
}

// saveCursor writes st atomically (atomicfile: a temporary file, synced,
// renamed over the old; once per chunk, after its embedding, which dwarfs
// the sync).
func (in *ingest) saveCursor(f *os.File, st cursorState) error {
	tail, err := tailHash(f, st.Cursor.Offset)
	if err != nil {
		return err
	}
	st.Tail, st.Updated = tail, time.Now().UTC()
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	path := CursorFile(in.s.Dir(), in.path, in.r.Project)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("save the ingest cursor: %w", err)
	}
	if err := atomicfile.WriteFile(path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("save the ingest cursor %s: %w", path, err)
	}
	return nil
}

// tailHash is the sha256 of the tailBytes of f before off.
func tailHash(f *os.File, off int64) (string, error) {
	from := max(0, off-tailBytes)
	buf := make([]byte, off-from)
	if _, err := f.ReadAt(buf, from); err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read transcript %s at %d: %w", f.Name(), from, err)
	}
	h := sha256.Sum256(buf)
	return hex.EncodeToString(h[:]), nil
}
