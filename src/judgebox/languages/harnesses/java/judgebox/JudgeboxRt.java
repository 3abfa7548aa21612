package judgebox;

import java.io.*;
import java.lang.reflect.*;
import java.nio.charset.StandardCharsets;
import java.util.*;

/**
 * The tests' side (T): runs the tests' {@code Main.main} against stubs of the program's classes
 * (generated, in {@code JudgeboxStubs}) whose every constructor and method asks the program's process
 * over /proc/self/fd/7 and rebuilds the answer from data. No program code is in this JVM. The pass
 * ("asserts" and the token from fd 4, into fd 3) is written only after the tests' main returned. When the
 * program's JVM ends while the tests wait on it, its status (sent by the shell that ran it: 'Q' and a byte)
 * is the run's, as in one process; no pass is written.
 */
public final class JudgeboxRt extends JudgeboxWire {
    static final String STUBS = "judgebox.JudgeboxStubs$";
    static final int MAX_MESSAGE_CHARS = 2000;
    private static JudgeboxRt channel;

    private JudgeboxRt(InputStream in, OutputStream out) { super(in, out); }

    public static void main(String[] args) {
        boolean passed = false;
        try {
            channel = new JudgeboxRt(new FileInputStream(channelDescriptor()), new FileOutputStream(channelDescriptor()));
            Class<?> tests = Class.forName("Main", true, JudgeboxRt.class.getClassLoader());
            Method main = tests.getDeclaredMethod("main", String[].class);
            main.setAccessible(true);
            try {
                main.invoke(null, (Object) new String[0]);
            } catch (InvocationTargetException e) {
                throw e.getCause() == null ? e : e.getCause();
            }
            passed = true;
        } catch (Throwable t) {
            try {
                System.err.println("judgebox: the tests failed: " + t);
                t.printStackTrace();
            } catch (Throwable ignored) {
            }
        }
        System.out.flush();
        System.err.flush();
        try (FileOutputStream report = new FileOutputStream("/proc/self/fd/3")) {
            if (passed) {
                byte[] token;
                try (FileInputStream in = new FileInputStream("/proc/self/fd/4")) { token = in.readAllBytes(); }
                report.write("asserts\n".getBytes(StandardCharsets.US_ASCII));
                report.write(token);
            } else {
                report.write("assertion-failed\n".getBytes(StandardCharsets.US_ASCII));
            }
        } catch (Throwable t) {
            Runtime.getRuntime().halt(70);
        }
        Runtime.getRuntime().halt(passed ? 0 : 1);
    }

    // -- what the stubs call

    public static Method method(Class<?> owner, String name, Class<?>... params) {
        try { return owner.getDeclaredMethod(name, params); }
        catch (NoSuchMethodException e) { throw new IllegalStateException(e); }
    }

    public static Constructor<?> constructor(Class<?> owner, Class<?>... params) {
        try { return owner.getDeclaredConstructor(params); }
        catch (NoSuchMethodException e) { throw new IllegalStateException(e); }
    }

    public static JudgeboxHandle construct(Constructor<?> c, Object[] args) {
        Object made = channel.ask(o -> {
            o.writeByte('N');
            writeStr(o, programName(c.getDeclaringClass()));
            channel.writeParams(o, c.getParameterTypes(), args);
        }, Object.class, true);
        return new JudgeboxHandle(((JudgeboxStub) made).judgeboxHandle.id);
    }

    public static Object call(Method m, Object self, Object[] args) {
        int handle = self == null ? -1 : ((JudgeboxStub) self).judgeboxHandle.id;
        Type returns = m.getGenericReturnType();
        Object value = channel.ask(o -> {
            o.writeByte('C');
            o.writeInt(handle);
            writeStr(o, programName(m.getDeclaringClass()));
            writeStr(o, m.getName());
            channel.writeParams(o, m.getParameterTypes(), args);
        }, returns == void.class ? Object.class : returns, false);
        return returns == void.class ? null : value;
    }

    static Object ofHandle(char op, int a, int b, Type expected) {
        return channel.ask(o -> { o.writeByte(op); o.writeInt(a); if (op == 'E') o.writeInt(b); }, expected, false);
    }

    private void writeParams(DataOutputStream o, Class<?>[] params, Object[] args) throws IOException {
        o.writeInt(params.length);
        for (Class<?> p : params) writeStr(o, programName(p));
        o.writeInt(args.length);
        for (Object a : args) encode(o, a, 0);
    }

    /** The program's name for a class of the stubs' signatures (a stub: its program class). */
    static String programName(Class<?> c) {
        return c.getName().replace(STUBS, "");
    }

    private interface Request { void write(DataOutputStream o) throws IOException; }

    private synchronized Object ask(Request request, Type expected, boolean construct) {
        try {
            ByteArrayOutputStream frame = new ByteArrayOutputStream();
            request.write(new DataOutputStream(frame));
            try {
                send(frame);
            } catch (IOException e) {  // the program's JVM has gone: its status may follow
            }
            ByteBuffer reply = receive();
            char kind = (char) reply.b();
            if (kind == 'Q' && reply.left() == 1) {  // the program's JVM ended (System.exit, a crash): its status
                int status = reply.b() & 0xff;   // is the run's, and nothing passes
                System.out.flush();
                System.err.println("judgebox: the program's process ended with status " + status + " while the tests ran");
                Runtime.getRuntime().halt(status);
            }
            if (kind == 'X') {
                String name = reply.str(), message = reply.str();
                reply.end();
                throw new JudgeboxProgramException(cut(name, 200) + ": " + cut(message, MAX_MESSAGE_CHARS));
            }
            if (kind != 'V') throw new JudgeboxProgramError("a reply that is neither a value nor an exception");
            Object value;
            if (construct) {  // a new object of the class being constructed: only its handle is wanted
                if (reply.b() != 'H') throw new JudgeboxProgramError("a construction that did not give an object of the program's");
                value = new JudgeboxOpaque(new JudgeboxHandle(reply.i()));
                reply.str();
            } else {
                value = decode(reply, expected, 0);
            }
            reply.end();
            return value;
        } catch (EOFException e) {
            throw new JudgeboxProgramError("the program's process ended");
        } catch (IOException e) {
            throw new JudgeboxProgramError("the channel to the program failed: " + e);
        }
    }

    private static String cut(String s, int n) { return s.length() > n ? s.substring(0, n) : s; }

    @Override
    void encodeOther(DataOutputStream o, Object value) throws IOException {
        if (value instanceof JudgeboxStub) {
            JudgeboxStub stub = (JudgeboxStub) value;
            o.writeByte('H');
            o.writeInt(stub.judgeboxHandle.id);
            writeStr(o, programName(stub.getClass()));
            return;
        }
        throw new IllegalArgumentException("a " + value.getClass().getName() + " cannot be passed to the program");
    }

    @Override
    Object decodeHandle(int id, String className, Type expected) {
        Class<?> r = raw(expected);
        Class<?> stub = null;
        if (className.matches("[A-Za-z0-9_$]{1,500}")) {
            try {
                Class<?> c = Class.forName(STUBS + className, false, JudgeboxRt.class.getClassLoader());
                if (JudgeboxStub.class.isAssignableFrom(c) && r.isAssignableFrom(c)) stub = c;
            } catch (ClassNotFoundException | LinkageError e) {
                // a class of the program without a stub: the declared type's stub stands for it
            }
        }
        if (stub == null && JudgeboxStub.class.isAssignableFrom(r) && r != JudgeboxStub.class) stub = r;
        if (stub == null) {
            if (r == Object.class) return new JudgeboxOpaque(new JudgeboxHandle(id));
            throw new JudgeboxProgramError("the program gave an object of its own where " + r.getName() + " is expected");
        }
        try {
            Constructor<?> c = stub.getDeclaredConstructor(JudgeboxHandle.class);
            c.setAccessible(true);
            return c.newInstance(new JudgeboxHandle(id));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }
}

/** The program's exception, reaching the tests as an ordinary RuntimeException (its name and message). */
class JudgeboxProgramException extends RuntimeException {
    JudgeboxProgramException(String message) { super("the program threw " + message); }
}

/** Which object of the program's process a stub stands for. */
final class JudgeboxHandle {
    final int id;

    JudgeboxHandle(int id) { this.id = id; }
}

/** The base of every stub: equality, hash and text are the program's, but only between its own objects. */
abstract class JudgeboxStub {
    final JudgeboxHandle judgeboxHandle;

    protected JudgeboxStub(JudgeboxHandle handle) { this.judgeboxHandle = handle; }

    @Override
    public final boolean equals(Object other) {
        if (other == this) return true;
        if (!(other instanceof JudgeboxStub)) return false;
        return (Boolean) JudgeboxRt.ofHandle('E', judgeboxHandle.id, ((JudgeboxStub) other).judgeboxHandle.id, boolean.class);
    }

    @Override
    public final int hashCode() { return (Integer) JudgeboxRt.ofHandle('H', judgeboxHandle.id, 0, int.class); }

    @Override
    public final String toString() { return (String) JudgeboxRt.ofHandle('S', judgeboxHandle.id, 0, String.class); }
}

/** An object of the program's whose class the tests have no stub for. */
final class JudgeboxOpaque extends JudgeboxStub {
    JudgeboxOpaque(JudgeboxHandle handle) { super(handle); }
}
