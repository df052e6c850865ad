package cellar

import (
	"fmt"

	"github.com/google/uuid"

	"github.com/cgraph/cgraph/record"
)

// metaStoreIDKey holds the store's identity: 16 bytes, a random UUID (v4)
// written when the store is created, by the first writer open of a store
// made before identities existed, and anew into every backup. A `cp -a`
// copy keeps it: a copy is told apart by its directory (see cli's server
// discovery), a backup by its identity.
var metaStoreIDKey = []byte("meta/store_id")

// ID returns the store's identity as text; "" for a store no writer of
// this build has opened yet (only a reader sees one).
func (e *Store) ID() string {
	if e.id == (uuid.UUID{}) {
		return ""
	}
	return e.id.String()
}

// loadID reads meta/store_id into e.id.
func (e *Store) loadID() error {
	v, ok, err := e.kv.get(FamDefault, metaStoreIDKey)
	if err != nil || !ok {
		return err
	}
	if len(v) != 16 {
		return fmt.Errorf("default/%s is %x, want 16 bytes: %w", metaStoreIDKey, v, record.ErrCorrupt)
	}
	copy(e.id[:], v)
	return nil
}

// ensureID gives a store without an identity a new one (fsynced).
func ensureID(s *rocksStore) error {
	if _, ok, err := s.get(FamDefault, metaStoreIDKey); err != nil || ok {
		return err
	}
	return putNewID(s)
}

// putNewID writes a new identity into s (fsynced): at creation, and into a
// backup, which is a store of its own.
func putNewID(s *rocksStore) error {
	id := uuid.New()
	b := s.newBatch()
	defer b.destroy()
	b.put(FamDefault, metaStoreIDKey, id[:])
	if err := s.write(b, true); err != nil {
		return fmt.Errorf("write the store's identity: %w", err)
	}
	return nil
}
