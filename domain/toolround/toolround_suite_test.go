package toolround_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestToolround(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Toolround Suite")
}
