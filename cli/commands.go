package cli

// The command groups: each registers its commands with app.Register from
// its init functions, so importing it here puts them on every run's root
// (newRoot adds app.Commands). The commands of the store's memories (init,
// add, get, list, search, context, update, link, topics, ingest, export,
// stats, …) stay in this package.
import (
	_ "github.com/cgraph/cgraph/cli/benchcmd"  // bench, profiles
	_ "github.com/cgraph/cgraph/cli/hookscmd"  // hooks, hook
	_ "github.com/cgraph/cgraph/cli/modelscmd" // models, embedders
	_ "github.com/cgraph/cgraph/cli/servecmd"  // serve, mcp
	_ "github.com/cgraph/cgraph/cli/storecmd"  // check, log, undo, backup, fill
)
