package topics

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"testing"
)

func euclid(pts [][]float64) Distance {
	return func(i, j int) float64 {
		var s float64
		for k := range pts[i] {
			d := pts[i][k] - pts[j][k]
			s += d * d
		}
		return math.Sqrt(s)
	}
}

// TestHDBSCANHandChecked covers cases whose answer can be worked out on paper.
func TestHDBSCANHandChecked(t *testing.T) {
	line := func(xs ...float64) [][]float64 {
		out := make([][]float64, len(xs))
		for i, x := range xs {
			out[i] = []float64{x}
		}
		return out
	}
	tests := []struct {
		name string
		pts  [][]float64
		o    HDBSCANOptions
		want []int
	}{
		{
			// Two tight groups of three far apart: each group is a cluster.
			name: "two groups on a line",
			pts:  line(0, 0.1, 0.2, 10, 10.1, 10.2),
			o:    HDBSCANOptions{MinClusterSize: 3},
			want: []int{0, 0, 0, 1, 1, 1},
		},
		{
			// A far outlier splits off the root as a single point: noise.
			name: "two groups and an outlier",
			pts:  line(0, 0.1, 0.2, 10, 10.1, 10.2, 50),
			o:    HDBSCANOptions{MinClusterSize: 3, MinSamples: 2},
			want: []int{0, 0, 0, 1, 1, 1, Noise},
		},
		{
			// min_cluster_size larger than either group: no split makes two
			// clusters, and the root may not be selected, so all is noise.
			name: "groups smaller than min_cluster_size",
			pts:  line(0, 0.1, 0.2, 10, 10.1, 10.2),
			o:    HDBSCANOptions{MinClusterSize: 4},
			want: []int{Noise, Noise, Noise, Noise, Noise, Noise},
		},
		{
			// With the root allowed, the root is the cluster, but the two
			// end points fall out of it before the last split (their core
			// distances are larger): noise, as scikit-learn answers too.
			name: "same with the single cluster allowed",
			pts:  line(0, 0.1, 0.2, 10, 10.1, 10.2),
			o:    HDBSCANOptions{MinClusterSize: 4, AllowSingleCluster: true},
			want: []int{Noise, 0, 0, 0, 0, Noise},
		},
		{
			name: "fewer items than min_cluster_size",
			pts:  line(0, 1),
			o:    HDBSCANOptions{MinClusterSize: 3},
			want: []int{Noise, Noise},
		},
		{
			// Duplicates (distance 0) must not produce NaN stabilities.
			name: "duplicates",
			pts:  line(1, 1, 1, 7, 7, 7),
			o:    HDBSCANOptions{MinClusterSize: 2},
			want: []int{0, 0, 0, 1, 1, 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := HDBSCAN(len(tt.pts), euclid(tt.pts), tt.o)
			if err != nil {
				t.Fatal(err)
			}
			if !samePartition(got.Labels, tt.want) {
				t.Fatalf("labels %v, want %v (up to renaming)", got.Labels, tt.want)
			}
			for c, s := range got.Stabilities {
				if math.IsNaN(s) || s < 0 {
					t.Errorf("cluster %d stability %v", c, s)
				}
			}
		})
	}
}

func TestHDBSCANBadOptions(t *testing.T) {
	for _, o := range []HDBSCANOptions{{MinClusterSize: 1}, {MinClusterSize: 3, MinSamples: -1}} {
		if _, err := HDBSCAN(5, func(i, j int) float64 { return 1 }, o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

// samePartition reports whether a and b group items identically, noise
// being noise in both.
func samePartition(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	ab, ba := map[int]int{}, map[int]int{}
	for i := range a {
		if (a[i] == Noise) != (b[i] == Noise) {
			return false
		}
		if x, ok := ab[a[i]]; ok && x != b[i] {
			return false
		}
		if y, ok := ba[b[i]]; ok && y != a[i] {
			return false
		}
		ab[a[i]], ba[b[i]] = b[i], a[i]
	}
	return true
}

type fixtureCase struct {
	Name           string      `json:"name"`
	MinClusterSize int         `json:"min_cluster_size"`
	MinSamples     int         `json:"min_samples"`
	Points         [][]float64 `json:"points"`
	Truth          []int       `json:"truth"`
	SKLabels       []int       `json:"sklearn_labels"`
	SKProbs        []float64   `json:"sklearn_probabilities"`
}

// TestHDBSCANMatchesScikitLearn runs the fixtures of testdata/gen_hdbscan.py:
// generated blobs, noise and moons with scikit-learn's labels on the same
// points. Labels must form the same partition; the adjusted Rand index
// against the generator's true labels is logged.
func TestHDBSCANMatchesScikitLearn(t *testing.T) {
	raw, err := os.ReadFile("testdata/hdbscan_fixtures.json")
	if err != nil {
		t.Fatal(err)
	}
	var fx struct {
		Generator string        `json:"generator"`
		Cases     []fixtureCase `json:"cases"`
	}
	if err := json.Unmarshal(raw, &fx); err != nil {
		t.Fatal(err)
	}
	if len(fx.Cases) == 0 {
		t.Fatal("no fixture cases")
	}
	for _, c := range fx.Cases {
		t.Run(c.Name, func(t *testing.T) {
			got, err := HDBSCAN(len(c.Points), euclid(c.Points), HDBSCANOptions{MinClusterSize: c.MinClusterSize, MinSamples: c.MinSamples})
			if err != nil {
				t.Fatal(err)
			}
			ariSK := AdjustedRandIndex(got.Labels, c.SKLabels)
			ariTruth := AdjustedRandIndex(got.Labels, c.Truth)
			t.Logf("%s: n=%d clusters=%d ARI vs truth %.4f, ARI vs scikit-learn %.4f (scikit-learn vs truth %.4f)",
				c.Name, len(c.Points), got.K(), ariTruth, ariSK, AdjustedRandIndex(c.SKLabels, c.Truth))
			if !samePartition(got.Labels, c.SKLabels) {
				t.Errorf("partition differs from scikit-learn's (ARI %.4f)", ariSK)
			}
			for i, p := range got.Probabilities {
				if math.Abs(p-c.SKProbs[i]) > 1e-6 {
					t.Errorf("item %d: probability %.9f, scikit-learn %.9f", i, p, c.SKProbs[i])
					break
				}
			}
		})
	}
}

// TestHDBSCANRecoversGeneratedBlobs draws Gaussian blobs in 32 dimensions
// with a seed and checks the clusters found against the blob each point
// came from.
func TestHDBSCANRecoversGeneratedBlobs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const k, per, dim = 6, 40, 32
	var pts [][]float64
	var truth []int
	for c := range k {
		centre := make([]float64, dim)
		for d := range centre {
			centre[d] = rng.NormFloat64() * 10
		}
		for range per {
			p := make([]float64, dim)
			for d := range p {
				p[d] = centre[d] + rng.NormFloat64()
			}
			pts = append(pts, p)
			truth = append(truth, c)
		}
	}
	got, err := HDBSCAN(len(pts), euclid(pts), HDBSCANOptions{MinClusterSize: 10})
	if err != nil {
		t.Fatal(err)
	}
	ari := AdjustedRandIndex(got.Labels, truth)
	t.Logf("6 blobs × 40 points in 32-d: %d clusters, ARI %.4f", got.K(), ari)
	if ari < 0.95 {
		t.Fatalf("ARI %.4f < 0.95; labels %v", ari, got.Labels)
	}
}

func TestAdjustedRandIndex(t *testing.T) {
	tests := []struct {
		a, b []int
		want float64
	}{
		{[]int{0, 0, 1, 1}, []int{5, 5, 7, 7}, 1},
		{[]int{0, 0, 1, 1}, []int{0, 1, 0, 1}, -0.5},
		// scikit-learn: adjusted_rand_score([0,0,1,2],[0,0,1,1]) = 0.5714285714
		{[]int{0, 0, 1, 2}, []int{0, 0, 1, 1}, 0.5714285714285714},
	}
	for _, tt := range tests {
		if got := AdjustedRandIndex(tt.a, tt.b); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("ARI(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func benchPoints() [][]float64 {
	rng := rand.New(rand.NewPCG(3, 4))
	pts := make([][]float64, 1000)
	for i := range pts {
		pts[i] = make([]float64, 384)
		for d := range pts[i] {
			pts[i][d] = rng.NormFloat64() + float64(i%8)
		}
	}
	return pts
}

// BenchmarkPairwiseDistances is the baseline of BenchmarkHDBSCAN: one pass
// over all n² distances, which HDBSCAN makes twice (core distances, Prim).
func BenchmarkPairwiseDistances(b *testing.B) {
	pts := benchPoints()
	dist := euclid(pts)
	var sink float64
	for b.Loop() {
		for i := range pts {
			for j := range pts {
				sink += dist(i, j)
			}
		}
	}
	_ = sink
}

// BenchmarkHDBSCAN clusters 1000 points in 384 dimensions.
func BenchmarkHDBSCAN(b *testing.B) {
	pts := benchPoints()
	for b.Loop() {
		if _, err := HDBSCAN(len(pts), euclid(pts), HDBSCANOptions{MinClusterSize: 5}); err != nil {
			b.Fatal(err)
		}
	}
}
