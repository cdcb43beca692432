//go:build !purego

#include "textflag.h"

// SwiGLU with ggml_v_silu (AVX2+FMA): per lane the operations of siluVec
// and vexpf in silu.go, fast path of ggml_v_expf only. Constants are
// 8-lane vectors so the FMAs can take them from memory.

DATA swC<>+0(SB)/4, $0x4b400000 // 0x1.8p23
DATA swC<>+4(SB)/4, $0x4b400000
DATA swC<>+8(SB)/4, $0x4b400000
DATA swC<>+12(SB)/4, $0x4b400000
DATA swC<>+16(SB)/4, $0x4b400000
DATA swC<>+20(SB)/4, $0x4b400000
DATA swC<>+24(SB)/4, $0x4b400000
DATA swC<>+28(SB)/4, $0x4b400000
DATA swC<>+32(SB)/4, $0x3fb8aa3b // 0x1.715476p+0
DATA swC<>+36(SB)/4, $0x3fb8aa3b
DATA swC<>+40(SB)/4, $0x3fb8aa3b
DATA swC<>+44(SB)/4, $0x3fb8aa3b
DATA swC<>+48(SB)/4, $0x3fb8aa3b
DATA swC<>+52(SB)/4, $0x3fb8aa3b
DATA swC<>+56(SB)/4, $0x3fb8aa3b
DATA swC<>+60(SB)/4, $0x3fb8aa3b
DATA swC<>+64(SB)/4, $0x3f317200 // 0x1.62e4p-1
DATA swC<>+68(SB)/4, $0x3f317200
DATA swC<>+72(SB)/4, $0x3f317200
DATA swC<>+76(SB)/4, $0x3f317200
DATA swC<>+80(SB)/4, $0x3f317200
DATA swC<>+84(SB)/4, $0x3f317200
DATA swC<>+88(SB)/4, $0x3f317200
DATA swC<>+92(SB)/4, $0x3f317200
DATA swC<>+96(SB)/4, $0x35bfbe8e // 0x1.7f7d1cp-20
DATA swC<>+100(SB)/4, $0x35bfbe8e
DATA swC<>+104(SB)/4, $0x35bfbe8e
DATA swC<>+108(SB)/4, $0x35bfbe8e
DATA swC<>+112(SB)/4, $0x35bfbe8e
DATA swC<>+116(SB)/4, $0x35bfbe8e
DATA swC<>+120(SB)/4, $0x35bfbe8e
DATA swC<>+124(SB)/4, $0x35bfbe8e
DATA swC<>+128(SB)/4, $0x3c072010 // 0x1.0e4020p-7
DATA swC<>+132(SB)/4, $0x3c072010
DATA swC<>+136(SB)/4, $0x3c072010
DATA swC<>+140(SB)/4, $0x3c072010
DATA swC<>+144(SB)/4, $0x3c072010
DATA swC<>+148(SB)/4, $0x3c072010
DATA swC<>+152(SB)/4, $0x3c072010
DATA swC<>+156(SB)/4, $0x3c072010
DATA swC<>+160(SB)/4, $0x3d2b9f17 // 0x1.573e2ep-5
DATA swC<>+164(SB)/4, $0x3d2b9f17
DATA swC<>+168(SB)/4, $0x3d2b9f17
DATA swC<>+172(SB)/4, $0x3d2b9f17
DATA swC<>+176(SB)/4, $0x3d2b9f17
DATA swC<>+180(SB)/4, $0x3d2b9f17
DATA swC<>+184(SB)/4, $0x3d2b9f17
DATA swC<>+188(SB)/4, $0x3d2b9f17
DATA swC<>+192(SB)/4, $0x3e2aaf33 // 0x1.555e66p-3
DATA swC<>+196(SB)/4, $0x3e2aaf33
DATA swC<>+200(SB)/4, $0x3e2aaf33
DATA swC<>+204(SB)/4, $0x3e2aaf33
DATA swC<>+208(SB)/4, $0x3e2aaf33
DATA swC<>+212(SB)/4, $0x3e2aaf33
DATA swC<>+216(SB)/4, $0x3e2aaf33
DATA swC<>+220(SB)/4, $0x3e2aaf33
DATA swC<>+224(SB)/4, $0x3efffedb // 0x1.fffdb6p-2
DATA swC<>+228(SB)/4, $0x3efffedb
DATA swC<>+232(SB)/4, $0x3efffedb
DATA swC<>+236(SB)/4, $0x3efffedb
DATA swC<>+240(SB)/4, $0x3efffedb
DATA swC<>+244(SB)/4, $0x3efffedb
DATA swC<>+248(SB)/4, $0x3efffedb
DATA swC<>+252(SB)/4, $0x3efffedb
DATA swC<>+256(SB)/4, $0x3f7ffff6 // 0x1.ffffecp-1
DATA swC<>+260(SB)/4, $0x3f7ffff6
DATA swC<>+264(SB)/4, $0x3f7ffff6
DATA swC<>+268(SB)/4, $0x3f7ffff6
DATA swC<>+272(SB)/4, $0x3f7ffff6
DATA swC<>+276(SB)/4, $0x3f7ffff6
DATA swC<>+280(SB)/4, $0x3f7ffff6
DATA swC<>+284(SB)/4, $0x3f7ffff6
DATA swC<>+288(SB)/4, $0x3f800000 // 1
DATA swC<>+292(SB)/4, $0x3f800000
DATA swC<>+296(SB)/4, $0x3f800000
DATA swC<>+300(SB)/4, $0x3f800000
DATA swC<>+304(SB)/4, $0x3f800000
DATA swC<>+308(SB)/4, $0x3f800000
DATA swC<>+312(SB)/4, $0x3f800000
DATA swC<>+316(SB)/4, $0x3f800000
DATA swC<>+320(SB)/4, $0x42fc0000 // 126
DATA swC<>+324(SB)/4, $0x42fc0000
DATA swC<>+328(SB)/4, $0x42fc0000
DATA swC<>+332(SB)/4, $0x42fc0000
DATA swC<>+336(SB)/4, $0x42fc0000
DATA swC<>+340(SB)/4, $0x42fc0000
DATA swC<>+344(SB)/4, $0x42fc0000
DATA swC<>+348(SB)/4, $0x42fc0000
DATA swC<>+352(SB)/4, $0x7fffffff // |x| mask
DATA swC<>+356(SB)/4, $0x7fffffff
DATA swC<>+360(SB)/4, $0x7fffffff
DATA swC<>+364(SB)/4, $0x7fffffff
DATA swC<>+368(SB)/4, $0x7fffffff
DATA swC<>+372(SB)/4, $0x7fffffff
DATA swC<>+376(SB)/4, $0x7fffffff
DATA swC<>+380(SB)/4, $0x7fffffff
GLOBL swC<>(SB), RODATA|NOPTR, $384

// func swigluAVX2(n8 int, out, gate, up *float32) int
TEXT ·swigluAVX2(SB), NOSPLIT, $0-40
	MOVQ   n8+0(FP), CX
	MOVQ   out+8(FP), DX
	MOVQ   gate+16(FP), SI
	MOVQ   up+24(FP), DI
	XORQ   AX, AX
	VXORPS Y15, Y15, Y15
	VMOVUPS swC<>+0(SB), Y14

loop:
	CMPQ         AX, CX
	JGE          done
	VMOVUPS      (SI)(AX*4), Y0                // x
	VSUBPS       Y0, Y15, Y1                   // v = 0 - x (the exp argument)
	VMOVAPS      Y14, Y2
	VFMADD231PS  swC<>+32(SB), Y1, Y2 // z = fma(v, log2e, r)
	VSUBPS       Y14, Y2, Y3                   // n = z - r
	VANDPS       swC<>+352(SB), Y3, Y4
	VCMPPS       $0x1e, swC<>+320(SB), Y4, Y4 // |n| > 126
	VMOVMSKPS    Y4, BX
	TESTL        BX, BX
	JNZ          done
	VMOVAPS      Y1, Y4
	VFNMADD231PS swC<>+64(SB), Y3, Y4 // fma(-n, ln2hi, v)
	VFNMADD231PS swC<>+96(SB), Y3, Y4 // b = fma(-n, ln2lo, .)
	VPSLLD       $23, Y2, Y5                   // e = bits(z) << 23
	VPADDD       swC<>+288(SB), Y5, Y5 // k = e + bits(1)
	VMULPS       Y4, Y4, Y6                    // u = b*b
	VMOVUPS      swC<>+160(SB), Y7
	VFMADD231PS  swC<>+128(SB), Y4, Y7  // p = fma(c0, b, c1)
	VMOVUPS      swC<>+224(SB), Y8
	VFMADD231PS  swC<>+192(SB), Y4, Y8  // q = fma(c2, b, c3)
	VFMADD231PS  Y6, Y7, Y8                    // q = fma(p, u, q)
	VMULPS       swC<>+256(SB), Y4, Y9  // c4*b
	VFMADD231PS  Y6, Y8, Y9                    // j = fma(q, u, c4*b)
	VFMADD231PS  Y9, Y5, Y5                    // fma(k, j, k) = e^v
	VADDPS       swC<>+288(SB), Y5, Y5 // 1 + e^v
	VDIVPS       Y5, Y0, Y0                    // x / (1 + e^-x)
	VMULPS       (DI)(AX*4), Y0, Y0            // * up
	VMOVUPS      Y0, (DX)(AX*4)
	ADDQ         $8, AX
	JMP          loop

done:
	MOVQ AX, ret+32(FP)
	VZEROUPPER
	RET
