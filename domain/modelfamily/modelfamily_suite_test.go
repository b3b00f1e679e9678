package modelfamily_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestModelFamily(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Model Family Suite")
}
