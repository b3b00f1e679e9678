package run_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/relstore"
	"keygate/adapters/sqlite"
	"keygate/domain/callrecord"
)

func init() {
	backends = append(backends, struct {
		name string
		open func() backend
	}{"the SQLite store", sqliteBackend})
}

// sqliteBackend opens a store in a fresh directory; reopen opens the same
// file again, as a restarted process does. Context anchors stay in the
// engine's memory: the SQLite store does not implement
// ports.ContextAnchorStore yet.
func sqliteBackend() backend {
	dir := GinkgoT().TempDir()
	var open func() backend
	open = func() backend {
		db, err := sqlite.Open(context.Background(), dir, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(db.Close)
		s := relstore.New(db, nil)
		st := s.Stores()
		reader := s.CallRecords()
		return backend{
			convs: st.Conversations, runs: st.Runs, rounds: st.ToolRounds, blobs: st.Blobs, calls: st.Calls,
			record: func(id string) (callrecord.Record, bool) {
				rec, err := reader.CallRecord(context.Background(), id)
				return rec, err == nil
			},
			reopen: func() backend { return open() },
		}
	}
	return open()
}
