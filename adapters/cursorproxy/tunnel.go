package cursorproxy

import (
	"context"
	"io"
	"net"
	"net/http"
	"sync"

	"go.uber.org/zap"
)

// tunnel answers a CONNECT to a host Keygate does not intercept: it dials
// the target (through the outbound proxy when one applies) and copies bytes
// both ways without looking at them.
func (p *Proxy) tunnel(w http.ResponseWriter, r *http.Request) {
	addr := withPort(r.Host)
	ctx, cancel := context.WithTimeout(r.Context(), p.opts.HandshakeTimeout)
	up, err := p.opts.Tunnel(ctx, addr)
	cancel()
	if err != nil {
		p.log.Info("tunnel dial", zap.String("addr", addr), zap.Error(err))
		http.Error(w, "cannot reach "+addr, http.StatusBadGateway)
		return
	}
	conn, err := hijack(w)
	if err != nil {
		_ = up.Close()
		p.log.Error("hijack CONNECT", zap.Error(err))
		return
	}
	if !p.track(conn) {
		_ = up.Close()
		return
	}
	defer p.untrack(conn)
	if !p.track(up) {
		_ = conn.Close()
		return
	}
	defer p.untrack(up)
	if _, err := conn.Write([]byte(connectOK)); err != nil {
		_ = conn.Close()
		_ = up.Close()
		return
	}
	splice(conn, up)
}

// splice copies both ways until both directions ended, passing a half-close
// on when the connection supports it, then closes both.
func splice(a, b net.Conn) {
	var wg sync.WaitGroup
	wg.Go(func() { copyHalf(b, a) })
	copyHalf(a, b)
	wg.Wait()
	_ = a.Close()
	_ = b.Close()
}

func copyHalf(dst, src net.Conn) {
	_, _ = io.Copy(dst, src)
	if cw, ok := dst.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
		return
	}
	_ = dst.Close()
	_ = src.Close()
}
