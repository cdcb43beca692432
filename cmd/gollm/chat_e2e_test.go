package main

import (
	"encoding/binary"
	"encoding/json"
	"github.com/gollm/gollm/internal/shared"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gollm/gollm/gguf"
)

const (
	eotID         = 128009 // <|eot_id|>
	llamaBOS      = 128000
	chatMessages  = `[{"role":"system","content":"Be brief."},{"role":"user","content":"Hi there"}]`
	chatUserTurns = "Hello there\n/stats\nHow are you?\n/stats\n"
)

// wantChatIDs are llama.cpp's (b10573 llama-tokenize, special tokens parsed)
// ids of chatMessages rendered with the Llama 3.1 template, minus the second
// BOS it adds in front of the template's own.
var wantChatIDs = []int32{128000, 128006, 9125, 128007, 271, 38766, 1303, 33025, 2696, 25, 6790, 220, 2366, 18, 198,
	15724, 2696, 25, 220, 1627, 10263, 220, 2366, 19, 271, 3513, 10015, 13, 128009, 128006, 882, 128007, 271,
	13347, 1070, 128009, 128006, 78191, 128007, 271}

// chatModels writes a random-weight tiny model carrying the Llama 3
// vocabulary and the Llama 3.1 chat template, and a copy whose weights make
// <|eot_id|> the greedy choice at every step (so a reply ends at once on the
// end-of-turn token).
func chatModels(t *testing.T) (random, endsTurn string) {
	t.Helper()
	llamaVocab := shared.Dir(t, "vocab", "ggml-vocab-llama-bpe.gguf")
	llama31 := shared.Dir(t, "templates", "meta-llama-Llama-3.1-8B-Instruct.jinja")
	dir := t.TempDir()
	random = filepath.Join(dir, "chat-llama.gguf")
	if _, stderr, code := run(t, "synth", "--preset", "tiny", "--type", "Q8_0", "--vocab", llamaVocab, "--chat-template", llama31, "-o", random); code != 0 {
		t.Fatalf("synth: %s", stderr)
	}
	endsTurn = filepath.Join(dir, "chat-llama-eot.gguf")
	favourToken(t, random, endsTurn, eotID)
	return random, endsTurn
}

// favourToken copies a Q8_0 model, giving every token embedding a large
// first component and the output row of id a large weight on it: the final
// hidden state then points along that component, and id wins every step.
func favourToken(t *testing.T, src, dst string, id int) {
	f, err := gguf.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := gguf.NewWriter()
	for _, kv := range f.KV {
		if err := w.Set(kv.Key, kv.Value); err != nil {
			t.Fatal(err)
		}
	}
	const blockBytes = 34 // Q8_0: f16 scale, 32 int8
	setBlock := func(b []byte) {
		binary.LittleEndian.PutUint16(b, 0x3C00) // 1.0
		b[2] = 127
		clear(b[3:blockBytes])
	}
	for i := range f.Tensors {
		ti := &f.Tensors[i]
		data := append([]byte(nil), f.TensorData(ti)...)
		if ti.Name == "token_embd.weight" || ti.Name == "output.weight" {
			if ti.Type.String() != "Q8_0" {
				t.Fatalf("%s is %s, want Q8_0", ti.Name, ti.Type)
			}
			rowBytes := int(ti.Dims[0]) / 32 * blockBytes
			if ti.Name == "token_embd.weight" {
				for r := 0; r < int(ti.Dims[1]); r++ {
					setBlock(data[r*rowBytes:])
				}
			} else {
				setBlock(data[id*rowBytes:])
			}
		}
		if err := w.AddTensor(ti.Name, ti.Type, ti.Dims, data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.WriteFile(dst); err != nil {
		t.Fatal(err)
	}
}

func parseIDs(t *testing.T, s string) []int32 {
	t.Helper()
	var ids []int32
	for _, f := range strings.Fields(s) {
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("not a token id: %q", f)
		}
		ids = append(ids, int32(n))
	}
	return ids
}

func equalInt32s(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

var statsRE = regexp.MustCompile(`prompt (\d+) tokens: (\d+) reused from the cache, (\d+) prefilled`)

// chatStats reads the /stats lines: per reply, prompt tokens, reused, prefilled.
func chatStats(t *testing.T, stdout string) [][3]int {
	t.Helper()
	var out [][3]int
	for _, m := range statsRE.FindAllStringSubmatch(stdout, -1) {
		var v [3]int
		for i := range v {
			v[i], _ = strconv.Atoi(m[i+1])
		}
		out = append(out, v)
	}
	return out
}

func runWithStdin(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(gollmBin(t), args...)
	cmd.Stdin = strings.NewReader(stdin)
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

// TestChatEndToEnd: a model carrying a real template and vocabulary is
// rendered, tokenized with specials (llama.cpp's ids, one BOS), generates
// until the end-of-turn token, and holds a piped multi-turn conversation
// whose second turn prefills only its new tokens.
func TestChatEndToEnd(t *testing.T) {
	random, endsTurn := chatModels(t)
	dir := t.TempDir()
	msgs := filepath.Join(dir, "m.json")
	if err := os.WriteFile(msgs, []byte(chatMessages), 0o644); err != nil {
		t.Fatal(err)
	}

	t.Run("template tokens", func(t *testing.T) {
		stdout, stderr, code := run(t, "template", "-m", random, "--messages", msgs, "--tokens")
		if code != 0 {
			t.Fatal(stderr)
		}
		if got := parseIDs(t, stdout); !equalInt32s(got, wantChatIDs) {
			t.Fatalf("ids %v\nwant %v", got, wantChatIDs)
		}
	})

	t.Run("generate stops at end of turn", func(t *testing.T) {
		stdout, stderr, code := run(t, "generate", "-m", endsTurn, "--chat", "-p", "Hi there", "--system", "Be brief.", "--temp", "0", "-n", "16", "--json")
		if code != 0 {
			t.Fatal(stderr)
		}
		var j generateResult
		if err := json.Unmarshal([]byte(stdout), &j); err != nil {
			t.Fatal(err)
		}
		if !equalInt32s(j.PromptTokens, wantChatIDs) || j.NPrompt != len(wantChatIDs) {
			t.Fatalf("prompt %v\nwant %v", j.PromptTokens, wantChatIDs)
		}
		if j.StopReason != "eog" || !equalInt32s(j.Tokens, []int32{eotID}) || j.Text != "" {
			t.Fatalf("want a stop at <|eot_id|>: stop %q tokens %v text %q", j.StopReason, j.Tokens, j.Text)
		}
		// --messages gives the same prompt.
		stdout, stderr, code = run(t, "generate", "-m", endsTurn, "--messages", msgs, "--temp", "0", "-n", "4", "--json")
		if code != 0 {
			t.Fatal(stderr)
		}
		if err := json.Unmarshal([]byte(stdout), &j); err != nil || !equalInt32s(j.PromptTokens, wantChatIDs) {
			t.Fatalf("--messages prompt %v (%v)", j.PromptTokens, err)
		}
	})

	t.Run("piped chat reuses the cache", func(t *testing.T) {
		stdout, stderr, code := runWithStdin(t, chatUserTurns, "chat", "-m", endsTurn, "--system", "Be brief.", "--temp", "0", "-n", "8")
		if code != 0 {
			t.Fatal(stderr)
		}
		st := chatStats(t, stdout)
		if len(st) != 2 {
			t.Fatalf("want two /stats reports, got %q", stdout)
		}
		// The second turn's prompt, rendered independently.
		conv := `[{"role":"system","content":"Be brief."},{"role":"user","content":"Hello there"},{"role":"assistant","content":""},{"role":"user","content":"How are you?"}]`
		second := filepath.Join(dir, "second.json")
		os.WriteFile(second, []byte(conv), 0o644)
		out, stderr, code := run(t, "template", "-m", endsTurn, "--messages", second, "--tokens")
		if code != 0 {
			t.Fatal(stderr)
		}
		ids2 := parseIDs(t, out)
		first, turn2 := st[0], st[1]
		if first[1] != 0 || first[2] != first[0] {
			t.Fatalf("first turn: %v, want everything prefilled", first)
		}
		if turn2[0] != len(ids2) || turn2[1] != first[0] || turn2[2] != len(ids2)-first[0] {
			t.Fatalf("second turn: prompt/reused/prefilled %v, want %d/%d/%d (only the new turn prefilled)", turn2, len(ids2), first[0], len(ids2)-first[0])
		}
		// Replies are empty lines here (the model ends its turn at once).
		if lines := strings.Count(stdout, "\n"); lines < 2+4 {
			t.Fatalf("stdout %q", stdout)
		}
	})

	t.Run("piped chat with a talking model", func(t *testing.T) {
		stdout, stderr, code := runWithStdin(t, chatUserTurns, "chat", "-m", random, "--temp", "0", "-n", "6")
		if code != 0 {
			t.Fatal(stderr)
		}
		st := chatStats(t, stdout)
		if len(st) != 2 || st[1][1] < st[0][0] || st[1][2] >= st[1][0]-st[0][0]+6+1 {
			t.Fatalf("the second turn must reuse at least the first prompt: %v", st)
		}
	})

	t.Run("context overflow", func(t *testing.T) {
		// A small context: old turns are dropped with a notice, the system prompt kept.
		turns := strings.Repeat("Tell me something about llamas and alpacas.\n", 6) + "/save " + filepath.Join(dir, "conv.json") + "\n"
		_, stderr, code := runWithStdin(t, turns, "chat", "-m", endsTurn, "-c", "128", "--system", "Be brief.", "--temp", "0", "-n", "8")
		if code != 0 || !strings.Contains(stderr, "dropped the oldest") {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
		b, _ := os.ReadFile(filepath.Join(dir, "conv.json"))
		var saved []map[string]any
		if err := json.Unmarshal(b, &saved); err != nil || len(saved) == 0 || saved[0]["role"] != "system" || len(saved) >= 13 {
			t.Fatalf("saved conversation %s", b)
		}
		// One message longer than the context: a clear error, exit 1.
		long := strings.Repeat("llama ", 200) + "\n"
		_, stderr, code = runWithStdin(t, long, "chat", "-m", endsTurn, "-c", "128", "-n", "4")
		if code != 1 || !strings.Contains(stderr, "does not fit the context") || strings.Count(strings.TrimSpace(stderr), "\n") > 1 {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
		_, stderr, code = run(t, "generate", "-m", endsTurn, "-c", "128", "--chat", "-p", strings.Repeat("llama ", 200))
		if code != 1 || !strings.Contains(stderr, "longer than the context") {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
	})

	t.Run("commands", func(t *testing.T) {
		saved := filepath.Join(dir, "saved.json")
		os.WriteFile(saved, []byte(`[{"role":"system","content":"S"},{"role":"user","content":"u1"},{"role":"assistant","content":"a1"}]`), 0o644)
		out := filepath.Join(dir, "out.json")
		in := "/load " + saved + "\n/set temp 0.5\n/set top-k 7\n/set\n/set temp -1\n/set bogus 1\n/nope\nu2\n/save " + out + "\n/clear\n/stats\n/help\n/exit\nnot read\n"
		stdout, stderr, code := runWithStdin(t, in, "chat", "-m", endsTurn, "-n", "4")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		for _, want := range []string{"temp 0.5, top-k 7", "no reply yet", "/save FILE"} {
			if !strings.Contains(stdout, want) {
				t.Errorf("stdout lacks %q: %q", want, stdout)
			}
		}
		for _, want := range []string{"--temp must be >= 0", "unknown option \"bogus\"", "unknown command /nope", "loaded 2 messages"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("stderr lacks %q: %q", want, stderr)
			}
		}
		b, _ := os.ReadFile(out)
		var msgs []struct{ Role, Content string }
		if err := json.Unmarshal(b, &msgs); err != nil || len(msgs) != 5 || msgs[0].Content != "S" || msgs[3].Content != "u2" || msgs[4].Role != "assistant" {
			t.Fatalf("saved %s (%v)", b, err)
		}
	})

	t.Run("Ctrl-C stops the reply only", func(t *testing.T) { chatInterrupt(t, random) })

	t.Run("bad input", func(t *testing.T) {
		bad := filepath.Join(dir, "bad.json")
		os.WriteFile(bad, []byte(`{"role":"user","content":"hi"}`), 0o644)
		alt := filepath.Join(dir, "alt.json")
		os.WriteFile(alt, []byte(`[{"role":"user","content":"a"},{"role":"user","content":"b"}]`), 0o644)
		broken := filepath.Join(dir, "broken.jinja")
		os.WriteFile(broken, []byte("{% for m in messages %}\n{{ m.content }\n{% endfor %}"), 0o644)
		cases := []struct {
			args []string
			want string
		}{
			{[]string{"generate", "-m", endsTurn, "--messages", bad}, "JSON list of messages"},
			{[]string{"generate", "-m", endsTurn, "--messages", alt, "--chat-template", "gemma"}, "Conversation roles must alternate"},
			{[]string{"generate", "-m", endsTurn, "--chat", "-p", "x", "--chat-template", broken}, "line 2"},
			{[]string{"template", "-m", endsTurn, "--messages", filepath.Join(dir, "nope.json")}, "no such file"},
		}
		for _, c := range cases {
			_, stderr, code := run(t, c.args...)
			if code != 1 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
				t.Errorf("%v: exit %d, stderr %q, want one line with %q", c.args, code, stderr, c.want)
			}
		}
	})
}

// chatInterrupt: SIGINT during a reply ends that reply; the conversation
// goes on with the next line.
func chatInterrupt(t *testing.T, random string) {
	cmd := exec.Command(gollmBin(t), "chat", "-m", random, "--temp", "0", "-n", "-1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	io.WriteString(stdin, "Tell me a long story.\n")
	buf := make([]byte, 1)
	if _, err := stdout.Read(buf); err != nil { // the reply has started
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	io.WriteString(stdin, "/stats\n")
	stdin.Close()
	rest, _ := io.ReadAll(stdout)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("chat exited: %v, stderr %q", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "reply interrupted") || !strings.Contains(string(rest), "stop: interrupted") {
		t.Fatalf("stdout %q stderr %q", rest, stderr.String())
	}
}
