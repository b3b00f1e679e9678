package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"keygate/adapters/cursor/cursortest"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// turns runs Cursor turns the way a Cursor window does: the client
// simulator talks to https://api2.cursor.sh through Keygate's forward proxy,
// trusting the installation CA from the data dir, runs client-side tools in
// a scratch workspace, and sends the checkpoint Keygate published with the
// next turn of the same conversation.
// With ?token= the turn presents that personal gateway token to the proxy,
// as a company's Cursor window does.
type turns struct {
	proxyAddr string
	roots     *x509.CertPool
	workspace *cursortest.Workspace

	mu      sync.Mutex
	clients map[string]*cursortest.Client // by conversation id
	n       int
}

func newTurns(proxyAddr, dataDir string) (*turns, error) {
	pem, err := os.ReadFile(filepath.Join(dataDir, "ca.crt"))
	if err != nil {
		return nil, fmt.Errorf("read installation CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, errors.New("installation CA is not PEM")
	}
	ws, err := os.MkdirTemp(dataDir, "workspace-")
	if err != nil {
		return nil, err
	}
	return &turns{proxyAddr: proxyAddr, roots: pool, workspace: cursortest.NewWorkspace(ws), clients: map[string]*cursortest.Client{}}, nil
}

// httpClient reaches Cursor through Keygate's proxy; a token goes in the
// proxy URL, which Go sends as Basic Proxy-Authorization on CONNECT.
func (t *turns) httpClient(token string) *http.Client {
	proxy := &url.URL{Scheme: "http", Host: t.proxyAddr}
	if token != "" {
		proxy.User = url.UserPassword("e2e", token)
	}
	return &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy), TLSClientConfig: &tls.Config{RootCAs: t.roots}}}
}

// client returns the conversation's client for its next turn and the
// message that opens it: the first turn has no state, later ones send the
// latest checkpoint. A mode ("plan", "ask"…) is the mode the user picked
// for the message.
func (t *turns) client(conv, model, text, token, mode string) (*cursortest.Client, *agentv1.AgentClientMessage) {
	c, open := t.opening(conv, model, text, token)
	if m, ok := agentv1.AgentMode_value["AGENT_MODE_"+strings.ToUpper(mode)]; ok && mode != "" {
		open.GetRunRequest().GetAction().GetUserMessageAction().GetUserMessage().Mode = agentv1.AgentMode(m)
	}
	return c, open
}

func (t *turns) opening(conv, model, text, token string) (*cursortest.Client, *agentv1.AgentClientMessage) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.n++
	id := fmt.Sprintf("req-e2e-%d", t.n)
	prev, ok := t.clients[conv]
	if !ok {
		c := cursortest.NewClient("https://api2.cursor.sh", t.httpClient(token), id)
		c.OnMessage = t.workspace.Handle
		t.clients[conv] = c
		return c, cursortest.RunRequest(conv, model, text)
	}
	c := prev.WithRequestID(id)
	return c, cursortest.Request(conv, model, cursortest.UserMessageAction(fmt.Sprintf("%s:%d", conv, t.n), text), prev.Checkpoint())
}

// ServeHTTP runs one turn (?conversation=&model=&text=, optionally
// &token= and &mode=) and answers with the texts the client received.
func (t *turns) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	c, open := t.client(q.Get("conversation"), q.Get("model"), q.Get("text"), q.Get("token"), q.Get("mode"))
	ctx, cancel := context.WithTimeout(r.Context(), 20*time.Second)
	defer cancel()
	stream, err := c.Subscribe(ctx)
	if err != nil {
		http.Error(w, "subscribe: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer stream.Close()
	if err := c.Send(ctx, open); err != nil {
		http.Error(w, "send run request: "+err.Error(), http.StatusBadGateway)
		return
	}
	select {
	case <-stream.Done():
	case <-ctx.Done():
		http.Error(w, "turn did not finish", http.StatusGatewayTimeout)
		return
	}
	if err := stream.ReadError(); err != nil {
		http.Error(w, "read stream: "+err.Error(), http.StatusBadGateway)
		return
	}
	if err := stream.EndError(); err != nil {
		http.Error(w, fmt.Sprintf("turn ended with %v", err), http.StatusBadGateway)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"texts": stream.Texts()})
}
