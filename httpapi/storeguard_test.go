package httpapi

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestRequireStore: a request naming another store is refused with 409
// wrong_store naming both; one naming this store, or none, is served.
func TestRequireStore(t *testing.T) {
	served := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	h := RequireStore("store-a", "/data/a", served)
	for _, tc := range []struct {
		header string
		code   int
	}{{"", http.StatusTeapot}, {"store-a", http.StatusTeapot}, {"store-b", http.StatusConflict}} {
		req := httptest.NewRequest(http.MethodPost, "/v1/search", nil)
		if tc.header != "" {
			req.Header.Set(StoreHeader, tc.header)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tc.code {
			t.Errorf("header %q: %d, want %d", tc.header, rec.Code, tc.code)
		}
		if tc.code == http.StatusConflict {
			if b := rec.Body.String(); !strings.Contains(b, `"wrong_store"`) || !strings.Contains(b, "store-a") || !strings.Contains(b, "store-b") {
				t.Errorf("refusal does not name the code and both stores: %s", b)
			}
		}
	}
}
