package decbuf

import (
	"encoding/binary"
	"errors"
	"math"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/record"
)

func TestReads(t *testing.T) {
	le32 := func(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
	cat := func(bs ...[]byte) []byte {
		var out []byte
		for _, b := range bs {
			out = append(out, b...)
		}
		return out
	}
	f32 := math.Float32bits(1.5)
	cases := []struct {
		name      string
		in        []byte
		canonical bool
		read      func(d *Decbuf) any
		want      any
		wantErr   string // a substring of the error; "" for none
	}{
		{"byte", []byte{7}, false, func(d *Decbuf) any { return d.Byte() }, byte(7), ""},
		{"byte empty", nil, false, func(d *Decbuf) any { return d.Byte() }, byte(0), "at byte 0: truncated: want 1 more byte"},
		{"le16", []byte{1, 2}, false, func(d *Decbuf) any { return d.Le16() }, uint16(0x0201), ""},
		{"le32", []byte{1, 2, 3, 4}, false, func(d *Decbuf) any { return d.Le32() }, uint32(0x04030201), ""},
		{"le64", []byte{1, 0, 0, 0, 0, 0, 0, 2}, false, func(d *Decbuf) any { return d.Le64() }, uint64(0x0200000000000001), ""},
		{"be32", []byte{1, 2, 3, 4}, false, func(d *Decbuf) any { return d.Be32() }, uint32(0x01020304), ""},
		{"be64", []byte{1, 0, 0, 0, 0, 0, 0, 2}, false, func(d *Decbuf) any { return d.Be64() }, uint64(0x0100000000000002), ""},
		{"be64 short", []byte{1, 2, 3}, false, func(d *Decbuf) any { return d.Be64() }, uint64(0), "truncated: want 8 bytes, have 3"},
		{"le float32", le32(f32), false, func(d *Decbuf) any { return d.LeFloat32() }, float32(1.5), ""},
		{"be float64", binary.BigEndian.AppendUint64(nil, math.Float64bits(-2)), false, func(d *Decbuf) any { return d.BeFloat64() }, float64(-2), ""},
		{"float32s", cat(le32(f32), le32(f32)), false, func(d *Decbuf) any { return d.LeFloat32s(2) }, []float32{1.5, 1.5}, ""},
		{"float32s none", nil, false, func(d *Decbuf) any { return d.LeFloat32s(0) }, []float32(nil), ""},
		{"float32s short", le32(f32), false, func(d *Decbuf) any { return d.LeFloat32s(2) }, []float32(nil), "want 2×4 bytes, have 4"},
		{"float32s wrap", le32(f32), false, func(d *Decbuf) any { return d.LeFloat32s(1 << 62) }, []float32(nil), "truncated"},
		{"le64s", cat(le32(1), le32(0), le32(2), le32(0)), false, func(d *Decbuf) any { return d.Le64s(2) }, []uint64{1, 2}, ""},
		{"le64s negative", nil, false, func(d *Decbuf) any { return d.Le64s(-1) }, []uint64(nil), "truncated"},
		{"bytes alias capped", []byte{1, 2, 3}, false, func(d *Decbuf) any { b := d.Bytes(2); return cap(b) }, 2, ""},
		{"count", cat(le32(2), []byte{0, 0, 0, 0, 0, 0, 0, 0}), false, func(d *Decbuf) any { return d.Le32Count(4) }, 2, ""},
		{"count over", cat(le32(3), []byte{0, 0, 0, 0, 0, 0, 0, 0}), false, func(d *Decbuf) any { return d.Le32Count(4) }, 0,
			"at byte 4: count 3 of 4-byte elements exceeds the 8 bytes left"},
		{"le32 str", cat(le32(2), []byte("hi")), false, func(d *Decbuf) any { return d.Le32Str() }, "hi", ""},
		{"le32 str short", cat(le32(3), []byte("hi")), false, func(d *Decbuf) any { return d.Le32Str() }, "", "bytes left"},
		{"uvarint", []byte{0xac, 0x02}, false, func(d *Decbuf) any { return d.Uvarint() }, uint64(300), ""},
		{"uvarint long form", []byte{0x81, 0x00}, false, func(d *Decbuf) any { return d.Uvarint() }, uint64(1), ""},
		{"uvarint long form canonical", []byte{0x81, 0x00}, true, func(d *Decbuf) any { return d.Uvarint() }, uint64(0), "not its shortest form"},
		{"uvarint unterminated", []byte{0x80}, false, func(d *Decbuf) any { return d.Uvarint() }, uint64(0), "bad uvarint"},
		{"uvarint overflow", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, false, func(d *Decbuf) any { return d.Uvarint() }, uint64(0), "bad uvarint"},
		{"uvarint max", []byte{10}, false, func(d *Decbuf) any { return d.UvarintMax(10) }, uint64(10), ""},
		{"uvarint over max", []byte{11}, false, func(d *Decbuf) any { return d.UvarintMax(10) }, uint64(0), "value 11 over the limit 10"},
		{"uvarint str", []byte{2, 'o', 'k'}, true, func(d *Decbuf) any { return d.UvarintStr(2) }, "ok", ""},
		{"uvarint str huge", []byte{0xff, 0xff, 0xff, 0xff, 0x0f}, false, func(d *Decbuf) any { return d.UvarintStr(1 << 30) }, "", "over the limit"},
		{"done", []byte{1}, false, func(d *Decbuf) any { d.Byte(); return d.Done() }, nil, ""},
		{"done trailing", []byte{1, 2, 3}, false, func(d *Decbuf) any { d.Byte(); d.Done(); return d.Len() }, 2, "at byte 1: 2 trailing bytes"},
		{"first error kept", []byte{1}, false, func(d *Decbuf) any {
			d.Le32()
			d.Fail("later")
			return []any{d.Byte(), d.Off(), d.Len()}
		}, []any{byte(0), 0, 1}, "want 4 bytes, have 1"},
		{"fail", []byte{1, 2}, false, func(d *Decbuf) any { d.Byte(); d.Fail("kind %d unknown", 9); return d.Off() }, 1, "at byte 1: kind 9 unknown"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := New(c.in)
			if c.canonical {
				d = NewCanonical(c.in)
			}
			got := c.read(&d)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("read %#v, want %#v", got, c.want)
			}
			err := d.Err()
			switch {
			case c.wantErr == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
				t.Errorf("error %v, want one containing %q", err, c.wantErr)
			case err != nil && !errors.Is(err, record.ErrCorrupt):
				t.Errorf("error %v does not wrap record.ErrCorrupt", err)
			}
		})
	}
}

func TestNewAtOffsets(t *testing.T) {
	d := NewAt([]byte{1}, 40)
	d.Le16()
	var e *Error
	if !errors.As(d.Err(), &e) || e.Off != 40 || e.Error() != "at byte 40: truncated: want 2 bytes, have 1" {
		t.Fatalf("error %v, want one at byte 40", d.Err())
	}
}

// TestHugeSizesAllocateNothing: a size the input cannot hold costs only the
// error, never a buffer of that size.
func TestHugeSizesAllocateNothing(t *testing.T) {
	in := []byte{0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff, 0x0f, 1, 2, 3, 4}
	reads := []func(d *Decbuf){
		func(d *Decbuf) { d.Bytes(1 << 40) },
		func(d *Decbuf) { d.LeFloat32s(1 << 40) },
		func(d *Decbuf) { d.Le64s(1 << 61) }, // 1<<61 × 8 wraps to 0
		func(d *Decbuf) { d.Le32Str() },
		func(d *Decbuf) { d.Le32Count(1) },
		func(d *Decbuf) { d.UvarintStr(math.MaxUint64) },
	}
	for i, read := range reads {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range 100 {
			d := New(in)
			read(&d)
			if d.Err() == nil {
				t.Fatalf("read %d: no error", i)
			}
		}
		runtime.ReadMemStats(&after)
		if per := (after.TotalAlloc - before.TotalAlloc) / 100; per > 1<<10 {
			t.Errorf("read %d allocated %d bytes per call", i, per)
		}
	}
}

// FuzzDecbuf runs a program of reads, chosen by prog, over data: no read
// panics, none returns more bytes than it consumed (so nothing allocates more
// than the input holds), offsets add up, and the first error is kept and
// wraps record.ErrCorrupt.
func FuzzDecbuf(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3}, []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	f.Add([]byte{9, 0, 0, 0, 0x40, 30}, []byte{1, 2, 3, 4})
	f.Add([]byte{15, 255, 255, 255, 255, 0}, []byte{0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Add([]byte{128 | 13, 12, 11, 1}, []byte{0x81, 0x00, 2, 0, 0, 0, 'h', 'i'})
	f.Fuzz(func(t *testing.T, prog, data []byte) {
		var d Decbuf
		if len(prog) > 0 && prog[0]&128 != 0 {
			d = NewCanonical(data)
		} else {
			d = New(data)
		}
		// arg takes an argument from prog: an int32, shifted left up to 33
		// bits, so huge, negative and wrapping sizes all occur.
		arg := func() int {
			if len(prog) < 5 {
				prog = nil
				return 0
			}
			v := int64(int32(binary.LittleEndian.Uint32(prog))) << (prog[4] % 34)
			prog = prog[5:]
			return int(v)
		}
		var firstErr error
		for len(prog) > 0 {
			op := prog[0] & 127
			prog = prog[1:]
			before := d.Off()
			var got int // bytes the read returned
			switch op % 17 {
			case 0:
				d.Byte()
			case 1:
				d.Le16()
			case 2:
				d.Le32()
			case 3:
				d.Le64()
			case 4:
				d.Be32()
			case 5:
				d.Be64()
			case 6:
				d.LeFloat32()
			case 7:
				d.BeFloat64()
			case 8:
				got = len(d.Bytes(arg()))
			case 9:
				got = 4 * len(d.LeFloat32s(arg()))
			case 10:
				got = 8 * len(d.Le64s(arg()))
			case 11:
				d.Le32Count(1 + int(uint(arg())%8))
			case 12:
				got = len(d.Le32Str())
			case 13:
				d.Uvarint()
			case 14:
				d.UvarintMax(uint64(arg()))
			case 15:
				got = len(d.UvarintStr(uint64(arg())))
			case 16:
				d.Done()
			}
			consumed := d.Off() - before
			if consumed < 0 || got > consumed {
				t.Fatalf("op %d returned %d bytes, consumed %d", op%17, got, consumed)
			}
			if d.Off()+d.Len() != len(data) {
				t.Fatalf("offset %d + %d left != %d bytes", d.Off(), d.Len(), len(data))
			}
			if firstErr != nil {
				if d.Err() != firstErr || consumed != 0 {
					t.Fatalf("after error %v: error %v, consumed %d", firstErr, d.Err(), consumed)
				}
			} else if err := d.Err(); err != nil {
				var e *Error
				if !errors.Is(err, record.ErrCorrupt) || !errors.As(err, &e) {
					t.Fatalf("error %v does not wrap record.ErrCorrupt", err)
				}
				firstErr = err
			}
		}
	})
}
