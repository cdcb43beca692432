//go:build !purego

#include "textflag.h"

// SwiGLU with ggml_v_silu (AVX2+FMA): per lane the operations of siluVec
// and vexpf in silu.go, fast path of ggml_v_expf only. Constants are
// 8-lane vectors so the FMAs can take them from memory.

DATA ·vexpfC+0(SB)/4, $0x4b400000 // 0x1.8p23
DATA ·vexpfC+4(SB)/4, $0x4b400000
DATA ·vexpfC+8(SB)/4, $0x4b400000
DATA ·vexpfC+12(SB)/4, $0x4b400000
DATA ·vexpfC+16(SB)/4, $0x4b400000
DATA ·vexpfC+20(SB)/4, $0x4b400000
DATA ·vexpfC+24(SB)/4, $0x4b400000
DATA ·vexpfC+28(SB)/4, $0x4b400000
DATA ·vexpfC+32(SB)/4, $0x3fb8aa3b // 0x1.715476p+0
DATA ·vexpfC+36(SB)/4, $0x3fb8aa3b
DATA ·vexpfC+40(SB)/4, $0x3fb8aa3b
DATA ·vexpfC+44(SB)/4, $0x3fb8aa3b
DATA ·vexpfC+48(SB)/4, $0x3fb8aa3b
DATA ·vexpfC+52(SB)/4, $0x3fb8aa3b
DATA ·vexpfC+56(SB)/4, $0x3fb8aa3b
DATA ·vexpfC+60(SB)/4, $0x3fb8aa3b
DATA ·vexpfC+64(SB)/4, $0x3f317200 // 0x1.62e4p-1
DATA ·vexpfC+68(SB)/4, $0x3f317200
DATA ·vexpfC+72(SB)/4, $0x3f317200
DATA ·vexpfC+76(SB)/4, $0x3f317200
DATA ·vexpfC+80(SB)/4, $0x3f317200
DATA ·vexpfC+84(SB)/4, $0x3f317200
DATA ·vexpfC+88(SB)/4, $0x3f317200
DATA ·vexpfC+92(SB)/4, $0x3f317200
DATA ·vexpfC+96(SB)/4, $0x35bfbe8e // 0x1.7f7d1cp-20
DATA ·vexpfC+100(SB)/4, $0x35bfbe8e
DATA ·vexpfC+104(SB)/4, $0x35bfbe8e
DATA ·vexpfC+108(SB)/4, $0x35bfbe8e
DATA ·vexpfC+112(SB)/4, $0x35bfbe8e
DATA ·vexpfC+116(SB)/4, $0x35bfbe8e
DATA ·vexpfC+120(SB)/4, $0x35bfbe8e
DATA ·vexpfC+124(SB)/4, $0x35bfbe8e
DATA ·vexpfC+128(SB)/4, $0x3c072010 // 0x1.0e4020p-7
DATA ·vexpfC+132(SB)/4, $0x3c072010
DATA ·vexpfC+136(SB)/4, $0x3c072010
DATA ·vexpfC+140(SB)/4, $0x3c072010
DATA ·vexpfC+144(SB)/4, $0x3c072010
DATA ·vexpfC+148(SB)/4, $0x3c072010
DATA ·vexpfC+152(SB)/4, $0x3c072010
DATA ·vexpfC+156(SB)/4, $0x3c072010
DATA ·vexpfC+160(SB)/4, $0x3d2b9f17 // 0x1.573e2ep-5
DATA ·vexpfC+164(SB)/4, $0x3d2b9f17
DATA ·vexpfC+168(SB)/4, $0x3d2b9f17
DATA ·vexpfC+172(SB)/4, $0x3d2b9f17
DATA ·vexpfC+176(SB)/4, $0x3d2b9f17
DATA ·vexpfC+180(SB)/4, $0x3d2b9f17
DATA ·vexpfC+184(SB)/4, $0x3d2b9f17
DATA ·vexpfC+188(SB)/4, $0x3d2b9f17
DATA ·vexpfC+192(SB)/4, $0x3e2aaf33 // 0x1.555e66p-3
DATA ·vexpfC+196(SB)/4, $0x3e2aaf33
DATA ·vexpfC+200(SB)/4, $0x3e2aaf33
DATA ·vexpfC+204(SB)/4, $0x3e2aaf33
DATA ·vexpfC+208(SB)/4, $0x3e2aaf33
DATA ·vexpfC+212(SB)/4, $0x3e2aaf33
DATA ·vexpfC+216(SB)/4, $0x3e2aaf33
DATA ·vexpfC+220(SB)/4, $0x3e2aaf33
DATA ·vexpfC+224(SB)/4, $0x3efffedb // 0x1.fffdb6p-2
DATA ·vexpfC+228(SB)/4, $0x3efffedb
DATA ·vexpfC+232(SB)/4, $0x3efffedb
DATA ·vexpfC+236(SB)/4, $0x3efffedb
DATA ·vexpfC+240(SB)/4, $0x3efffedb
DATA ·vexpfC+244(SB)/4, $0x3efffedb
DATA ·vexpfC+248(SB)/4, $0x3efffedb
DATA ·vexpfC+252(SB)/4, $0x3efffedb
DATA ·vexpfC+256(SB)/4, $0x3f7ffff6 // 0x1.ffffecp-1
DATA ·vexpfC+260(SB)/4, $0x3f7ffff6
DATA ·vexpfC+264(SB)/4, $0x3f7ffff6
DATA ·vexpfC+268(SB)/4, $0x3f7ffff6
DATA ·vexpfC+272(SB)/4, $0x3f7ffff6
DATA ·vexpfC+276(SB)/4, $0x3f7ffff6
DATA ·vexpfC+280(SB)/4, $0x3f7ffff6
DATA ·vexpfC+284(SB)/4, $0x3f7ffff6
DATA ·vexpfC+288(SB)/4, $0x3f800000 // 1
DATA ·vexpfC+292(SB)/4, $0x3f800000
DATA ·vexpfC+296(SB)/4, $0x3f800000
DATA ·vexpfC+300(SB)/4, $0x3f800000
DATA ·vexpfC+304(SB)/4, $0x3f800000
DATA ·vexpfC+308(SB)/4, $0x3f800000
DATA ·vexpfC+312(SB)/4, $0x3f800000
DATA ·vexpfC+316(SB)/4, $0x3f800000
DATA ·vexpfC+320(SB)/4, $0x42fc0000 // 126
DATA ·vexpfC+324(SB)/4, $0x42fc0000
DATA ·vexpfC+328(SB)/4, $0x42fc0000
DATA ·vexpfC+332(SB)/4, $0x42fc0000
DATA ·vexpfC+336(SB)/4, $0x42fc0000
DATA ·vexpfC+340(SB)/4, $0x42fc0000
DATA ·vexpfC+344(SB)/4, $0x42fc0000
DATA ·vexpfC+348(SB)/4, $0x42fc0000
DATA ·vexpfC+352(SB)/4, $0x7fffffff // |x| mask
DATA ·vexpfC+356(SB)/4, $0x7fffffff
DATA ·vexpfC+360(SB)/4, $0x7fffffff
DATA ·vexpfC+364(SB)/4, $0x7fffffff
DATA ·vexpfC+368(SB)/4, $0x7fffffff
DATA ·vexpfC+372(SB)/4, $0x7fffffff
DATA ·vexpfC+376(SB)/4, $0x7fffffff
DATA ·vexpfC+380(SB)/4, $0x7fffffff
// ·vexpfC: ggml_v_expf's constants, 8-lane vectors, shared with the
// tiled attention (attn_tiled_amd64.s).
GLOBL ·vexpfC(SB), RODATA|NOPTR, $384

// func swigluAVX2(n8 int, out, gate, up *float32) int
TEXT ·swigluAVX2(SB), NOSPLIT, $0-40
	MOVQ   n8+0(FP), CX
	MOVQ   out+8(FP), DX
	MOVQ   gate+16(FP), SI
	MOVQ   up+24(FP), DI
	XORQ   AX, AX
	VXORPS Y15, Y15, Y15
	VMOVUPS ·vexpfC+0(SB), Y14

loop:
	CMPQ         AX, CX
	JGE          done
	VMOVUPS      (SI)(AX*4), Y0                // x
	VSUBPS       Y0, Y15, Y1                   // v = 0 - x (the exp argument)
	VMOVAPS      Y14, Y2
	VFMADD231PS  ·vexpfC+32(SB), Y1, Y2 // z = fma(v, log2e, r)
	VSUBPS       Y14, Y2, Y3                   // n = z - r
	VANDPS       ·vexpfC+352(SB), Y3, Y4
	VCMPPS       $0x1e, ·vexpfC+320(SB), Y4, Y4 // |n| > 126
	VMOVMSKPS    Y4, BX
	TESTL        BX, BX
	JNZ          done
	VMOVAPS      Y1, Y4
	VFNMADD231PS ·vexpfC+64(SB), Y3, Y4 // fma(-n, ln2hi, v)
	VFNMADD231PS ·vexpfC+96(SB), Y3, Y4 // b = fma(-n, ln2lo, .)
	VPSLLD       $23, Y2, Y5                   // e = bits(z) << 23
	VPADDD       ·vexpfC+288(SB), Y5, Y5 // k = e + bits(1)
	VMULPS       Y4, Y4, Y6                    // u = b*b
	VMOVUPS      ·vexpfC+160(SB), Y7
	VFMADD231PS  ·vexpfC+128(SB), Y4, Y7  // p = fma(c0, b, c1)
	VMOVUPS      ·vexpfC+224(SB), Y8
	VFMADD231PS  ·vexpfC+192(SB), Y4, Y8  // q = fma(c2, b, c3)
	VFMADD231PS  Y6, Y7, Y8                    // q = fma(p, u, q)
	VMULPS       ·vexpfC+256(SB), Y4, Y9  // c4*b
	VFMADD231PS  Y6, Y8, Y9                    // j = fma(q, u, c4*b)
	VFMADD231PS  Y9, Y5, Y5                    // fma(k, j, k) = e^v
	VADDPS       ·vexpfC+288(SB), Y5, Y5 // 1 + e^v
	VDIVPS       Y5, Y0, Y0                    // x / (1 + e^-x)
	VMULPS       (DI)(AX*4), Y0, Y0            // * up
	VMOVUPS      Y0, (DX)(AX*4)
	ADDQ         $8, AX
	JMP          loop

done:
	MOVQ AX, ret+32(FP)
	VZEROUPPER
	RET
