// Package profiles owns the named weight profiles (one weight per slot E1–E13),
// their validation rules, and custom profiles read from TOML or YAML files.
package profiles
