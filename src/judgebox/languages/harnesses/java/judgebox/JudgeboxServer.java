package judgebox;

import java.io.*;
import java.lang.reflect.*;
import java.nio.file.*;
import java.util.*;

/**
 * The program's side (S): answers the tests' requests over /proc/self/fd/7 by reflection on the program's
 * classes. Objects that are not data stay here, kept behind handles. Also, with --describe, prints the
 * program's classes and their members for the stubs of the tests' side (a hostile program may print
 * anything instead: the judge checks every line).
 *
 * Requests: 'N' construct, 'C' call (handle or -1, class, method, parameter classes, arguments),
 * 'E' equals of two handles, 'H' hashCode, 'S' toString. Replies: 'V' value, or 'X' class and message.
 */
public final class JudgeboxServer extends JudgeboxWire {
    static final int MAX_MESSAGE_CHARS = 2000;
    private final List<Object> kept = new ArrayList<>();
    private final IdentityHashMap<Object, Integer> keptIndex = new IdentityHashMap<>();

    JudgeboxServer(InputStream in, OutputStream out) { super(in, out); }

    public static void main(String[] args) throws Exception {
        if (args.length == 2 && args[0].equals("--describe")) {
            describe(Paths.get(args[1]));
            return;
        }
        JudgeboxServer server = new JudgeboxServer(new FileInputStream(channelDescriptor()), new FileOutputStream(channelDescriptor()));
        server.serve();
    }

    void serve() throws IOException {
        while (true) {
            ByteBuffer request;
            try { request = receive(); } catch (EOFException e) { return; }
            ByteArrayOutputStream reply = new ByteArrayOutputStream();
            DataOutputStream o = new DataOutputStream(reply);
            try {
                Object value = perform(request);
                o.writeByte('V');
                if (value != null && !declared.isArray() && isProgram(declared)) encodeOther(o, value);  // an object of its declared class
                else encode(o, value, 0);
            } catch (Throwable t) {
                if (t instanceof InvocationTargetException && t.getCause() != null) t = t.getCause();
                reply.reset();
                o.writeByte('X');
                writeStr(o, t.getClass().getName());
                String message;
                try { message = String.valueOf(t.getMessage()); } catch (Throwable u) { message = "?"; }
                if (message.length() > MAX_MESSAGE_CHARS) message = message.substring(0, MAX_MESSAGE_CHARS);
                writeStr(o, message);
            }
            send(reply);
        }
    }

    private Class<?> declared = Object.class;  // what the request's constructor or method declares it gives

    private Object perform(ByteBuffer b) throws Exception {
        declared = Object.class;
        char op = (char) b.b();
        switch (op) {
            case 'N': {
                Class<?> owner = load(b.str());
                Class<?>[] params = params(b);
                Constructor<?> c = owner.getDeclaredConstructor(params);
                c.setAccessible(true);
                declared = owner;
                return c.newInstance(arguments(b, c.getGenericParameterTypes()));
            }
            case 'C': {
                int handle = b.i();
                Class<?> owner = load(b.str());
                String name = b.str();
                Class<?>[] params = params(b);
                Method m = owner.getDeclaredMethod(name, params);
                m.setAccessible(true);
                declared = m.getReturnType();
                Object target = null;
                if (!Modifier.isStatic(m.getModifiers())) {
                    target = object(handle);
                    if (!owner.isInstance(target)) throw new IllegalArgumentException("not a " + owner.getName());
                }
                return m.invoke(target, arguments(b, m.getGenericParameterTypes()));
            }
            case 'E': { Object x = object(b.i()); return x.equals(object(b.i())); }
            case 'H': return object(b.i()).hashCode();
            case 'S': return String.valueOf(object(b.i()));
            default: throw new IllegalArgumentException("unknown request");
        }
    }

    private Object object(int handle) {
        if (handle < 0 || handle >= kept.size()) throw new IllegalArgumentException("no such handle");
        return kept.get(handle);
    }

    private Class<?>[] params(ByteBuffer b) throws ClassNotFoundException {
        int n = b.count();
        Class<?>[] params = new Class<?>[n];
        for (int k = 0; k < n; k++) params[k] = load(b.str());
        return params;
    }

    private Object[] arguments(ByteBuffer b, Type[] types) {
        int n = b.count();
        if (n != types.length) throw new IllegalArgumentException("wrong number of arguments");
        Object[] args = new Object[n];
        for (int k = 0; k < n; k++) args[k] = decode(b, types[k], 0);
        b.end();
        return args;
    }

    static Class<?> load(String name) throws ClassNotFoundException {
        int k = List.of("boolean", "byte", "short", "char", "int", "long", "float", "double").indexOf(name);
        if (k >= 0) return PRIMITIVES.get(k);
        return Class.forName(name, false, JudgeboxServer.class.getClassLoader());
    }

    @Override
    void encodeOther(DataOutputStream o, Object value) throws IOException {
        Integer index = keptIndex.get(value);
        if (index == null) {
            index = kept.size();
            kept.add(value);
            keptIndex.put(value, index);
        }
        o.writeByte('H');
        o.writeInt(index);
        writeStr(o, value.getClass().getName());
    }

    @Override
    Object decodeHandle(int id, String className, Type expected) { return object(id); }

    // -- describe

    static void describe(Path classes) throws IOException {
        List<String> names = new ArrayList<>();
        try (var walk = Files.walk(classes)) {
            walk.filter(p -> p.toString().endsWith(".class")).forEach(p -> {
                String rel = classes.relativize(p).toString();
                if (!rel.contains("/")) names.add(rel.substring(0, rel.length() - 6));
            });
        }
        Collections.sort(names);
        StringBuilder out = new StringBuilder();
        for (String name : names) {
            Class<?> c;
            try { c = Class.forName(name, false, JudgeboxServer.class.getClassLoader()); }
            catch (Throwable t) { continue; }
            if (c.isAnonymousClass() || c.isLocalClass() || c.isSynthetic()) continue;
            try { describe(c, out); } catch (Throwable t) { /* a class reflection cannot read: no stub */ }
        }
        System.out.print(out);
    }

    private static void describe(Class<?> c, StringBuilder out) {
        StringBuilder line = new StringBuilder();
        line.append("C\t").append(c.getName()).append('\t').append(c.getModifiers()).append('\t');
        line.append(c.isInterface() ? "i" : c.isEnum() ? "e" : c.isMemberClass() && !Modifier.isStatic(c.getModifiers()) ? "inner" : "c");
        line.append('\t');
        Class<?> sup = c.getSuperclass();
        line.append(sup != null && isProgram(sup) ? sup.getName() : "-");
        line.append('\t').append(typeParams(c.getTypeParameters())).append('\n');
        StringBuilder members = new StringBuilder();
        for (Constructor<?> k : c.getDeclaredConstructors()) {
            if (k.isSynthetic() || Modifier.isPrivate(k.getModifiers())) continue;
            members.append("K\t").append(k.getModifiers()).append('\t').append(typeParams(k.getTypeParameters()));
            for (Type p : k.getGenericParameterTypes()) members.append('\t').append(render(p));
            members.append('\n');
        }
        for (Method m : c.getDeclaredMethods()) {
            if (m.isSynthetic() || m.isBridge() || Modifier.isPrivate(m.getModifiers())) continue;
            members.append("M\t").append(m.getModifiers()).append('\t').append(m.getName()).append('\t')
                    .append(typeParams(m.getTypeParameters())).append('\t').append(render(m.getGenericReturnType()));
            for (Type p : m.getGenericParameterTypes()) members.append('\t').append(render(p));
            members.append('\n');
        }
        out.append(line).append(members);
    }

    static boolean isProgram(Class<?> c) {
        while (c.isArray()) c = c.getComponentType();
        return !c.isPrimitive() && c.getClassLoader() == JudgeboxServer.class.getClassLoader()
                && !c.getName().startsWith("judgebox.");
    }

    private static String typeParams(TypeVariable<?>[] vars) {
        if (vars.length == 0) return "";
        StringBuilder s = new StringBuilder("<");
        for (int k = 0; k < vars.length; k++) {
            if (k > 0) s.append(", ");
            s.append(vars[k].getName());
            Type[] bounds = vars[k].getBounds();
            if (bounds.length > 0 && !(bounds.length == 1 && bounds[0] == Object.class)) {
                s.append(" extends ");
                for (int j = 0; j < bounds.length; j++) s.append(j > 0 ? " & " : "").append(render(bounds[j]));
            }
        }
        return s.append('>').toString();
    }

    static String render(Type t) {
        if (t instanceof Class) {
            Class<?> c = (Class<?>) t;
            if (c.isArray()) return render(c.getComponentType()) + "[]";
            if (c.isPrimitive()) return c.getName();
            if (isProgram(c)) return "@" + c.getName();
            String canonical = c.getCanonicalName();
            return canonical == null ? "java.lang.Object" : canonical;
        }
        if (t instanceof ParameterizedType) {
            ParameterizedType p = (ParameterizedType) t;
            StringBuilder s = new StringBuilder(render(p.getRawType())).append('<');
            Type[] args = p.getActualTypeArguments();
            for (int k = 0; k < args.length; k++) s.append(k > 0 ? ", " : "").append(render(args[k]));
            return s.append('>').toString();
        }
        if (t instanceof GenericArrayType) return render(((GenericArrayType) t).getGenericComponentType()) + "[]";
        if (t instanceof WildcardType) {
            WildcardType w = (WildcardType) t;
            if (w.getLowerBounds().length > 0) return "? super " + render(w.getLowerBounds()[0]);
            Type upper = w.getUpperBounds()[0];
            return upper == Object.class ? "?" : "? extends " + render(upper);
        }
        if (t instanceof TypeVariable) return ((TypeVariable<?>) t).getName();
        return "java.lang.Object";
    }
}
