// Package gemini speaks Google's Gemini API: it turns an llm.Request into
// the body of POST {base}/v1beta/models/{model}:streamGenerateContent?alt=sse
// (AppendRequest) and the SSE stream of GenerateContentResponse chunks into
// llm.Events (Decoder), and lists an endpoint's models for discovery.
//
// Place in the hexagon: adapter (driven side). API describes the protocol
// once, as a protocol.Protocol registered in the parent package provider:
// URL rule, x-goog-api-key auth (the key is never put in the URL, where
// Google also accepts it), request writer, decoder and paginated model
// listing. HTTP, error classification of statuses (Google's error body
// {"error":{"code","message","status"}} gives its message through the
// shared failure classification), idle watchdog and call recording live
// in package provider.
//
// Three things differ from the sibling protocols. Function calls carry no
// ids: Keygate mints them when decoding and pairs results with calls by
// position and name when writing (AppendRequest). Thought signatures sit
// on the part they sign and must come back on that part byte for byte:
// the decoder keeps them in the turn's replay state, which only a protocol
// of this kind reads back. Tool parameters are an OpenAPI subset, so JSON
// Schema is rewritten into it (appendSchema names what is kept, rewritten
// and dropped).
//
// The wire types are hand-written on purpose, like the sibling protocol
// packages: the body is appended with package wire so the same request
// always gives the same bytes (Gemini's implicit cache matches on the
// prompt's prefix), and stream chunks decode with encoding/json into one
// small struct naming only the fields Keygate reads.
//
// Imports: the standard library, adapters/provider/compat,
// adapters/provider/failure, adapters/provider/protocol,
// adapters/provider/sse, adapters/provider/wire and domain/llm.
package gemini
