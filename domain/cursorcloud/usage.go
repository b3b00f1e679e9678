package cursorcloud

// Usage is one request bound for Cursor, as the ledger counts it: whose,
// which route, what became of it, and the bytes that moved (Up: the
// request body sent to Cursor, 0 when refused; Down: the answer's body).
type Usage struct {
	UserID   string
	Route    Route
	Decision Decision
	Up, Down int64
}

// DayUsage is a ledger row: the requests and bytes of one user on one
// route with one decision on one UTC day ("2006-01-02").
type DayUsage struct {
	Day      string
	UserID   string
	Route    Route
	Decision Decision
	Requests int64
	Up, Down int64
}
