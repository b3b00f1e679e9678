package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	"keygate/adapters/provider/providertest"
)

// fakeProvider answers model listing and Chat Completions streams: the
// connection test's counting prompt gets the numbers, anything else a
// greeting, each with the same usage so the dashboard's cost is known.
func fakeProvider() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"object":"list","data":[{"id":"fake-large"},{"id":"fake-small"}]}`)
	})
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Messages []struct {
				Content any `json:"content"`
			} `json:"messages"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		text := "Hello from the fake provider."
		if n := len(body.Messages); n > 0 {
			if s, ok := body.Messages[n-1].Content.(string); ok && strings.HasPrefix(s, "Output the numbers 1") {
				text = "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20"
			}
		}
		w.Header().Set("Content-Type", "text/event-stream")
		flusher, _ := w.(http.Flusher)
		for _, step := range providertest.Events(providertest.ChatSSE(providertest.Turn{Model: "fake-large",
			Text: providertest.Words(text), Usage: providertest.Usage{Input: 120, CacheRead: 880, Output: 20}})) {
			_, _ = w.Write(step.Data)
			flusher.Flush()
			time.Sleep(5 * time.Millisecond)
		}
	})
	return mux
}
