package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/relstore"
	"keygate/adapters/sqlite"
	"keygate/ports"
	"keygate/ports/porttest"
)

// The crash specs re-run this test binary as a child that writes tool rounds
// into a store (porttest.CrashWorkload) until it is killed: by the parent at
// a random moment, or by itself inside an uncommitted transaction.
const (
	crashDirEnv  = "KEYGATE_CRASH_CHILD_DIR"
	crashModeEnv = "KEYGATE_CRASH_CHILD_MODE"
	crashConv    = "crash-conv"
)

// inTx runs fn with stores bound to one write transaction of db: a process
// killed inside fn leaves nothing fn wrote.
func inTx(db *sqlite.DB) porttest.InTx {
	return func(ctx context.Context, fn func(context.Context, ports.Stores) error) error {
		return db.Write(ctx, func(tx relstore.Tx) error {
			return fn(ctx, relstore.New(boundTx{tx}, nil).Stores())
		})
	}
}

// boundTx is an engine whose every read and write runs in one open
// transaction.
type boundTx struct{ tx relstore.Tx }

func (b boundTx) Read(_ context.Context, fn func(relstore.Tx) error) error  { return fn(b.tx) }
func (b boundTx) Write(_ context.Context, fn func(relstore.Tx) error) error { return fn(b.tx) }

// crashChild is the child's body; it only returns by exiting.
func crashChild(dir, mode string) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, dir, zap.NewNop())
	if err == nil {
		st := sqlite.NewStore(db)
		err = porttest.CrashWorkload(ctx, st.Stores(), inTx(db), crashConv, mode, porttest.SignalReady)
	}
	fmt.Fprintln(os.Stderr, "crash child:", err)
	os.Exit(3)
}

func startChild(dir, mode string) (*os.Process, func(), <-chan struct{}) {
	cmd, ready := porttest.StartCrashChild("TestSQLite", crashDirEnv+"="+dir, crashModeEnv+"="+mode)
	return cmd.Process, func() { porttest.ExpectKilled(cmd) }, ready
}

// expectComplete reopens the store and checks SQLite's own integrity and
// foreign keys, then that every checkpoint and completion is whole.
func expectComplete(dir string) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, dir, zap.NewNop())
	Expect(err).NotTo(HaveOccurred())
	defer db.Close()
	raw, err := sql.Open("sqlite", "file:"+filepath.Join(dir, sqlite.FileName)+"?mode=ro")
	Expect(err).NotTo(HaveOccurred())
	defer raw.Close()

	var integrity string
	Expect(raw.QueryRow("PRAGMA integrity_check").Scan(&integrity)).To(Succeed())
	Expect(integrity).To(Equal("ok"))
	fk, err := raw.Query("PRAGMA foreign_key_check")
	Expect(err).NotTo(HaveOccurred())
	Expect(fk.Next()).To(BeFalse(), "a row references a missing row")
	Expect(fk.Close()).To(Succeed())

	var ids []string
	var done []porttest.Completion
	rows, err := raw.Query("SELECT id FROM checkpoints")
	Expect(err).NotTo(HaveOccurred())
	for rows.Next() {
		var id string
		Expect(rows.Scan(&id)).To(Succeed())
		ids = append(ids, id)
	}
	Expect(rows.Close()).To(Succeed())
	rows, err = raw.Query("SELECT round_id, call_id, checkpoint_id FROM tool_round_results")
	Expect(err).NotTo(HaveOccurred())
	for rows.Next() {
		var c porttest.Completion
		Expect(rows.Scan(&c.RoundID, &c.CallID, &c.CheckpointID)).To(Succeed())
		done = append(done, c)
	}
	Expect(rows.Close()).To(Succeed())
	GinkgoWriter.Printf("verifying %d checkpoints and %d completions after the crash\n", len(ids), len(done))
	porttest.ExpectComplete(ctx, sqlite.NewStore(db).Stores().Conversations, ids, done)
}

var _ = Describe("The SQLite store after a crash", func() {
	var dir string
	BeforeEach(func() { dir = GinkgoT().TempDir() })

	It("has every checkpoint complete after writers are killed at random moments", func() {
		for range 3 {
			proc, wait, ready := startChild(dir, porttest.CrashLoop)
			Eventually(ready).WithTimeout(time.Minute).Should(BeClosed())
			time.Sleep(time.Duration(rand.IntN(200)) * time.Millisecond)
			Expect(proc.Signal(syscall.SIGKILL)).To(Succeed())
			wait()
			expectComplete(dir)
		}
	})

	It("keeps neither the completion nor the checkpoint of a tool result whose transaction died before commit", func() {
		proc, wait, _ := startChild(dir, porttest.CrashInTx)
		wait()
		expectComplete(dir)
		db, err := sqlite.Open(context.Background(), dir, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(db.Close)
		porttest.ExpectInTxCrashLost(context.Background(), sqlite.NewStore(db).Stores(), crashConv, proc.Pid)
	})
})
