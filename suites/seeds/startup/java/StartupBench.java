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
 * (java.home), so HelloWorld compares the JDKs' own start-up (its program is a nested class of this file, found
 * on the benchmark's class path); ProcessStartWait starts the seed's no-op native program, so it compares the
 * JDKs' process-start path.
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
        @Meta({"seed=000", "section=Startup", "scenario=true", "fidelity=faithful"})
        public void HelloWorld() throws Exception {
            run(java, "-cp", classPath, Hello.class.getName());
        }

        /** Process.Start(nop).WaitForExit(): the seed's target is a no-op native program (`int main() { return 0; }`),
         * here /bin/true; the same for every runtime, so it measures the JDK's process-start path (posix_spawn
         * through jspawnhelper) alone. */
        @Benchmark(categories = {"startup"}, description = "Start /bin/true and wait for it")
        @Meta({"seed=003", "section=Process", "fidelity=faithful"})
        public void ProcessStartWait() throws Exception {
            run("/bin/true");
        }

        /** Not the seed's experiment: a JVM with its start-up-oriented flags (C1 only, serial GC) and an empty main. */
        @Benchmark(categories = {"startup"}, description = "Start `java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp … StartupBench$Nop` and wait")
        @Meta({"extra=true", "related=003 · Process"})
        public void ProcessStartWaitJvm() throws Exception {
            run(java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", classPath, Nop.class.getName());
        }
    }
}
