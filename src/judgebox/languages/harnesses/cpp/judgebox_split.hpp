// judgebox: the two sides of a C/C++ assert case (see judgebox/languages/cpp_split/).
// Values cross the channel (fd 7) as data, encoded by their static type, which both sides know: the
// program's side (the program's object + a generated dispatcher) and the tests' side (the tests + generated
// stubs) are built from the same signatures. Messages: a u32 length, then the payload. A request is the
// function's index and its arguments; a reply is a status byte (0: the value, then the new values of any
// non-const reference arguments; 1: the program threw, then what()). The tests' side trusts nothing it
// reads: every length is checked against what is left of the message, a bool is 0 or 1.
// C++11: the cpp11 language builds this too.
#ifndef JUDGEBOX_SPLIT_HPP
#define JUDGEBOX_SPLIT_HPP
// (not bits/stdc++.h: the generated sources include it first, precompiled, and a second include of it
// would look for the header beside the precompiled one)
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>
#include <unistd.h>
#include <errno.h>
#include <sys/socket.h>

namespace judgebox {

const int CHANNEL = 7;
const uint32_t MAX_MESSAGE = 256u << 20;

struct Malformed {
    const char* what;
};

struct Writer {
    std::string data;
    void raw(const void* p, size_t n) { data.append(static_cast<const char*>(p), n); }
    void u8(uint8_t v) { raw(&v, 1); }
    void u32(uint32_t v) { raw(&v, 4); }
    void u64(uint64_t v) { raw(&v, 8); }
};

struct Reader {
    const char* p;
    const char* end;
    explicit Reader(const std::string& s) : p(s.data()), end(s.data() + s.size()) {}
    size_t left() const { return static_cast<size_t>(end - p); }
    void raw(void* out, size_t n) {
        if (n > left()) throw Malformed{"a value runs past the end of its message"};
        if (n) std::memcpy(out, p, n);
        p += n;
    }
    uint8_t u8() { uint8_t v; raw(&v, 1); return v; }
    uint32_t u32() { uint32_t v; raw(&v, 4); return v; }
    uint64_t u64() { uint64_t v; raw(&v, 8); return v; }
    // a count of items that each take at least one byte: never more than what is left
    size_t count() {
        uint64_t n = u64();
        if (n > left()) throw Malformed{"a count larger than its message"};
        return static_cast<size_t>(n);
    }
    void finish() const {
        if (p != end) throw Malformed{"bytes left over after the values"};
    }
};

template <class T, class Enable = void> struct Codec;  // no definition: a type the harness does not know

template <class T> void put(Writer& w, const T& v) { Codec<T>::put(w, v); }
template <class T> void get(Reader& r, T& v) { Codec<T>::get(r, v); }

template <class T>
struct Codec<T, typename std::enable_if<std::is_arithmetic<T>::value && !std::is_same<T, bool>::value>::type> {
    static void put(Writer& w, const T& v) { w.raw(&v, sizeof v); }
    static void get(Reader& r, T& v) { r.raw(&v, sizeof v); }
};

template <> struct Codec<bool> {
    static void put(Writer& w, const bool& v) { w.u8(v ? 1 : 0); }
    static void get(Reader& r, bool& v) {
        uint8_t b = r.u8();
        if (b > 1) throw Malformed{"a bool that is neither 0 nor 1"};
        v = b == 1;
    }
};

template <> struct Codec<std::string> {
    static void put(Writer& w, const std::string& v) { w.u64(v.size()); w.raw(v.data(), v.size()); }
    static void get(Reader& r, std::string& v) {
        size_t n = r.count();
        v.assign(r.p, n);
        r.p += n;
    }
};

template <class T> struct Codec<std::vector<T> > {
    static void put(Writer& w, const std::vector<T>& v) {
        w.u64(v.size());
        for (typename std::vector<T>::const_iterator i = v.begin(); i != v.end(); ++i) judgebox::put(w, static_cast<const T&>(*i));
    }
    static void get(Reader& r, std::vector<T>& v) {
        size_t n = r.count();
        v.clear();
        v.reserve(n);
        for (size_t i = 0; i < n; ++i) {
            T item;
            judgebox::get(r, item);
            v.push_back(item);
        }
    }
};

template <class A, class B> struct Codec<std::pair<A, B> > {
    static void put(Writer& w, const std::pair<A, B>& v) { judgebox::put(w, v.first); judgebox::put(w, v.second); }
    static void get(Reader& r, std::pair<A, B>& v) { judgebox::get(r, v.first); judgebox::get(r, v.second); }
};

template <size_t I, class... T> struct TupleItems {
    static void put(Writer& w, const std::tuple<T...>& v) {
        TupleItems<I - 1, T...>::put(w, v);
        judgebox::put(w, std::get<I - 1>(v));
    }
    static void get(Reader& r, std::tuple<T...>& v) {
        TupleItems<I - 1, T...>::get(r, v);
        judgebox::get(r, std::get<I - 1>(v));
    }
};
template <class... T> struct TupleItems<0, T...> {
    static void put(Writer&, const std::tuple<T...>&) {}
    static void get(Reader&, std::tuple<T...>&) {}
};
template <class... T> struct Codec<std::tuple<T...> > {
    static void put(Writer& w, const std::tuple<T...>& v) { TupleItems<sizeof...(T), T...>::put(w, v); }
    static void get(Reader& r, std::tuple<T...>& v) { TupleItems<sizeof...(T), T...>::get(r, v); }
};

template <class C> struct Associative {  // map, set, unordered_map, unordered_set: count, then the items
    typedef typename C::value_type Item;
    typedef typename std::remove_const<typename C::key_type>::type Key;
    static void put(Writer& w, const C& v) {
        w.u64(v.size());
        for (typename C::const_iterator i = v.begin(); i != v.end(); ++i) putItem(w, *i);
    }
    static void get(Reader& r, C& v) {
        size_t n = r.count();
        v.clear();
        for (size_t i = 0; i < n; ++i) getItem(r, v);
    }
    template <class K, class V> static void putItem(Writer& w, const std::pair<const K, V>& item) {
        judgebox::put(w, item.first);
        judgebox::put(w, item.second);
    }
    template <class K> static void putItem(Writer& w, const K& item) { judgebox::put(w, item); }
    template <class K, class V> static void getInto(Reader& r, C& v, std::pair<const K, V>*) {
        K key;
        V value;
        judgebox::get(r, key);
        judgebox::get(r, value);
        v.insert(Item(key, value));
    }
    template <class K> static void getInto(Reader& r, C& v, K*) {
        K key;
        judgebox::get(r, key);
        v.insert(key);
    }
    static void getItem(Reader& r, C& v) { getInto(r, v, static_cast<Item*>(0)); }
};
template <class K, class V> struct Codec<std::map<K, V> > : Associative<std::map<K, V> > {};
template <class K> struct Codec<std::set<K> > : Associative<std::set<K> > {};
template <class K, class V> struct Codec<std::unordered_map<K, V> > : Associative<std::unordered_map<K, V> > {};
template <class K> struct Codec<std::unordered_set<K> > : Associative<std::unordered_set<K> > {};

// C strings (a C program's char* arguments and results): present?, then the bytes
inline void putCString(Writer& w, const char* s) {
    w.u8(s != 0);
    if (s) {
        size_t n = std::strlen(s);
        w.u64(n);
        w.raw(s, n);
    }
}
inline bool getCString(Reader& r, std::string& s) {
    uint8_t present = r.u8();
    if (present > 1) throw Malformed{"a string that is neither present nor absent"};
    if (!present) return false;
    get(r, s);
    return true;
}

// -- the channel

inline bool readExactly(int fd, char* p, size_t n, bool eofOk) {  // false: EOF before the first byte
    size_t got = 0;
    while (got < n) {
        ssize_t r = ::read(fd, p + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            if (got == 0 && eofOk) return false;
            throw Malformed{"the other side closed the channel"};
        }
        got += static_cast<size_t>(r);
    }
    return true;
}

inline void send(const std::string& payload) {
    uint32_t n = static_cast<uint32_t>(payload.size());
    std::string frame(reinterpret_cast<const char*>(&n), 4);
    frame += payload;
    size_t done = 0;
    while (done < frame.size()) {
        ssize_t r = ::send(CHANNEL, frame.data() + done, frame.size() - done, MSG_NOSIGNAL);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) throw Malformed{"the other side closed the channel"};
        done += static_cast<size_t>(r);
    }
}

inline bool receive(std::string& payload, bool eofOk) {
    uint32_t n;
    if (!readExactly(CHANNEL, reinterpret_cast<char*>(&n), 4, eofOk)) return false;
    if (n > MAX_MESSAGE) throw Malformed{"a message larger than the channel allows"};
    payload.resize(n);
    if (n) readExactly(CHANNEL, &payload[0], n, false);
    return true;
}

// -- the tests' side: the stubs call these

[[noreturn]] inline void testsFail(const char* why) {
    std::string m = std::string("judgebox: ") + why + "\n";
    if (::write(2, m.data(), m.size()) < 0) {}
    ::_exit(1);
}

// Send a request, wait for the reply; a value comes back as a Reader over ``reply`` (after the status).
inline Reader call(const Writer& request, std::string& reply) {
    send(request.data);
    receive(reply, false);
    Reader r(reply);
    uint8_t status = r.u8();
    if (status == 0) return r;
    if (status == 1) {
        std::string message;
        get(r, message);
        if (message.size() > 2000) message.resize(2000);
        std::string why = "the program's function threw: " + message;
        testsFail(why.c_str());
    }
    throw Malformed{"a reply with an unknown status"};
}

// -- the program's side: the generated dispatcher's main calls this

typedef void (*Handler)(Reader&, Writer&);

[[noreturn]] inline void serve(const Handler* handlers, uint32_t count) {
    std::string message;
    for (;;) {
        try {
            if (!receive(message, true)) break;
        } catch (...) {
            break;
        }
        Reader r(message);
        Writer w;
        try {
            uint32_t index = r.u32();
            if (index >= count) break;
            w.u8(0);
            handlers[index](r, w);
        } catch (const Malformed&) {
            break;
        } catch (const std::exception& e) {
            w = Writer();
            w.u8(1);
            put(w, std::string(e.what()));
        } catch (...) {
            w = Writer();
            w.u8(1);
            put(w, std::string("an exception that is not a std::exception"));
        }
        std::fflush(stdout);
        std::cout.flush();
        try {
            send(w.data);
        } catch (...) {
            break;
        }
    }
    std::fflush(stdout);
    std::cout.flush();
    ::_exit(0);
}

}  // namespace judgebox
#endif
