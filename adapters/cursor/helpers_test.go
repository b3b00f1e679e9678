package cursor_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"net/http"

	"connectrpc.com/connect"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gcustom"
	"github.com/onsi/gomega/types"

	"keygate/adapters/cursor/cursortest"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// HaveConnectCode matches an error that is a *connect.Error with code.
func HaveConnectCode(code connect.Code) types.GomegaMatcher {
	return gcustom.MakeMatcher(func(err error) (bool, error) {
		var ce *connect.Error
		if !errors.As(err, &ce) {
			return false, nil
		}
		return ce.Code() == code, nil
	}).WithTemplate("Expected\n{{.FormattedActual}}\n{{.To}} be a Connect error with code {{.Data}}", code)
}

// label is an exec stream_close whose id names the append in specs.
func label(id uint32) *agentv1.AgentClientMessage { return cursortest.ExecStreamClose(id) }

// labels returns the stream_close ids of recorded messages, in order.
func labels(msgs []*agentv1.AgentClientMessage) []uint32 {
	var out []uint32
	for _, m := range msgs {
		if c := m.GetExecClientControlMessage().GetStreamClose(); c != nil {
			out = append(out, c.GetId())
		}
	}
	return out
}

// isLabel matches the stream_close with id.
func isLabel(id uint32) func(*agentv1.AgentClientMessage) bool {
	return func(m *agentv1.AgentClientMessage) bool {
		c := m.GetExecClientControlMessage().GetStreamClose()
		return c != nil && c.GetId() == id
	}
}

var requestSeq int

// newRequestID returns a distinct request id per spec.
func newRequestID() string {
	requestSeq++
	return fmt.Sprintf("req-%04d", requestSeq)
}

// postProto posts a raw unary body as the client would, gzip-compressed
// when zipped, and returns the response with its body drained.
func postProto(hc *http.Client, url string, body []byte, zipped bool) *http.Response {
	var buf bytes.Buffer
	if zipped {
		zw := gzip.NewWriter(&buf)
		_, _ = zw.Write(body)
		Expect(zw.Close()).To(Succeed())
	} else {
		buf.Write(body)
	}
	req, err := http.NewRequest(http.MethodPost, url, &buf)
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Content-Type", "application/proto")
	if zipped {
		req.Header.Set("Content-Encoding", "gzip")
	}
	resp, err := hc.Do(req)
	Expect(err).NotTo(HaveOccurred())
	Expect(resp.Body.Close()).To(Succeed())
	return resp
}
