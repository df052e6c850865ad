package fingerprint

import "testing"

// BenchmarkEncode and BenchmarkDecode measure a full fingerprint with 384-d
// dense vectors (every slot set), about 13 KB encoded.
func BenchmarkEncode(b *testing.B) {
	f := fullFingerprint(384)
	buf, _ := Encode(f)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Encode(f); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	buf, err := Encode(fullFingerprint(384))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(buf); err != nil {
			b.Fatal(err)
		}
	}
}
