// Package quantize converts GGUF models between tensor types the way
// llama.cpp's llama-quantize does (without an importance matrix), so that
// its output is byte-identical: same metadata, same tensor order, same
// per-tensor types, same bytes.
//
// What llama-quantize does, and so this package:
//
//   - Which tensors: only weights of 2+ dimensions (trailing 1s do not
//     count) whose name ends in "weight", except norms, MoE routers,
//     positional embeddings and a list of small special tensors
//     (Quantizable). Everything else is copied unchanged.
//   - Which type: the file type's default type, upgraded per tensor by the
//     mix rules (output.weight, attn_v, ffn_down, attn_output ...; see
//     ChooseType), then replaced by a fallback type when the row length is
//     not a multiple of the type's block (Q2_K/Q3_K -> Q4_0, Q4_K -> Q5_0,
//     Q5_K -> Q5_1, Q6_K -> Q8_0, then F16 if even 32 does not divide it).
//     The rules count attn_v and ffn_down tensors as they go, so they run in
//     llama-quantize's tensor order (Order): non-layer tensors first, then
//     by layer number, each group sorted by name. That is also the order of
//     the tensors in the output file, which therefore differs from the
//     input's order.
//   - Metadata: every key of the input, in order, except
//     general.quantization_version and general.file_type, which are
//     appended (in that order) with the values 2 and the file type, and the
//     split.* keys, which are dropped. No other key is added.
//   - Checks: NaN or infinite input values, and results that overflow (an
//     F16 value or block scale beyond 65504), fail the conversion, as
//     ggml_validate_row_data makes llama-quantize fail.
//
// Run streams one tensor at a time to the writer, converting rows in
// chunks of at most 32 MiB with Options.Threads goroutines, so memory stays
// bounded whatever the model size. The output is written to a temporary
// file and renamed into place; on any error nothing is left behind.
//
//   - Overrides: llama-quantize's per-tensor options (--tensor-type
//     PATTERN=TYPE, --output-tensor-type, --token-embedding-type, --pure,
//     --leave-output-tensor) are Options.Overrides, applied with its
//     precedence (see Overrides); patterns are regular expressions searched
//     in tensor names, Go's RE2 syntax standing in for ECMAScript's.
//
// Not supported: importance matrices and the IQ*/TQ*/MXFP4 mixes (and so
// the IQ branches of the rules), keeping or writing split files, pruning
// layers, metadata overrides (--override-kv).
// For a file with a general.alignment other than 32 the offsets follow that
// alignment consistently (llama-quantize pads tensor data to 32 regardless).
package quantize
