package httpapi

import (
	"fmt"
	"net/http"
)

// StoreHeader names, on every request a client sends to a server, the
// identity of the store it means; a server of another store refuses it.
const StoreHeader = "X-Cgraph-Store"

// RequireStore refuses a request whose StoreHeader names another store
// than id (409 wrong_store, naming both stores and dir): a client that
// found the server through a stale or copied discovery file must not get
// another store's answers. A request without the header (curl, MCP
// clients) is served; it must not be used to authenticate anything.
func RequireStore(id, dir string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if want := r.Header.Get(StoreHeader); want != "" && want != id {
			WriteError(w, http.StatusConflict, "wrong_store", fmt.Sprintf("this server serves store %s (%s), the request is for store %s: "+
				"open that store with --db, or set CGRAPH_NO_SERVER=1 to run the command here", id, dir, want))
			return
		}
		next.ServeHTTP(w, r)
	})
}
