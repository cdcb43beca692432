// Shared by the AVX2 assembly files that decode Q5_0 blocks
// (#include "q5_0_amd64.h").

// Q5_0_DECODE sets nib to the 32 values of the Q5_0 block at W as signed
// bytes, as ggml's AVX2 code decodes them: the nibbles, ORed with 0xF0
// where the block's high bit is clear (nibble + 16*bit - 16). bits is
// scratch; nibx and tmpx are the 128-bit halves of nib and of a scratch
// register. The constants (memory or register operands): kshuf sends byte
// i/8 of a broadcast uint32 to byte i, kbits the bytes ~(1 << i%8), kones
// all ones, kf0 0xF0 bytes, k0f 0x0F bytes.
#define Q5_0_DECODE(W, bits, nib, nibx, tmpx, kshuf, kbits, kones, kf0, k0f) \
	VPBROADCASTD 2(W), bits         \
	VPSHUFB      kshuf, bits, bits  \
	VPOR         kbits, bits, bits  \
	VPCMPEQB     kones, bits, bits  \
	VPANDN       kf0, bits, bits    \
	VMOVDQU      6(W), nibx         \
	VPSRLW       $4, nibx, tmpx     \
	VINSERTI128  $1, tmpx, nib, nib \
	VPAND        k0f, nib, nib      \
	VPOR         bits, nib, nib
