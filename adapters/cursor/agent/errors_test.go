package agent_test

import (
	"context"
	"errors"
	"fmt"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"keygate/adapters/cursor/agent"
	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/cursor/transport"
	"keygate/adapters/provider/providertest"
	"keygate/app/run"
	"keygate/domain/access"
	"keygate/domain/identity"
	aiserverv1 "keygate/gen/cursor/aiserver/v1"
	"keygate/ports"
)

var _ = Describe("The run layer's error mapping", func() {
	DescribeTable("gives each failure the Connect code the client sees",
		func(err error, code connect.Code, message string) {
			ce := agent.ConnectError(err)
			Expect(ce.Code()).To(Equal(code))
			Expect(ce.Message()).To(Equal(message))
		},
		Entry("a cancelled context is Canceled, even inside a class",
			agent.Classify(agent.ErrClientBlob, fmt.Errorf("attached image: %w", context.Canceled)), connect.CodeCanceled, "attached image: context canceled"),
		Entry("a cancelled run is Canceled",
			agent.Classify(agent.ErrRunCancelled, errors.New("run cancelled: user")), connect.CodeCanceled, "run cancelled: user"),
		Entry("a lost client stream is Canceled",
			fmt.Errorf("%w: %w", agent.ErrStreamLost, transport.ErrTurnOver), connect.CodeCanceled, "client stream lost: turn is over"),
		Entry("a deadline is DeadlineExceeded",
			fmt.Errorf("load conversation: %w", context.DeadlineExceeded), connect.CodeDeadlineExceeded, "load conversation: context deadline exceeded"),
		Entry("another user's resource is NotFound and says only that",
			fmt.Errorf("load checkpoint c1: %w", access.ErrDenied), connect.CodeNotFound, "not found"),
		Entry("a missing resource is NotFound",
			fmt.Errorf("load checkpoint c1: %w", ports.ErrNotFound), connect.CodeNotFound, "load checkpoint c1: not found"),
		Entry("a request that cannot be served as sent is InvalidArgument",
			agent.Classify(agent.ErrInvalidRequest, errors.New("run request has no conversation id")), connect.CodeInvalidArgument, "run request has no conversation id"),
		Entry("a blob the client cannot give is FailedPrecondition",
			agent.Classify(agent.ErrClientBlob, errors.New("attached image: kv get: blob 01: gone")), connect.CodeFailedPrecondition, "attached image: kv get: blob 01: gone"),
		Entry("a failed model lookup is Unavailable",
			agent.Classify(agent.ErrUnavailable, errors.New(`resolve model "m": database is locked`)), connect.CodeUnavailable, `resolve model "m": database is locked`),
		Entry("exhausted wire ids are ResourceExhausted",
			fmt.Errorf("next exec id: %w", transport.ErrIDsExhausted), connect.CodeResourceExhausted, "next exec id: transport id space exhausted"),
		Entry("a blob over the store's bound is ResourceExhausted",
			fmt.Errorf("store attached image: %w", ports.ErrBlobTooLarge), connect.CodeResourceExhausted, "store attached image: blob too large"),
		Entry("a Connect error stays as it is",
			connect.NewError(connect.CodeAborted, errors.New("taken over")), connect.CodeAborted, "taken over"),
		Entry("anything else is Internal",
			errors.New("start run: disk full"), connect.CodeInternal, "start run: disk full"),
	)

	DescribeTable("ends a failed run with the code of its category and the client's error bubble",
		func(category run.Category, code connect.Code, title string) {
			ce := agent.ConnectError(fmt.Errorf("serve: %w", &run.Failure{Category: category, Message: "it broke", Err: context.Canceled}))
			Expect(ce.Code()).To(Equal(code))
			Expect(ce.Message()).To(Equal("it broke"))
			Expect(ce.Details()).To(HaveLen(1))
			v, err := ce.Details()[0].Value()
			Expect(err).NotTo(HaveOccurred())
			Expect(v.(*aiserverv1.ErrorDetails).GetDetails().GetTitle()).To(Equal(title))
		},
		Entry("provider: Unavailable", run.CategoryProvider, connect.CodeUnavailable, "Provider Error"),
		Entry("client: InvalidArgument", run.CategoryClient, connect.CodeInvalidArgument, "Keygate Error"),
		Entry("limit: ResourceExhausted", run.CategoryLimit, connect.CodeResourceExhausted, "Keygate Limit Reached"),
		Entry("store: Internal", run.CategoryStore, connect.CodeInternal, "Keygate Error"),
		Entry("protocol: Internal", run.CategoryProtocol, connect.CodeInternal, "Keygate Error"),
	)
})

var _ = Describe("Handler logging a failed turn", func() {
	var (
		h    *harness
		logs *observer.ObservedLogs
	)
	BeforeEach(func() {
		var core zapcore.Core
		core, logs = observer.New(zapcore.DebugLevel)
		h = newLoggedHarness(mainKind, zap.New(core))
	})

	It("logs the run layer's own failure once, with the turn's fields", func() {
		req := cursortest.RunRequest("", "kg-model", "Hi")
		ctx := identity.NewContext(context.Background(), identity.Identity{UserID: "u-1"})
		var err error
		Eventually(newFakeTurn().serve(ctx, h.newHandler(agent.Options{Logger: h.log}), "req-bad", req)).Should(Receive(&err))
		Expect(connect.CodeOf(err)).To(Equal(connect.CodeInvalidArgument))
		failed := logs.FilterMessage("turn ended").All()
		Expect(failed).To(HaveLen(1))
		Expect(failed[0].ContextMap()).To(And(HaveKeyWithValue("request_id", "req-bad"), HaveKeyWithValue("user_id", "u-1"),
			HaveKeyWithValue("model", "kg-model"), HaveKeyWithValue("conversation_id", ""), HaveKeyWithValue("code", "invalid_argument")))
	})

	It("leaves a failed run and its model attempt to the engine's log, once each", func() {
		h.provider.Enqueue(providertest.Status(500, string(providertest.ChatError("server_error", "upstream exploded"))))
		st := finished(open(h.env.Client("req-fail"), cursortest.RunRequest("conv-fail", "kg-model", "Hi")))
		Expect(st.EndError().Code()).To(Equal(connect.CodeUnavailable))
		Expect(logs.FilterMessage("model attempt failed").All()).To(HaveLen(1))
		Expect(logs.FilterMessage("run failed").All()).To(HaveLen(1))
		Expect(logs.FilterMessage("turn ended").All()).To(BeEmpty())
		for _, e := range logs.All() {
			Expect(e.ContextMap()).NotTo(Or(HaveKey("run"), HaveKey("user")), e.Message)
		}
	})
})
