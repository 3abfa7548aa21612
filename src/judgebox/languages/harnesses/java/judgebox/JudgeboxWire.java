package judgebox;

import java.io.*;
import java.lang.reflect.*;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.*;

/**
 * Values as tagged data between the program's JVM (S) and the tests' JVM (T), compiled into both sides.
 * A frame is a 4-byte length and its bytes. Only a closed set of data types crosses: null, the boxed
 * primitives, String, BigInteger, BigDecimal, arrays, lists, sets, maps and Optional of those; anything
 * else is a handle (an index into the sending side's kept objects) with its class name. Every value is
 * rebuilt by the receiving side's own code into its own JDK classes, chosen by the type it expects, so
 * nothing of the sender's (no subclass, no overridden equals) survives the crossing. Whatever arrives
 * is checked; a bad message is a {@link JudgeboxProgramError} (T never trusts S).
 */
abstract class JudgeboxWire {
    static final int MAX_FRAME = 64 << 20;
    static final int MAX_DEPTH = 200;

    final DataInputStream in;
    final DataOutputStream out;

    JudgeboxWire(InputStream in, OutputStream out) {
        this.in = new DataInputStream(new BufferedInputStream(in, 1 << 16));
        this.out = new DataOutputStream(new BufferedOutputStream(out, 1 << 16));
    }

    /** The channel: an inherited socket at fd 7 (a socket cannot be opened through /proc/self/fd; the JVM
     * runs with java.io opened to the harness for this one constructor). */
    static FileDescriptor channelDescriptor() {
        try {
            Constructor<FileDescriptor> make = FileDescriptor.class.getDeclaredConstructor(int.class);
            make.setAccessible(true);
            return make.newInstance(7);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("no channel at fd 7", e);
        }
    }

    // -- frames

    void send(ByteArrayOutputStream frame) throws IOException {
        out.writeInt(frame.size());
        frame.writeTo(out);
        out.flush();
    }

    ByteBuffer receive() throws IOException {
        int size = in.readInt();
        if (size < 0 || size > MAX_FRAME) throw new JudgeboxProgramError("a message of " + size + " bytes");
        byte[] data = new byte[size];
        in.readFully(data);
        return new ByteBuffer(data);
    }

    /** A bounded reader over one frame: every count is checked against what is left. */
    static final class ByteBuffer {
        final byte[] data;
        int at;

        ByteBuffer(byte[] data) { this.data = data; }

        int left() { return data.length - at; }

        void need(long n) {
            if (n < 0 || n > left()) throw new JudgeboxProgramError("a truncated message");
        }

        byte b() { need(1); return data[at++]; }
        int i() { need(4); int v = ((data[at] & 0xff) << 24) | ((data[at + 1] & 0xff) << 16) | ((data[at + 2] & 0xff) << 8) | (data[at + 3] & 0xff); at += 4; return v; }
        long j() { long hi = i() & 0xffffffffL; long lo = i() & 0xffffffffL; return (hi << 32) | lo; }
        short s() { need(2); short v = (short) (((data[at] & 0xff) << 8) | (data[at + 1] & 0xff)); at += 2; return v; }

        int count() {
            int n = i();
            need(n);  // every item takes at least a byte
            return n;
        }

        byte[] bytes() {
            int n = count();
            byte[] v = Arrays.copyOfRange(data, at, at + n);
            at += n;
            return v;
        }

        String str() { return new String(bytes(), StandardCharsets.UTF_8); }

        void end() {
            if (left() != 0) throw new JudgeboxProgramError("a message with trailing bytes");
        }
    }

    static void writeStr(DataOutputStream o, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        o.writeInt(b.length);
        o.write(b);
    }

    // -- encoding

    /** Something that is not data: a handle (S) or a refusal (T). */
    abstract void encodeOther(DataOutputStream o, Object value) throws IOException;

    /** A handle from the other side, as the object it stands for here. */
    abstract Object decodeHandle(int id, String className, Type expected);

    void encode(DataOutputStream o, Object v, int depth) throws IOException {
        if (depth > MAX_DEPTH) throw new IllegalArgumentException("a value nested deeper than " + MAX_DEPTH);
        if (v == null) { o.writeByte('n'); return; }
        Class<?> c = v.getClass();
        if (c == Boolean.class) { o.writeByte('z'); o.writeByte((Boolean) v ? 1 : 0); }
        else if (c == Integer.class) { o.writeByte('i'); o.writeInt((Integer) v); }
        else if (c == Long.class) { o.writeByte('j'); o.writeLong((Long) v); }
        else if (c == Double.class) { o.writeByte('d'); o.writeLong(Double.doubleToRawLongBits((Double) v)); }
        else if (c == String.class) { o.writeByte('S'); writeStr(o, (String) v); }
        else if (c == Character.class) { o.writeByte('c'); o.writeChar((Character) v); }
        else if (c == Float.class) { o.writeByte('f'); o.writeInt(Float.floatToRawIntBits((Float) v)); }
        else if (c == Short.class) { o.writeByte('s'); o.writeShort((Short) v); }
        else if (c == Byte.class) { o.writeByte('b'); o.writeByte((Byte) v); }
        else if (c == BigInteger.class) { o.writeByte('I'); byte[] b = ((BigInteger) v).toByteArray(); o.writeInt(b.length); o.write(b); }
        else if (c == BigDecimal.class) { o.writeByte('D'); writeStr(o, ((BigDecimal) v).toString()); }
        else if (c.isArray()) encodeArray(o, v, depth);
        else if (c == Optional.class) {
            Optional<?> opt = (Optional<?>) v;
            o.writeByte('O');
            o.writeByte(opt.isPresent() ? 1 : 0);
            if (opt.isPresent()) encode(o, opt.get(), depth + 1);
        }
        else if (v instanceof Map) {
            Map<?, ?> m = (Map<?, ?>) v;
            o.writeByte('M');
            o.writeByte(v instanceof SortedMap ? 1 : 0);
            List<Map.Entry<?, ?>> entries = new ArrayList<>(m.entrySet());
            o.writeInt(entries.size());
            for (Map.Entry<?, ?> e : entries) { encode(o, e.getKey(), depth + 1); encode(o, e.getValue(), depth + 1); }
        }
        else if (v instanceof Set) { o.writeByte('T'); o.writeByte(v instanceof SortedSet ? 1 : 0); encodeItems(o, (Collection<?>) v, depth); }
        else if (v instanceof Collection) { o.writeByte('L'); encodeItems(o, (Collection<?>) v, depth); }
        else encodeOther(o, v);
    }

    private void encodeItems(DataOutputStream o, Collection<?> items, int depth) throws IOException {
        Object[] all = items.toArray();
        o.writeInt(all.length);
        for (Object item : all) encode(o, item, depth + 1);
    }

    private void encodeArray(DataOutputStream o, Object v, int depth) throws IOException {
        Class<?> component = v.getClass().getComponentType();
        int n = Array.getLength(v);
        o.writeByte('[');
        char kind = component.isPrimitive() ? PRIMITIVE_TAGS.charAt(PRIMITIVES.indexOf(component)) : 'L';
        o.writeByte(kind);
        o.writeInt(n);
        for (int k = 0; k < n; k++) {
            Object item = Array.get(v, k);
            if (kind == 'L') encode(o, item, depth + 1);
            else encodePrimitive(o, kind, item);
        }
    }

    static final List<Class<?>> PRIMITIVES = List.of(boolean.class, byte.class, short.class, char.class, int.class,
            long.class, float.class, double.class);
    static final List<Class<?>> BOXES = List.of(Boolean.class, Byte.class, Short.class, Character.class,
            Integer.class, Long.class, Float.class, Double.class);
    static final String PRIMITIVE_TAGS = "zbscijfd";

    private static void encodePrimitive(DataOutputStream o, char kind, Object item) throws IOException {
        switch (kind) {
            case 'z': o.writeByte((Boolean) item ? 1 : 0); break;
            case 'b': o.writeByte((Byte) item); break;
            case 's': o.writeShort((Short) item); break;
            case 'c': o.writeChar((Character) item); break;
            case 'i': o.writeInt((Integer) item); break;
            case 'j': o.writeLong((Long) item); break;
            case 'f': o.writeInt(Float.floatToRawIntBits((Float) item)); break;
            default: o.writeLong(Double.doubleToRawLongBits((Double) item));
        }
    }

    private static Object decodePrimitive(ByteBuffer b, char kind) {
        switch (kind) {
            case 'z': { byte v = b.b(); if (v != 0 && v != 1) throw new JudgeboxProgramError("a boolean that is not 0 or 1"); return v == 1; }
            case 'b': return b.b();
            case 's': return b.s();
            case 'c': return (char) b.s();
            case 'i': return b.i();
            case 'j': return b.j();
            case 'f': return Float.intBitsToFloat(b.i());
            case 'd': return Double.longBitsToDouble(b.j());
            default: throw new JudgeboxProgramError("an unknown primitive tag");
        }
    }

    // -- decoding

    /** The raw class of a type (a type variable or a wildcard: its first bound). */
    static Class<?> raw(Type t) {
        if (t instanceof Class) return (Class<?>) t;
        if (t instanceof ParameterizedType) return raw(((ParameterizedType) t).getRawType());
        if (t instanceof GenericArrayType) return Array.newInstance(raw(((GenericArrayType) t).getGenericComponentType()), 0).getClass();
        if (t instanceof WildcardType) return raw(((WildcardType) t).getUpperBounds()[0]);
        if (t instanceof TypeVariable) return raw(((TypeVariable<?>) t).getBounds()[0]);
        return Object.class;
    }

    /** The i-th type argument of ``t`` as a supertype ``of`` (``List<X>`` -> X), or Object. */
    static Type argument(Type t, Class<?> of, int i) {
        Type found = find(t, of, new HashSet<>());
        if (found instanceof ParameterizedType) {
            Type[] args = ((ParameterizedType) found).getActualTypeArguments();
            if (i < args.length) return args[i];
        }
        return Object.class;
    }

    private static Type find(Type t, Class<?> of, Set<Type> seen) {
        if (t == null || !seen.add(t)) return null;
        Class<?> r = raw(t);
        if (r == of) return t;
        if (t instanceof WildcardType || t instanceof TypeVariable) return find(r, of, seen);
        for (Type s : r.getGenericInterfaces()) { Type f = find(s, of, seen); if (f != null) return f; }
        return find(r.getGenericSuperclass(), of, seen);
    }

    static Class<?> box(Class<?> c) {
        int k = PRIMITIVES.indexOf(c);
        return k < 0 ? c : BOXES.get(k);
    }

    private static final List<Class<?>> LISTS = List.of(ArrayList.class, LinkedList.class, ArrayDeque.class, Stack.class);
    private static final List<Class<?>> SETS = List.of(LinkedHashSet.class, TreeSet.class);
    private static final List<Class<?>> SORTED_SETS = List.of(TreeSet.class, LinkedHashSet.class);
    private static final List<Class<?>> MAPS = List.of(LinkedHashMap.class, TreeMap.class);
    private static final List<Class<?>> SORTED_MAPS = List.of(TreeMap.class, LinkedHashMap.class);

    @SuppressWarnings("unchecked")
    private static <T> T make(List<Class<?>> candidates, Class<?> expected, String what) {
        for (Class<?> c : candidates) {
            if (expected.isAssignableFrom(c)) {
                try { return (T) c.getConstructor().newInstance(); }
                catch (ReflectiveOperationException e) { throw new IllegalStateException(e); }
            }
        }
        throw new JudgeboxProgramError("the program gave " + what + " where " + expected.getName() + " is expected");
    }

    Object decode(ByteBuffer b, Type expected, int depth) {
        if (depth > MAX_DEPTH) throw new JudgeboxProgramError("a value nested deeper than " + MAX_DEPTH);
        Class<?> r = raw(expected);
        char tag = (char) (b.b() & 0xff);
        Object v;
        switch (tag) {
            case 'n':
                if (r.isPrimitive()) throw new JudgeboxProgramError("the program gave null where " + r + " is expected");
                return null;
            case 'z': case 'b': case 's': case 'c': case 'i': case 'j': case 'f': case 'd':
                v = decodePrimitive(b, tag); break;
            case 'S': v = b.str().intern(); break;  // the tests may compare with == against a literal
            case 'I': { byte[] bytes = b.bytes(); if (bytes.length == 0) throw new JudgeboxProgramError("an empty BigInteger"); v = new BigInteger(bytes); break; }
            case 'D':
                try { v = new BigDecimal(b.str()); } catch (NumberFormatException e) { throw new JudgeboxProgramError("a malformed BigDecimal"); }
                break;
            case '[': v = decodeArray(b, expected, r, depth); break;
            case 'O': {
                if (!r.isAssignableFrom(Optional.class)) throw new JudgeboxProgramError("the program gave an Optional where " + r.getName() + " is expected");
                byte present = b.b();
                v = present == 0 ? Optional.empty() : Optional.ofNullable(decode(b, argument(expected, Optional.class, 0), depth + 1));
                break;
            }
            case 'L': {
                Collection<Object> c = make(LISTS, r, "a list");
                Type item = argument(expected, Collection.class, 0);
                int n = b.count();
                for (int k = 0; k < n; k++) c.add(decode(b, item, depth + 1));
                v = c;
                break;
            }
            case 'T': {
                Collection<Object> c = make(b.b() == 1 ? SORTED_SETS : SETS, r, "a set");
                Type item = argument(expected, Collection.class, 0);
                int n = b.count();
                try {
                    for (int k = 0; k < n; k++) c.add(decode(b, item, depth + 1));
                } catch (ClassCastException e) {
                    throw new JudgeboxProgramError("a sorted set of items without an order");
                }
                v = c;
                break;
            }
            case 'M': {
                Map<Object, Object> m = make(b.b() == 1 ? SORTED_MAPS : MAPS, r, "a map");
                Type key = argument(expected, Map.class, 0), value = argument(expected, Map.class, 1);
                int n = b.count();
                try {
                    for (int k = 0; k < n; k++) { Object kk = decode(b, key, depth + 1); m.put(kk, decode(b, value, depth + 1)); }
                } catch (ClassCastException e) {
                    throw new JudgeboxProgramError("a sorted map of keys without an order");
                }
                v = m;
                break;
            }
            case 'H': {
                int id = b.i();
                String name = b.str();
                v = decodeHandle(id, name, expected);
                break;
            }
            default:
                throw new JudgeboxProgramError("an unknown value tag " + (int) tag);
        }
        if (!box(r).isInstance(v)) {
            throw new JudgeboxProgramError("the program gave a " + v.getClass().getName() + " where " + r.getName() + " is expected");
        }
        return v;
    }

    private Object decodeArray(ByteBuffer b, Type expected, Class<?> r, int depth) {
        char kind = (char) (b.b() & 0xff);
        int n = b.count();
        Class<?> component;
        Type componentType;
        if (r.isArray()) {
            component = r.getComponentType();
            componentType = expected instanceof GenericArrayType ? ((GenericArrayType) expected).getGenericComponentType() : component;
        } else if (kind == 'L') {
            component = Object.class;
            componentType = Object.class;
        } else {
            int k = PRIMITIVE_TAGS.indexOf(kind);
            if (k < 0) throw new JudgeboxProgramError("an array of an unknown kind");
            component = PRIMITIVES.get(k);
            componentType = component;
        }
        Object array = Array.newInstance(component, n);
        for (int k = 0; k < n; k++) {
            Object item = kind == 'L' ? decode(b, componentType, depth + 1) : decodePrimitive(b, kind);
            if (item != null && !box(component).isInstance(item)) {
                throw new JudgeboxProgramError("an array item of the wrong type");
            }
            if (item == null && component.isPrimitive()) throw new JudgeboxProgramError("a null in a primitive array");
            Array.set(array, k, item);
        }
        return array;
    }
}

/** The other side broke the protocol or gave what the tests cannot take: an ordinary failure of the tests. */
class JudgeboxProgramError extends RuntimeException {
    JudgeboxProgramError(String message) { super(message); }
}
