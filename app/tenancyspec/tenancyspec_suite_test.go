package tenancyspec_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestTenancySpec(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Tenant Isolation Suite")
}
