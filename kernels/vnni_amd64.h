// Shared by the avx512vnni set's assembly files (#include "vnni_amd64.h").
//
// AVX512-VNNI (VL, 256-bit) versions of the hottest prefill and decode
// kernels: VPDPBUSD multiplies unsigned by signed bytes and adds groups of
// four products into int32 lanes, one instruction where AVX2 needs
// VPMADDUBSW, VPADDW and VPMADDWD. Integer sums are exact, so every kernel
// gives the same bits as its AVX2 and generic twins.

// Y15 = 0x0F bytes.
#define V_CONSTS \
	MOVL         $0x0F0F0F0F, AX \
	VMOVD        AX, X15         \
	VPBROADCASTD X15, Y15

// Y4 = low nibbles, Y5 = high nibbles of the 32 bytes at mem.
#define V_NIBBLES(mem) \
	VMOVDQU mem, Y4     \
	VPSRLW  $4, Y4, Y5  \
	VPAND   Y15, Y4, Y4 \
	VPAND   Y15, Y5, Y5

// Stores Y8..Y11 (tokens 0..3) to out, out+ostride, ... (ostride in
// floats), the first ntok of them.
#define V_STORE4(name) \
	MOVQ    ostride+32(FP), BX \
	SHLQ    $2, BX             \
	MOVQ    ntok+40(FP), AX    \
	VMOVUPS Y8, (DX)           \
	CMPQ    AX, $2             \
	JLT     name               \
	ADDQ    BX, DX             \
	VMOVUPS Y9, (DX)           \
	CMPQ    AX, $3             \
	JLT     name               \
	ADDQ    BX, DX             \
	VMOVUPS Y10, (DX)          \
	CMPQ    AX, $4             \
	JLT     name               \
	ADDQ    BX, DX             \
	VMOVUPS Y11, (DX)          \
name:                          \
	VZEROUPPER                 \
	RET

// The three cache lines of a Q4_0 block column, 1 KiB ahead of W.
#define V_PF4(W) \
	PREFETCHT0 1024(W) \
	PREFETCHT0 1088(W) \
	PREFETCHT0 1152(W)

// Stores four vectors to (DX), (DX)+BX, (DX)+2BX, (DX)+3BX.
#define V_OUT4(a0, a1, a2, a3) \
	VMOVUPS a0, (DX) \
	ADDQ    BX, DX   \
	VMOVUPS a1, (DX) \
	ADDQ    BX, DX   \
	VMOVUPS a2, (DX) \
	ADDQ    BX, DX   \
	VMOVUPS a3, (DX)

// The 512-bit kernels of the avx512zmm set take two packed groups per
// register, the first group's rows in the lower half.

// Z15 = 0x0F bytes.
#define VZ_CONSTS \
	MOVL         $0x0F0F0F0F, AX \
	VPBROADCASTD AX, Z15

// Z4 = low nibbles, Z5 = high nibbles of the 32 bytes at ma (lower half)
// and mb (upper half).
#define VZ_NIBBLES2(ma, mb) \
	VMOVDQU      ma, Y4         \
	VINSERTI64X4 $1, mb, Z4, Z4 \
	VPSRLW       $4, Z4, Z5     \
	VPANDD       Z15, Z4, Z4    \
	VPANDD       Z15, Z5, Z5
