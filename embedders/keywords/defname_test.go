package keywords

import "testing"

func TestDefinedName(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"go func", "func NewReader(r io.Reader) *Reader {\n\treturn nil\n}", "NewReader"},
		{"go method", "func (h *Header) FileInfo() fs.FileInfo {\n\treturn headerFileInfo{h}\n}", "FileInfo"},
		{"go generic", "func Min[S ~[]E, E cmp.Ordered](x S) E {", "Min"},
		{"python", "def guess_type(self, url, strict=True):\n    url = os.fspath(url)", "guess_type"},
		{"python decorated", "@property\ndef name(self):\n    return self._name", "name"},
		{"python async", "async def fetch(url):\n    pass", "fetch"},
		{"java", "public static Error NoValueForOption(String arg0) {", "NoValueForOption"},
		{"java annotated", "@Override\n    public void checkCreate(String className) {", "checkCreate"},
		{"java wrapped signature", "public final Collection<? extends Certificate> generateCertificates\n        (InputStream in) {", "generateCertificates"},
		{"java generic return", "public static <T> List<T> copyOf(Collection<? extends T> coll) {", "copyOf"},
		{"java constructor", "public ModelMBeanInfoSupport(String className,\n            String description) {", "ModelMBeanInfoSupport"},
		{"js function", "function parseQuery(s) {", "parseQuery"},
		{"js arrow", "const detectFromQuery = (c, options) => {", "detectFromQuery"},
		{"js prototype", "Container.prototype.atPosition = function(line, col) {", "atPosition"},
		{"js export", "export async function loadConfig(path) {", "loadConfig"},
		{"rust", "pub fn parse_line(s: &str) -> Option<Line> {", "parse_line"},
		{"rust constructor", "pub fn new() -> Self {\n    Self {}\n}", "new"},
		{"rust restricted visibility", "pub(crate) fn with_keys(k: u64) -> State {", "with_keys"},
		{"rust generic", "pub fn get<Q: ?Sized>(&self, k: &Q) -> Option<&V>\nwhere\n    K: Borrow<Q>,\n{", "get"},
		{"rust generic wrapped", "pub fn find_iter<'a, 'h, I: Into<Input<'h>>>(\n    &'a self,\n) -> FindIter<'a, 'h> {", "find_iter"},
		{"rust attributes", "#[inline]\n#[must_use]\npub const fn len(&self) -> usize {", "len"},
		{"typescript generic", "public static of<T>(x: T): Box<T> {", "of"},
		{"elixir private", "defp handle_call(:get, _from, state) do", "handle_call"},
		{"go method named new", "func (p *parser) new(kind int) *node {", "new"},
		{"python def print", "def print(self, *args):\n    pass", "print"},
		{"comparison", "a < b && c > d(x)", ""},
		{"ruby", "def to_s\n  \"#{name} (#{id})\"\nend", "to_s"},
		{"ruby class method", "def self.parse text\n  new(text)\nend", "parse"},
		{"ruby predicate", "def empty?\n  size.zero?\nend", "empty"},
		{"ruby with parentheses", "def initialize(name)\n  @name = name\nend", "initialize"},
		{"php", "public static function getName($id) {", "getName"},
		{"kotlin", "fun main(args: Array<String>) {", "main"},
		{"c", "static int read_header(FILE *f) {", "read_header"},
		{"c pointer return", "char *strdup_safe(const char *s) {", "strdup_safe"},
		{"c++ member", "std::vector<int> Cache::evictOldest(int n) {", "evictOldest"},
		{"comment first", "// Len is the length.\nfunc (l *List) Len() int { return l.n }", "Len"},
		{"prose", "The cache was stale because the writer never flushed.", ""},
		{"prose with an aside", "Zero PEBS status (CVE-2021-28971)", ""},
		{"prose naming a call", "It implies Chdir(attr.Dir) before executing argv0", ""},
		{"prose with a tag", "TODO(rsc): We don't add standard library imports for gccgo", ""},
		{"java package-private", "void scanCond(JCTree tree) {", "scanCond"},
		{"java wrapped parameters", "Collection<Certificate> generate(InputStream in,\n    int n) {", "generate"},
		{"js class method", "atPosition(line, col) {", "atPosition"},
		{"js spaced method", "get size () {", "size"},
		{"trailing comment", "void setDomainName(String name) { // called by the factory", "setDomainName"},
		{"prose with call", "Fixed the retry loop: it slept 10 s between tries (see the log).", ""},
		{"control flow", "if (x > 0) {\n  return x;\n}", ""},
		{"return call", "return parse(text)", ""},
		{"empty", "", ""},
		{"blank lines only", "\n\n  \n", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got, _ := DefinedName(c.text); got != c.want {
				t.Errorf("DefinedName(%q) = %q, want %q", c.text, got, c.want)
			}
		})
	}
}
