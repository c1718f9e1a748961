package perflab;

import java.lang.annotation.*;

/** One call of the benchmark performs this many operations (times are reported per operation). */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface OperationsPerInvocation {
    int value() default 1;
}
