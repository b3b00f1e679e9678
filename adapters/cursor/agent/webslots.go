package agent

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// DefaultWebPerUser is how many server-run web requests (WebFetch,
// WebSearch) of one user run at once on a replica, whatever the number of
// their calls and turns: each fetch may convert a page for seconds, and a
// model asking for six at once must not take six cores.
const DefaultWebPerUser = 2

// webWait bounds how long a web request waits for one of its user's
// slots; a fetch holds one for at most its own time bound (30 s).
const webWait = time.Minute

// webSlots are the web requests in flight per user. Safe for concurrent
// use.
type webSlots struct {
	per  int
	wait time.Duration
	mu   sync.Mutex
	// users holds a semaphore per user with requests running or waiting,
	// and how many hold or wait on it; it is dropped at zero.
	users map[string]*userSlots
}

type userSlots struct {
	sem  chan struct{}
	refs int
}

func newWebSlots(per int, wait time.Duration) *webSlots {
	return &webSlots{per: per, wait: wait, users: map[string]*userSlots{}}
}

// acquire waits for one of user's slots, until ctx is done or the wait
// bound passes, and returns its release.
func (s *webSlots) acquire(ctx context.Context, user string) (func(), error) {
	s.mu.Lock()
	u := s.users[user]
	if u == nil {
		u = &userSlots{sem: make(chan struct{}, s.per)}
		s.users[user] = u
	}
	u.refs++
	s.mu.Unlock()
	release := func() { <-u.sem; s.leave(user, u) }
	select {
	case u.sem <- struct{}{}: // a free slot is taken at once
		return release, nil
	default:
	}
	timer := time.NewTimer(s.wait)
	defer timer.Stop()
	select {
	case u.sem <- struct{}{}:
		return release, nil
	case <-ctx.Done():
		s.leave(user, u)
		return nil, fmt.Errorf("web request not started: %w", ctx.Err())
	case <-timer.C:
		s.leave(user, u)
		return nil, fmt.Errorf("at most %d web fetches and searches of one user run at a time, and this one could not start within %s; make fewer at once", s.per, s.wait)
	}
}

func (s *webSlots) leave(user string, u *userSlots) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if u.refs--; u.refs == 0 {
		delete(s.users, user)
	}
}
