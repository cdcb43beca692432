package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gollm/gollm/internal/shared"
)

// TestQuantizeOverridesCLI makes ../shared's stories260K-Q8_0-ffndownF16.gguf
// with the options llama-quantize was given and compares the bytes.
func TestQuantizeOverridesCLI(t *testing.T) {
	models := shared.Dir(t, "models")
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

// TestQuantizeOverrideFlags: each override flag reaches the plan, and
// --tensor-type and --tensor-type-file rules keep their command-line order.
func TestQuantizeOverrideFlags(t *testing.T) {
	models := shared.Dir(t, "models")
	in := filepath.Join(models, "tiny-F32.gguf")
	rules := filepath.Join(t.TempDir(), "rules.txt")
	if err := os.WriteFile(rules, []byte("attn_q=q5_0\n  attn_k=q5_1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := run(t, "quantize", "--dry-run", "--leave-output-tensor", "--token-embedding-type", "q8_0",
		"--tensor-type", "blk\\.0\\.attn_q=q4_1", "--tensor-type-file", rules, "--tensor-type", "attn=f16",
		in, filepath.Join(t.TempDir(), "x.gguf"), "Q4_K_M")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	types := map[string]string{}
	for _, line := range strings.Split(stdout, "\n") {
		f := strings.Fields(line) // name, shape (with spaces), from, ->, to, bytes
		if i := slices.Index(f, "->"); i > 0 && i+1 < len(f) {
			types[f[0]] = f[i+1]
		}
	}
	for name, want := range map[string]string{
		"output.weight":            "F32", // left as it is
		"token_embd.weight":        "Q8_0",
		"blk.0.attn_q.weight":      "Q4_1", // the first rule
		"blk.1.attn_q.weight":      "Q5_0", // the file's first rule
		"blk.1.attn_k.weight":      "Q5_1",
		"blk.1.attn_output.weight": "F16",  // the last rule
		"blk.1.ffn_up.weight":      "Q4_K", // no rule: the mix
	} {
		if types[name] != want {
			t.Errorf("%s: %q, want %s", name, types[name], want)
		}
	}
	if _, stderr, code := run(t, "quantize", "--pure", "--tensor-type-file", rules+".absent", in, rules+".gguf", "Q8_0"); code != 2 ||
		!strings.Contains(stderr, "--tensor-type-file") {
		t.Errorf("absent rules file: exit %d, %q", code, stderr)
	}
}
