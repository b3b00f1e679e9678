package relstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"keygate/domain/llm"
	"keygate/domain/prefix"
	"keygate/ports"
)

// The kinds of a prompt row.
const (
	promptRequest = "request"
	promptShape   = "shape"
)

// PromptRow is one stored prompt: its kind, the encoded request or shape,
// and the call's start.
type PromptRow struct {
	Kind string
	Body []byte
	At   time.Time
}

// Prompts implements ports.PromptStore. A whole request is stored as its
// encoding/json form (as every earlier version stored them), a shape in
// the compact form of shapeJSON; the console reads either back whole and
// never queries into it.
type Prompts struct{ s *Store }

var _ ports.PromptStore = Prompts{}

// errPromptKind: a StoredPrompt must hold exactly one of its kinds.
var errPromptKind = errors.New("a stored prompt holds exactly one of a request and a shape")

// PutPrompt implements ports.PromptStore.
func (p Prompts) PutPrompt(ctx context.Context, callID string, sp ports.StoredPrompt) error {
	if sp.At.IsZero() {
		sp.At = p.s.now()
	}
	row, err := encodePrompt(sp)
	if err != nil {
		return fmt.Errorf("encode prompt of %q: %w", callID, err)
	}
	if err := p.s.engine.Write(ctx, func(tx Tx) error { return tx.PutPrompt(ctx, callID, row) }); err != nil {
		return fmt.Errorf("put prompt of %q: %w", callID, err)
	}
	return nil
}

// Prompt implements ports.PromptStore.
func (p Prompts) Prompt(ctx context.Context, callID string) (ports.StoredPrompt, error) {
	var row PromptRow
	err := p.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		row, err = tx.GetPrompt(ctx, callID)
		return err
	})
	if err != nil {
		return ports.StoredPrompt{}, fmt.Errorf("read prompt of %q: %w", callID, err)
	}
	sp, err := decodePrompt(row)
	if err != nil {
		return ports.StoredPrompt{}, fmt.Errorf("decode prompt of %q: %w", callID, err)
	}
	return sp, nil
}

// PurgePrompts implements ports.PromptPurger.
func (p Prompts) PurgePrompts(ctx context.Context, cutoff time.Time) (int, error) {
	var n int
	err := p.s.engine.Write(ctx, func(tx Tx) error {
		var err error
		n, err = tx.DeletePromptsBefore(ctx, cutoff)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("purge prompts before %s: %w", cutoff.Format(time.RFC3339), err)
	}
	return n, nil
}

// PromptBytes measures what the prompt of a call occupies: the logical
// bytes of its row's columns, as the engine stores them (PostgreSQL
// compresses large values). Benchmarks compare whole requests with shapes
// by it.
func (s *Store) PromptBytes(ctx context.Context, callID string) (int64, error) {
	var n int64
	err := s.engine.Read(ctx, func(tx Tx) error {
		var err error
		n, err = tx.PromptBytes(ctx, callID)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("measure prompt of %q: %w", callID, err)
	}
	return n, nil
}

func encodePrompt(sp ports.StoredPrompt) (PromptRow, error) {
	row := PromptRow{At: sp.At.UTC()}
	var err error
	switch {
	case (sp.Request == nil) == (sp.Shape == nil):
		return PromptRow{}, errPromptKind
	case sp.Request != nil:
		row.Kind = promptRequest
		row.Body, err = json.Marshal(sp.Request)
	default:
		row.Kind = promptShape
		row.Body, err = json.Marshal(shapeToJSON(*sp.Shape))
	}
	return row, err
}

func decodePrompt(row PromptRow) (ports.StoredPrompt, error) {
	sp := ports.StoredPrompt{At: row.At}
	switch row.Kind {
	case promptRequest:
		var req llm.Request
		if err := json.Unmarshal(row.Body, &req); err != nil {
			return sp, err
		}
		sp.Request = &req
	case promptShape:
		var sj shapeJSON
		if err := json.Unmarshal(row.Body, &sj); err != nil {
			return sp, err
		}
		shape, err := sj.shape()
		if err != nil {
			return sp, err
		}
		sp.Shape = &shape
	default:
		return sp, fmt.Errorf("unknown prompt kind %q", row.Kind)
	}
	return sp, nil
}

// shapeJSON is prefix.Shape as stored: short keys, and the digests of the
// tools and of each message as one byte string (base64 in JSON), which is
// about a third of the size of JSON number arrays.
type shapeJSON struct {
	Layout         int           `json:"v"`
	Model          string        `json:"m,omitempty"`
	Prompt         string        `json:"n,omitempty"`
	CacheKey       []byte        `json:"k"`
	Instructions   []byte        `json:"i"`
	Tools          []byte        `json:"t,omitempty"`
	PreambleTokens int64         `json:"p"`
	Messages       []messageJSON `json:"s,omitempty"`
}

type messageJSON struct {
	ID     string `json:"i,omitempty"`
	Role   uint8  `json:"r"`
	Bytes  int64  `json:"b"`
	Tokens int64  `json:"t"`
	Values []byte `json:"d"`
}

const digestSize = len(prefix.Digest{})

func shapeToJSON(s prefix.Shape) shapeJSON {
	out := shapeJSON{Layout: s.Layout, Model: s.Model, Prompt: s.Prompt, CacheKey: s.CacheKey[:], Instructions: s.Instructions[:],
		PreambleTokens: s.PreambleTokens, Messages: make([]messageJSON, len(s.Messages))}
	for _, t := range s.Tools {
		out.Tools = append(append(append(out.Tools, t.Name[:]...), t.Description[:]...), t.Parameters[:]...)
	}
	for i, m := range s.Messages {
		values := make([]byte, 0, digestSize*len(m.Values))
		for _, v := range m.Values {
			values = append(values, v[:]...)
		}
		out.Messages[i] = messageJSON{ID: m.ID, Role: uint8(m.Role), Bytes: m.Bytes, Tokens: m.Tokens, Values: values}
	}
	return out
}

var errShape = errors.New("malformed prompt shape")

func (sj shapeJSON) shape() (prefix.Shape, error) {
	digests := func(b []byte) ([]prefix.Digest, error) {
		if len(b)%digestSize != 0 {
			return nil, errShape
		}
		out := make([]prefix.Digest, len(b)/digestSize)
		for i := range out {
			copy(out[i][:], b[i*digestSize:])
		}
		return out, nil
	}
	s := prefix.Shape{Layout: sj.Layout, Model: sj.Model, Prompt: sj.Prompt, PreambleTokens: sj.PreambleTokens,
		Messages: make([]prefix.MessageShape, len(sj.Messages))}
	if len(sj.CacheKey) != digestSize || len(sj.Instructions) != digestSize || len(sj.Tools)%(3*digestSize) != 0 {
		return prefix.Shape{}, errShape
	}
	s.CacheKey, s.Instructions = prefix.Digest(sj.CacheKey), prefix.Digest(sj.Instructions)
	tools, err := digests(sj.Tools)
	if err != nil {
		return prefix.Shape{}, err
	}
	s.Tools = make([]prefix.ToolShape, 0, len(tools)/3)
	for i := 0; i < len(tools); i += 3 {
		s.Tools = append(s.Tools, prefix.ToolShape{Name: tools[i], Description: tools[i+1], Parameters: tools[i+2]})
	}
	for i, m := range sj.Messages {
		values, err := digests(m.Values)
		if err != nil {
			return prefix.Shape{}, err
		}
		s.Messages[i] = prefix.MessageShape{ID: m.ID, Role: llm.Role(m.Role), Bytes: m.Bytes, Tokens: m.Tokens, Values: values}
	}
	return s, nil
}
