package server

import (
	"context"
	"net/http"

	"github.com/gollm/gollm/scheduler"
)

// Shutdown stops hs gracefully: new requests are refused (the listener
// closes, the scheduler drains), running ones may finish until ctx ends,
// then whatever still runs is cancelled (its clients get their streams'
// ends) and the scheduler stops. The scheduler is closed in every case.
func Shutdown(ctx context.Context, hs *http.Server, sched *scheduler.Scheduler) error {
	sched.Drain()
	err := hs.Shutdown(ctx)
	sched.Close() // cancels what still runs, so its handlers return
	if err != nil {
		return hs.Close()
	}
	return nil
}
