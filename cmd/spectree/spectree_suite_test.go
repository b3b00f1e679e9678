package main

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestSpectree(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Spectree Suite")
}
