package modelcycle_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestModelcycle(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Modelcycle Suite")
}
