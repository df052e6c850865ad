// Command cgraph is the command-line front of the cgraph memory engine. All
// commands live in package cli; this file only runs them.
package main

import (
	"os"

	"github.com/cgraph/cgraph/cli"
)

func main() { os.Exit(cli.Execute(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
