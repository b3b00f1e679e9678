package runtest_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestRuntest(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Run engine test support suite")
}
