// Package wire carries the values of a Go assert case between its two processes (see
// judgebox/languages/go_split.py): the program's process (the program and a generated table of its
// functions, served by Serve) and the tests' process (the tests, generated stubs calling Call, and the
// testing package run by RunTests).
//
// Messages on the channel (fd 7) are a u32 length and a payload. A request is a function's index and its
// arguments; a reply is a status byte (0: the results follow; 1: the call failed, why follows; 2: the
// function panicked: whether its value was a string, an error or another value, and its text, follow,
// and the tests' side panics again with a value made of that text alone: a string, or an error). Every
// value is written as a type descriptor and the value's data, so a value held by an interface{} crosses
// with its dynamic type. The types form a closed set: bool, the int, uint and float kinds, string, slices,
// arrays, maps and interface{} of those, and the program's data types: its named types whose definition
// is made of the set (type Celsius float64, type Pair struct{A int; b []string}), registered by name on
// each side (Register). A named type's descriptor is its name; a struct's data is its field count and its
// fields' data, by position. The tests' side has copies of those declarations and nothing else of the
// program (no method: nothing of the program's runs there) and rebuilds each value from its own reflect
// types, accepting a value only of the type its position declares (any value of the set where that is
// interface{}). Pointers, funcs, channels, unnamed structs and unregistered named types never cross.
// The tests' side trusts nothing it reads: lengths are checked against what is left of the message,
// integers against their kind's range, bools are 0 or 1, a map's keys are distinct, a struct's field
// count against its type, a type's name against the table.
package wire

import (
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"unsafe"
)

const (
	channelFd  = 7
	reportFd   = 3
	tokenFd    = 4
	maxMessage = 256 << 20
	maxDepth   = 32   // nested type descriptors
	maxNesting = 2000 // nested values (a recursive data type: type Tree struct{Kids []Tree})
	maxName    = 256  // a data type's name
)

// reply status bytes, and what a panic's value was
const (
	replyResults byte = iota
	replyFailed
	replyPanicked
)

const (
	panicString byte = iota
	panicError
	panicOther
)

// descriptor tags
const (
	tagNil byte = iota
	tagBool
	tagInt
	tagInt8
	tagInt16
	tagInt32
	tagInt64
	tagUint
	tagUint8
	tagUint16
	tagUint32
	tagUint64
	tagFloat32
	tagFloat64
	tagString
	tagSlice
	tagArray
	tagMap
	tagInterface
	tagNamed
)

var basicTags = map[reflect.Kind]byte{
	reflect.Bool: tagBool, reflect.Int: tagInt, reflect.Int8: tagInt8, reflect.Int16: tagInt16,
	reflect.Int32: tagInt32, reflect.Int64: tagInt64, reflect.Uint: tagUint, reflect.Uint8: tagUint8,
	reflect.Uint16: tagUint16, reflect.Uint32: tagUint32, reflect.Uint64: tagUint64,
	reflect.Float32: tagFloat32, reflect.Float64: tagFloat64, reflect.String: tagString,
}

var basicTypes = map[byte]reflect.Type{
	tagBool: reflect.TypeOf(false), tagInt: reflect.TypeOf(int(0)), tagInt8: reflect.TypeOf(int8(0)),
	tagInt16: reflect.TypeOf(int16(0)), tagInt32: reflect.TypeOf(int32(0)), tagInt64: reflect.TypeOf(int64(0)),
	tagUint: reflect.TypeOf(uint(0)), tagUint8: reflect.TypeOf(uint8(0)), tagUint16: reflect.TypeOf(uint16(0)),
	tagUint32: reflect.TypeOf(uint32(0)), tagUint64: reflect.TypeOf(uint64(0)),
	tagFloat32: reflect.TypeOf(float32(0)), tagFloat64: reflect.TypeOf(float64(0)), tagString: reflect.TypeOf(""),
}

var emptyInterface = reflect.TypeOf((*interface{})(nil)).Elem()

// named: the program's data types by name (this side's own types: the program's in its process, the
// tests' copies in theirs)
var named = map[string]reflect.Type{}

// Register gives the program's data types, each name with a nil pointer to its type (generated code).
func Register(types map[string]interface{}) {
	for name, pointer := range types {
		t := reflect.TypeOf(pointer)
		if t == nil || t.Kind() != reflect.Pointer || t.Elem().Name() != name || len(name) > maxName {
			panic("judgebox: a data type registered wrongly: " + name)
		}
		named[name] = t.Elem()
	}
}

// malformed is what a reader panics with; the tests' side turns it into a failed case.
type malformed string

// -- writing ------------------------------------------------------------------------------------------

type writer struct {
	data    []byte
	nesting int
}

func (w *writer) u8(v byte)      { w.data = append(w.data, v) }
func (w *writer) u32(v uint32)   { w.data = binary.LittleEndian.AppendUint32(w.data, v) }
func (w *writer) u64(v uint64)   { w.data = binary.LittleEndian.AppendUint64(w.data, v) }
func (w *writer) bytes(b []byte) { w.u64(uint64(len(b))); w.data = append(w.data, b...) }

// descriptor writes t's descriptor, or says why t is not in the closed set.
func (w *writer) descriptor(t reflect.Type, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("a type nested more than %d deep", maxDepth)
	}
	if t.Name() != "" && t.PkgPath() != "" { // a named type that is not Go's own
		if named[t.Name()] != t {
			return fmt.Errorf("the type %s", t)
		}
		w.u8(tagNamed)
		w.bytes([]byte(t.Name()))
		return nil
	}
	if tag, ok := basicTags[t.Kind()]; ok {
		w.u8(tag)
		return nil
	}
	if t.Name() != "" && t != emptyInterface {
		return fmt.Errorf("the type %s", t)
	}
	switch t.Kind() {
	case reflect.Slice:
		w.u8(tagSlice)
		return w.descriptor(t.Elem(), depth+1)
	case reflect.Array:
		w.u8(tagArray)
		w.u64(uint64(t.Len()))
		return w.descriptor(t.Elem(), depth+1)
	case reflect.Map:
		w.u8(tagMap)
		if err := w.descriptor(t.Key(), depth+1); err != nil {
			return err
		}
		return w.descriptor(t.Elem(), depth+1)
	case reflect.Interface:
		if t.NumMethod() == 0 {
			w.u8(tagInterface)
			return nil
		}
	}
	return fmt.Errorf("the type %s", t)
}

// value writes v as a value of its static type: its descriptor, then its data.
func (w *writer) value(v reflect.Value) error {
	if v.Kind() == reflect.Interface {
		if v.IsNil() {
			w.u8(tagNil)
			return nil
		}
		v = v.Elem()
	}
	if err := w.descriptor(v.Type(), 0); err != nil {
		return err
	}
	return w.contents(v)
}

func (w *writer) contents(v reflect.Value) error {
	if w.nesting++; w.nesting > maxNesting {
		return fmt.Errorf("a value nested more than %d deep", maxNesting)
	}
	defer func() { w.nesting-- }()
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			w.u8(1)
		} else {
			w.u8(0)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		w.u64(uint64(v.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		w.u64(v.Uint())
	case reflect.Float32, reflect.Float64:
		w.u64(math.Float64bits(v.Float()))
	case reflect.String:
		w.bytes([]byte(v.String()))
	case reflect.Slice, reflect.Map: // nil and empty differ (reflect.DeepEqual tells them apart)
		if v.IsNil() {
			w.u8(0)
			return nil
		}
		w.u8(1)
		w.u64(uint64(v.Len()))
		if v.Kind() == reflect.Slice {
			return w.elements(v)
		}
		iter := v.MapRange()
		for iter.Next() {
			if err := w.contents(iter.Key()); err != nil {
				return err
			}
			if err := w.contents(iter.Value()); err != nil {
				return err
			}
		}
	case reflect.Array:
		return w.elements(v)
	case reflect.Struct: // only a registered type's (the descriptor was checked): its fields by position
		w.u64(uint64(v.NumField()))
		for i := 0; i < v.NumField(); i++ {
			if err := w.contents(v.Field(i)); err != nil {
				return err
			}
		}
	case reflect.Interface:
		return w.value(v)
	default:
		return fmt.Errorf("a value of type %s", v.Type())
	}
	return nil
}

func (w *writer) elements(v reflect.Value) error {
	for i := 0; i < v.Len(); i++ {
		if err := w.contents(v.Index(i)); err != nil {
			return err
		}
	}
	return nil
}

// -- reading ------------------------------------------------------------------------------------------

type reader struct {
	data    []byte
	depth   int // interface{} values within interface{} values
	nesting int // values within values
}

func (r *reader) take(n uint64) []byte {
	if n > uint64(len(r.data)) {
		panic(malformed("a value runs past the end of its message"))
	}
	out := r.data[:n]
	r.data = r.data[n:]
	return out
}

func (r *reader) u8() byte    { return r.take(1)[0] }
func (r *reader) u32() uint32 { return binary.LittleEndian.Uint32(r.take(4)) }
func (r *reader) u64() uint64 { return binary.LittleEndian.Uint64(r.take(8)) }
func (r *reader) flag() bool {
	switch r.u8() {
	case 0:
		return false
	case 1:
		return true
	}
	panic(malformed("a bool that is neither 0 nor 1"))
}

// descriptor reads a descriptor and gives the type it names, built from this side's own reflect types
// (nil for the nil interface value).
func (r *reader) descriptor(depth int) reflect.Type {
	if depth > maxDepth {
		panic(malformed("a type nested too deeply"))
	}
	tag := r.u8()
	if t, ok := basicTypes[tag]; ok {
		return t
	}
	switch tag {
	case tagNil:
		if depth == 0 {
			return nil
		}
	case tagSlice:
		return reflect.SliceOf(r.solid(depth))
	case tagArray:
		n := r.u64()
		if n > uint64(len(r.data)) { // every element takes at least a byte
			panic(malformed("an array longer than its message"))
		}
		return reflect.ArrayOf(int(n), r.solid(depth))
	case tagMap:
		key := r.solid(depth)
		if !key.Comparable() {
			panic(malformed("a map whose keys cannot be compared"))
		}
		return reflect.MapOf(key, r.solid(depth))
	case tagInterface:
		return emptyInterface
	case tagNamed:
		n := r.u64()
		if n > maxName {
			panic(malformed("a type name too long"))
		}
		if t, ok := named[string(r.take(n))]; ok {
			return t
		}
		panic(malformed("a type name this side does not have"))
	}
	panic(malformed("an unknown type descriptor"))
}

func (r *reader) solid(depth int) reflect.Type { return r.descriptor(depth + 1) }

// value reads a value for a position of type want: one of exactly that type, or any value of the closed
// set where want is interface{}.
func (r *reader) value(want reflect.Type) reflect.Value {
	if r.depth++; r.depth > maxDepth {
		panic(malformed("values nested too deeply"))
	}
	defer func() { r.depth-- }()
	got := r.descriptor(0)
	out := reflect.New(want).Elem()
	if got == nil {
		if want.Kind() != reflect.Interface {
			panic(malformed(fmt.Sprintf("nil where a %s was due", want)))
		}
		return out
	}
	if want.Kind() == reflect.Interface {
		if want.NumMethod() != 0 {
			panic(malformed(fmt.Sprintf("a value for a %s", want)))
		}
	} else if got != want {
		panic(malformed(fmt.Sprintf("a %s where a %s was due", got, want)))
	}
	out.Set(r.contents(got))
	return out
}

func (r *reader) contents(t reflect.Type) reflect.Value {
	if r.nesting++; r.nesting > maxNesting {
		panic(malformed("values nested too deeply"))
	}
	defer func() { r.nesting-- }()
	v := reflect.New(t).Elem()
	switch t.Kind() {
	case reflect.Bool:
		v.SetBool(r.flag())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n := int64(r.u64())
		if v.OverflowInt(n) {
			panic(malformed(fmt.Sprintf("%d does not fit a %s", n, t)))
		}
		v.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n := r.u64()
		if v.OverflowUint(n) {
			panic(malformed(fmt.Sprintf("%d does not fit a %s", n, t)))
		}
		v.SetUint(n)
	case reflect.Float32, reflect.Float64:
		f := math.Float64frombits(r.u64())
		if t.Kind() == reflect.Float32 && float64(float32(f)) != f && !math.IsNaN(f) {
			panic(malformed("a float32 that is not one"))
		}
		v.SetFloat(f)
	case reflect.String:
		v.SetString(string(r.take(r.u64())))
	case reflect.Slice:
		if !r.flag() {
			return v
		}
		n := r.count()
		v.Set(reflect.MakeSlice(t, n, n))
		for i := 0; i < n; i++ {
			v.Index(i).Set(r.contents(t.Elem()))
		}
	case reflect.Array:
		for i := 0; i < t.Len(); i++ {
			v.Index(i).Set(r.contents(t.Elem()))
		}
	case reflect.Map:
		if !r.flag() {
			return v
		}
		n := r.count()
		v.Set(reflect.MakeMapWithSize(t, n))
		for i := 0; i < n; i++ {
			key := r.contents(t.Key())
			if v.MapIndex(key).IsValid() {
				panic(malformed("a map with a key twice"))
			}
			v.SetMapIndex(key, r.contents(t.Elem()))
		}
	case reflect.Struct:
		if n := r.u64(); n != uint64(t.NumField()) {
			panic(malformed(fmt.Sprintf("a %s of %d fields", t, n)))
		}
		for i := 0; i < t.NumField(); i++ {
			field := v.Field(i)
			if !field.CanSet() { // an unexported field of this side's own copy of the type
				field = reflect.NewAt(field.Type(), unsafe.Pointer(field.UnsafeAddr())).Elem()
			}
			field.Set(r.contents(t.Field(i).Type))
		}
	case reflect.Interface:
		return r.value(t)
	default:
		panic(malformed(fmt.Sprintf("a value of type %s", t)))
	}
	return v
}

func (r *reader) count() int {
	n := r.u64()
	if n > uint64(len(r.data)) { // every element takes at least a byte
		panic(malformed("more elements than the message holds"))
	}
	return int(n)
}

func (r *reader) finish() {
	if len(r.data) != 0 {
		panic(malformed("bytes left over after the values"))
	}
}
