// Shared by the AVX2 attention kernels (attn_fast_amd64.s,
// attn_direct_amd64.s) and the AVX-512 GQA ones
// (attn_direct_avx512_amd64.s).

// ATTN_REDUCE8 sums each of the eight row accumulators Y0-Y7 into lane r
// of Y10, ((l0+l2)+(l1+l3)) + ((l4+l6)+(l5+l7)) per row (transposeSum8):
// rows 0-3 and 4-7 lanes two apart, then neighbours, per 128-bit half,
// then the two halves. Y8, Y9, Y11 and Y12 are clobbered.
#define ATTN_REDUCE8 \
	VUNPCKLPS  Y1, Y0, Y8          \
	VUNPCKHPS  Y1, Y0, Y9          \
	VADDPS     Y9, Y8, Y8          \
	VUNPCKLPS  Y3, Y2, Y10         \
	VUNPCKHPS  Y3, Y2, Y11         \
	VADDPS     Y11, Y10, Y10       \
	VUNPCKLPD  Y10, Y8, Y9         \
	VUNPCKHPD  Y10, Y8, Y11        \
	VADDPS     Y11, Y9, Y9         \
	VUNPCKLPS  Y5, Y4, Y8          \
	VUNPCKHPS  Y5, Y4, Y10         \
	VADDPS     Y10, Y8, Y8         \
	VUNPCKLPS  Y7, Y6, Y10         \
	VUNPCKHPS  Y7, Y6, Y11         \
	VADDPS     Y11, Y10, Y10       \
	VUNPCKLPD  Y10, Y8, Y12        \
	VUNPCKHPD  Y10, Y8, Y11        \
	VADDPS     Y11, Y12, Y12       \
	VPERM2F128 $0x20, Y12, Y9, Y10 \
	VPERM2F128 $0x31, Y12, Y9, Y11 \
	VADDPS     Y11, Y10, Y10

// GQA_SCORES_ARGS loads the GQA score kernels' arguments (func(s
// *float32, sStride int, q *float32, k *uint16, kStride, kHead, group,
// heads, rowSets, dim8 int, pf uintptr, pfLines, pfPer int)) for 1<<HL
// heads a pass: DI the scores, SI the queries, R11 kStride, R10 the
// passes over heads, the passes left in the group in the frame, R15 one
// query's bytes and R8 three's.
#define GQA_SCORES_ARGS(HL) \
	MOVQ s+0(FP), DI          \
	MOVQ q+16(FP), SI         \
	MOVQ kStride+32(FP), R11  \
	MOVQ group+48(FP), AX     \
	SHRQ $HL, AX              \
	MOVQ AX, left-8(SP)       \
	MOVQ heads+56(FP), R10    \
	SHRQ $HL, R10             \
	MOVQ dim8+72(FP), R15     \
	SHLQ $5, R15              \
	LEAQ (R15)(R15*2), R8

// GQA_SCORES_HEAD starts a pass of a GQA score kernel: its share of the
// prefetch (ATTN_PF_PASS), DX the group's first row, R14 the pass's first
// scores, R9 the sets of rows.
#define GQA_SCORES_HEAD(lpf, lpfdone) \
	ATTN_PF_PASS(pf+80(FP), pfLines+88(FP), pfPer+96(FP), lpf, lpfdone) \
	MOVQ k+24(FP), DX       \
	MOVQ DI, R14            \
	MOVQ rowSets+64(FP), R9

// ATTN_PF_PASS asks the CPU (PREFETCHT1) for the next per lines (at most
// those left) of the GQA kernels' prefetch, whose cursor and lines left
// are kept in their argument slots: each pass over heads asks for its
// share while it computes, instead of all of them at once, which stalled
// the kernels until the first came back. AX, BX and CX are clobbered.
#define ATTN_PF_PASS(pfArg, leftArg, perArg, lpf, ldone) \
	MOVQ    leftArg, CX \
	TESTQ   CX, CX      \
	JLE     ldone       \
	MOVQ    perArg, BX  \
	CMPQ    BX, CX      \
	CMOVQGT CX, BX      \
	SUBQ    BX, CX      \
	MOVQ    CX, leftArg \
	MOVQ    pfArg, AX   \
lpf:                    \
	PREFETCHT1 (AX)     \
	ADDQ    $64, AX     \
	DECQ    BX          \
	JNZ     lpf         \
	MOVQ    AX, pfArg   \
ldone:

// GQA_SCORES_NEXT ends a pass of a GQA score kernel over 1<<HL heads: the
// next heads' scores and queries, their group's rows (GQA_NEXT_PASS), and
// back to lhead until no pass is left.
#define GQA_SCORES_NEXT(HL, lhead, lsame) \
	MOVQ sStride+8(FP), CX  \
	SHLQ $HL, CX            \
	ADDQ CX, DI             \
	MOVQ R15, CX            \
	SHLQ $HL, CX            \
	ADDQ CX, SI             \
	GQA_NEXT_PASS(HL, group+48(FP), kHead+40(FP), k+24(FP), lsame) \
	DECQ R10                \
	JNZ  lhead              \
	VZEROUPPER              \
	RET

// GQA_NEXT_PASS moves on to the next 1<<HL heads of a GQA kernel whose
// passes left in the group are in the frame: with none left, the group's
// count again and the next group's rows (Rg += the argument at kv).
#define GQA_NEXT_PASS(HL, groupArg, kvArg, Rg, same) \
	DECQ left-8(SP)   \
	JNZ  same         \
	MOVQ groupArg, AX \
	SHRQ $HL, AX      \
	MOVQ AX, left-8(SP) \
	MOVQ kvArg, AX    \
	ADDQ AX, Rg       \
same:

// GQA_ACCV is the body of the GQA value kernels (func(acc *float32,
// strips int, p *float32, pStride int, v *uint16, vStride, vHead, group,
// heads, rows int, alpha *float32, pf uintptr, pfLines, pfPer int), heads
// and group multiples of 1<<HL, rows > 0): per 1<<HL heads of one group,
// after the pass's share of the prefetch (ATTN_PF_PASS), strips of their
// accumulators held in registers while every row's values of the strip
// are widened once and take each head's weight. A head's strip is STRIPF
// bytes of
// accumulators and STRIPH of values, 1<<SHIFT bytes per strip in the
// strips argument; LOADS sets the registers from the accumulators at AX
// (a head's, CX bytes apart) times alpha at R13, ROW adds the row at BX
// with the heads' weights at DX (R8 and R9: one and three heads' strides),
// STORES writes them back (as LOADS reads them). Strides in bytes.
#define GQA_ACCV(HL, SHIFT, STRIPF, STRIPH, LOADS, ROW, STORES, head, strip, row, same, lpf, lpfdone) \
	MOVQ acc+0(FP), DI        \
	MOVQ p+16(FP), SI         \
	MOVQ pStride+24(FP), R8   \
	LEAQ (R8)(R8*2), R9       \
	MOVQ vStride+40(FP), R11  \
	MOVQ group+56(FP), AX     \
	SHRQ $HL, AX              \
	MOVQ AX, left-8(SP)       \
	MOVQ heads+64(FP), R10    \
	SHRQ $HL, R10             \
	MOVQ alpha+80(FP), R13    \
	MOVQ v+32(FP), R15        \
head:                         \
	ATTN_PF_PASS(pf+88(FP), pfLines+96(FP), pfPer+104(FP), lpf, lpfdone) \
	MOVQ R15, R12             \
	MOVQ DI, AX               \
	MOVQ strips+8(FP), R14    \
strip:                        \
	MOVQ strips+8(FP), CX     \
	SHLQ $SHIFT, CX           \
	LOADS                     \
	MOVQ rows+72(FP), CX      \
	MOVQ R12, BX              \
	MOVQ SI, DX               \
row:                          \
	ROW                       \
	ADDQ R11, BX              \
	ADDQ $4, DX               \
	DECQ CX                   \
	JNZ  row                  \
	MOVQ strips+8(FP), CX     \
	SHLQ $SHIFT, CX           \
	STORES                    \
	ADDQ $STRIPF, AX          \
	ADDQ $STRIPH, R12         \
	DECQ R14                  \
	JNZ  strip                \
	MOVQ strips+8(FP), CX     \
	SHLQ $(SHIFT+HL), CX      \
	ADDQ CX, DI               \
	MOVQ R8, CX               \
	SHLQ $HL, CX              \
	ADDQ CX, SI               \
	ADDQ $(4<<HL), R13        \
	GQA_NEXT_PASS(HL, group+56(FP), vHead+48(FP), R15, same) \
	DECQ R10                  \
	JNZ  head                 \
	VZEROUPPER                \
	RET
