// Command server is the Keygate the console's browser test drives: the real
// control API, console assets and Cursor adapter over an in-memory store, a
// fake OpenAI-compatible provider, and a trigger that runs one Cursor turn
// with the Cursor client simulator.
//
// The turn is served by a small run handler here that makes one provider
// call through the real provider client (recorded like any call), because
// the run engine is not yet bridged to the Cursor adapter in the
// composition root. It prints KEYGATE_E2E_URL=<url> once it listens and
// stops on SIGINT/SIGTERM or when stdin closes.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"go.uber.org/zap"

	"keygate/adapters/control"
	"keygate/adapters/control/controltest"
	"keygate/adapters/cursor"
	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider"
	"keygate/adapters/provider/discovery"
	"keygate/adapters/provider/providertest"
	"keygate/adapters/secretbox"
	appcontrol "keygate/app/control"
	"keygate/console"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	flag.Parse()
	if err := run(*addr); err != nil {
		fmt.Fprintln(os.Stderr, "e2e server:", err)
		os.Exit(1)
	}
}

func run(addr string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); stop() }()

	fake := http.Server{Handler: fakeProvider()}
	fakeLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go func() { _ = fake.Serve(fakeLn) }()
	defer fake.Close()

	store := controltest.NewStore(nil)
	key := make([]byte, 32)
	box, err := secretbox.New(key)
	if err != nil {
		return err
	}
	settings := appcontrol.NewSettings(store)
	client := provider.New(provider.Options{Recorder: store, Detailed: settings.Detailed})
	prompts := control.NewPromptCache(1000)
	tap := appcontrol.NewPromptTap(client, prompts)
	models := appcontrol.NewModels(appcontrol.ModelsOptions{Store: store, Secrets: box,
		Lister: control.NewDiscovery(discovery.New(nil)), Provider: tap, RequestURL: provider.RequestURL})

	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	base := "http://" + ln.Addr().String()
	convs := controltest.NewConversations(nil)
	cur := cursor.New(turnHandler{models: models, provider: tap, convs: convs}, cursor.Options{Transport: cursortest.FastTimings()}, zap.NewNop())
	mux := http.NewServeMux()
	routes := control.Routes(control.Options{Models: models, Settings: settings,
		Calls:         appcontrol.NewCalls(appcontrol.CallsOptions{Lister: store, Reader: store, Prompts: prompts}),
		Dashboard:     appcontrol.NewDashboard(store, settings, nil),
		Conversations: appcontrol.NewConversations(convs, convs),
		Setup: func(context.Context) (control.Setup, error) {
			return control.Setup{ProxyURL: base, PersonalToken: "kg_e2e_personal_token", CACertificateURL: "/ca.pem",
				SetupCommand: "keygate cursor setup --proxy " + base}, nil
		},
		Console: console.Dist(), Logger: zap.NewNop()})
	for p, h := range routes {
		mux.Handle(p, h)
	}
	for p, h := range cur.Routes() {
		mux.Handle(p, h)
	}
	mux.Handle("POST /e2e/turn", turnTrigger(base))
	mux.HandleFunc("GET /e2e/provider", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "http://"+fakeLn.Addr().String()+"/v1")
	})
	srv := http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	fmt.Printf("KEYGATE_E2E_URL=%s\n", base)
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = cur.Close(sctx)
	return srv.Shutdown(sctx)
}

// turnTrigger runs one turn with the Cursor client simulator against this
// server's Cursor routes and answers with the texts the simulator received.
func turnTrigger(base string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conv, model, text := r.URL.Query().Get("conversation"), r.URL.Query().Get("model"), r.URL.Query().Get("text")
		ctx, cancel := context.WithTimeout(r.Context(), 20*time.Second)
		defer cancel()
		c := cursortest.NewClient(base, http.DefaultClient, fmt.Sprintf("req-%d", time.Now().UnixNano()))
		stream, err := c.Subscribe(ctx)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer stream.Close()
		if err := c.Send(ctx, cursortest.RunRequest(conv, model, text)); err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		select {
		case <-stream.Done():
		case <-ctx.Done():
			http.Error(w, "turn did not finish", http.StatusGatewayTimeout)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"texts": stream.Texts()})
	})
}

// fakeProvider answers model listing and Chat Completions streams.
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
		if len(body.Messages) > 0 {
			if s, ok := body.Messages[len(body.Messages)-1].Content.(string); ok && len(s) > 20 && s[:20] == "Output the numbers 1" {
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
