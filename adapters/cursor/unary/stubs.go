package unary

import (
	"net/http"
	"strings"
)

// Stubs are the routes answered locally with a fixed status so that they
// never leave the machine: a 404 on /agent/v1/run makes the client fall
// back to RunSSE, a 400 on the cloud-agent calls makes it use local
// stores, and neither hangs on an unreachable cloud (docs/cursor-protocol.md,
// "Local stubs").
var Stubs = map[string]int{
	"/agent/v1/run": http.StatusNotFound,
	"/aiserver.v1.BackgroundComposerService/MintAgentStoreToken":     http.StatusBadRequest,
	"/aiserver.v1.BackgroundComposerService/ListPrivateWorkers":      http.StatusBadRequest,
	"/aiserver.v1.BackgroundComposerService/ListEnvironments":        http.StatusBadRequest,
	"/aiserver.v1.BackgroundComposerService/ListBackgroundComposers": http.StatusBadRequest,
	"/aiserver.v1.FileSyncService/FSSyncFile":                        http.StatusNotFound,
	"/ws-reachability-probe":                                         http.StatusNotFound,
}

// Stub answers every request with status and an empty body; RPC paths also
// get Content-Type application/grpc, as the client saw them.
func Stub(status int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/aiserver.v1.") || strings.HasPrefix(r.URL.Path, "/agent.v1.") {
			w.Header().Set("Content-Type", "application/grpc")
		}
		w.Header().Set("Content-Length", "0")
		w.WriteHeader(status)
	})
}
