package bench_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/gollm/gollm/bench"
	"github.com/gollm/gollm/engine"
	"github.com/gollm/gollm/synth"
)

// Benchmark a model as `gollm bench` does: llama-bench's pp and tg tests,
// each run once to warm up and then Reps times, summarized into report
// rows. (The model here is synth's tiny random one, written first.)
func Example() {
	dir, err := os.MkdirTemp("", "bench-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "tiny-Q8_0.gguf")
	shape, _ := synth.Lookup("tiny")
	if err := synth.Write(path, shape, synth.Options{FileType: "Q8_0", Seed: 1}); err != nil {
		log.Fatal(err)
	}

	tests := bench.Tests([]int{16}, []int{8}, nil, nil) // pp16, tg8
	m, err := engine.Load(path, engine.Options{Threads: 1, Context: 32})
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	m.WaitPacked() // time the kernels, not the weight repacking

	mach := bench.DetectMachine()
	info := bench.DescribeModel(m, path, "")
	var rows []bench.Result
	for _, t := range tests {
		meas, err := bench.Run(context.Background(), m, t, bench.RunConfig{Reps: 3, Seed: 1})
		if err != nil {
			log.Fatal(err)
		}
		r := bench.NewResult(info, mach, meas)
		rows = append(rows, r)
		fmt.Printf("%s %s: %d samples, tok/s > 0: %v\n", r.Model, r.Test, len(r.SamplesTS), r.AvgTS > 0)
	}
	// bench.Write(os.Stdout, "md", mach, rows) prints llama-bench's table;
	// "json", "csv", "jsonl" and "benchstat" are the other formats.
	fmt.Println(len(rows), "rows")
	// Output:
	// tiny-Q8_0 pp16: 3 samples, tok/s > 0: true
	// tiny-Q8_0 tg8: 3 samples, tok/s > 0: true
	// 2 rows
}
