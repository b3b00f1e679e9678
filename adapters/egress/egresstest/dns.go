package egresstest

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"net/netip"
	"strings"

	"golang.org/x/net/dns/dnsmessage"
)

// Resolver is a Go resolver whose every DNS query is answered by answer
// (name without the trailing dot; nil means no such name), called once per
// query (A and AAAA are separate queries): an answer that changes between
// calls is DNS rebinding. Names in /etc/hosts (localhost) resolve from
// there as usual.
func Resolver(answer func(name string) []netip.Addr) *net.Resolver {
	return &net.Resolver{PreferGo: true, Dial: func(context.Context, string, string) (net.Conn, error) {
		client, server := net.Pipe()
		go serve(server, answer)
		return client, nil
	}}
}

// Static is a Resolver over a fixed table of name → IP.
func Static(table map[string]string) *net.Resolver {
	return Resolver(func(name string) []netip.Addr {
		if a, ok := table[name]; ok {
			return []netip.Addr{netip.MustParseAddr(a)}
		}
		return nil
	})
}

// serve answers TCP-framed DNS queries on c until it is closed.
func serve(c net.Conn, answer func(string) []netip.Addr) {
	defer c.Close()
	for {
		var n [2]byte
		if _, err := io.ReadFull(c, n[:]); err != nil {
			return
		}
		msg := make([]byte, binary.BigEndian.Uint16(n[:]))
		if _, err := io.ReadFull(c, msg); err != nil {
			return
		}
		out, err := reply(msg, answer)
		if err != nil {
			return
		}
		binary.BigEndian.PutUint16(n[:], uint16(len(out)))
		if _, err := c.Write(append(n[:], out...)); err != nil {
			return
		}
	}
}

func reply(msg []byte, answer func(string) []netip.Addr) ([]byte, error) {
	var p dnsmessage.Parser
	h, err := p.Start(msg)
	if err != nil {
		return nil, err
	}
	q, err := p.Question()
	if err != nil {
		return nil, err
	}
	addrs := answer(strings.TrimSuffix(q.Name.String(), "."))
	rh := dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true, RecursionAvailable: true}
	if addrs == nil {
		rh.RCode = dnsmessage.RCodeNameError
	}
	b := dnsmessage.NewBuilder(nil, rh)
	if err := b.StartQuestions(); err != nil {
		return nil, err
	}
	if err := b.Question(q); err != nil {
		return nil, err
	}
	if err := b.StartAnswers(); err != nil {
		return nil, err
	}
	for _, a := range addrs {
		res := dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET}
		switch {
		case q.Type == dnsmessage.TypeA && a.Is4():
			err = b.AResource(res, dnsmessage.AResource{A: a.As4()})
		case q.Type == dnsmessage.TypeAAAA && a.Is6():
			err = b.AAAAResource(res, dnsmessage.AAAAResource{AAAA: a.As16()})
		}
		if err != nil {
			return nil, err
		}
	}
	return b.Finish()
}
