package provider

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"keygate/adapters/provider/protocol"
	"keygate/domain/llm"
	"keygate/ports"
)

// ErrUnknownKind means no registered protocol has the kind asked for.
var ErrUnknownKind = errors.New("unknown provider kind")

// Registry is a fixed set of protocols, each found by its kind. It is
// immutable, so safe for concurrent use. It is ports.ProviderProtocols for
// the application.
type Registry struct {
	list     []protocol.Protocol
	byKind   map[llm.ProviderKind]int
	kinds    string   // for error messages: "a, b and c"
	reserved []string // every protocol's Reserved, once each
}

var _ ports.ProviderProtocols = (*Registry)(nil)

// NewRegistry registers ps in the order given, which is the order the
// console offers them in. Every field of each protocol must be set and no
// kind may repeat.
func NewRegistry(ps ...protocol.Protocol) (*Registry, error) {
	if len(ps) == 0 {
		return nil, errors.New("register provider protocols: none given")
	}
	r := &Registry{list: append([]protocol.Protocol(nil), ps...), byKind: make(map[llm.ProviderKind]int, len(ps))}
	names := make([]string, len(ps))
	for i, p := range ps {
		if err := p.Check(); err != nil {
			return nil, fmt.Errorf("register provider protocols: %w", err)
		}
		if _, dup := r.byKind[p.Kind]; dup {
			return nil, fmt.Errorf("register provider protocols: kind %q registered twice", p.Kind)
		}
		r.byKind[p.Kind] = i
		names[i] = string(p.Kind)
		for _, f := range p.Reserved {
			if !slices.Contains(r.reserved, f) {
				r.reserved = append(r.reserved, f)
			}
		}
	}
	r.kinds = joinWords(names, "and")
	return r, nil
}

// Lookup returns the protocol of kind, or an error wrapping ErrUnknownKind
// that names the kinds Keygate speaks.
func (r *Registry) Lookup(kind llm.ProviderKind) (protocol.Protocol, error) {
	i, ok := r.byKind[kind]
	if !ok {
		return protocol.Protocol{}, fmt.Errorf("%w %q: Keygate speaks %s", ErrUnknownKind, kind, r.kinds)
	}
	return r.list[i], nil
}

// All returns every registered protocol in registration order.
func (r *Registry) All() []protocol.Protocol {
	return append([]protocol.Protocol(nil), r.list...)
}

// Reserved returns the body fields any registered protocol reserves. A
// model's extra parameters may replace none of them, whatever its protocol:
// switching a model to another protocol never turns a harmless extra
// parameter into a replacement of the conversation.
func (r *Registry) Reserved() []string { return slices.Clone(r.reserved) }

// Protocols implements ports.ProviderProtocols.
func (r *Registry) Protocols() []ports.ProviderProtocol {
	out := make([]ports.ProviderProtocol, len(r.list))
	for i, p := range r.list {
		out[i] = ports.ProviderProtocol{Kind: p.Kind, Name: p.Name, Title: p.Title, FillIn: p.FillIn}
		if c := p.Cloud; c != nil {
			pc := &ports.ProviderCloud{Sources: slices.Clone(c.Sources), KeyFormat: c.KeyFormat, BaseURL: c.BaseURL, Check: c.Check}
			for _, f := range c.Fields {
				pc.Fields = append(pc.Fields, string(f))
			}
			out[i].Cloud = pc
		}
	}
	return out
}

// joinWords joins words as "a, b and c" with the conjunction given.
func joinWords(words []string, conjunction string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " " + conjunction + " " + words[len(words)-1]
}
