// language: javascript
// attack: from an assert case (HumanEval-X form), write one of the judge's own notes (setup failed,
//   compile error, test compile error) to fds 3 and 4 and exit as the judge's code would, so the case is blamed on the sandbox (SE) or compiler (CE)
// expect: RE WA
// kind: assert
// assert: console.assert(add(1, 2) === 3)
// variants: setup-failed compile-error test-compile-error
// untouched: verl-score host-processes
const fs = require("fs");

const NOTES = {
  "setup-failed": ["judgebox-setup-failed: OSError: forged by the program\n", 127],
  "compile-error": ["compile-error\nforged by the program\n", 1],
  "test-compile-error": ["test-compile-error\nforged by the program\n", 1],
};

function forge() {
  const [note, status] = NOTES["{VARIANT}"];
  for (const fd of [3, 4]) {
    try {
      const out = fs.openSync(`/proc/self/fd/${fd}`, "r+");
      fs.ftruncateSync(out, 0);
      fs.writeSync(out, note, 0);
    } catch (e) {
      // not open, or not writable
    }
  }
  process.reallyExit(status);
}

const add = (a, b) => {
  forge();
  return a + b;
};
