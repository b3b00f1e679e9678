// Package prefix checks the rule every adapter and use case must keep:
// each model request of a conversation extends the previous one, so the
// provider's prompt cache covers everything already sent. [IsStablePrefix]
// compares two consecutive requests and reports where and why the newer one
// diverges; the call records use it to flag cache breaks. [ShapeOf] reduces
// a request to digests, roles and sizes, and [CompareShapes] reports on two
// shapes what IsStablePrefix reports on the requests, so the console can
// locate a cache break without keeping what was said.
//
// Place in the hexagon: domain. Imports: the standard library and domain. It
// does no I/O and carries no struct tags. The comparison is hand-written
// rather than a generic deep-equal so the report can name the first
// differing field, and so ids, which never reach a provider, are ignored.
package prefix
