package threatspec_test

import (
	"context"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/protobuf/proto"

	controlv1 "keygate/gen/keygate/control/v1"
	"keygate/gen/keygate/control/v1/controlv1connect"
)

var _ = Describe("Threat 26: a member raises their own budget or reads another's usage through the control API", Ordered, func() {
	const hookToken = "T0000/B0000/hook-secret-0123456789"
	var k *stack
	trudy := user{id: "trudy@corp.test", groups: "finance"}
	self := &controlv1.BudgetScope{Kind: controlv1.BudgetScopeKind_BUDGET_SCOPE_KIND_USER, Id: mallory.id}
	team := &controlv1.BudgetScope{Kind: controlv1.BudgetScopeKind_BUDGET_SCOPE_KIND_TEAM, Id: "staff"}
	low := &controlv1.BudgetLimitValues{TokensPerDay: 1000, CostPerMonthUsd: 5}

	BeforeAll(func() {
		k = startKeygate()
		// The administrator marks both groups as teams: a user is charged
		// to their first group that is one.
		for _, name := range []string{"staff", "finance"} {
			k.must(root, controlv1connect.TeamServicePutTeamProcedure, &controlv1.PutTeamRequest{Name: name}, nil)
		}
		k.must(root, controlv1connect.BudgetServiceSetBudgetLimitsProcedure, &controlv1.SetBudgetLimitsRequest{Scope: self, Limits: low}, nil)
		k.must(root, controlv1connect.BudgetServiceSetBudgetAlertsProcedure,
			&controlv1.SetBudgetAlertsRequest{WebhookUrl: "https://hooks.slack.test/services/" + hookToken}, nil)
		// trudy signs in once, so that her groups are recorded.
		k.must(trudy, controlv1connect.BudgetServiceGetBudgetStandingProcedure, &controlv1.GetBudgetStandingRequest{}, nil)
	})

	It("refuses a member every change of limits or alerts, their own and their team's included, and changes nothing", func() {
		big := &controlv1.BudgetLimitValues{TokensPerDay: 1e12}
		for procedure, req := range map[string]proto.Message{
			controlv1connect.BudgetServiceSetBudgetLimitsProcedure:    &controlv1.SetBudgetLimitsRequest{Scope: self, Limits: big},
			controlv1connect.BudgetServiceDeleteBudgetLimitsProcedure: &controlv1.DeleteBudgetLimitsRequest{Scope: self},
			controlv1connect.BudgetServiceListBudgetLimitsProcedure:   &controlv1.ListBudgetLimitsRequest{},
			controlv1connect.BudgetServiceGetBudgetAlertsProcedure:    &controlv1.GetBudgetAlertsRequest{},
			controlv1connect.BudgetServiceSetBudgetAlertsProcedure:    &controlv1.SetBudgetAlertsRequest{},
		} {
			status, raw := k.call(mallory, procedure, req, nil)
			Expect(status).To(Equal(http.StatusForbidden), procedure)
			Expect(raw).To(ContainSubstring("permission_denied"), procedure)
		}
		status, _ := k.call(mallory, controlv1connect.BudgetServiceSetBudgetLimitsProcedure,
			&controlv1.SetBudgetLimitsRequest{Scope: team, Limits: big}, nil)
		Expect(status).To(Equal(http.StatusForbidden))

		var mine controlv1.GetBudgetStandingResponse
		k.must(mallory, controlv1connect.BudgetServiceGetBudgetStandingProcedure, &controlv1.GetBudgetStandingRequest{}, &mine)
		Expect(mine.GetLimits().GetTokensPerDay()).To(BeEquivalentTo(1000), "the administrator's limit stands")
		Expect(mine.GetUserId()).To(Equal(mallory.id))
		Expect(mine.GetTeam()).To(Equal("staff"), "charged to the first of their groups marked a team")
		var all controlv1.ListBudgetLimitsResponse
		k.must(root, controlv1connect.BudgetServiceListBudgetLimitsProcedure, &controlv1.ListBudgetLimitsRequest{}, &all)
		Expect(all.GetLimits()).To(HaveLen(1), "no team limit was created")
	})

	It("lets a member read their own standing only, never another user's", func() {
		for _, other := range []string{root.id, trudy.id} {
			status, raw := k.call(mallory, controlv1connect.BudgetServiceGetBudgetStandingProcedure,
				&controlv1.GetBudgetStandingRequest{UserId: other}, nil)
			Expect(status).To(Equal(http.StatusForbidden), other)
			Expect(raw).NotTo(ContainSubstring("finance"))
		}
		k.must(mallory, controlv1connect.BudgetServiceGetBudgetStandingProcedure, &controlv1.GetBudgetStandingRequest{UserId: mallory.id}, nil)
		var theirs controlv1.GetBudgetStandingResponse
		k.must(root, controlv1connect.BudgetServiceGetBudgetStandingProcedure, &controlv1.GetBudgetStandingRequest{UserId: trudy.id}, &theirs)
		Expect(theirs.GetTeam()).To(Equal("finance"), "an administrator reads anyone's")
	})

	It("never returns the webhook URL, whose path is its token, even to an administrator", func() {
		raw := k.must(root, controlv1connect.BudgetServiceGetBudgetAlertsProcedure, &controlv1.GetBudgetAlertsRequest{}, nil)
		Expect(raw).To(ContainSubstring("hooks.slack.test"))
		Expect(raw).NotTo(ContainSubstring(hookToken))
		var token string
		k.dbRow(context.Background(), "SELECT value::text FROM settings WHERE name = 'budget_alerts'", nil, &token)
		Expect(token).NotTo(ContainSubstring(hookToken), "stored sealed")
	})
})
