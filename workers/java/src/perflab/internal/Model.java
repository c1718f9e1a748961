package perflab.internal;

import java.lang.reflect.*;
import java.util.*;

import perflab.*;

/** Benchmark discovery by reflection, shared by the generator (build time) and the worker (run time). */
public final class Model {
    private Model() { }

    public static final String HARNESS_MARK = "_perflab_";
    public static final String JMH_BLACKHOLE = "org.openjdk.jmh.infra.Blackhole";

    /** One parameter axis: a field and its display values. */
    public static final class Axis {
        public final Field field;
        public final List<String> values;
        Axis(Field field, List<String> values) { this.field = field; this.values = values; }
    }

    /** One benchmark method and everything needed to set it up and run it. */
    public static final class Bench {
        public Class<?> cls;
        public Method method;
        public String id, name, group, description = "";
        public boolean baseline, takesBlackhole, jmhBlackhole, isStatic;
        public int ops = 1;
        public List<String> categories = new ArrayList<>();
        /** From {@code @Meta} on the enclosing classes (outermost first), the class and the method. */
        public Map<String, String> meta = new LinkedHashMap<>();
        public List<Axis> axes = new ArrayList<>();
        public final EnumMap<Level, List<Method>> setups = new EnumMap<>(Level.class);
        public final EnumMap<Level, List<Method>> teardowns = new EnumMap<>(Level.class);
        public String file = "";
        public int line;

        public String harnessName() { return Model.harnessName(cls, method.getName()); }

        public boolean iterationSetup() {
            return !setups.get(Level.Invocation).isEmpty() || !teardowns.get(Level.Invocation).isEmpty();
        }
    }

    /** Flattened binary name without package: Outer$Inner → Outer_Inner. */
    public static String flatName(Class<?> c) {
        String n = c.getName();
        String pkg = c.getPackageName();
        if (!pkg.isEmpty()) n = n.substring(pkg.length() + 1);
        return n.replace('$', '_');
    }

    public static String harnessName(Class<?> c, String method) {
        String pkg = c.getPackageName();
        return (pkg.isEmpty() ? "" : pkg + ".") + flatName(c) + HARNESS_MARK + method;
    }

    /** Group/display name: Outer or Outer.Inner (no package). */
    public static String groupName(Class<?> c) {
        String n = c.getName();
        String pkg = c.getPackageName();
        if (!pkg.isEmpty()) n = n.substring(pkg.length() + 1);
        return n.replace('$', '.');
    }

    public static boolean hasBenchmarks(Class<?> c) {
        for (Method m : c.getDeclaredMethods()) if (find(m, "Benchmark") != null) return true;
        return false;
    }

    /** perflab's annotation `simple`, or JMH's of the same name (org.openjdk.jmh.annotations), on e. */
    public static java.lang.annotation.Annotation find(java.lang.reflect.AnnotatedElement e, String simple) {
        for (java.lang.annotation.Annotation a : e.getAnnotations()) {
            String n = a.annotationType().getName();
            if (n.equals("perflab." + simple) || n.equals("org.openjdk.jmh.annotations." + simple)) return a;
        }
        return null;
    }

    /** An attribute of an annotation found by {@link #find}, or `dflt` if it has no such attribute. */
    public static Object attr(java.lang.annotation.Annotation a, String name, Object dflt) {
        try {
            Method m = a.annotationType().getMethod(name);
            m.setAccessible(true);
            return m.invoke(a);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return dflt;
        }
    }

    static Level level(java.lang.annotation.Annotation a) {
        Object v = attr(a, "value", Level.Trial);
        return Level.valueOf(((Enum<?>) v).name());
    }

    /** The benchmarks declared by class c (not its nested classes); problems go to `errors`. */
    public static List<Bench> scan(Class<?> c, List<String> errors) {
        List<Bench> out = new ArrayList<>();
        List<Method> methods = new ArrayList<>();
        for (Method m : c.getDeclaredMethods()) {
            if (find(m, "Benchmark") != null) methods.add(m);
        }
        if (methods.isEmpty()) return out;
        methods.sort(Comparator.comparing(Method::getName));
        String where = groupName(c);
        int mods = c.getModifiers();
        if (Modifier.isAbstract(mods) || c.isInterface()) {
            errors.add(where + ": a benchmark class must not be abstract");
            return out;
        }
        if (c.isMemberClass() && !Modifier.isStatic(mods)) {
            errors.add(where + ": a nested benchmark class must be static");
            return out;
        }
        if (Modifier.isPrivate(mods)) {
            errors.add(where + ": a benchmark class must not be private");
            return out;
        }
        // parameter fields (this class and its superclasses)
        List<Axis> axes = new ArrayList<>();
        for (Class<?> k = c; k != null && k != Object.class; k = k.getSuperclass()) {
            for (Field f : k.getDeclaredFields()) {
                java.lang.annotation.Annotation p = find(f, "Param");
                if (p == null) continue;
                if (Modifier.isFinal(f.getModifiers())) {
                    errors.add(where + "." + f.getName() + ": a @Param field must not be final");
                    return out;
                }
                List<String> vals = new ArrayList<>(Arrays.asList((String[]) attr(p, "value", new String[0])));
                if (vals.isEmpty()) {
                    if (f.getType().isEnum()) {
                        for (Object e : f.getType().getEnumConstants()) vals.add(((Enum<?>) e).name());
                    } else if (f.getType() == boolean.class || f.getType() == Boolean.class) {
                        vals.add("false");
                        vals.add("true");
                    } else {
                        errors.add(where + "." + f.getName() + ": @Param has no values");
                        return out;
                    }
                }
                for (String v : vals) {
                    try {
                        convert(f.getType(), v);
                    } catch (RuntimeException e) {
                        errors.add(where + "." + f.getName() + ": cannot use @Param value '" + v + "' for a "
                                + f.getType().getSimpleName() + " field (" + e.getMessage() + ")");
                        return out;
                    }
                }
                axes.add(new Axis(f, vals));
            }
        }
        EnumMap<Level, List<Method>> setups = new EnumMap<>(Level.class), teardowns = new EnumMap<>(Level.class);
        for (Level l : Level.values()) { setups.put(l, new ArrayList<>()); teardowns.put(l, new ArrayList<>()); }
        List<Class<?>> chain = new ArrayList<>();
        for (Class<?> k = c; k != null && k != Object.class; k = k.getSuperclass()) chain.add(0, k);
        // Each hook runs once: javac's visibility bridges (a public subclass of a package-private class gets
        // public copies of its inherited public methods, annotations included) are not hooks of their own, and a
        // hook overridden further down is called once, through the superclass's Method (virtual dispatch).
        Set<String> inherited = new HashSet<>();
        for (Class<?> k : chain) {
            Method[] ms = k.getDeclaredMethods();
            Arrays.sort(ms, Comparator.comparing(Method::getName));
            for (Method m : ms) {
                if (m.isBridge() || m.isSynthetic()) continue;
                java.lang.annotation.Annotation s = find(m, "Setup");
                java.lang.annotation.Annotation t = find(m, "TearDown");
                if (s == null && t == null) continue;
                if (m.getParameterCount() != 0) {
                    errors.add(where + "." + m.getName() + ": @Setup/@TearDown methods take no arguments");
                    return out;
                }
                boolean overridable = !Modifier.isPrivate(m.getModifiers()) && !Modifier.isStatic(m.getModifiers());
                if (overridable && !inherited.add(m.getName())) continue;
                m.setAccessible(true);
                if (s != null) setups.get(level(s)).add(m);
                if (t != null) teardowns.get(level(t)).add(m);
            }
        }
        java.lang.annotation.Annotation classOps = find(c, "OperationsPerInvocation");
        Map<String, String> classMeta = new LinkedHashMap<>();
        List<Class<?>> nest = new ArrayList<>();
        for (Class<?> k = c; k != null; k = k.getEnclosingClass()) nest.add(0, k);
        for (Class<?> k : nest) {
            if (!meta(k, groupName(k), classMeta, errors)) return out;
        }
        for (Method m : methods) {
            java.lang.annotation.Annotation ann = find(m, "Benchmark");
            String bid = c.getName().replace('$', '.') + "." + m.getName();
            Class<?>[] pt = m.getParameterTypes();
            boolean jmhBlackhole = pt.length == 1 && pt[0].getName().equals(JMH_BLACKHOLE);
            if (pt.length > 1 || (pt.length == 1 && pt[0] != Blackhole.class && !jmhBlackhole)) {
                errors.add(bid + ": a @Benchmark method takes no arguments or one Blackhole (perflab's or JMH's)"
                        + (pt.length == 1 && pt[0].getName().startsWith("org.openjdk.jmh.")
                        ? " (JMH's @State parameters are not supported: use fields of the benchmark class)" : ""));
                continue;
            }
            if (Modifier.isPrivate(m.getModifiers())) {
                errors.add(bid + ": a @Benchmark method must not be private");
                continue;
            }
            Bench b = new Bench();
            b.cls = c;
            b.method = m;
            b.id = bid;
            String name = (String) attr(ann, "name", "");
            b.name = name.isEmpty() ? m.getName() : name;
            b.group = groupName(c);
            b.description = (String) attr(ann, "description", "");
            b.categories.addAll(Arrays.asList((String[]) attr(ann, "categories", new String[0])));
            b.meta.putAll(classMeta);
            if (!meta(m, bid, b.meta, errors)) continue;
            b.baseline = find(m, "Baseline") != null;
            b.takesBlackhole = pt.length == 1;
            b.jmhBlackhole = jmhBlackhole;
            b.isStatic = Modifier.isStatic(m.getModifiers());
            java.lang.annotation.Annotation ops = find(m, "OperationsPerInvocation");
            if (ops == null) ops = classOps;
            b.ops = ops == null ? 1 : (Integer) attr(ops, "value", 1);
            if (b.ops < 1) {
                errors.add(bid + ": @OperationsPerInvocation must be >= 1");
                continue;
            }
            b.axes = axes;
            b.setups.putAll(setups);
            b.teardowns.putAll(teardowns);
            out.add(b);
        }
        return out;
    }

    /** Adds the {@code @Meta} entries of e (if any) to `into`; false (and an error) for a malformed entry. */
    static boolean meta(java.lang.reflect.AnnotatedElement e, String where, Map<String, String> into, List<String> errors) {
        Meta m = e.getAnnotation(Meta.class);
        if (m == null) return true;
        for (String entry : m.value()) {
            int eq = entry == null ? -1 : entry.indexOf('=');
            if (eq <= 0 || entry.substring(0, eq).trim().isEmpty()) {
                errors.add(where + ": @Meta entry '" + entry + "' is not \"key=value\"");
                return false;
            }
            into.put(entry.substring(0, eq).trim(), entry.substring(eq + 1));
        }
        return true;
    }

    /** A @Param string as a value of the field's type. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static Object convert(Class<?> t, String v) {
        if (t == String.class || t == Object.class || t == CharSequence.class) return v;
        if (t == int.class || t == Integer.class) return Integer.decode(v.trim());
        if (t == long.class || t == Long.class) return Long.decode(v.trim());
        if (t == short.class || t == Short.class) return Short.decode(v.trim());
        if (t == byte.class || t == Byte.class) return Byte.decode(v.trim());
        if (t == double.class || t == Double.class) return Double.parseDouble(v.trim());
        if (t == float.class || t == Float.class) return Float.parseFloat(v.trim());
        if (t == boolean.class || t == Boolean.class) {
            String s = v.trim().toLowerCase(Locale.ROOT);
            if (!s.equals("true") && !s.equals("false")) throw new IllegalArgumentException("not a boolean");
            return Boolean.parseBoolean(s);
        }
        if (t == char.class || t == Character.class) {
            if (v.length() != 1) throw new IllegalArgumentException("not one character");
            return v.charAt(0);
        }
        if (t.isEnum()) return Enum.valueOf((Class<Enum>) t, v.trim());
        throw new IllegalArgumentException("unsupported @Param type " + t.getName());
    }
}
