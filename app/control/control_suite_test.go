package control_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The use cases are specified end to end through the Connect API in
// adapters/control; these specs cover the rules that need no store.
func TestControl(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Control Use Cases Suite")
}
