package perflab.internal;

import java.io.*;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import perflab.Blackhole;
import perflab.Level;

/** perflab's Java worker: protocol v2 over a loopback socket (see protocol/PROTOCOL.md). */
public final class Worker {
    static final int PROTOCOL_VERSION = 2;

    private final Socket sock;
    private final BufferedReader in;
    private final OutputStream out;
    private final Map<String, Model.Bench> benchmarks = new LinkedHashMap<>();
    private final Map<String, String> classFiles = new HashMap<>(); // top-level class name → source file
    private CaseState current;
    static volatile String activity = "starting";
    static volatile boolean leaving;

    /** One set-up case. */
    static final class CaseState {
        Model.Bench bench;
        Object instance;
        Harness harness;
        Blackhole bh = new Blackhole();
        boolean tieredUp;  // count mode: its loops compiled before the first counted run (CountRegion)
    }

    Worker(Socket sock) throws IOException {
        this.sock = sock;
        this.in = new BufferedReader(new InputStreamReader(sock.getInputStream(), StandardCharsets.UTF_8), 1 << 16);
        this.out = new BufferedOutputStream(sock.getOutputStream(), 1 << 16);
    }

    public static void main(String[] args) throws Exception {
        String addr = System.getenv("PERFLAB_CONNECT");
        if (addr == null || addr.isEmpty()) {
            System.err.println("perflab worker: PERFLAB_CONNECT is not set; this program is started by `perflab run`, not by hand");
            System.exit(2);
        }
        int colon = addr.lastIndexOf(':');
        Socket s = new Socket();
        s.setTcpNoDelay(true);
        s.connect(new InetSocketAddress(addr.substring(0, colon), Integer.parseInt(addr.substring(colon + 1))));
        Worker w = new Worker(s);
        Thread main = Thread.currentThread();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (!leaving && !w.reportExit(main)) {
                System.err.println("perflab: the JVM is exiting while the worker was " + activity
                        + " (System.exit or Runtime.exit called by the benchmark, or a signal)");
            }
        }));
        try {
            w.serve();
        } finally {
            leaving = true;
            try { s.close(); } catch (IOException ignored) { }
        }
        System.exit(0);
    }

    // ---------------------------------------------------------------------------------------------

    synchronized void send(Map<String, Object> msg) throws IOException {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("v", PROTOCOL_VERSION);
        m.putAll(msg);
        StringBuilder b = new StringBuilder(256);
        Json.write(b, m);
        b.append('\n');
        out.write(b.toString().getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    static Map<String, Object> map(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) m.put((String) kv[i], kv[i + 1]);
        return m;
    }

    void error(Object id, String kind, String message, Throwable t) throws IOException {
        Map<String, Object> err = map("kind", kind, "message", message);
        if (t != null) {
            StringWriter sw = new StringWriter();
            t.printStackTrace(new PrintWriter(sw));
            err.put("traceback", sw.toString());
            StackTraceElement f = userFrame(t);
            if (f != null) {
                err.put("file", sourceOf(f));
                err.put("line", f.getLineNumber());
            }
        }
        send(map("id", id, "type", "error", "error", err));
    }

    static boolean isUserFrame(StackTraceElement e) {
        String c = e.getClassName();
        return !(c.startsWith("java.") || c.startsWith("javax.") || c.startsWith("jdk.") || c.startsWith("sun.")
                || c.startsWith("com.sun.") || c.startsWith("perflab.") || c.contains(Model.HARNESS_MARK));
    }

    static StackTraceElement userFrame(Throwable t) {
        for (StackTraceElement e : t.getStackTrace()) if (isUserFrame(e)) return e;
        return null;
    }

    String sourceOf(StackTraceElement f) {
        String cls = f.getClassName();
        int d = cls.indexOf('$');
        if (d >= 0) cls = cls.substring(0, d);
        String file = classFiles.get(cls);
        return file != null ? file : String.valueOf(f.getFileName());
    }

    static Throwable unwrap(Throwable t) {
        while ((t instanceof InvocationTargetException || t instanceof ExceptionInInitializerError) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    // ---------------------------------------------------------------------------------------------

    void hello() throws IOException {
        List<String> caps = new ArrayList<>();
        if (allocSupported()) caps.add("alloc");
        caps.add("gc");
        if (diagnosticCommand() != null) caps.add("codesize");
        caps.add("with_overhead"); // a workload run may ask for an overhead iteration after each one
        caps.add("overhead_first"); // ... or before each one
        Map<String, Object> rt = map(
                "name", System.getProperty("java.vm.name", "Java"),
                "version", System.getProperty("java.runtime.version", System.getProperty("java.version")),
                "executable", Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "vendor", System.getProperty("java.vendor", ""),
                "vm_version", System.getProperty("java.vm.version", ""),
                "input_arguments", ManagementFactory.getRuntimeMXBean().getInputArguments(),
                "blackhole", Blackhole.compilerAssisted() ? "compiler" : "volatile");
        send(map("type", "hello", "token", Objects.toString(System.getenv("PERFLAB_TOKEN"), ""),
                "language", "java", "runtime", rt,
                "clock", map("resolution_ns", clockResolution(), "source", "System.nanoTime"),
                "cpu_clock", CpuClock.AVAILABLE
                        ? map("source", "ThreadMXBean.getCurrentThreadCpuTime", "scope", "thread",
                              "resolution_ns", CpuClock.resolution())
                        : null,
                "capabilities", caps, "unroll", 1, "pid", ProcessHandle.current().pid()));
    }

    static double clockResolution() {
        long best = Long.MAX_VALUE;
        for (int i = 0; i < 2000; i++) {
            long a = System.nanoTime(), b = System.nanoTime();
            while (b == a) b = System.nanoTime();
            best = Math.min(best, b - a);
        }
        return Math.max(1.0, (double) best);
    }

    private volatile Object inFlight; // id of the request being handled, while one is
    private volatile boolean handling;

    /** From the shutdown hook: if the benchmark called System.exit, answer the pending request with it. */
    boolean reportExit(Thread main) {
        if (!handling) return false;
        StackTraceElement[] st = main.getStackTrace();
        int exitAt = -1;
        for (int i = 0; i < st.length; i++) {
            String c = st[i].getClassName(), m = st[i].getMethodName();
            if ((c.equals("java.lang.System") || c.equals("java.lang.Runtime")) && (m.equals("exit") || m.equals("halt"))) {
                exitAt = i;
            }
        }
        if (exitAt < 0) return false; // a signal, not the benchmark
        StackTraceElement user = null;
        for (int i = exitAt + 1; i < st.length && user == null; i++) if (isUserFrame(st[i])) user = st[i];
        Map<String, Object> err = map("kind", "exception",
                "message", "System.exit called by the benchmark: the JVM cannot continue");
        StringBuilder tb = new StringBuilder();
        for (int i = exitAt; i < st.length; i++) tb.append("\tat ").append(st[i]).append('\n');
        err.put("traceback", tb.toString());
        if (user != null) {
            err.put("file", sourceOf(user));
            err.put("line", user.getLineNumber());
        }
        try {
            send(map("id", inFlight, "type", "error", "error", err));
            return true;
        } catch (IOException | RuntimeException e) {
            return false; // the host will see the exit status instead
        }
    }

    void serve() throws IOException {
        hello();
        String line;
        while ((line = in.readLine()) != null) {
            Object parsed;
            try {
                parsed = Json.parse(line);
            } catch (RuntimeException e) {
                error(null, "protocol", "malformed request: " + e.getMessage(), null);
                continue;
            }
            if (!(parsed instanceof Map)) {
                error(null, "protocol", "malformed request: not a JSON object", null);
                continue;
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> msg = (Map<String, Object>) parsed;
            Object id = msg.get("id");
            Object v = msg.get("v");
            if (!(v instanceof Long) || (Long) v != PROTOCOL_VERSION) {
                error(id, "version", "this worker speaks protocol v" + PROTOCOL_VERSION + ", got v" + v, null);
                return;
            }
            String type = String.valueOf(msg.get("type"));
            inFlight = id;
            handling = true;
            try {
                switch (type) {
                    case "load": onLoad(id, msg); break;
                    case "setup": onSetup(id, msg); break;
                    case "run": onRun(id, msg); break;
                    case "teardown": onTeardown(id); break;
                    case "bye":
                        leaving = true;
                        send(map("id", id, "type", "done"));
                        return;
                    default: error(id, "protocol", "unknown request type '" + type + "'", null);
                }
            } catch (BadRequest e) {
                error(id, "protocol", e.getMessage(), null);
            } finally {
                handling = false;
            }
        }
        leaving = true;
    }

    static final class BadRequest extends Exception {
        BadRequest(String m) { super(m); }
    }

    static Object field(Map<String, Object> msg, String name, Class<?> kind) throws BadRequest {
        if (!msg.containsKey(name)) throw new BadRequest("request '" + msg.get("type") + "' lacks field '" + name + "'");
        Object v = msg.get(name);
        if (!kind.isInstance(v)) {
            throw new BadRequest("field '" + name + "' of '" + msg.get("type") + "' must be " + kind.getSimpleName().toLowerCase(Locale.ROOT));
        }
        return v;
    }

    // ---- load -------------------------------------------------------------------------------------

    private static final Pattern PACKAGE = Pattern.compile("^\\s*package\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);
    private static final Pattern CLASS = Pattern.compile("\\b(?:class|enum|record)\\s+([A-Za-z_$][\\w$]*)");

    void onLoad(Object id, Map<String, Object> msg) throws IOException, BadRequest {
        activity = "loading benchmarks";
        List<?> paths = (List<?>) field(msg, "paths", List.class);
        List<Object> described = new ArrayList<>();
        List<Object> errors = new ArrayList<>();
        List<String> files = new ArrayList<>();
        for (Object p : paths) {
            Path path = Paths.get(String.valueOf(p)).toAbsolutePath();
            if (Files.isDirectory(path)) {
                try (java.util.stream.Stream<Path> s = Files.walk(path)) {
                    s.filter(f -> f.toString().endsWith(".java")).sorted().forEach(f -> files.add(f.toString()));
                }
            } else {
                files.add(path.toString());
            }
        }
        Map<String, Object> buildErrors = buildErrors();
        for (String file : files) {
            Object buildError = buildErrors.get(file);
            if (buildError != null) { // the host's build left this file out: javac rejected it
                errors.add(buildError);
                continue;
            }
            String text;
            try {
                text = new String(Files.readAllBytes(Paths.get(file)), StandardCharsets.UTF_8);
            } catch (IOException e) {
                errors.add(map("file", file, "line", 0, "kind", "load", "message", "cannot read: " + e));
                continue;
            }
            String stripped = stripComments(text);
            Matcher pm = PACKAGE.matcher(stripped);
            String pkg = pm.find() ? pm.group(1) + "." : "";
            Set<String> tops = new LinkedHashSet<>();
            String stem = Paths.get(file).getFileName().toString().replaceFirst("\\.java$", "");
            tops.add(stem);
            Matcher cm = CLASS.matcher(stripped);
            while (cm.find()) tops.add(cm.group(1));
            for (String top : tops) {
                Class<?> c;
                try {
                    c = Class.forName(pkg + top, false, Worker.class.getClassLoader());
                } catch (ClassNotFoundException | LinkageError e) {
                    if (top.equals(stem) && e instanceof LinkageError) {
                        errors.add(map("file", file, "line", 0, "kind", "load", "message", e.toString()));
                    }
                    continue;
                }
                if (c.getEnclosingClass() != null) continue;
                classFiles.put(c.getName(), file);
                List<Class<?>> all = new ArrayList<>();
                collect(c, all);
                for (Class<?> k : all) {
                    List<String> errs = new ArrayList<>();
                    List<Model.Bench> found;
                    try {
                        found = Model.scan(k, errs);
                    } catch (LinkageError e) {
                        errors.add(map("file", file, "line", 0, "kind", "load", "message", Model.groupName(k) + ": " + e));
                        continue;
                    }
                    for (String e : errs) errors.add(map("file", file, "line", 0, "kind", "load", "message", e));
                    for (Model.Bench b : found) {
                        b.file = file;
                        b.line = lineOf(text, b.method.getName());
                    }
                    found.sort(Comparator.comparingInt((Model.Bench b) -> b.line)); // source order
                    for (Model.Bench b : found) {
                        benchmarks.put(b.id, b);
                        described.add(describe(b));
                    }
                }
            }
        }
        activity = "idle";
        send(map("id", id, "type", "loaded", "benchmarks", described, "errors", errors));
    }

    /** Files javac rejected at build time (the others were built): file → `loaded.errors` entry. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> buildErrors() {
        Map<String, Object> out = new HashMap<>();
        String path = System.getenv("PERFLAB_JAVA_LOAD_ERRORS");
        if (path == null || path.isEmpty()) return out;
        try {
            Object doc = Json.parse(new String(Files.readAllBytes(Paths.get(path)), StandardCharsets.UTF_8));
            for (Object e : (List<Object>) doc) {
                Map<String, Object> m = (Map<String, Object>) e;
                out.put(String.valueOf(m.get("file")), m);
            }
        } catch (IOException | RuntimeException e) {
            System.err.println("perflab: cannot read " + path + ": " + e);
        }
        return out;
    }

    static void collect(Class<?> c, List<Class<?>> out) {
        out.add(c);
        Class<?>[] nested;
        try {
            nested = c.getDeclaredClasses();
        } catch (LinkageError e) {
            return;
        }
        Arrays.sort(nested, Comparator.comparing(Class::getName));
        for (Class<?> n : nested) collect(n, out);
    }

    static String stripComments(String text) {
        // keeps line structure: block comments become spaces, line comments are cut
        StringBuilder b = new StringBuilder(text.length());
        int i = 0, n = text.length();
        while (i < n) {
            char ch = text.charAt(i);
            if (ch == '/' && i + 1 < n && text.charAt(i + 1) == '*') {
                int end = text.indexOf("*/", i + 2);
                end = end < 0 ? n : end + 2;
                for (int k = i; k < end; k++) b.append(text.charAt(k) == '\n' ? '\n' : ' ');
                i = end;
            } else if (ch == '/' && i + 1 < n && text.charAt(i + 1) == '/') {
                while (i < n && text.charAt(i) != '\n') i++;
            } else if (ch == '"') {
                b.append(ch);
                i++;
                while (i < n && text.charAt(i) != '"' && text.charAt(i) != '\n') {
                    if (text.charAt(i) == '\\') { b.append(' '); i++; }
                    if (i < n) { b.append(text.charAt(i) == '\n' ? '\n' : ' '); i++; }
                }
                if (i < n) { b.append(text.charAt(i)); i++; }
            } else {
                b.append(ch);
                i++;
            }
        }
        return b.toString();
    }

    public static int lineOf(String text, String method) {
        // a declaration: a type (word, generic or array) before the name, not `return name(` & co
        Pattern p = Pattern.compile("(\\w+|>|\\])\\s+" + Pattern.quote(method) + "\\s*\\(");
        String s = stripComments(text);
        Matcher m = p.matcher(s);
        boolean found = false;
        while (m.find()) {
            String before = m.group(1);
            if (!before.equals("return") && !before.equals("new") && !before.equals("throw")
                    && !before.equals("else") && !before.equals("case")) {
                found = true;
                break;
            }
        }
        if (!found) return 0;
        int line = 1;
        for (int i = 0; i < m.start(); i++) if (s.charAt(i) == '\n') line++;
        return line;
    }

    public static Map<String, Object> describe(Model.Bench b) {
        List<Object> params = new ArrayList<>();
        for (Model.Axis a : b.axes) params.add(map("name", a.field.getName(), "values", a.values));
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put("class", b.cls.getName());
        meta.putAll(b.meta);
        return map("id", b.id, "name", b.name, "group", b.group, "file", b.file, "line", b.line,
                "baseline", b.baseline, "categories", b.categories, "ops_per_invoke", b.ops,
                "params", params, "description", b.description, "iteration_setup", b.iterationSetup(),
                "meta", meta);
    }

    // ---- setup / teardown -------------------------------------------------------------------------

    void onSetup(Object id, Map<String, Object> msg) throws IOException, BadRequest {
        String bid = (String) field(msg, "benchmark", String.class);
        Object rawParams = msg.get("params");
        Map<?, ?> params = rawParams instanceof Map ? (Map<?, ?>) rawParams : Collections.emptyMap();
        Model.Bench b = benchmarks.get(bid);
        if (b == null) {
            error(id, "not_found", "no benchmark with id '" + bid + "'", null);
            return;
        }
        Object[] values = new Object[b.axes.size()];
        for (int i = 0; i < b.axes.size(); i++) {
            Model.Axis a = b.axes.get(i);
            Object idx = params.get(a.field.getName());
            if (!(idx instanceof Long) || (Long) idx < 0 || (Long) idx >= a.values.size()) {
                error(id, "not_found", bid + ": parameter '" + a.field.getName() + "' has no value #" + idx, null);
                return;
            }
            values[i] = Model.convert(a.field.getType(), a.values.get((int) (long) (Long) idx));
        }
        current = null;
        activity = "setting up " + bid;
        CaseState cs = new CaseState();
        cs.bench = b;
        try {
            Class<?> hc = Class.forName(b.harnessName(), true, Worker.class.getClassLoader());
            cs.harness = (Harness) hc.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | LinkageError e) {
            error(id, "exception", "the loop class of " + bid + " is missing (was it built by perflab?): " + e, e);
            return;
        }
        try {
            if (!b.isStatic || !b.setups.get(Level.Trial).isEmpty() || !b.axes.isEmpty()) {
                java.lang.reflect.Constructor<?> ctor = b.cls.getDeclaredConstructor();
                ctor.setAccessible(true);
                cs.instance = ctor.newInstance();
            }
            for (int i = 0; i < values.length; i++) {
                Field f = b.axes.get(i).field;
                f.setAccessible(true);
                f.set(java.lang.reflect.Modifier.isStatic(f.getModifiers()) ? null : cs.instance, values[i]);
            }
            for (Method m : b.setups.get(Level.Trial)) m.invoke(java.lang.reflect.Modifier.isStatic(m.getModifiers()) ? null : cs.instance);
        } catch (Throwable t) {
            Throwable u = unwrap(t);
            if (u instanceof NoSuchMethodException) {
                error(id, "exception", "setup failed: " + b.group + " needs a constructor without arguments", null);
            } else {
                error(id, "exception", "setup failed: " + u, u);
            }
            activity = "idle";
            return;
        }
        // The empty loop never runs the benchmark, so it is compiled now: the host times it only a few
        // times, and interpreted or half-compiled passes would inflate the overhead it subtracts.
        // The workload loop runs once with no calls: the interpreter resolves its clock-call sites on
        // their first execution (tens of microseconds), which would fall between the CPU-clock and the
        // wall-clock reads of the first timed iteration and make its CPU time exceed its wall time.
        try {
            for (int i = 0; i < 300; i++) cs.harness.overhead(cs.instance, 4000, cs.bh);
            cs.harness.workload(cs.instance, 0, cs.bh);
        } catch (Throwable ignored) {
            // an empty method cannot throw, and a loop of no calls calls nothing; nothing to report
        }
        current = cs;
        activity = "idle";
        System.gc();
        send(map("id", id, "type", "ready"));
    }

    void onTeardown(Object id) throws IOException {
        CaseState cs = current;
        current = null;
        if (cs != null) {
            activity = "tearing down " + cs.bench.id;
            try {
                hooks(cs, cs.bench.teardowns.get(Level.Trial));
            } catch (Throwable t) {
                Throwable u = unwrap(t);
                error(id, "exception", "teardown failed: " + u, u);
                activity = "idle";
                return;
            }
        }
        activity = "idle";
        send(map("id", id, "type", "done"));
    }

    static void hooks(CaseState cs, List<Method> ms) throws Throwable {
        for (Method m : ms) {
            try {
                m.invoke(java.lang.reflect.Modifier.isStatic(m.getModifiers()) ? null : cs.instance);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }
    }

    // ---- run --------------------------------------------------------------------------------------

    void onRun(Object id, Map<String, Object> msg) throws IOException, BadRequest {
        if (current == null) {
            error(id, "state", "run before setup", null);
            return;
        }
        String stage = (String) field(msg, "stage", String.class);
        long invocations = (Long) field(msg, "invocations", Long.class);
        long iterations = (Long) field(msg, "iterations", Long.class);
        if (invocations < 1 || iterations < 1) throw new BadRequest("invocations and iterations must be >= 1");
        if (iterations > 100_000_000L) throw new BadRequest("too many iterations");
        Object rawWithOverhead = msg.get("with_overhead");
        if (rawWithOverhead != null && !(rawWithOverhead instanceof Boolean)) {
            throw new BadRequest("field 'with_overhead' of 'run' must be boolean");
        }
        boolean withOverhead = Boolean.TRUE.equals(rawWithOverhead);
        if (withOverhead && !stage.equals("workload")) throw new BadRequest("with_overhead is for the workload stage only");
        // overhead_first: the overhead iteration before its workload one (the second of a request is
        // the one a loaded machine preempts; the host puts each side second alike)
        boolean overheadFirst = withOverhead && Boolean.TRUE.equals(msg.get("overhead_first"));
        boolean overhead;
        switch (stage) {
            case "pilot": case "warmup": case "workload": overhead = false; break;
            case "overhead": overhead = true; break;
            case "diagnose": diagnose(id, invocations, iterations); return;
            default: throw new BadRequest("unknown stage '" + stage + "'");
        }
        CaseState cs = current;
        activity = "running " + cs.bench.id + " (" + stage + (withOverhead ? " with overhead" : "") + ")";
        long[] ns = new long[(int) iterations];
        long[] cpuNs = new long[(int) iterations];
        long[] overheadNs = withOverhead ? new long[(int) iterations] : null;
        long[] overheadCpuNs = withOverhead ? new long[(int) iterations] : null;
        long[] cpu = new long[1];
        CountRegion.Body iterate = () -> {
            for (int it = 0; it < iterations; it++) {
                // the `overhead` stage's own loop, right before or after; the iteration hooks belong
                // to the workload
                if (overheadFirst) {
                    overheadNs[it] = timeLoop(cs, invocations, true, cpu);
                    overheadCpuNs[it] = cpu[0];
                }
                ns[it] = timeIteration(cs, invocations, overhead, cpu);
                cpuNs[it] = cpu[0];
                if (overheadNs != null && !overheadFirst) {
                    overheadNs[it] = timeLoop(cs, invocations, true, cpu);
                    overheadCpuNs[it] = cpu[0];
                }
            }
        };
        try {
            // count mode: all iterations inside one marker call (see CountRegion)
            if (CountRegion.ON) {
                CountRegion.tierUp(cs);
                CountRegion.run(iterate);
            }
            else iterate.run();
        } catch (Throwable t) {
            Throwable u = unwrap(t);
            activity = "idle";
            error(id, "exception", u.toString(), u);
            return;
        }
        activity = "idle";
        Map<String, Object> reply = map("id", id, "type", "samples", "stage", stage, "invocations", invocations, "ns", ns);
        if (CpuClock.AVAILABLE) reply.put("cpu_ns", cpuNs);
        if (overheadNs != null) {
            reply.put("overhead_ns", overheadNs);
            if (CpuClock.AVAILABLE) reply.put("overhead_cpu_ns", overheadCpuNs);
        }
        send(reply);
    }

    /** One timed iteration, between the benchmark's per-iteration hooks (which are not timed). */
    static long timeIteration(CaseState cs, long invocations, boolean overhead, long[] cpu) throws Throwable {
        Model.Bench b = cs.bench;
        hooks(cs, b.setups.get(Level.Iteration));
        hooks(cs, b.setups.get(Level.Invocation));
        long ns = timeLoop(cs, invocations, overhead, cpu);
        hooks(cs, b.teardowns.get(Level.Invocation));
        hooks(cs, b.teardowns.get(Level.Iteration));
        return ns;
    }

    /**
     * The elapsed nanoseconds of `invocations` calls in the generated workload (or overhead) loop; the
     * thread's CPU nanoseconds meanwhile go to cpu[0].
     */
    static long timeLoop(CaseState cs, long invocations, boolean overhead, long[] cpu) throws Throwable {
        long total = 0, cpuTotal = 0;
        long left = invocations;
        while (left > 0) {
            int n = (int) Math.min(left, Integer.MAX_VALUE);
            total += overhead ? cs.harness.overhead(cs.instance, n, cs.bh) : cs.harness.workload(cs.instance, n, cs.bh);
            cpuTotal += CpuClock.last;
            left -= n;
        }
        cpu[0] = Math.max(0, cpuTotal);
        return Math.max(0, total);
    }

    // ---- diagnose ---------------------------------------------------------------------------------

    static boolean allocSupported() {
        try {
            java.lang.management.ThreadMXBean t = ManagementFactory.getThreadMXBean();
            if (!(t instanceof com.sun.management.ThreadMXBean)) return false;
            com.sun.management.ThreadMXBean s = (com.sun.management.ThreadMXBean) t;
            if (!s.isThreadAllocatedMemorySupported()) return false;
            if (!s.isThreadAllocatedMemoryEnabled()) s.setThreadAllocatedMemoryEnabled(true);
            return true;
        } catch (Throwable e) {
            return false;
        }
    }

    static ObjectName diagnosticCommand() {
        try {
            ObjectName on = new ObjectName("com.sun.management:type=DiagnosticCommand");
            return ManagementFactory.getPlatformMBeanServer().isRegistered(on) ? on : null;
        } catch (Throwable e) {
            return null;
        }
    }

    @SuppressWarnings("deprecation") // Thread.getId: threadId() is JDK 19+, the worker runs on JDK 17
    void diagnose(Object id, long invocations, long iterations) throws IOException {
        CaseState cs = current;
        activity = "running " + cs.bench.id + " (diagnose)";
        List<String> notes = new ArrayList<>();
        Long allocBytes = null;
        List<GarbageCollectorMXBean> gcs = ManagementFactory.getGarbageCollectorMXBeans();
        long[] gc0 = new long[gcs.size()], gc1 = new long[gcs.size()];
        com.sun.management.ThreadMXBean tmx = allocSupported()
                ? (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean() : null;
        long tid = Thread.currentThread().getId();
        try {
            // the cost of reading the counter itself, subtracted below
            long calib = 0;
            if (tmx != null) {
                long a = tmx.getThreadAllocatedBytes(tid);
                long c = tmx.getThreadAllocatedBytes(tid);
                calib = c - a;
            }
            for (int i = 0; i < gcs.size(); i++) gc0[i] = Math.max(0, gcs.get(i).getCollectionCount());
            long a0 = tmx != null ? tmx.getThreadAllocatedBytes(tid) : 0;
            long hooksBytes = 0;
            for (long it = 0; it < iterations; it++) {
                Model.Bench b = cs.bench;
                long h0 = tmx != null ? tmx.getThreadAllocatedBytes(tid) : 0;
                hooks(cs, b.setups.get(Level.Iteration));
                hooks(cs, b.setups.get(Level.Invocation));
                long h1 = tmx != null ? tmx.getThreadAllocatedBytes(tid) : 0;
                long left = invocations;
                while (left > 0) {
                    int n = (int) Math.min(left, Integer.MAX_VALUE);
                    cs.harness.workload(cs.instance, n, cs.bh);
                    left -= n;
                }
                long h2 = tmx != null ? tmx.getThreadAllocatedBytes(tid) : 0;
                hooks(cs, b.teardowns.get(Level.Invocation));
                hooks(cs, b.teardowns.get(Level.Iteration));
                long h3 = tmx != null ? tmx.getThreadAllocatedBytes(tid) : 0;
                hooksBytes += (h1 - h0) + (h3 - h2) + 3 * calib;
            }
            long a1 = tmx != null ? tmx.getThreadAllocatedBytes(tid) : 0;
            for (int i = 0; i < gcs.size(); i++) gc1[i] = Math.max(0, gcs.get(i).getCollectionCount());
            if (tmx != null) {
                allocBytes = Math.max(0, a1 - a0 - calib - hooksBytes);
                notes.add("allocated = ThreadMXBean.getThreadAllocatedBytes delta (after escape analysis)");
            } else {
                notes.add("this JVM cannot count allocated bytes per thread");
            }
        } catch (Throwable t) {
            Throwable u = unwrap(t);
            activity = "idle";
            error(id, "exception", u.toString(), u);
            return;
        }
        List<Long> gc = new ArrayList<>();
        List<String> gcNames = new ArrayList<>();
        for (int i = 0; i < gcs.size(); i++) {
            gc.add(gc1[i] - gc0[i]);
            gcNames.add(gcs.get(i).getName());
        }
        notes.add("gc = collections per collector: " + String.join(", ", gcNames));
        Long codeSize = null;
        try {
            long[] cz = codeSize(cs.bench);
            if (cz != null) {
                codeSize = cz[0];
                notes.add("code size = instructions of the tier-" + cz[1] + " compiled " + cs.bench.cls.getName() + "."
                        + cs.bench.method.getName() + " (Compiler.codelist)");
            } else {
                notes.add("code size: " + cs.bench.method.getName() + " has no compiled code of its own (always inlined or not compiled yet)");
            }
        } catch (Throwable t) {
            notes.add("code size unavailable: " + t);
        }
        activity = "idle";
        send(map("id", id, "type", "diagnostics", "invocations", invocations, "iterations", iterations,
                "alloc_bytes", allocBytes, "allocs", null, "gc", gc, "code_size", codeSize, "notes", notes));
    }

    private static final Pattern CODELIST = Pattern.compile(
            "^\\s*(\\d+)\\s+(-?\\d+)\\s+(-?\\d+)\\s+(\\S+?)\\(\\S*\\s*\\[0x([0-9a-fA-F]+),\\s*0x([0-9a-fA-F]+)\\s*-\\s*0x([0-9a-fA-F]+)\\]");

    /** {size in bytes, tier} of the newest highest-tier compiled code of the benchmark method, or null. */
    static long[] codeSize(Model.Bench b) throws Exception {
        ObjectName on = diagnosticCommand();
        if (on == null) return null;
        MBeanServer srv = ManagementFactory.getPlatformMBeanServer();
        String text = (String) srv.invoke(on, "compilerCodelist", new Object[]{null}, new String[]{String[].class.getName()});
        String want = b.cls.getName() + "." + b.method.getName();
        long[] best = null;
        long bestId = -1;
        for (String line : text.split("\n")) {
            Matcher m = CODELIST.matcher(line);
            if (!m.find() || !m.group(4).equals(want)) continue;
            long cid = Long.parseLong(m.group(1));
            long level = Long.parseLong(m.group(2));
            long state = Long.parseLong(m.group(3));
            long size = Long.parseUnsignedLong(m.group(7), 16) - Long.parseUnsignedLong(m.group(6), 16);
            // prefer code in use (state 0), then the highest tier, then the newest compilation
            long rank = (state == 0 ? 1L << 40 : 0) + (level << 32) + cid;
            if (best == null || rank > bestId) {
                best = new long[]{size, level};
                bestId = rank;
            }
        }
        return best;
    }
}
