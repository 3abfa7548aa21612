// why: return a thenable that never settles: the tests' 'await' waits forever, the event loop runs dry,
//   and a harness that passes at 'beforeExit' passes without the assertions after it ever running
// problem: cube_async
// before: js
const cube = (n) => ({ then() {} });
