// Package llm is the provider-independent vocabulary of a model call: the
// request Keygate sends ([Request]), the events a provider stream yields
// ([Event]), token accounting ([Usage]) and the classes of provider failure
// ([ProviderError]).
//
// Place in the hexagon: domain. Imports: the standard library. It does no
// I/O and carries no struct tags. Provider adapters translate these values
// to and from each provider's wire format; the run engine consumes them.
package llm
