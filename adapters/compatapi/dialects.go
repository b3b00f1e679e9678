package compatapi

import (
	"net/http"

	"keygate/adapters/provider/anthropic"
	"keygate/adapters/provider/openai"
)

type anthropicDialect struct{}

func (anthropicDialect) writeError(w http.ResponseWriter, status int, kind errKind, msg string) {
	typ := map[errKind]string{errAuth: "authentication_error", errPermission: "permission_error",
		errNotFound: "not_found_error", errInvalid: "invalid_request_error", errRateLimit: "rate_limit_error",
		errOverloaded: "overloaded_error", errServer: "api_error"}[kind]
	writeJSON(w, status, anthropic.AppendError(nil, typ, msg))
}

type chatDialect struct{}

func (chatDialect) writeError(w http.ResponseWriter, status int, kind errKind, msg string) {
	typ, code := openAIError(kind)
	writeJSON(w, status, openai.AppendError(nil, typ, code, msg))
}

type responsesDialect struct{ chatDialect }

// openAIError names a refusal the way OpenAI's API does.
func openAIError(kind errKind) (typ, code string) {
	switch kind {
	case errAuth:
		return "invalid_request_error", "invalid_api_key"
	case errPermission:
		return "permission_error", "forbidden"
	case errNotFound:
		return "invalid_request_error", "model_not_found"
	case errInvalid:
		return "invalid_request_error", ""
	case errRateLimit:
		return "rate_limit_error", "rate_limit_exceeded"
	case errOverloaded:
		return "server_error", "overloaded"
	default:
		return "server_error", ""
	}
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
