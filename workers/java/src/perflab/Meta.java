package perflab;

import java.lang.annotation.*;

/**
 * Free-form metadata copied into the results (the benchmark's {@code meta}), as {@code "key=value"}
 * entries split at the first {@code '='}; values are strings. On a class it applies to every benchmark of
 * that class and of its nested classes; an inner class's or the method's entry overrides an outer one of
 * the same key. Example: {@code @Meta({"seed=002", "section=Seek/Position"})}.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface Meta {
    String[] value();
}
