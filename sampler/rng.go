package sampler

import "math"

// mt19937 is the 32-bit Mersenne Twister, the generator llama.cpp's dist
// sampler uses (std::mt19937). Owning the exact algorithm means a seed given
// here draws the same numbers as the same seed given to llama.cpp, which makes
// sampled output comparable between the two engines.
type mt19937 struct {
	mt  [mtN]uint32
	idx int
}

const (
	mtN         = 624
	mtM         = 397
	mtMatrixA   = 0x9908b0df
	mtUpperMask = 0x80000000
	mtLowerMask = 0x7fffffff
)

// seed32 is std::mt19937's constructor / seed(value).
func (m *mt19937) seed32(s uint32) {
	m.mt[0] = s
	for i := 1; i < mtN; i++ {
		prev := m.mt[i-1]
		m.mt[i] = 1812433253*(prev^(prev>>30)) + uint32(i)
	}
	m.idx = mtN
}

// seedArray is the reference init_by_array, used for seeds that do not fit in
// 32 bits so that the high half of the seed matters.
func (m *mt19937) seedArray(key []uint32) {
	m.seed32(19650218)
	i, j := 1, 0
	k := max(mtN, len(key))
	for ; k > 0; k-- {
		prev := m.mt[i-1]
		m.mt[i] = (m.mt[i] ^ ((prev ^ (prev >> 30)) * 1664525)) + key[j] + uint32(j)
		i++
		j++
		if i >= mtN {
			m.mt[0] = m.mt[mtN-1]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k = mtN - 1; k > 0; k-- {
		prev := m.mt[i-1]
		m.mt[i] = (m.mt[i] ^ ((prev ^ (prev >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= mtN {
			m.mt[0] = m.mt[mtN-1]
			i = 1
		}
	}
	m.mt[0] = 0x80000000
	m.idx = mtN
}

// seed64 picks the llama.cpp-compatible seeding for 32-bit seeds and
// init_by_array for wider ones.
func (m *mt19937) seed64(s uint64) {
	if s>>32 == 0 {
		m.seed32(uint32(s))
		return
	}
	key := [2]uint32{uint32(s), uint32(s >> 32)}
	m.seedArray(key[:])
}

func (m *mt19937) twist() {
	for i := 0; i < mtN; i++ {
		y := (m.mt[i] & mtUpperMask) | (m.mt[(i+1)%mtN] & mtLowerMask)
		v := m.mt[(i+mtM)%mtN] ^ (y >> 1)
		if y&1 != 0 {
			v ^= mtMatrixA
		}
		m.mt[i] = v
	}
	m.idx = 0
}

// uint32 returns the next tempered output.
func (m *mt19937) uint32() uint32 {
	if m.idx >= mtN {
		m.twist()
	}
	y := m.mt[m.idx]
	m.idx++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

// float64 returns a uniform number in [0, 1) exactly as libstdc++'s
// std::uniform_real_distribution<double>(0, 1) does with a 32-bit engine
// (std::generate_canonical: two draws, low word first, summed in double).
func (m *mt19937) float64() float64 {
	const two32 = 4294967296.0
	lo := float64(m.uint32())
	hi := float64(m.uint32())
	r := (lo + hi*two32) / (two32 * two32)
	if r >= 1 {
		r = math.Nextafter(1, 0)
	}
	return r
}
