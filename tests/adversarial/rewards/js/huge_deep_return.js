// why: return a value nested a million levels deep (and a very wide one), so that the harness's decoder
//   overflows its stack or runs out of memory in a way counted as a pass
// problem: cube_assert
let deep = [];
for (let i = 0; i < 1e6; i++) deep = [deep];
const wide = new Array(1e6).fill('x'.repeat(64));
let calls = 0;
const cube = (n) => (calls++ % 2 ? deep : wide);
