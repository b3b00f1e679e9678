// Package webhook implements ports.WebhookPoster: one JSON POST per
// attempt through the HTTP client the composition root hands it (the
// outbound policy's), each attempt bounded in time and in the answer's
// bytes read, a failed one (a network error, a 429 or a 5xx) retried after
// a short backoff. Errors name the webhook's host only, never its URL,
// whose path is the webhook's token.
//
// Place in the hexagon: an outbound adapter implementing a port; budget
// alerts (app/company) use it. Imports: the standard library and ports.
package webhook
