package neural

import (
	"os"
	"path/filepath"

	"github.com/cgraph/cgraph/embedders/modelfree"
	"github.com/cgraph/cgraph/models"
	"github.com/cgraph/cgraph/models/runtime"
)

// Config chooses the models directory, the execution provider and the
// variants the model-backed slots use.
type Config struct {
	// ModelsDir holds <model-id>/{model.onnx,tokenizer.json}; "" means
	// DefaultModelsDir().
	ModelsDir string
	// Device is the execution provider ("" = cpu). AllowCPUFallback runs on the
	// CPU when the CUDA provider cannot load (and says so in the status).
	Device           runtime.Device
	AllowCPUFallback bool
	// Precision picks the weights: PrecisionInt8 (default: "-q" dynamic int8
	// variants, cosine 0.99+ to fp32, faster on CPU) or PrecisionFP32. A
	// variant that is not installed makes its slots unavailable, naming the
	// `cgraph models pull` that fixes it.
	Precision Precision
	// IntraOpThreads is ONNX Runtime's thread count per run (0: one per core).
	IntraOpThreads int
	// BatchSize is the most texts per ONNX run (0: runtime default).
	BatchSize int
	// Manifest is the model manifest (nil: models.Default()).
	Manifest *models.Manifest
	// ModelFree configures the model-free slots (E2, E3, E4, E6, E9).
	ModelFree modelfree.Config
}

// Precision names the weight variant of the model-backed slots.
type Precision string

// Precisions.
const (
	PrecisionDefault Precision = ""
	PrecisionFP32    Precision = "fp32"
	PrecisionInt8    Precision = "int8"
)

// defaultPrecision is what PrecisionDefault means; see the package doc for
// the figures behind it.
const defaultPrecision = PrecisionInt8

// DefaultModelsDir is $CGRAPH_MODELS, else $XDG_CACHE_HOME/cgraph/models,
// else ~/.cache/cgraph/models (where `make setup` installs the models).
func DefaultModelsDir() string {
	if d := os.Getenv("CGRAPH_MODELS"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "cgraph", "models")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(".cache", "cgraph", "models")
	}
	return filepath.Join(home, ".cache", "cgraph", "models")
}

// variant returns the model id of base in the configured precision: the
// manifest's "<id>-q" entry for int8 when there is one.
func (c Config) variant(mf *models.Manifest, base models.ModelID) models.ModelID {
	p := c.Precision
	if p == PrecisionDefault {
		p = defaultPrecision
	}
	if p == PrecisionInt8 {
		if _, err := mf.Model(base + "-q"); err == nil {
			return base + "-q"
		}
	}
	return base
}
