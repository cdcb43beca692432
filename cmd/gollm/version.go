package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// version describes this binary from its build information: the module
// version (a tag, or "(devel)" for a local build), the VCS revision and
// whether the tree had uncommitted changes, and the Go toolchain.
func version() string {
	v, rev, dirty, when := "(devel)", "", false, ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			case "vcs.time":
				when = s.Value
			}
		}
	}
	out := v
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		out += " " + rev
		if dirty {
			out += "+dirty"
		}
		if when != "" {
			out += " (" + when + ")"
		}
	}
	return fmt.Sprintf("%s, %s %s/%s", out, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
