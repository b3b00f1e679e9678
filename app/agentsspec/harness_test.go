package agentsspec_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
	"github.com/onsi/gomega/gexec"

	"keygate/adapters/pgtest"
	"keygate/adapters/provider/providertest"
)

// AgentVersions are the pinned client versions; Taskfile.yml's
// agents:install installs the same ones.
var AgentVersions = map[string]string{"claude-code": "2.1.328", "codex": "0.169.0"}

// installHint is the command that installs the clients.
const installHint = "go tool -modfile=tools/go.mod task agents:install"

// agentBinary is the native binary of the pinned client name inside the
// agents:install cache; the suite fails loudly when it is missing.
func agentBinary(name string) string {
	GinkgoHelper()
	cache := os.Getenv("KEYGATE_AGENTS_CACHE")
	if cache == "" {
		home, err := os.UserHomeDir()
		Expect(err).NotTo(HaveOccurred())
		cache = filepath.Join(home, ".cache", "keygate-agents")
	}
	dir := filepath.Join(cache, name+"@"+AgentVersions[name], "node_modules")
	var path string
	switch name {
	case "claude-code":
		path = filepath.Join(dir, "@anthropic-ai", "claude-code", "bin", "claude.exe")
	case "codex":
		path = filepath.Join(dir, "@openai", "codex-linux-x64", "vendor", "x86_64-unknown-linux-musl", "bin", "codex")
	}
	info, err := os.Stat(path)
	if err != nil || info.Size() < 1<<20 {
		Fail(fmt.Sprintf("%s %s is not installed (%s): run `%s` first (CI does, in .ci/run)", name, AgentVersions[name], path, installHint))
	}
	return path
}

// The trusted-header sign-in of company mode: an authenticating proxy on
// loopback names the user and the groups; kg-admins administers.
const (
	userHeader   = "X-Test-User"
	groupsHeader = "X-Test-Groups"
	adminGroup   = "kg-admins"
	admin        = "root@corp.test"
	member       = "ada@corp.test"
	localUser    = "local"
	// providerKey is the provider key the administrator stores.
	providerKey = "sk-provider-0123456789"
)

var listening = regexp.MustCompile(`"msg":"listening","addr":"(127\.0\.0\.1:\d+)"`)

// keygate is one `keygate serve` process.
type keygate struct {
	base    string
	company bool
	// token is the member's gateway token in company mode.
	token string
	// user is who the client calls as: the member, or the laptop's user.
	user string
}

// serve starts keygate serve with budgets as its budget policy: on SQLite
// in laptop mode, or in company mode (trusted headers, PostgreSQL) with a
// gateway token for the member. Keygate's own outbound traffic goes through
// a proxy that refuses everything but the allow-listed fake provider.
func serve(company bool, provider *providertest.Server, budgets string) *keygate {
	GinkgoHelper()
	dir := GinkgoT().TempDir()
	file := filepath.Join(dir, "budgets.json")
	Expect(os.WriteFile(file, []byte(budgets), 0o600)).To(Succeed())
	args := []string{"serve", "--listen", "127.0.0.1:0", "--proxy-listen", "127.0.0.1:0",
		"--data-dir", filepath.Join(dir, "data"), "--log-format", "json", "--budgets", file,
		"--egress-allow", provider.Listener.Addr().String()}
	cmd := exec.Command(binary, args...)
	cmd.Env = os.Environ()
	if company {
		db, err := pgtest.New(context.Background())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(db.Close)
		cmd.Env = append(cmd.Env, "KEYGATE_DATABASE_URL="+db.DSN, "KEYGATE_AUTH_MODE=header",
			"KEYGATE_AUTH_USER_HEADER="+userHeader, "KEYGATE_AUTH_GROUPS_HEADER="+groupsHeader,
			"KEYGATE_AUTH_TRUSTED_PROXIES=127.0.0.1/32", "KEYGATE_AUTH_ADMIN_GROUPS="+adminGroup,
			"KEYGATE_SINGLE_REPLICA=true") // the only process on its database
	}
	session, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { session.Terminate().Wait(15 * time.Second) })
	Eventually(session.Err, 30*time.Second).Should(gbytes.Say(`"msg":"listening"`))
	m := listening.FindSubmatch(session.Err.Contents())
	Expect(m).NotTo(BeNil(), "keygate logs its address")
	k := &keygate{base: "http://" + string(m[1]), company: company, user: localUser}
	Eventually(func() int {
		resp, err := http.Get(k.base + "/readyz")
		if err != nil {
			return 0
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}, 30*time.Second).Should(Equal(http.StatusOK))
	if company {
		k.user = member
		status, raw := k.do(member, "staff", "/auth/tokens", `{"name":"ada's laptop"}`)
		Expect(status).To(Equal(http.StatusCreated), raw)
		var out struct{ Secret string }
		Expect(json.Unmarshal([]byte(raw), &out)).To(Succeed())
		Expect(out.Secret).NotTo(BeEmpty())
		k.token = out.Secret
	}
	return k
}

// do posts body to path as user (with the authenticating proxy's headers
// in company mode; the laptop's own user needs none).
func (k *keygate) do(user, groups, path, body string) (int, string) {
	GinkgoHelper()
	req, err := http.NewRequest(http.MethodPost, k.base+path, strings.NewReader(body))
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Content-Type", "application/json")
	if k.company {
		req.Header.Set(userHeader, user)
		req.Header.Set(groupsHeader, groups)
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	Expect(err).NotTo(HaveOccurred())
	return resp.StatusCode, string(raw)
}

// admin calls a control procedure as the administrator and decodes the
// answer into out.
func (k *keygate) admin(procedure string, in, out any) {
	GinkgoHelper()
	body, err := json.Marshal(in)
	Expect(err).NotTo(HaveOccurred())
	status, raw := k.do(admin, adminGroup, procedure, string(body))
	Expect(status).To(Equal(http.StatusOK), "%s: %s", procedure, raw)
	Expect(json.Unmarshal([]byte(raw), out)).To(Succeed())
}

// createModel configures an enabled model with tools on the fake provider,
// as the console does.
func (k *keygate) createModel(name, kind, upstream string, provider *providertest.Server) {
	GinkgoHelper()
	var created struct {
		Model struct{ ID string } `json:"model"`
	}
	k.admin("/keygate.control.v1.ModelService/CreateModel", map[string]any{
		"settings": map[string]any{"displayName": name, "providerKind": kind, "baseUrl": provider.URL,
			"modelId": upstream, "supportsTools": true},
		"apiKey": providerKey, "enabled": true,
	}, &created)
	Expect(created.Model.ID).NotTo(BeEmpty())
}

// apiCall is one record of ListCalls.
type apiCall struct {
	UserID string `json:"userId"`
	Client string `json:"client"`
	Status string `json:"status"`
	Kind   string `json:"kind"`
}

// apiCalls lists the call records of kind api, as the administrator sees
// them on the Calls page.
func (k *keygate) apiCalls() []apiCall {
	GinkgoHelper()
	var list struct{ Calls []apiCall }
	k.admin("/keygate.control.v1.CallService/ListCalls", map[string]any{"filter": map[string]any{"kind": "CALL_KIND_API"}}, &list)
	return list.Calls
}

// budgetRefusal sends one more Messages request as the client's user and
// returns Keygate's answer: with the day's tokens spent it is the budget's
// refusal, which states how many tokens the budget counted.
func (k *keygate) budgetRefusal(model string) (int, string) {
	GinkgoHelper()
	req, err := http.NewRequest(http.MethodPost, k.base+"/v1/messages",
		strings.NewReader(`{"model":"`+model+`","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`))
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("anthropic-version", "2023-06-01")
	if k.token != "" {
		req.Header.Set("x-api-key", k.token)
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	Expect(err).NotTo(HaveOccurred())
	return resp.StatusCode, string(raw)
}

// strayProxy is where a client's requests to anywhere but loopback go: a
// listener that reads each request's first line, refuses it and records
// it, so a stray call fails instead of leaving the machine and the spec
// can say that none was made.
type strayProxy struct {
	url  string
	mu   sync.Mutex
	seen []string
}

func newStrayProxy() *strayProxy {
	GinkgoHelper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(ln.Close)
	p := &strayProxy{url: "http://" + ln.Addr().String()}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.SetDeadline(time.Now().Add(5 * time.Second))
			line, _ := bufio.NewReader(io.LimitReader(c, 4096)).ReadString('\n')
			p.mu.Lock()
			p.seen = append(p.seen, strings.TrimSpace(line))
			p.mu.Unlock()
			_, _ = io.WriteString(c, "HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
			_ = c.Close()
		}
	}()
	return p
}

// requests are the first lines of the requests the proxy refused.
func (p *strayProxy) requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.seen...)
}

// agentTimeout bounds one headless client run.
const agentTimeout = 120 * time.Second

// offline is the environment every client runs with: only what it needs
// from the spec's own environment, a scratch HOME, and proxies that refuse
// everything but loopback (proxy).
func offline(home string, proxy *strayProxy, extra ...string) []string {
	closedProxy := proxy.url
	return append([]string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + os.TempDir(), "LANG=C.UTF-8", "TERM=dumb", "NO_COLOR=1",
		"HTTPS_PROXY=" + closedProxy, "HTTP_PROXY=" + closedProxy, "https_proxy=" + closedProxy, "http_proxy=" + closedProxy,
		"ALL_PROXY=" + closedProxy, "NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost",
	}, extra...)
}

// run runs a client headless in dir within agentTimeout and returns its
// combined output; a failure or a timeout fails the spec with that output.
func run(dir, bin string, env []string, args ...string) string {
	GinkgoHelper()
	ctx, cancel := context.WithTimeout(context.Background(), agentTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin = strings.NewReader("")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.MultiWriter(&out, GinkgoWriter), io.MultiWriter(&out, GinkgoWriter)
	err := cmd.Run()
	Expect(ctx.Err()).NotTo(HaveOccurred(), "%s timed out after %s; its output:\n%s", filepath.Base(bin), agentTimeout, out.String())
	Expect(err).NotTo(HaveOccurred(), "%s failed; its output:\n%s", filepath.Base(bin), out.String())
	return out.String()
}
