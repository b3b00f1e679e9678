package main_test

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider/providertest"
)

var proxyListening = regexp.MustCompile(`"msg":"proxy listening","addr":"(127\.0\.0\.1:\d+)"`)

// postJSON calls a control RPC with the Connect JSON protocol.
func postJSON(base, procedure string, in any, out any) {
	body, err := json.Marshal(in)
	Expect(err).NotTo(HaveOccurred())
	resp, err := http.Post(base+procedure, "application/json", strings.NewReader(string(body)))
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	Expect(resp.StatusCode).To(Equal(http.StatusOK), string(raw))
	Expect(json.Unmarshal(raw, out)).To(Succeed())
}

// installationCA is the CA Cursor's machine trusts, from the data dir.
func installationCA(dataDir string) *x509.CertPool {
	pem, err := os.ReadFile(filepath.Join(dataDir, "ca.crt"))
	Expect(err).NotTo(HaveOccurred())
	pool := x509.NewCertPool()
	Expect(pool.AppendCertsFromPEM(pem)).To(BeTrue())
	return pool
}

// cursorClient is how a Cursor client reaches Keygate: http.proxy set to
// Keygate's proxy, trusting the installation CA from the data dir.
func cursorClient(proxyAddr, dataDir string) *http.Client {
	tr := &http.Transport{
		Proxy:           http.ProxyURL(&url.URL{Scheme: "http", Host: proxyAddr}),
		TLSClientConfig: &tls.Config{RootCAs: installationCA(dataDir)},
	}
	DeferCleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// createdModel is the control API's answer to CreateModel.
type createdModel struct {
	Model struct {
		ID         string `json:"id"`
		HasAPIKey  bool   `json:"hasApiKey"`
		APIKeyHint string `json:"apiKeyHint"`
	} `json:"model"`
}

// createFakeModel configures an enabled OpenAI Chat model with tools on the
// fake provider through the control API, as the console does.
func createFakeModel(base, providerURL, apiKey string) createdModel {
	var created createdModel
	postJSON(base, "/keygate.control.v1.ModelService/CreateModel", map[string]any{
		"settings": map[string]any{"displayName": "Fake GPT", "providerKind": "PROVIDER_KIND_OPENAI_CHAT",
			"baseUrl": providerURL, "modelId": "fake-gpt", "supportsTools": true},
		"apiKey": apiKey, "enabled": true,
	}, &created)
	Expect(created.Model.ID).NotTo(BeEmpty())
	return created
}

// callCount is how many call records the console lists.
func callCount(base string) int {
	var calls struct {
		Calls []struct {
			Status string `json:"status"`
		} `json:"calls"`
	}
	postJSON(base, "/keygate.control.v1.CallService/ListCalls", map[string]any{}, &calls)
	return len(calls.Calls)
}

// scriptReadTurn scripts the provider for a turn with one tool round: a
// Read of notes.txt, then an answer.
func scriptReadTurn(provider *providertest.Server) {
	provider.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{ID: "r1", Text: []string{"Let me read it."},
		Calls: []providertest.Call{{ID: "call_read", Name: "Read", Arguments: []string{`{"path":"notes.txt"}`}}}})))
	provider.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{ID: "r2", Text: providertest.Words("It says hello."),
		Usage: providertest.Usage{Input: 200, Output: 4}})))
}

// notesWorkspace is a client workspace holding notes.txt.
func notesWorkspace() *cursortest.Workspace {
	ws := cursortest.NewWorkspace(GinkgoT().TempDir())
	Expect(os.WriteFile(filepath.Join(ws.Root, "notes.txt"), []byte("hello from the workspace\n"), 0o644)).To(Succeed())
	return ws
}

var _ = Describe("keygate serve end to end", func() {
	It("runs a Cursor turn with a client-side tool through the proxy, the engine, the store and a provider configured in the console", func(ctx SpecContext) {
		provider := providertest.NewServer()
		DeferCleanup(provider.Close)
		dataDir := filepath.Join(GinkgoT().TempDir(), "data")
		session, base := start(dataDir)
		Eventually(func() int { return status(base + "/readyz") }, 10*time.Second).Should(Equal(http.StatusOK))
		// The proxy opens its listener beside the console's, not before it.
		Eventually(session.Err.Contents).Should(MatchRegexp(proxyListening.String()))
		m := proxyListening.FindSubmatch(session.Err.Contents())
		Expect(m).NotTo(BeNil(), "the proxy logs its address")

		By("configuring an OpenAI Chat model in the control API, as the console does")
		created := createFakeModel(base, provider.URL, "sk-e2e-secret-key-0123456789")
		Expect(created.Model.HasAPIKey).To(BeTrue())
		Expect(created.Model.APIKeyHint).NotTo(ContainSubstring("secret-key"))

		By("scripting the provider: a Read call, then an answer")
		scriptReadTurn(provider)

		By("sending the turn from the Cursor client simulator to https://api2.cursor.sh through the proxy")
		ws := notesWorkspace()
		c := cursortest.NewClient("https://api2.cursor.sh", cursorClient(string(m[1]), dataDir), "req-e2e-1")
		c.OnMessage = ws.Handle
		st, err := c.Subscribe(ctx)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(st.Close)
		Expect(c.Send(ctx, cursortest.RunRequest("conv-e2e", created.Model.ID, "What is in notes.txt?"))).To(Succeed())
		Eventually(st.Done()).WithTimeout(20 * time.Second).Should(BeClosed())
		Expect(st.ReadError()).NotTo(HaveOccurred())
		Expect(st.EndError()).To(BeNil())

		By("streaming both model cycles to the client and running the tool in its workspace")
		Expect(strings.Join(st.Texts(), "")).To(Equal("Let me read it.It says hello."))
		Expect(ws.Execs()).To(HaveLen(1))
		reqs := provider.Requests()
		Expect(reqs).To(HaveLen(2))
		Expect(string(reqs[1].Body)).To(ContainSubstring("hello from the workspace"))
		Expect(reqs[0].Header.Get("Authorization")).To(Equal("Bearer sk-e2e-secret-key-0123456789"))

		By("recording both provider calls for the console")
		Expect(callCount(base)).To(Equal(2))

		By("never writing the provider key in clear to the database, its WAL or anything else in the data dir")
		files, err := filepath.Glob(filepath.Join(dataDir, "*"))
		Expect(err).NotTo(HaveOccurred())
		Expect(files).To(ContainElement(HaveSuffix("keygate.db")))
		for _, f := range files {
			data, err := os.ReadFile(f)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(data)).NotTo(ContainSubstring("sk-e2e-secret-key-0123456789"), f)
		}
		Expect(string(session.Err.Contents())).NotTo(ContainSubstring("sk-e2e-secret-key-0123456789"), "the log")
	}, SpecTimeout(60*time.Second))
})
