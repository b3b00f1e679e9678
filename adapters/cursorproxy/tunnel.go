package cursorproxy

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"keygate/domain/identity"
)

// tunnel answers a CONNECT to a host Keygate does not intercept: it dials
// the target (through the outbound proxy when one applies) and copies bytes
// both ways without looking at them, until both sides are done, the
// tunnel idles for TunnelIdleTimeout, the proxy closes, or token is
// revoked.
func (p *Proxy) tunnel(w http.ResponseWriter, r *http.Request, id identity.Identity, token string) {
	session := &slot{}
	if err := p.sessions.admit(session, token, id.UserID); err != nil {
		p.refuseOverLimit(w, id, err)
		return
	}
	defer p.sessions.remove(session)
	addr := withPort(r.Host)
	ctx, cancel := context.WithTimeout(r.Context(), p.opts.HandshakeTimeout)
	up, err := p.opts.Tunnel(ctx, addr)
	cancel()
	if err != nil {
		p.log.Info("tunnel dial", zap.String("addr", addr), zap.Error(err))
		closeAfter(w)
		dialFailed(w, addr, err)
		return
	}
	up = boundWrites(up, p.opts.WriteTimeout)
	conn, err := p.hijack(w)
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
	both := closeBoth{conn, up}
	if !session.bind(both) {
		return // revoked while dialling
	}
	if _, err := conn.Write([]byte(connectOK)); err != nil {
		_ = both.Close()
		return
	}
	splice(conn, up, p.opts.TunnelIdleTimeout)
}

// closeBoth closes the two ends of a tunnel.
type closeBoth [2]net.Conn

func (c closeBoth) Close() error { return errors.Join(c[0].Close(), c[1].Close()) }

// splice copies both ways until both directions ended, passing a half-close
// on when the connection supports it, then closes both. When no byte moved
// in either direction for idle, it closes both at once.
func splice(a, b net.Conn, idle time.Duration) {
	var last atomic.Int64 // unix nanoseconds of the latest byte either way
	last.Store(time.Now().UnixNano())
	done := make(chan struct{})
	defer close(done)
	go func() {
		t := time.NewTimer(idle)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			quiet := time.Since(time.Unix(0, last.Load()))
			if quiet >= idle {
				_ = a.Close()
				_ = b.Close()
				return
			}
			t.Reset(idle - quiet)
		}
	}()
	var wg sync.WaitGroup
	wg.Go(func() { copyHalf(b, a, &last) })
	copyHalf(a, b, &last)
	wg.Wait()
	_ = a.Close()
	_ = b.Close()
}

// copyHalf copies src to dst, noting the time of each chunk in last, then
// half-closes dst, or closes both when dst cannot half-close.
func copyHalf(dst, src net.Conn, last *atomic.Int64) {
	_, _ = io.Copy(activity{dst, last}, src)
	if closeWrite(dst) == nil {
		return
	}
	_ = dst.Close()
	_ = src.Close()
}

// activity is a writer that notes when it last wrote.
type activity struct {
	w    io.Writer
	last *atomic.Int64
}

func (a activity) Write(p []byte) (int, error) {
	a.last.Store(time.Now().UnixNano())
	return a.w.Write(p)
}
