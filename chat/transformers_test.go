package chat

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// unseenConversations are conversations that are not in expected.jsonl:
// many turns with whitespace, quotes, Jinja-like text and non-ASCII; no
// system turn and ending on the assistant; parallel tool calls with their
// results and a tool list; reasoning_content; a <think> block in content.
var unseenConversations = map[string]string{
	"long": `[{"role":"system","content":"  You are terse.\nAnswer in one line.  "},
		{"role":"user","content":"Question 0: what is 0+0?\n\nPlease \"quote\" it, {{ not a tag }} {% nor this %} \\ back"},
		{"role":"assistant","content":"  0. Ünïcode «ok» 🚀\n"},
		{"role":"user","content":"Question 1:\ttabs\tand  spaces  "},
		{"role":"assistant","content":"\n\n2.\n"},
		{"role":"user","content":"Question 2: 'single' quotes"},
		{"role":"assistant","content":"4."},
		{"role":"user","content":"Last one?"}]`,
	"nosys-end-assistant": `[{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello!"},{"role":"user","content":"Bye"},{"role":"assistant","content":"Goodbye."}]`,
	"tool-calls": `[{"role":"system","content":"Use tools."},{"role":"user","content":"Weather in Paris and Rome?"},
		{"role":"assistant","content":"","tool_calls":[
			{"id":"call12345","type":"function","function":{"name":"get_weather","arguments":{"city":"Paris","days":2}}},
			{"id":"call67890","type":"function","function":{"name":"get_weather","arguments":{"city":"Rome"}}}]},
		{"role":"tool","tool_call_id":"call12345","name":"get_weather","content":"{\"temp\": 22}"},
		{"role":"tool","tool_call_id":"call67890","name":"get_weather","content":"{\"temp\": 25}"},
		{"role":"assistant","content":"Paris 22, Rome 25."},{"role":"user","content":"Thanks"}]`,
	"reasoning":        `[{"role":"user","content":"2+2?"},{"role":"assistant","content":"4","reasoning_content":"Two and two make four."},{"role":"user","content":"And 3+3?"}]`,
	"think-in-content": `[{"role":"user","content":"2+2?"},{"role":"assistant","content":"<think>\nadd them\n</think>\n\n4"},{"role":"user","content":"3+3?"}]`,
}

const unseenTools = `[{"type":"function","function":{"name":"get_weather","description":"Current weather for a city","parameters":{"type":"object","properties":{"city":{"type":"string","description":"City name","enum":["Paris","Rome"]},"unit":{"type":"string","default":"celsius"},"days":{"type":"integer","minimum":1}},"required":["city"]}}},
	{"type":"function","function":{"name":"search","description":"Search the web","parameters":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}}}]`

// knownDifferences are (template, reason) where transformers' output is not
// what this package (and Hugging Face's JavaScript renderer) produce.
var knownDifferences = map[string]string{
	// `"..."|safe + t | tojson`: markupsafe escapes the JSON (&#34;) in
	// Python; the JavaScript renderer and this package do not.
	"meetkai-functionary-medium-v3.1.jinja": "markupsafe escaping",
}

// TestTransformersReference renders the unseen conversations with every
// template in ../shared/templates through Render and through Python's
// Jinja2 set up as transformers sets it up (testdata/hf_reference.py), and
// wants the same string wherever both render. It needs python3 with jinja2
// and skips without them.
func TestTransformersReference(t *testing.T) {
	dir := templatesDir(t)
	if err := exec.Command("python3", "-c", "import jinja2").Run(); err != nil {
		t.Skip("python3 with jinja2 is not available: the transformers cross-check is skipped")
	}
	bos := map[string][2]string{} // the reference cases' bos/eos per template
	for _, l := range readExpected(t) {
		var c struct{ BOS, EOS string }
		var raw map[string]json.RawMessage
		json.Unmarshal(l.Context, &raw)
		json.Unmarshal(raw["bos_token"], &c.BOS)
		json.Unmarshal(raw["eos_token"], &c.EOS)
		bos[l.Template] = [2]string{c.BOS, c.EOS}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jinja"))
	type job struct {
		name, conv string
		gen        bool
		opts       Options
		msgs       []Message
		src        string
	}
	var jobs []job
	var in bytes.Buffer
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(f)
		be, ok := bos[name]
		if !ok {
			be = [2]string{"<s>", "</s>"}
		}
		for conv, text := range unseenConversations {
			msgs, err := ParseMessages([]byte(text))
			if err != nil {
				t.Fatal(err)
			}
			for _, gen := range []bool{true, false} {
				opts := Options{AddGenerationPrompt: gen, BOS: be[0], EOS: be[1], Now: referenceNow}
				ctx := map[string]any{"messages": json.RawMessage(text), "add_generation_prompt": gen, "bos_token": be[0], "eos_token": be[1]}
				switch conv {
				case "tool-calls":
					opts.Tools = json.RawMessage(unseenTools)
					ctx["tools"] = json.RawMessage(unseenTools)
				case "reasoning":
					opts.Kwargs = map[string]json.RawMessage{"enable_thinking": json.RawMessage("true")}
					ctx["enable_thinking"] = true
				}
				line, err := json.Marshal(map[string]any{"source": string(src), "context": ctx})
				if err != nil {
					t.Fatal(err)
				}
				in.Write(line)
				in.WriteByte('\n')
				jobs = append(jobs, job{name, conv, gen, opts, msgs, string(src)})
			}
		}
	}
	cmd := exec.Command("python3", filepath.Join("testdata", "hf_reference.py"))
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("reference renderer: %v: %s", err, stderr.String())
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	cache := map[string]*Template{}
	same, pyOnlyErr, goOnlyErr, bothErr, known := 0, 0, 0, 0, 0
	for i := 0; sc.Scan(); i++ {
		j := jobs[i]
		var ref struct {
			Ok  *string
			Err string
		}
		if err := json.Unmarshal(sc.Bytes(), &ref); err != nil {
			t.Fatal(err)
		}
		tm := cache[j.name]
		if tm == nil {
			tm = loadTemplate(t, j.name)
			cache[j.name] = tm
		}
		got, err := tm.Render(j.msgs, j.opts)
		switch {
		case err != nil && ref.Ok == nil:
			bothErr++
		case err != nil:
			goOnlyErr++
			t.Errorf("%s/%s gen=%v: fails here only: %v", j.name, j.conv, j.gen, err)
		case ref.Ok == nil:
			pyOnlyErr++ // transformers is stricter (sandbox, undefined attributes)
		case got == *ref.Ok:
			same++
		case knownDifferences[j.name] != "":
			known++
		default:
			k := 0
			for k < len(got) && k < len(*ref.Ok) && got[k] == (*ref.Ok)[k] {
				k++
			}
			lo := max(0, k-40)
			t.Errorf("%s/%s gen=%v differs at byte %d:\n got  %q\n want %q", j.name, j.conv, j.gen, k,
				got[lo:min(len(got), k+60)], (*ref.Ok)[lo:min(len(*ref.Ok), k+60)])
		}
	}
	if n := same + pyOnlyErr + goOnlyErr + bothErr + known; n != len(jobs) {
		t.Fatalf("%d results for %d renderings", n, len(jobs))
	}
	t.Logf("%d renderings: %d equal to transformers', %d known differences (%s), both fail %d, only transformers fails %d",
		len(jobs), same, known, strings.Join(mapValues(knownDifferences), "; "), bothErr, pyOnlyErr)
}

func mapValues(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}
