package cloudledger_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestCloudLedger(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "CloudLedger Suite")
}
