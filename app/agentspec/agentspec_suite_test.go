package agentspec_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestAgentSpec(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Cursor Agent Features Suite")
}
