package perflab;

import java.lang.annotation.*;

/** Marks a method as a benchmark (JMH spirit). The method may take no argument or one {@link Blackhole}. */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Benchmark {
    /** Name shown in the Method column (default: the method name). */
    String name() default "";
    /** Free-form categories, used by `perflab run --category`. */
    String[] categories() default {};
    /** One-line description. */
    String description() default "";
}
