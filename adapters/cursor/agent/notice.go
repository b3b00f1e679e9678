package agent

import "context"

type noticeKey struct{}

// WithNotice returns ctx carrying line, shown to the user at the start of
// the turn served with it (a budget's warning): in a thinking block, as
// the run's retry statuses are, so that it reaches the chat and stays out
// of the turn's checkpoint and of every prompt the model is sent.
func WithNotice(ctx context.Context, line string) context.Context {
	return context.WithValue(ctx, noticeKey{}, line)
}

func noticeOf(ctx context.Context) string {
	s, _ := ctx.Value(noticeKey{}).(string)
	return s
}
