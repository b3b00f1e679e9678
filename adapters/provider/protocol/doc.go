// Package protocol is the shape in which a provider wire protocol describes
// itself once: its stored kind and labels, how a request URL is derived from
// a configured base, its auth and API-version headers, its request writer,
// its stream decoder and how an endpoint's models are listed.
//
// Place in the hexagon: adapter support under adapters/provider. Each
// protocol package (adapters/provider/openai, adapters/provider/anthropic)
// exports its Protocol values; adapters/provider registers them in one
// Registry, which the provider client, model discovery and the control API
// read. A cloud protocol (Bedrock, Vertex AI) also declares its account
// settings (Cloud), signs or token-authorises each request (Sign, given
// Credentials) and may frame its responses otherwise than SSE (Frames).
// Imports: the standard library, domain/llm, ports,
// adapters/provider/compat, adapters/provider/sse and
// adapters/provider/wire; no protocol package, so that all of them can
// import it.
package protocol
