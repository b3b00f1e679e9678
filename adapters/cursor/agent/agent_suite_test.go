package agent_test

import (
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestAgent(t *testing.T) {
	RegisterFailHandler(Fail)
	// End-to-end specs wait on real HTTP, SQLite and goroutines; under the
	// race detector a second is not always enough.
	SetDefaultEventuallyTimeout(10 * time.Second)
	RunSpecs(t, "Cursor run layer (agent) Suite")
}
