package engine

import (
	"fmt"
	"testing"

	"github.com/gollm/gollm/quant"
)

func TestZZEmbed(t *testing.T) {
	m, err := Load("../../shared/models/tiny-Q4_0.gguf", Options{Threads: 2, Context: 256})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	e := m.Weights.TokEmbd
	rb := len(e.Data) / e.Rows
	for _, id := range []int{295, 261, 370, 404} {
		row := e.Data[id*rb : (id+1)*rb]
		got := make([]float32, 256)
		m.embed(got, int32(id))
		want := make([]float32, 256)
		quant.DequantizeRowQ4_0(row, want)
		mx := float32(0)
		for _, x := range want {
			mx = max(mx, x, -x)
		}
		fmt.Println(id, got[:4], want[:4], "max", mx, "d of blocks:", row[0], row[1])
	}
}
