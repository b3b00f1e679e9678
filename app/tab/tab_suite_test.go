package tab_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestTab(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Tab Use Case Suite")
}
