package engine

// BatchSize is the most tokens one forward pass takes: a prompt of n tokens
// runs in ceil(n/BatchSize) passes, each reading every weight once, which is
// what per-op bandwidth figures need.
func (m *Model) BatchSize() int { return m.state.batch }
