package upstream

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"google.golang.org/protobuf/proto"
)

// maxCallAnswer bounds an answer Call decodes (Cursor's model lists are a
// few hundred kilobytes).
const maxCallAnswer = 16 << 20

// CallStatusError reports that Cursor answered a unary call with a status other than
// 200 (a Connect error, an expired login, an outage).
type CallStatusError struct {
	Procedure string
	Status    int
}

func (e *CallStatusError) Error() string {
	return fmt.Sprintf("upstream %s answered %d", e.Procedure, e.Status)
}

// ErrAnswerTooLarge means Cursor's answer to a unary call exceeds the bound.
var ErrAnswerTooLarge = errors.New("upstream answer too large")

// Call makes a unary Connect call (application/proto) to procedure on the
// Cursor host the client originally addressed (taken from header's
// HeaderUpstreamURL; BaseURL without it), with the client's headers, and
// decodes the answer into resp, keeping unknown fields. It is what the
// Cursor adapter needs to merge Cursor's model lists with Keygate's.
// Non-200 answers are *CallStatusError. It honours ctx cancellation.
func (f *Forwarder) Call(ctx context.Context, procedure string, header http.Header, req, resp proto.Message) error {
	body, err := proto.Marshal(req)
	if err != nil {
		return fmt.Errorf("marshal %s request: %w", procedure, err)
	}
	base, err := Target(&http.Request{Header: header, URL: &url.URL{Path: "/"}}, f.base)
	if err != nil {
		return err
	}
	target := url.URL{Scheme: base.Scheme, Host: base.Host, Path: procedure}
	out, err := http.NewRequestWithContext(ctx, http.MethodPost, target.String(), bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("build %s request: %w", procedure, err)
	}
	for k, vs := range header {
		out.Header[k] = append([]string(nil), vs...)
	}
	// The body is freshly encoded and uncompressed; the transport asks for
	// gzip itself and decompresses the answer transparently.
	for _, h := range []string{HeaderUpstreamURL, "Content-Length", "Content-Encoding", "Accept-Encoding",
		"Connect-Content-Encoding", "Connect-Accept-Encoding", "Connection", "Proxy-Authorization", "Te", "Upgrade"} {
		out.Header.Del(h)
	}
	out.Header.Set("Content-Type", "application/proto")
	out.Header.Set("Connect-Protocol-Version", "1")
	res, err := f.gated.RoundTrip(out)
	if err != nil {
		return fmt.Errorf("call upstream %s: %w", procedure, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return &CallStatusError{Procedure: procedure, Status: res.StatusCode}
	}
	data, err := io.ReadAll(io.LimitReader(res.Body, maxCallAnswer+1))
	if err != nil {
		return fmt.Errorf("read upstream %s answer: %w", procedure, err)
	}
	if len(data) > maxCallAnswer {
		return fmt.Errorf("%s: %w", procedure, ErrAnswerTooLarge)
	}
	if err := proto.Unmarshal(data, resp); err != nil {
		return fmt.Errorf("decode upstream %s answer: %w", procedure, err)
	}
	return nil
}
