// Package bench loads BEIR/MTEB-layout retrieval sets, prepares code-search sets
// from real source trees, computes retrieval metrics, runs profiles and modes
// against a store and writes reports.
package bench
