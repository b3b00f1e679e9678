package threatspec_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
)

// binary is the keygate binary, built once for the specs that run it as
// its own process and measure it from outside (memory, from /proc).
var binary string

func TestThreatSpec(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Company-Mode Threat Suite")
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
