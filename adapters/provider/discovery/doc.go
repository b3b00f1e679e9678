// Package discovery lists the models an endpoint offers, for the console's
// "discover models" action: GET /models on OpenAI-compatible endpoints (bearer
// token, or api-key on Azure) and on Anthropic (x-api-key, paginated).
//
// Place in the hexagon: adapter (driven side), beside the streaming adapters
// it shares failure classification with. Which URL to ask is derived from the
// configured base the way users paste it: a full request URL, a versioned
// base or a bare host.
package discovery
