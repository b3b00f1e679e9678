package archspec_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestArchspec(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Architecture Suite")
}
