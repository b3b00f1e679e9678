package cursor_test

import (
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestCursor(t *testing.T) {
	RegisterFailHandler(Fail)
	// Specs wait for what a loaded CI machine may take a while to do (a
	// heartbeat answered, a turn ended); a wait only ends early on success,
	// so a generous bound costs nothing when the code is right.
	SetDefaultEventuallyTimeout(10 * time.Second)
	RunSpecs(t, "Cursor Adapter Suite")
}
