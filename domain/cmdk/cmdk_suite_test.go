package cmdk_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestCmdK(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "CmdK Suite")
}
