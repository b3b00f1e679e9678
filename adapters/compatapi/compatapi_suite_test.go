package compatapi_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestCompatapi(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Compatible API Suite")
}
