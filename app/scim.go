package app

import (
	"crypto/rand"
	"fmt"
	"net/http"

	"go.uber.org/zap"

	"keygate/adapters/relstore"
	"keygate/adapters/scim"
	"keygate/app/company"
	"keygate/app/config"
	"keygate/app/run"
)

// SCIMRoutes are the SCIM 2.0 endpoint's routes on the main listener
// (/scim/v2), empty when no SCIM token is configured.
type SCIMRoutes map[string]http.Handler

// NewSCIMRoutes mounts SCIM provisioning outside the console's guard,
// behind its own bearer token (KEYGATE_SCIM_TOKEN_FILE): what identity
// providers create, deactivate, delete and group is applied by
// company.Provisioning, audited as the "scim" principal.
func NewSCIMRoutes(cfg config.Config, store *relstore.Store, auditor *company.Auditor, logger *zap.Logger) (SCIMRoutes, error) {
	if cfg.Auth.SCIMToken == "" {
		return SCIMRoutes{}, nil
	}
	dir := store.Directory()
	p := company.NewProvisioning(dir, dir, store.Tokens(), store.Memberships(), run.SystemClock{}, rand.Reader, auditor)
	s, err := scim.New(scim.Options{Provisioning: p, Token: cfg.Auth.SCIMToken, Log: logger.Named("scim")})
	if err != nil {
		return nil, fmt.Errorf("new SCIM endpoint: %w", err)
	}
	logger.Info("SCIM provisioning", zap.String("path", scim.Prefix))
	return SCIMRoutes(s.Routes()), nil
}
