package sampler

import (
	"math"
	"slices"
)

// candidate is one token under consideration (llama_token_data).
type candidate struct {
	id    int32
	logit float32
	p     float32
}

// better orders candidates best first: higher logit, then lower id. The id
// tie-break makes the order total, so top-k = 1 always agrees with greedy
// and results do not depend on the sorting algorithm.
func better(a, b candidate) bool {
	return a.logit > b.logit || (a.logit == b.logit && a.id < b.id)
}

func cmpCandidates(a, b candidate) int {
	switch {
	case better(a, b):
		return -1
	case better(b, a):
		return 1
	}
	return 0
}

func sortCandidates(c []candidate) { slices.SortFunc(c, cmpCandidates) }

// selectTop moves the k best candidates to c[:k], sorted best first, leaving
// the rest (all no better than c[k-1]) unordered in c[k:]. It runs a k-sized
// heap over the slice in place: O(n log k) with almost every element
// rejected by a single comparison when k is small against a 150k vocabulary,
// and no buffer beyond c itself.
func selectTop(c []candidate, k int) {
	n := len(c)
	if k <= 0 {
		return
	}
	if k*4 >= n { // a large share is wanted: a full sort is cheaper
		sortCandidates(c)
		return
	}
	h := c[:k] // min-heap: h[0] is the worst of the current best k
	for i := k/2 - 1; i >= 0; i-- {
		siftDown(h, i)
	}
	for i := k; i < n; i++ {
		if better(c[i], h[0]) {
			h[0], c[i] = c[i], h[0]
			siftDown(h, 0)
		}
	}
	// Heap sort: pop the worst to the back until the front is the best.
	for end := k - 1; end > 0; end-- {
		h[0], h[end] = h[end], h[0]
		siftDown(h[:end], 0)
	}
}

func siftDown(h []candidate, i int) {
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && better(h[l], h[r]) {
			m = r
		}
		if !better(h[i], h[m]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// candidatesFromLogits fills dst with the whole row in id order, NaN read as
// -Inf.
func candidatesFromLogits(l []float32, dst []candidate) []candidate {
	c := dst[:len(l)]
	negInf := float32(math.Inf(-1))
	for i, v := range l {
		if v != v {
			v = negInf
		}
		c[i] = candidate{id: int32(i), logit: v}
	}
	return c
}

// topKFromLogits is llama_sampler_top_k on a raw row: the k best entries of l
// (ties to the lower id), sorted best first, written to dst. It keeps a
// k-sized heap of candidates and scans the floats against the heap's worst
// logit: ids grow along the scan, so an equal logit never displaces an
// earlier id and a strict > is the whole test. NaN fails it, so NaN enters
// only through the first k entries, where it is read as -Inf.
func topKFromLogits(l []float32, k int, dst []candidate) []candidate {
	n := len(l)
	k = min(k, n)
	if k*4 >= n { // a large share is wanted: sort everything instead
		c := candidatesFromLogits(l, dst)
		sortCandidates(c)
		return c[:k]
	}
	h := candidatesFromLogits(l[:k], dst)
	for i := k/2 - 1; i >= 0; i-- {
		siftDown(h, i)
	}
	worst := h[0].logit
	for i := k; i < n; i++ {
		if v := l[i]; v > worst {
			h[0] = candidate{id: int32(i), logit: v}
			siftDown(h, 0)
			worst = h[0].logit
		}
	}
	for end := k - 1; end > 0; end-- {
		h[0], h[end] = h[end], h[0]
		siftDown(h[:end], 0)
	}
	return h
}

// expWeight is exp(logit - max) with the case logit == max pinned to 1, so
// that +Inf logits (or all -Inf ones) give weights instead of NaN.
func expWeight(logit, maxLogit float32) float32 {
	if logit == maxLogit {
		return 1
	}
	return float32(math.Exp(float64(logit - maxLogit)))
}

func maxLogit(c []candidate) float32 {
	m := float32(math.Inf(-1))
	for i := range c {
		m = max(m, c[i].logit)
	}
	return m
}

// softmax fills c[i].p in float32 arithmetic and in the current order, as
// llama_sampler_softmax_impl does, so that top-p cut-offs land where
// llama.cpp's do.
func softmax(c []candidate) {
	m := maxLogit(c)
	var sum float32
	for i := range c {
		p := expWeight(c[i].logit, m)
		c[i].p = p
		sum += p
	}
	for i := range c {
		c[i].p /= sum
	}
}

// topPHead is how many candidates top-p sorts first when the set is large
// and unsorted: for a peaked distribution the nucleus is far smaller than the
// vocabulary, so a partial selection avoids sorting 150k entries.
const (
	topPHead         = 256
	topPAdaptiveFrom = 1024
)

// topP keeps the shortest best-first prefix whose cumulative probability
// reaches p (at least one token), as llama_sampler_top_p: float32 softmax and
// running sum, so the cut lands where llama.cpp's does. The result is sorted
// best first.
func topP(c []candidate, sorted bool, p float32) []candidate {
	softmax(c)
	n := len(c)
	head := n // c[:head] is sorted and holds the best entries
	if !sorted {
		if n > topPAdaptiveFrom {
			head = min(topPHead, n)
			selectTop(c, head)
		} else {
			sortCandidates(c)
		}
	}
	var cum float32
	for i := 0; i < n; i++ {
		if i == head {
			head = extendSorted(c, head, p-cum)
		}
		cum += c[i].p
		if cum >= p {
			return c[:i+1]
		}
	}
	return c
}

// Buckets of logit distance below the maximum, used to find how much of the
// unsorted tail a wide nucleus needs (the same idea as llama.cpp's bucket
// partial sort).
const (
	massBuckets     = 128
	massBucketWidth = 0.25 // logits; the last bucket takes everything beyond 31.75
)

func massBucket(top, logit float32) int {
	d := top - logit
	switch {
	case d < 0:
		return 0
	case d < massBuckets*massBucketWidth:
		return int(d * (1 / massBucketWidth))
	}
	return massBuckets - 1 // far below, -Inf, or NaN from Inf-Inf
}

// extendSorted grows the sorted head c[:head] of a top-p walk that still
// needs probability mass `need`. It histograms the tail's mass by logit
// distance from the best logit, moves every tail entry from the buckets that
// cover `need` (plus one bucket of slack for float32 rounding in the walk) to
// the front of the tail, and sorts just those: O(n) plus a sort of the
// nucleus, instead of sorting the whole vocabulary. It returns the new head;
// if rounding still leaves the walk short it sorts the remainder outright.
func extendSorted(c []candidate, head int, need float32) int {
	tail := c[head:]
	if len(tail) == 0 {
		return head
	}
	if head == 0 || len(tail) <= topPAdaptiveFrom {
		sortCandidates(tail)
		return len(c)
	}
	top := c[0].logit
	var mass [massBuckets]float64
	for i := range tail {
		mass[massBucket(top, tail[i].logit)] += float64(tail[i].p)
	}
	last := massBuckets - 1
	var acc float64
	for b := range mass {
		acc += mass[b]
		if acc >= float64(need) {
			last = min(b+1, massBuckets-1)
			break
		}
	}
	if last == massBuckets-1 { // needs (nearly) everything
		sortCandidates(tail)
		return len(c)
	}
	m := 0
	for i := range tail {
		if massBucket(top, tail[i].logit) <= last {
			tail[m], tail[i] = tail[i], tail[m]
			m++
		}
	}
	sortCandidates(tail[:m])
	if m == 0 {
		sortCandidates(tail)
		return len(c)
	}
	return head + m
}

// minP keeps the candidates whose probability is at least p times the top
// one, compared in logit space: logit >= max + ln(p). An unsorted set keeps
// its order, as llama.cpp's unsorted path does.
func minP(c []candidate, sorted bool, p float32) []candidate {
	if len(c) == 0 {
		return c
	}
	lnP := float32(math.Log(float64(p)))
	if sorted {
		cut := c[0].logit + lnP
		i := 1 // the best token always stays
		for i < len(c) && c[i].logit >= cut {
			i++
		}
		return c[:i]
	}
	cut := maxLogit(c) + lnP
	j := 0
	for i := range c {
		if c[i].logit >= cut {
			c[j] = c[i]
			j++
		}
	}
	return c[:j] // never empty: the maximum itself always passes
}

// temperature divides the logits by t (> 0).
func temperature(c []candidate, t float32) {
	for i := range c {
		c[i].logit /= t
	}
}
