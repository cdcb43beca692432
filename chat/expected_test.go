package chat

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

const templatesDir = "../../shared/templates"

// referenceNow is the clock the reference renderings were made at.
func referenceNow() time.Time { return time.Date(2024, 7, 26, 0, 0, 0, 0, time.UTC) }

type expectedLine struct {
	Template string          `json:"template"`
	Case     string          `json:"case"`
	Context  json.RawMessage `json:"context"`
	Expected string          `json:"expected"`
}

func readExpected(t testing.TB) []expectedLine {
	t.Helper()
	f, err := os.Open(filepath.Join(templatesDir, "expected.jsonl"))
	if err != nil {
		t.Skipf("reference renderings not available (%v): they live in ../shared/templates", err)
	}
	defer f.Close()
	var out []expectedLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var l expectedLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("expected.jsonl: %v", err)
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func loadTemplate(t testing.TB, name string) *Template {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(templatesDir, name))
	if err != nil {
		t.Fatal(err)
	}
	tm, err := Parse(name, string(src))
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

// TestReferenceRenderings renders every (template, case) line of
// expected.jsonl from its context, and again from the messages decoded into
// []Message with the other variables as Options, and wants Hugging Face's
// string byte for byte both ways.
func TestReferenceRenderings(t *testing.T) {
	lines := readExpected(t)
	cache := map[string]*Template{}
	pass := 0
	for _, l := range lines {
		tm := cache[l.Template]
		if tm == nil {
			tm = loadTemplate(t, l.Template)
			cache[l.Template] = tm
		}
		got, err := tm.RenderContext(l.Context, referenceNow)
		if err != nil {
			t.Errorf("%s/%s: %v", l.Template, l.Case, err)
			continue
		}
		if got != l.Expected {
			t.Errorf("%s/%s: context rendering differs:\n got %q\nwant %q", l.Template, l.Case, got, l.Expected)
			continue
		}
		got, err = renderAsMessages(tm, l.Context)
		if err != nil {
			t.Errorf("%s/%s: as messages: %v", l.Template, l.Case, err)
			continue
		}
		if got != l.Expected {
			t.Errorf("%s/%s: messages rendering differs:\n got %q\nwant %q", l.Template, l.Case, got, l.Expected)
			continue
		}
		pass++
	}
	t.Logf("%d/%d reference renderings exact", pass, len(lines))
}

// renderAsMessages renders a context through Render: messages as []Message,
// the known variables as Options fields, the rest as Kwargs.
func renderAsMessages(tm *Template, context json.RawMessage) (string, error) {
	var vars map[string]json.RawMessage
	if err := json.Unmarshal(context, &vars); err != nil {
		return "", err
	}
	msgs, err := ParseMessages(vars["messages"])
	if err != nil {
		return "", err
	}
	opts := Options{Now: referenceNow, Kwargs: map[string]json.RawMessage{}}
	for k, v := range vars {
		switch k {
		case "messages":
		case "add_generation_prompt":
			if err := json.Unmarshal(v, &opts.AddGenerationPrompt); err != nil {
				return "", err
			}
		case "bos_token":
			if err := json.Unmarshal(v, &opts.BOS); err != nil {
				return "", err
			}
		case "eos_token":
			if err := json.Unmarshal(v, &opts.EOS); err != nil {
				return "", err
			}
		case "tools":
			opts.Tools = v
		default:
			opts.Kwargs[k] = v
		}
	}
	return tm.Render(msgs, opts)
}

func readExpectedOK() (os.FileInfo, error) {
	return os.Stat(filepath.Join(templatesDir, "expected.jsonl"))
}
