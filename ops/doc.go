// Package ops is cgraph's operations layer: what takes more than one engine
// call — packing the memories of a task into a token budget, topic
// detection with its stability and save, the comparison of how each slot
// alone ranks a query (CompareViews) — as typed functions that every
// face (the CLI, the MCP server, the HTTP API, agent hooks) calls the same
// way. A face parses its own input (flags, JSON arguments, a URL) into an
// ops request, calls the function and prints the typed answer in its own
// form; no face reaches another face's operation by a tool name.
//
// Requests are validated here: a bad one is a *record.ValidationError whose
// Field names the argument (as the MCP tools and HTTP bodies spell it),
// what was wrong and how to fix it. ops sees the store only through small
// interfaces of its own, which *engine.Engine satisfies; it must not open,
// close or write a store except where an operation says so (Topics saves
// its snapshot when asked; Maintenance, and the Schedule that runs it,
// apply what a policy allows when asked to apply; RepairContents repairs
// the store it is given open for writing).
package ops
