package perflab;

import java.lang.annotation.*;

/** Runs before timing, at the given level (default: once per case). */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Setup {
    Level value() default Level.Trial;
}
