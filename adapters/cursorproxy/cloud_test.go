package cursorproxy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/cursor"
	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/upstream"
	"keygate/domain/cursorcloud"
)

// cloudLedger records what the forwarder counted.
type cloudLedger struct {
	mu   sync.Mutex
	seen []cursorcloud.Usage
}

func (l *cloudLedger) Count(_ context.Context, u cursorcloud.Usage) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen = append(l.seen, u)
}

func (l *cloudLedger) Usages() []cursorcloud.Usage {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]cursorcloud.Usage(nil), l.seen...)
}

// cloudBytes is every byte the fake Cursor was sent, path and body.
type cloudBytes struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (r *cloudBytes) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.buf.String()
}

const marker = "MARKER-7f3a-secret-source"

var _ = Describe("The Cursor cloud policy on the wire through the proxy (KEYGATE_CURSOR_CLOUD)", func() {
	var (
		e      *env
		ledger *cloudLedger
		got    *cloudBytes
		ctx    context.Context
	)

	start := func(policy cursorcloud.Policy) {
		ctx = context.Background()
		ledger, got = &cloudLedger{}, &cloudBytes{}
		var fwd *upstream.Forwarder
		server := cursor.New(cursortest.NewScriptedRunHandler(cursortest.Reply("local")), cursor.Options{
			Transport:    cursortest.FastTimings(),
			Upstream:     lazyRoundTrip(func() *upstream.Forwarder { return fwd }),
			KeygateModel: func(_ context.Context, id string) bool { return id == "byok-model" },
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
				got.mu.Lock()
				got.buf.WriteString(r.URL.Path + "\n")
				got.buf.Write(body)
				got.mu.Unlock()
				w.Header().Set("Content-Type", "application/proto")
				_, _ = w.Write([]byte("cursor's answer"))
			}),
			Forwarder: func(o *upstream.Options) { o.Policy, o.Ledger = policy, ledger },
		})
		fwd = e.Forwarder
	}

	get := func(path string) *http.Response {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://api2.cursor.sh"+path, nil)
		Expect(err).NotTo(HaveOccurred())
		resp, err := e.Client(nil).Do(req)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(resp.Body.Close)
		return resp
	}
	post := func(path, contentType, body string) *http.Response {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://api2.cursor.sh"+path, strings.NewReader(body))
		Expect(err).NotTo(HaveOccurred())
		req.Header.Set("Content-Type", contentType)
		resp, err := e.Client(nil).Do(req)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(resp.Body.Close)
		return resp
	}
	readAll := func(resp *http.Response) string {
		b, err := io.ReadAll(resp.Body)
		Expect(err).NotTo(HaveOccurred())
		return string(b)
	}
	const (
		codeRoute     = "/aiserver.v1.AiService/WriteGitCommitMessage"
		streamRoute   = "/aiserver.v1.ChatService/StreamUnifiedChat"
		metadataRoute = "/aiserver.v1.DashboardService/GetUserPrivacyMode"
	)

	Context("allow (the laptop default)", func() {
		BeforeEach(func() { start(cursorcloud.Allow) })

		It("passes code and metadata routes to Cursor unchanged and counts both with their bytes", func() {
			Expect(readAll(post(codeRoute, "application/proto", marker))).To(Equal("cursor's answer"))
			Expect(readAll(post(metadataRoute, "application/proto", "m"))).To(Equal("cursor's answer"))
			Expect(got.String()).To(ContainSubstring(marker))
			Eventually(ledger.Usages).Should(ContainElements(
				cursorcloud.Usage{UserID: "local", Route: cursorcloud.ParseRoute(codeRoute), Decision: cursorcloud.Passed, Up: int64(len(marker)), Down: 15},
				cursorcloud.Usage{UserID: "local", Route: cursorcloud.ParseRoute(metadataRoute), Decision: cursorcloud.Passed, Up: 1, Down: 15},
			))
		})
	})

	Context("metadata (the company default)", func() {
		BeforeEach(func() { start(cursorcloud.Metadata) })

		It("refuses a unary code route with a Connect error naming the setting, before dialling Cursor", func() {
			resp := post(codeRoute, "application/proto", marker)
			Expect(resp.StatusCode).To(Equal(http.StatusForbidden))
			var cerr struct{ Code, Message string }
			Expect(json.Unmarshal([]byte(readAll(resp)), &cerr)).To(Succeed())
			Expect(cerr.Code).To(Equal("permission_denied"))
			Expect(cerr.Message).To(ContainSubstring("KEYGATE_CURSOR_CLOUD=metadata"))
			Expect(cerr.Message).To(ContainSubstring("aiserver.v1.AiService/WriteGitCommitMessage"))
			Expect(got.String()).To(BeEmpty())
			Expect(ledger.Usages()).To(ConsistOf(cursorcloud.Usage{UserID: "local", Route: cursorcloud.ParseRoute(codeRoute), Decision: cursorcloud.Refused}))
		})

		It("ends a streaming code route with the error in its end-of-stream frame", func() {
			resp := post(streamRoute, "application/connect+proto", marker)
			Expect(resp.StatusCode).To(Equal(http.StatusOK))
			body := readAll(resp)
			Expect(body[0]).To(Equal(byte(0x02)))
			Expect(body[5:]).To(ContainSubstring(`"code":"permission_denied"`))
			Expect(body[5:]).To(ContainSubstring("KEYGATE_CURSOR_CLOUD=metadata"))
			Expect(got.String()).To(BeEmpty())
		})

		It("treats a path the table does not list as code", func() {
			Expect(post("/aiserver.v1.NewService/Upload", "application/proto", marker).StatusCode).To(Equal(http.StatusForbidden))
			Expect(post("/auth/something", "application/json", marker).StatusCode).To(Equal(http.StatusForbidden))
			Expect(got.String()).To(BeEmpty())
		})

		It("passes a metadata route", func() {
			Expect(readAll(post(metadataRoute, "application/proto", "m"))).To(Equal("cursor's answer"))
			Expect(got.String()).To(ContainSubstring("GetUserPrivacyMode"))
		})

		It("passes the client's plain-HTTP account paths, which sign-in and billing need, and counts each by its path", func() {
			Expect(readAll(get("/auth/poll?uuid=u&verifier=v"))).To(Equal("cursor's answer"))
			Expect(readAll(get("/auth/full_stripe_profile"))).To(Equal("cursor's answer"))
			Expect(got.String()).To(ContainSubstring("/auth/poll\n"))
			Eventually(ledger.Usages).Should(ContainElement(
				cursorcloud.Usage{UserID: "local", Route: cursorcloud.ParseRoute("/auth/poll"), Decision: cursorcloud.Passed, Down: 15}))
		})

		It("refuses an Agent turn on a model Keygate does not serve with a visible Connect error, and Cursor sees no prompt", func() {
			client := cursortest.NewClient("https://api2.cursor.sh", e.Client(nil), "req-cloud-1")
			stream, err := client.Subscribe(ctx)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(stream.Close)
			// A BidiAppend for a Cursor-owned run is a code route too: the
			// client may see its refusal, never Cursor the prompt.
			_ = client.Send(ctx, cursortest.RunRequest("conv-cloud", "cursor-hosted-model", marker))
			Eventually(stream.Done(), 5*time.Second).Should(BeClosed())
			Expect(stream.EndError()).NotTo(BeNil())
			Expect(stream.EndError().Message()).To(ContainSubstring("KEYGATE_CURSOR_CLOUD=metadata"))
			Expect(got.String()).NotTo(ContainSubstring(marker))
			Expect(got.String()).To(BeEmpty())
		})

		It("still serves a turn on Keygate's own model", func() {
			client := cursortest.NewClient("https://api2.cursor.sh", e.Client(nil), "req-cloud-2")
			stream, err := client.Subscribe(ctx)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(stream.Close)
			Expect(client.Send(ctx, cursortest.RunRequest("conv-cloud-2", "byok-model", "hello"))).To(Succeed())
			Eventually(stream.Done(), 5*time.Second).Should(BeClosed())
			Expect(stream.EndError()).To(BeNil())
			Expect(stream.Texts()).To(Equal([]string{"local"}))
			Expect(got.String()).To(BeEmpty())
		})
	})

	Context("deny", func() {
		BeforeEach(func() { start(cursorcloud.Deny) })

		It("answers a metadata route locally with the empty message and refuses a code route; Cursor sees nothing", func() {
			resp := post(metadataRoute, "application/proto", "m")
			Expect(resp.StatusCode).To(Equal(http.StatusOK))
			Expect(readAll(resp)).To(BeEmpty())
			json := post(metadataRoute, "application/json", "{}")
			Expect(readAll(json)).To(Equal("{}"))
			refused := post(codeRoute, "application/proto", marker)
			Expect(refused.StatusCode).To(Equal(http.StatusForbidden))
			Expect(readAll(refused)).To(ContainSubstring("KEYGATE_CURSOR_CLOUD=deny"))
			Expect(got.String()).To(BeEmpty())
			account := get("/auth/full_stripe_profile")
			Expect(account.StatusCode).To(Equal(http.StatusOK))
			Expect(account.Header.Get("Content-Type")).To(Equal("application/json"))
			Expect(readAll(account)).To(Equal("{}"))
			Expect(ledger.Usages()).To(HaveLen(4))
			for _, u := range ledger.Usages() {
				Expect(u.Decision).To(Equal(cursorcloud.Refused))
			}
		})
	})
})
