package team_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestTeam(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Team Suite")
}
