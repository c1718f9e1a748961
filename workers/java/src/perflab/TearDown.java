package perflab;

import java.lang.annotation.*;

/** Runs after timing, at the given level (default: once per case). */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface TearDown {
    Level value() default Level.Trial;
}
