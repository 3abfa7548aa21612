// why: return data with an own '__proto__' key (and 'constructor'), so that a harness that rebuilds it
//   with plain assignment pollutes the tests' Object.prototype and makes deepEqual agree
// problem: cube_assert
const cube = (n) => JSON.parse('{"__proto__": {"valueOf": 27, "toString": 27}, "constructor": {"prototype": {"polluted": 1}}}');
