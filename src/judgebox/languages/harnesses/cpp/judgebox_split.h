/* judgebox: the tests' side of a C assert case (see judgebox_split.hpp for the protocol, which this
   speaks too: the program's side is the same C++ dispatcher). The generated stubs include this after the
   standard headers. Every read is bounded by its message; any failure ends the tests' process (exit 1). */
#ifndef JUDGEBOX_SPLIT_H
#define JUDGEBOX_SPLIT_H
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#define JUDGEBOX_CHANNEL 7
#define JUDGEBOX_MAX_MESSAGE (256u << 20)

typedef struct { char* data; size_t size, capacity; } judgebox_writer;
typedef struct { const char* p; const char* end; char* message; } judgebox_reader;

static __attribute__((noreturn)) void judgebox_fail(const char* why) {
    static const char head[] = "judgebox: ";
    if (write(2, head, sizeof head - 1) < 0 || write(2, why, strlen(why)) < 0 || write(2, "\n", 1) < 0) {}
    _exit(1);
}

static void judgebox_raw(judgebox_writer* w, const void* p, size_t n) {
    if (w->size + n > w->capacity) {
        size_t capacity = (w->size + n) * 2 + 64;
        char* data = (char*)realloc(w->data, capacity);
        if (!data) judgebox_fail("out of memory");
        w->data = data;
        w->capacity = capacity;
    }
    if (n) memcpy(w->data + w->size, p, n);
    w->size += n;
}

static void judgebox_u32(judgebox_writer* w, uint32_t v) { judgebox_raw(w, &v, 4); }
static void judgebox_u64(judgebox_writer* w, uint64_t v) { judgebox_raw(w, &v, 8); }
static void judgebox_put_bool(judgebox_writer* w, _Bool v) { uint8_t b = v ? 1 : 0; judgebox_raw(w, &b, 1); }
static void judgebox_put_cstring(judgebox_writer* w, const char* s) {  /* present?, length, bytes */
    uint8_t present = s != 0;
    judgebox_raw(w, &present, 1);
    if (s) { size_t n = strlen(s); judgebox_u64(w, n); judgebox_raw(w, s, n); }
}

static void judgebox_get_raw(judgebox_reader* r, void* out, size_t n) {
    if (n > (size_t)(r->end - r->p)) judgebox_fail("a value runs past the end of its message");
    if (n) memcpy(out, r->p, n);
    r->p += n;
}
static _Bool judgebox_get_bool(judgebox_reader* r) {
    uint8_t b;
    judgebox_get_raw(r, &b, 1);
    if (b > 1) judgebox_fail("a bool that is neither 0 nor 1");
    return b == 1;
}
static char* judgebox_get_cstring(judgebox_reader* r) {  /* a fresh NUL-terminated copy, or NULL */
    uint8_t present;
    uint64_t n;
    char* s;
    judgebox_get_raw(r, &present, 1);
    if (present > 1) judgebox_fail("a string that is neither present nor absent");
    if (!present) return 0;
    judgebox_get_raw(r, &n, 8);
    if (n > (uint64_t)(r->end - r->p)) judgebox_fail("a string longer than its message");
    s = (char*)malloc((size_t)n + 1);
    if (!s) judgebox_fail("out of memory");
    judgebox_get_raw(r, s, (size_t)n);
    s[n] = 0;
    return s;
}
/* a char* argument the program may have changed: its new contents, at most as long as it was */
static void judgebox_get_back(judgebox_reader* r, char* s) {
    char* changed = judgebox_get_cstring(r);
    if (s && changed) { size_t n = strlen(s), m = strlen(changed); memcpy(s, changed, m < n ? m : n); if (m < n) s[m] = 0; }
    free(changed);
}
static void judgebox_finish(judgebox_reader* r) {
    if (r->p != r->end) judgebox_fail("bytes left over after the values");
    free(r->message);
}

static void judgebox_read_exactly(char* p, size_t n) {
    size_t got = 0;
    while (got < n) {
        ssize_t k = read(JUDGEBOX_CHANNEL, p + got, n - got);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) judgebox_fail("the program's process ended during a call");
        got += (size_t)k;
    }
}

static judgebox_reader judgebox_call(judgebox_writer* request) {
    uint32_t n = (uint32_t)request->size;
    size_t done = 0;
    judgebox_reader r;
    uint8_t status;
    char header[4];
    memcpy(header, &n, 4);
    while (done < 4 + request->size) {
        const char* from = done < 4 ? header + done : request->data + (done - 4);
        size_t left = done < 4 ? 4 - done : request->size - (done - 4);
        ssize_t k = send(JUDGEBOX_CHANNEL, from, left, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) judgebox_fail("the program's process ended during a call");
        done += (size_t)k;
    }
    free(request->data);
    judgebox_read_exactly((char*)&n, 4);
    if (n > JUDGEBOX_MAX_MESSAGE) judgebox_fail("a message larger than the channel allows");
    r.message = (char*)malloc(n ? n : 1);
    if (!r.message) judgebox_fail("out of memory");
    judgebox_read_exactly(r.message, n);
    r.p = r.message;
    r.end = r.message + n;
    judgebox_get_raw(&r, &status, 1);
    if (status == 1) judgebox_fail("the program's function failed (an exception in its process)");
    if (status != 0) judgebox_fail("a reply with an unknown status");
    return r;
}
#endif
