package egress

import (
	"errors"
	"net"
)

// Redact is the error of a request dialled through the policy as a user
// and a model may read it: what went wrong and, when host is set, the
// host they asked for, never an address of Keygate's network. Go's own
// messages name the DNS resolver ("lookup x on 10.0.0.2:53"), the
// outbound proxy a request was dialled through, the replica's own address
// (a reset read's "10.1.2.3:5678->…") and the private address a name
// resolved to, an internal DNS answer. host is the host of the request
// that failed; "" names none (an operator's search backend, whose address
// is not the user's business). The error still matches what it wraps
// (errors.Is, errors.As).
func Redact(err error, host string) error {
	var (
		dns     *net.DNSError
		refused *RefusedError
		op      *net.OpError
	)
	at := ""
	if host != "" {
		at = " " + host
	}
	switch {
	case errors.As(err, &dns):
		why := "the lookup failed"
		switch {
		case dns.IsNotFound:
			why = "no such host"
		case dns.IsTimeout:
			why = "the lookup timed out"
		}
		if host != "" {
			at = " " + dns.Name
		}
		return &redacted{msg: "could not resolve host" + at + ": " + why, err: err}
	case errors.As(err, &refused) && host == "":
		return &redacted{msg: ErrRefused.Error() + "; an administrator can allow the destination with " + AllowSetting, err: err}
	case errors.As(err, &refused):
		msg := "outbound connection to " + refused.Dest + " refused: it is not a public address"
		if h, _, err := net.SplitHostPort(refused.Dest); err == nil && literal(h) {
			// Of the address asked for (in any form), not of what a name
			// resolved to.
			at := refused.Dest
			if refused.Addr.IsValid() && refused.Addr.Addr().String() != h {
				at += " (" + refused.Addr.Addr().String() + ")"
			}
			msg = "outbound connection to " + at + " refused: " + refused.Reason
		}
		return &redacted{msg: msg + "; a destination a model chose (a web fetch) must be a public address", err: err}
	case errors.As(err, &op) && op.Op == "proxyconnect":
		return &redacted{msg: "could not connect" + at + " through the outbound proxy", err: err}
	case errors.As(err, &op):
		for inner := op; errors.As(op.Err, &inner); {
			op = inner // a dial inside a proxy's connect names the proxy's address
		}
		why := "the connection failed"
		if op.Timeout() {
			why = "the connection timed out"
		} else if op.Err != nil {
			why = op.Err.Error() // a system call's ("connect: connection refused")
		}
		return &redacted{msg: "could not connect" + at + ": " + why, err: err}
	}
	return err
}

// literal reports whether host is an IP address in one of the forms a
// resolver reads without asking anyone (2130706433 is 127.0.0.1): what it
// means is no secret of Keygate's network.
func literal(host string) bool {
	_, ok, err := parseLiteral(asciiHost(host))
	return ok && err == nil
}

// redacted is an error whose message leaves out what it wraps.
type redacted struct {
	msg string
	err error
}

func (e *redacted) Error() string { return e.msg }
func (e *redacted) Unwrap() error { return e.err }
