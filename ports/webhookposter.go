package ports

import "context"

// WebhookPoster delivers alerts to a chat webhook (Slack's incoming
// webhooks and the services that accept their JSON): it posts body, a
// JSON object such as {"text": "..."}, to url through the outbound policy,
// bounded in time, retrying a failed delivery a few times. An error means
// the alert was not delivered; its message never contains url, which
// carries the webhook's token.
type WebhookPoster interface {
	PostWebhook(ctx context.Context, url string, body []byte) error
}
