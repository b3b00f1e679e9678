package postgres_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/postgres"
	"keygate/adapters/relstore"
	"keygate/ports"
	"keygate/ports/porttest"
)

// companyStore opens a store for one spec of the company-mode contracts.
func companyStore() *relstore.Store {
	db, err := postgres.Open(context.Background(), dsn, zap.NewNop())
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(db.Close)
	return postgres.NewStore(db)
}

var (
	_ = porttest.DescribeAuditLog("PostgreSQL", func() ports.AuditLog { return companyStore().Audit() })
	_ = porttest.DescribeTokenStore("PostgreSQL", func() ports.TokenStore { return companyStore().Tokens() })
	_ = porttest.DescribeMembershipStore("PostgreSQL", func() ports.MembershipStore { return companyStore().Memberships() })
	_ = porttest.DescribeTeamStore("PostgreSQL", func() porttest.TeamHarness {
		st := companyStore()
		return porttest.TeamHarness{Teams: st.Teams(), Memberships: st.Memberships(), Groups: st.Teams()}
	})
	_ = porttest.DescribeOwnerStore("PostgreSQL", func() ports.OwnerStore { return companyStore().Owners() })
	_ = porttest.DescribeSessionRevocations("PostgreSQL", func() ports.SessionRevocations { return companyStore().Sessions() })
	_ = porttest.DescribeDirectory("PostgreSQL", func() porttest.DirectoryStore { return companyStore().Directory() })
	_ = porttest.DescribeServiceAccountStore("PostgreSQL", func() ports.ServiceAccountStore { return companyStore().ServiceAccounts() })
	_ = porttest.DescribeFingerprintStore("PostgreSQL", func() ports.FingerprintStore { return companyStore().Fingerprints() })
)
