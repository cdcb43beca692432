package quantize

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestMain doubles as the child process of TestWriteFailure: with
// GOLLM_QUANTIZE_CHILD set it quantizes under a small file size limit and
// exits with the error.
func TestMain(m *testing.M) {
	if spec := os.Getenv("GOLLM_QUANTIZE_CHILD"); spec != "" {
		in, out, _ := strings.Cut(spec, "|")
		if err := limitFileSize(64 << 10); err != nil {
			fmt.Println("setup:", err)
			os.Exit(2)
		}
		_, err := QuantizeFile(context.Background(), in, out, MostlyQ8_0, Options{Threads: 2})
		fmt.Println(err)
		if err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
