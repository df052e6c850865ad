package sentclass

import (
	"bufio"
	"bytes"
	_ "embed"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Model is a trained classifier. The zero Model answers None with
// certainty.
type Model struct {
	weights map[string][numLabels]float32
	bias    [numLabels]float32
}

// Probs classifies one sentence.
func (m *Model) Probs(in Input) Probs {
	if m == nil || m.weights == nil {
		return Probs{None: 1}
	}
	var z [numLabels]float64
	for l := range z {
		z[l] = float64(m.bias[l])
	}
	for _, f := range Features(in) {
		if w, ok := m.weights[f]; ok {
			for l := range z {
				z[l] += float64(w[l])
			}
		}
	}
	return softmax(z)
}

func softmax(z [numLabels]float64) Probs {
	mx := math.Inf(-1)
	for _, v := range z {
		mx = max(mx, v)
	}
	var p Probs
	sum := 0.0
	for l, v := range z {
		p[l] = math.Exp(v - mx)
		sum += p[l]
	}
	for l := range p {
		p[l] /= sum
	}
	return p
}

// Example is one labelled sentence for Train.
type Example struct {
	Input
	Label  Label
	Weight float64 // 0 counts as 1
}

// TrainOptions tune Train. The zero value is ready to use.
type TrainOptions struct {
	Epochs int     // passes over the examples (30 when 0)
	L2     float64 // weight decay per step (1e-4 when 0)
	Rate   float64 // AdaGrad's learning rate (0.5 when 0)
	// MinCount drops features seen in fewer examples (2 when 0).
	MinCount int
	Seed     uint64
}

// Train fits a model to the examples by AdaGrad on the weighted
// cross-entropy. It is deterministic for a given Seed and input order.
func Train(ex []Example, opt TrainOptions) *Model {
	if opt.Epochs == 0 {
		opt.Epochs = 30
	}
	if opt.L2 == 0 {
		opt.L2 = 1e-4
	}
	if opt.Rate == 0 {
		opt.Rate = 0.5
	}
	if opt.MinCount == 0 {
		opt.MinCount = 2
	}
	count := map[string]int{}
	feats := make([][]string, len(ex))
	for i, e := range ex {
		feats[i] = Features(e.Input)
		for _, f := range feats[i] {
			count[f]++
		}
	}
	idx := map[string]int{}
	var names []string
	for f, c := range count {
		if c >= opt.MinCount {
			names = append(names, f)
		}
	}
	sort.Strings(names)
	for i, f := range names {
		idx[f] = i
	}
	n := len(names)
	w := make([][numLabels]float64, n+1) // the last row is the bias
	g := make([][numLabels]float64, n+1)
	order := make([]int, len(ex))
	for i := range order {
		order[i] = i
	}
	r := rand.New(rand.NewPCG(opt.Seed, 0x5e47c1a55))
	active := make([]int, 0, 64)
	for range opt.Epochs {
		r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, i := range order {
			e := ex[i]
			wt := e.Weight
			if wt == 0 {
				wt = 1
			}
			active = active[:0]
			for _, f := range feats[i] {
				if k, ok := idx[f]; ok {
					active = append(active, k)
				}
			}
			active = append(active, n)
			var z [numLabels]float64
			for _, k := range active {
				for l := range z {
					z[l] += w[k][l]
				}
			}
			p := softmax(z)
			for l := range p {
				grad := p[l]
				if Label(l) == e.Label {
					grad--
				}
				grad *= wt
				for _, k := range active {
					gk := grad
					if k != n {
						gk += opt.L2 * w[k][l]
					}
					g[k][l] += gk * gk
					w[k][l] -= opt.Rate * gk / (math.Sqrt(g[k][l]) + 1e-8)
				}
			}
		}
	}
	m := &Model{weights: make(map[string][numLabels]float32, n)}
	for i, f := range names {
		var v [numLabels]float32
		keep := false
		for l := range v {
			v[l] = float32(w[i][l])
			keep = keep || math.Abs(w[i][l]) >= 1e-3
		}
		if keep {
			m.weights[f] = v
		}
	}
	for l := range m.bias {
		m.bias[l] = float32(w[n][l])
	}
	return m
}

const header = "cgraph-sentclass 1"

// MarshalText writes the model as text: a header line, a bias line, then
// one line per feature (its name and a weight per label, tab-separated), in
// feature order, so that the same model always writes the same bytes.
func (m *Model) MarshalText() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(header + "\n")
	line := func(name string, v [numLabels]float32) {
		b.WriteString(name)
		for _, x := range v {
			b.WriteByte('\t')
			b.WriteString(strconv.FormatFloat(float64(x), 'g', 5, 32))
		}
		b.WriteByte('\n')
	}
	line("\x00bias", m.bias)
	names := make([]string, 0, len(m.weights))
	for f := range m.weights {
		names = append(names, f)
	}
	sort.Strings(names)
	for _, f := range names {
		line(f, m.weights[f])
	}
	return b.Bytes(), nil
}

// Parse reads what MarshalText wrote. It refuses another header, a line
// without a weight per label, a weight that is not a finite number, a
// feature named twice and a missing bias line.
func Parse(data []byte) (*Model, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	if !sc.Scan() || sc.Text() != header {
		return nil, fmt.Errorf("sentclass: not a model: the first line must be %q", header)
	}
	m := &Model{weights: map[string][numLabels]float32{}}
	haveBias := false
	for ln := 2; sc.Scan(); ln++ {
		parts := strings.Split(sc.Text(), "\t")
		if len(parts) != 1+int(numLabels) || parts[0] == "" {
			return nil, fmt.Errorf("sentclass: line %d: want a feature and %d weights, tab-separated", ln, numLabels)
		}
		var v [numLabels]float32
		for l := range v {
			x, err := strconv.ParseFloat(parts[1+l], 32)
			if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
				return nil, fmt.Errorf("sentclass: line %d: weight %q is not a finite number", ln, parts[1+l])
			}
			v[l] = float32(x)
		}
		if parts[0] == "\x00bias" {
			if haveBias {
				return nil, fmt.Errorf("sentclass: line %d: a second bias line", ln)
			}
			m.bias, haveBias = v, true
			continue
		}
		if _, dup := m.weights[parts[0]]; dup {
			return nil, fmt.Errorf("sentclass: line %d: feature %q twice", ln, parts[0])
		}
		m.weights[parts[0]] = v
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("sentclass: %w", err)
	}
	if !haveBias {
		return nil, fmt.Errorf("sentclass: no bias line")
	}
	return m, nil
}

//go:embed default.model
var defaultModel []byte

var (
	defaultOnce sync.Once
	defaultM    *Model
)

// Default is the shipped model (default.model). It panics if the embedded
// file does not parse, which TestDefaultParses rules out.
func Default() *Model {
	defaultOnce.Do(func() {
		m, err := Parse(defaultModel)
		if err != nil {
			panic(err)
		}
		defaultM = m
	})
	return defaultM
}
