package threatspec_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestThreatSpec(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Company-Mode Threat Suite")
}
