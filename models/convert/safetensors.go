package convert

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
)

// maxHeaderSize bounds the JSON header of a safetensors file (the reference
// implementation's limit), so a damaged length cannot make Open allocate
// gigabytes.
const maxHeaderSize = 100_000_000

// dtypeSizes are the element sizes of the safetensors dtypes.
var dtypeSizes = map[string]int64{
	"BOOL": 1, "U8": 1, "I8": 1, "F8_E4M3": 1, "F8_E5M2": 1,
	"U16": 2, "I16": 2, "F16": 2, "BF16": 2,
	"U32": 4, "I32": 4, "F32": 4,
	"U64": 8, "I64": 8, "F64": 8,
}

// TensorInfo is one entry of a safetensors header. Begin and End are byte
// offsets into the data that follows the header.
type TensorInfo struct {
	Name       string
	DType      string
	Shape      []int64
	Begin, End int64
}

// Header is a parsed safetensors header: the tensors sorted by name, and the
// free-form metadata.
type Header struct {
	Tensors  []TensorInfo
	Metadata map[string]string
}

type tensorJSON struct {
	DType   string  `json:"dtype"`
	Shape   []int64 `json:"shape"`
	Offsets []int64 `json:"data_offsets"`
}

// ParseHeader decodes a safetensors JSON header and checks it against the
// size of the data that follows it: every dtype known, every byte range the
// size its shape says, and the ranges tiling [0, dataLen) with no gap or
// overlap (as the format requires). It reads nothing else.
func ParseHeader(js []byte, dataLen int64) (*Header, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(js, &raw); err != nil {
		return nil, fmt.Errorf("safetensors header: %w", err)
	}
	h := &Header{}
	for name, msg := range raw {
		if name == "__metadata__" {
			if err := json.Unmarshal(msg, &h.Metadata); err != nil {
				return nil, fmt.Errorf("safetensors header: __metadata__: %w", err)
			}
			continue
		}
		ti, err := parseTensorInfo(name, msg)
		if err != nil {
			return nil, fmt.Errorf("safetensors header: %w", err)
		}
		h.Tensors = append(h.Tensors, ti)
	}
	slices.SortFunc(h.Tensors, func(a, b TensorInfo) int { return strings.Compare(a.Name, b.Name) })
	if err := checkTiling(h.Tensors, dataLen); err != nil {
		return nil, fmt.Errorf("safetensors header: %w", err)
	}
	return h, nil
}

func parseTensorInfo(name string, msg json.RawMessage) (TensorInfo, error) {
	var tj tensorJSON
	dec := json.NewDecoder(bytes.NewReader(msg))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&tj); err != nil {
		return TensorInfo{}, fmt.Errorf("tensor %q: %w", name, err)
	}
	size, ok := dtypeSizes[tj.DType]
	if !ok {
		return TensorInfo{}, fmt.Errorf("tensor %q: unknown dtype %q", name, tj.DType)
	}
	if len(tj.Offsets) != 2 || tj.Offsets[0] < 0 || tj.Offsets[1] < tj.Offsets[0] {
		return TensorInfo{}, fmt.Errorf("tensor %q: data_offsets %v must be [begin, end] with 0 <= begin <= end", name, tj.Offsets)
	}
	n, err := numElements(tj.Shape)
	if err != nil {
		return TensorInfo{}, fmt.Errorf("tensor %q: %w", name, err)
	}
	if n > math.MaxInt64/size || n*size != tj.Offsets[1]-tj.Offsets[0] {
		return TensorInfo{}, fmt.Errorf("tensor %q: shape %v of %s needs %d bytes, data_offsets %v hold %d", name, tj.Shape, tj.DType, n*size, tj.Offsets, tj.Offsets[1]-tj.Offsets[0])
	}
	return TensorInfo{Name: name, DType: tj.DType, Shape: tj.Shape, Begin: tj.Offsets[0], End: tj.Offsets[1]}, nil
}

// numElements is the product of shape, refusing negative dimensions and
// products that overflow.
func numElements(shape []int64) (int64, error) {
	n := int64(1)
	for _, d := range shape {
		if d < 0 {
			return 0, fmt.Errorf("negative dimension in shape %v", shape)
		}
		if d != 0 && n > math.MaxInt64/d {
			return 0, fmt.Errorf("shape %v has too many elements", shape)
		}
		n *= d
	}
	return n, nil
}

// checkTiling verifies that the tensors' byte ranges cover [0, dataLen)
// exactly, in some order.
func checkTiling(ts []TensorInfo, dataLen int64) error {
	byBegin := slices.Clone(ts)
	slices.SortFunc(byBegin, func(a, b TensorInfo) int {
		if a.Begin != b.Begin {
			return cmp.Compare(a.Begin, b.Begin)
		}
		return cmp.Compare(a.End, b.End)
	})
	at := int64(0)
	for _, t := range byBegin {
		if t.Begin != at {
			return fmt.Errorf("tensor %q starts at byte %d, want %d (data ranges must tile the buffer without gaps or overlaps)", t.Name, t.Begin, at)
		}
		at = t.End
	}
	if at != dataLen {
		return fmt.Errorf("tensors cover %d bytes of data, the file holds %d", at, dataLen)
	}
	return nil
}

// Safetensors is an open safetensors file. Tensors are read on demand, so a
// caller holds in memory only what it asked for. Not safe for concurrent
// use.
type Safetensors struct {
	Header
	f         *os.File
	dataStart int64
	byName    map[string]int
}

// OpenSafetensors opens path and parses and checks its header (see
// ParseHeader). The caller must Close it.
func OpenSafetensors(path string) (*Safetensors, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open safetensors: %w", err)
	}
	st, err := readHeader(f)
	if err != nil {
		_ = f.Close() // read-only; the header error is the one to report
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return st, nil
}

func readHeader(f *os.File) (*Safetensors, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat: %w", err)
	}
	var lenBuf [8]byte
	if _, err := io.ReadFull(f, lenBuf[:]); err != nil {
		return nil, fmt.Errorf("read header length: %w", err)
	}
	n := binary.LittleEndian.Uint64(lenBuf[:])
	if n > maxHeaderSize || int64(n) > fi.Size()-8 {
		return nil, fmt.Errorf("header length %d does not fit a %d-byte file (limit %d)", n, fi.Size(), maxHeaderSize)
	}
	js := make([]byte, n)
	if _, err := io.ReadFull(f, js); err != nil {
		return nil, fmt.Errorf("read header: %w", err)
	}
	if len(js) == 0 || js[0] != '{' {
		return nil, errors.New("header is not a JSON object")
	}
	h, err := ParseHeader(js, fi.Size()-8-int64(n))
	if err != nil {
		return nil, err
	}
	st := &Safetensors{Header: *h, f: f, dataStart: 8 + int64(n), byName: map[string]int{}}
	for i, t := range h.Tensors {
		st.byName[t.Name] = i
	}
	return st, nil
}

// Close closes the file.
func (s *Safetensors) Close() error { return s.f.Close() }

// Info returns the header entry of tensor name.
func (s *Safetensors) Info(name string) (TensorInfo, bool) {
	i, ok := s.byName[name]
	if !ok {
		return TensorInfo{}, false
	}
	return s.Tensors[i], true
}

// Float32 reads tensor name, which must have dtype F32, and returns its
// elements in row-major order. Cost: one read of the tensor's bytes.
func (s *Safetensors) Float32(name string) ([]float32, []int64, error) {
	t, ok := s.Info(name)
	if !ok {
		return nil, nil, fmt.Errorf("safetensors: no tensor %q", name)
	}
	if t.DType != "F32" {
		return nil, nil, fmt.Errorf("safetensors: tensor %q is %s; only F32 weights are converted", name, t.DType)
	}
	buf := make([]byte, t.End-t.Begin)
	if _, err := s.f.ReadAt(buf, s.dataStart+t.Begin); err != nil {
		return nil, nil, fmt.Errorf("safetensors: read tensor %q: %w", name, err)
	}
	out := make([]float32, len(buf)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(buf[4*i:]))
	}
	return out, slices.Clone(t.Shape), nil
}
