package bench

import (
	"errors"
	"reflect"
	"testing"
)

func TestTestNames(t *testing.T) {
	cases := []struct {
		t    Test
		name string
		ctx  int
	}{
		{Test{NPrompt: 512}, "pp512", 512},
		{Test{NGen: 128}, "tg128", 129}, // one untimed token before the timed steps
		{Test{NPrompt: 512, NGen: 128}, "pp512+tg128", 640},
		{Test{NGen: 64, NDepth: 2048}, "tg64@d2048", 2112},
		{Test{NPrompt: 32, NDepth: 8}, "pp32@d8", 40},
	}
	for _, c := range cases {
		if got := c.t.Name(); got != c.name {
			t.Errorf("%+v.Name() = %q, want %q", c.t, got, c.name)
		}
		if got := c.t.Context(); got != c.ctx {
			t.Errorf("%+v.Context() = %d, want %d", c.t, got, c.ctx)
		}
	}
	for _, bad := range []Test{{}, {NPrompt: -1, NGen: 3}, {NGen: 1, NDepth: -2}} {
		if err := bad.Validate(); !errors.Is(err, ErrBadTest) {
			t.Errorf("%+v.Validate() = %v, want ErrBadTest", bad, err)
		}
	}
}

func TestTestsExpansion(t *testing.T) {
	got := Tests([]int{0, 64}, []int{16}, [][2]int{{8, 4}}, []int{0, 100})
	want := []Test{
		{NPrompt: 64}, {NGen: 16}, {NPrompt: 8, NGen: 4},
		{NPrompt: 64, NDepth: 100}, {NGen: 16, NDepth: 100}, {NPrompt: 8, NGen: 4, NDepth: 100},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Tests = %+v\nwant %+v", got, want)
	}
}
