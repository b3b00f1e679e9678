package threatspec_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/pgtest"
	"keygate/adapters/provider/providertest"
	controlv1 "keygate/gen/keygate/control/v1"
	"keygate/gen/keygate/control/v1/controlv1connect"
)

// fetchPeakBound is the most resident memory (VmHWM) `keygate serve` may
// reach while one member's turn fetches six 4 MiB Markdown bombs (the
// largest body WebFetch reads). A fresh serve on PostgreSQL idles near
// 40 MiB. What a fetch may add: its 4 MiB body, the parsed tree (at most
// 200,000 tokens), the converter's output within the work budget (64 units
// a page byte) and the garbage of both, which the collector lets grow to
// twice what is live (GOGC=100); at most two fetches of a member run at
// once. About 40 + 2 × 40 = 120 MiB is expected, and 143-155 MiB was
// measured; 256 MiB leaves a margin, so only a lost bound fails it: before
// the bound, one 600 KB page took 669 MB, and with the work budget off this
// spec's turn does not even end within its three minutes.
const fetchPeakBound = 256 << 20

var _ = Describe("Threat 14 on the real binary: Markdown bombs cannot take `keygate serve`'s memory", func() {
	It("stays under its stated peak while a member's turn fetches six 4 MiB bombs, and spends CPU only within the fetches' deadlines", func(ctx SpecContext) {
		var page bytes.Buffer
		page.WriteString("<html><head><title>Bomb</title></head><body>")
		for range 250 {
			page.WriteString("<ul><li>")
		}
		for page.Len() < 4<<20-8 {
			page.WriteString("x<br>")
		}
		served := make(chan struct{}, 16)
		site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Host != "bomb.example.test" {
				http.Error(w, "no route", http.StatusBadGateway)
				return
			}
			served <- struct{}{}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write(page.Bytes())
		}))
		DeferCleanup(site.Close)
		// The attacker's site is behind the operator's outbound proxy, the
		// only way out of the company network.
		GinkgoT().Setenv("HTTP_PROXY", site.URL)
		GinkgoT().Setenv("NO_PROXY", "")

		provider := providertest.NewServer()
		DeferCleanup(provider.Close)
		db, err := pgtest.New(ctx)
		Expect(err).NotTo(HaveOccurred(), "this spec needs a PostgreSQL server and never skips")
		DeferCleanup(db.Close)
		s := serve(filepath.Join(GinkgoT().TempDir(), "data"), "--database-url", db.DSN, "--single-replica",
			"--egress-allow", providerAddr(provider), "--outbound-proxy", site.URL, "--web-fetch=true")

		var created controlv1.CreateModelResponse
		adminCall(s.base, controlv1connect.ModelServiceCreateModelProcedure, &controlv1.CreateModelRequest{
			Settings: &controlv1.ModelSettings{DisplayName: "Fake GPT", ProviderKind: controlv1.ProviderKind_PROVIDER_KIND_OPENAI_CHAT,
				BaseUrl: provider.URL, ModelId: "fake-gpt", SupportsTools: true},
			ApiKey: companyKey, Enabled: true,
		}, &created)
		modelID := created.GetModel().GetId()
		Expect(modelID).NotTo(BeEmpty())
		before, cpuBefore := s.memory(), s.cpu()

		var calls []providertest.Call
		for i := range 6 {
			calls = append(calls, providertest.Call{ID: fmt.Sprintf("c_bomb%d", i), Name: "WebFetch",
				Arguments: []string{fmt.Sprintf(`{"url":"http://bomb.example.test/%d"}`, i)}})
		}
		provider.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{ID: "bomb-1", Calls: calls})))
		provider.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{ID: "bomb-2", Text: providertest.Words("Read them.")})))
		ws := cursortest.NewWorkspace(GinkgoT().TempDir())
		ws.Answer = approveWeb
		c := cursortest.NewClient(cursorAPI, s.cursorClient(), "req-bomb-binary")
		c.OnMessage = ws.Handle
		st, err := c.Subscribe(ctx)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(st.Close)
		Expect(c.Send(ctx, cursortest.RunRequest("conv-bomb-binary", modelID, "Read these pages"))).To(Succeed())
		Eventually(func() []string {
			Expect(st.ReadError()).NotTo(HaveOccurred())
			return cursortest.Kinds(st.Content())
		}).WithContext(ctx).WithTimeout(3 * time.Minute).Should(ContainElement("turn_ended"))
		Expect(served).To(HaveLen(6), "every fetch read the page")
		Expect(provider.Requests()).To(HaveLen(2))
		Expect(string(provider.Requests()[1].Body)).To(ContainSubstring("Keygate stopped converting the page here"))

		after, cpuAfter := s.memory(), s.cpu()
		report := fmt.Sprintf("idle: %s; after 6 fetches of a 4 MiB bomb: %s; CPU for the turn %s; bound on VmHWM: %d MiB",
			before, after, (cpuAfter - cpuBefore).Round(time.Millisecond), fetchPeakBound>>20)
		AddReportEntry("keygate memory under Markdown bombs", report)
		fmt.Fprintln(GinkgoWriter, report)
		Expect(after.hwm).To(BeNumerically("<=", fetchPeakBound), report)
		// Not a timing: the conversion stops when its fetch's 30 s are up,
		// so six fetches, two at a time, can spend no more than three
		// deadlines of CPU on both cores.
		Expect(cpuAfter-cpuBefore).To(BeNumerically("<", 3*2*30*time.Second), report)
	}, SpecTimeout(5*time.Minute))
})

// adminCall invokes a control procedure as root on a `keygate serve`
// child, the way the authenticating proxy forwards an administrator's
// request, and expects 200.
func adminCall(base, procedure string, req, resp proto.Message) {
	GinkgoHelper()
	body, err := protojson.Marshal(req)
	Expect(err).NotTo(HaveOccurred())
	r, err := http.NewRequest(http.MethodPost, base+procedure, bytes.NewReader(body))
	Expect(err).NotTo(HaveOccurred())
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set(userHeader, root.id)
	r.Header.Set(groupsHeader, root.groups)
	res, err := http.DefaultClient.Do(r)
	Expect(err).NotTo(HaveOccurred())
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	Expect(err).NotTo(HaveOccurred())
	Expect(res.StatusCode).To(Equal(http.StatusOK), "%s: %s", procedure, raw)
	Expect(protojson.Unmarshal(raw, resp)).To(Succeed())
}

// cpu is the CPU time the process has used (user and system), from
// /proc/<pid>/stat, in clock ticks of 10 ms (USER_HZ is 100 on Linux).
func (s server) cpu() time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.session.Command.Process.Pid))
	Expect(err).NotTo(HaveOccurred())
	// The command name may hold spaces; the fields after it are fixed.
	fields := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
	utime, err := strconv.ParseInt(fields[11], 10, 64)
	Expect(err).NotTo(HaveOccurred())
	stime, err := strconv.ParseInt(fields[12], 10, 64)
	Expect(err).NotTo(HaveOccurred())
	return time.Duration(utime+stime) * 10 * time.Millisecond
}
