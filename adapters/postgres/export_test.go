package postgres

// ListenerLock is the advisory lock key the relay's listening connection
// holds (0 while it holds none), for specs that cut that connection.
func (r *Relay) ListenerLock() int64 { return r.lock.Load() }
