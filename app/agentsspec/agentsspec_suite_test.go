package agentsspec_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
)

// binary is the keygate binary the specs run as its own process.
var binary string

func TestAgentsSpec(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Real Coding Agents Suite")
}

var _ = SynchronizedBeforeSuite(func() []byte {
	path, err := gexec.Build("keygate/cmd/keygate")
	Expect(err).NotTo(HaveOccurred())
	return []byte(path)
}, func(path []byte) {
	binary = string(path)
})

var _ = SynchronizedAfterSuite(func() {}, func() {
	gexec.CleanupBuildArtifacts()
})
