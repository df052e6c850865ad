// Package mcpserver serves cgraph's tools over the Model Context Protocol
// (github.com/modelcontextprotocol/go-sdk): memory tools (store_memory,
// update_memory, link_memories, get_related, get_memory, delete_memory,
// get_context), embedder tools (search_by_embedder,
// list_embedder_indexes, get_embedder_clusters, compare_embedder_views),
// domain tools (search_memory — search_graph is its old name, kept for a
// release — search_robust, search_by_intent,
// search_by_keywords, search_code, search_causes, search_effects,
// search_connections, search_by_entities, search_recent, search_periodic,
// get_session_timeline) and analysis tools (detect_topics,
// get_topic_stability, get_divergence_alerts). `cgraph mcp` (package cli)
// opens the store and runs it on stdio or streamable HTTP.
//
// # One definition per tool
//
// Each tool is one define call (tools.go) with a typed argument struct: the
// input JSON schema is derived from that struct (json names, jsonschema
// descriptions, required = fields without omitempty, additionalProperties
// false), given enums, bounds and formats by argument name (constrain), and
// every call is checked against it before the handler runs — over MCP and
// through Server.Call, which the HTTP API (package httpapi) and `cgraph
// context` use — so the schema and the handler cannot disagree, unknown
// argument names are refused, and a value outside an enum or bound is
// refused in words naming the argument. Results are JSON objects in the
// structured content; the text content is a one-line summary where the
// answer has one (search, get_context, store_memory), not a second copy.
// Search results are compact (id, score, why, snippet, type, tags, time);
// explain: true adds the per-slot detail (rank, raw score, WRRF
// contribution, threshold level), boosts and the status of every space
// searched. get_context answers Markdown and a citation index counted in
// its budget (ops.CompactContext). Options.Tools = ToolsCore lists eight
// tools only (CoreTools), with instructions naming only those; a session on
// /mcp?tools=core gets the same. Output schemas are listed only with
// Options.OutputSchemas. Memories are resources (memory://ID)
// and the recall_context prompt packs the memories for a task.
//
// # Ids, filters, projects, links
//
// Every id argument (id, from, to) takes a full id or a unique prefix of at
// least 8 hex digits; an ambiguous prefix is refused listing the memories
// it matches. Every search tool and get_context take a filter object —
// record.Filter's JSON form, the HTTP API's too — applied inside every
// index before fusion; without one a search covers the default project
// without superseded memories. search_memory's expand and get_context
// follow links (link_memories) one step from what they found: expansions
// come in a separate expanded list with the relation and the result they
// came from; get_context attaches the linked memories that fit the budget,
// marked with the relation to the item they relate to.
//
// Options.Project pins a server to one project (cgraph mcp --project P):
// stores go there, searches and get_related stay inside it, and a call that
// names another project (filter.project, filter.all_projects, a project
// argument) or the id of another project's memory is refused — not
// silently narrowed — with an error naming both projects. Over HTTP a
// session opened on /mcp?project=P is served pinned to P.
//
// # Errors
//
// A bad argument, an unknown id or a slot without a model comes back as an
// MCP tool error (IsError) that names the argument, says what was wrong and
// how to fix it. A panic in a handler is recovered and reported as a tool
// error; the server keeps serving.
//
// # Several processes on one store
//
// The store has one writer (engine's lock). The first `cgraph mcp` on a store
// takes the writer lock; a later one (or one started beside another writing
// cgraph command) opens the store read-only and serves every read tool —
// searches catch up with the writer's writes before they run — while the
// write tools (store_memory, update_memory, link_memories, delete_memory)
// answer with a tool error naming the writing process. When a `cgraph serve` serves the store, `cgraph mcp` relays the
// whole session to its /mcp endpoint instead (Bridge), so every agent
// writes through the one writer. A stdio server that answers before its
// store is open serves a LazyStore, whose calls wait for the store. detect_topics on a
// read-only server computes topics but does not save a snapshot (it says so).
//
// Search tools default to the multi_space mode (every weighted slot searched
// over the whole store, fused by weighted RRF), as `cgraph search` does;
// search_graph takes mode pipeline or e1_only too.
//
// search_memory's profile is an agent's choice mapped onto the built-in
// profiles (agentprofiles.go: auto, code, causal, facts, intent, recent,
// session, structure, typos).
package mcpserver
