module perflab.dev/seeds/arrays_strings

go 1.21

require perflab.dev/go v0.0.0

replace perflab.dev/go => ../../../../workers/go
