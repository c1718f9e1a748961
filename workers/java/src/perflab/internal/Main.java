package perflab.internal;

/** Entry point of the worker JVM: {@code java -cp ... perflab.internal.Main}. */
public final class Main {
    private Main() { }

    public static void main(String[] args) throws Exception {
        Worker.main(args);
    }
}
