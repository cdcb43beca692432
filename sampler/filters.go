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

// topK keeps the k best candidates (llama_sampler_top_k): the result is
// sorted best first.
func topK(c []candidate, k int) []candidate {
	k = min(k, len(c))
	selectTop(c, k)
	return c[:k]
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
// and unsorted: usually the nucleus is far smaller than the vocabulary, so a
// partial selection avoids sorting 150k entries.
const (
	topPHead         = 256
	topPAdaptiveFrom = 1024
)

// topP keeps the shortest best-first prefix whose cumulative probability
// reaches p (at least one token). The result is sorted best first.
func topP(c []candidate, sorted bool, p float32) []candidate {
	softmax(c)
	n := len(c)
	head := n // c[:head] is known to be sorted and to hold the best entries
	if !sorted {
		if n > topPAdaptiveFrom {
			head = topPHead
			selectTop(c, head)
		} else {
			sortCandidates(c)
		}
	}
	var cum float32
	for i := 0; i < n; i++ {
		if i == head { // the nucleus is wider than the sorted head
			sortCandidates(c[head:])
			head = n
		}
		cum += c[i].p
		if cum >= p {
			return c[:i+1]
		}
	}
	return c
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
