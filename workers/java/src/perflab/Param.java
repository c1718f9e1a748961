package perflab;

import java.lang.annotation.*;

/** A parameter axis on a field: every value is a case. Values are converted to the field's type. */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
public @interface Param {
    String[] value();
}
