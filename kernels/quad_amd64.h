// Layout sizes the assembly shares with the Go code (#include
// "quad_amd64.h"); TestAsmLayoutHeader checks them against the Go
// constants of the same meaning.

// q8_KQuadMain, q8_KQuadSums (packed_q8.go).
#define Q8K_QUAD_MAIN 1104
#define Q8K_QUAD_SUMS 512

// q8_KQuadTokBytes (packed_q8.go).
#define Q8K_QUADTOK_BYTES 1104

// q3_KGroupBytes (packed_q3_k.go).
#define Q3K_GROUP_BYTES 912
