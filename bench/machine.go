package bench

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/gollm/gollm/kernels"
	"github.com/klauspost/cpuid/v2"
)

// Machine names the hardware and build a benchmark ran on.
type Machine struct {
	CPU          string  `json:"cpu_info"`
	Cores        int     `json:"cpu_cores"`   // physical
	LogicalCPUs  int     `json:"cpu_threads"` // logical
	Kernels      string  `json:"kernels"`     // kernel implementation chosen at init (generic, avx2)
	GoVersion    string  `json:"go_version"`
	OS           string  `json:"goos"`
	Arch         string  `json:"goarch"`
	MemReadGBs   float64 `json:"mem_read_gbs"`   // sustained read bandwidth, GB/s (0: not known)
	MemReadGiven bool    `json:"mem_read_given"` // from --mem-bw rather than measured
	// The least and greatest bandwidth probed beside the tests
	// (RunConfig.ProbeBandwidth; 0: no test was probed).
	MemReadProbedMinGBs float64 `json:"mem_read_probed_min_gbs,omitempty"`
	MemReadProbedMaxGBs float64 `json:"mem_read_probed_max_gbs,omitempty"`
}

// DetectMachine describes this machine; MemReadGBs is left to the caller
// (measuring it takes a second and a buffer of hundreds of MiB).
func DetectMachine() Machine {
	cpu := strings.TrimSpace(cpuid.CPU.BrandName)
	if cpu == "" {
		cpu = "unknown CPU"
	}
	cores := cpuid.CPU.PhysicalCores
	if cores <= 0 {
		cores = runtime.NumCPU()
	}
	return Machine{CPU: cpu, Cores: cores, LogicalCPUs: runtime.NumCPU(), Kernels: kernels.Impl(),
		GoVersion: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
}

// String is a one-line description.
func (m Machine) String() string {
	s := fmt.Sprintf("%s, %d cores / %d threads, kernels %s, %s %s/%s", m.CPU, m.Cores, m.LogicalCPUs,
		m.Kernels, m.GoVersion, m.OS, m.Arch)
	if m.MemReadGBs > 0 {
		how := "measured"
		if m.MemReadGiven {
			how = "given"
		}
		s += fmt.Sprintf(", memory read %.1f GB/s (%s)", m.MemReadGBs, how)
	}
	if lo, hi := m.MemReadProbedMinGBs, m.MemReadProbedMaxGBs; hi > 0 {
		r := fmt.Sprintf("%.1f", hi)
		if l := fmt.Sprintf("%.1f", lo); l != r {
			r = l + "-" + r
		}
		if m.MemReadGBs > 0 { // some rows' models were too small to probe on
			s += fmt.Sprintf("; %s GB/s probed beside the larger models' tests (their rows' BW %% use their own)", r)
		} else {
			s += fmt.Sprintf(", memory read %s GB/s probed beside each test (each row's BW %% uses its own)", r)
		}
	}
	return s
}
