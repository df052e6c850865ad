package convert

import (
	"fmt"
	"slices"
)

// linearParams is a PyTorch Linear layer: W is [Out, In] row-major.
type linearParams struct {
	W, B    []float32
	Out, In int
}

type normParams struct{ Gamma, Beta []float32 }

type layerParams struct {
	Q, K, V, AttnOut linearParams
	AttnNorm         normParams
	Inter, Out       linearParams
	OutNorm          normParams
}

// bertParams holds every weight of a BertForMaskedLM, checked against the
// config's shapes.
type bertParams struct {
	Word, Pos, Type []float32 // [vocab|positions|types, hidden]
	EmbNorm         normParams
	Layers          []layerParams
	Transform       linearParams
	TransformNorm   normParams
	// Decoder is [vocab, hidden]; nil when tied to Word.
	Decoder     []float32
	DecoderBias []float32
}

// weightReader reads named tensors and checks their shapes, keeping the
// first error so the loading code reads as a list of names.
type weightReader struct {
	st     *Safetensors
	prefix string // "bert." for BertForMaskedLM checkpoints, "" for bare ones
	err    error
}

func (r *weightReader) has(name string) bool {
	_, ok := r.st.Info(name)
	return ok
}

func (r *weightReader) tensor(name string, shape ...int) []float32 {
	if r.err != nil {
		return nil
	}
	data, got, err := r.st.Float32(name)
	if err != nil {
		r.err = err
		return nil
	}
	want := make([]int64, len(shape))
	for i, d := range shape {
		want[i] = int64(d)
	}
	if !slices.Equal(got, want) {
		r.err = fmt.Errorf("tensor %q has shape %v, the config implies %v", name, got, want)
		return nil
	}
	return data
}

func (r *weightReader) linear(name string, out, in int) linearParams {
	return linearParams{W: r.tensor(name+".weight", out, in), B: r.tensor(name+".bias", out), Out: out, In: in}
}

// norm reads a LayerNorm: "weight"/"bias" in current checkpoints,
// "gamma"/"beta" in older ones.
func (r *weightReader) norm(name string, h int) normParams {
	if r.has(name + ".gamma") {
		return normParams{Gamma: r.tensor(name+".gamma", h), Beta: r.tensor(name+".beta", h)}
	}
	return normParams{Gamma: r.tensor(name+".weight", h), Beta: r.tensor(name+".bias", h)}
}

// loadBert reads every weight the graph needs. Tensors it does not need
// (a pooler, position_ids buffers) are ignored.
func loadBert(st *Safetensors, c BertConfig) (*bertParams, error) {
	r := &weightReader{st: st}
	if r.has("bert.embeddings.word_embeddings.weight") {
		r.prefix = "bert."
	}
	e := r.prefix + "embeddings."
	H, V := c.HiddenSize, c.VocabSize
	p := &bertParams{
		Word:    r.tensor(e+"word_embeddings.weight", V, H),
		Pos:     r.tensor(e+"position_embeddings.weight", c.MaxPositions, H),
		Type:    r.tensor(e+"token_type_embeddings.weight", c.TypeVocabSize, H),
		EmbNorm: r.norm(e+"LayerNorm", H),
	}
	for i := range c.NumLayers {
		p.Layers = append(p.Layers, r.layer(fmt.Sprintf("%sencoder.layer.%d.", r.prefix, i), c))
	}
	p.Transform = r.linear("cls.predictions.transform.dense", H, H)
	p.TransformNorm = r.norm("cls.predictions.transform.LayerNorm", H)
	p.DecoderBias = r.decoderBias(V)
	if !c.tied() {
		p.Decoder = r.tensor("cls.predictions.decoder.weight", V, H)
	}
	if r.err != nil {
		return nil, fmt.Errorf("bert weights: %w", r.err)
	}
	return p, nil
}

func (r *weightReader) layer(l string, c BertConfig) layerParams {
	H, I := c.HiddenSize, c.IntermediateSize
	return layerParams{
		Q:        r.linear(l+"attention.self.query", H, H),
		K:        r.linear(l+"attention.self.key", H, H),
		V:        r.linear(l+"attention.self.value", H, H),
		AttnOut:  r.linear(l+"attention.output.dense", H, H),
		AttnNorm: r.norm(l+"attention.output.LayerNorm", H),
		Inter:    r.linear(l+"intermediate.dense", I, H),
		Out:      r.linear(l+"output.dense", H, I),
		OutNorm:  r.norm(l+"output.LayerNorm", H),
	}
}

// decoderBias is cls.predictions.bias, which Hugging Face ties to the
// decoder's bias; checkpoints that store only the decoder's copy work too.
func (r *weightReader) decoderBias(v int) []float32 {
	if r.has("cls.predictions.bias") {
		return r.tensor("cls.predictions.bias", v)
	}
	return r.tensor("cls.predictions.decoder.bias", v)
}
