package cursorproxy_test

import (
	"context"
	"io"
	"net/http"
	"time"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"
	"google.golang.org/protobuf/proto"

	"keygate/adapters/cursor"
	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/cursor/unary"
	"keygate/adapters/upstream"
	aiserverv1 "keygate/gen/cursor/aiserver/v1"
	"keygate/gen/cursor/aiserver/v1/aiserverv1connect"
)

var _ = Describe("Proxy in front of the Cursor adapter", func() {
	var (
		e       *env
		server  *cursor.Server
		appends chan []byte
		ctx     context.Context
	)

	BeforeEach(func() {
		ctx = context.Background()
		appends = make(chan []byte, 4)
		var fwd *upstream.Forwarder
		server = cursor.New(cursortest.NewScriptedRunHandler(cursortest.Reply("Hel", "lo")), cursor.Options{
			Transport: cursortest.FastTimings(),
			// The Forwarder exists only once the env runs; resolve it lazily.
			// Turns for other models and speech-to-text appends go to Cursor.
			Upstream:     lazyRoundTrip(func() *upstream.Forwarder { return fwd }),
			KeygateModel: func(_ context.Context, id string) bool { return id == "byok-model" },
			Unary: unary.Options{
				Catalog:  catalog{{ID: "byok-model", DisplayName: "BYOK"}},
				Upstream: lazyUpstream(func() *upstream.Forwarder { return fwd }),
			},
		}, zap.NewNop())
		DeferCleanup(func() {
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = server.Close(sctx)
		})
		e = startEnv(envOptions{
			Routes: server.Routes(),
			Cursor: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				w.Header().Set("Content-Type", "application/proto")
				if r.URL.Path == aiserverv1connect.AiServiceAvailableModelsProcedure {
					answer, _ := proto.Marshal(&aiserverv1.AvailableModelsResponse{ModelNames: []string{"cursor-model"}})
					_, _ = w.Write(answer)
					return
				}
				appends <- body
			}),
		})
		fwd = e.Forwarder
	})

	It("runs the simulator's turn against https://api2.cursor.sh through the proxy", func() {
		client := cursortest.NewClient("https://api2.cursor.sh", e.Client(nil), "req-e2e-1")
		stream, err := client.Subscribe(ctx)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(stream.Close)
		Expect(client.Send(ctx, cursortest.RunRequest("conv-e2e", "byok-model", "hello"))).To(Succeed())
		Eventually(stream.Done(), 5*time.Second).Should(BeClosed())
		Expect(stream.ReadError()).NotTo(HaveOccurred())
		Expect(stream.Status).To(Equal(http.StatusOK))
		Expect(stream.Header.Get("Content-Type")).To(Equal("text/event-stream"))
		Expect(stream.Texts()).To(Equal([]string{"Hel", "lo"}))
		Expect(stream.EndError()).To(BeNil())
	})

	It("sends a speech-to-text append, which is no agent message, on to Cursor", func() {
		client := cursortest.NewClient("https://api2.cursor.sh", e.Client(nil), "req-e2e-stt")
		Expect(client.SendRaw(ctx, &aiserverv1.BidiAppendRequest{
			Data:      "not hex: audio chunk",
			RequestId: &aiserverv1.BidiRequestId{RequestId: "req-e2e-stt"},
		})).To(Succeed())
		var body []byte
		Eventually(appends).Should(Receive(&body))
		var got aiserverv1.BidiAppendRequest
		Expect(proto.Unmarshal(body, &got)).To(Succeed())
		Expect(got.GetData()).To(Equal("not hex: audio chunk"))
	})

	It("merges Cursor's model list, fetched through the Forwarder, with Keygate's", func() {
		models := aiserverv1connect.NewAiServiceClient(e.Client(nil), "https://api2.cursor.sh")
		resp, err := models.AvailableModels(ctx, connect.NewRequest(&aiserverv1.AvailableModelsRequest{}))
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Msg.GetModelNames()).To(Equal([]string{"cursor-model", "byok-model"}))
	})
})

// The Forwarder is the Cursor adapter's way to Cursor's own model lists.
var _ unary.Upstream = (*upstream.Forwarder)(nil)

// catalog is a fixed Keygate model list.
type catalog []unary.Model

func (c catalog) Models(context.Context, http.Header) ([]unary.Model, error) { return c, nil }

// lazyUpstream resolves the forwarder on first use.
type lazyUpstream func() *upstream.Forwarder

func (l lazyUpstream) Call(ctx context.Context, procedure string, h http.Header, req, resp proto.Message) error {
	return l().Call(ctx, procedure, h, req, resp)
}

// lazyRoundTrip resolves the forwarder on first use.
type lazyRoundTrip func() *upstream.Forwarder

func (l lazyRoundTrip) RoundTrip(req *http.Request) (*http.Response, error) {
	return l().RoundTrip(req)
}
