// judgebox: the tests' process of a Go assert case. It holds the tests, the stubs that call the
// program's functions in the program's process (judgeboxTests, judgeboxTypes and the stubs are generated
// beside this file, with copies of the program's data type declarations: no method, no code of the
// program's) and Go's own testing package; no program code is linked in. The pass is written only after
// every test ran and passed.
package main

import (
	"testing"

	judgeboxwire "judgebox/wire"
)

func main() {
	judgeboxwire.Protect()
	judgeboxwire.Register(judgeboxTypes)
	code := testing.MainStart(judgeboxwire.TestDeps{}, judgeboxTests, nil, nil, nil).Run()
	judgeboxwire.Finish(code, len(judgeboxTests))
}
