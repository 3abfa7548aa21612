// judgebox: the tests' process (T) of a JavaScript/TypeScript assert case. It never runs program code.
// fds: 1/2 the case's stdout/stderr, 3 the result, 4 the pass token, 6 the tests, 7 the channel to the
// program's process (S). Every program name the tests use is a proxy whose calls go to S; results come
// back as data (undefined, null, booleans, numbers, BigInt, strings, arrays, plain objects, Map, Set,
// Date); anything else of S stays there behind a handle T can only call or read properties of, by
// asking S. T's functions cross to S as call-only callbacks. The pass is written here, only after the
// tests ran to their end ('beforeExit') with no assertion failed and no promise left pending.
'use strict';
(() => {
  // -- everything T uses, captured before the tests run --------------------------------------------
  const fs = require('fs');
  const vm = require('vm');
  const v8 = require('v8');
  const util = require('util');
  const assertModule = require('assert');
  const Module = require('module');
  const { AssertionError } = assertModule;
  const { readSync, writeSync, readFileSync } = fs;
  const { compileFunction } = vm;
  const { isMap, isSet, isDate, isProxy } = util.types;
  const { parse: jsonParse, stringify: jsonStringify } = JSON;
  const { defineProperty, create, keys: objectKeys, getPrototypeOf, getOwnPropertyNames, freeze } = Object;
  const { isArray } = Array;
  const { apply, construct } = Reflect;
  const { isSafeInteger } = Number;
  const ObjectPrototype = Object.prototype;
  const BufferFrom = Buffer.from, BufferAlloc = Buffer.alloc, BufferConcat = Buffer.concat;
  const uncurry = (f) => (self, ...args) => apply(f, self, args);
  const push = uncurry(Array.prototype.push), join = uncurry(Array.prototype.join);
  const mapGet = uncurry(Map.prototype.get), mapSet = uncurry(Map.prototype.set), mapHas = uncurry(Map.prototype.has);
  const mapEntries = uncurry(Map.prototype.entries), setValues = uncurry(Set.prototype.values);
  const setAdd = uncurry(Set.prototype.add), setHas = uncurry(Set.prototype.has), setDelete = uncurry(Set.prototype.delete);
  const weakGet = uncurry(WeakMap.prototype.get), weakSet = uncurry(WeakMap.prototype.set);
  const weakHas = uncurry(WeakMap.prototype.has);
  const dateGetTime = uncurry(Date.prototype.getTime);
  const readUInt32BE = uncurry(Buffer.prototype.readUInt32BE), writeUInt32BE = uncurry(Buffer.prototype.writeUInt32BE);
  const bufToString = uncurry(Buffer.prototype.toString);
  const stringOf = String, BigIntOf = BigInt, NumberIsNaN = Number.isNaN;
  const regexTest = uncurry(RegExp.prototype.test);
  const arrayFrom = Array.from;
  const exit = process.exit.bind(process);
  const once = process.once.bind(process), on = process.on.bind(process);
  const report = console.error.bind(console);
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  const nap = () => Atomics.wait(sleeper, 0, 0, 1);
  const ERRORS = Object.assign(Object.create(null), { Error, TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError });
  const MAX_MESSAGE = 64 << 20, MAX_DEPTH = 1000, MAX_TEXT = 1 << 16;
  const RESULT = 3, TOKEN = 4, TESTS = 6, CHANNEL = 7;

  let failures = 0;
  let finished = false;
  let scope = null;  // the program's names, as the tests see them

  const writeAll = (fd, buffer) => {
    let offset = 0;
    while (offset < buffer.length) {
      try {
        offset += writeSync(fd, buffer, offset, buffer.length - offset);
      } catch (error) {
        if (error && error.code === 'EAGAIN') { nap(); continue; }
        throw error;
      }
    }
  };
  const note = (text) => writeAll(RESULT, BufferFrom(text));
  const fail = () => { finished = true; note('assertion-failed\n'); exit(1); };
  const die = (why) => { finished = true; report(`judgebox: ${why}`); exit(1); };

  // -- the channel: 4-byte big-endian length, then UTF-8 JSON -------------------------------------
  const readExact = (size) => {
    const buffer = BufferAlloc(size);
    let offset = 0;
    while (offset < size) {
      let got;
      try {
        got = readSync(CHANNEL, buffer, offset, size - offset, null);
      } catch (error) {
        if (error && error.code === 'EAGAIN') { nap(); continue; }
        if (error && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) return null;
        throw error;
      }
      if (got === 0) return null;
      offset += got;
    }
    return buffer;
  };
  const send = (message) => {
    const body = BufferFrom(jsonStringify(message), 'utf8');
    const header = BufferAlloc(4);
    writeUInt32BE(header, body.length, 0);
    try {
      writeAll(CHANNEL, BufferConcat([header, body]));
    } catch (error) {
      gone();
    }
  };
  const gone = () => die('the program\'s process ended while the tests were running');
  const receive = () => {
    const header = readExact(4);
    if (header === null) gone();
    const size = readUInt32BE(header, 0);
    if (size > MAX_MESSAGE) throw new RangeError('the program sent a value larger than 64 MiB');
    const body = readExact(size);
    if (body === null) gone();
    const message = jsonParse(bufToString(body, 'utf8'));
    if (message === null || typeof message !== 'object' || isArray(message) || typeof message.op !== 'string') {
      throw new TypeError('the program\'s process sent a malformed message');
    }
    if (message.op === 'exit') {  // the program ended (process.exit or an uncaught error): its status is the run's
      finished = true;
      const code = message.code;
      exit(isSafeInteger(code) && code >= 0 && code <= 255 ? code : 1);
    }
    return message;
  };

  // -- S's values in T: data, or handles ---------------------------------------------------------
  const malformed = () => new TypeError('the program\'s process sent a malformed value');
  const handleOf = new WeakMap();  // handle proxy -> [tag, id]
  const handles = new Map();  // 'f' + id / 'h' + id -> proxy
  const callbacks = new Map();  // id -> T's function (what S may call)
  const callbackIds = new Map();  // T's function -> id
  const text = (value) => {
    if (typeof value !== 'string') throw malformed();
    return value.length > MAX_TEXT ? value.slice(0, MAX_TEXT) + '...' : value;
  };
  const programError = (name, message) => {
    const error = new (ERRORS[name] && name !== 'Error' ? ERRORS[name] : Error)(text(message));
    if (!ERRORS[name]) defineProperty(error, 'name', { value: text(name), writable: true, configurable: true });
    return error;
  };

  const handle = (tag, id) => {
    if (!isSafeInteger(id) || id < 0) throw malformed();
    const key = tag + id;
    let proxy = mapGet(handles, key);
    if (proxy === undefined) {
      proxy = makeProxy(tag === 'f', { h: id });
      mapSet(handles, key, proxy);
      weakSet(handleOf, proxy, [tag, id]);
    }
    return proxy;
  };

  // A proxy whose every answer comes from S: only calls and string-keyed reads reach it; its keys,
  // prototype and descriptors are empty, and it cannot be changed from T.
  function makeProxy(callable, ref) {
    const target = callable ? function () {}.bind() : create(null);
    return new Proxy(target, {
      get(_, key) {
        if (key === Symbol.iterator) return iterate(ref);
        if (key === Symbol.hasInstance) return callable ? instanceOf(ref) : undefined;
        if (typeof key === 'symbol') return undefined;
        if (key === 'then') return undefined;  // S's promises are never awaited: S has no event loop
        return request({ op: 'get', ref, key });
      },
      has(_, key) { return typeof key === 'string' && request({ op: 'has', ref, key }) === true; },
      apply(_, self, args) {  // called as a plain function from the tests, ``this`` is their scope: not sent
        return request({ op: 'call', ref, self: encode(self === scope ? undefined : self, 0, new Set(), true), args: encodeArgs(args) });
      },
      construct(_, args) { return request({ op: 'new', ref, args: encodeArgs(args) }); },
      ownKeys() { return ownKeys(ref); },  // S's own enumerable string keys, as data
      getOwnPropertyDescriptor(_, key) {
        if (typeof key !== 'string') return undefined;
        const found = request({ op: 'own', ref, key });
        if (!isArray(found) || found.length !== 1) return undefined;
        return { value: found[0], writable: true, enumerable: true, configurable: true };
      },
      getPrototypeOf() { return null; },
      setPrototypeOf() { return false; },
      set() { return false; },
      defineProperty() { return false; },
      deleteProperty() { return false; },
      preventExtensions() { return false; },
      isExtensible() { return true; },
    });
  }
  const instanceOf = (ref) => (value) => request({ op: 'instanceof', ref, value: encode(value, 0, new Set(), true) }) === true;
  const ownKeys = (ref) => {
    const keys = request({ op: 'keys', ref });
    if (!isArray(keys) || keys.length > 1e6) throw malformed();
    const unique = new Set();
    for (let i = 0; i < keys.length; i++) {
      if (typeof keys[i] !== 'string') throw malformed();
      setAdd(unique, keys[i]);
    }
    return arrayFrom(unique);
  };
  const iterate = (ref) => function () {
    const items = request({ op: 'iter', ref });
    if (!isArray(items)) throw malformed();
    return items[Symbol.iterator]();
  };

  const entriesOf = (list, depth) => {
    if (!isArray(list)) throw malformed();
    const out = [];
    for (let i = 0; i < list.length; i++) {
      const pair = list[i];
      if (!isArray(pair) || pair.length !== 2) throw malformed();
      push(out, [decode(pair[0], depth), decode(pair[1], depth)]);
    }
    return out;
  };
  const decodeList = (list, depth) => {
    if (!isArray(list)) throw malformed();
    const out = [];
    for (let i = 0; i < list.length; i++) push(out, decode(list[i], depth));
    return out;
  };
  const NUMBERS = Object.assign(create(null), { NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity, '-0': -0 });

  // What S sent, rebuilt from T's own constructors; anything outside the closed set is refused.
  function decode(value, depth) {
    if (depth > MAX_DEPTH) throw new RangeError('the program returned a value nested over 1000 levels');
    depth += 1;
    if (value === null || typeof value === 'boolean' || typeof value === 'string' || typeof value === 'number') return value;
    if (typeof value !== 'object' || isArray(value)) throw malformed();
    const tags = objectKeys(value);
    if (tags.length !== 1) throw malformed();
    const tag = tags[0], body = value[tag];
    switch (tag) {
      case 'u': return undefined;
      case 'n':
        if (typeof body !== 'string' || !(body in NUMBERS)) throw malformed();
        return NUMBERS[body];
      case 'b':
        if (typeof body !== 'string' || body.length > 100000 || !regexTest(/^-?[0-9]+$/, body)) throw malformed();
        return BigIntOf(body);
      case 'a': return decodeList(body, depth);
      case 's': { const set = new Set(); const items = decodeList(body, depth); for (let i = 0; i < items.length; i++) setAdd(set, items[i]); return set; }
      case 'm': { const map = new Map(); const items = entriesOf(body, depth); for (let i = 0; i < items.length; i++) mapSet(map, items[i][0], items[i][1]); return map; }
      case 'o': case 'z': {
        const object = tag === 'o' ? {} : create(null);
        const items = entriesOf(body, depth);
        for (let i = 0; i < items.length; i++) {
          if (typeof items[i][0] !== 'string') throw malformed();
          defineProperty(object, items[i][0], { value: items[i][1], writable: true, enumerable: true, configurable: true });
        }
        return object;
      }
      case 'd':
        if (body !== null && typeof body !== 'number') throw malformed();
        return new Date(body === null ? NaN : body);
      case 'h': case 'f': return handle(tag, body);
      case 'c': {  // one of T's own callbacks, handed back
        if (!isSafeInteger(body) || !mapHas(callbacks, body)) throw malformed();
        return mapGet(callbacks, body);
      }
      default: throw malformed();
    }
  }

  // -- T's values to S: data, S's own handles, or call-only callbacks ------------------------------
  const encodeArgs = (args) => {
    const out = [];
    for (let i = 0; i < args.length; i++) push(out, encode(args[i], 0, new Set(), true));
    return out;
  };
  const callback = (value) => {
    let id = mapGet(callbackIds, value);
    if (id === undefined) {
      id = callbacks.size;
      mapSet(callbacks, id, value);
      mapSet(callbackIds, value, id);
    }
    return { c: id };
  };
  // ``lend``: T's functions (and other objects that are not data) may cross as callbacks; a callback's
  // own result must be data (or S's handles).
  function encode(value, depth, seen, lend) {
    if (depth > MAX_DEPTH) throw new RangeError('a value nested over 1000 levels cannot be passed to the program');
    switch (typeof value) {
      case 'undefined': return { u: 0 };
      case 'boolean': case 'string': return value;
      case 'number':
        if (NumberIsNaN(value)) return { n: 'NaN' };
        if (value === Infinity) return { n: 'Infinity' };
        if (value === -Infinity) return { n: '-Infinity' };
        if (value === 0 && 1 / value < 0) return { n: '-0' };
        return value;
      case 'bigint': return { b: stringOf(value) };
      case 'symbol': throw new TypeError('a symbol cannot be passed to the program');
      default: break;
    }
    if (value === null) return null;
    if (weakHas(handleOf, value)) { const [tag, id] = weakGet(handleOf, value); return { [tag]: id }; }  // S's own
    if (isProxy(value)) return refuse(value, lend);
    if (typeof value === 'function') return refuse(value, lend);
    if (setHas(seen, value)) throw new TypeError('a cyclic value cannot be passed to the program');
    setAdd(seen, value);
    try {
      depth += 1;
      if (isArray(value)) {
        const out = [];
        for (let i = 0; i < value.length; i++) push(out, encode(value[i], depth, seen, lend));
        return { a: out };
      }
      if (isMap(value)) {
        const out = [];
        for (const [k, v] of arrayFrom(mapEntries(value))) push(out, [encode(k, depth, seen, lend), encode(v, depth, seen, lend)]);
        return { m: out };
      }
      if (isSet(value)) {
        const out = [];
        for (const item of arrayFrom(setValues(value))) push(out, encode(item, depth, seen, lend));
        return { s: out };
      }
      if (isDate(value)) { const time = dateGetTime(value); return { d: NumberIsNaN(time) ? null : time }; }
      const prototype = getPrototypeOf(value);
      if (prototype === ObjectPrototype || prototype === null) {
        const out = [];
        const names = objectKeys(value);
        for (let i = 0; i < names.length; i++) push(out, [names[i], encode(value[names[i]], depth, seen, lend)]);
        return prototype === null ? { z: out } : { o: out };
      }
      return refuse(value, lend);
    } finally {
      setDelete(seen, value);
    }
  }
  const refuse = (value, lend) => {
    if (lend) return callback(value);
    throw new TypeError('a callback of the tests returned a value that is not data');
  };

  // -- one request to S; S may call T's callbacks while T waits ------------------------------------
  function request(message) {
    send(message);
    for (;;) {
      const answer = receive();
      if (answer.op === 'ret') return decode(answer.v, 0);
      if (answer.op === 'err') throw programError(answer.name, answer.message);
      if (answer.op === 'cb') { serveCallback(answer); continue; }
      throw new TypeError('the program\'s process sent a malformed message');
    }
  }
  function serveCallback(message) {
    let reply;
    try {
      if (!isSafeInteger(message.id) || !mapHas(callbacks, message.id)) throw malformed();
      const fn = mapGet(callbacks, message.id);
      const args = decodeList(message.args, 0);
      reply = { op: 'ret', v: encode(apply(fn, undefined, args), 0, new Set(), false) };
    } catch (error) {
      if (error instanceof AssertionError) {  // the program cannot swallow a failed assertion
        failures += 1;
        report(error);
        reply = { op: 'err', name: 'AssertionError', message: '' };
      } else {
        let name = 'Error', text = '';
        try { name = stringOf(error.name); text = stringOf(error.message); } catch (_) { /* not an Error */ }
        reply = { op: 'err', name, message: text };
      }
    }
    send(reply);
  }

  // -- the tests ------------------------------------------------------------------------------------
  const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
  const RESERVED = new Set(('break case catch class const continue debugger default delete do else enum export extends'
    + ' false finally for function if import in instanceof new null return super switch this throw true try typeof var'
    + ' void while with yield let static implements interface package private protected public await arguments eval'
    + ' undefined NaN Infinity globalThis require module exports __filename __dirname assert').split(' '));
  const globalNames = new Set(getOwnPropertyNames(globalThis));

  on('uncaughtException', (error) => {
    if (finished) return;
    report(error);
    if (error instanceof AssertionError) fail();
    die('the tests raised an error');
  });

  const ready = receive();
  if (ready.op !== 'ready' || !isArray(ready.names)) die('the program\'s process did not start');
  // The program's top-level names; those the tests' own world defines (globals, require, assert...)
  // give way to it.
  scope = create(null);
  for (let i = 0; i < ready.names.length; i++) {
    const entry = ready.names[i];
    if (!isArray(entry) || typeof entry[0] !== 'string' || !regexTest(IDENTIFIER, entry[0])) continue;
    const name = entry[0];
    if (RESERVED.has(name) || setHas(globalNames, name) || name in scope) continue;
    if (entry[1] === true) {
      const proxy = makeProxy(true, { n: name });
      weakSet(handleOf, proxy, ['n', name]);
      defineProperty(scope, name, { value: proxy, enumerable: true });
    } else {
      defineProperty(scope, name, { get: () => request({ op: 'get', ref: { n: name }, key: null }), enumerable: true });
    }
  }

  // The tests come prepared (js_prepare_tests.js: TypeScript transpiled, checked to compile).
  const filename = '/tmp/tests.js';
  let tests;
  try {
    tests = compileFunction(readFileSync(TESTS, 'utf8'), ['exports', 'require', 'module', '__filename', '__dirname'],
      { filename, contextExtensions: [scope] });
  } catch (error) {
    finished = true;
    note(`test-compile-error\n${stringOf(error && error.message)}`);
    exit(1);
  }

  defineProperty(console, 'assert', {
    enumerable: true, writable: false, configurable: false,
    value: (ok, ...message) => { if (!ok) { failures += 1; report('Assertion failed', ...message); } },
  });
  const pending = new Set();  // the tests' promises not yet settled: at the end, tests that never finished
  v8.promiseHooks.createHook({ init(promise) { setAdd(pending, promise); }, settled(promise) { setDelete(pending, promise); } });

  once('beforeExit', () => {
    if (finished) return;
    if (failures) fail();
    if (pending.size) die('the tests did not finish: a promise they wait on never settled');
    finished = true;
    const token = readFileSync(TOKEN);
    note('asserts\n');
    writeAll(RESULT, token);
    exit(0);
  });

  // The tests' require: Node's own modules, and modules of the system folders (which the program cannot
  // write). The work folder is the program's too: a module it planted there (/tmp/node_modules, or
  // $HOME/.node_modules with HOME=/tmp) must never load here, so resolution starts in /usr and the
  // global search paths outside /usr are dropped.
  const { globalPaths, isBuiltin, createRequire } = Module;
  for (let i = globalPaths.length - 1; i >= 0; i--) {
    if (!regexTest(/^\/usr\//, globalPaths[i])) apply(Array.prototype.splice, globalPaths, [i, 1]);
  }
  const systemRequire = createRequire('/usr/share/nodejs/');
  const testsRequire = (name) => {
    if (isBuiltin(name)) return require(name);
    const path = systemRequire.resolve(name);
    if (!regexTest(/^\/usr\//, path)) throw new Error(`the tests may require only Node's and the system's modules, not ${name}`);
    return systemRequire(name);
  };
  const module = { exports: {} };
  apply(tests, module.exports, [module.exports, testsRequire, module, filename, '/tmp']);
})();
