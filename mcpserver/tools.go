package mcpserver

import "github.com/cgraph/cgraph/ops"

// toolDefs is every tool, in the order tools/list shows them. Names are part
// of the interface (DESIGN.md "Interfaces"); descriptions tell an agent when
// to use the tool and what it returns.
func toolDefs() []toolDef {
	return []toolDef{
		// memory
		withOutput[storeMemoryOut](define("store_memory", "memory", true,
			"Store a memory (fact, decision and its reason, error and its fix, code, note, preference), optionally in a project with tags and key: value metadata. "+
				"Returns its id; a text already stored returns the earlier id with duplicate_of; close memories are listed in similar (supersede: true retires them). "+
				"To correct a memory use update_memory.", storeMemory)),
		withOutput[updateMemoryOut](define("update_memory", "memory", true,
			"Correct or extend a memory in place (same id): content (indexed again), type, tags, importance, metadata, project. "+
				"The earlier version is kept (get_memory history: true).", updateMemory)),
		withOutput[linkOut](define("link_memories", "memory", true,
			"Link two memories, read 'from TYPE to': an error causes a failure, a commit fixes an error, a decision supersedes an older one "+
				"(hidden from default searches), contradicts, informs, example_of, prerequisite_for, led_to, related_to. unlink: true removes a link.", linkMemories)),
		withOutput[relatedOut](define("get_related", "memory", false,
			"Follow the links of a memory (made with link_memories): what caused it, what fixes it, what it supersedes or is "+
				"superseded by, up to 3 links away. Each memory reached comes with the link type, its direction as seen from the "+
				"memory it was reached from (out: that one causes/fixes/… this; in: this causes/fixes/… that one), via and depth. "+
				"Use it after a search to pull in an error's fix or a decision's history.", getRelated)),
		withOutput[MemoryOutput](define("get_memory", "memory", false,
			"Read one memory whole by id (or its last 8+ hex digits); history: true adds earlier versions, fingerprint: true each space's representation.", getMemory)),
		withOutput[deleteMemoryOut](define("delete_memory", "memory", true,
			"Delete a memory and its links for good (to retire one but keep it, link a newer one to it with supersedes).", deleteMemory)),
		// embedder
		withOutput[SearchOutput](define("search_by_embedder", "embedder", false,
			"Search through ONE embedder's eyes (embedder_first mode): E1 semantic, E5 causal, E6 BM25 keywords, E7 code, "+
				"E8 graph, E9 typo-robust, E10 intent, E11 entities, E13 SPLADE. Scores are that slot's raw similarity. "+
				"Use it to see what a single representation finds; use search_memory for the fused answer.", searchByEmbedder)),
		withOutput[indexesOut](define("list_embedder_indexes", "embedder", false,
			"List the 13 embedder slots of this store: status (present/fallback/unavailable with the reason and the "+
				"`cgraph models pull` that fixes it), model/producer, dims, index kind, documents indexed, RAM, and whether "+
				"the slot can lead a search. Call it first to know which tools have models behind them.", listEmbedderIndexes)),
		withOutput[clustersOut](define("get_embedder_clusters", "embedder", false,
			"Cluster all memories with HDBSCAN in one slot's space (e.g. E1 semantic or E7 code) and list each "+
				"cluster's members; memories in no dense group are counted as noise.", getEmbedderClusters)),
		withOutput[compareOut](define("compare_embedder_views", "embedder", false,
			"Rank the same query in several slots side by side: each slot's top results, the Jaccard overlap of "+
				"every pair of slots, the consensus (memories every slot finds) and the disagreements (a slot's top-3 "+
				"that another slot misses). Shows which representation sees what.", compareEmbedderViews)),
		withOutput[ContextOutput](define("get_context", "memory", false,
			"The memories that matter for a task, packed into a token budget as Markdown for your prompt, with a citation index "+
				"(cite, id, type, date): best matches first, near-duplicates dropped, linked memories (an error's fix) attached when room is left. "+
				"Use it at the start of a task.", getContext)),
		// domain
		withOutput[SearchOutput](define("search_memory", "domain", false,
			"The main search: ranks memories by meaning, keywords, code and causal views together. "+
				"Each result has id, score, why (the words and spaces that matched) and a snippet; expand brings linked memories (fixes, causes).", searchMemory)),
		withOutput[SearchOutput](define("search_graph", "domain", false,
			"Old name of search_memory, kept for one release (it takes the built-in profile names): use search_memory.", searchGraph)),
		withOutput[SearchOutput](define("search_robust", "domain", false,
			"Search when the query may be misspelled or an identifier garbled: words the store does not know are corrected "+
				"against its vocabulary and character-level matching finds near-spellings (the typo_tolerant profile).", searchRobust)),
		withOutput[SearchOutput](define("search_by_intent", "domain", false,
			"Search by goal or intent (\"make the tests faster\"): favours memories whose stated goal or context matches "+
				"the intent (intent_search; enhanced=true boosts that match more).", searchByIntent)),
		withOutput[SearchOutput](define("search_by_keywords", "domain", false,
			"Exact-term search (BM25 over code-aware tokens: camelCase and snake_case split). Best for identifiers, "+
				"error codes, flags and file names.", searchByKeywords)),
		withOutput[SearchOutput](define("search_code", "domain", false,
			"Search code and code-related memories (functions, APIs, snippets) with the code_search profile: the code view, "+
				"meaning and exact identifiers (list_embedder_indexes says whether a code model is installed).", searchCode)),
		withOutput[SearchOutput](define("search_causes", "domain", false,
			"Find the CAUSES of something: give the effect or symptom (\"the build fails with SIGABRT\"); returns the "+
				"memories most likely to describe its causes (causal_reasoning, looking from effect to cause).", searchCauses)),
		withOutput[SearchOutput](define("search_effects", "domain", false,
			"Find the EFFECTS or consequences of something: give the cause or change (\"we upgraded RocksDB\"); returns "+
				"the memories most likely to describe what it led to (causal_reasoning, looking from cause to effect).", searchEffects)),
		withOutput[SearchOutput](define("search_connections", "domain", false,
			"Find memories connected through code structure (imports, calls, paths): direction targets (what the query "+
				"uses), sources (what uses it) or both.", searchConnections)),
		withOutput[SearchOutput](define("search_by_entities", "domain", false,
			"Find memories naming the same entities as the query: identifiers, libraries, tools, file names.", searchByEntities)),
		withOutput[SearchOutput](define("search_recent", "domain", false,
			"Browse: without a query the newest memories (filter narrows them); with a query its matches, newer first.", searchRecent)),
		withOutput[SearchOutput](define("search_periodic", "domain", false,
			"Memories made at a similar time of day and day of week as `at` (default now), among the query's matches: "+
				"e.g. what usually happens on Monday mornings.", searchPeriodic)),
		withOutput[timelineOut](define("get_session_timeline", "domain", false,
			"List a session's memories in order (sequence numbers 1, 2, …), paged with from_seq and limit: the "+
				"conversation or work log of one session.", getSessionTimeline)),
		// analysis
		withOutput[topicsOut](define("detect_topics", "analysis", false,
			"Detect topics: HDBSCAN in every slot's space, then groups of memories whose weighted agreement across slots "+
				"is at least 2.5 (semantic slots 1.0, relational and structural 0.5, temporal 0; max 8.5). Returns each "+
				"topic's members, key terms, agreement and supporting slots, and stability against the last saved snapshot; "+
				"saves a snapshot on the writing server.", detectTopics)),
		withOutput[topicsOut](define("get_topic_stability", "analysis", false,
			"Compare the current topics with the last saved snapshot (from detect_topics): per topic stable/changed/new "+
				"by membership Jaccard on the memories present in both, an overall score and how many topics vanished.", getTopicStability)),
		withOutput[divergenceOut](define("get_divergence_alerts", "analysis", false,
			"Check whether the newest memories diverge from the established topics, in the 7 semantic slots only: "+
				"per slot the best similarity to any topic member; high alert below 0.10, medium below 0.20. Slots "+
				"without a model are listed as unmeasured, never as alerts.", getDivergenceAlerts)),
		withOutput[ops.MemoryStatsAnswer](define("memory_stats", "analysis", false,
			"The store in figures: memories per type and project, how many are superseded, uses recorded (and memories never used), "+
				"store size, the audit log's length and the maintenance schedule with its last run.", memoryStats)),
		withOutput[maintenanceReportOut](define("maintenance_report", "analysis", false,
			"The maintenance schedule (serve --maintain-every) and its last run: each action (merge_duplicate, supersede, prune, consolidate) "+
				"with its evidence, applied or held, and its action id (cgraph undo ACTION-ID reverses it). dry_run: true lists what "+
				"a run would do now, writing nothing.", maintenanceReport)),
	}
}
