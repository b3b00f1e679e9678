package control

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"keygate/domain/callrecord"
	"keygate/domain/llm"
	"keygate/ports"
)

// testPrompt asks for a long, predictable answer, so that both the time to
// the first token and the streaming speed are measurable.
const testPrompt = "Output the numbers 1 through 120 separated by a single space. No commas, no newlines, no explanation."

// defaultTestOutput caps the answer of a test when the model sets no limit.
const defaultTestOutput = 4096

// A fill-in-the-middle model is tested with a tiny gap to fill: a chat
// prompt means nothing to it (its protocol refuses one), and the answer,
// "a + b", is a few tokens.
const (
	testPrefix    = "def add(a, b):\n    return "
	testSuffix    = "\n"
	testFillInOut = 32
)

// TestPhase is how far a connection test got.
type TestPhase uint8

// Test phases, in order.
const (
	TestConnecting TestPhase = iota + 1
	TestStreaming
	TestDone
)

// TestProgress is reported while a test runs.
type TestProgress struct {
	Phase         TestPhase
	ReceivedChars int
}

// TestResult is the outcome of a connection test. A failed test is a result
// with OK false and Error saying what to check, not an error.
type TestResult struct {
	OK              bool
	Error           string
	CallID          string
	TimeToFirstText time.Duration
	Duration        time.Duration
	OutputTokens    int64
	TokensEstimated bool
	TokensPerSecond float64
	Text            string
}

var testSeq atomic.Uint64

// TesterOptions are the dependencies of [Tester].
type TesterOptions struct {
	// Endpoints resolves the model tested, its stored key opened.
	Endpoints *Endpoints
	// Provider makes the call; its call records appear in Calls.
	Provider ports.ModelProvider
	// Protocols say which kinds are fill-in-the-middle, whose models are
	// asked to fill a gap instead of answering a prompt; nil: none.
	Protocols ports.ProviderProtocols
	// Audit records each test's use of a stored key before the key is
	// sent; a failure to record refuses the test. nil records nothing.
	Audit UseAuditor
	// Now is the clock of the measurements; nil uses time.Now.
	Now func() time.Time
	// Timeout bounds a test; 0 means 45 seconds.
	Timeout time.Duration
}

// Tester runs connection tests: one short fixed prompt to a model through
// the provider client, measured. It is safe for concurrent use.
type Tester struct {
	o   TesterOptions
	now func() time.Time
}

// NewTester returns the connection test.
func NewTester(o TesterOptions) *Tester {
	if o.Timeout == 0 {
		o.Timeout = 45 * time.Second
	}
	return &Tester{o: o, now: orNow(o.Now)}
}

// Test sends a short fixed prompt to a model (to a fill-in-the-middle
// model, a short gap to fill) and measures time to first text and
// streaming speed. progress, if non-nil, is called from the
// calling goroutine. The provider records the call like any other.
func (t *Tester) Test(ctx context.Context, id string, progress func(TestProgress)) (TestResult, error) {
	if progress == nil {
		progress = func(TestProgress) {}
	}
	ep, cfg, err := t.o.Endpoints.Endpoint(ctx, id)
	if err != nil {
		return TestResult{}, err
	}
	if err := auditKeyUse(ctx, t.o.Audit, "model.test", id, ep.URL, ep.APIKey); err != nil {
		return TestResult{}, err
	}
	secrets := []string{ep.APIKey}
	for _, v := range ep.Headers {
		secrets = append(secrets, v)
	}
	ctx, cancel := context.WithTimeout(ctx, t.o.Timeout)
	defer cancel()
	maxOut := cfg.MaxOutputTokens
	if maxOut == 0 {
		maxOut = defaultTestOutput
	}
	res := TestResult{CallID: fmt.Sprintf("test-%s-%d-%d", id, t.now().UnixMilli(), testSeq.Add(1))}
	fim := fillIn(t.o.Protocols, ep.Kind)
	call := ports.ModelCall{CallID: res.CallID, RunID: "test", Kind: callrecord.KindTest, Endpoint: ep, Request: testRequest(cfg, maxOut, fim)}
	progress(TestProgress{Phase: TestConnecting})
	start := t.now()
	stream, err := t.o.Provider.Stream(ctx, call)
	if err != nil {
		res.Error = advice(err, secrets)
		return res, nil
	}
	defer stream.Close()
	progress(TestProgress{Phase: TestStreaming})
	var text strings.Builder
	var usage *llm.Usage
	for stream.Next() {
		ev := stream.Event()
		switch ev.Kind {
		case llm.EventTextDelta:
			if res.TimeToFirstText == 0 && strings.TrimSpace(ev.Text) != "" {
				res.TimeToFirstText = t.now().Sub(start)
			}
			text.WriteString(ev.Text)
			progress(TestProgress{Phase: TestStreaming, ReceivedChars: text.Len()})
		case llm.EventUsage:
			usage = ev.Usage
		}
	}
	res.Duration = t.now().Sub(start)
	res.Text = text.String()
	if err := stream.Err(); err != nil {
		res.Error = advice(err, secrets)
		return res, nil
	}
	if strings.TrimSpace(res.Text) == "" {
		res.Error = "the model answered without any text; check that the model id is a chat model"
		if fim {
			res.Error = "the model filled the gap with nothing; check that the model id is a code model that supports fill-in-the-middle (a suffix)"
		}
		progress(TestProgress{Phase: TestDone, ReceivedChars: text.Len()})
		return res, nil
	}
	res.OK = true
	if usage != nil && usage.Has(llm.UsageOutput) {
		res.OutputTokens = usage.Output
	} else {
		res.OutputTokens, res.TokensEstimated = int64(len(strings.Fields(res.Text))), true
	}
	if res.Duration > 0 {
		res.TokensPerSecond = float64(res.OutputTokens) / res.Duration.Seconds()
	}
	progress(TestProgress{Phase: TestDone, ReceivedChars: text.Len()})
	return res, nil
}

// testRequest is the request of a test: the fixed prompt, or for a
// fill-in-the-middle model the fixed gap, deterministic (temperature 0).
func testRequest(cfg ports.ModelConfig, maxOut int64, fim bool) llm.Request {
	if !fim {
		return llm.Request{Model: cfg.ModelID, MaxOutputTokens: int(maxOut),
			Messages: []llm.Message{{ID: "test", Role: llm.RoleUser, Parts: []llm.Part{{Kind: llm.PartText, Text: testPrompt}}}}}
	}
	zero := 0.0
	return llm.Request{Model: cfg.ModelID, MaxOutputTokens: int(min(maxOut, testFillInOut)),
		FillIn: &llm.FillIn{Prefix: testPrefix, Suffix: testSuffix, Temperature: &zero}}
}

// advice turns a provider failure into what to check. The provider's own
// words are only a short, sanitised reason (llm.ProviderError.Brief): an
// upstream body is never shown verbatim, since the endpoint may echo what
// it was sent. A destination the outbound policy refused says itself what
// an administrator may allow.
func advice(err error, secrets []string) string {
	var perr *llm.ProviderError
	if errors.As(err, &perr) && errors.Is(err, ports.ErrDestinationRefused) {
		return perr.Message
	}
	if !errors.As(err, &perr) {
		if errors.Is(err, context.DeadlineExceeded) {
			return "no answer within the test timeout; check the base URL and that the endpoint is reachable from Keygate"
		}
		return llm.BriefText(err.Error(), secrets...)
	}
	hint := map[llm.ErrorClass]string{
		llm.ErrorAuthorization: "the provider rejected the API key; paste a valid key",
		llm.ErrorRateLimit:     "the provider is rate limiting this key; wait or raise the quota",
		llm.ErrorBadRequest:    "the provider rejected the request; check the model id and the protocol",
		llm.ErrorTransient:     "the provider could not be reached or failed; check the base URL and try again",
		llm.ErrorProtocol:      "the answer was not in the expected format; check the protocol and whether the URL is the full endpoint",
	}[perr.Class]
	if hint == "" {
		return perr.Brief(secrets...)
	}
	return hint + " (" + perr.Brief(secrets...) + ")"
}
