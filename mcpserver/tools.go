package mcpserver

// toolDefs is every tool, in the order tools/list shows them. Names are part
// of the interface (DESIGN.md "Interfaces"); descriptions tell an agent when
// to use the tool and what it returns.
func toolDefs() []toolDef {
	return []toolDef{
		// memory
		define("store_memory", "memory", true,
			"Store a memory (fact, decision with its reason, error and its fix, code, conversation turn, note, preference). "+
				"Computes its 13-slot fingerprint and indexes it in one atomic write; returns the id and each slot's status "+
				"(a slot without a model says unavailable). Storing a text the store already holds stores nothing and returns the "+
				"earlier id with duplicate_of. Only the writing cgraph mcp server can store.", storeMemory),
		define("get_memory", "memory", false,
			"Read one memory by id: content, type, tags, source, session and sequence, times, importance; with fingerprint=true "+
				"also each slot's representation (status, kind, dims, producer).", getMemory),
		define("delete_memory", "memory", true,
			"Delete one memory by id from the store and every index. Cannot be undone. Only the writing server can delete.", deleteMemory),
		// embedder
		define("search_by_embedder", "embedder", false,
			"Search through ONE embedder's eyes (embedder_first mode): E1 semantic, E5 causal, E6 BM25 keywords, E7 code, "+
				"E8 graph, E9 typo-robust, E10 intent, E11 entities, E13 SPLADE. Scores are that slot's raw similarity. "+
				"Use it to see what a single representation finds; use search_graph for the fused answer.", searchByEmbedder),
		define("list_embedder_indexes", "embedder", false,
			"List the 13 embedder slots of this store: status (present/fallback/unavailable with the reason and the "+
				"`cgraph models pull` that fixes it), model/producer, dims, index kind, documents indexed, RAM, and whether "+
				"the slot can lead a search. Call it first to know which tools have models behind them.", listEmbedderIndexes),
		define("get_embedder_clusters", "embedder", false,
			"Cluster all memories with HDBSCAN in one slot's space (e.g. E1 semantic or E7 code) and list each "+
				"cluster's members; memories in no dense group are counted as noise.", getEmbedderClusters),
		define("compare_embedder_views", "embedder", false,
			"Rank the same query in several slots side by side: each slot's top results, the Jaccard overlap of "+
				"every pair of slots, the consensus (memories every slot finds) and the disagreements (a slot's top-3 "+
				"that another slot misses). Shows which representation sees what.", compareEmbedderViews),
		define("get_context", "memory", false,
			"Get the memories that matter for a task, packed into a token budget as Markdown to put in your prompt: the best "+
				"matches first, near-duplicates dropped, each item with a citation handle ([1], [2]), type, date and id. Use it "+
				"at the start of a task instead of several searches.", getContext),
		// domain
		define("search_graph", "domain", false,
			"The main search: fuse the slots of a weight profile (default semantic_search) with weighted RRF. Choose "+
				"profile (e.g. causal_reasoning, code_search, fact_checking), override weights per slot, mode "+
				"(multi_space default, pipeline, e1_only), direction for causal queries and top_k. Every result carries "+
				"id, score, snippet and per-slot ranks/scores/contributions.", searchGraph),
		define("search_robust", "domain", false,
			"Search with misspellings or garbled identifiers tolerated: the typo_tolerant profile (E1 + E9 character "+
				"n-gram hypervectors, which also retrieve candidates).", searchRobust),
		define("search_by_intent", "domain", false,
			"Search by goal or intent (\"make the tests faster\"): intent_search (or intent_enhanced with enhanced=true), "+
				"where E10 boosts E1 scores of memories whose context matches the intent.", searchByIntent),
		define("search_by_keywords", "domain", false,
			"Exact-term search with BM25 over code-aware tokens (E6: camelCase and snake_case split). Best for "+
				"identifiers, error codes, flags and file names.", searchByKeywords),
		define("search_code", "domain", false,
			"Search code and code-related memories (functions, APIs, snippets) with the code_search profile: the two dense text encoders (E1, E5) and keyword matching (E6) lead; no code-trained encoder is installed.", searchCode),
		define("search_causes", "domain", false,
			"Find the CAUSES of something: give the effect or symptom (\"the build fails with SIGABRT\"); E5 compares "+
				"the query's effect view with the memories' cause vectors inside causal_reasoning. Returns likely causes.", searchCauses),
		define("search_effects", "domain", false,
			"Find the EFFECTS or consequences of something: give the cause or change (\"we upgraded RocksDB\"); E5 "+
				"compares the query's cause view with the memories' effect vectors inside causal_reasoning.", searchEffects),
		define("search_connections", "domain", false,
			"Find memories connected through code structure (imports, calls, paths) with E8: direction targets (what "+
				"the query uses), sources (what uses it) or both.", searchConnections),
		define("search_by_entities", "domain", false,
			"Find memories naming the same entities (identifiers, libraries, tools) as the query, with E11.", searchByEntities),
		define("search_recent", "domain", false,
			"Recent memories: without a query the newest ones; with a query its semantic matches re-ordered by E2 "+
				"recency (newer first), with a 'recent' badge on fresh ones.", searchRecent),
		define("search_periodic", "domain", false,
			"Memories made at a similar time of day and day of week as `at` (default now), among the query's semantic "+
				"matches, with E3 periodicity: e.g. what usually happens on Monday mornings.", searchPeriodic),
		define("get_session_timeline", "domain", false,
			"List a session's memories in order (E4 sequence numbers 1, 2, …), paged with from_seq and limit: the "+
				"conversation or work log of one session.", getSessionTimeline),
		// analysis
		define("detect_topics", "analysis", false,
			"Detect topics: HDBSCAN in every slot's space, then groups of memories whose weighted agreement across slots "+
				"is at least 2.5 (semantic slots 1.0, relational and structural 0.5, temporal 0; max 8.5). Returns each "+
				"topic's members, key terms, agreement and supporting slots, and stability against the last saved snapshot; "+
				"saves a snapshot on the writing server.", detectTopics),
		define("get_topic_stability", "analysis", false,
			"Compare the current topics with the last saved snapshot (from detect_topics): per topic stable/changed/new "+
				"by membership Jaccard on the memories present in both, an overall score and how many topics vanished.", getTopicStability),
		define("get_divergence_alerts", "analysis", false,
			"Check whether the newest memories diverge from the established topics, in the 7 semantic slots only: "+
				"per slot the best similarity to any topic member; high alert below 0.10, medium below 0.20. Slots "+
				"without a model are listed as unmeasured, never as alerts.", getDivergenceAlerts),
	}
}
