package probe_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
)

// binary is the keygate binary under test, built once for the suite.
var binary string

func TestProbe(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Probe Suite (the real keygate binary, measured from outside)")
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
