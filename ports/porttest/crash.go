package porttest

import (
	"context"
	"fmt"
	"os"
	"syscall"

	. "github.com/onsi/gomega"

	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/domain/toolround"
	"keygate/ports"
)

// Crash modes of [CrashWorkload].
const (
	// CrashLoop writes rounds until the parent kills the process.
	CrashLoop = "loop"
	// CrashInTx kills the process itself inside a transaction, after the
	// statements committing the second run's second tool result ran and
	// before the commit.
	CrashInTx = "in-tx"
)

// CrashRunID is the id of the i-th run the workload of process pid claims.
func CrashRunID(pid, i int) string { return fmt.Sprintf("crash-%d-%d", pid, i) }

// InTx calls fn once with stores bound to one open transaction of the
// store under test and commits when fn returns nil. The application never
// groups store calls (each store method is its own transaction); the crash
// specs do, to kill a process between a transaction's statements and its
// commit. Each adapter's spec builds it over its engine's Write.
type InTx func(ctx context.Context, fn func(ctx context.Context, s ports.Stores) error) error

// CrashWorkload is the body of a child process in a crash spec: it claims
// runs on conv one after another, each appending a user message and a tool
// round of three calls whose results carry image blobs, until the process
// is killed. ready is called once the first run is fully stored. It only
// returns on an error.
func CrashWorkload(ctx context.Context, s ports.Stores, inTx InTx, conv, mode string, ready func()) error {
	if _, err := s.Conversations.Open(ctx, conv); err != nil {
		return err
	}
	for i := 0; ; i++ {
		run := CrashRunID(os.Getpid(), i)
		if _, err := s.Runs.Claim(ctx, ports.RunClaim{RunID: run, ConversationID: conv, Kind: "root"}); err != nil {
			return err
		}
		head, err := s.Conversations.Head(ctx, conv)
		if err != nil {
			return err
		}
		msg, err := conversation.NewText(conversation.RuntimeID(run), llm.RoleUser, conversation.OriginRuntime, "look at these")
		if err != nil {
			return err
		}
		d, err := s.Conversations.Apply(ctx, ports.Write{Change: conversation.AppendTo(head, msg), RunID: run})
		if err != nil {
			return err
		}
		calls := []llm.ToolCall{{Index: 0, CallID: "c1", Name: "Read"}, {Index: 1, CallID: "c2", Name: "Read"}, {Index: 2, CallID: "c3", Name: "Read"}}
		round, err := toolround.New(conversation.ToolRoundID(run, 0), llm.Assistant{Calls: calls})
		if err != nil {
			return err
		}
		if err := s.ToolRounds.Start(ctx, run, d.Checkpoint.ID(), round); err != nil {
			return err
		}
		for _, c := range calls {
			data := []byte(run + c.CallID)
			if err := s.Blobs.Put(ctx, ports.BlobID(data), data); err != nil {
				return err
			}
			res := llm.ToolResult{CallID: c.CallID, Content: "image", Image: &llm.Image{MIMEType: "image/png", BlobID: ports.BlobID(data)}}
			if mode == CrashInTx && i == 1 && c.CallID == "c2" {
				err := inTx(ctx, func(ctx context.Context, s ports.Stores) error {
					if _, err := s.ToolRounds.Commit(ctx, run, round.ID(), res); err != nil {
						return err
					}
					return syscall.Kill(os.Getpid(), syscall.SIGKILL)
				})
				if err != nil {
					return err
				}
				select {} // the signal is on its way
			}
			if _, err := s.ToolRounds.Commit(ctx, run, round.ID(), res); err != nil {
				return err
			}
		}
		if err := s.Runs.Finish(ctx, run, ports.RunEnd{Status: ports.RunCompleted}); err != nil {
			return err
		}
		if i == 0 {
			ready()
		}
	}
}

// Completion is one stored tool-round completion row.
type Completion struct{ RoundID, CallID, CheckpointID string }

// ExpectComplete checks a reopened store after a crash: every checkpoint
// loads (every message present, every digest intact) and every completion's
// checkpoint holds the call's result.
func ExpectComplete(ctx context.Context, cs ports.ConversationStore, checkpointIDs []string, completions []Completion) {
	Expect(checkpointIDs).NotTo(BeEmpty())
	for _, id := range checkpointIDs {
		_, _, err := cs.Load(ctx, id)
		Expect(err).NotTo(HaveOccurred(), "checkpoint %s", id)
	}
	for _, c := range completions {
		_, msgs, err := cs.Load(ctx, c.CheckpointID)
		Expect(err).NotTo(HaveOccurred())
		Expect(msgs).To(ContainElement(WithTransform(conversation.Message.ID, Equal(conversation.ToolResultID(c.RoundID, c.CallID)))))
	}
}

// ExpectInTxCrashLost checks the CrashInTx outcome for child pid: the
// second run's round kept only its first completion, and the head is the
// checkpoint of that completion.
func ExpectInTxCrashLost(ctx context.Context, s ports.Stores, conv string, pid int) {
	round, err := s.ToolRounds.Round(ctx, conversation.ToolRoundID(CrashRunID(pid, 1), 0))
	Expect(err).NotTo(HaveOccurred())
	Expect(round.Completed()).To(Equal([]string{"c1"}))
	head, err := s.Conversations.Head(ctx, conv)
	Expect(err).NotTo(HaveOccurred())
	_, msgs, err := s.Conversations.Load(ctx, head.ID())
	Expect(err).NotTo(HaveOccurred())
	Expect(msgs[len(msgs)-1].ID()).To(Equal(conversation.ToolResultID(round.ID(), "c1")))
}
