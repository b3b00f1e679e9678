package control_test

import (
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/protobuf/reflect/protoreflect"

	"keygate/domain/access"
	"keygate/domain/identity"
	controlv1 "keygate/gen/keygate/control/v1"
)

// as is a Guard that signs every request in as p.
func as(p access.Principal) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(access.NewContext(r.Context(), p)))
		})
	}
}

// everyProcedure lists the procedures of every control service, read from
// the generated descriptors so that a new method cannot escape the matrix.
func everyProcedure() []string {
	var out []string
	for _, f := range []protoreflect.FileDescriptor{
		controlv1.File_control_v1_call_proto, controlv1.File_control_v1_conversation_proto,
		controlv1.File_control_v1_dashboard_proto, controlv1.File_control_v1_model_proto,
		controlv1.File_control_v1_setting_proto, controlv1.File_control_v1_setup_proto,
		controlv1.File_control_v1_memory_proto, controlv1.File_control_v1_mapping_proto,
		controlv1.File_control_v1_team_proto,
		controlv1.File_control_v1_provider_proto, controlv1.File_control_v1_alias_proto,
		controlv1.File_control_v1_serviceaccount_proto,
		controlv1.File_control_v1_budget_proto,
	} {
		for i := range f.Services().Len() {
			svc := f.Services().Get(i)
			for j := range svc.Methods().Len() {
				out = append(out, "/"+string(svc.FullName())+"/"+string(svc.Methods().Get(j).Name()))
			}
		}
	}
	return out
}

// administrators' procedures, written out here rather than read from the
// code under test.
var adminProcedures = map[string]bool{
	"/keygate.control.v1.ModelService/CreateModel":               true,
	"/keygate.control.v1.ModelService/UpdateModel":               true,
	"/keygate.control.v1.ModelService/DeleteModel":               true,
	"/keygate.control.v1.ModelService/SetModelEnabled":           true,
	"/keygate.control.v1.ModelService/ReorderModels":             true,
	"/keygate.control.v1.ModelService/DuplicateModel":            true,
	"/keygate.control.v1.ModelService/DiscoverModels":            true,
	"/keygate.control.v1.ModelService/TestModel":                 true,
	"/keygate.control.v1.SettingService/UpdateSettings":          true,
	"/keygate.control.v1.SettingService/SetTabModel":             true,
	"/keygate.control.v1.SettingService/SetFeatureModel":         true,
	"/keygate.control.v1.ModelMappingService/SetModelMapping":    true,
	"/keygate.control.v1.ModelMappingService/DeleteModelMapping": true,
	"/keygate.control.v1.BudgetService/ListBudgetLimits":         true,
	"/keygate.control.v1.BudgetService/SetBudgetLimits":          true,
	"/keygate.control.v1.BudgetService/DeleteBudgetLimits":       true,
	"/keygate.control.v1.BudgetService/GetBudgetAlerts":          true,
	"/keygate.control.v1.BudgetService/SetBudgetAlerts":          true,
	"/keygate.control.v1.TeamService/ListTeams":                  true,
	"/keygate.control.v1.TeamService/PutTeam":                    true,
	"/keygate.control.v1.TeamService/DeleteTeam":                 true,

	"/keygate.control.v1.ProviderService/ListProviders":         true,
	"/keygate.control.v1.ProviderService/CreateProvider":        true,
	"/keygate.control.v1.ProviderService/UpdateProvider":        true,
	"/keygate.control.v1.ProviderService/DeleteProvider":        true,
	"/keygate.control.v1.ProviderService/AddProviderKey":        true,
	"/keygate.control.v1.ProviderService/UpdateProviderKey":     true,
	"/keygate.control.v1.ProviderService/SetProviderKeyEnabled": true,
	"/keygate.control.v1.ProviderService/DeleteProviderKey":     true,
	"/keygate.control.v1.AliasService/CreateAlias":              true,
	"/keygate.control.v1.AliasService/UpdateAlias":              true,
	"/keygate.control.v1.AliasService/DeleteAlias":              true,
	"/keygate.control.v1.AliasService/SetAliasEnabled":          true,
	"/keygate.control.v1.AliasService/DrainAliasTarget":         true,

	"/keygate.control.v1.ServiceAccountService/ListServiceAccounts":  true,
	"/keygate.control.v1.ServiceAccountService/CreateServiceAccount": true,
	"/keygate.control.v1.ServiceAccountService/RevokeServiceAccount": true,
}

// readProcedures are the only procedures a read-only service account may
// call: they read configuration and usage, never what people wrote.
var readProcedures = map[string]bool{
	"/keygate.control.v1.ModelService/ListModels":               true,
	"/keygate.control.v1.ProviderService/ListProviders":         true,
	"/keygate.control.v1.AliasService/ListAliases":              true,
	"/keygate.control.v1.ModelMappingService/ListModelMappings": true,
	"/keygate.control.v1.SettingService/GetSettings":            true,
	"/keygate.control.v1.SettingService/GetTabModel":            true,
	"/keygate.control.v1.SettingService/GetFeatureModels":       true,
	"/keygate.control.v1.DashboardService/GetDashboard":         true,
	"/keygate.control.v1.DashboardService/GetCursorCloud":       true,
	"/keygate.control.v1.CallService/ListCalls":                 true,
	"/keygate.control.v1.SetupService/GetCursorSetup":           true,
}

// post calls procedure with an empty Connect JSON message and returns the
// status and body.
func post(a *api, procedure string) (int, string) {
	resp, err := a.server.Client().Post(a.server.URL+procedure, "application/json", strings.NewReader("{}"))
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	n, _ := resp.Body.Read(buf)
	b.Write(buf[:n])
	return resp.StatusCode, b.String()
}

var _ = Describe("Roles on the control API", func() {
	member := access.Principal{Identity: identity.Identity{UserID: "ada"}, Role: access.Member}
	admin := access.Principal{Identity: identity.Identity{UserID: "root"}, Role: access.Admin}

	It("lists every procedure the matrix covers", func() {
		Expect(everyProcedure()).To(HaveLen(58))
		for p := range adminProcedures {
			Expect(everyProcedure()).To(ContainElement(p))
		}
	})

	It("refuses a member every administrator's procedure with PermissionDenied, and lets the rest through", func() {
		a := newAPIWith(as(member))
		for _, p := range everyProcedure() {
			status, body := post(a, p)
			if adminProcedures[p] {
				Expect(status).To(Equal(http.StatusForbidden), p)
				Expect(body).To(ContainSubstring(`"code":"permission_denied"`), p)
				Expect(body).To(ContainSubstring("only an administrator"), p)
			} else {
				Expect(body).NotTo(ContainSubstring("permission_denied"), p)
			}
		}
	})

	It("refuses a read-only service account every procedure but those that read configuration and usage, and lets it read those as an administrator", func() {
		readOnly := access.Principal{Identity: identity.Identity{UserID: "sa:tok_1", Name: "monitoring"}, Role: access.ReadOnly}
		a := newAPIWith(as(readOnly))
		for p := range readProcedures {
			Expect(everyProcedure()).To(ContainElement(p))
		}
		for _, p := range everyProcedure() {
			status, body := post(a, p)
			if readProcedures[p] {
				Expect(body).NotTo(ContainSubstring("permission_denied"), p)
				Expect(status).NotTo(Equal(http.StatusForbidden), p)
			} else {
				Expect(status).To(Equal(http.StatusForbidden), p)
				Expect(body).To(ContainSubstring(`"code":"permission_denied"`), p)
				Expect(body).To(ContainSubstring("read-only"), p)
			}
		}
	})

	It("lets an administrator call every procedure", func() {
		a := newAPIWith(as(admin))
		for _, p := range everyProcedure() {
			_, body := post(a, p)
			Expect(body).NotTo(ContainSubstring("permission_denied"), p)
		}
	})
})
