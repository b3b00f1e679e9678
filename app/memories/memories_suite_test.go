package memories_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestMemories(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Memories Suite")
}
