package secretguard_test

import (
	"context"
	"os"
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/app/secretguard"
	"keygate/domain/llm"
	"keygate/ports"
)

func TestSecretguard(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Secret Guard Suite")
}

// awsKey is shaped like a real access key id (gitleaks allows the
// documentation's AKIAIOSFODNN7EXAMPLE, so that one would not do).
const awsKey = "AKIAZ3MSJV4WWNKWW5GG"

var key = []byte("0123456789abcdef0123456789abcdef")

// capture is the provider: it keeps every call it sees.
type capture struct{ calls []ports.ModelCall }

func (c *capture) Stream(_ context.Context, call ports.ModelCall) (ports.ModelStream, error) {
	c.calls = append(c.calls, call)
	return emptyStream{}, nil
}

type emptyStream struct{}

func (emptyStream) Next() bool       { return false }
func (emptyStream) Event() llm.Event { return llm.Event{} }
func (emptyStream) Err() error       { return nil }
func (emptyStream) Close() error     { return nil }

// code is realistic source text of about n bytes: this package's own
// files, repeated.
func code(n int) string {
	var b strings.Builder
	for b.Len() < n {
		for _, f := range []string{"guard.go", "scanner.go", "doc.go"} {
			src, err := os.ReadFile(f)
			if err != nil {
				panic(err)
			}
			b.Write(src)
		}
	}
	return b.String()[:n]
}

func newScanner() *secretguard.Scanner {
	s, err := secretguard.NewScanner(key, 0)
	if err != nil {
		panic(err)
	}
	return s
}
