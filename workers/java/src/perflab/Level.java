package perflab;

/** When a {@link Setup}/{@link TearDown} method runs. */
public enum Level {
    /** Once per case (before the first / after the last iteration). */
    Trial,
    /** Around every timed iteration, outside the timed region. */
    Iteration,
    /** Around every call: the host then times one call per iteration (use only for state a call consumes). */
    Invocation
}
