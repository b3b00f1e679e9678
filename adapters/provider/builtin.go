package provider

import (
	"keygate/adapters/provider/anthropic"
	"keygate/adapters/provider/bedrock"
	"keygate/adapters/provider/fim"
	"keygate/adapters/provider/gemini"
	"keygate/adapters/provider/openai"
	"keygate/adapters/provider/vertex"
)

// builtin registers every protocol Keygate speaks, in the order the console
// offers them; the first is a new model's default. A new protocol is its
// own package exporting a protocol.Protocol, one more argument here, and its
// value in the control API's ProviderKind enum (proto/keygate/control/v1).
var builtin = mustRegistry(NewRegistry(
	openai.Chat(),
	openai.Responses(),
	anthropic.Messages(),
	gemini.API(),
	bedrock.Converse(),
	bedrock.Anthropic(),
	vertex.Anthropic(),
	vertex.Gemini(),
	fim.Completions(),
	fim.Mistral(),
))

// Builtin returns the registry of every protocol Keygate speaks.
func Builtin() *Registry { return builtin }

func mustRegistry(r *Registry, err error) *Registry {
	if err != nil {
		panic(err)
	}
	return r
}
