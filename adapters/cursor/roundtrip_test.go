package cursor_test

import (
	"context"
	"crypto/sha256"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor"
	"keygate/adapters/cursor/cursortest"
	agentv1 "keygate/gen/cursor/agent/v1"
)

var _ = Describe("Client round trips on a turn", func() {
	var (
		ctx    context.Context
		script cursortest.Script
		client *cursortest.Client
		run    *agentv1.AgentClientMessage
	)

	BeforeEach(func() {
		ctx = context.Background()
		run = cursortest.RunRequest("conv-1", "byok-model", "hello")
	})

	JustBeforeEach(func() {
		env := cursortest.Serve(cursortest.NewScriptedRunHandler(script), cursor.Options{Transport: cursortest.FastTimings()})
		DeferCleanup(env.Close)
		client = env.Client(newRequestID())
	})

	subscribe := func() *cursortest.Stream {
		s, err := client.Subscribe(ctx)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(s.Close)
		return s
	}

	Context("with a turn that runs a client exec", func() {
		BeforeEach(func() {
			script = cursortest.ReadBack("README.md")
		})

		It("routes the client's result, sent from OnMessage, back to the turn by exec id", func() {
			client.OnMessage = func(ctx context.Context, m *agentv1.AgentServerMessage, reply cursortest.Sender) error {
				exec := m.GetExecServerMessage()
				if exec == nil {
					return nil
				}
				return reply(ctx, &agentv1.AgentClientMessage{Message: &agentv1.AgentClientMessage_ExecClientMessage{
					ExecClientMessage: &agentv1.ExecClientMessage{Id: exec.GetId(), ExecId: exec.GetExecId(), Message: &agentv1.ExecClientMessage_ReadResult{
						ReadResult: &agentv1.ReadResult{Result: &agentv1.ReadResult_Success{Success: &agentv1.ReadSuccess{
							Path: exec.GetReadArgs().GetPath(), Output: &agentv1.ReadSuccess_Content{Content: "# Keygate"},
						}}},
					}},
				}})
			}
			s := subscribe()
			Expect(client.Send(ctx, run)).To(Succeed())
			Eventually(s.Done()).Should(BeClosed())
			Expect(s.Texts()).To(Equal([]string{"# Keygate"}))
			Expect(s.Content()[0].GetExecServerMessage().GetId()).NotTo(BeZero())
		})
	})

	Context("with a turn that stores and reads a blob", func() {
		BeforeEach(func() {
			script = cursortest.StoreAndReadBack([]byte("turn blob"))
		})

		It("gets its SET acknowledged and its GET answered by the client's store", func() {
			s := subscribe()
			Expect(client.Send(ctx, run)).To(Succeed())
			Eventually(s.Done()).Should(BeClosed())
			Expect(s.Texts()).To(Equal([]string{"turn blob"}))
			sum := sha256.Sum256([]byte("turn blob"))
			stored, ok := client.Blob(sum[:])
			Expect(ok).To(BeTrue())
			Expect(string(stored)).To(Equal("turn blob"))
		})
	})

})
