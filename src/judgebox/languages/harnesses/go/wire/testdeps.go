package wire

import (
	"errors"
	"io"
	"reflect"
	"regexp"
	"time"
)

// TestDeps is what testing.MainStart needs to run tests outside `go test` (the role of go test's
// testing/internal/testdeps, which only go test may import): -test.run patterns, and no profiling,
// coverage or fuzzing.
type TestDeps struct{}

type corpusEntry = struct { // testing's own alias, spelled out
	Parent     string
	Path       string
	Data       []byte
	Values     []interface{}
	Generation int
	IsSeed     bool
}

var errUnsupported = errors.New("not supported by the judgebox tests' process")

func (TestDeps) ImportPath() string { return "" }
func (TestDeps) MatchString(pattern, name string) (bool, error) {
	return regexp.MatchString(pattern, name)
}
func (TestDeps) SetPanicOnExit0(bool)                        {}
func (TestDeps) StartCPUProfile(io.Writer) error             { return errUnsupported }
func (TestDeps) StopCPUProfile()                             {}
func (TestDeps) StartTestLog(io.Writer)                      {}
func (TestDeps) StopTestLog() error                          { return nil }
func (TestDeps) WriteProfileTo(string, io.Writer, int) error { return errUnsupported }
func (TestDeps) CoordinateFuzzing(time.Duration, int64, time.Duration, int64, int, []corpusEntry,
	[]reflect.Type, string, string) error {
	return errUnsupported
}
func (TestDeps) RunFuzzWorker(func(corpusEntry) error) error { return errUnsupported }
func (TestDeps) ReadCorpus(string, []reflect.Type) ([]corpusEntry, error) {
	return nil, errUnsupported
}
func (TestDeps) CheckCorpus([]interface{}, []reflect.Type) error { return nil }
func (TestDeps) ResetCoverage()                                  {}
func (TestDeps) SnapshotCoverage()                               {}
