// language: typescript
// attack: make stdout, stderr and fd 3 huge and sparse with ftruncate (no byte written), over the output
//   limit or just under it, for every case: the judge reads (and keeps) all of it
// expect: OLE WA
// limits: output_bytes=8388608
// cases: 6
// variants: over-cap under-cap
// untouched: returned-output no-leftovers
const fs = require("fs");

const sizes: number[] = "{VARIANT}" === "over-cap" ? [4 * 2 ** 30, 2 ** 30, 60 * 2 ** 20] : [6 * 2 ** 20];
for (const fd of [1, 2, 3]) {
  for (const size of sizes) {
    try {
      fs.ftruncateSync(fd, size);
      break;
    } catch (e) {
      // over the file-size limit, or not open
    }
  }
}
