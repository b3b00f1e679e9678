package cursorproxy

import (
	"net/http"
	"strings"
)

// DefaultStubs are the paths answered locally with a fixed status so that
// they never leave the machine (cursor-protocol.md §2.2, pitfall P16): a
// 404 on /agent/v1/run makes the client fall back to RunSSE, a 400 on the
// cloud-agent calls makes it use local stores, and neither hangs for a
// minute on a cloud it cannot use.
var DefaultStubs = map[string]int{
	"/agent/v1/run": http.StatusNotFound,
	"/aiserver.v1.BackgroundComposerService/MintAgentStoreToken":     http.StatusBadRequest,
	"/aiserver.v1.BackgroundComposerService/ListPrivateWorkers":      http.StatusBadRequest,
	"/aiserver.v1.BackgroundComposerService/ListEnvironments":        http.StatusBadRequest,
	"/aiserver.v1.BackgroundComposerService/ListBackgroundComposers": http.StatusBadRequest,
	"/aiserver.v1.FileSyncService/FSSyncFile":                        http.StatusNotFound,
	"/ws-reachability-probe":                                         http.StatusNotFound,
}

// stub answers with status and no body; RPC paths carry Content-Type
// application/grpc, as the client saw them from the reference project.
func stub(w http.ResponseWriter, r *http.Request, status int) {
	if strings.HasPrefix(r.URL.Path, "/aiserver.v1.") || strings.HasPrefix(r.URL.Path, "/agent.v1.") {
		w.Header().Set("Content-Type", "application/grpc")
	}
	w.Header().Set("Content-Length", "0")
	w.WriteHeader(status)
}
