package kernels

// Weights converted to Q8_0 rows for prefill. A Q5_0 block is a scale and
// 32 5-bit values; its product with a Q8_0 token is, in llama.cpp's order
// (tinyBLAS, ggml_vec_dot_q5_0_q8_0), the Q8_0 product of the decoded
// values under the same scale. A Q8_0 row holding those values (the
// block's f16 scale, then the 32 values as signed bytes) therefore gives
// a Q8_0 kernel in the lane order the Q5_0 result to the bit. Prefill
// converts the rows of a thread's row unit once (kernelSet.q8Rows) and runs
// that order's Q8_0 tile (kernelSet.q8RowsTile) on them for every quad of
// tokens, instead of decoding each block again for every quad (the decode
// is a third of the Q5_0 tile's work).

// q8RowsMinTokens is the batch size from which prefill converts: below
// two quads the conversion costs more than the decoding it saves.
const q8RowsMinTokens = 8

// q5_0RowAsQ8_0Generic writes the Q5_0 row src (whole blocks) into dst as
// Q8_0 blocks (len(src)/22*34 bytes).
func q5_0RowAsQ8_0Generic(dst, src []byte) {
	nb := len(src) / q5_0Bytes
	_ = dst[nb*q8_0Bytes-1]
	var q [32]int8
	for i := 0; i < nb; i++ {
		x, y := src[i*q5_0Bytes:(i+1)*q5_0Bytes], dst[i*q8_0Bytes:(i+1)*q8_0Bytes]
		y[0], y[1] = x[0], x[1]
		unpackQ5(x[2:6], x[6:22], &q, 16)
		for j, v := range q {
			y[2+j] = byte(v)
		}
	}
}

// q8RowsFor returns the conversion of w's rows the active set's prefill
// uses for a batch of ntok tokens, and the bytes of a converted row; nil
// when the rows are multiplied as they are.
func q8RowsFor(w *Matrix, ntok int) (func(dst, src []byte), int) {
	f := active.q8Rows[w.Type]
	if f == nil || ntok < q8RowsMinTokens || active.q8RowsTile == nil {
		return nil, 0
	}
	return f, w.Cols / qk * q8_0Bytes
}
