package scimspec_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestSCIMSpec(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "SCIM Provisioning Suite")
}
