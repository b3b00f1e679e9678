package secretguard

import (
	"context"
	"encoding/json"

	"keygate/domain/llm"
	"keygate/domain/secretscan"
	"keygate/ports"
)

// Report is told about the secrets of one call: action is "redact" or
// "block", findings are those scanned fresh for this call in redact mode
// (a text redacted on an earlier call of the conversation is not reported
// again) and all of them in block mode (every refusal is an event). It
// must not block long: the call waits for it.
type Report func(ctx context.Context, call ports.ModelCall, action secretscan.Mode, findings []secretscan.Finding)

// Guard scans each call's request before passing it on (see the package
// doc). Mode Off passes calls untouched and scans nothing.
type Guard struct {
	next   ports.ModelProvider
	scan   *Scanner
	mode   secretscan.Mode
	report Report
}

var _ ports.ModelProvider = (*Guard)(nil)

// New wraps next; report may be nil.
func New(next ports.ModelProvider, scan *Scanner, mode secretscan.Mode, report Report) *Guard {
	if report == nil {
		report = func(context.Context, ports.ModelCall, secretscan.Mode, []secretscan.Finding) {}
	}
	return &Guard{next: next, scan: scan, mode: mode, report: report}
}

// Mode is the mode in force.
func (g *Guard) Mode() secretscan.Mode { return g.mode }

// Stream redacts or refuses call before next sees it. A refusal is a
// *secretscan.BlockedError naming the kinds of secret found.
func (g *Guard) Stream(ctx context.Context, call ports.ModelCall) (ports.ModelStream, error) {
	if g.mode == secretscan.Off || g.scan == nil {
		return g.next.Stream(ctx, call)
	}
	red := g.Redact(call.Request)
	if len(red.All) == 0 {
		return g.next.Stream(ctx, call)
	}
	if g.mode == secretscan.Block || red.Broken {
		g.report(ctx, call, secretscan.Block, red.All)
		return nil, &secretscan.BlockedError{Rules: secretscan.Rules(red.All)}
	}
	if len(red.Fresh) > 0 {
		g.report(ctx, call, secretscan.Redact, red.Fresh)
	}
	call.Request = red.Request
	return g.next.Stream(ctx, call)
}

// Redaction is a request with its secrets replaced.
type Redaction struct {
	Request llm.Request
	// All are the distinct findings of the whole request, Fresh those
	// scanned now (not answered by the cache).
	All, Fresh []secretscan.Finding
	// Broken means a redaction left a JSON value (tool-call arguments, a
	// native body) invalid: the request cannot be sent redacted.
	Broken bool
}

// Redact scans every text of req a provider receives: instructions,
// message text, tool results, assistant text and tool-call arguments, a
// fill-in prompt, and a caller's native body. The request is copied where
// it changes, never modified in place (a caller may still hold it).
// Thinking and replay state are not scanned: they are the model's own
// output, signed by some providers, and changing them would make the
// provider refuse the request.
func (g *Guard) Redact(req llm.Request) Redaction {
	var r Redaction
	text := func(s string) string {
		out, found, fresh := g.scan.Redact(s)
		r.All = append(r.All, found...)
		if fresh {
			r.Fresh = append(r.Fresh, found...)
		}
		return out
	}
	jsonBytes := func(b []byte) []byte {
		if len(b) == 0 {
			return b
		}
		out := text(string(b))
		if out == string(b) {
			return b
		}
		if !json.Valid([]byte(out)) {
			r.Broken = true
		}
		return []byte(out)
	}
	req.Instructions = text(req.Instructions)
	if req.FillIn != nil {
		fi := *req.FillIn
		fi.Prefix, fi.Suffix = text(fi.Prefix), text(fi.Suffix)
		if fi.Prefix != req.FillIn.Prefix || fi.Suffix != req.FillIn.Suffix {
			req.FillIn = &fi
		}
	}
	if req.Native != nil {
		if body := g.native(req.Native.Body, text, &r); string(body) != string(req.Native.Body) {
			n := *req.Native
			n.Body = body
			req.Native = &n
		}
	}
	var msgs []llm.Message
	for i, m := range req.Messages {
		nm, changed := g.message(m, text, jsonBytes)
		if !changed {
			continue
		}
		if msgs == nil {
			msgs = append([]llm.Message(nil), req.Messages...)
		}
		msgs[i] = nm
	}
	if msgs != nil {
		req.Messages = msgs
	}
	r.Request = req
	// One secret in two texts (a native body and the message translated
	// from it) is one finding.
	r.All, r.Fresh = secretscan.Distinct(r.All), secretscan.Distinct(r.Fresh)
	return r
}

func (g *Guard) message(m llm.Message, text func(string) string, jsonBytes func([]byte) []byte) (llm.Message, bool) {
	changed := false
	var parts []llm.Part
	for i, p := range m.Parts {
		if p.Kind != llm.PartText {
			continue
		}
		if t := text(p.Text); t != p.Text {
			if parts == nil {
				parts = append([]llm.Part(nil), m.Parts...)
			}
			parts[i].Text = t
		}
	}
	if parts != nil {
		m.Parts, changed = parts, true
	}
	if a := m.Assistant; a != nil {
		na := *a
		na.Text = text(a.Text)
		var calls []llm.ToolCall
		for i, c := range a.Calls {
			args := jsonBytes(c.Arguments)
			if string(args) == string(c.Arguments) {
				continue
			}
			if calls == nil {
				calls = append([]llm.ToolCall(nil), a.Calls...)
			}
			calls[i].Arguments = args
		}
		if calls != nil {
			na.Calls = calls
		}
		if na.Text != a.Text || calls != nil {
			m.Assistant, changed = &na, true
		}
	}
	if tr := m.ToolResult; tr != nil {
		if c := text(tr.Content); c != tr.Content {
			ntr := *tr
			ntr.Content = c
			m.ToolResult, changed = &ntr, true
		}
	}
	return m, changed
}

// native redacts a caller's own JSON body string by string: a coding
// agent sends its whole history again on every request, and each string
// of it (a message, a tool result) is then answered from the cache, so a
// request costs the scan of what is new in it rather than of the whole
// body. Strings are scanned as they appear in the body, escapes and all:
// a marker is JSON-safe, and a secret cannot span two strings. A body
// whose strings cannot be walked (not JSON) is scanned whole.
func (g *Guard) native(b []byte, text func(string) string, r *Redaction) []byte {
	var out []byte
	last := 0
	for i := 0; i < len(b); i++ {
		if b[i] != '"' {
			continue
		}
		j := i + 1
		for j < len(b) && b[j] != '"' {
			if b[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(b) {
			return g.whole(b, text, r)
		}
		lit := string(b[i+1 : j])
		if red := text(lit); red != lit {
			out = append(append(out, b[last:i+1]...), red...)
			last = j
		}
		i = j
	}
	if out == nil {
		return b
	}
	out = append(out, b[last:]...)
	if !json.Valid(out) {
		r.Broken = true
	}
	return out
}

// whole redacts b as one text.
func (g *Guard) whole(b []byte, text func(string) string, r *Redaction) []byte {
	out := text(string(b))
	if out == string(b) {
		return b
	}
	if !json.Valid([]byte(out)) {
		r.Broken = true
	}
	return []byte(out)
}
