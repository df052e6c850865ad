package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/embedders/neural"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/pipeline"
	"github.com/cgraph/cgraph/profiles"
	"github.com/cgraph/cgraph/record"
)

// The engine's vocabulary: the types and names a face needs to ask for a
// search and read its answer. They are declared here (as aliases of the
// parts that define them) so that the faces — CLI, MCP, HTTP, hooks, the
// bench's retriever — import engine and record only, and the parts behind
// the front door (pipeline, profiles, fingerprint, indexes, embedders) can
// change without touching them. A test over go list keeps it so.

// Slots.
type (
	// SlotID names one of the thirteen embedder slots E1–E13.
	SlotID = fingerprint.SlotID
	// SlotCategory groups slots (semantic, temporal, relational,
	// structural).
	SlotCategory = fingerprint.Category
	// Producer identifies what computed a slot's values (model, sha256,
	// dims).
	Producer = fingerprint.Producer
	// Fingerprint is a memory's values in every slot.
	Fingerprint = fingerprint.Fingerprint
	// SlotSummary describes one slot's value of a fingerprint.
	SlotSummary = fingerprint.SlotSummary
	// SlotStatus says whether a slot's value was computed (present,
	// fallback, unavailable, missing).
	SlotStatus = fingerprint.Status
)

// The slots, in order.
const (
	E1  = fingerprint.E1
	E2  = fingerprint.E2
	E3  = fingerprint.E3
	E4  = fingerprint.E4
	E5  = fingerprint.E5
	E6  = fingerprint.E6
	E7  = fingerprint.E7
	E8  = fingerprint.E8
	E9  = fingerprint.E9
	E10 = fingerprint.E10
	E11 = fingerprint.E11
	E12 = fingerprint.E12
	E13 = fingerprint.E13

	NumSlots = fingerprint.NumSlots

	// TemporalSlots is the category of E2–E4, which act after retrieval.
	TemporalSlots = fingerprint.Temporal

	SlotMissing     = fingerprint.StatusMissing
	SlotPresent     = fingerprint.StatusPresent
	SlotFallback    = fingerprint.StatusFallback
	SlotUnavailable = fingerprint.StatusUnavailable
)

// Slots returns E1 … E13 in order.
func Slots() []SlotID { return fingerprint.Slots() }

// LeadingSlots returns, in order, the slots a single-embedder search
// (ModeEmbedderFirst) can lead: every slot that retrieves, not the
// temporal badges E2–E4 nor the reranker E12 (SlotID.CanLead).
func LeadingSlots() []SlotID {
	var out []SlotID
	for _, s := range fingerprint.Slots() {
		if s.CanLead() {
			out = append(out, s)
		}
	}
	return out
}

// ParseSlot reads a slot name: "E7", "e7", or a slot's role ("code").
func ParseSlot(name string) (SlotID, error) { return fingerprint.ParseSlot(name) }

// Search modes and directions.
type (
	// Mode is how a search combines the spaces (e1_only, multi_space,
	// embedder_first, pipeline).
	Mode = pipeline.Mode
	// Direction is the causal direction of a query (any, causes,
	// effects).
	Direction = pipeline.Direction
	// Fusion is how the fusion modes combine the spaces' lists (rrf,
	// minmax).
	Fusion = pipeline.Fusion
)

const (
	ModeE1Only         = pipeline.ModeE1Only
	ModeMultiSpace     = pipeline.ModeMultiSpace
	ModeEmbedderFirst  = pipeline.ModeEmbedderFirst
	ModePipeline       = pipeline.ModePipeline
	DirectionAny       = pipeline.DirectionAny
	DirectionCauses    = pipeline.DirectionCauses
	DirectionEffects   = pipeline.DirectionEffects
	DefaultTopK        = pipeline.DefaultTopK
	DefaultRecallK     = pipeline.DefaultRecallK
	DefaultDenseRecall = pipeline.DefaultDenseRecallK
	DefaultFilterK     = pipeline.DefaultFilterK
	// DefaultRerankWeight is E12's S4 weight when neither the profile nor
	// SearchRequest.RerankWeight gives one.
	DefaultRerankWeight = pipeline.DefaultRerankWeight
	DefaultFusionK      = pipeline.DefaultFusionK
	DefaultFusion       = pipeline.DefaultFusion
	FusionDefault       = pipeline.FusionDefault
	FusionRRF           = pipeline.FusionRRF
	FusionMinMax        = pipeline.FusionMinMax
)

// ParseMode reads a mode name.
func ParseMode(s string) (Mode, error) { return pipeline.ParseMode(s) }

// ParseFusion reads a fusion name ("" is the default).
func ParseFusion(s string) (Fusion, error) { return pipeline.ParseFusion(s) }

// ParseDirection reads a direction name ("" is any).
func ParseDirection(s string) (Direction, error) { return pipeline.ParseDirection(s) }

// ErrSlotUnavailable: a search led by a slot that has no model or index.
var ErrSlotUnavailable = pipeline.ErrUnavailable

// The explanation of an answer.
type (
	// Hit is one result of a search with its per-slot explanation.
	Hit = pipeline.ResultHit
	// SlotScores explains a result slot by slot.
	SlotScores = pipeline.SlotScores
	// Boost is a multiplicative factor applied to a score.
	Boost = pipeline.Boost
	// SpaceReport says what happened in one space a search weighted.
	SpaceReport = pipeline.SpaceReport
	// StageTrace is one stage of a search with its candidates and time.
	StageTrace = pipeline.StageTrace
	// Stage names a stage (S1 recall … S5 validate, primary).
	Stage = pipeline.Stage
	// View is the query and document representation one probe compares.
	View = pipeline.View
	// Explained is a search's ranked hits with the spaces it used and its
	// stage trace (SearchResult carries it).
	Explained = pipeline.Result
	// AutoDecision is the weights the auto profile chose for one query and
	// the features that moved them.
	AutoDecision = pipeline.AutoDecision
)

// ViewBackward compares a query's second-role view with the documents'
// first-role vectors (an effect seeking its causes).
const ViewBackward = pipeline.ViewBackward

// Space statuses and stages, as explanations name them.
const (
	SpaceOK          = pipeline.StatusOK
	SpaceEmpty       = pipeline.StatusEmpty
	SpaceUnavailable = pipeline.StatusUnavailable
	SpaceFailed      = pipeline.StatusFailed
	SpaceSkipped     = pipeline.StatusSkipped

	StagePrimary  = pipeline.StagePrimary
	StageRecall   = pipeline.StageRecall
	StageFilter   = pipeline.StageFilter
	StageFusion   = pipeline.StageFusion
	StageRerank   = pipeline.StageRerank
	StageValidate = pipeline.StageValidate
)

// Weight profiles.
type (
	// Profile is a named set of fusion weights, one per slot.
	Profile = profiles.Profile
	// Weights are a profile's weights in slot order.
	Weights = profiles.Weights
	// ProfileFormat is a profile file's format (TOML, YAML).
	ProfileFormat = profiles.Format
	// ProfileError is a profile that breaks a rule (weights that do not
	// sum to 1, a temporal slot weighted in a semantic profile …).
	ProfileError = profiles.ValidationError
	// WeightOverride is one per-query weight ("E5=0.6").
	WeightOverride = profiles.Override
)

// ProfileSumTolerance is how far a profile's weights may sum from 1.
const ProfileSumTolerance = profiles.SumTolerance

// BuiltinProfiles returns the built-in profiles.
func BuiltinProfiles() []Profile { return profiles.Builtin() }

// ProfileNames lists the built-in profiles' names.
func ProfileNames() []string { return profiles.Names() }

// BuiltinProfile returns the built-in profile name; an unknown name is an
// error naming the valid ones.
func BuiltinProfile(name string) (Profile, error) { return profiles.Lookup(name) }

// LookupProfile returns the built-in profile name ("" is DefaultProfile);
// an unknown name is a *record.ValidationError naming the valid ones.
func LookupProfile(name string) (Profile, error) {
	if strings.TrimSpace(name) == "" {
		name = DefaultProfile
	}
	p, err := profiles.Lookup(name)
	if err != nil {
		return p, unknownProfile("profile", name, "")
	}
	return p, nil
}

// unknownProfile is the one refusal of a profile name that is not built in,
// for every face: the name in the problem and the valid names once, in the
// fix (with the face's profile-file argument when it has one).
func unknownProfile(field, name, fileArg string) *record.ValidationError {
	fix := "give one of " + strings.Join(profiles.Names(), ", ")
	if fileArg != "" {
		fix += ", or a profile file with " + fileArg
	}
	return &record.ValidationError{Field: field, Problem: fmt.Sprintf("unknown profile %q", name), Fix: fix}
}

// LoadProfileFile reads a custom profile (TOML or YAML).
func LoadProfileFile(path string) (Profile, error) { return profiles.LoadFile(path) }

// ProfileFormatOf is the format a profile file's extension names.
func ProfileFormatOf(path string) (ProfileFormat, error) { return profiles.FormatOf(path) }

// EncodeProfile writes p in format f.
func EncodeProfile(p Profile, f ProfileFormat) ([]byte, error) { return profiles.Encode(p, f) }

// ParseWeightOverride reads one "Ek=w" override.
func ParseWeightOverride(s string) (WeightOverride, error) { return profiles.ParseOverride(s) }

// ParseWeightOverrides reads several.
func ParseWeightOverrides(ss []string) ([]WeightOverride, error) { return profiles.ParseOverrides(ss) }

// Models.
type (
	// Registry computes every slot's values and query views: the models
	// of a models directory, or model-free slots only.
	Registry = embedders.Registry
	// SlotReadiness says whether a slot can compute now, with which model,
	// and why not.
	SlotReadiness = embedders.SlotStatus
	// ModelsConfig says where the models are and on which device they run.
	ModelsConfig = neural.Config
	// Precision names the model weights ModelsConfig loads: "" (the
	// default: int8 e5-small-v2 and bge-small-en-v1.5 on the CPU, fp32 on
	// cuda), "fp32" or "int8".
	Precision = neural.Precision
)

// LoadModels builds the registry of the models installed in
// cfg.ModelsDir (a slot whose model is missing is unavailable and says
// why); close releases the model sessions after the engine using it is
// closed.
func LoadModels(ctx context.Context, cfg ModelsConfig) (r *Registry, close func() error, err error) {
	return neural.Registry(ctx, cfg)
}
