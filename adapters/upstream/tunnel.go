package upstream

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"
)

// ProxyRefusedError reports that the outbound proxy answered a CONNECT with a status
// other than 200.
type ProxyRefusedError struct {
	Proxy  string
	Status string
}

func (e *ProxyRefusedError) Error() string {
	return fmt.Sprintf("outbound proxy %s refused CONNECT: %s", e.Proxy, e.Status)
}

// DialTunnel opens a raw TCP stream to addr (host:port) for a tunnelled
// CONNECT, through the outbound proxy when one applies to addr (after
// Options.TunnelCheckProxied allowed addr), dialled by Options.TunnelDial.
// ctx bounds the dial and the proxy handshake, not the returned connection.
func (f *Forwarder) DialTunnel(ctx context.Context, addr string) (net.Conn, error) {
	proxy, err := f.proxy(&url.URL{Scheme: "https", Host: addr})
	if err != nil {
		return nil, fmt.Errorf("choose outbound proxy: %w", err)
	}
	if proxy == nil {
		return f.tunnelDial(ctx, "tcp", addr)
	}
	if err := f.tunnelChecked(ctx, addr); err != nil {
		return nil, err
	}
	proxyAddr := proxy.Host
	if proxy.Port() == "" {
		port := "80"
		if proxy.Scheme == "https" {
			port = "443"
		}
		proxyAddr = net.JoinHostPort(proxy.Hostname(), port)
	}
	conn, err := f.tunnelDial(ctx, "tcp", proxyAddr)
	if err != nil {
		return nil, fmt.Errorf("dial outbound proxy: %w", err)
	}
	if proxy.Scheme == "https" {
		conn = tls.Client(conn, &tls.Config{ServerName: proxy.Hostname(), RootCAs: f.rootCAs, MinVersion: tls.VersionTLS12})
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	tunnel, err := connectThrough(conn, proxy, addr)
	if !stop() {
		err = context.Cause(ctx)
	}
	if err != nil {
		_ = conn.Close()
		return nil, err
	}
	_ = conn.SetDeadline(time.Time{})
	return tunnel, nil
}

// connectThrough asks the proxy on conn for a tunnel to addr.
func connectThrough(conn net.Conn, proxy *url.URL, addr string) (net.Conn, error) {
	req := &http.Request{Method: http.MethodConnect, URL: &url.URL{Opaque: addr}, Host: addr, Header: http.Header{}}
	if u := proxy.User; u != nil {
		pass, _ := u.Password()
		req.Header.Set("Proxy-Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(u.Username()+":"+pass)))
	}
	if err := req.Write(conn); err != nil {
		return nil, fmt.Errorf("send CONNECT to outbound proxy: %w", err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		return nil, fmt.Errorf("read outbound proxy answer: %w", err)
	}
	// The body is not closed: after a 200 the bytes that follow belong to
	// the tunnel, and on a refusal the connection is dropped anyway.
	if resp.StatusCode != http.StatusOK {
		return nil, &ProxyRefusedError{Proxy: proxy.Redacted(), Status: resp.Status}
	}
	if br.Buffered() > 0 {
		return &bufferedConn{Conn: conn, r: br}, nil
	}
	return conn, nil
}

// bufferedConn returns bytes the proxy sent right after its answer before
// reading from the connection again.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }
