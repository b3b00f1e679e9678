package cursortest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"time"

	"go.uber.org/zap"

	"keygate/adapters/cursor"
	"keygate/adapters/cursor/transport"
)

// Env is a Cursor adapter served over real HTTP: URL speaks HTTP/1.1 and
// cleartext HTTP/2 (h2c), like the main listener and the agent listener.
type Env struct {
	Server *cursor.Server
	URL    string
	// HTTP1 is an HTTP/1.1 client; H2C a prior-knowledge HTTP/2 client.
	HTTP1, H2C *http.Client
	ts         *httptest.Server
}

// FastTimings are short transport timings for specs.
func FastTimings() transport.Config {
	return transport.Config{
		RouteWait:   2 * time.Second,
		OrphanGrace: 300 * time.Millisecond,
		Linger:      100 * time.Millisecond,
		Heartbeat:   time.Hour, // specs that want idle heartbeats lower it
		Retain:      5 * time.Second,
	}
}

// Serve starts the adapter with handler behind an httptest server.
func Serve(handler transport.RunHandler, opts cursor.Options) *Env {
	srv := cursor.New(handler, opts, zap.NewNop())
	mux := http.NewServeMux()
	for p, h := range srv.Routes() {
		mux.Handle(p, h)
	}
	ts := httptest.NewUnstartedServer(mux)
	ts.Config.Protocols = new(http.Protocols)
	ts.Config.Protocols.SetHTTP1(true)
	ts.Config.Protocols.SetUnencryptedHTTP2(true)
	ts.Start()
	h2 := &http.Transport{Protocols: new(http.Protocols)}
	h2.Protocols.SetUnencryptedHTTP2(true)
	return &Env{
		Server: srv,
		URL:    ts.URL,
		HTTP1:  ts.Client(),
		H2C:    &http.Client{Transport: h2},
		ts:     ts,
	}
}

// Client returns a simulated client for requestID over HTTP/1.1.
func (e *Env) Client(requestID string) *Client { return NewClient(e.URL, e.HTTP1, requestID) }

// Close shuts the adapter and the server down.
func (e *Env) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = e.Server.Close(ctx)
	e.ts.CloseClientConnections()
	e.ts.Close()
	e.H2C.CloseIdleConnections()
}
