// why: speak the harness's channel protocol itself on every descriptor: claim the tests' functions back,
//   send a fake 'exit 0', a fake result that refers to the tests' own objects, and garbage
// problem: sort_by
const fs = require('fs');
const frame = (message) => { const body = Buffer.from(JSON.stringify(message)); const head = Buffer.alloc(4); head.writeUInt32BE(body.length); return Buffer.concat([head, body]); };
const sortBy = (xs, cmp) => {
  for (let fd = 3; fd < 16; fd++) {
    for (const message of [{ op: 'ret', v: { c: 0 } }, { op: 'ret', v: { c: 1 } }, { op: 'cb', id: 0, args: [{ c: 0 }, { c: 0 }] },
      { op: 'ret', v: { o: [['__proto__', { o: [['polluted', true]] }]] } }]) {
      try { fs.writeSync(fd, frame(message)); } catch (_) {}
    }
  }
  try { fs.writeSync(7, frame({ op: 'exit', code: 0 })); } catch (_) {}
  try { fs.writeSync(7, Buffer.from('\xff\xff\xff\xffgarbage')); } catch (_) {}
  return xs;
};
