import java.util.*;

import perflab.Blackhole;
import perflab.Level;
import perflab.internal.*;

/** Native tests of the Java worker's parts (run by workers/java/test.sh). Exits non-zero on failure. */
public class SelfTest {
    static int failures, checks;

    static void check(boolean ok, String what) {
        checks++;
        if (!ok) {
            failures++;
            System.out.println("FAIL " + what);
        }
    }

    static void eq(Object got, Object want, String what) {
        check(Objects.equals(got, want), what + ": got " + got + ", want " + want);
    }

    public static void main(String[] args) throws Throwable {
        json();
        model();
        harness();
        lines();
        protocol();
        System.out.println(checks + " checks, " + failures + " failed");
        System.exit(failures == 0 ? 0 : 1);
    }

    @SuppressWarnings("unchecked")
    static void json() {
        Object v = Json.parse("{\"v\":1,\"id\":7,\"s\":\"a\\\"b\\n\\u00e9\",\"l\":[1,2.5,-3,true,false,null],\"o\":{}}");
        Map<String, Object> m = (Map<String, Object>) v;
        eq(m.get("v"), 1L, "json int");
        eq(m.get("s"), "a\"b\n\u00e9", "json string escapes");
        eq(m.get("l"), Arrays.asList(1L, 2.5, -3L, true, false, null), "json list");
        eq(m.get("o"), new LinkedHashMap<>(), "json empty object");
        eq(Json.write(m), "{\"v\":1,\"id\":7,\"s\":\"a\\\"b\\n\u00e9\",\"l\":[1,2.5,-3,true,false,null],\"o\":{}}",
                "json round trip");
        eq(Json.write(new long[]{1, 2}), "[1,2]", "json long[]");
        eq(Json.write("\u2028\t"), "\"\\u2028\\t\"", "json escapes line separators");
        for (String bad : new String[]{"", "{", "[1,]", "{\"a\" 1}", "tru", "\"abc", "{} x", "-"}) {
            boolean threw = false;
            try {
                Json.parse(bad);
            } catch (IllegalArgumentException e) {
                threw = true;
            }
            check(threw, "json rejects " + bad);
        }
    }

    static void model() throws Exception {
        List<String> errors = new ArrayList<>();
        List<Model.Bench> found = Model.scan(SelfTestBench.class, errors);
        eq(errors, Collections.emptyList(), "scan errors");
        Map<String, Model.Bench> byName = new HashMap<>();
        for (Model.Bench b : found) byName.put(b.name, b);
        eq(new TreeSet<>(byName.keySet()), new TreeSet<>(Arrays.asList("count", "sink", "staticOne", "fails")), "benchmarks");
        Model.Bench count = byName.get("count");
        eq(count.id, "SelfTestBench.count", "id");
        eq(count.group, "SelfTestBench", "group");
        check(count.baseline, "baseline");
        eq(byName.get("sink").ops, 8, "ops per invocation");
        check(byName.get("sink").takesBlackhole, "takes a blackhole");
        check(byName.get("staticOne").isStatic, "static benchmark");
        eq(count.axes.size(), 2, "axes");
        eq(count.axes.get(0).values, Arrays.asList("3", "5"), "int axis");
        eq(count.axes.get(1).values, Arrays.asList("FAST", "SLOW"), "empty enum @Param means every constant");
        eq(count.setups.get(Level.Iteration).size(), 1, "iteration setup");
        check(!count.iterationSetup(), "Level.Iteration does not force one call per iteration");
        eq(Model.convert(int.class, "0x10"), 16, "convert int");
        eq(Model.convert(boolean.class, "TRUE"), true, "convert boolean");
        eq(Model.harnessName(SelfTestBench.Nested.class, "hello"), "SelfTestBench_Nested_perflab_hello", "harness name");
        eq(Model.groupName(SelfTestBench.Nested.class), "SelfTestBench.Nested", "nested group");
        List<Model.Bench> nested = Model.scan(SelfTestBench.Nested.class, errors);
        eq(nested.size(), 1, "nested class benchmarks");
        // @Meta: class entries, overridden by the method's; nested classes inherit the outer class's
        Map<String, String> want = new LinkedHashMap<>();
        want.put("seed", "002");
        want.put("section", "Seek/Position");
        eq(count.meta, want, "class @Meta");
        want.put("section", "Read & Write");
        want.put("note", "a=b");
        eq(byName.get("sink").meta, want, "method @Meta overrides the class's, split at the first '='");
        want.clear();
        want.put("seed", "002");
        want.put("section", "Length");
        eq(nested.get(0).meta, want, "nested class @Meta over the enclosing class's");
        Map<String, Object> described = Worker.describe(count);
        eq(((Map<?, ?>) described.get("meta")).get("seed"), "002", "meta is described to the host");
        eq(((Map<?, ?>) described.get("meta")).get("class"), "SelfTestBench", "meta keeps the class");
        // hooks inherited from a package-private class run once (not again through javac's bridge methods),
        // and an overridden hook once, through virtual dispatch
        List<Model.Bench> hooked = Model.scan(SelfTestBench.Hooked.class, errors);
        eq(hooked.size(), 1, "benchmark of a subclass");
        eq(hooked.get(0).setups.get(Level.Trial).size(), 1, "inherited @Setup found once");
        eq(hooked.get(0).teardowns.get(Level.Trial).size(), 1, "inherited @TearDown found once");
        eq(hooked.get(0).setups.get(Level.Iteration).size(), 1, "overridden @Setup found once");
        SelfTestBench.Hooked h = new SelfTestBench.Hooked();
        for (Level l : Level.values()) for (java.lang.reflect.Method m : hooked.get(0).setups.get(l)) m.invoke(h);
        eq(h.setups, 11, "each setup ran once, the override in place of the overridden");
        List<String> metaErrors = new ArrayList<>();
        eq(Model.scan(BadMeta.class, metaErrors).size(), 0, "a malformed @Meta drops the benchmark");
        check(metaErrors.size() == 1 && metaErrors.get(0).contains("not \"key=value\""), "malformed @Meta error: " + metaErrors);
        boolean threw = false;
        try {
            Model.convert(int.class, "ten");
        } catch (RuntimeException e) {
            threw = true;
        }
        check(threw, "bad int param is rejected");
    }

    public static class BadMeta {
        @perflab.Benchmark
        @perflab.Meta({"seed=003", "no equals sign"})
        public int bad() { return 1; }
    }

    static void harness() throws Throwable {
        List<Model.Bench> found = Model.scan(SelfTestBench.class, new ArrayList<>());
        SelfTestBench target = new SelfTestBench();
        target.n = 3;
        Blackhole bh = new Blackhole();
        for (Model.Bench b : found) {
            Harness h = (Harness) Class.forName(b.harnessName()).getDeclaredConstructor().newInstance();
            if (b.name.equals("fails")) {
                boolean threw = false;
                try {
                    h.workload(target, 1, bh);
                } catch (java.io.IOException e) {
                    threw = e.getMessage().equals("disk on fire");
                }
                check(threw, "a checked exception propagates out of the loop");
                check(h.overhead(target, 10, bh) >= 0, "overhead loop of a failing benchmark runs");
                continue;
            }
            SelfTestBench.calls = 0;
            long ns = h.workload(b.isStatic ? null : target, 1000, bh);
            check(ns > 0, b.name + ": workload takes time");
            if (b.name.equals("count")) eq(SelfTestBench.calls, 1000, "workload calls the benchmark n times");
            SelfTestBench.calls = 0;
            check(h.overhead(b.isStatic ? null : target, 1000, bh) >= 0, b.name + ": overhead loop");
            if (b.name.equals("count")) eq(SelfTestBench.calls, 0, "the overhead loop never calls the benchmark");
        }
        // source of a generated loop: direct call, and a no-op of the same shape
        String src = genSource(found, "count");
        check(src.contains("perflab.Blackhole.consumeStatic(t.count())"), "generated loop calls directly: " + src);
        check(src.contains("private static int noop(SelfTestBench t) { return (int) 0; }"), "no-op has the same shape");
    }

    static void lines() {
        String text = "class A {\n  /* int b() */\n  int a() { return b(); }\n  // int b()\n  String s = \"int b()\";\n"
                + "  public java.util.List<int[]> b() { return null; }\n}\n";
        eq(Worker.lineOf(text, "b"), 6, "line of a declaration, not of calls, comments or strings");
        eq(Worker.lineOf(text, "a"), 3, "line of a one-line method");
        eq(Worker.lineOf(text, "zzz"), 0, "unknown method");
    }

    /** A worker serving over a loopback socket pair in this JVM, driven line by line like the host does. */
    static final class Peer implements AutoCloseable {
        final java.net.ServerSocket server = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
        final java.net.Socket client = new java.net.Socket();
        final java.net.Socket conn;
        final java.io.BufferedReader in;
        final java.io.Writer out;
        final Thread thread;
        int nextId;

        Peer() throws Exception {
            client.connect(server.getLocalSocketAddress());
            conn = server.accept();
            conn.setSoTimeout(60_000);
            in = new java.io.BufferedReader(new java.io.InputStreamReader(conn.getInputStream(), java.nio.charset.StandardCharsets.UTF_8));
            out = new java.io.OutputStreamWriter(conn.getOutputStream(), java.nio.charset.StandardCharsets.UTF_8);
            // Worker's constructor and serve() are package-private: the worker is started by its own main
            java.lang.reflect.Constructor<Worker> ctor = Worker.class.getDeclaredConstructor(java.net.Socket.class);
            ctor.setAccessible(true);
            Worker w = ctor.newInstance(client);
            java.lang.reflect.Method serve = Worker.class.getDeclaredMethod("serve");
            serve.setAccessible(true);
            thread = new Thread(() -> {
                try {
                    serve.invoke(w);
                } catch (ReflectiveOperationException e) {
                    e.printStackTrace();
                }
            }, "worker");
            thread.setDaemon(true);
            thread.start();
        }

        @SuppressWarnings("unchecked")
        Map<String, Object> read() throws Exception {
            String line = in.readLine();
            if (line == null) throw new java.io.EOFException("the worker closed the connection");
            return (Map<String, Object>) Json.parse(line);
        }

        Map<String, Object> request(Object... kv) throws Exception {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("v", 2L);
            m.put("id", (long) ++nextId);
            for (int i = 0; i < kv.length; i += 2) m.put((String) kv[i], kv[i + 1]);
            out.write(Json.write(m) + "\n");
            out.flush();
            Map<String, Object> reply = read();
            eq(reply.get("id"), m.get("id"), "reply id of " + m.get("type"));
            return reply;
        }

        @Override
        public void close() throws Exception {
            thread.join(60_000);
            conn.close();
            client.close();
            server.close();
        }
    }

    /** One CPU time per iteration, non-negative, at most its wall time plus the host's 1 ms slack. */
    static void cpuWithinWall(Map<String, Object> reply, String wallField, String cpuField) {
        Object wall = reply.get(wallField), cpu = reply.get(cpuField);
        check(wall instanceof List && cpu instanceof List && ((List<?>) cpu).size() == ((List<?>) wall).size(),
                cpuField + ": one per iteration: " + reply);
        if (!(wall instanceof List && cpu instanceof List)) return;
        for (int i = 0; i < ((List<?>) cpu).size() && i < ((List<?>) wall).size(); i++) {
            long c = (Long) ((List<?>) cpu).get(i), w = (Long) ((List<?>) wall).get(i);
            check(c >= 0 && c <= w + 1_000_000, cpuField + "[" + i + "] = " + c + " within wall " + w + " + slack");
        }
    }

    static Object errorKind(Map<String, Object> reply) {
        return reply.get("error") instanceof Map ? ((Map<?, ?>) reply.get("error")).get("kind") : null;
    }

    /** The `run` request through the worker's own protocol loop, `with_overhead` in particular. */
    static void protocol() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("perflab-selftest");
        java.nio.file.Path file = dir.resolve("SelfTestBench.java"); // only its name and text are read
        java.nio.file.Files.write(file, "public class SelfTestBench { }\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        try (Peer p = new Peer()) {
            Map<String, Object> hello = p.read();
            eq(hello.get("type"), "hello", "hello comes first");
            check(((List<?>) hello.get("capabilities")).contains("with_overhead"), "hello announces with_overhead: " + hello);
            check(((List<?>) hello.get("capabilities")).contains("overhead_first"), "hello announces overhead_first: " + hello);
            Object cpuClock = hello.get("cpu_clock");
            check(cpuClock instanceof Map && "thread".equals(((Map<?, ?>) cpuClock).get("scope")),
                    "hello declares the thread CPU clock: " + hello);
            eq(p.request("type", "load", "paths", Arrays.asList(file.toString())).get("type"), "loaded", "load");
            Map<String, Object> params = new LinkedHashMap<>();
            params.put("n", 0L);
            params.put("mode", 0L);
            eq(p.request("type", "setup", "benchmark", "SelfTestBench.count", "params", params).get("type"), "ready", "setup");
            SelfTestBench.calls = 0;
            SelfTestBench.iterationSetups = 0;
            SelfTestBench.iterationTeardowns = 0;

            Map<String, Object> r = p.request("type", "run", "stage", "workload", "invocations", 1000L, "iterations", 3L,
                    "with_overhead", true);
            eq(r.get("type"), "samples", "with_overhead: samples");
            eq(((List<?>) r.get("ns")).size(), 3, "with_overhead: one workload sample per iteration");
            Object over = r.get("overhead_ns");
            check(over instanceof List && ((List<?>) over).size() == 3, "with_overhead: one overhead sample per iteration: " + r);
            if (over instanceof List) {
                for (Object x : (List<?>) over) check(x instanceof Long && (Long) x >= 0, "overhead sample is a non-negative integer: " + x);
            }
            cpuWithinWall(r, "ns", "cpu_ns");
            cpuWithinWall(r, "overhead_ns", "overhead_cpu_ns");

            r = p.request("type", "run", "stage", "workload", "invocations", 1000L, "iterations", 2L,
                    "with_overhead", true, "overhead_first", true);
            check(((List<?>) r.get("ns")).size() == 2 && r.get("overhead_ns") instanceof List
                    && ((List<?>) r.get("overhead_ns")).size() == 2, "overhead_first: one of each per iteration: " + r);
            cpuWithinWall(r, "overhead_ns", "overhead_cpu_ns");

            r = p.request("type", "run", "stage", "workload", "invocations", 16L, "iterations", 2L, "with_overhead", false);
            eq(r.get("type"), "samples", "with_overhead false: samples");
            check(!r.containsKey("overhead_ns"), "with_overhead false: no overhead_ns: " + r);
            r = p.request("type", "run", "stage", "workload", "invocations", 16L, "iterations", 1L);
            check(!r.containsKey("overhead_ns"), "no with_overhead: no overhead_ns: " + r);

            for (String stage : new String[]{"pilot", "warmup", "overhead", "diagnose"}) {
                r = p.request("type", "run", "stage", stage, "invocations", 16L, "iterations", 1L, "with_overhead", true);
                eq(errorKind(r), "protocol", "with_overhead refused on the " + stage + " stage");
            }
            r = p.request("type", "run", "stage", "workload", "invocations", 16L, "iterations", 1L, "with_overhead", "yes");
            eq(errorKind(r), "protocol", "with_overhead must be a boolean");

            eq(p.request("type", "teardown").get("type"), "done", "teardown");
            eq(p.request("type", "bye").get("type"), "done", "bye");
            p.thread.join(60_000);
            // read after join: the worker thread's writes are visible
            eq(SelfTestBench.calls, 1000 * 3 + 1000 * 2 + 16 * 2 + 16, "the overhead iterations never call the benchmark");
            eq(SelfTestBench.iterationSetups, 3 + 2 + 2 + 1, "iteration setup runs around the workload iterations only");
            eq(SelfTestBench.iterationTeardowns, 3 + 2 + 2 + 1, "iteration teardown runs around the workload iterations only");
        } finally {
            java.nio.file.Files.deleteIfExists(file);
            java.nio.file.Files.deleteIfExists(dir);
        }
    }

    static String genSource(List<Model.Bench> found, String name) throws Exception {
        for (Model.Bench b : found) {
            if (b.name.equals(name)) {
                java.lang.reflect.Method m = Gen.class.getDeclaredMethod("source", Model.Bench.class);
                m.setAccessible(true);
                return (String) m.invoke(null, b);
            }
        }
        return "";
    }
}
