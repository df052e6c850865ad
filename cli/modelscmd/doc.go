// Package modelscmd is the command line's model commands: models list,
// pull and verify (the manifest, installer and verifier of package
// models, with a download's progress on stderr), and embedders, the
// report of the thirteen slots and the model each runs. The command group
// registers itself with app.Register; package cli imports it for that,
// and its tests drive it through cli.Execute.
package modelscmd
