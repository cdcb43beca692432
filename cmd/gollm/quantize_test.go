package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestQuantizeOverridesCLI makes ../shared's stories260K-Q8_0-ffndownF16.gguf
// with the options llama-quantize was given and compares the bytes.
func TestQuantizeOverridesCLI(t *testing.T) {
	models := filepath.Join(instrShared(t), "models")
	out := filepath.Join(t.TempDir(), "out.gguf")
	_, stderr, code := run(t, "quantize", "--tensor-type", "ffn_down=f16", "-t", "2",
		filepath.Join(models, "stories260K.gguf"), out, "Q8_0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(models, "stories260K-Q8_0-ffndownF16.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from llama-quantize's (%d vs %d bytes)", len(got), len(want))
	}

	// bad overrides are usage errors naming the flag
	in := filepath.Join(models, "stories260K.gguf")
	for _, args := range [][]string{
		{"--tensor-type", "ffn_down"},
		{"--tensor-type", "ffn_down=q9_9"},
		{"--output-tensor-type", "q8_k"},
		{"--token-embedding-type", "nope"},
	} {
		_, stderr, code := run(t, append(append([]string{"quantize"}, args...), in, out+".x", "Q8_0")...)
		if code != 2 || !strings.Contains(stderr, args[0]) {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming %s", args, code, stderr, args[0])
		}
	}

	// the requantize refusal names the flag, with its dashes
	_, stderr, code = run(t, "quantize", filepath.Join(models, "tiny-Q8_0.gguf"), out+".q4", "Q4_0")
	if code == 0 || !strings.Contains(stderr, "--allow-requantize") {
		t.Errorf("requantize without the flag: exit %d, stderr %q", code, stderr)
	}
}
