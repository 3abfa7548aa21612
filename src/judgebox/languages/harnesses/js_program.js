// judgebox: the program's process (S) of a JavaScript/TypeScript assert case. It holds no test, no
// token and no result fd: fds 0-2 the case's stdio, 5 the program (the source, or the transpiled JS),
// 7 the channel to the tests' process (T). It evaluates the program as a script (its top-level
// declarations reachable by name), tells T those names, then serves T's requests: calls, property
// reads, constructions. Results go back as data; what is not data stays here behind a handle.
// Nothing here is trusted by T: the program may replace all of it.
(() => {
  const fs = require('fs');
  const vm = require('vm');
  const CHANNEL = 7, MAX_DEPTH = 1000;
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  const nap = () => Atomics.wait(sleeper, 0, 0, 1);

  const writeAll = (buffer) => {
    let offset = 0;
    while (offset < buffer.length) {
      try {
        offset += fs.writeSync(CHANNEL, buffer, offset, buffer.length - offset);
      } catch (error) {
        if (error && error.code === 'EAGAIN') { nap(); continue; }
        throw error;
      }
    }
  };
  const readExact = (size) => {
    const buffer = Buffer.alloc(size);
    let offset = 0;
    while (offset < size) {
      let got;
      try {
        got = fs.readSync(CHANNEL, buffer, offset, size - offset, null);
      } catch (error) {
        if (error && error.code === 'EAGAIN') { nap(); continue; }
        return null;
      }
      if (got === 0) return null;
      offset += got;
    }
    return buffer;
  };
  const send = (message) => {
    const body = Buffer.from(JSON.stringify(message), 'utf8');
    const header = Buffer.alloc(4);
    header.writeUInt32BE(body.length, 0);
    writeAll(Buffer.concat([header, body]));
  };
  let exiting = false;
  const receive = () => {
    const header = readExact(4);
    const body = header && readExact(header.readUInt32BE(0));
    if (body === null) { exiting = true; process.exit(0); }  // the tests ended
    return JSON.parse(body.toString('utf8'));
  };
  process.on('exit', (code) => {
    if (exiting) return;
    exiting = true;
    try { send({ op: 'exit', code }); } catch (_) { /* T is gone */ }
  });

  // -- the program -------------------------------------------------------------------------------
  const lexicalNames = () => {
    let names = [];
    try {
      const session = new (require('inspector').Session)();
      session.connect();
      session.post('Runtime.globalLexicalScopeNames', {}, (error, result) => { if (!error && result) names = result.names; });
      session.disconnect();
    } catch (_) { /* no inspector: only var and function declarations are found */ }
    return names;
  };
  const globalsBefore = new Set(Object.getOwnPropertyNames(globalThis));
  const lexicalBefore = new Set(lexicalNames());
  const source = fs.readFileSync('/proc/self/fd/5', 'utf8');
  try {
    vm.runInThisContext(source, { filename: '/tmp/main.js' });
  } catch (error) {
    let shown;
    try { shown = error instanceof Error ? error.stack : `Uncaught ${String(error)}`; } catch (_) { shown = 'Uncaught exception'; }
    try { fs.writeSync(2, `${shown}\n`); } catch (_) { /* stderr closed */ }
    process.exit(1);
  }
  const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
  const getters = new Map();  // name -> a function reading the program's binding (it may be reassigned)
  for (const name of [...Object.getOwnPropertyNames(globalThis).filter((n) => !globalsBefore.has(n)),
    ...lexicalNames().filter((n) => !lexicalBefore.has(n))]) {
    if (!IDENTIFIER.test(name) || getters.has(name)) continue;
    try { getters.set(name, vm.runInThisContext(`() => ${name}`)); } catch (_) { /* a reserved word */ }
  }
  const names = [...getters.keys()];
  const resolve = (name) => {
    const getter = getters.get(name);
    if (getter === undefined) throw new ReferenceError(`${name} is not defined`);
    return getter();
  };

  // -- values ------------------------------------------------------------------------------------
  const objects = [];  // what T holds handles to
  const objectIds = new Map();
  const callbacks = new Map();  // T's callback id -> our stand-in function
  const callbackIds = new WeakMap();
  const keep = (value) => {
    let id = objectIds.get(value);
    if (id === undefined) {
      id = objects.length;
      objects.push(value);
      objectIds.set(value, id);
    }
    return id;
  };
  function encode(value, depth, seen) {
    if (depth > MAX_DEPTH) throw new RangeError('the value is nested over 1000 levels');
    switch (typeof value) {
      case 'undefined': return { u: 0 };
      case 'boolean': case 'string': return value;
      case 'number':
        if (Number.isNaN(value)) return { n: 'NaN' };
        if (value === Infinity || value === -Infinity) return { n: String(value) };
        if (value === 0 && 1 / value < 0) return { n: '-0' };
        return value;
      case 'bigint': return { b: String(value) };
      case 'symbol': return { h: keep(value) };
      case 'function': return callbackIds.has(value) ? { c: callbackIds.get(value) } : { f: keep(value) };
      default: break;
    }
    if (value === null) return null;
    if (seen.has(value)) throw new TypeError('a cyclic value cannot be returned to the tests');
    seen.add(value);
    try {
      depth += 1;
      if (Array.isArray(value)) {
        const out = [];
        for (let i = 0; i < value.length; i++) out.push(encode(value[i], depth, seen));
        return { a: out };
      }
      if (value instanceof Map) return { m: [...value].map(([k, v]) => [encode(k, depth, seen), encode(v, depth, seen)]) };
      if (value instanceof Set) return { s: [...value].map((item) => encode(item, depth, seen)) };
      if (value instanceof Date) { const time = value.getTime(); return { d: Number.isNaN(time) ? null : time }; }
      const prototype = Object.getPrototypeOf(value);
      if (prototype === Object.prototype || prototype === null) {
        const out = Object.keys(value).map((k) => [k, encode(value[k], depth, seen)]);
        return prototype === null ? { z: out } : { o: out };
      }
      return { h: keep(value) };
    } finally {
      seen.delete(value);
    }
  }
  const NUMBERS = { NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity, '-0': -0 };
  const pairs = (list) => list.map(([k, v]) => [decode(k), decode(v)]);
  function decode(value) {
    if (value === null || typeof value !== 'object') return value;
    const [tag] = Object.keys(value);
    const body = value[tag];
    switch (tag) {
      case 'u': return undefined;
      case 'n': return NUMBERS[body];
      case 'b': return BigInt(body);
      case 'a': return body.map(decode);
      case 's': return new Set(body.map(decode));
      case 'm': return new Map(pairs(body));
      case 'o': return Object.fromEntries(pairs(body));
      case 'z': return Object.assign(Object.create(null), Object.fromEntries(pairs(body)));
      case 'd': return new Date(body === null ? NaN : body);
      case 'h': case 'f': return objects[body];
      case 'n': return resolve(body);  // one of our top-level functions, passed back by name
      case 'c': return standIn(body);
      default: throw new TypeError('malformed value');
    }
  }
  const standIn = (id) => {
    let fn = callbacks.get(id);
    if (fn === undefined) {
      fn = function (...args) {  // T's function: called with data, answers data
        send({ op: 'cb', id, args: args.map((a) => encode(a, 0, new Set())) });
        return wait();
      };
      callbacks.set(id, fn);
      callbackIds.set(fn, id);
    }
    return fn;
  };
  const errorReply = (error) => {
    let name = 'Error', message = '';
    try {
      if (error instanceof Error) { name = String(error.name); message = String(error.message); } else { message = `${String(error)} was thrown`; }
    } catch (_) { message = 'a value that is not an Error was thrown'; }
    return { op: 'err', name, message };
  };

  // -- serving T -----------------------------------------------------------------------------------
  const target = (ref) => (typeof ref.n === 'string' ? resolve(ref.n) : objects[ref.h]);
  function serve(message) {
    let reply;
    try {
      const object = target(message.ref);
      let result;
      switch (message.op) {
        case 'call': result = Reflect.apply(object, decode(message.self), message.args.map(decode)); break;
        case 'new': result = Reflect.construct(object, message.args.map(decode)); break;
        case 'get': result = message.key === null ? object : object[message.key]; break;
        case 'has': result = Object(object) === object && message.key in object; break;
        case 'iter': result = Array.from(object); break;
        case 'instanceof': result = decode(message.value) instanceof object; break;
        case 'keys': result = Object(object) === object ? Object.keys(object) : []; break;
        case 'own': result = Object(object) === object && Object.prototype.propertyIsEnumerable.call(object, message.key)
          ? [object[message.key]] : []; break;
        default: throw new TypeError(`unknown request ${message.op}`);
      }
      reply = { op: 'ret', v: encode(result, 0, new Set()) };
    } catch (error) {
      reply = errorReply(error);
    }
    send(reply);
  }
  function wait() {  // the answer to our call of one of T's callbacks; T may call us meanwhile
    for (;;) {
      const message = receive();
      if (message.op === 'ret') return decode(message.v);
      if (message.op === 'err') {
        const error = new Error(message.message);
        error.name = message.name;
        throw error;
      }
      serve(message);
    }
  }

  send({ op: 'ready', names: names.map((n) => { try { return [n, typeof resolve(n) === 'function']; } catch (_) { return [n, false]; } }) });
  for (;;) serve(receive());
})();
