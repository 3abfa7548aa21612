// judgebox: the tests' process of a Go assert case. It holds the tests, the stubs that call the
// program's functions in the program's process (judgeboxTests and the stubs are generated beside this
// file) and Go's own testing package; no program code is linked in. The pass is written only after
// every test ran and passed.
package main

import (
	"testing"

	judgeboxwire "judgebox/wire"
)

func main() {
	judgeboxwire.Protect()
	code := testing.MainStart(judgeboxwire.TestDeps{}, judgeboxTests, nil, nil, nil).Run()
	judgeboxwire.Finish(code, len(judgeboxTests))
}
