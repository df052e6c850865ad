// Package hookconfig edits agent hosts' hook configuration (Claude Code's
// settings.json, Cursor's hooks.json) for `cgraph hooks`: which hosts and
// events cgraph hooks into, the command line an entry runs, reading a file,
// planning an install or uninstall as a diff and applying it. The file
// belongs to the user, so:
//
//   - Entries are cgraph's when their command runs `hook HOST EVENT` of a
//     program named cgraph* (ParseCommand); every other entry, key and
//     member order is kept (json.go).
//   - Install is idempotent: a second run finds every entry as it would
//     write it, writes nothing and says so. An entry of another binary or
//     store is replaced in place.
//   - Before cgraph first changes an existing file it copies it, byte for
//     byte, to FILE.cgraph-backup (one copy, never overwritten: it is the
//     file as it was before cgraph, which is what a user wants back, and
//     repeated installs do not pile up copies).
//   - Uninstall restores that copy's exact bytes when the file, less
//     cgraph's entries, is what the copy is (nothing else changed since);
//     otherwise it removes cgraph's entries and keeps everything else (the
//     layout may then change, and it says so). A file cgraph created is
//     removed when it holds nothing else.
//   - Every write is a temporary file renamed over the old one, with the
//     old file's mode; a symbolic link is followed, so the link stays.
//   - A file that is not valid JSON, or whose "hooks" is not an object of
//     arrays, is refused and left untouched.
//
// It prints nothing and parses no flags (the CLI does); a bad host or
// event name is a *record.ValidationError.
package hookconfig
