package quantize

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gollm/gollm/ggml"
)

// FileType is a llama_ftype: the "mostly X" label of a whole file, stored as
// general.file_type. Values are llama.h's and must never be renumbered.
type FileType int

// The llama_ftype values gollm can produce (plus their neighbours, so that
// String can name what a file declares). Gaps are ftypes llama.cpp removed.
const (
	AllF32     FileType = 0
	MostlyF16  FileType = 1
	MostlyQ4_0 FileType = 2
	MostlyQ4_1 FileType = 3
	MostlyQ8_0 FileType = 7
	MostlyQ5_0 FileType = 8
	MostlyQ5_1 FileType = 9
	MostlyQ2_K FileType = 10
	// MostlyQ3_K_S .. MostlyQ6_K are the K-quant mixes: a default type plus
	// per-tensor upgrades (see ChooseType).
	MostlyQ3_K_S FileType = 11
	MostlyQ3_K_M FileType = 12
	MostlyQ3_K_L FileType = 13
	MostlyQ4_K_S FileType = 14
	MostlyQ4_K_M FileType = 15
	MostlyQ5_K_S FileType = 16
	MostlyQ5_K_M FileType = 17
	MostlyQ6_K   FileType = 18
	MostlyBF16   FileType = 32
)

// ErrUnknownFileType is returned by ParseFileType for a name gollm cannot
// produce, and by MakePlan/Run for an unsupported FileType value.
var ErrUnknownFileType = errors.New("unknown quantization type")

type ftypeInfo struct {
	name string
	def  ggml.Type // llama_ftype_get_default_type
}

// ftypes lists the supported file types in the order llama-quantize's help
// shows them, which is also the order of the names in error messages.
var ftypes = []struct {
	ft FileType
	ftypeInfo
}{
	{MostlyQ4_0, ftypeInfo{"Q4_0", ggml.Q4_0}},
	{MostlyQ4_1, ftypeInfo{"Q4_1", ggml.Q4_1}},
	{MostlyQ5_0, ftypeInfo{"Q5_0", ggml.Q5_0}},
	{MostlyQ5_1, ftypeInfo{"Q5_1", ggml.Q5_1}},
	{MostlyQ2_K, ftypeInfo{"Q2_K", ggml.Q2_K}},
	{MostlyQ3_K_S, ftypeInfo{"Q3_K_S", ggml.Q3_K}},
	{MostlyQ3_K_M, ftypeInfo{"Q3_K_M", ggml.Q3_K}},
	{MostlyQ3_K_L, ftypeInfo{"Q3_K_L", ggml.Q3_K}},
	{MostlyQ4_K_S, ftypeInfo{"Q4_K_S", ggml.Q4_K}},
	{MostlyQ4_K_M, ftypeInfo{"Q4_K_M", ggml.Q4_K}},
	{MostlyQ5_K_S, ftypeInfo{"Q5_K_S", ggml.Q5_K}},
	{MostlyQ5_K_M, ftypeInfo{"Q5_K_M", ggml.Q5_K}},
	{MostlyQ6_K, ftypeInfo{"Q6_K", ggml.Q6_K}},
	{MostlyQ8_0, ftypeInfo{"Q8_0", ggml.Q8_0}},
	{MostlyF16, ftypeInfo{"F16", ggml.F16}},
	{MostlyBF16, ftypeInfo{"BF16", ggml.BF16}},
	{AllF32, ftypeInfo{"F32", ggml.F32}},
}

// aliases are llama-quantize's short names for the "medium" K mixes.
var aliases = map[string]FileType{"Q3_K": MostlyQ3_K_M, "Q4_K": MostlyQ4_K_M, "Q5_K": MostlyQ5_K_M}

func lookupFileType(ft FileType) (ftypeInfo, bool) {
	for _, e := range ftypes {
		if e.ft == ft {
			return e.ftypeInfo, true
		}
	}
	return ftypeInfo{}, false
}

// FileTypeNames returns the accepted TYPE names, in llama-quantize's order.
func FileTypeNames() []string {
	out := make([]string, len(ftypes))
	for i, e := range ftypes {
		out[i] = e.name
	}
	return out
}

// ParseFileType maps a quantization type name (case-insensitive: "q4_k_m",
// "Q8_0", "F16"; also the aliases Q3_K, Q4_K, Q5_K) to its FileType. The
// error wraps ErrUnknownFileType and lists the valid names.
func ParseFileType(name string) (FileType, error) {
	up := strings.ToUpper(strings.TrimSpace(name))
	for _, e := range ftypes {
		if e.name == up {
			return e.ft, nil
		}
	}
	if ft, ok := aliases[up]; ok {
		return ft, nil
	}
	return 0, fmt.Errorf("%w %q: valid types are %s", ErrUnknownFileType, name, strings.Join(FileTypeNames(), ", "))
}

// String returns the type name ("Q4_K_M"), or "ftype(N)" for a value gollm
// cannot produce.
func (ft FileType) String() string {
	if e, ok := lookupFileType(ft); ok {
		return e.name
	}
	return fmt.Sprintf("ftype(%d)", int(ft))
}

// DefaultType returns the tensor type most weights of ft get
// (llama_ftype_get_default_type), and false for an unsupported ft.
func (ft FileType) DefaultType() (ggml.Type, bool) {
	e, ok := lookupFileType(ft)
	return e.def, ok
}
