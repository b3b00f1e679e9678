package threatspec_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
	"google.golang.org/protobuf/proto"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/cursor/frame"
	"keygate/adapters/pgtest"
	agentv1 "keygate/gen/cursor/agent/v1"
	"keygate/gen/cursor/agent/v1/agentv1connect"
	"keygate/gen/cursor/aiserver/v1/aiserverv1connect"
)

// peakBound is the most resident memory (VmHWM) the keygate process may
// ever have reached by the end of the probe. A fresh `keygate serve` on
// PostgreSQL idles near 35 MiB. What the bombs may add: at most two
// inflations at a time (frame.DefaultInflating), each stopped one byte past
// frame.DefaultMaxSize (32 MiB), plus the raw bodies in flight (sixteen of
// about 1 MiB, read before they are refused; RunSSE refuses its bombs
// before inflating them, as a request id needs no more than 64 KiB), and
// the collector lets the heap grow to twice what is live before it runs
// (GOGC=100): about 35 + 2 × (2 × 32 + 16) = 195 MiB, and 168-192 MiB was
// measured. The abandoned request ids hold nothing once abandoned. 384 MiB
// leaves about twice the expected peak as margin, so only a lost bound
// fails it: main before these bounds peaked at 1563 MiB on the same load.
const peakBound = 384 << 20

const (
	// bombsPerRoute is how many bombs hit BidiAppend and RunSSE each, all
	// at the same time, per round.
	bombsPerRoute = 8
	// bombRounds repeats the volley, so that the peak is the steady one and
	// not the luck of one round's scheduling.
	bombRounds = 3
	// abandoned is how many request ids a client opens and walks away from.
	abandoned = 1000
)

var (
	listening      = regexp.MustCompile(`"msg":"listening","addr":"(127\.0\.0\.1:\d+)"`)
	proxyListening = regexp.MustCompile(`"msg":"proxy listening","addr":"(127\.0\.0\.1:\d+)"`)
)

// server is one `keygate serve` child process.
type server struct {
	session *gexec.Session
	base    string // console / control API
	proxy   string // the forward proxy Cursor is pointed at
	dataDir string
	token   string // mallory's gateway token
}

// serve starts keygate serve in company mode (trusted-header sign-in behind
// loopback, so the proxy asks for gateway tokens) on ephemeral ports and
// waits until it is ready.
func serve(dataDir string, extra ...string) server {
	args := append([]string{"serve", "--listen", "127.0.0.1:0", "--proxy-listen", "127.0.0.1:0",
		"--data-dir", dataDir, "--log-format", "json"}, extra...)
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), "KEYGATE_AUTH_MODE=header", "KEYGATE_AUTH_USER_HEADER="+userHeader,
		"KEYGATE_AUTH_GROUPS_HEADER="+groupsHeader, "KEYGATE_AUTH_TRUSTED_PROXIES=127.0.0.1/32", "KEYGATE_AUTH_ADMIN_GROUPS="+adminGroup)
	session, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { session.Kill().Wait() })
	// The console and the proxy open their listeners concurrently: either
	// line may come first.
	Eventually(session.Err.Contents, 20*time.Second).Should(And(MatchRegexp(listening.String()), MatchRegexp(proxyListening.String())))
	s := server{session: session, dataDir: dataDir}
	m := listening.FindSubmatch(session.Err.Contents())
	Expect(m).NotTo(BeNil(), "the console logs its address")
	s.base = "http://" + string(m[1])
	m = proxyListening.FindSubmatch(session.Err.Contents())
	Expect(m).NotTo(BeNil(), "the proxy logs its address")
	s.proxy = string(m[1])
	Eventually(func() int {
		resp, err := http.Get(s.base + "/readyz")
		if err != nil {
			return 0
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}, 20*time.Second).Should(Equal(http.StatusOK))
	s.token = s.newToken(mallory)
	return s
}

// newToken creates a personal gateway token for u through the account
// routes, as the authenticating proxy forwards u's request.
func (s server) newToken(u user) string {
	GinkgoHelper()
	req, err := http.NewRequest(http.MethodPost, s.base+"/auth/tokens", strings.NewReader(`{"name":"probe"}`))
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(userHeader, u.id)
	req.Header.Set(groupsHeader, u.groups)
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	var out struct{ Secret string }
	Expect(json.NewDecoder(resp.Body).Decode(&out)).To(Succeed())
	Expect(resp.Body.Close()).To(Succeed())
	Expect(out.Secret).NotTo(BeEmpty())
	return out.Secret
}

// cursorClient reaches Keygate the way mallory's Cursor does: through the
// proxy with her gateway token, trusting the installation CA.
func (s server) cursorClient() *http.Client {
	pem, err := os.ReadFile(filepath.Join(s.dataDir, "ca.crt"))
	Expect(err).NotTo(HaveOccurred())
	pool := x509.NewCertPool()
	Expect(pool.AppendCertsFromPEM(pem)).To(BeTrue())
	tr := &http.Transport{
		Proxy:               http.ProxyURL(&url.URL{Scheme: "http", User: url.UserPassword("cursor", s.token), Host: s.proxy}),
		TLSClientConfig:     &tls.Config{RootCAs: pool},
		MaxIdleConnsPerHost: 64,
	}
	DeferCleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// memory is the process's resident set now (VmRSS) and at its highest so
// far (VmHWM), in bytes, from /proc/<pid>/status.
type memory struct{ rss, hwm int64 }

func (m memory) String() string {
	return fmt.Sprintf("VmRSS %d MiB, VmHWM %d MiB", m.rss>>20, m.hwm>>20)
}

func (s server) memory() memory {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", s.session.Command.Process.Pid))
	Expect(err).NotTo(HaveOccurred())
	defer f.Close()
	var m memory
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, value, _ := strings.Cut(sc.Text(), ":")
		kb, _, _ := strings.Cut(strings.TrimSpace(value), " ")
		n, _ := strconv.ParseInt(kb, 10, 64)
		switch name {
		case "VmRSS":
			m.rss = n << 10
		case "VmHWM":
			m.hwm = n << 10
		}
	}
	Expect(sc.Err()).NotTo(HaveOccurred())
	Expect(m.rss).To(BeNumerically(">", 0), "/proc/<pid>/status names VmRSS")
	return m
}

// gzipBomb is a gzip stream of about 1 MiB that inflates to 1 GiB of zeros:
// sixteen members of 64 MiB each (a gzip reader reads concatenated members
// as one stream).
func gzipBomb() []byte {
	var member bytes.Buffer
	zw, err := gzip.NewWriterLevel(&member, gzip.BestCompression)
	Expect(err).NotTo(HaveOccurred())
	zeros := make([]byte, 1<<20)
	for range 64 {
		_, _ = zw.Write(zeros)
	}
	Expect(zw.Close()).To(Succeed())
	return bytes.Repeat(member.Bytes(), 16)
}

// bomb is one hostile request: a route, how its body says it is compressed
// (a gzip Content-Encoding, or a Connect envelope flagged compressed), and
// the body.
type bomb struct {
	path        string
	contentType string
	encoding    string
	body        []byte
}

func bombs(gz []byte) []bomb {
	enveloped := frame.Encode(frame.FlagCompressed, gz)
	var out []bomb
	for _, path := range []string{aiserverv1connect.BidiServiceBidiAppendProcedure, agentv1connect.AgentServiceRunSSEProcedure} {
		for i := range bombsPerRoute {
			if i%2 == 0 {
				out = append(out, bomb{path: path, contentType: "application/proto", encoding: "gzip", body: gz})
			} else {
				out = append(out, bomb{path: path, contentType: "application/connect+proto", body: enveloped})
			}
		}
	}
	return out
}

// send posts b through the proxy and returns what came back (status, and
// the body up to 64 KiB: a Connect error or an end-of-stream frame).
func (b bomb) send(ctx context.Context, hc *http.Client) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://api2.cursor.sh"+b.path, bytes.NewReader(b.body))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Type", b.contentType)
	req.Header.Set("Connect-Protocol-Version", "1")
	if b.encoding != "" {
		req.Header.Set("Content-Encoding", b.encoding)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode, string(raw), err
}

// abandon opens a RunSSE for a request id that never gets its opening
// append, sends the id an out-of-order append (a KV reply of 64 KiB, as a
// client's late answer would be), and walks away from both.
func abandon(ctx context.Context, hc *http.Client, id string) {
	ctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	body, err := proto.Marshal(&agentv1.BidiRequestId{RequestId: id})
	Expect(err).NotTo(HaveOccurred())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://api2.cursor.sh"+agentv1connect.AgentServiceRunSSEProcedure,
		bytes.NewReader(frame.Encode(0, body)))
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Content-Type", "application/connect+proto")
	req.Header.Set("Connect-Protocol-Version", "1")
	if resp, err := hc.Do(req); err == nil {
		defer resp.Body.Close()
	}
	reply := &agentv1.AgentClientMessage{Message: &agentv1.AgentClientMessage_KvClientMessage{KvClientMessage: &agentv1.KvClientMessage{
		Id: 1, Message: &agentv1.KvClientMessage_GetBlobResult{GetBlobResult: &agentv1.GetBlobResult{BlobData: bytes.Repeat([]byte{'k'}, 64<<10)}},
	}}}
	// The answer does not matter: the append waits for an opening append
	// that never comes, or is refused; either way the client leaves.
	_ = cursortest.NewClient("https://api2.cursor.sh", hc, id).SendAt(ctx, 1, reply)
}

var _ = Describe("Threat 6: a member exhausts Keygate's memory with compressed bodies and abandoned request ids", func() {
	It("stays under its stated peak after 8 concurrent gzip bombs to BidiAppend and to RunSSE (three volleys) and 1,000 abandoned request ids", func(ctx SpecContext) {
		db, err := pgtest.New(ctx)
		Expect(err).NotTo(HaveOccurred(), "this spec needs a PostgreSQL server and never skips")
		DeferCleanup(db.Close)
		s := serve(filepath.Join(GinkgoT().TempDir(), "data"), "--database-url", db.DSN, "--single-replica")
		hc := s.cursorClient()
		before := s.memory()

		By("sending the volleys: each body about 1 MiB of gzip that inflates to 1 GiB")
		gz := gzipBomb()
		for round := range bombRounds {
			var wg sync.WaitGroup
			volley := bombs(gz)
			results := make([]string, len(volley))
			for i, b := range volley {
				wg.Go(func() {
					status, body, err := b.send(ctx, hc)
					results[i] = fmt.Sprintf("%s %s → %d %v %s", b.path, b.contentType, status, err, body)
				})
			}
			wg.Wait()
			for _, r := range results {
				Expect(r).To(ContainSubstring("resource_exhausted"), "round %d: every bomb is refused as too large", round)
			}
		}
		afterBombs := s.memory()

		By("opening 1,000 request ids and walking away from each")
		var wg sync.WaitGroup
		slots := make(chan struct{}, 32)
		for i := range abandoned {
			slots <- struct{}{}
			wg.Go(func() {
				defer func() { <-slots }()
				abandon(ctx, hc, fmt.Sprintf("probe-abandoned-%04d", i))
			})
		}
		wg.Wait()
		after := s.memory()

		report := fmt.Sprintf("idle: %s; after %d×%d bombs: %s; after %d abandoned request ids: %s; bound on VmHWM: %d MiB",
			before, bombRounds, 2*bombsPerRoute, afterBombs, abandoned, after, peakBound>>20)
		AddReportEntry("keygate memory", report)
		fmt.Fprintln(GinkgoWriter, report)
		Expect(after.hwm).To(BeNumerically("<=", peakBound), report)
		Expect(s.session.ExitCode()).To(Equal(-1), "keygate is still running")
		resp, err := http.Get(s.base + "/readyz")
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Body.Close()).To(Succeed())
		Expect(resp.StatusCode).To(Equal(http.StatusOK), "and still ready")
	}, SpecTimeout(5*time.Minute))
})
