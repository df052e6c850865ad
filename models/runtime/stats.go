package runtime

import (
	"sync/atomic"
	"time"
)

// Stats is where a Model's time went since it was opened, summed over every call
// (concurrent calls add up, so the durations can exceed wall time):
//
//   - Tokenize: validating and tokenizing texts (on several goroutines for large calls);
//   - Pack: building the padded input tensors of each batch (host memory);
//   - Run: ONNX Runtime's Run, which on cuda includes copying inputs to the GPU and the
//     output back to host memory;
//   - Unpack: pooling, normalising and copying each text's rows out of the output.
//
// Texts, Batches, Tokens (real tokens) and PaddedTokens (batch × its longest text) say
// how full the batches were.
type Stats struct {
	Texts, Batches, Tokens, PaddedTokens int64
	Tokenize, Pack, Run, Unpack          time.Duration
}

// Sub is s minus an earlier reading.
func (s Stats) Sub(o Stats) Stats {
	return Stats{s.Texts - o.Texts, s.Batches - o.Batches, s.Tokens - o.Tokens, s.PaddedTokens - o.PaddedTokens,
		s.Tokenize - o.Tokenize, s.Pack - o.Pack, s.Run - o.Run, s.Unpack - o.Unpack}
}

type stageCounters struct {
	texts, batches, tokens, padded atomic.Int64
	tokenize, pack, run, unpack    atomic.Int64 // nanoseconds
}

// Stats returns the counters so far; cheap (eight atomic loads).
func (m *Model) Stats() Stats {
	c := &m.stats
	return Stats{c.texts.Load(), c.batches.Load(), c.tokens.Load(), c.padded.Load(),
		time.Duration(c.tokenize.Load()), time.Duration(c.pack.Load()), time.Duration(c.run.Load()), time.Duration(c.unpack.Load())}
}

// count adds one batch p of nreal real tokens.
func (c *stageCounters) count(p packed, nreal int) {
	c.texts.Add(int64(p.B))
	c.batches.Add(1)
	c.tokens.Add(int64(nreal))
	c.padded.Add(int64(p.B * p.T))
}
