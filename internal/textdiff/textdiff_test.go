package textdiff

import "testing"

// TestUnified pins the diffs Unified prints: nothing for equal texts, one
// hunk per change with 3 lines of context, hunks joined when their context
// overlaps, and the line numbers and counts of each side.
func TestUnified(t *testing.T) {
	for _, c := range []struct{ a, b, want string }{
		{"a\nb\nc\n", "a\nb\nc\n", ""},
		{"", "x\n", "--- a.json\n+++ b.json\n@@ -1,0 +1,1 @@\n+x\n"},
		{"x\n", "", "--- a.json\n+++ b.json\n@@ -1,1 +1,0 @@\n-x\n"},
		{"a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\n", "a\nb\nc\nD\ne\nf\ng\nh\ni\nj\nk\nL\nm\nn\n", "--- a.json\n+++ b.json\n@@ -1,7 +1,7 @@\n a\n b\n c\n-d\n+D\n e\n f\n g\n@@ -9,5 +9,6 @@\n i\n j\n k\n-l\n+L\n m\n+n\n"},
		{"{\n  \"hooks\": {}\n}\n", "{\n  \"hooks\": {\n    \"Stop\": []\n  }\n}\n", "--- a.json\n+++ b.json\n@@ -1,3 +1,5 @@\n {\n-  \"hooks\": {}\n+  \"hooks\": {\n+    \"Stop\": []\n+  }\n }\n"},
		{"1\n2\n3\n4\n5\n6\n7\n8\n", "1\n2\n3\nx\n5\n6\n7\ny\n", "--- a.json\n+++ b.json\n@@ -1,8 +1,8 @@\n 1\n 2\n 3\n-4\n+x\n 5\n 6\n 7\n-8\n+y\n"},
	} {
		if got := Unified(c.a, c.b, "a.json", "b.json"); got != c.want {
			t.Errorf("Unified(%q, %q)\n got %q\nwant %q", c.a, c.b, got, c.want)
		}
	}
}
