// Package mcpserver serves cgraph's tools over the Model Context Protocol
// (github.com/modelcontextprotocol/go-sdk): memory tools (store_memory,
// get_memory, delete_memory), embedder tools (search_by_embedder,
// list_embedder_indexes, get_embedder_clusters, compare_embedder_views),
// domain tools (search_graph, search_robust, search_by_intent,
// search_by_keywords, search_code, search_causes, search_effects,
// search_connections, search_by_entities, search_recent, search_periodic,
// get_session_timeline) and analysis tools (detect_topics,
// get_topic_stability, get_divergence_alerts). `cgraph mcp` (package cli)
// opens the store and runs it on stdio or streamable HTTP.
//
// # One definition per tool
//
// Each tool is one define call (tools.go) with a typed argument struct: the
// SDK derives the input JSON schema from that struct (json names, jsonschema
// descriptions, required = fields without omitempty, additionalProperties
// false) and validates every call against it before the handler runs, so the
// schema and the handler cannot disagree and unknown argument names are
// refused. Results are JSON objects (structured content plus the same JSON as
// text); search results carry the memory id, score, snippet and per-slot
// explain (rank, raw score, WRRF contribution, threshold level), boosts,
// badges and the status of every space searched.
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
// searches catch up with the writer's writes before they run — while
// store_memory and delete_memory answer with a tool error naming the writing
// process. Writes are not forwarded: the agent is pointed at the writing
// server instead, which keeps one writer and no hidden IPC. detect_topics on a
// read-only server computes topics but does not save a snapshot (it says so).
//
// Search tools default to the multi_space mode (every weighted slot searched
// over the whole store, fused by weighted RRF), as `cgraph search` does;
// search_graph takes mode pipeline or e1_only too.
package mcpserver
