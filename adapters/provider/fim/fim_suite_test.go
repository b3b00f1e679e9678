package fim_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestFIM(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Fill-in-the-middle protocols Suite")
}
