package perflab.internal;

/** Read (volatile) once per call by every generated loop: field loads cannot be hoisted out of it. */
public final class Control {
    private Control() { }

    public static volatile boolean stop;
}
