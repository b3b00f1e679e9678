package scimspec_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/auth"
	"keygate/adapters/pgtest"
	"keygate/app/apptest"
	"keygate/app/config"
)

const (
	userHeader   = "X-Test-User"
	groupsHeader = "X-Test-Groups"
	scimToken    = "scim-token-0123456789abcdef0123456789abcdef"
)

// keygate is a running company-mode Keygate with SCIM on.
type keygate struct{ *apptest.Keygate }

// start runs the real graph in trusted-header mode (members are in
// "staff", administrators in "kg-admins") with a SCIM token, on SQLite, or
// on PostgreSQL when dsn is set.
func start(dsn string) *keygate {
	GinkgoHelper()
	dir := GinkgoT().TempDir()
	tokenFile := filepath.Join(dir, "scim-token")
	Expect(os.WriteFile(tokenFile, []byte(scimToken+"\n"), 0o600)).To(Succeed())
	cfg := config.Default()
	cfg.Auth = config.Auth{Mode: string(auth.ModeHeader), UserHeader: userHeader, GroupsHeader: groupsHeader,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("::1/128")},
		AdminGroups:    []string{"kg-admins"}, MemberGroups: []string{"staff"}, SCIMToken: scimToken}
	cfg.DataDir, cfg.Listen, cfg.ProxyListen = filepath.Join(dir, "data"), "127.0.0.1:0", apptest.FreeAddr()
	cfg.DatabaseURL, cfg.SingleReplica = dsn, dsn != ""
	cfg.LogFormat, cfg.LogLevel = "json", "error"
	cfg.OutboundProxy = "http://127.0.0.1:1"
	return &keygate{apptest.Start(cfg)}
}

// scim sends one SCIM request with the identity provider's token and
// returns the status and the decoded answer (nil when empty).
func (k *keygate) scim(method, path, body string) (int, map[string]any) {
	GinkgoHelper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, k.Base+"/scim/v2"+path, rd)
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Authorization", "Bearer "+scimToken)
	if body != "" {
		req.Header.Set("Content-Type", "application/scim+json")
	}
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	if len(bytes.TrimSpace(raw)) == 0 {
		return resp.StatusCode, nil
	}
	var out map[string]any
	Expect(json.Unmarshal(raw, &out)).To(Succeed(), string(raw))
	return resp.StatusCode, out
}

// must is scim expecting status.
func (k *keygate) must(status int, method, path, body string) map[string]any {
	GinkgoHelper()
	got, out := k.scim(method, path, body)
	Expect(got).To(Equal(status), "%s %s: %v", method, path, out)
	return out
}

// console sends a console request as user in groups, the way the
// authenticating proxy forwards it, and returns the status and body.
func (k *keygate) console(user, groups, method, path, body string) (int, string) {
	GinkgoHelper()
	req, err := http.NewRequest(method, k.Base+path, strings.NewReader(body))
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set(userHeader, user)
	req.Header.Set(groupsHeader, groups)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(raw)
}

// newToken creates a gateway token for user (in staff) and returns its
// text.
func (k *keygate) newToken(user string) string {
	GinkgoHelper()
	status, raw := k.console(user, "staff", http.MethodPost, "/auth/tokens", `{"name":"laptop"}`)
	Expect(status).To(Equal(http.StatusCreated), raw)
	var out struct{ Secret string }
	Expect(json.Unmarshal([]byte(raw), &out)).To(Succeed())
	return out.Secret
}

// connect asks the proxy for a tunnel to api2.cursor.sh with token and
// returns its status.
func (k *keygate) connect(token string) int {
	GinkgoHelper()
	conn, err := net.DialTimeout("tcp", k.Proxy, 5*time.Second)
	Expect(err).NotTo(HaveOccurred())
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	auth := "Basic " + base64.StdEncoding.EncodeToString([]byte("cursor:"+token))
	_, err = fmt.Fprintf(conn, "CONNECT api2.cursor.sh:443 HTTP/1.1\r\nHost: api2.cursor.sh:443\r\nProxy-Authorization: %s\r\n\r\n", auth)
	Expect(err).NotTo(HaveOccurred())
	resp, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: http.MethodConnect})
	Expect(err).NotTo(HaveOccurred())
	return resp.StatusCode
}

// list is a list answer's resources.
func list(out map[string]any) []map[string]any {
	GinkgoHelper()
	raw, _ := out["Resources"].([]any)
	var res []map[string]any
	for _, r := range raw {
		res = append(res, r.(map[string]any))
	}
	return res
}

// query is a Users or Groups list path with filter f.
func query(endpoint, f string) string { return endpoint + "?filter=" + url.QueryEscape(f) }

// oktaUser is the body Okta sends to create a user.
func oktaUser(userName, externalID string) string {
	return `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"` + userName + `",` +
		`"name":{"givenName":"Ada","familyName":"Lovelace"},` +
		`"emails":[{"primary":true,"value":"` + userName + `","type":"work"}],"displayName":"Ada Lovelace",` +
		`"locale":"en-US","externalId":"` + externalID + `","groups":[],"password":"1mz050nq","active":true}`
}

// entraUser is the body Entra ID sends to create a user.
func entraUser(userName, externalID string) string {
	return `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User","urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"],` +
		`"externalId":"` + externalID + `","userName":"` + userName + `","active":true,` +
		`"emails":[{"primary":true,"type":"work","value":"` + userName + `"}],"meta":{"resourceType":"User"},` +
		`"name":{"formatted":"givenName familyName","familyName":"familyName","givenName":"givenName"},"roles":[]}`
}

const patchOp = `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[`

// describeSCIM declares the SCIM specs on one engine.
func describeSCIM(engine string, dsn func(ctx context.Context) string) bool {
	return Describe("SCIM provisioning on "+engine, func() {
		var k *keygate
		BeforeEach(func(ctx SpecContext) { k = start(dsn(ctx)) })

		It("creates a user as Okta does, finds it by userName and externalId, and cuts it on Okta's PATCH active=false", func() {
			By("Okta asking whether the user exists, then creating it")
			out := k.must(http.StatusOK, http.MethodGet, query("/Users", `userName eq "ada@corp.test"`)+"&startIndex=1&count=100", "")
			Expect(out["totalResults"]).To(BeEquivalentTo(0))
			created := k.must(http.StatusCreated, http.MethodPost, "/Users", oktaUser("ada@corp.test", "00u1ada"))
			id, _ := created["id"].(string)
			Expect(id).NotTo(BeEmpty())
			Expect(created["active"]).To(BeTrue())
			Expect(created["userName"]).To(Equal("ada@corp.test"))
			Expect(created).NotTo(HaveKey("password"), "a password Okta sends is never kept or answered")
			k.must(http.StatusConflict, http.MethodPost, "/Users", oktaUser("ADA@corp.test", "00u1other"))

			By("finding it by userName (in another case), externalId and id")
			for _, f := range []string{`userName eq "ada@corp.test"`, `userName eq "ADA@CORP.TEST"`, `externalId eq "00u1ada"`} {
				res := list(k.must(http.StatusOK, http.MethodGet, query("/Users", f), ""))
				Expect(res).To(HaveLen(1), f)
				Expect(res[0]["id"]).To(Equal(id))
			}
			Expect(list(k.must(http.StatusOK, http.MethodGet, query("/Users", `userName eq "bob@corp.test"`), ""))).To(BeEmpty())
			Expect(k.must(http.StatusOK, http.MethodGet, "/Users/"+id, "")["externalId"]).To(Equal("00u1ada"))

			By("ada working through the console and the proxy")
			token := k.newToken("ada@corp.test")
			Expect(k.connect(token)).To(Equal(http.StatusOK))

			By("Okta deactivating her")
			out = k.must(http.StatusOK, http.MethodPatch, "/Users/"+id, patchOp+`{"op":"replace","value":{"active":false}}]}`)
			Expect(out["active"]).To(BeFalse())
			Expect(k.connect(token)).To(Equal(http.StatusProxyAuthRequired), "her gateway token is refused")
			status, body := k.console("ada@corp.test", "staff", http.MethodGet, "/auth/me", "")
			Expect(status).To(Equal(http.StatusForbidden), body)
			Expect(body).To(ContainSubstring("deactivated"))
			status, _ = k.console("ada@corp.test", "staff", http.MethodPost, "/auth/tokens", `{"name":"another"}`)
			Expect(status).To(Equal(http.StatusForbidden), "she cannot mint another token")

			By("Okta reactivating her: the console admits her again, her old token stays revoked")
			out = k.must(http.StatusOK, http.MethodPatch, "/Users/"+id, patchOp+`{"op":"replace","value":{"active":true}}]}`)
			Expect(out["active"]).To(BeTrue())
			status, body = k.console("ada@corp.test", "staff", http.MethodGet, "/auth/me", "")
			Expect(status).To(Equal(http.StatusOK), body)
			Expect(k.connect(token)).To(Equal(http.StatusProxyAuthRequired))
			Expect(k.connect(k.newToken("ada@corp.test"))).To(Equal(http.StatusOK), "a token minted after the cut works")
		})

		It("takes Entra ID's shapes: capitalised ops, \"False\" as a string, path-less value maps with dotted keys", func() {
			created := k.must(http.StatusCreated, http.MethodPost, "/Users", entraUser("grace@corp.test", "58342554-38d6-4ec8-948c-50044d0a33fd"))
			id := created["id"].(string)
			token := k.newToken("grace@corp.test")
			Expect(k.connect(token)).To(Equal(http.StatusOK))

			By("Entra ID updating attributes with a path-less Add")
			out := k.must(http.StatusOK, http.MethodPatch, "/Users/"+id, patchOp+
				`{"op":"Add","value":{"displayName":"Grace Hopper","name.givenName":"Grace","name.familyName":"Hopper"}},`+
				`{"op":"Replace","path":"emails[type eq \"work\"].value","value":"grace.hopper@corp.test"}]}`)
			Expect(out["displayName"]).To(Equal("Grace Hopper"))
			Expect(out["name"]).To(HaveKeyWithValue("givenName", "Grace"))
			Expect(out["emails"]).To(ContainElement(HaveKeyWithValue("value", "grace.hopper@corp.test")))
			Expect(out["active"]).To(BeTrue())
			Expect(k.connect(token)).To(Equal(http.StatusOK), "an attribute change cuts nothing")

			By("Entra ID disabling her with the string \"False\"")
			out = k.must(http.StatusOK, http.MethodPatch, "/Users/"+id, patchOp+`{"op":"Replace","path":"active","value":"False"}]}`)
			Expect(out["active"]).To(BeFalse())
			Expect(k.connect(token)).To(Equal(http.StatusProxyAuthRequired))
			status, _ := k.console("grace@corp.test", "staff", http.MethodGet, "/auth/me", "")
			Expect(status).To(Equal(http.StatusForbidden))

			By("Entra ID's filter by userName finding her inactive")
			res := list(k.must(http.StatusOK, http.MethodGet, query("/Users", `userName eq "grace@corp.test"`), ""))
			Expect(res).To(HaveLen(1))
			Expect(res[0]["active"]).To(BeFalse())

			By("Entra ID re-enabling her with a path-less map holding \"True\"")
			out = k.must(http.StatusOK, http.MethodPatch, "/Users/"+id, patchOp+`{"op":"Replace","value":{"active":"True"}}]}`)
			Expect(out["active"]).To(BeTrue())
			status, _ = k.console("grace@corp.test", "staff", http.MethodGet, "/auth/me", "")
			Expect(status).To(Equal(http.StatusOK))
		})

		It("applies Okta's PUT of a whole user, cutting a user it sends inactive", func() {
			id := k.must(http.StatusCreated, http.MethodPost, "/Users", oktaUser("dan@corp.test", "00u1dan"))["id"].(string)
			token := k.newToken("dan@corp.test")
			put := `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"id":"` + id + `","userName":"dan@corp.test",` +
				`"name":{"givenName":"Daniel","familyName":"Doe"},"emails":[{"primary":true,"value":"dan@corp.test","type":"work"}],` +
				`"active":true,"groups":[],"meta":{"resourceType":"User"}}`
			out := k.must(http.StatusOK, http.MethodPut, "/Users/"+id, put)
			Expect(out["name"]).To(HaveKeyWithValue("givenName", "Daniel"))
			Expect(out["externalId"]).To(BeNil(), "a PUT replaces the whole resource")
			Expect(k.connect(token)).To(Equal(http.StatusOK))
			out = k.must(http.StatusOK, http.MethodPut, "/Users/"+id, strings.Replace(put, `"active":true`, `"active":false`, 1))
			Expect(out["active"]).To(BeFalse())
			Expect(k.connect(token)).To(Equal(http.StatusProxyAuthRequired))
		})

		It("cuts a deleted user and forgets them", func() {
			id := k.must(http.StatusCreated, http.MethodPost, "/Users", oktaUser("carol@corp.test", "00u1carol"))["id"].(string)
			gid := k.must(http.StatusCreated, http.MethodPost, "/Groups",
				`{"schemas":["urn:ietf:params:scim:schemas:core:2.0:Group"],"displayName":"staff","members":[{"value":"`+id+`"}]}`)["id"].(string)
			token := k.newToken("carol@corp.test")
			Expect(k.connect(token)).To(Equal(http.StatusOK))
			k.must(http.StatusNoContent, http.MethodDelete, "/Users/"+id, "")
			Expect(k.must(http.StatusOK, http.MethodGet, "/Groups/"+gid, "")["members"]).To(BeEmpty(), "she left her groups")
			Expect(k.connect(token)).To(Equal(http.StatusProxyAuthRequired))
			status, _ := k.console("carol@corp.test", "staff", http.MethodGet, "/auth/me", "")
			Expect(status).To(Equal(http.StatusForbidden))
			k.must(http.StatusNotFound, http.MethodGet, "/Users/"+id, "")
			k.must(http.StatusNotFound, http.MethodDelete, "/Users/"+id, "")
		})

		It("moves a user's groups as Okta and Entra ID change a group's members, and the role map follows", func() {
			ada := k.must(http.StatusCreated, http.MethodPost, "/Users", oktaUser("ada@corp.test", "00u1ada"))["id"].(string)
			bob := k.must(http.StatusCreated, http.MethodPost, "/Users", oktaUser("bob@corp.test", "00u1bob"))["id"].(string)
			token := k.newToken("bob@corp.test")
			Expect(k.connect(token)).To(Equal(http.StatusOK))

			By("Entra ID creating the group with a member, Okta's filter finding it by displayName")
			g := k.must(http.StatusCreated, http.MethodPost, "/Groups",
				`{"schemas":["urn:ietf:params:scim:schemas:core:2.0:Group"],"externalId":"8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159",`+
					`"displayName":"staff","members":[{"value":"`+ada+`"},{"value":"`+bob+`"}]}`)
			gid := g["id"].(string)
			res := list(k.must(http.StatusOK, http.MethodGet, query("/Groups", `displayName eq "staff"`), ""))
			Expect(res).To(HaveLen(1))
			Expect(res[0]["members"]).To(HaveLen(2))

			By("Okta removing bob with a filtered path: staff no longer admits him")
			k.must(http.StatusOK, http.MethodPatch, "/Groups/"+gid, patchOp+`{"op":"remove","path":"members[value eq \"`+bob+`\"]"}]}`)
			Expect(k.connect(token)).To(Equal(http.StatusProxyAuthRequired))

			By("Entra ID adding him back")
			k.must(http.StatusOK, http.MethodPatch, "/Groups/"+gid, patchOp+`{"op":"Add","path":"members","value":[{"$ref":null,"value":"`+bob+`"}]}]}`)
			Expect(k.connect(token)).To(Equal(http.StatusOK))
			Expect(k.must(http.StatusOK, http.MethodGet, "/Groups/"+gid, "")["members"]).To(HaveLen(2))

			By("Entra ID removing him by value, without a filter")
			k.must(http.StatusOK, http.MethodPatch, "/Groups/"+gid, patchOp+`{"op":"Remove","path":"members","value":[{"value":"`+bob+`"}]}]}`)
			Expect(k.connect(token)).To(Equal(http.StatusProxyAuthRequired))

			By("Okta adding him to an administrators' group it creates empty, then renaming it")
			admins := k.must(http.StatusCreated, http.MethodPost, "/Groups", `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:Group"],"displayName":"kg-admins","members":[]}`)["id"].(string)
			k.must(http.StatusOK, http.MethodPatch, "/Groups/"+admins, patchOp+`{"op":"add","path":"members","value":[{"value":"`+bob+`","display":"bob@corp.test"}]}]}`)
			Expect(k.connect(token)).To(Equal(http.StatusOK))
			k.must(http.StatusOK, http.MethodPatch, "/Groups/"+admins, patchOp+`{"op":"replace","value":{"id":"`+admins+`","displayName":"former-admins"}}]}`)
			Expect(k.connect(token)).To(Equal(http.StatusProxyAuthRequired), "a renamed group no longer names a role")

			By("a member who is not a provisioned user being refused")
			k.must(http.StatusBadRequest, http.MethodPatch, "/Groups/"+gid, patchOp+`{"op":"add","path":"members","value":[{"value":"nobody"}]}]}`)

			By("deleting the group")
			k.must(http.StatusNoContent, http.MethodDelete, "/Groups/"+admins, "")
			k.must(http.StatusNotFound, http.MethodGet, "/Groups/"+admins, "")
		})

		It("pages a list by startIndex and count", func() {
			for i := range 5 {
				k.must(http.StatusCreated, http.MethodPost, "/Users", oktaUser(fmt.Sprintf("user%d@corp.test", i), fmt.Sprint("ext", i)))
			}
			out := k.must(http.StatusOK, http.MethodGet, "/Users?startIndex=2&count=2", "")
			Expect(out["totalResults"]).To(BeEquivalentTo(5))
			Expect(out["startIndex"]).To(BeEquivalentTo(2))
			Expect(out["itemsPerPage"]).To(BeEquivalentTo(2))
			res := list(out)
			Expect(res).To(HaveLen(2))
			Expect(res[0]["userName"]).To(Equal("user1@corp.test"))
			Expect(res[1]["userName"]).To(Equal("user2@corp.test"))
			Expect(list(k.must(http.StatusOK, http.MethodGet, "/Users?startIndex=5&count=10", ""))).To(HaveLen(1))
			Expect(list(k.must(http.StatusOK, http.MethodGet, "/Users?startIndex=9", ""))).To(BeEmpty())
			Expect(list(k.must(http.StatusOK, http.MethodGet, query("/Users", `userName sw "user" and active eq true`)+"&count=3", ""))).To(HaveLen(3))
			k.must(http.StatusBadRequest, http.MethodGet, query("/Users", `userName eq`), "")
		})

		It("answers discovery and refuses requests without the token or over the size bound", func() {
			k.must(http.StatusOK, http.MethodGet, "/ServiceProviderConfig", "")
			k.must(http.StatusOK, http.MethodGet, "/ResourceTypes", "")
			req, err := http.NewRequest(http.MethodGet, k.Base+"/scim/v2/Users", nil)
			Expect(err).NotTo(HaveOccurred())
			resp, err := http.DefaultClient.Do(req)
			Expect(err).NotTo(HaveOccurred())
			resp.Body.Close()
			Expect(resp.StatusCode).To(Equal(http.StatusUnauthorized))

			big := `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"big@corp.test","displayName":"` + strings.Repeat("x", 2<<20) + `"}`
			status, _ := k.scim(http.MethodPost, "/Users", big)
			Expect(status).To(BeNumerically(">=", 400))
			Expect(list(k.must(http.StatusOK, http.MethodGet, query("/Users", `userName eq "big@corp.test"`), ""))).To(BeEmpty())
		})
	})
}

var (
	_ = describeSCIM("SQLite", func(context.Context) string { return "" })
	_ = describeSCIM("PostgreSQL", func(ctx context.Context) string {
		GinkgoHelper()
		db, err := pgtest.New(ctx)
		Expect(err).NotTo(HaveOccurred(), "these specs need a PostgreSQL server and never skip")
		DeferCleanup(db.Close)
		return db.DSN
	})
)
