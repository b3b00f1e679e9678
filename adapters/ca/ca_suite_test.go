package ca_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestCA(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "CA Suite")
}
