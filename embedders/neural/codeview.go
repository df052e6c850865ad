package neural

import (
	"sync"

	"github.com/cgraph/cgraph/embedders/codeview"
)

// views remembers the code views of recent memories: the registry hands the
// same batch to E1/E12, E5 and E7/E10, and each reads it through codeview.View,
// so a memory's view is computed once, not five times. Bounded by the bytes
// it holds; codeview.View is pure, so a hit is the same string it would compute.
var views = struct {
	sync.Mutex
	m     map[string]string
	bytes int
}{m: map[string]string{}}

// viewsMaxBytes bounds the cache: several batches of large memories.
const viewsMaxBytes = 16 << 20

// viewOf is codeview.View(text), from views when a slot already computed it.
func viewOf(text string) string {
	views.Lock()
	v, ok := views.m[text]
	views.Unlock()
	if ok {
		return v
	}
	v = codeview.View(text)
	views.Lock()
	if views.bytes+len(text)+len(v) > viewsMaxBytes {
		clear(views.m)
		views.bytes = 0
	}
	if _, ok := views.m[text]; !ok {
		views.m[text] = v
		views.bytes += len(text) + len(v)
	}
	views.Unlock()
	return v
}

// codeViewRecipe and codeViewNote name the code view in the producers and
// representations of the slots that read memories through it.
const (
	codeViewRecipe = codeview.Recipe
	codeViewNote   = codeview.Note
)

// queryView is the text E1, E5, E7 and E10 encode for a query.
func queryView(q string) string { return codeview.Query(q) }
