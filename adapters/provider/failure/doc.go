// Package failure classifies provider failures into llm.ProviderError: HTTP
// statuses with their rate-limit headers, in-band error events, context
// overflow messages, broken streams and requests Keygate's outbound policy
// (adapters/egress) refused.
//
// Place in the hexagon: adapter support shared by the provider adapters. The
// classes themselves are domain vocabulary (llm.ErrorClass); which vendor
// codes and headers map to them is wire knowledge and so lives here.
package failure
