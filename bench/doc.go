// Package bench measures tokens per second: summary statistics, per-layer and
// per-op breakdowns built from the engine's timers, bandwidth figures, a
// llama-bench style test runner and its report writers (markdown, CSV, JSON,
// JSON lines, benchstat lines).
//
// Definitions (the README states the same):
//   - TTFT: request start (before tokenization) to the first sampled token;
//     in `gollm bench`, the time of the prompt's forward passes (no
//     tokenizer, no sampler).
//   - prefill tok/s: prompt tokens / prefill time.
//   - decode tok/s: generated tokens after the first / time from the first
//     to the last token (what llama-bench's tg figure measures).
//   - ITL: the gap between consecutive tokens.
//   - end-to-end tok/s: generated tokens / (end - request start).
//   - weights bandwidth: weight bytes a decode step reads x decode tok/s, and
//     its share of the machine's measured read bandwidth.
package bench
