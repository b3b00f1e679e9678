// Package projection turns a checkpoint's stored messages into the
// provider-independent model request (llm.Request). Projection is a pure
// function of the checkpoint and the turn's prompt and model settings: no
// request ids, times or provider call ids enter the model input, so the same
// checkpoint always projects to the same request and provider prompt caches
// keep hitting.
//
// Place in the hexagon: domain. Imports: the standard library and domain. It
// does no I/O and carries no struct tags. Hydrating tool-result images from
// the blob store happens after projection, in the application, on the
// provider view only.
package projection
