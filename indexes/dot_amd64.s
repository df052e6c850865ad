#include "textflag.h"

// func dotF32I8SSE41(q []float32, v []int8) float32
//
// dotF32I8Go in four SSE lanes: lane j of X0 is the Go code's sum s_j
// (MULPS then ADDPS, each rounded to float32, never fused), the tail goes
// to lane 0 in order, and the lanes are added as ((s0+s1)+s2)+s3.
TEXT ·dotF32I8SSE41(SB), NOSPLIT, $0-52
	MOVQ q_base+0(FP), SI
	MOVQ q_len+8(FP), CX
	MOVQ v_base+24(FP), DI
	XORPS X0, X0
	MOVQ CX, DX
	SHRQ $2, DX
	JZ   tail

loop:
	PMOVSXBD (DI), X1 // four int8 → four int32
	CVTPL2PS X1, X1   // → four float32 (exact)
	MOVUPS   (SI), X2
	MULPS    X2, X1
	ADDPS    X1, X0
	ADDQ     $16, SI
	ADDQ     $4, DI
	DECQ     DX
	JNZ      loop

tail:
	ANDQ $3, CX
	JZ   sum

tailloop:
	MOVBLSX  (DI), AX
	CVTSL2SS AX, X1
	MULSS    (SI), X1
	ADDSS    X1, X0   // lane 0: s0
	ADDQ     $4, SI
	ADDQ     $1, DI
	DECQ     CX
	JNZ      tailloop

sum:
	MOVAPS X0, X1
	SHUFPS $0x55, X1, X1 // s1 in lane 0
	MOVAPS X0, X2
	SHUFPS $0xAA, X2, X2 // s2
	MOVAPS X0, X3
	SHUFPS $0xFF, X3, X3 // s3
	ADDSS  X1, X0
	ADDSS  X2, X0
	ADDSS  X3, X0
	MOVSS  X0, ret+48(FP)
	RET
