import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.Paths;

import perflab.Benchmark;
import perflab.Meta;
import perflab.Setup;

/**
 * Startup experiments: seed 000 (".NET 6": Startup — a "Hello, World" app timed from outside) and seed 003
 * (".NET Core 3.0": Process — ProcessStartWait on a no-op program). Ported as scenarios: one invocation
 * starts a process with ProcessBuilder and waits for it. The child JVM is the java of the runtime under test
 * (java.home), so the Runtime column compares the JDKs' own start-up; its program is a nested class of this
 * file, found on the benchmark's class path.
 */
public class StartupBench {

    /** The child program of HelloWorld. */
    public static final class Hello {
        public static void main(String[] args) {
            System.out.println("Hello, World!");
        }
    }

    /** The child program of ProcessStartWait: returns at once. */
    public static final class Nop {
        public static void main(String[] args) {
        }
    }

    public static class Processes {
        String java;
        String classPath;

        @Setup public void setup() throws Exception {
            java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
            Path classes = Paths.get(StartupBench.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            classPath = classes.toString();
        }

        static void run(String... argv) throws IOException, InterruptedException {
            Process p = new ProcessBuilder(argv).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            int status = p.waitFor();
            if (status != 0) throw new IOException(String.join(" ", argv) + " exited with status " + status);
        }

        @Benchmark(categories = {"startup", "quick"}, description = "Start `java -cp … StartupBench$Hello` (prints Hello, World!) and wait for it")
        @Meta({"seed=000", "section=Startup"})
        public void HelloWorld() throws Exception {
            run(java, "-cp", classPath, Hello.class.getName());
        }

        /** The counterpart of Python's `-S`: the JVM's start-up-oriented flags (C1 only, serial GC), an empty main. */
        @Benchmark(categories = {"startup"}, description = "Start `java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp … StartupBench$Nop` and wait")
        @Meta({"seed=003", "section=Process"})
        public void ProcessStartWait() throws Exception {
            run(java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", classPath, Nop.class.getName());
        }

        /** The seed's exact target, a no-op native program (/bin/true): the same for every runtime, so it measures
         * the JDK's process-start path (posix_spawn through jspawnhelper) alone. */
        @Benchmark(categories = {"startup"}, description = "Start /bin/true and wait for it")
        @Meta({"seed=003", "section=Process"})
        public void ProcessStartWaitNop() throws Exception {
            run("/bin/true");
        }
    }
}
