package secretbox_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestSecretbox(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Secretbox Suite")
}
