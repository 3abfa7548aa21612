// The channel and the two sides of a call (see wire.go for the encoding).
package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"reflect"
	"sync"
	"syscall"
)

// -- the channel --------------------------------------------------------------------------------------

var channel = os.NewFile(channelFd, "judgebox-channel")

func send(payload []byte) error {
	message := binary.LittleEndian.AppendUint32(nil, uint32(len(payload)))
	_, err := channel.Write(append(message, payload...))
	return err
}

func receive() ([]byte, error) {
	var head [4]byte
	if _, err := readFull(head[:]); err != nil {
		return nil, err
	}
	n := binary.LittleEndian.Uint32(head[:])
	if n > maxMessage {
		return nil, fmt.Errorf("a message larger than the channel allows")
	}
	payload := make([]byte, n)
	_, err := readFull(payload)
	return payload, err
}

func readFull(b []byte) (int, error) {
	got := 0
	for got < len(b) {
		n, err := channel.Read(b[got:])
		got += n
		if err != nil {
			return got, err
		}
	}
	return got, nil
}

// -- the program's side -------------------------------------------------------------------------------

// Serve answers the tests' calls of functions (the generated table, in the tests' stubs' order) until
// the tests' process closes the channel; types are the program's data types (see Register).
func Serve(functions []interface{}, types map[string]interface{}) {
	Register(types)
	for {
		request, err := receive()
		if err != nil {
			os.Exit(0)
		}
		reply, err := serveOne(functions, request)
		if err != nil {
			fmt.Fprintln(os.Stderr, "judgebox:", err)
			os.Exit(1)
		}
		if send(reply) != nil {
			os.Exit(1)
		}
	}
}

func serveOne(functions []interface{}, request []byte) (reply []byte, err error) {
	defer func() {
		if bad, ok := recover().(malformed); ok {
			err = fmt.Errorf("%s", string(bad))
		}
	}()
	r := &reader{data: request}
	index := r.u32()
	if int(index) >= len(functions) {
		return nil, fmt.Errorf("no function %d", index)
	}
	fn := reflect.ValueOf(functions[index])
	args := make([]reflect.Value, fn.Type().NumIn())
	for i := range args {
		args[i] = r.value(fn.Type().In(i))
	}
	r.finish()
	results, panicked := call(fn, args)
	w := &writer{}
	if panicked != nil {
		w.u8(replyPanicked)
		w.u8(panicked.kind)
		w.bytes([]byte(panicked.text))
		return w.data, nil
	}
	w.u8(replyResults)
	for _, result := range results {
		holder := reflect.New(result.Type()).Elem() // keep the static type (an interface{} result)
		holder.Set(result)
		if err := w.value(holder); err != nil {
			w = &writer{}
			w.u8(replyFailed)
			w.bytes([]byte("the function returned " + err.Error() + ", which cannot cross to the tests"))
			return w.data, nil
		}
	}
	return w.data, nil
}

// OtherPanic is what the tests' side panics with for a program's panic value that was neither a string
// nor an error: its text, as a type of its own, so that it equals no string (as under go test, where the
// value's own type would not either).
type OtherPanic string

func (p OtherPanic) String() string { return string(p) }

// programPanic is what crosses of a panic of the program's function: the kind of its value and its text.
type programPanic struct {
	kind byte
	text string
}

func call(fn reflect.Value, args []reflect.Value) (results []reflect.Value, panicked *programPanic) {
	defer func() {
		if p := recover(); p != nil {
			panicked = describePanic(p)
		}
	}()
	return fn.Call(args), nil
}

// describePanic reads a panic's value in the program's process. A value whose Error or String method
// panics again is told by its type alone.
func describePanic(p interface{}) (described *programPanic) {
	defer func() {
		if recover() != nil {
			described = &programPanic{panicOther, fmt.Sprintf("a panic with a %T", p)}
		}
	}()
	switch value := p.(type) {
	case string:
		return &programPanic{panicString, value}
	case error:
		return &programPanic{panicError, value.Error()}
	}
	return &programPanic{panicOther, fmt.Sprint(p)}
}

// -- the tests' side ----------------------------------------------------------------------------------

var calls sync.Mutex // the tests may call from several goroutines (t.Parallel)

// Call calls function index of the program's process with the values args point to, and stores its
// results where results point. A panic of the program's function is raised again here, in the caller's
// goroutine, as go test would raise it (assert.Panics and recover() see it): a string for a string, an
// error with the same text for an error, an OtherPanic of its text for any other value. Anything else amiss ends the tests'
// process: no pass.
func Call(index int, args []interface{}, results ...interface{}) {
	if panicked := exchange(index, args, results); panicked != nil {
		switch panicked.kind {
		case panicString:
			panic(panicked.text)
		case panicError:
			panic(errors.New(panicked.text))
		default:
			panic(OtherPanic(panicked.text))
		}
	}
}

// exchange makes one call and reads its reply: the results stored, or the program's panic returned.
func exchange(index int, args []interface{}, results []interface{}) (panicked *programPanic) {
	calls.Lock()
	defer calls.Unlock()
	w := &writer{}
	w.u32(uint32(index))
	for _, arg := range args {
		if err := w.value(reflect.ValueOf(arg).Elem()); err != nil {
			fail("the tests passed " + err.Error() + ", which cannot cross to the program")
		}
	}
	if send(w.data) != nil {
		fail("the program's process ended during a call")
	}
	reply, err := receive()
	if err != nil {
		fail("the program's process ended during a call")
	}
	defer func() {
		if p := recover(); p != nil {
			if bad, ok := p.(malformed); ok {
				fail("a malformed reply: " + string(bad))
			}
			fail(fmt.Sprintf("reading the reply failed: %v", p))
		}
	}()
	r := &reader{data: reply}
	switch r.u8() {
	case replyResults:
	case replyFailed:
		fail("the program's function failed: " + string(r.take(r.u64())))
	case replyPanicked:
		kind := r.u8()
		if kind > panicOther {
			panic(malformed("an unknown kind of panic"))
		}
		text := string(r.take(r.u64()))
		r.finish()
		return &programPanic{kind, text}
	default:
		panic(malformed("an unknown reply status"))
	}
	for _, result := range results {
		target := reflect.ValueOf(result).Elem()
		target.Set(r.value(target.Type()))
	}
	r.finish()
	return nil
}

func fail(why string) {
	fmt.Fprintln(os.Stderr, "judgebox:", why)
	os.Exit(1)
}

// Protect makes the tests' process undumpable: nothing of the sandbox's uid may read its memory or
// descriptors (the program's process is also kept out by its nested Landlock domain).
func Protect() {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_DUMPABLE, 0, 0); errno != 0 {
		fail("could not make the tests' process undumpable")
	}
}

// Finish reports the tests' outcome (the testing package's exit code) and ends the process: the pass
// (the payload and the run's token) only when every test ran and passed.
func Finish(code int, tests int) {
	report := os.NewFile(reportFd, "judgebox-report")
	if code != 0 || tests == 0 {
		report.Write([]byte("assertion-failed\n"))
		os.Exit(1)
	}
	token := make([]byte, 64)
	n, err := syscall.Pread(tokenFd, token, 0)
	if err != nil || n != 32 {
		os.Exit(70)
	}
	if _, err := report.Write(append([]byte("asserts\n"), token[:n]...)); err != nil {
		os.Exit(70)
	}
	os.Exit(0)
}
