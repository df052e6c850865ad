package mcpserver

// toolDefs is every tool, in the order tools/list shows them. Names are part
// of the interface (DESIGN.md "Interfaces"); descriptions tell an agent when
// to use the tool and what it returns.
func toolDefs() []toolDef {
	return []toolDef{
		// memory
		withOutput[storeMemoryOut](define("store_memory", "memory", true,
			"Store a memory (fact, decision with its reason, error and its fix, code, conversation turn, note, preference), "+
				"optionally in a project and with your own key: value metadata to filter by later. "+
				"Fingerprints and indexes it in one atomic write; returns the id and which representations could be made "+
				"(one without a model says unavailable). Storing a text the project already holds stores nothing and returns the "+
				"earlier id with duplicate_of; a text close to stored ones lists them in similar with the evidence (supersede: true "+
				"retires the near-duplicates in favour of the new memory); to correct a memory use update_memory. Only the writing "+
				"cgraph mcp server can store.", storeMemory)),
		withOutput[updateMemoryOut](define("update_memory", "memory", true,
			"Correct or extend a stored memory in place instead of storing a second one: new content (indexed again, same id), "+
				"type, tags to add or remove, importance, metadata to set or remove, or another project. The earlier version is kept "+
				"(get_memory with history: true) and the revision counts up; returns the memory with changed (false when nothing "+
				"differed) and reembedded.", updateMemory)),
		withOutput[linkOut](define("link_memories", "memory", true,
			"Link two memories with what one says about the other, read 'from TYPE to': an error causes a failure, a commit fixes "+
				"an error, a new decision supersedes an old one (which then drops out of default searches), a note contradicts or "+
				"informs another, an example_of, a prerequisite_for, led_to, related_to. Linking the pair again with the same type "+
				"replaces its weight; unlink: true removes the link and answers removed: true or false (was there one). Follow "+
				"links with get_related, or with expand in search_graph.", linkMemories)),
		withOutput[relatedOut](define("get_related", "memory", false,
			"Follow the links of a memory (made with link_memories): what caused it, what fixes it, what it supersedes or is "+
				"superseded by, up to 3 links away. Each memory reached comes with the link type, its direction as seen from the "+
				"memory it was reached from (out: that one causes/fixes/… this; in: this causes/fixes/… that one), via and depth. "+
				"Use it after a search to pull in an error's fix or a decision's history.", getRelated)),
		withOutput[MemoryOutput](define("get_memory", "memory", false,
			"Read one memory by id (or its last 8 or more hex digits): content, type, tags, source, session and sequence, "+
				"project, metadata, times, importance, revision and what supersedes it; history: true adds its earlier versions; "+
				"fingerprint: true adds each slot's representation (status, kind, dims, producer).", getMemory)),
		withOutput[deleteMemoryOut](define("delete_memory", "memory", true,
			"Delete one memory by id from the store and every index, with its links. Cannot be undone (to retire an outdated "+
				"memory but keep it, link the newer one to it with supersedes). Only the writing server can delete.", deleteMemory)),
		// embedder
		withOutput[SearchOutput](define("search_by_embedder", "embedder", false,
			"Search through ONE embedder's eyes (embedder_first mode): E1 semantic, E5 causal, E6 BM25 keywords, E7 code, "+
				"E8 graph, E9 typo-robust, E10 intent, E11 entities, E13 SPLADE. Scores are that slot's raw similarity. "+
				"Use it to see what a single representation finds; use search_graph for the fused answer.", searchByEmbedder)),
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
			"Get the memories that matter for a task, packed into a token budget as Markdown to put in your prompt: the best "+
				"matches first, near-duplicates dropped, each item with a citation handle ([1], [2]), type, date and id; when room "+
				"is left, memories linked to them (an error's fix, what a decision replaced) are attached, marked with the link. "+
				"filter narrows it to a project, types, tags or dates. Use it at the start of a task instead of several searches.", getContext)),
		// domain
		withOutput[SearchOutput](define("search_graph", "domain", false,
			"The main search: ranks memories by combining several views of meaning and exact keywords, weighted by a "+
				"profile — semantic_search (default), causal_reasoning for why/what-caused questions, code_search for code. "+
				"Also: filter (project, types, tags, session, dates, importance, metadata, superseded), expand to bring along "+
				"the memories linked to the results (e.g. fixes, causes) in a separate expanded list, mode (multi_space default, "+
				"or the staged pipeline), direction for cause/effect questions, top_k, and explain: true to see how each result "+
				"was ranked. Every result carries id, score and snippet.", searchGraph)),
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
			"Search code and code-related memories (functions, APIs, snippets) with the code_search profile, which leans on "+
				"meaning and exact identifiers; no code-trained model is installed here.", searchCode)),
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
			"Recent memories: without a query the newest ones; with a query its matches re-ordered newer first, with a "+
				"'recent' badge on fresh ones.", searchRecent)),
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
	}
}
