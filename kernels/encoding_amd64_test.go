package kernels

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestAsmEncodingMatchesSet assembles every amd64 file of the package and
// checks that no function outside the AVX-512 sets contains an EVEX-encoded
// (AVX-512) instruction. Go's assembler picks EVEX silently when an
// instruction's operands have no VEX form (an immediate shift of a memory
// operand, X16-X31, a mask register), and such an instruction in an AVX2
// kernel dies with SIGILL only on a CPU without AVX-512 (an AMD Zen3 found
// one): the tests of an AVX-512 machine cannot see it. By convention the
// functions that may use AVX-512 have VNNI or AVX512 in their names, and
// only the avx512vnni / avx512bf16 sets call them.
func TestAsmEncodingMatchesSet(t *testing.T) {
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		if goTool, err = exec.LookPath("go"); err != nil {
			t.Skip("no go command to run the assembler with")
		}
	}
	files, err := filepath.Glob("*_amd64.s")
	if err != nil || len(files) == 0 {
		t.Fatalf("no assembly files found (%v)", err)
	}
	inc := filepath.Join(runtime.GOROOT(), "pkg", "include")
	checked := 0
	for _, f := range files {
		out, err := exec.Command(goTool, "tool", "asm", "-S", "-I", inc, "-I", ".",
			"-p", "github.com/gollm/gollm/kernels", "-D", "GOOS_linux", "-D", "GOARCH_amd64",
			"-o", filepath.Join(t.TempDir(), "x.o"), f).CombinedOutput()
		if err != nil {
			t.Fatalf("assembling %s: %v\n%s", f, err, out)
		}
		for _, fn := range parseAsmListing(out) {
			checked++
			if strings.Contains(fn.name, "VNNI") || strings.Contains(fn.name, "AVX512") {
				continue
			}
			for _, in := range fn.insts {
				if in.off < len(fn.code) && fn.code[in.off] == 0x62 {
					t.Errorf("%s: %s (%s) is EVEX-encoded (AVX-512) in a function that AVX2-only CPUs run",
						fn.name, in.text, in.pos)
				}
			}
		}
	}
	if checked < 20 {
		t.Fatalf("parsed only %d functions from the assembler's listing; its format changed?", checked)
	}
}

type asmInst struct {
	off       int
	pos, text string
}

type asmFunc struct {
	name  string
	insts []asmInst
	code  []byte
}

// parseAsmListing reads `go tool asm -S` output: a header line per function
// ("pkg.name STEXT ..."), one line per instruction ("\t0x0004 00004
// (file.s:12)\tOP args"), then the code as a hex dump ("\t0x0000 48 8b ...").
func parseAsmListing(listing []byte) []asmFunc {
	var fns []asmFunc
	sc := bufio.NewScanner(bytes.NewReader(listing))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "\t") {
			if name, _, ok := strings.Cut(line, " STEXT"); ok {
				fns = append(fns, asmFunc{name: name[strings.LastIndex(name, ".")+1:]})
			} else if strings.Contains(line, " SRODATA") || strings.Contains(line, " SNOPTRDATA") {
				fns = append(fns, asmFunc{name: "(data)"}) // its dump is not code
			}
			continue
		}
		if len(fns) == 0 {
			continue
		}
		fn := &fns[len(fns)-1]
		fields := strings.Fields(line)
		if len(fields) < 2 || !strings.HasPrefix(fields[0], "0x") {
			continue
		}
		off, err := strconv.ParseInt(fields[0][2:], 16, 64)
		if err != nil {
			continue
		}
		if len(fields) >= 4 && strings.HasPrefix(fields[2], "(") { // an instruction
			op := fields[3]
			if op == "TEXT" || op == "FUNCDATA" || op == "PCDATA" {
				continue
			}
			fn.insts = append(fn.insts, asmInst{off: int(off), pos: strings.Trim(fields[2], "()"),
				text: strings.Join(fields[3:], " ")})
			continue
		}
		if int(off) != len(fn.code) { // a hex-dump line continues the code
			continue
		}
		// "\t0x0010 c5 f8 57 ...  ascii": up to 16 groups of two hex digits
		// and a space, then a second space before the ASCII column.
		rest := strings.TrimPrefix(line, "\t"+fields[0]+" ")
		for n := 0; n < 16 && len(rest) >= 2 && isHex(rest[0]) && isHex(rest[1]); n++ {
			b, _ := strconv.ParseUint(rest[:2], 16, 8)
			fn.code = append(fn.code, byte(b))
			if len(rest) < 3 || rest[2] != ' ' {
				break
			}
			rest = rest[3:]
		}
	}
	return fns
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' }
