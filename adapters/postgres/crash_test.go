package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/postgres"
	"keygate/adapters/relstore"
	"keygate/ports"
	"keygate/ports/porttest"
)

// The crash specs re-run this test binary as a child that writes tool rounds
// (porttest.CrashWorkload) until it is killed; the server then holds only
// what the child committed.
const (
	crashDSNEnv  = "KEYGATE_CRASH_CHILD_DSN"
	crashModeEnv = "KEYGATE_CRASH_CHILD_MODE"
	crashConvEnv = "KEYGATE_CRASH_CHILD_CONV"
)

// inTx runs fn with stores bound to one write transaction of db: a process
// killed inside fn leaves nothing fn wrote.
func inTx(db *postgres.DB) porttest.InTx {
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
func crashChild(dsn, mode, conv string) {
	ctx := context.Background()
	db, err := postgres.Open(ctx, dsn, zap.NewNop())
	if err == nil {
		st := postgres.NewStore(db)
		err = porttest.CrashWorkload(ctx, st.Stores(), inTx(db), conv, mode, porttest.SignalReady)
	}
	fmt.Fprintln(os.Stderr, "crash child:", err)
	os.Exit(3)
}

// expectComplete reconnects and checks every checkpoint and completion of
// conv.
func expectComplete(conv string) {
	ctx := context.Background()
	db, err := postgres.Open(ctx, dsn, zap.NewNop())
	Expect(err).NotTo(HaveOccurred())
	defer db.Close()
	conn, err := pgx.Connect(ctx, dsn)
	Expect(err).NotTo(HaveOccurred())
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, "SELECT id FROM checkpoints WHERE conversation_id = $1", conv)
	Expect(err).NotTo(HaveOccurred())
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	Expect(err).NotTo(HaveOccurred())
	rows, err = conn.Query(ctx, `SELECT r.round_id, r.call_id, r.checkpoint_id FROM tool_round_results r
		JOIN tool_rounds t ON t.id = r.round_id WHERE t.conversation_id = $1`, conv)
	Expect(err).NotTo(HaveOccurred())
	done, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (porttest.Completion, error) {
		var c porttest.Completion
		return c, row.Scan(&c.RoundID, &c.CallID, &c.CheckpointID)
	})
	Expect(err).NotTo(HaveOccurred())
	GinkgoWriter.Printf("verifying %d checkpoints and %d completions after the crash\n", len(ids), len(done))
	porttest.ExpectComplete(ctx, postgres.NewStore(db).Stores().Conversations, ids, done)
}

var _ = Describe("The PostgreSQL store after a crash", func() {
	var conv string
	start := func(mode string) (*os.Process, func(), <-chan struct{}) {
		cmd, ready := porttest.StartCrashChild("TestPostgres", crashDSNEnv+"="+dsn, crashModeEnv+"="+mode, crashConvEnv+"="+conv)
		return cmd.Process, func() { porttest.ExpectKilled(cmd) }, ready
	}
	BeforeEach(func() { conv = fmt.Sprintf("crash-conv-%d", rand.Int64()) })

	It("has every checkpoint complete after writers are killed at random moments", func() {
		for range 2 {
			proc, wait, ready := start(porttest.CrashLoop)
			Eventually(ready).WithTimeout(time.Minute).Should(BeClosed())
			time.Sleep(time.Duration(rand.IntN(300)) * time.Millisecond)
			Expect(proc.Signal(syscall.SIGKILL)).To(Succeed())
			wait()
			expectComplete(conv)
		}
	})

	It("keeps neither the completion nor the checkpoint of a tool result whose transaction died before commit", func() {
		proc, wait, _ := start(porttest.CrashInTx)
		wait()
		expectComplete(conv)
		db, err := postgres.Open(context.Background(), dsn, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(db.Close)
		porttest.ExpectInTxCrashLost(context.Background(), postgres.NewStore(db).Stores(), conv, proc.Pid)
	})
})
