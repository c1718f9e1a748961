module perflab.dev/seeds/parsing_formatting

go 1.21

require perflab.dev/go v0.0.0

replace perflab.dev/go => ../../../../workers/go
