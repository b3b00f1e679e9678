package app_test

import (
	"context"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/auth"
	"keygate/adapters/egress"
	"keygate/app"
	"keygate/app/config"
)

func TestApp(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "App Suite")
}

// laptopEgress is the outbound policy of a laptop install (local sign-in)
// for cfg, as the composition root builds it.
func laptopEgress(ctx context.Context, cfg config.Config) *egress.Policy {
	GinkgoHelper()
	gate, err := auth.New(ctx, auth.Config{Mode: auth.ModeLocal}, nil, zap.NewNop())
	Expect(err).NotTo(HaveOccurred())
	policy, err := app.NewEgress(ctx, cfg, gate, zap.NewNop())
	Expect(err).NotTo(HaveOccurred())
	return policy
}
