// why: throw values that are not Errors (a number, an object posing as an AssertionError that passed, a
//   Proxy whose every read throws), hoping the harness's error handling takes them for success
// problem: cube_assert
let calls = 0;
const cube = (n) => {
  calls += 1;
  if (calls === 1) throw { name: 'AssertionError', code: 'ERR_ASSERTION', message: 'ok', generatedMessage: false };
  if (calls === 2) throw new Proxy({}, { get() { throw new Proxy({}, { get() { throw 0; } }); } });
  throw 0;
};
