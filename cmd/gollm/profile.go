package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"

	"github.com/spf13/cobra"
)

// profileFlags are the Go profiler outputs generate and bench can write.
type profileFlags struct {
	cpu, mem, trace string
}

func (p *profileFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&p.cpu, "cpuprofile", "", "write a CPU profile (go tool pprof; labels phase/layer/op, e.g. -tagfocus=op=ffn_down)")
	fl.StringVar(&p.mem, "memprofile", "", "write an allocation profile at the end")
	fl.StringVar(&p.trace, "trace", "", "write an execution trace (go tool trace)")
}

// labels reports whether the engine should set pprof labels: only a CPU
// profile or a trace can show them, and they cost a little per op.
func (p *profileFlags) labels() bool { return p.cpu != "" || p.trace != "" }

// start begins the CPU profile and the trace; the returned stop ends them
// and writes the allocation profile. On error nothing is left running.
func (p *profileFlags) start() (stop func() error, err error) {
	var stops []func() error
	stopAll := func() error {
		var errs []error
		for i := len(stops) - 1; i >= 0; i-- {
			errs = append(errs, stops[i]())
		}
		return errors.Join(errs...)
	}
	if p.cpu != "" {
		f, err := os.Create(p.cpu)
		if err != nil {
			return nil, fmt.Errorf("cpuprofile: %w", err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return nil, fmt.Errorf("cpuprofile: %w", err)
		}
		stops = append(stops, func() error { pprof.StopCPUProfile(); return closeErr("cpuprofile", f) })
	}
	if p.trace != "" {
		f, err := os.Create(p.trace)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("trace: %w", err), stopAll())
		}
		if err := trace.Start(f); err != nil {
			f.Close()
			return nil, errors.Join(fmt.Errorf("trace: %w", err), stopAll())
		}
		stops = append(stops, func() error { trace.Stop(); return closeErr("trace", f) })
	}
	if p.mem != "" {
		// Create the file now so a bad path fails before the run, not after.
		f, err := os.Create(p.mem)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("memprofile: %w", err), stopAll())
		}
		stops = append(stops, func() error {
			runtime.GC() // up-to-date in-use figures
			if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
				f.Close()
				return fmt.Errorf("memprofile: %w", err)
			}
			return closeErr("memprofile", f)
		})
	}
	return stopAll, nil
}

func closeErr(what string, f *os.File) error {
	if err := f.Close(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}
