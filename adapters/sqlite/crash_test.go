package sqlite_test

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/sqlite"
	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/domain/toolround"
	"keygate/ports"
)

// The crash specs re-run this test binary as a child that writes tool rounds
// into a store until it is killed: by the parent at a random moment, or by
// itself inside a transaction after a tool result's statements ran and
// before the commit.
const (
	crashDirEnv  = "KEYGATE_CRASH_CHILD_DIR"
	crashModeEnv = "KEYGATE_CRASH_CHILD_MODE"
	crashConv    = "crash-conv"
	childReady   = "crash child ready"
)

// crashChild is the child's body; it never returns normally.
func crashChild(dir, mode string) {
	must := func(err error) {
		if err != nil {
			fmt.Fprintln(os.Stderr, "crash child:", err)
			os.Exit(3)
		}
	}
	ctx := context.Background()
	db, err := sqlite.Open(ctx, dir, zap.NewNop())
	must(err)
	st := sqlite.NewStore(db)
	s := st.Stores()
	_, err = s.Conversations.Open(ctx, crashConv)
	must(err)
	for i := 0; ; i++ {
		run := fmt.Sprintf("crash-%d-%d", os.Getpid(), i)
		_, err := s.Runs.Claim(ctx, ports.RunClaim{RunID: run, ConversationID: crashConv, Kind: "root"})
		must(err)
		head, err := s.Conversations.Head(ctx, crashConv)
		must(err)
		msg, err := conversation.NewText(conversation.RuntimeID(run), llm.RoleUser, conversation.OriginRuntime, "look at these")
		must(err)
		d, err := s.Conversations.Apply(ctx, ports.Write{Change: conversation.AppendTo(head, msg), RunID: run})
		must(err)
		calls := []llm.ToolCall{{Index: 0, CallID: "c1", Name: "Read"}, {Index: 1, CallID: "c2", Name: "Read"}, {Index: 2, CallID: "c3", Name: "Read"}}
		round, err := toolround.New(conversation.ToolRoundID(run, 0), llm.Assistant{Calls: calls})
		must(err)
		must(s.ToolRounds.Start(ctx, run, d.Checkpoint.ID(), round))
		for _, c := range calls {
			data := []byte(run + c.CallID)
			must(s.Blobs.Put(ctx, ports.BlobID(data), data))
			res := llm.ToolResult{CallID: c.CallID, Content: "image", Image: &llm.Image{MIMEType: "image/png", BlobID: ports.BlobID(data)}}
			if mode == "in-tx" && i == 1 && c.CallID == "c2" {
				must(st.WithinTx(ctx, func(ctx context.Context, s ports.Stores) error {
					if _, err := s.ToolRounds.Commit(ctx, run, round.ID(), res); err != nil {
						return err
					}
					return syscall.Kill(os.Getpid(), syscall.SIGKILL)
				}))
				select {} // the signal arrives
			}
			_, err := s.ToolRounds.Commit(ctx, run, round.ID(), res)
			must(err)
		}
		must(s.Runs.Finish(ctx, run, ports.RunEnd{Status: ports.RunCompleted}))
		if i == 0 {
			fmt.Println(childReady) // one whole round is stored; the parent may kill from now on
		}
	}
}

// runChild starts the child on dir and returns it with a channel that is
// closed once the child reports a first complete round.
func runChild(dir, mode string) (*exec.Cmd, <-chan struct{}) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestSQLite$")
	cmd.Env = append(os.Environ(), crashDirEnv+"="+dir, crashModeEnv+"="+mode)
	cmd.Stderr = GinkgoWriter
	out, err := cmd.StdoutPipe()
	Expect(err).NotTo(HaveOccurred())
	Expect(cmd.Start()).To(Succeed())
	ready := make(chan struct{})
	go func() {
		lines := bufio.NewScanner(out)
		for lines.Scan() {
			if lines.Text() == childReady {
				close(ready)
			}
		}
	}()
	return cmd, ready
}

// expectKilled waits for the child and checks that SIGKILL ended it.
func expectKilled(cmd *exec.Cmd) {
	err := cmd.Wait()
	var exit *exec.ExitError
	Expect(errors.As(err, &exit)).To(BeTrue(), "the child ended without being killed: %v", err)
	Expect(exit.Sys().(syscall.WaitStatus).Signal()).To(Equal(syscall.SIGKILL))
}

// expectComplete reopens the store and checks that every checkpoint loads
// (every message present, digests intact), no row references a missing
// message or blob, and every recorded completion's checkpoint holds the
// call's result.
func expectComplete(dir string) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, dir, zap.NewNop())
	Expect(err).NotTo(HaveOccurred())
	defer db.Close()
	cs := sqlite.NewStore(db).Stores().Conversations
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

	ids := column(raw, "SELECT id FROM checkpoints")
	Expect(ids).NotTo(BeEmpty())
	GinkgoWriter.Printf("verifying %d checkpoints after the crash\n", len(ids))
	for _, id := range ids {
		_, _, err := cs.Load(ctx, id)
		Expect(err).NotTo(HaveOccurred(), "checkpoint %s", id)
	}
	rows, err := raw.Query("SELECT round_id, call_id, checkpoint_id FROM tool_round_results")
	Expect(err).NotTo(HaveOccurred())
	defer rows.Close()
	for rows.Next() {
		var round, call, ck string
		Expect(rows.Scan(&round, &call, &ck)).To(Succeed())
		_, msgs, err := cs.Load(ctx, ck)
		Expect(err).NotTo(HaveOccurred())
		Expect(msgs).To(ContainElement(WithTransform(conversation.Message.ID, Equal(conversation.ToolResultID(round, call)))))
	}
}

func column(db *sql.DB, query string) []string {
	rows, err := db.Query(query)
	Expect(err).NotTo(HaveOccurred())
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		Expect(rows.Scan(&s)).To(Succeed())
		out = append(out, s)
	}
	return out
}

var _ = Describe("The SQLite store after a crash", func() {
	var dir string
	BeforeEach(func() { dir = GinkgoT().TempDir() })

	It("has every checkpoint complete after writers are killed at random moments", func() {
		for range 3 {
			child, ready := runChild(dir, "loop")
			Eventually(ready).WithTimeout(time.Minute).Should(BeClosed())
			time.Sleep(time.Duration(rand.IntN(200)) * time.Millisecond)
			Expect(child.Process.Signal(syscall.SIGKILL)).To(Succeed())
			expectKilled(child)
			expectComplete(dir)
		}
	})

	It("keeps neither the completion nor the checkpoint of a tool result whose transaction died before commit", func() {
		child, _ := runChild(dir, "in-tx")
		expectKilled(child)
		expectComplete(dir)

		ctx := context.Background()
		db, err := sqlite.Open(ctx, dir, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(db.Close)
		s := sqlite.NewStore(db).Stores()
		run := fmt.Sprintf("crash-%d-1", child.Process.Pid)
		round, err := s.ToolRounds.Round(ctx, conversation.ToolRoundID(run, 0))
		Expect(err).NotTo(HaveOccurred())
		Expect(round.Completed()).To(Equal([]string{"c1"}))
		head, err := s.Conversations.Head(ctx, crashConv)
		Expect(err).NotTo(HaveOccurred())
		_, msgs, err := s.Conversations.Load(ctx, head.ID())
		Expect(err).NotTo(HaveOccurred())
		Expect(msgs[len(msgs)-1].ID()).To(Equal(conversation.ToolResultID(round.ID(), "c1")))
	})
})
