package agent

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"keygate/adapters/cursor/output"
	"keygate/adapters/cursor/tools"
	"keygate/app/run"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// streamEdit shows the content of a Write or StrReplace while the model
// still streams the call's arguments: the decoded text of the content
// argument goes out as tool_call_delta.edit_tool_call_delta as it grows,
// so the client's edit card fills before the call is dispatched.
func (d *dispatcher) streamEdit(ev run.Event) {
	switch e := ev.(type) {
	case run.ToolCallStart:
		if keys := tools.EditContentKeys(e.Name); len(keys) > 0 {
			d.edits[e.CallID] = newArgStream(keys)
		}
	case run.ToolCallArgsDelta:
		s := d.edits[e.CallID]
		if s == nil {
			return
		}
		if text := s.feed(e.Text); text != "" {
			d.wire.emit(output.ToolCallDelta(e.CallID, &agentv1.ToolCallDelta{Delta: &agentv1.ToolCallDelta_EditToolCallDelta{
				EditToolCallDelta: &agentv1.EditToolCallDelta{StreamContentDelta: text}}}, d.modelCall[e.CallID]))
		}
	case run.ToolCallFailed:
		delete(d.edits, e.CallID)
	}
}

// argStream follows a tool call's JSON arguments as they stream and
// yields the decoded text of one top-level string argument (the first of
// keys present) as it arrives. encoding/json cannot help here: its
// decoder reports an unfinished string as an error, never as a prefix,
// and no maintained library decodes JSON strings incrementally, so this
// is a small state machine over the top-level object; anything else in
// the arguments is skipped, nested values and strings included. Each
// byte is looked at once, whatever the number of deltas.
type argStream struct {
	keys []string
	st   argState
	// depth is the nesting of a skipped value; key collects a key's text.
	depth int
	key   []byte
	// target says the string being read is the content; done that it was
	// read whole.
	target, done bool
	// esc is an escape in progress: "\" or "\uXXX…"; high a UTF-16 high
	// surrogate waiting for its low half.
	esc  []byte
	high rune
	// pending is decoded text not yet yielded (an incomplete UTF-8
	// sequence at its end waits for the rest).
	pending []byte
}

type argState uint8

const (
	stBegin    argState = iota // before '{'
	stKey                      // expecting a key or '}'
	stKeyStr                   // in a key
	stColon                    // expecting ':'
	stValue                    // expecting a value
	stStr                      // in a string value
	stSkip                     // in a non-string value (or a nested one)
	stSkipStr                  // in a string inside a skipped value
	stSkipEsc                  // after '\' inside a skipped string
	stAfter                    // expecting ',' or '}'
	stFinished                 // the object ended
)

func newArgStream(keys []string) *argStream { return &argStream{keys: keys} }

// feed consumes the next argument text and returns the content decoded
// from it ("" when none).
func (s *argStream) feed(text string) string {
	for i := 0; i < len(text) && !s.done; i++ {
		s.step(text[i])
	}
	return s.yield()
}

func (s *argStream) step(b byte) {
	switch s.st {
	case stBegin:
		if b == '{' {
			s.st = stKey
		}
	case stKey:
		switch b {
		case '"':
			s.st, s.key = stKeyStr, s.key[:0]
		case '}':
			s.st = stFinished
		}
	case stKeyStr:
		// Keys are compared as written: the argument names have no escapes.
		if b == '"' && !(len(s.key) > 0 && s.key[len(s.key)-1] == '\\') {
			s.st = stColon
			return
		}
		s.key = append(s.key, b)
	case stColon:
		if b == ':' {
			s.st = stValue
		}
	case stValue:
		switch b {
		case '"':
			s.st, s.target = stStr, s.wanted(string(s.key))
		case '{', '[':
			s.st, s.depth = stSkip, 1
		case ' ', '\t', '\n', '\r':
		default:
			s.st, s.depth = stSkip, 0
		}
	case stStr:
		s.char(b)
	case stSkip:
		switch {
		case b == '"':
			s.st = stSkipStr
		case b == '{' || b == '[':
			s.depth++
		case (b == '}' || b == ']') && s.depth > 0:
			s.depth--
			if s.depth == 0 {
				s.st = stAfter
			}
		case s.depth == 0 && b == ',':
			s.st = stKey
		case s.depth == 0 && b == '}':
			s.st = stFinished
		}
	case stSkipStr:
		switch b {
		case '\\':
			s.st = stSkipEsc
		case '"':
			s.st = stSkip
			if s.depth == 0 {
				s.st = stAfter
			}
		}
	case stSkipEsc:
		s.st = stSkipStr
	case stAfter:
		switch b {
		case ',':
			s.st = stKey
		case '}':
			s.st = stFinished
		}
	}
}

// wanted reports whether key is the content argument, the first of keys
// the object names.
func (s *argStream) wanted(key string) bool {
	for _, k := range s.keys {
		if k == key {
			return true
		}
	}
	return false
}

// char consumes one byte of a string value, decoding escapes, and keeps
// the target's text.
func (s *argStream) char(b byte) {
	if len(s.esc) > 0 {
		s.escape(b)
		return
	}
	switch b {
	case '\\':
		s.esc = append(s.esc, b)
	case '"':
		s.flushHigh()
		s.st = stAfter
		if s.target {
			s.target, s.done = false, true
		}
	default:
		s.flushHigh()
		s.emit(b)
	}
}

func (s *argStream) escape(b byte) {
	s.esc = append(s.esc, b)
	if len(s.esc) == 2 && b != 'u' {
		s.esc = s.esc[:0]
		s.flushHigh()
		switch b {
		case 'n':
			s.emit('\n')
		case 't':
			s.emit('\t')
		case 'r':
			s.emit('\r')
		case 'b':
			s.emit('\b')
		case 'f':
			s.emit('\f')
		default: // '"', '\\', '/' and anything a lenient model sends
			s.emit(b)
		}
		return
	}
	if len(s.esc) < 6 {
		return
	}
	n, err := strconv.ParseUint(string(s.esc[2:]), 16, 16)
	s.esc = s.esc[:0]
	r := rune(n)
	switch {
	case err != nil:
		s.flushHigh()
		s.emitRune(utf8.RuneError)
	case utf16.IsSurrogate(r) && r < 0xdc00:
		s.flushHigh()
		s.high = r
	case utf16.IsSurrogate(r) && s.high != 0:
		s.emitRune(utf16.DecodeRune(s.high, r))
		s.high = 0
	default:
		s.flushHigh()
		s.emitRune(r)
	}
}

// flushHigh emits a high surrogate that no low half followed.
func (s *argStream) flushHigh() {
	if s.high != 0 {
		s.high = 0
		s.emitRune(utf8.RuneError)
	}
}

func (s *argStream) emit(b byte) {
	if s.target {
		s.pending = append(s.pending, b)
	}
}

func (s *argStream) emitRune(r rune) {
	if s.target {
		s.pending = utf8.AppendRune(s.pending, r)
	}
}

// yield returns the pending text up to its last complete UTF-8 sequence.
func (s *argStream) yield() string {
	n := len(s.pending)
	for cut := n - 1; cut >= 0 && cut >= n-utf8.UTFMax; cut-- {
		if utf8.RuneStart(s.pending[cut]) {
			if !utf8.FullRune(s.pending[cut:]) && !s.done {
				n = cut
			}
			break
		}
	}
	out := string(s.pending[:n])
	s.pending = append(s.pending[:0], s.pending[n:]...)
	return out
}
