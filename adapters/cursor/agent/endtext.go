package agent

import (
	"strings"

	"keygate/adapters/cursor/transport"
	"keygate/app/run"
)

// This file holds the texts a turn ends with when its run did not
// complete: the client shows them in its error bubble, so they are
// sentences, without the internal prefixes of wrapped errors.

// userCancel is the cancel reason of a CancelAction; the client's own
// reason, when it gives one, follows after a colon.
const userCancel = "cancelled by the user"

// cancelReason is the reason a CancelAction cancels the run with.
func cancelReason(clientReason string) string {
	if r := strings.TrimSpace(clientReason); r != "" {
		return userCancel + ": " + r
	}
	return userCancel
}

// byUser reports whether a run was cancelled by the user's CancelAction
// (rather than superseded, preempted, orphaned or shut down).
func byUser(reason string) bool {
	return reason == userCancel || strings.HasPrefix(reason, userCancel+": ")
}

// cancelText is the end-of-stream text of a cancelled run.
func cancelText(reason string) string {
	switch {
	case reason == run.ReasonPreempted:
		return "The run was cancelled: a newer request took over this conversation."
	case reason == run.ReasonShutdown:
		return "The run was cancelled: Keygate is shutting down."
	case reason == transport.ErrSuperseded.Error():
		return "The run was cancelled: a newer request from the client replaced it."
	case reason == transport.ErrOrphaned.Error():
		return "The run was cancelled: the client's stream was gone for too long."
	case reason == userCancel:
		return "The run was cancelled by the user."
	case strings.HasPrefix(reason, userCancel+": "):
		return "The run was cancelled by the user (" + strings.TrimPrefix(reason, userCancel+": ") + ")."
	case strings.TrimSpace(reason) == "":
		return "The run was cancelled."
	}
	return "The run was cancelled: " + strings.TrimSuffix(strings.TrimSpace(reason), ".") + "."
}
