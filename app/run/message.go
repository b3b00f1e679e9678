package run

import (
	"errors"
	"strconv"
	"strings"

	"keygate/domain/llm"
	"keygate/domain/modelcycle"
)

// The texts below are a failed run's Failure.Message: what the user reads
// in the client's error bubble. They say what happened and what helps, in
// sentences; the technical cause stays in Failure.Err for the logs. Text
// that came from a provider goes through llm.BriefText (bounded, no
// credentials).

// filterMessage is the text of a content filter's block: of the answer (a
// stream that finished with a content-filter finish) or of the prompt.
func filterMessage(err error) string {
	what, hits := "the answer", []llm.FilterHit(nil)
	var fe *modelcycle.FilteredError
	if errors.As(err, &fe) {
		hits = fe.Hits
	} else {
		what = "the request"
	}
	msg := "The model provider's content filter blocked " + what
	if len(hits) > 0 {
		msg += " (" + llm.BriefText(llm.DescribeFilter(hits)) + ")"
	}
	return msg + ". Rephrase the request, or ask your administrator about the provider's filter settings."
}

// providerMessage is the text of a model call that failed for good (after
// its retries, or at once when no retry can help). tried is the sentence
// about the retries made (retryStatus.tried), set between what failed and
// what helps; secrets are redacted from the provider's text.
func providerMessage(err error, tried string, secrets ...string) string {
	say := func(what, help string) string {
		if help == "" {
			return what + tried
		}
		return what + tried + " " + help
	}
	switch {
	case errors.Is(err, modelcycle.ErrTruncated):
		return say("The model stopped before completing the response: it reached its output limit.", "Ask it to continue, or raise the model's output limit.")
	case errors.Is(err, modelcycle.ErrEOFBeforeDone):
		return say("The model provider's stream ended before the answer was complete.", "Try again.")
	case errors.Is(err, modelcycle.ErrGrammar):
		return say("The model provider's answer could not be read ("+llm.BriefText(err.Error(), secrets...)+").", "Try again.")
	}
	var pe *llm.ProviderError
	if !errors.As(err, &pe) {
		return say("The model call failed ("+llm.BriefText(err.Error(), secrets...)+").", "Try again.")
	}
	detail := " (" + briefOf(pe, secrets...) + ")."
	switch pe.Class {
	case llm.ErrorRateLimit:
		return say("The model provider is rate limiting this model's key"+detail, "Wait a moment and try again.")
	case llm.ErrorAuthorization:
		return say("The model provider refused this model's API key"+detail, "Ask your administrator to check the key.")
	case llm.ErrorBadRequest:
		return say("The model provider rejected the request"+detail, "Check the model's configuration.")
	case llm.ErrorContextOverflow:
		return say("The conversation does not fit the model's context window, even after summarising"+detail, "Start a new chat.")
	case llm.ErrorRefusal:
		return say("The model refused to continue"+detail, "")
	case llm.ErrorProtocol:
		return say("The model provider's answer could not be read"+detail, "Try again.")
	}
	return say("The model provider failed"+detail, "Try again.")
}

// briefOf is the provider's error for the user: its message without
// credentials, the HTTP status once (provider messages already name it).
func briefOf(pe *llm.ProviderError, secrets ...string) string {
	b := pe.Brief(secrets...)
	if pe.Status == 0 {
		return b
	}
	status := strconv.Itoa(pe.Status)
	if rest := strings.TrimPrefix(b, "HTTP "+status+": "); strings.Contains(rest, status) {
		return rest
	}
	return b
}
