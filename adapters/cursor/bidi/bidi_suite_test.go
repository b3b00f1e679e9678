package bidi_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestBidi(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Bidi Suite")
}
