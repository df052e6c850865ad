package neural

import (
	"fmt"

	"github.com/cgraph/cgraph/models"
)

func modelID(s string) models.ModelID { return models.ModelID(s) }

// dirEval are the direction figures of E5 on cause→effect pairs (c_i, e_i):
//
//	Forward  mean cos(query effect-view of e_i, doc cause-vector of c_i)  (search_causes, right way)
//	Reverse  mean cos(query effect-view of c_i, doc cause-vector of e_i)  (the roles swapped)
//	Ratio    Forward / Reverse (the asymmetry ratio; 1 for a symmetric encoder)
//	PairAcc  share of pairs whose forward cosine beats their reverse one
//	Top1F    share of effects whose own cause ranks first among all pairs' cause vectors of causes
//	Top1R    the same with the roles swapped (query effect-view of c_i among cause vectors of effects)
type dirEval struct {
	N                                              int
	Forward, Reverse, Ratio, PairAcc, Top1F, Top1R float64
}

func (d dirEval) String() string {
	return fmt.Sprintf("n=%d forward %.3f reverse %.3f ratio %.3f pair-acc %.3f top1 right-way %.3f swapped %.3f",
		d.N, d.Forward, d.Reverse, d.Ratio, d.PairAcc, d.Top1F, d.Top1R)
}

// evalDirection computes dirEval from qe (query effect-view of effects), qc
// (query effect-view of causes), dc (doc cause-vectors of causes) and de (doc
// cause-vectors of effects), index i being pair i.
func evalDirection(qe, qc, dc, de [][]float32) dirEval {
	n := len(qe)
	d := dirEval{N: n}
	for i := range n {
		f, r := cosine(qe[i], dc[i]), cosine(qc[i], de[i])
		d.Forward += f
		d.Reverse += r
		if f > r {
			d.PairAcc++
		}
		if top1(qe[i], dc, i) {
			d.Top1F++
		}
		if top1(qc[i], de, i) {
			d.Top1R++
		}
	}
	nf := float64(n)
	d.Forward, d.Reverse, d.PairAcc, d.Top1F, d.Top1R = d.Forward/nf, d.Reverse/nf, d.PairAcc/nf, d.Top1F/nf, d.Top1R/nf
	d.Ratio = d.Forward / d.Reverse
	return d
}

// top1 reports whether docs[want] is the nearest of docs to q.
func top1(q []float32, docs [][]float32, want int) bool {
	best := cosine(q, docs[want])
	for j, v := range docs {
		if j != want && cosine(q, v) >= best {
			return false
		}
	}
	return true
}
