package convert

import (
	"fmt"
	"math"
)

// This file is the tests' own BertForMaskedLM forward pass, in float64,
// written from the Hugging Face model's definition and reading weights by
// their checkpoint names, so that it shares nothing with the graph builder
// or loadBert.

// refWeights are checkpoint tensors by name.
type refWeights map[string][]float32

func (w refWeights) get(name string) []float32 {
	v, ok := w[name]
	if !ok {
		panic(fmt.Sprintf("reference: no tensor %q", name))
	}
	return v
}

// lin returns x·Wᵀ + b for W [out, in].
func (w refWeights) lin(name string, x []float64, out int) []float64 {
	W, b := w.get(name+".weight"), w.get(name+".bias")
	in := len(x)
	y := make([]float64, out)
	for o := range out {
		s := float64(b[o])
		for i := range in {
			s += float64(W[o*in+i]) * x[i]
		}
		y[o] = s
	}
	return y
}

// ln is LayerNorm over x with the named parameters (weight/bias or gamma/beta).
func (w refWeights) ln(name string, x []float64, eps float64) []float64 {
	g, ok := w[name+".weight"]
	b := w[name+".bias"]
	if !ok {
		g, b = w.get(name+".gamma"), w.get(name+".beta")
	}
	var mean, vari float64
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	for _, v := range x {
		vari += (v - mean) * (v - mean)
	}
	vari /= float64(len(x))
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = (v-mean)/math.Sqrt(vari+eps)*float64(g[i]) + float64(b[i])
	}
	return y
}

func refGelu(x []float64) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = v * 0.5 * (1 + math.Erf(v/math.Sqrt2))
	}
	return y
}

func addVec(a, b []float64) []float64 {
	y := make([]float64, len(a))
	for i := range a {
		y[i] = a[i] + b[i]
	}
	return y
}

// refForward returns the logits [T][V] of one sequence; keys whose mask is 0
// get no attention. prefix is "bert." or "".
func refForward(w refWeights, c BertConfig, prefix string, ids, types, mask []int64) [][]float64 {
	H, T := c.HiddenSize, len(ids)
	eps := c.LayerNormEps
	x := make([][]float64, T)
	for t := range T {
		e := make([]float64, H)
		for d := range H {
			e[d] = float64(w.get(prefix + "embeddings.word_embeddings.weight")[int(ids[t])*H+d]) +
				float64(w.get(prefix + "embeddings.token_type_embeddings.weight")[int(types[t])*H+d]) +
				float64(w.get(prefix + "embeddings.position_embeddings.weight")[t*H+d])
		}
		x[t] = w.ln(prefix+"embeddings.LayerNorm", e, eps)
	}
	for l := range c.NumLayers {
		x = refLayer(w, c, fmt.Sprintf("%sencoder.layer.%d.", prefix, l), x, mask)
	}
	return refHead(w, c, prefix, x)
}

func refLayer(w refWeights, c BertConfig, p string, x [][]float64, mask []int64) [][]float64 {
	H, T, nh := c.HiddenSize, len(x), c.NumHeads
	hd := H / nh
	q, k, v := make([][]float64, T), make([][]float64, T), make([][]float64, T)
	for t := range T {
		q[t] = w.lin(p+"attention.self.query", x[t], H)
		k[t] = w.lin(p+"attention.self.key", x[t], H)
		v[t] = w.lin(p+"attention.self.value", x[t], H)
	}
	out := make([][]float64, T)
	for t := range T {
		ctx := make([]float64, H)
		for h := range nh {
			refAttendHead(q[t][h*hd:(h+1)*hd], k, v, mask, h*hd, ctx[h*hd:(h+1)*hd])
		}
		a := w.ln(p+"attention.output.LayerNorm", addVec(w.lin(p+"attention.output.dense", ctx, H), x[t]), c.LayerNormEps)
		f := w.lin(p+"output.dense", refGelu(w.lin(p+"intermediate.dense", a, c.IntermediateSize)), H)
		out[t] = w.ln(p+"output.LayerNorm", addVec(f, a), c.LayerNormEps)
	}
	return out
}

// refAttendHead writes softmax(q·kᵀ/√d over unmasked keys)·v into ctx.
func refAttendHead(q []float64, k, v [][]float64, mask []int64, off int, ctx []float64) {
	d := len(q)
	scores := make([]float64, len(k))
	best := math.Inf(-1)
	for s := range k {
		if mask[s] == 0 {
			continue
		}
		var dot float64
		for i := range d {
			dot += q[i] * k[s][off+i]
		}
		scores[s] = dot / math.Sqrt(float64(d))
		best = max(best, scores[s])
	}
	var z float64
	for s := range k {
		if mask[s] != 0 {
			scores[s] = math.Exp(scores[s] - best)
			z += scores[s]
		}
	}
	for s := range k {
		if mask[s] == 0 {
			continue
		}
		for i := range d {
			ctx[i] += scores[s] / z * v[s][off+i]
		}
	}
}

func refHead(w refWeights, c BertConfig, prefix string, x [][]float64) [][]float64 {
	H, V := c.HiddenSize, c.VocabSize
	dec, ok := w["cls.predictions.decoder.weight"]
	if c.tied() || !ok {
		dec = w.get(prefix + "embeddings.word_embeddings.weight")
	}
	bias := w.get("cls.predictions.bias")
	logits := make([][]float64, len(x))
	for t, h := range x {
		tr := w.ln("cls.predictions.transform.LayerNorm", refGelu(w.lin("cls.predictions.transform.dense", h, H)), c.LayerNormEps)
		row := make([]float64, V)
		for vi := range V {
			s := float64(bias[vi])
			for d := range H {
				s += float64(dec[vi*H+d]) * tr[d]
			}
			row[vi] = s
		}
		logits[t] = row
	}
	return logits
}

// refSPLADE is max over unmasked tokens of log(1+ReLU(logit)), per term.
func refSPLADE(logits [][]float64, mask []int64) []float64 {
	w := make([]float64, len(logits[0]))
	for t, row := range logits {
		if mask[t] == 0 {
			continue
		}
		for v, x := range row {
			w[v] = max(w[v], math.Log1p(max(x, 0)))
		}
	}
	return w
}
