package mcpserver

import (
	"strings"
)

// agentProfile is a profile choice in an agent's words and the built-in
// weight profile it maps onto.
type agentProfile struct {
	Name, Builtin, Means string
}

// AgentDefaultProfile is the built-in profile an agent's search gets when
// it names none (or "auto"): the adaptive profile, whose fusion weights
// follow what each space returned for the query (docs/PROFILES.md: held
// out, it beats every static built-in profile on average over the three
// development sets, though not on each one).
const AgentDefaultProfile = "auto"

// agentProfiles are search_memory's and get_context's profile choices, in
// the order the schema lists them. "recent" is not a built-in profile: it is
// auto with recency at half the weight (search_recent's ordering), so
// get_context, which ranks by a built-in profile, does not offer it.
var agentProfiles = []agentProfile{
	{"auto", AgentDefaultProfile, "all views (default)"},
	{"code", "code_search", "code"},
	{"causal", "causal_reasoning", "why questions"},
	{"facts", "fact_checking", "named things"},
	{"intent", "intent_search", "goals"},
	{"recent", "", "newer first"},
	{"session", "conversation_history", "conversation order"},
	{"structure", "graph_reasoning", "imports, calls"},
	{"typos", "typo_tolerant", "misspellings"},
}

// agentProfileNames lists the choices; withRecent says whether "recent" is
// one.
func agentProfileNames(withRecent bool) []string {
	var out []string
	for _, p := range agentProfiles {
		if p.Builtin != "" || withRecent {
			out = append(out, p.Name)
		}
	}
	return out
}

// agentProfileDesc documents the choices for a schema.
func agentProfileDesc(withRecent bool) string {
	var parts []string
	for _, p := range agentProfiles {
		if p.Builtin != "" || withRecent {
			parts = append(parts, p.Name+" ("+p.Means+")")
		}
	}
	return "what to favour: " + strings.Join(parts, ", ")
}

// builtinOf maps an agent's profile choice onto its built-in profile name
// (a name that is not a choice passes through unchanged).
func builtinOf(name string) string {
	for _, p := range agentProfiles {
		if p.Name == name {
			return p.Builtin
		}
	}
	return name
}
