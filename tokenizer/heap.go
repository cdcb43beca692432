package tokenizer

// The merge loops of both tokenizers keep candidate bigrams in a binary
// min-heap ordered by a packed uint64 key (rank or score first, then the
// left position, so ties go to the leftmost pair as in llama.cpp).

// keyed is a heap element.
type keyed interface{ heapKey() uint64 }

func (b bpeBigram) heapKey() uint64 { return b.key }
func (b spmBigram) heapKey() uint64 { return b.key }

// heapPush adds b to the heap h.
func heapPush[T keyed](h []T, b T) []T {
	h = append(h, b)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if h[p].heapKey() <= b.heapKey() {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = b
	return h
}

// heapPop removes and returns the smallest element of the non-empty heap h.
func heapPop[T keyed](h []T) (T, []T) {
	top := h[0]
	last := h[len(h)-1]
	h = h[:len(h)-1]
	n := len(h)
	if n == 0 {
		return top, h
	}
	i := 0
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h[c+1].heapKey() < h[c].heapKey() {
			c++
		}
		if last.heapKey() <= h[c].heapKey() {
			break
		}
		h[i] = h[c]
		i = c
	}
	h[i] = last
	return top, h
}
