// why: return an object whose getters throw, so that whatever reads it (a harness's encoder, the
//   assertion's message) fails in a way a harness may count as something other than a failure
// problem: cube_assert
const bomb = () => { const error = new Error('boom'); error.name = 'AssertionError'; error.code = 'ERR_ASSERTION'; throw error; };
const cube = (n) => Object.defineProperties({}, {
  value: { get: bomb, enumerable: true }, constructor: { get: bomb }, then: { get: bomb },
});
