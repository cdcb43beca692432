package sampler

import (
	"slices"
	"testing"
)

// The expected token sequences below were produced by llama.cpp's sampler
// functions (top_k, top_p with its adaptive partial sort, min_p, temp, dist,
// penalties; transcribed from src/llama-sampling.cpp into a throwaway C++
// harness) with libstdc++'s std::mt19937 and uniform_real_distribution, on
// the synthetic logits of refLogit. They pin the chain order, the float32
// softmax/cut-off arithmetic, the candidate order dist walks, and the RNG.
//
// The logits sit on a 1e-5 grid so that no two candidates tie: llama.cpp
// orders ties however std::sort leaves them, gollm by lower id, and a tie
// inside the walked prefix would legitimately shift which id a draw lands on.

// refHash and refLogit must stay bit-identical to the harness.
func refHash(a, b uint32) uint32 {
	x := a*0x9E3779B1 ^ (b+0x7F4A7C15)*0x85EBCA77
	x ^= x >> 15
	x *= 0x2C1B3C6D
	x ^= x >> 12
	x *= 0x297A2D39
	x ^= x >> 15
	return x
}

func refLogit(step, i uint32) float32 {
	base := float32(int32(refHash(0xB5, i)%2000001)-1000000) / 100000
	noise := float32(int32(refHash(step+1, i)%200001)-100000) / 100000
	return base + noise
}

func refLogits(step, vocab int, dst []float32) []float32 {
	dst = dst[:0]
	for i := 0; i < vocab; i++ {
		dst = append(dst, refLogit(uint32(step), uint32(i)))
	}
	return dst
}

var referenceCases = []struct {
	name  string
	vocab int
	cfg   Config
	want  []int32
}{
	{"default", 2000, Config{Temperature: 0.8, TopK: 40, TopP: 0.95, MinP: 0.05, RepeatPenalty: 1, PenaltyLastN: 64, Seed: 42},
		[]int32{1415, 1597, 1797, 235, 683, 1597, 1359, 259, 777, 1609, 235, 1018, 1643, 986, 897, 1747, 1956, 1497, 1735, 1945, 555, 1382, 398, 1903, 969, 1415, 1359, 1771, 1856, 430, 1711, 1945}},
	{"penalties", 2000, Config{Temperature: 1, TopK: 40, TopP: 0.95, MinP: 0.05, RepeatPenalty: 1.3, FrequencyPenalty: 0.5, PresencePenalty: 0.5, PenaltyLastN: 16, Seed: 7},
		[]int32{66, 969, 1970, 555, 1643, 1471, 155, 171, 1597, 818, 683, 942, 398, 1797, 1350, 464, 897, 1276, 414, 57, 111, 1750, 722, 1455, 418, 907, 1359, 1956, 1323, 1516, 430, 1718}},
	{"topp_adaptive", 2000, Config{Temperature: 0.9, TopP: 0.9, RepeatPenalty: 1, PenaltyLastN: 64, Seed: 123},
		[]int32{323, 1668, 907, 1971, 1428, 1538, 249, 1711, 1415, 1797, 1797, 56, 1771, 688, 1339, 1945, 338, 651, 1422, 1382, 1668, 155, 1168, 269, 102, 1332, 1020, 414, 1641, 733, 921, 1408}},
	{"topp_wide", 2000, Config{Temperature: 2, TopP: 0.99, RepeatPenalty: 1, PenaltyLastN: 64, Seed: 5},
		[]int32{1711, 616, 1718, 1964, 733, 1268, 398, 589, 399, 182, 614, 1922, 1410, 529, 1668, 921, 1745, 1917, 921, 1268, 1221, 239, 1797, 1707, 911, 630, 417, 1942, 1597, 75, 199, 591}},
	{"minp_unsorted", 2000, Config{Temperature: 1.2, TopP: 1, MinP: 0.1, RepeatPenalty: 1, PenaltyLastN: 64, Seed: 99},
		[]int32{1459, 1643, 1497, 1339, 390, 1945, 1123, 969, 1643, 722, 469, 1339, 986, 719, 1276, 688, 651, 1339, 1422, 683, 819, 1422, 1439, 529, 1803, 869, 1206, 76, 1217, 505, 155, 1168}},
	{"temp_only", 2000, Config{Temperature: 1.5, TopP: 1, RepeatPenalty: 1, PenaltyLastN: 64, Seed: 2024},
		[]int32{1498, 1496, 1214, 1747, 1970, 70, 1571, 1359, 1442, 57, 249, 1797, 269, 1995, 817, 457, 54, 1536, 942, 733, 733, 1609, 837, 398, 469, 1339, 936, 1419, 1350, 819, 1415, 1323}},
	{"big_vocab", 152064, Config{Temperature: 0.8, TopK: 40, TopP: 0.95, MinP: 0.05, RepeatPenalty: 1.1, PenaltyLastN: 64, Seed: 1},
		[]int32{116228, 3692, 46693, 32380, 11710, 37827, 2364, 84103, 34889, 17269, 151471, 8364, 116025, 36033, 89983, 26300}},
	{"small_topp", 300, Config{Temperature: 1, TopP: 0.8, MinP: 0.02, RepeatPenalty: 1.5, FrequencyPenalty: 0.2, PresencePenalty: 0.1, PenaltyLastN: 8, Seed: 31337},
		[]int32{171, 118, 239, 259, 235, 163, 204, 56, 66, 269, 155, 76, 54, 81, 239, 118, 230, 102, 98, 57, 111, 171, 50, 235, 239, 66, 230, 285, 204, 155, 98, 199}},
}

func TestMatchesLlamaCppChain(t *testing.T) {
	for _, tc := range referenceCases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := New(tc.cfg, tc.vocab)
			if err != nil {
				t.Fatal(err)
			}
			var logits []float32
			got := make([]int32, 0, len(tc.want))
			for step := range tc.want {
				logits = refLogits(step, tc.vocab, logits)
				tok := s.Sample(logits)
				s.Accept(tok)
				got = append(got, tok)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("tokens differ from llama.cpp\n got %v\nwant %v", got, tc.want)
			}
		})
	}
}
