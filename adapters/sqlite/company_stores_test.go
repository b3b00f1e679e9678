package sqlite_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/relstore"
	"keygate/adapters/sqlite"
	"keygate/ports"
	"keygate/ports/porttest"
)

// companyStore opens a store for one spec of the company-mode contracts.
func companyStore() *relstore.Store {
	db, err := sqlite.Open(context.Background(), GinkgoT().TempDir(), zap.NewNop())
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(db.Close)
	return sqlite.NewStore(db)
}

var (
	_ = porttest.DescribeAuditLog("SQLite", func() ports.AuditLog { return companyStore().Audit() })
	_ = porttest.DescribeTokenStore("SQLite", func() ports.TokenStore { return companyStore().Tokens() })
	_ = porttest.DescribeMembershipStore("SQLite", func() ports.MembershipStore { return companyStore().Memberships() })
	_ = porttest.DescribeTeamStore("SQLite", func() porttest.TeamHarness {
		st := companyStore()
		return porttest.TeamHarness{Teams: st.Teams(), Memberships: st.Memberships(), Groups: st.Teams()}
	})
	_ = porttest.DescribeOwnerStore("SQLite", func() ports.OwnerStore { return companyStore().Owners() })
	_ = porttest.DescribeSessionRevocations("SQLite", func() ports.SessionRevocations { return companyStore().Sessions() })
	_ = porttest.DescribeDirectory("SQLite", func() porttest.DirectoryStore { return companyStore().Directory() })
	_ = porttest.DescribeServiceAccountStore("SQLite", func() ports.ServiceAccountStore { return companyStore().ServiceAccounts() })
	_ = porttest.DescribeFingerprintStore("SQLite", func() ports.FingerprintStore { return companyStore().Fingerprints() })
)
