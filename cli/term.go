package cli

import (
	"os"
	"syscall"
)

// sigterm stops long commands like SIGINT does.
var sigterm os.Signal = syscall.SIGTERM
