// Package picker is the model picker's parameters for Keygate's models:
// which parameters a model advertises in AvailableModels (reasoning effort
// levels, the fast tier, the context size; aiserver.v1
// ModelParameterDefinition and ModelVariantConfig), and what the values
// the client sends back in the run request (agent.v1
// RequestedModel.parameters, max_mode) mean for the provider request and
// for automatic compaction.
//
// What a model offers comes from its configuration and, for well-known
// families, domain/modelfamily: the effort levels the vendor's API accepts
// (an administrator's configured effort is the default, else the provider's
// own default), the fast tier only on the vendor's own API (OpenAI's
// priority processing, Anthropic's fast mode; the protocol names its vendor
// and that API's host, protocol.Protocol.Vendor and VendorHost), and a
// larger context window where the family has one. The parameter ids are
// Keygate's own: the client echoes back the ids the server advertised.
//
// Place in the hexagon: part of the Cursor inbound adapter, shared by
// unary (advertising) and compile (reading the choice).
package picker
