package control

import (
	"context"
	"fmt"
	"time"

	"keygate/domain/access"
	"keygate/domain/cursorcloud"
	"keygate/ports"
)

// Bounds of a Cursor cloud ledger query.
const (
	defaultCloudDays  = 7
	maxCloudDays      = 90
	defaultCloudLimit = 200
	maxCloudLimit     = 1000
)

// CursorCloud answers the console's Cursor cloud page: the policy in force
// and the ledger of what went to Cursor's own service. An administrator
// sees everyone's rows; a member only their own, whatever they ask.
type CursorCloud struct {
	store  ports.CloudUsageStore
	policy cursorcloud.Policy
	served func(path string) bool
	now    func() time.Time
}

// NewCursorCloud reads the ledger from store under policy; served says
// which paths this Keygate mounts (nil: none); now is the clock (time.Now
// when nil).
func NewCursorCloud(store ports.CloudUsageStore, policy cursorcloud.Policy, served func(path string) bool, now func() time.Time) *CursorCloud {
	if now == nil {
		now = time.Now
	}
	return &CursorCloud{store: store, policy: policy, served: served, now: now}
}

// CursorCloudQuery selects ledger rows: Days back from today (UTC, today
// included), one user's (UserID) or everyone's, at most Limit rows.
type CursorCloudQuery struct {
	Days   int
	UserID string
	Limit  int
}

// CursorCloudView is the page.
type CursorCloudView struct {
	Policy  cursorcloud.Policy
	Meaning string
	Rows    []cursorcloud.DayUsage
	// ServedRoutes counts the classified routes Keygate mounts;
	// MetadataRoutes and CodeRoutes the others by class.
	ServedRoutes, MetadataRoutes, CodeRoutes int
}

// Get reads the view; a member's query is limited to their own rows.
func (c *CursorCloud) Get(ctx context.Context, q CursorCloudQuery) (CursorCloudView, error) {
	if p, ok := access.FromContext(ctx); ok && !p.IsAdmin() {
		q.UserID = p.Identity.UserID
	}
	if q.Days <= 0 {
		q.Days = defaultCloudDays
	}
	q.Days = min(q.Days, maxCloudDays)
	if q.Limit <= 0 {
		q.Limit = defaultCloudLimit
	}
	q.Limit = min(q.Limit, maxCloudLimit)
	today := c.now().UTC()
	rows, err := c.store.ListCloudUsage(ctx, ports.CloudUsageQuery{UserID: q.UserID,
		Since: today.AddDate(0, 0, 1-q.Days).Format(time.DateOnly), Until: today.Format(time.DateOnly), Limit: q.Limit})
	if err != nil {
		return CursorCloudView{}, fmt.Errorf("read cursor cloud ledger: %w", err)
	}
	v := CursorCloudView{Policy: c.policy, Meaning: c.policy.Meaning(), Rows: rows}
	for _, e := range cursorcloud.Table() {
		switch _, class := cursorcloud.ClassifyServed("/"+e.Route.String(), c.served); class {
		case cursorcloud.ClassServed:
			v.ServedRoutes++
		case cursorcloud.ClassMetadata:
			v.MetadataRoutes++
		default:
			v.CodeRoutes++
		}
	}
	return v, nil
}
