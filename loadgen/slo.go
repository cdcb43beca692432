package loadgen

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// SLO is a goodput target as vLLM's --goodput gives it: a request is good
// when it succeeded and meets every bound that is set (zero: not set).
type SLO struct {
	TTFT, TPOT, E2EL time.Duration
}

// ParseSLO reads "ttft:500,tpot:50,e2el:2000" (milliseconds; commas or
// spaces between pairs).
func ParseSLO(s string) (SLO, error) {
	var slo SLO
	for _, kv := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		k, v, ok := strings.Cut(kv, ":")
		if !ok {
			return SLO{}, fmt.Errorf("%w: goodput %q: want metric:milliseconds", ErrConfig, kv)
		}
		ms, err := strconv.ParseFloat(v, 64)
		if err != nil || ms <= 0 {
			return SLO{}, fmt.Errorf("%w: goodput %q: %q is not a positive number of milliseconds", ErrConfig, kv, v)
		}
		d := time.Duration(ms * float64(time.Millisecond))
		switch strings.ToLower(k) {
		case "ttft":
			slo.TTFT = d
		case "tpot":
			slo.TPOT = d
		case "e2el":
			slo.E2EL = d
		default:
			return SLO{}, fmt.Errorf("%w: goodput metric %q: want ttft, tpot or e2el", ErrConfig, k)
		}
	}
	return slo, nil
}

// Set reports whether any bound is set.
func (s SLO) Set() bool { return s.TTFT > 0 || s.TPOT > 0 || s.E2EL > 0 }

// Met reports whether r is a good request.
func (s SLO) Met(r *RequestResult) bool {
	if !r.OK() {
		return false
	}
	if s.TTFT > 0 && r.TTFT() > s.TTFT {
		return false
	}
	if s.TPOT > 0 {
		if tpot, ok := r.TPOT(); ok && tpot > s.TPOT {
			return false
		}
	}
	return s.E2EL <= 0 || r.Latency <= s.E2EL
}

// String gives the SLO back in ParseSLO's form.
func (s SLO) String() string {
	var parts []string
	for _, p := range []struct {
		k string
		d time.Duration
	}{{"ttft", s.TTFT}, {"tpot", s.TPOT}, {"e2el", s.E2EL}} {
		if p.d > 0 {
			parts = append(parts, fmt.Sprintf("%s:%g", p.k, float64(p.d)/float64(time.Millisecond)))
		}
	}
	return strings.Join(parts, ",")
}
