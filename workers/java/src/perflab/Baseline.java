package perflab;

import java.lang.annotation.*;

/** The benchmark the others of its class are compared with (Ratio column). */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Baseline {
}
