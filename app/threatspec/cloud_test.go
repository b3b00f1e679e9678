package threatspec_test

import (
	"bytes"
	"crypto/tls"
	binenc "encoding/binary"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/protobuf/proto"

	"keygate/adapters/ca"
	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider/providertest"
	"keygate/adapters/upstream/upstreamtest"
	"keygate/app/config"
	aiserverv1 "keygate/gen/cursor/aiserver/v1"
	controlv1 "keygate/gen/keygate/control/v1"
	"keygate/gen/keygate/control/v1/controlv1connect"
)

// cursorRoot issues the certificates of the fake Cursor below. Keygate's
// forwarder verifies Cursor with the system roots, so the test binary's
// system pool is this root plus the machine's bundle (SSL_CERT_FILE, read
// once, at the first verification in the process: hence init).
var cursorRoot *ca.Authority

func init() {
	root, _, err := ca.Generate(time.Now(), "Threat spec fake Cursor root")
	if err != nil {
		panic(err)
	}
	cursorRoot = root
	bundle := append([]byte(nil), root.CertPEM()...)
	for _, sys := range []string{"/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/cert.pem"} {
		if b, err := os.ReadFile(sys); err == nil {
			bundle = append(bundle, b...)
			break
		}
	}
	path := filepath.Join(os.TempDir(), "keygate-threatspec-cursor-roots.pem")
	if err := os.WriteFile(path, bundle, 0o600); err != nil {
		panic(err)
	}
	_ = os.Setenv("SSL_CERT_FILE", path)
}

// recordingCursor is a fake Cursor for every *.cursor.sh name that keeps
// every byte it is sent (path, headers and body of each request).
type recordingCursor struct {
	srv *httptest.Server
	mu  sync.Mutex
	buf bytes.Buffer
}

func newRecordingCursor() *recordingCursor {
	c := &recordingCursor{}
	c.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		c.mu.Lock()
		c.buf.WriteString(r.Method + " " + r.URL.RequestURI() + "\n")
		_ = r.Header.Write(&c.buf)
		c.buf.Write(body)
		c.buf.WriteString("\n")
		c.mu.Unlock()
		w.Header().Set("Content-Type", "application/proto")
		w.WriteHeader(http.StatusOK)
	}))
	c.srv.EnableHTTP2 = true
	c.srv.TLS = &tls.Config{GetCertificate: ca.NewLeaves(cursorRoot, ca.LeafOptions{}).GetCertificate}
	c.srv.StartTLS()
	DeferCleanup(c.srv.Close)
	return c
}

func (c *recordingCursor) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}

// cloudMarker stands for code: a file's contents, a staged diff, a memory,
// a prompt. It must never reach Cursor under the company policy.
const cloudMarker = "TOPAZ-CODE-5150-never-to-cursor"

// envelope is one Connect stream frame around msg.
func envelope(msg []byte) []byte {
	out := make([]byte, 5, 5+len(msg))
	binenc.BigEndian.PutUint32(out[1:], uint32(len(msg))) //nolint:gosec // a small message
	return append(out, msg...)
}

var _ = Describe("Threat 24: a member's code reaches Cursor's own cloud (KEYGATE_CURSOR_CLOUD, company default metadata)", Ordered, func() {
	var (
		k      *stack
		cursor *recordingCursor
		member *http.Client
	)

	BeforeAll(func() {
		cursor = newRecordingCursor()
		outbound := upstreamtest.NewOutboundProxy(upstreamtest.Dialer(map[string]string{
			"api2.cursor.sh:443": cursor.srv.Listener.Addr().String(), "api3.cursor.sh:443": cursor.srv.Listener.Addr().String(),
			"agentn.api5.cursor.sh:443": cursor.srv.Listener.Addr().String(),
		}))
		DeferCleanup(outbound.Close)
		// No KEYGATE_CURSOR_CLOUD: company mode's default applies. No Tab
		// model: Tab's routes would be relayed to Cursor.
		k = startKeygate(func(c *config.Config) {
			c.OutboundProxy, c.MetricsToken = outbound.URL, "scrape-token-0123456789"
		})
		member = k.CursorHTTP(k.memberToken)
		// Keygate serves inline edits and commit messages on the published
		// model by default; turned off here, their routes would go to
		// Cursor, which the policy must refuse.
		for _, f := range []controlv1.Feature{controlv1.Feature_FEATURE_CMDK, controlv1.Feature_FEATURE_COMMIT} {
			var set controlv1.SetFeatureModelResponse
			k.must(root, controlv1connect.SettingServiceSetFeatureModelProcedure, &controlv1.SetFeatureModelRequest{Feature: f}, &set)
			Expect(set.GetFeatureModel().GetModelId()).To(BeEmpty())
		}
	})

	post := func(path, contentType string, body []byte) (int, string) {
		GinkgoHelper()
		req, err := http.NewRequest(http.MethodPost, cursorAPI+path, bytes.NewReader(body))
		Expect(err).NotTo(HaveOccurred())
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("Connect-Protocol-Version", "1")
		resp, err := member.Do(req)
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		Expect(err).NotTo(HaveOccurred())
		return resp.StatusCode, string(raw)
	}
	refused := func(answer, route string) {
		GinkgoHelper()
		Expect(answer).To(ContainSubstring("permission_denied"), route)
		Expect(answer).To(ContainSubstring("KEYGATE_CURSOR_CLOUD=metadata"), route)
		Expect(answer).NotTo(ContainSubstring(cloudMarker), route)
	}

	It("refuses Tab's StreamCpp with a file's contents (no Tab model set), visibly and before dialling", func() {
		msg, err := proto.Marshal(&aiserverv1.StreamCppRequest{CurrentFile: &aiserverv1.CurrentFileInfo{
			RelativeWorkspacePath: "src/secret.go", Contents: "package secret // " + cloudMarker}})
		Expect(err).NotTo(HaveOccurred())
		status, answer := post("/aiserver.v1.AiService/StreamCpp", "application/connect+proto", envelope(msg))
		Expect(status).To(Equal(http.StatusOK))
		refused(answer, "StreamCpp")
	})

	It("refuses a staged diff (WriteGitCommitMessage) while Keygate serves no commit messages", func() {
		route := "/aiserver.v1.AiService/WriteGitCommitMessage"
		status, answer := post(route, "application/proto", []byte("diff --git a/x b/x\n+"+cloudMarker))
		Expect(status).To(Equal(http.StatusForbidden), route)
		refused(answer, route)
	})

	It("keeps a memory (KnowledgeBaseAdd) in Keygate, for the member alone", func() {
		msg, err := proto.Marshal(&aiserverv1.KnowledgeBaseAddRequest{Knowledge: "the deploy key is " + cloudMarker, Title: "deploy"})
		Expect(err).NotTo(HaveOccurred())
		status, answer := post("/aiserver.v1.AiService/KnowledgeBaseAdd", "application/proto", msg)
		Expect(status).To(Equal(http.StatusOK), answer)
		Expect(cursor.String()).NotTo(ContainSubstring(cloudMarker))
	})

	It("answers a staged diff on the company's own model once Keygate serves commit messages: Cursor sees nothing of it", func() {
		var set controlv1.SetFeatureModelResponse
		k.must(root, controlv1connect.SettingServiceSetFeatureModelProcedure, &controlv1.SetFeatureModelRequest{
			Feature: controlv1.Feature_FEATURE_COMMIT, Model: k.modelID}, &set)
		Expect(set.GetFeatureModel().GetModelId()).To(Equal(k.modelID))
		DeferCleanup(func() {
			k.must(root, controlv1connect.SettingServiceSetFeatureModelProcedure, &controlv1.SetFeatureModelRequest{
				Feature: controlv1.Feature_FEATURE_COMMIT}, &set)
		})
		before := len(k.provider.Requests())
		k.provider.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{Text: []string{"Fix the secret"}})))
		msg, err := proto.Marshal(&aiserverv1.WriteGitCommitMessageRequest{Diffs: []string{"diff --git a/x b/x\n+" + cloudMarker}})
		Expect(err).NotTo(HaveOccurred())
		status, answer := post("/aiserver.v1.AiService/WriteGitCommitMessage", "application/proto", msg)
		Expect(status).To(Equal(http.StatusOK), answer)
		Expect(answer).To(ContainSubstring("Fix the secret"))
		reqs := k.provider.Requests()
		Expect(reqs).To(HaveLen(before + 1))
		Expect(string(reqs[before].Body)).To(ContainSubstring(cloudMarker), "the diff went to the company's model")
		Expect(cursor.String()).NotTo(ContainSubstring(cloudMarker))
	})

	It("refuses an Agent turn on a Cursor-hosted model with the Connect error shown in Cursor", func(ctx SpecContext) {
		client := cursortest.NewClient(cursorAPI, member, "req-cloud-threat-1")
		stream, err := client.Subscribe(ctx)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(stream.Close)
		_ = client.Send(ctx, cursortest.RunRequest("conv-cloud-threat", "claude-4-sonnet-cursor-hosted", "fix this: "+cloudMarker))
		Eventually(stream.Done()).WithTimeout(20 * time.Second).Should(BeClosed())
		Expect(stream.EndError()).NotTo(BeNil())
		Expect(stream.EndError().Message()).To(ContainSubstring("KEYGATE_CURSOR_CLOUD=metadata"))
	})

	It("refuses a sample of other code routes, a path the schema does not know among them", func() {
		for _, route := range []string{
			"/aiserver.v1.ChatService/StreamUnifiedChatWithTools", "/aiserver.v1.AiService/StreamChat",
			"/aiserver.v1.CmdKService/StreamCmdK", "/aiserver.v1.FileSyncService/FSUploadFile",
			"/aiserver.v1.RepositoryService/FastRepoInitHandshakeV2", "/aiserver.v1.BackgroundComposerService/StartBackgroundComposerFromSnapshot",
			"/aiserver.v1.FutureService/UploadEverything",
		} {
			contentType := "application/proto"
			if strings.Contains(route, "Stream") {
				contentType = "application/connect+proto"
			}
			_, answer := post(route, contentType, envelope([]byte(cloudMarker)))
			refused(answer, route)
		}
	})

	It("never let the marker reach any byte Cursor received", func() {
		Expect(cursor.String()).NotTo(ContainSubstring(cloudMarker))
	})

	It("still passes metadata routes to Cursor", func() {
		for _, route := range []string{"/aiserver.v1.DashboardService/GetUserPrivacyMode", "/aiserver.v1.AnalyticsService/TrackEvents"} {
			status, _ := post(route, "application/proto", nil)
			Expect(status).To(Equal(http.StatusOK), route)
			Expect(cursor.String()).To(ContainSubstring("POST "+route), route)
		}
		Expect(cursor.String()).NotTo(ContainSubstring(cloudMarker))
	})

	It("counted each request in the ledger and the metrics, by decision", func() {
		req, err := http.NewRequest(http.MethodGet, k.Base+"/metrics", nil)
		Expect(err).NotTo(HaveOccurred())
		req.Header.Set("Authorization", "Bearer scrape-token-0123456789")
		resp, err := http.DefaultClient.Do(req)
		Expect(err).NotTo(HaveOccurred())
		raw, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		var counted []string
		for _, line := range strings.Split(string(raw), "\n") {
			if strings.HasPrefix(line, "keygate_cursor_cloud_requests_total{") {
				counted = append(counted, line)
			}
		}
		metrics := strings.Join(counted, "\n")
		for _, line := range []string{
			`keygate_cursor_cloud_requests_total{decision="refused",method="StreamCpp",service="aiserver.v1.AiService"} 1`,
			`keygate_cursor_cloud_requests_total{decision="refused",method="WriteGitCommitMessage",service="aiserver.v1.AiService"} 1`,
			`keygate_cursor_cloud_requests_total{decision="refused",method="(unlisted)",service=""} 1`,
			`keygate_cursor_cloud_requests_total{decision="passed",method="GetUserPrivacyMode",service="aiserver.v1.DashboardService"} 1`,
		} {
			Expect(metrics).To(ContainSubstring(line))
		}
		Expect(metrics).To(MatchRegexp(`keygate_cursor_cloud_requests_total\{decision="refused",method="(BidiAppend|RunSSE)",service="[A-Za-z.0-9]+"\} [1-9]`),
			"the Agent turn's relay was refused")

		var cloud controlv1.GetCursorCloudResponse
		Eventually(func(g Gomega) {
			k.must(root, controlv1connect.DashboardServiceGetCursorCloudProcedure, &controlv1.GetCursorCloudRequest{}, &cloud)
			seen := map[string]string{}
			for _, r := range cloud.GetRows() {
				g.Expect(r.GetUserId()).To(Equal(mallory.id))
				seen[r.GetMethod()] = r.GetDecision()
			}
			g.Expect(seen).To(HaveKeyWithValue("WriteGitCommitMessage", "refused"))
			g.Expect(seen).To(HaveKeyWithValue("StreamCpp", "refused"))
			g.Expect(seen).To(HaveKeyWithValue("GetUserPrivacyMode", "passed"))
		}).WithTimeout(15 * time.Second).Should(Succeed())
		Expect(cloud.GetPolicy()).To(Equal("metadata"))
	})
})
