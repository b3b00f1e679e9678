// Package unary answers the unary Cursor RPCs the client needs before and
// around a run: GetServerConfig (both paths), IsConnected, the model lists
// and defaults (AvailableModels, GetUsableModels, GetDefaultModel*,
// GetDefaultModelNudgeData), UpdateConversationMetadata, and the local stubs
// that keep cloud-only probes from leaving the machine.
//
// Place in the hexagon: part of the Cursor inbound adapter. It speaks the
// generated aiserver.v1/agent.v1 types and reaches the rest of Keygate only
// through small interfaces declared here: Catalog (Keygate's models, with
// Configured building it from a ModelSource of model configurations) and
// Upstream (Cursor's own answer, for the routes that merge both).
package unary
