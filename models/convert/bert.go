package convert

import (
	"fmt"
	"math"
)

// Names of the graph's inputs and output: what package runtime feeds
// (int64 [batch, sequence]) and what it reads for a masked-LM model.
const (
	InputIDs      = "input_ids"
	AttentionMask = "attention_mask"
	TokenTypeIDs  = "token_type_ids"
	LogitsOutput  = "logits"
)

// ONNX versions the graphs target: opset 17 is the first with
// LayerNormalization, IR version 8 the one that goes with it.
const (
	irVersion = 8
	opset     = 17
)

// maskedOut is added to the attention scores of padding keys: the lowest
// float32, as Hugging Face's extended attention mask uses, so softmax gives
// them exactly zero weight.
const maskedOut = -math.MaxFloat32

// buildBertMLM returns the ONNX graph of BertForMaskedLM's forward pass:
//
//	x = LayerNorm(word[input_ids] + type[token_type_ids] + position[0..T))
//	per layer: x = LN(x + Attn(x, mask)); x = LN(x + W2·gelu(W1·x))
//	logits = LN(gelu(Wt·x))·wordᵀ + bias           (decoder tied to word)
//
// with attention over keys whose attention_mask is 1. Output "logits" is
// float32 [batch, sequence, vocab].
func buildBertMLM(p *bertParams, c BertConfig) *Graph {
	b := newBuilder("bert_for_masked_lm")
	seq := []Dim{{Param: "batch"}, {Param: "sequence"}}
	for _, name := range []string{InputIDs, AttentionMask, TokenTypeIDs} {
		b.g.Inputs = append(b.g.Inputs, ValueInfo{Name: b.claim(name), Elem: Int64, Shape: seq})
	}
	k := bertConsts(b, c)
	x := embeddings(b, p, c, k)
	mask := attentionBias(b)
	for i, l := range p.Layers {
		x = encoderLayer(b, fmt.Sprintf("layer%d", i), x, mask, l, c, k)
	}
	mlmHead(b, x, p, c, k)
	b.g.Outputs = []ValueInfo{{Name: LogitsOutput, Elem: Float,
		Shape: []Dim{{Param: "batch"}, {Param: "sequence"}, {Value: int64(c.VocabSize)}}}}
	return b.g
}

// consts are the shared constant values of the graph, by name.
type consts struct {
	inputShape, zero, one, headsShape, hiddenShape, flatShape, vocab, sqrtHead string
}

func bertConsts(b *builder, c BertConfig) consts {
	H, nh := int64(c.HiddenSize), int64(c.NumHeads)
	return consts{
		inputShape:  b.op("Shape", "input_shape", []string{InputIDs}),
		zero:        b.ints("const.zero", nil, 0),
		one:         b.ints("const.one", nil, 1),
		headsShape:  b.ints("const.heads_shape", []int64{4}, 0, 0, nh, H/nh),
		hiddenShape: b.ints("const.hidden_shape", []int64{3}, 0, 0, H),
		flatShape:   b.ints("const.flat_shape", []int64{2}, -1, H),
		vocab:       b.ints("const.vocab", []int64{1}, int64(c.VocabSize)),
		sqrtHead:    b.scalar("const.sqrt_head_size", float32(math.Sqrt(float64(H/nh)))),
	}
}

func embeddings(b *builder, p *bertParams, c BertConfig, k consts) string {
	H := int64(c.HiddenSize)
	seqLen := b.op("Gather", "sequence_length", []string{k.inputShape, k.one}, IntAttr("axis", 0))
	positions := b.op("Range", "position_ids", []string{k.zero, seqLen, k.one})
	word := b.weight("embeddings.word", []int64{int64(c.VocabSize), H}, p.Word)
	w := b.op("Gather", "embeddings.word.out", []string{word, InputIDs}, IntAttr("axis", 0))
	typ := b.weight("embeddings.token_type", []int64{int64(c.TypeVocabSize), H}, p.Type)
	t := b.op("Gather", "embeddings.token_type.out", []string{typ, TokenTypeIDs}, IntAttr("axis", 0))
	pos := b.weight("embeddings.position", []int64{int64(c.MaxPositions), H}, p.Pos)
	ps := b.op("Gather", "embeddings.position.out", []string{pos, positions}, IntAttr("axis", 0))
	sum := b.op("Add", "embeddings.sum", []string{b.op("Add", "embeddings.word_type", []string{w, t}), ps})
	return b.layerNorm("embeddings.norm", sum, p.EmbNorm.Gamma, p.EmbNorm.Beta, float32(c.LayerNormEps))
}

// attentionBias turns attention_mask [B, T] into an additive [B, 1, 1, T]
// bias: 0 for real tokens, maskedOut for padding.
func attentionBias(b *builder) string {
	m := b.op("Cast", "mask.float", []string{AttentionMask}, IntAttr("to", int64(Float)))
	inv := b.op("Sub", "mask.inverted", []string{b.scalar("const.float_one", 1), m})
	bias := b.op("Mul", "mask.bias", []string{inv, b.scalar("const.masked_out", maskedOut)})
	axes := b.ints("const.mask_axes", []int64{2}, 1, 2)
	return b.op("Unsqueeze", "mask.bias4", []string{bias, axes})
}

func encoderLayer(b *builder, name, x, mask string, l layerParams, c BertConfig, k consts) string {
	ctx := selfAttention(b, name+".attention", x, mask, l, k)
	a := b.linear(name+".attention.output", ctx, l.AttnOut)
	eps := float32(c.LayerNormEps)
	x1 := b.layerNorm(name+".attention.norm", b.op("Add", name+".attention.residual", []string{a, x}), l.AttnNorm.Gamma, l.AttnNorm.Beta, eps)
	f := b.gelu(name+".ffn.gelu", b.linear(name+".ffn.in", x1, l.Inter))
	f2 := b.linear(name+".ffn.out", f, l.Out)
	return b.layerNorm(name+".ffn.norm", b.op("Add", name+".ffn.residual", []string{f2, x1}), l.OutNorm.Gamma, l.OutNorm.Beta, eps)
}

// selfAttention is multi-head scaled dot-product attention; it returns the
// heads' context concatenated back to [B, T, H].
func selfAttention(b *builder, name, x, mask string, l layerParams, k consts) string {
	split := func(part string, p linearParams, perm ...int64) string {
		v := b.linear(name+"."+part, x, p)
		r := b.op("Reshape", name+"."+part+".heads", []string{v, k.headsShape})
		return b.op("Transpose", name+"."+part+".transposed", []string{r}, IntsAttr("perm", perm...))
	}
	q := split("query", l.Q, 0, 2, 1, 3) // [B, nh, T, hd]
	kt := split("key", l.K, 0, 2, 3, 1)  // [B, nh, hd, T]
	v := split("value", l.V, 0, 2, 1, 3) // [B, nh, T, hd]
	scores := b.op("MatMul", name+".scores", []string{q, kt})
	scaled := b.op("Div", name+".scaled", []string{scores, k.sqrtHead})
	masked := b.op("Add", name+".masked", []string{scaled, mask})
	probs := b.op("Softmax", name+".probs", []string{masked}, IntAttr("axis", -1))
	ctx := b.op("MatMul", name+".context", []string{probs, v})
	back := b.op("Transpose", name+".context.transposed", []string{ctx}, IntsAttr("perm", 0, 2, 1, 3))
	return b.op("Reshape", name+".context.merged", []string{back, k.hiddenShape})
}

// mlmHead is BertOnlyMLMHead: transform (dense, gelu, LayerNorm), then the
// decoder — a Gemm against the word embeddings (or the untied decoder
// weight) over the flattened tokens — reshaped to [B, T, vocab].
func mlmHead(b *builder, x string, p *bertParams, c BertConfig, k consts) string {
	t := b.linear("cls.transform", x, p.Transform)
	t = b.layerNorm("cls.transform.norm", b.gelu("cls.transform.gelu", t), p.TransformNorm.Gamma, p.TransformNorm.Beta, float32(c.LayerNormEps))
	decoder := "embeddings.word"
	if p.Decoder != nil {
		decoder = b.weight("cls.decoder", []int64{int64(c.VocabSize), int64(c.HiddenSize)}, p.Decoder)
	}
	flat := b.op("Reshape", "cls.flat", []string{t, k.flatShape})
	bias := b.weight("cls.decoder.bias", []int64{int64(c.VocabSize)}, p.DecoderBias)
	dec := b.op("Gemm", "cls.decoded", []string{flat, decoder, bias}, IntAttr("transB", 1))
	outShape := b.op("Concat", "logits_shape", []string{k.inputShape, k.vocab}, IntAttr("axis", 0))
	return b.op("Reshape", LogitsOutput, []string{dec, outShape})
}
